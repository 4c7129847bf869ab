// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ethtool's generic netlink messages: the family's id asked of the
 * controller, a group's get and set, a feature's set; their answers
 * parsed. Builders check every bound against NIC_MSG_MAX; parsers take a
 * message and trust nothing in it (fuzzed: tests/fuzz/ethtool.c).
 */
#include <errno.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <string.h>

#include "nic/internal.h"

static const uint16_t get_cmds[NG_COUNT] = {
	[NG_CHANNELS] = ETHTOOL_MSG_CHANNELS_GET,
	[NG_RINGS] = ETHTOOL_MSG_RINGS_GET,
	[NG_FEATURES] = ETHTOOL_MSG_FEATURES_GET,
	[NG_COALESCE] = ETHTOOL_MSG_COALESCE_GET,
};
static const uint16_t set_cmds[NG_COUNT] = {
	[NG_CHANNELS] = ETHTOOL_MSG_CHANNELS_SET,
	[NG_RINGS] = ETHTOOL_MSG_RINGS_SET,
	[NG_FEATURES] = ETHTOOL_MSG_FEATURES_SET,
	[NG_COALESCE] = ETHTOOL_MSG_COALESCE_SET,
};

/* Coalescing's switches are u8; every other value is a u32. */
bool nic_attr_u8(enum nic_group g, uint16_t attr)
{
	return g == NG_COALESCE && (attr == ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX ||
				    attr == ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX ||
				    attr == ETHTOOL_A_COALESCE_USE_CQE_MODE_TX ||
				    attr == ETHTOOL_A_COALESCE_USE_CQE_MODE_RX);
}

/* A request's start in the batch: its netlink and genetlink headers. */
static struct nlmsghdr *msg_start(struct nl_batch *b, uint32_t seq, uint16_t type, uint8_t cmd, uint8_t version)
{
	struct nlmsghdr *h = nl_batch_msg(b, NIC_MSG_MAX, type, NLM_F_REQUEST | NLM_F_ACK, seq,
					  sizeof(struct genlmsghdr));
	struct genlmsghdr *g = h ? NLMSG_DATA(h) : NULL;

	if (g) {
		g->cmd = cmd;
		g->version = version;
	}
	return h;
}

/* A nest holds what was put after it: its length is set at its end. */
static void nest_end(struct nlmsghdr *h, struct nlattr *nest)
{
	nest->nla_len = (uint16_t)((char *)h + h->nlmsg_len - (char *)nest);
}

/* ETHTOOL_A_*_HEADER (1 in every message): the device by index; flags
 * ask for no reply to a set, whose effect a get reads back. */
static int put_header(struct nlmsghdr *h, int ifindex, uint32_t flags)
{
	struct nlattr *nest = nla_put(h, NIC_MSG_MAX, 1 | NLA_F_NESTED, NULL, 0);
	uint32_t idx = (uint32_t)ifindex;

	if (!nest || !nla_put(h, NIC_MSG_MAX, ETHTOOL_A_HEADER_DEV_INDEX, &idx, sizeof(idx)) ||
	    (flags && !nla_put(h, NIC_MSG_MAX, ETHTOOL_A_HEADER_FLAGS, &flags, sizeof(flags))))
		return -EMSGSIZE;
	nest_end(h, nest);
	return 0;
}

int nic_put_family(struct nl_batch *b, uint32_t seq)
{
	struct nlmsghdr *h = msg_start(b, seq, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1);

	if (!h)
		return -ENOBUFS;
	if (!nla_put(h, NIC_MSG_MAX, CTRL_ATTR_FAMILY_NAME, ETHTOOL_GENL_NAME, sizeof(ETHTOOL_GENL_NAME)))
		return -EMSGSIZE;
	return nl_batch_add(b, h);
}

/* The genetlink payload's attributes, or NULL when h is too short. */
static const void *genl_attrs(const struct nlmsghdr *h, size_t *len)
{
	size_t fixed = NLMSG_LENGTH(GENL_HDRLEN);

	if (h->nlmsg_len < fixed)
		return NULL;
	*len = h->nlmsg_len - fixed;
	return (const char *)h + fixed;
}

