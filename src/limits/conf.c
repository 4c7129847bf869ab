// SPDX-License-Identifier: LGPL-2.1-or-later
/* The [limits] sections: keys, values in systemd's LimitNOFILE= syntax
 * (systemd.exec(5)), unit globs; and the limit lines of /proc/PID/limits. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "limits/internal.h"

const struct limit_key limit_keys[] = {
	{ "nofile", "NOFILE", "Max open files", false },
	{ "nproc", "NPROC", "Max processes", false },
	{ "memlock", "MEMLOCK", "Max locked memory", true },
	{ "core", "CORE", "Max core file size", true },
};
const size_t nlimit_keys = ARRAY_SIZE(limit_keys);

const struct limit_key *limit_key_find(const char *key)
{
	for (size_t i = 0; i < nlimit_keys; i++)
		if (!strcmp(limit_keys[i].key, key))
			return &limit_keys[i];
	return NULL;
}

/* One side: "infinity", or digits with, for bytes, one suffix of systemd's
 * parse_size (K M G T P E, 1024-based; B is bytes). */
static int parse_one(const struct limit_key *k, const char *s, uint64_t *out)
{
	static const char suffixes[] = "BKMGTPE";
	unsigned long long v;
	char num[32];
	size_t len = strlen(s);
	const char *suf;
	unsigned shift;
	int r;

	if (!strcmp(s, "infinity")) {
		*out = LIMIT_INFINITY;
		return 0;
	}
	if (!len || len >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, len + 1);
	suf = strchr(suffixes, num[len - 1]);
	if (k->bytes && suf) {
		num[len - 1] = '\0';
		shift = (unsigned)(suf - suffixes) * 10;
	} else {
		shift = 0;
	}
	r = parse_u64(num, &v);
	if (r < 0)
		return r == -ERANGE ? r : -EINVAL;
	if (shift && v > (UINT64_MAX - 1) >> shift)
		return -ERANGE;
	v <<= shift;
	if (v == LIMIT_INFINITY)
		return -ERANGE; /* RLIM_INFINITY: say infinity */
	*out = v;
	return 0;
}

int limits_parse_value(const struct limit_key *k, const char *value, struct rlim *out, char *why, size_t size)
{
	char soft[64];
	const char *colon = strchr(value, ':');
	size_t n = colon ? (size_t)(colon - value) : strlen(value);
	int r;

	if (n >= sizeof(soft))
		n = sizeof(soft) - 1;
	memcpy(soft, value, n);
	soft[n] = '\0';
	r = parse_one(k, soft, &out->soft);
	if (r == 0)
		r = colon ? parse_one(k, colon + 1, &out->hard) : (out->hard = out->soft, 0);
	if (r < 0) {
		snprintf(why, size, "[limits] %s = '%s': %s; expected SOFT[:HARD], each a whole number%s or 'infinity'",
			 k->key, value, r == -ERANGE ? "too large" : "not a limit",
			 k->bytes ? " of bytes (suffixes K, M, G, T, P, E: 1024-based)" : "");
		return -EINVAL;
	}
	if (out->soft > out->hard) {
		snprintf(why, size, "[limits] %s = '%s': the soft limit is above the hard one (systemd ignores such a line)",
			 k->key, value);
		return -EINVAL;
	}
	return 0;
}

static void format_one(uint64_t v, char *buf, size_t size)
{
	if (v == LIMIT_INFINITY)
		snprintf(buf, size, "infinity");
	else
		snprintf(buf, size, "%llu", (unsigned long long)v);
}

void limits_format(const struct rlim *l, char *buf, size_t size)
{
	char s[24], h[24];

	format_one(l->soft, s, sizeof(s));
	format_one(l->hard, h, sizeof(h));
	if (l->soft == l->hard)
		snprintf(buf, size, "%s", s);
	else
		snprintf(buf, size, "%s:%s", s, h);
}

/* "Max open files            1024                 524288               files" */
int limits_parse_proc(const char *text, const struct limit_key *k, struct rlim *out)
{
	size_t nl = strlen(k->proc_name);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		char s[32], h[32];
		unsigned long long vs = LIMIT_INFINITY, vh = LIMIT_INFINITY;

		if (strncmp(p, k->proc_name, nl) || p[nl] != ' ')
			continue;
		if (sscanf(p + nl, " %31s %31s", s, h) != 2 ||
		    (strcmp(s, "unlimited") && parse_u64(s, &vs) < 0) ||
		    (strcmp(h, "unlimited") && parse_u64(h, &vh) < 0))
			return -EBADMSG;
		out->soft = vs;
		out->hard = vh;
		return 0;
	}
	return -ENOENT;
}

static int unknown_key(const char *key, char *why, size_t size)
{
	char low[64], buf[96], names[64];
	const char *hint = buf;
	size_t i;

	/* LimitNOFILE, NOFILE: the systemd spelling of a key. */
	for (i = 0; key[i] && i < sizeof(low) - 1; i++)
		low[i] = (char)tolower((unsigned char)key[i]);
	low[i] = '\0';
	if (!strncmp(low, "limit", 5) && limit_key_find(low + 5))
		snprintf(buf, sizeof(buf), "; did you mean '%s'? ", low + 5);
	else if (limit_key_find(low))
		snprintf(buf, sizeof(buf), "; did you mean '%s'? ", low);
	else
		hint = did_you_mean(key, CFG_NAMES(limit_keys, "", names), buf, sizeof(buf));
	snprintf(why, size, "unknown key '%s' in [limits]%sallowed: %s", key, hint, CFG_NAMES(limit_keys, "", names));
	return -EINVAL;
}

int limits_check_key(const char *key, const char *value, char *why, size_t size)
{
	const struct limit_key *k = limit_key_find(key);
	struct rlim l;

	if (!k)
		return unknown_key(key, why, size);
	return *value ? limits_parse_value(k, value, &l, why, size) : 0;
}

/* [limits "GLOB"]: a glob on service names. Limits are [Service] settings:
 * a name that cannot be a service is a mistake, said at once. */
static int check_name(const char *name, char *why, size_t size)
{
	size_t n = strlen(name);

	if (cfg_glob_check("[limits] unit", name, why, size) < 0)
		return -EINVAL;
	if (n >= 8 && !strcmp(name + n - 8, ".service"))
		return 0;
	if (n && name[n - 1] == '*')
		snprintf(why, size, "[limits \"%s\"]: limits are set on services: end the glob in .service (\"%.*s.service\")",
			 name, (int)n, name);
	else
		snprintf(why, size, "[limits \"%s\"]: limits are set on services: a unit name ending in .service (\"%s.service\"?)",
			 name, strchr(name, '.') ? "NAME" : name);
	return -EINVAL;
}

void limits_check_conf(struct config *c)
{
	char why[384];

	for (size_t i = 0; i < c->n;) {
		const struct cfg_entry *e = &c->v[i];

		if (!strcmp(e->section, "limits") && e->name && check_name(e->name, why, sizeof(why)) < 0)
			config_reject(c, i, "%s", why);
		else
			i++;
	}
}
