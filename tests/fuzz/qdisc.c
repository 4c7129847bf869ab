// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The qdisc parameter parser (src/net/qdisc.c). Input: a kind line ("" for
 * any kind, as [net] qdisc.PARAM is checked), a name line, a value line,
 * then raw bytes taken as a dumped TCA_OPTIONS payload. Properties: a value
 * qparam_parse() accepts is known, net_check_key() agrees with it, and it
 * encodes to TCA_OPTIONS that qparam_get() reads back unchanged; a rejected
 * one says why; qparam_get() on any payload stays inside it (an exact-size
 * heap block: ASan sees a read past its end).
 */
#include <errno.h>
#include <linux/pkt_sched.h>

#include "fuzz.h"
#include "net/net.h"
#include "net/netlink.h"

static const char *const kinds[] = { "fq", "fq_codel", "pfifo", "bfifo", "pfifo_head_drop" };

static char *next_line(char **s)
{
	char *line = *s, *nl = strchr(line, '\n');

	if (nl) {
		*nl = '\0';
		*s = nl + 1;
	} else {
		*s = line + strlen(line);
	}
	return line;
}

static void check_roundtrip(const char *kind, const char *name, unsigned long long v)
{
	const struct qparam p = { name, v };
	unsigned char opts[NL_OPTS_MAX];
	unsigned long long back = ~0ULL;
	int len = qparam_encode(kind, &p, 1, opts, sizeof(opts));

	fuzz_assert(len > 0, "qparam_encode(%s, %s=%llu) returned %d", kind, name, v, len);
	fuzz_assert(qparam_get(kind, opts, (size_t)len, name, &back) == 0 && back == v,
		    "%s %s=%llu reads back as %llu", kind, name, v, back);
}

static bool any_kind_takes(const char *name, const char *value)
{
	unsigned long long v;
	char why[512];

	if (!qparam_known(NULL, name))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		if (qparam_known(kinds[i], name) && qparam_parse(kinds[i], name, value, &v, why, sizeof(why)) == 0)
			return true;
	return false;
}

static void check_parse(const char *kind, const char *name, const char *value)
{
	unsigned long long v = 0;
	char why[512] = "", *key = xasprintf("qdisc.%s", name);
	int r = qparam_parse(kind, name, value, &v, why, sizeof(why));

	if (!key)
		abort();
	fuzz_assert(r == 0 || r == -EINVAL, "qparam_parse returned %d", r);
	if (r < 0) {
		fuzz_assert(*why, "'%s = %s' rejected without a reason", name, value);
	} else {
		fuzz_assert(qparam_known(kind, name), "'%s' accepted but not known", name);
		if (kind)
			check_roundtrip(kind, name, v);
	}
	/* On its line a value is good when some qdisc with that parameter takes
	 * it; a name no qdisc knows waits for the kind in force (net_check_conf,
	 * once every file is read). */
	if (!kind && *value)
		fuzz_assert((net_check_key(key, value, why, sizeof(why)) == 0) == any_kind_takes(name, value),
			    "net_check_key and qparam_parse disagree on %s = %s", key, value);
	free(key);
}

static void check_get(const uint8_t *opts, size_t len, const char *name)
{
	unsigned char *exact = malloc(len ? len : 1);

	if (!exact)
		abort();
	memcpy(exact, opts, len);
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		unsigned long long v;
		int r = qparam_get(kinds[i], exact, len, name, &v);

		fuzz_assert(r == 0 || r == -ENOENT || r == -EBADMSG || r == -EINVAL,
			    "qparam_get returned %d", r);
		fuzz_assert(r != -EINVAL || !qparam_known(kinds[i], name), "known '%s' is EINVAL", name);
	}
	free(exact);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size), *s = text, *kind, *name, *value;

	kind = next_line(&s);
	name = next_line(&s);
	value = next_line(&s);
	check_parse(*kind ? kind : NULL, name, value);
	/* The payload: whatever follows the value's line, NULs included. */
	check_get(data + (s - text), size - (size_t)(s - text), name);
	free(text);
	return 0;
}