int nic_parse_family(const struct nlmsghdr *h, uint16_t *id)
{
	const struct nlattr *a;
	size_t len;
	const void *attrs = genl_attrs(h, &len);

	if (!attrs || h->nlmsg_type != GENL_ID_CTRL)
		return -EBADMSG;
	for_each_nla(a, attrs, len, off)
		if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID && nla_len(a) >= sizeof(*id)) {
			memcpy(id, nla_data(a), sizeof(*id));
			return 0;
		}
	return -EBADMSG;
}

int nic_put_get(struct nl_batch *b, uint32_t seq, uint16_t family, enum nic_group g, int ifindex)
{
	struct nlmsghdr *h = msg_start(b, seq, family, (uint8_t)get_cmds[g], ETHTOOL_GENL_VERSION);

	if (!h)
		return -ENOBUFS;
	if (put_header(h, ifindex, 0) < 0)
		return -EMSGSIZE;
	return nl_batch_add(b, h);
}

int nic_put_set(struct nl_batch *b, uint32_t seq, uint16_t family, enum nic_group g, int ifindex, uint16_t attr,
		uint32_t value, bool u8)
{
	struct nlmsghdr *h = msg_start(b, seq, family, (uint8_t)set_cmds[g], ETHTOOL_GENL_VERSION);
	uint8_t v8 = (uint8_t)value;

	if (!h)
		return -ENOBUFS;
	if (put_header(h, ifindex, 0) < 0 || !nla_put(h, NIC_MSG_MAX, attr, u8 ? (void *)&v8 : (void *)&value,
						      u8 ? sizeof(v8) : sizeof(value)))
		return -EMSGSIZE;
	return nl_batch_add(b, h);
}

/* FEATURES_SET of one feature by name: a bitset with a mask (the bits not
 * named stay as they are), its one bit on or off. */
int nic_put_feature(struct nl_batch *b, uint32_t seq, uint16_t family, int ifindex, const char *name, bool on)
{
	struct nlmsghdr *h = msg_start(b, seq, family, ETHTOOL_MSG_FEATURES_SET, ETHTOOL_GENL_VERSION);
	struct nlattr *wanted, *bits, *bit;

	if (!h)
		return -ENOBUFS;
	if (put_header(h, ifindex, ETHTOOL_FLAG_OMIT_REPLY) < 0 ||
	    !(wanted = nla_put(h, NIC_MSG_MAX, ETHTOOL_A_FEATURES_WANTED | NLA_F_NESTED, NULL, 0)) ||
	    !(bits = nla_put(h, NIC_MSG_MAX, ETHTOOL_A_BITSET_BITS | NLA_F_NESTED, NULL, 0)) ||
	    !(bit = nla_put(h, NIC_MSG_MAX, ETHTOOL_A_BITSET_BITS_BIT | NLA_F_NESTED, NULL, 0)) ||
	    !nla_put(h, NIC_MSG_MAX, ETHTOOL_A_BITSET_BIT_NAME, name, strlen(name) + 1) ||
	    (on && !nla_put(h, NIC_MSG_MAX, ETHTOOL_A_BITSET_BIT_VALUE, NULL, 0)))
		return -EMSGSIZE;
	nest_end(h, bit);
	nest_end(h, bits);
	nest_end(h, wanted);
	return nl_batch_add(b, h);
}

/* A group's reply: each u32 (or u8) attribute by type, the header nest
 * skipped. A value attribute of another size is a broken message. */
