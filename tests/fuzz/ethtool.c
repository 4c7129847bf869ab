// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The ethtool reply parsers (src/nic/ethtool.c). Input: a first byte that
 * says which answer the bytes after it are taken for (a group's values,
 * the features, the controller's family), then raw bytes walked as the
 * netlink messages of one receive, each in an exact-size heap block (ASan
 * sees a read past its end). Properties: a parser returns 0 or -errno; the
 * values it keeps are of attribute types it keeps; every feature kept has
 * a name, NUL-terminated, and there are never more than it has room for.
 */
#include "fuzz.h"
#include "nic/internal.h"

static void check_values(const struct nlmsghdr *h)
{
	struct nic_values v = { 0 };
	int r = nic_parse_values(h, &v);

	fuzz_assert(r == 0 || r == -EBADMSG, "nic_parse_values returned %d", r);
	fuzz_assert(!(v.have & 3), "an attribute of type 0 or 1 (the header) kept as a value: %llx",
		    (unsigned long long)v.have);
}

static void check_features(const struct nlmsghdr *h)
{
	static struct nic_features f;
	int r;

	f.n = 0;
	r = nic_parse_features(h, &f);
	fuzz_assert(r == 0 || r == -EBADMSG || r == -ENOBUFS, "nic_parse_features returned %d", r);
	fuzz_assert(f.n <= NIC_FEATURES, "%zu features kept", f.n);
	for (size_t i = 0; i < f.n; i++) {
		fuzz_assert(memchr(f.v[i].name, '\0', sizeof(f.v[i].name)) && f.v[i].name[0],
			    "feature %zu has no name", i);
		fuzz_assert(nic_feature_of(&f, f.v[i].name) == &f.v[i], "feature %s kept twice", f.v[i].name);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct nlmsghdr *h;
	size_t off = 0;
	uint16_t id;
	int r;

	uint8_t *buf;

	/* A receive buffer is aligned: the bytes after the selector are copied into one. */
	if (!size || !(buf = malloc(size)))
		return 0;
	memcpy(buf, data + 1, size - 1);
	while ((h = nl_next_msg(buf, size - 1, &off))) {
		struct nlmsghdr *m = malloc(h->nlmsg_len);

		if (!m)
			break;
		memcpy(m, h, h->nlmsg_len);
		if (data[0] % 3 == 0)
			check_values(m);
		else if (data[0] % 3 == 1)
			check_features(m);
		else {
			r = nic_parse_family(m, &id);
			fuzz_assert(r == 0 || r == -EBADMSG, "nic_parse_family returned %d", r);
		}
		free(m);
	}
	free(buf);
	return 0;
}