int nic_parse_values(const struct nlmsghdr *h, struct nic_values *out)
{
	const struct nlattr *a;
	size_t len;
	const void *attrs = genl_attrs(h, &len);

	if (!attrs)
		return -EBADMSG;
	for_each_nla(a, attrs, len, off) {
		uint16_t t = a->nla_type & NLA_TYPE_MASK;
		uint8_t v8;

		if (t <= 1 || t >= NIC_ATTRS || (a->nla_type & NLA_F_NESTED))
			continue;
		if (nla_len(a) == sizeof(uint32_t)) {
			memcpy(&out->v[t], nla_data(a), sizeof(uint32_t));
		} else if (nla_len(a) == sizeof(uint8_t)) {
			memcpy(&v8, nla_data(a), 1);
			out->v[t] = v8;
		} else {
			continue; /* a nest or another type: not a value we set */
		}
		out->have |= 1ull << t;
	}
	out->read = true;
	return 0;
}

/* The feature named in f, added if new (NULL when full). */
static struct nic_feature *feature_add(struct nic_features *f, const char *name)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->v[i].name, name))
			return &f->v[i];
	if (f->n >= NIC_FEATURES)
		return NULL;
	memset(&f->v[f->n], 0, sizeof(f->v[0]));
	snprintf(f->v[f->n].name, sizeof(f->v[0].name), "%s", name);
	return &f->v[f->n++];
}

/* One bit of a verbose bitset: its name, and whether it is set (a list,
 * NOMASK, names only the set bits). */
static int parse_bit(const struct nlattr *bit, bool list, struct nic_features *f, int which)
{
	const struct nlattr *a;
	char name[40] = "";
	bool on = list;
	struct nic_feature *x;

	for_each_nla(a, nla_data(bit), nla_len(bit), off) {
		uint16_t t = a->nla_type & NLA_TYPE_MASK;

		if (t == ETHTOOL_A_BITSET_BIT_NAME)
			nla_strcpy(name, sizeof(name), a);
		else if (t == ETHTOOL_A_BITSET_BIT_VALUE)
			on = true;
	}
	if (!*name)
		return 0; /* a bit the kernel names not: no key can ask for it */
	x = feature_add(f, name);
	if (!x)
		return -ENOBUFS;
	if (which == ETHTOOL_A_FEATURES_HW)
		x->hw = on;
	else if (which == ETHTOOL_A_FEATURES_ACTIVE)
		x->active = on;
	else if (which == ETHTOOL_A_FEATURES_NOCHANGE)
		x->nochange = on;
	return 0;
}

static int parse_bitset(const struct nlattr *set, struct nic_features *f, int which)
{
	const struct nlattr *a, *b;
	bool list = false;
	int r = 0;

	for_each_nla(a, nla_data(set), nla_len(set), off)
		if ((a->nla_type & NLA_TYPE_MASK) == ETHTOOL_A_BITSET_NOMASK)
			list = true;
	for_each_nla(a, nla_data(set), nla_len(set), off) {
		if ((a->nla_type & NLA_TYPE_MASK) != ETHTOOL_A_BITSET_BITS)
			continue;
		for_each_nla(b, nla_data(a), nla_len(a), o2)
			if ((b->nla_type & NLA_TYPE_MASK) == ETHTOOL_A_BITSET_BITS_BIT && r >= 0)
				r = parse_bit(b, list, f, which);
	}
	return r;
}

/* FEATURES_GET's answer in its verbose form (names, no compact bitsets):
 * hw (what may change), active, nochange. */
int nic_parse_features(const struct nlmsghdr *h, struct nic_features *out)
{
	const struct nlattr *a;
	size_t len;
	const void *attrs = genl_attrs(h, &len);
	int r = 0;

	if (!attrs)
		return -EBADMSG;
	for_each_nla(a, attrs, len, off) {
		uint16_t t = a->nla_type & NLA_TYPE_MASK;

		if ((t == ETHTOOL_A_FEATURES_HW || t == ETHTOOL_A_FEATURES_ACTIVE ||
		     t == ETHTOOL_A_FEATURES_NOCHANGE) && r >= 0)
			r = parse_bitset(a, out, t);
	}
	return r;
}

const struct nic_feature *nic_feature_of(const struct nic_features *f, const char *name)
{
	for (size_t i = 0; f && i < f->n; i++)
		if (!strcmp(f->v[i].name, name))
			return &f->v[i];
	return NULL;
}
