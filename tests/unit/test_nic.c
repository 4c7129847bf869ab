// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * nic/: [net "NAME"] keys checked, ethtool messages built and the kernel's
 * answers parsed (recorded from Linux 6.18: nic_recorded.h), and the plan,
 * apply and revert of an interface against a fake ethtool family behind
 * the netlink transport seam: rings a driver rounds, coalescing parameters
 * it lacks, features it fixes, the ioctl where the family is absent.
 */
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>

#include "unit.h"
#include "engine/engine.h"
#include "nic/internal.h"
#include "nic_recorded.h"
#include "nic_fx.h"

#define FAMILY 21
#define IFINDEX 3

/* ---- the fake family: one device ------------------------------------------ */

struct fdev {
	uint32_t ch[NIC_ATTRS], rings[NIC_ATTRS], co[NIC_ATTRS];
	uint64_t ch_have, rings_have, co_have;
	struct nic_features feat;
	bool no_family;
	uint16_t refuse; /* a set of this attribute fails as a driver's would */
	int sets; /* set requests seen */
	const char *tree; /* a set of channels makes the queues of its sys/class/net/eth0 */
	bool unlist;      /* and then makes its sys/class/net a loop of links: no listing */
	int ctrl, ctrl_lost; /* family requests seen; how many of the first get no answer */
	char order[128];  /* what was out of order at a set of channels */
	unsigned char q[8][8192];
	size_t qlen[8], head, tail;
};

static struct fdev *dev;

static unsigned char *unhex(const char *hex, size_t *len)
{
	size_t n = strlen(hex) / 2;
	unsigned char *b = malloc(n);

	assert_non_null(b);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(sscanf(hex + 2 * i, "%2hhx", &b[i]), 1);
	*len = n;
	return b;
}

static void queue(const void *msg, size_t len)
{
	if (dev->head == dev->tail)
		dev->head = dev->tail = 0;
	assert_true(dev->tail < 8 && len <= sizeof(dev->q[0]));
	memcpy(dev->q[dev->tail], msg, len);
	((struct nlmsghdr *)dev->q[dev->tail])->nlmsg_pid = NL_FAKE_PID;
	dev->qlen[dev->tail++] = len;
}

static void ack(uint32_t seq, int err, const char *msg)
{
	unsigned char buf[512] = { 0 };
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct nlmsgerr *e = NLMSG_DATA(h);

	h->nlmsg_len = NLMSG_LENGTH(sizeof(*e));
	h->nlmsg_type = NLMSG_ERROR;
	h->nlmsg_flags = NLM_F_CAPPED | (msg ? NLM_F_ACK_TLVS : 0);
	h->nlmsg_seq = seq;
	e->error = err;
	if (msg)
		assert_non_null(nla_put(h, sizeof(buf), NLMSGERR_ATTR_MSG, msg, strlen(msg) + 1));
	queue(buf, h->nlmsg_len);
}

static void put_values(struct nlmsghdr *h, const uint32_t *v, uint64_t have, uint8_t cmd)
{
	for (uint16_t t = 2; t < NIC_ATTRS; t++)
		if (have & (1ull << t)) {
			uint8_t v8 = (uint8_t)v[t];
			bool u8 = nic_attr_u8(cmd == ETHTOOL_MSG_COALESCE_GET_REPLY ? NG_COALESCE : NG_CHANNELS, t);

			assert_non_null(nla_put(h, 8192, t, u8 ? (void *)&v8 : (void *)&v[t], u8 ? 1 : 4));
		}
}

/* A features bitset as the kernel sends it (recorded: nic_recorded.h):
 * hw with a mask, every feature and the value flag of those set; the
 * others NOMASK, only the bits that are set. */
static void put_bitset(struct nlmsghdr *h, uint16_t type, int which)
{
	struct nlattr *set = nla_put(h, 8192, type | NLA_F_NESTED, NULL, 0), *bits, *bit;

	if (which)
		assert_non_null(nla_put(h, 8192, ETHTOOL_A_BITSET_NOMASK, NULL, 0));
	bits = nla_put(h, 8192, ETHTOOL_A_BITSET_BITS | NLA_F_NESTED, NULL, 0);
	for (size_t i = 0; i < dev->feat.n; i++) {
		const struct nic_feature *f = &dev->feat.v[i];
		bool on = which == 0 ? f->hw : which == 1 ? f->active : f->nochange;

		if (!on && which)
			continue;
		bit = nla_put(h, 8192, ETHTOOL_A_BITSET_BITS_BIT | NLA_F_NESTED, NULL, 0);
		nla_put(h, 8192, ETHTOOL_A_BITSET_BIT_NAME, f->name, strlen(f->name) + 1);
		if (on && !which)
			nla_put(h, 8192, ETHTOOL_A_BITSET_BIT_VALUE, NULL, 0);
		bit->nla_len = (uint16_t)((char *)h + h->nlmsg_len - (char *)bit);
	}
	bits->nla_len = (uint16_t)((char *)h + h->nlmsg_len - (char *)bits);
	set->nla_len = (uint16_t)((char *)h + h->nlmsg_len - (char *)set);
}

static void answer_get(uint32_t seq, uint8_t cmd)
{
	static unsigned char buf[8192];
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	uint8_t reply = cmd == ETHTOOL_MSG_CHANNELS_GET ? ETHTOOL_MSG_CHANNELS_GET_REPLY
		      : cmd == ETHTOOL_MSG_RINGS_GET ? ETHTOOL_MSG_RINGS_GET_REPLY
		      : cmd == ETHTOOL_MSG_COALESCE_GET ? ETHTOOL_MSG_COALESCE_GET_REPLY
							: ETHTOOL_MSG_FEATURES_GET_REPLY;

	memset(buf, 0, sizeof(buf));
	h->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	h->nlmsg_type = FAMILY;
	h->nlmsg_seq = seq;
	((struct genlmsghdr *)NLMSG_DATA(h))->cmd = reply;
	if (cmd == ETHTOOL_MSG_CHANNELS_GET)
		put_values(h, dev->ch, dev->ch_have, reply);
	else if (cmd == ETHTOOL_MSG_RINGS_GET)
		put_values(h, dev->rings, dev->rings_have, reply);
	else if (cmd == ETHTOOL_MSG_COALESCE_GET)
		put_values(h, dev->co, dev->co_have, reply);
	else
		put_bitset(h, ETHTOOL_A_FEATURES_HW, 0), put_bitset(h, ETHTOOL_A_FEATURES_ACTIVE, 1),
			put_bitset(h, ETHTOOL_A_FEATURES_NOCHANGE, 2);
	if ((cmd == ETHTOOL_MSG_RINGS_GET && !dev->rings_have) || (cmd == ETHTOOL_MSG_COALESCE_GET && !dev->co_have)) {
		ack(seq, -EOPNOTSUPP, NULL);
		return;
	}
	queue(buf, h->nlmsg_len);
	ack(seq, 0, NULL);
}

/* FEATURES_SET: the one named bit of WANTED. */
static int set_feature(const struct nlattr *wanted)
{
	const struct nlattr *bits, *bit, *a;
	char name[40] = "";
	bool on = false;

	for_each_nla(bits, nla_data(wanted), nla_len(wanted), o1)
		for_each_nla(bit, nla_data(bits), nla_len(bits), o2)
			for_each_nla(a, nla_data(bit), nla_len(bit), o3) {
				if (a->nla_type == ETHTOOL_A_BITSET_BIT_NAME)
					nla_strcpy(name, sizeof(name), a);
				on = on || a->nla_type == ETHTOOL_A_BITSET_BIT_VALUE;
			}
	for (size_t i = 0; i < dev->feat.n; i++)
		if (!strcmp(dev->feat.v[i].name, name) && dev->feat.v[i].hw) {
			dev->feat.v[i].active = on;
			return 0;
		}
	return -EINVAL;
}

/* The queues of a device with n queue pairs, as virtio_net leaves them
 * after a change of channels on 4 CPUs: those past n gone, new ones with
 * no RPS, the ones that stay as they were, and every TX queue's XPS mask
 * derived anew (1 2 4 8 on 4 queues, 3 c on 2). No RPS may have been
 * written yet: the channels come first. */
static void reshape_queues(uint32_t n)
{
	char rel[128], path[PATH_MAX], mask[16];
	struct stat st;

	for (uint32_t q = 0; q < 8; q++) {
		snprintf(rel, sizeof(rel), "sys/class/net/eth0/queues/rx-%u/rps_cpus", q);
		tree_path(path, sizeof(path), dev->tree, rel);
		if (stat(path, &st) == 0) {
			char *v = tree_read(dev->tree, rel);

			/* said after the run: its stderr is captured */
			if (strcmp(v, "0") && strcmp(v, "0\n") && !*dev->order)
				snprintf(dev->order, sizeof(dev->order), "rx-%u's rps_cpus is '%s' at the change of "
					 "channels", q, v);
			free(v);
		}
		for (const char *kind = "rx"; kind; kind = *kind == 'r' ? "tx" : NULL) {
			snprintf(rel, sizeof(rel), "sys/class/net/eth0/queues/%s-%u", kind, q);
			tree_path(path, sizeof(path), dev->tree, rel);
			if (q >= n) {
				if (stat(path, &st) == 0)
					tree_remove(path);
				continue;
			}
			snprintf(mask, sizeof(mask), "%x\n", ((1u << (4 / n)) - 1) << (q * (4 / n)));
			if (*kind == 't') {
				snprintf(rel + strlen(rel), sizeof(rel) - strlen(rel), "/xps_cpus");
				tree_write(dev->tree, rel, mask);
			} else if (stat(path, &st) < 0) {
				snprintf(rel + strlen(rel), sizeof(rel) - strlen(rel), "/rps_cpus");
				tree_write(dev->tree, rel, "0\n");
				snprintf(strrchr(rel, '/'), 16, "/rps_flow_cnt");
				tree_write(dev->tree, rel, "0\n");
			}
		}
	}
}

/* sys/class/net a link to itself (on), listed again (off). */
static void unlist(const char *tree, bool on)
{
	char net[PATH_MAX], away[PATH_MAX];

	tree_path(net, sizeof(net), tree, "sys/class/net");
	tree_path(away, sizeof(away), tree, "sys/class/net.away");
	if (on) {
		assert_int_equal(rename(net, away), 0);
		assert_int_equal(symlink("net", net), 0);
	} else {
		assert_int_equal(unlink(net), 0);
		assert_int_equal(rename(away, net), 0);
	}
}

/* A set of one value: rings round up to a power of two, as some drivers do;
 * a coalescing parameter the device lacks is refused with the kernel's text. */
static void answer_set(uint32_t seq, uint8_t cmd, const struct nlattr *a)
{
	uint32_t v = 0, *to = cmd == ETHTOOL_MSG_CHANNELS_SET ? dev->ch : cmd == ETHTOOL_MSG_RINGS_SET ? dev->rings : dev->co;
	uint64_t have = cmd == ETHTOOL_MSG_CHANNELS_SET ? dev->ch_have : cmd == ETHTOOL_MSG_RINGS_SET ? dev->rings_have
											 : dev->co_have;

	dev->sets++;
	if (cmd == ETHTOOL_MSG_FEATURES_SET) {
		ack(seq, set_feature(a), NULL);
		return;
	}
	memcpy(&v, nla_data(a), nla_len(a) < 4 ? nla_len(a) : 4);
	if (!(have & (1ull << a->nla_type)) || a->nla_type == dev->refuse) {
		ack(seq, -EOPNOTSUPP, "unsupported parameter");
		return;
	}
	if (cmd == ETHTOOL_MSG_RINGS_SET)
		while (v & (v - 1))
			v += v & -v;
	if (cmd == ETHTOOL_MSG_CHANNELS_SET && a->nla_type == ETHTOOL_A_CHANNELS_COMBINED_COUNT && dev->tree)
		reshape_queues(v);
	if (cmd == ETHTOOL_MSG_CHANNELS_SET && dev->unlist)
		unlist(dev->tree, true);
	to[a->nla_type] = v;
	ack(seq, 0, NULL);
}

static int fk_send(void *data, const void *buf, size_t len)
{
	const struct nlmsghdr *h = buf;
	const struct genlmsghdr *g = NLMSG_DATA(h);
	const struct nlattr *a, *last = NULL;
	size_t family_len;
	unsigned char *fam;

	(void)data;
	assert_true(len >= NLMSG_LENGTH(GENL_HDRLEN));
	if (h->nlmsg_type == GENL_ID_CTRL) {
		if (dev->ctrl++ < dev->ctrl_lost)
			return (int)len; /* no answer: the receive times out */
		if (dev->no_family) {
			ack(h->nlmsg_seq, -ENOENT, NULL);
			return (int)len;
		}
		fam = unhex(REC_FAMILY, &family_len);
		((struct nlmsghdr *)fam)->nlmsg_seq = h->nlmsg_seq;
		queue(fam, family_len);
		free(fam);
		ack(h->nlmsg_seq, 0, NULL);
		return (int)len;
	}
	assert_int_equal(h->nlmsg_type, FAMILY);
	for_each_nla(a, (const char *)h + NLMSG_LENGTH(GENL_HDRLEN), h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), off)
		if ((a->nla_type & NLA_TYPE_MASK) > 1)
			last = a;
	if (g->cmd == ETHTOOL_MSG_CHANNELS_GET || g->cmd == ETHTOOL_MSG_RINGS_GET ||
	    g->cmd == ETHTOOL_MSG_COALESCE_GET || g->cmd == ETHTOOL_MSG_FEATURES_GET)
		answer_get(h->nlmsg_seq, g->cmd);
	else
		answer_set(h->nlmsg_seq, g->cmd, last);
	return (int)len;
}

static int fk_recv(void *data, void *buf, size_t size, uint32_t *from)
{
	(void)data;
	*from = 0;
	if (dev->head == dev->tail)
		return -ETIMEDOUT;
	assert_true(dev->qlen[dev->head] <= size);
	memcpy(buf, dev->q[dev->head], dev->qlen[dev->head]);
	return (int)dev->qlen[dev->head++];
}

static void feature(const char *name, bool hw, bool active, bool nochange)
{
	struct nic_feature *f = &dev->feat.v[dev->feat.n++];

	snprintf(f->name, sizeof(f->name), "%s", name);
	f->hw = hw, f->active = active, f->nochange = nochange;
}

#define SET(arr, have, attr, v) ((arr)[attr] = (v), (have) |= 1ull << (attr))

/* A virtio-like NIC: 8 combined channels at most, 1 in use; rings of 256
 * up to 4096; rx_usecs and adaptive_rx but no tx_usecs; GRO changeable,
 * LRO fixed off. */
static int dev_setup(void **state)
{
	static const struct nl_ops ops = { fk_send, fk_recv, NULL, NULL };

	dev = calloc(1, sizeof(*dev));
	if (!dev || fx_setup(state) < 0)
		return -1;
	SET(dev->ch, dev->ch_have, ETHTOOL_A_CHANNELS_COMBINED_MAX, 8);
	SET(dev->ch, dev->ch_have, ETHTOOL_A_CHANNELS_COMBINED_COUNT, 1);
	SET(dev->rings, dev->rings_have, ETHTOOL_A_RINGS_RX_MAX, 4096);
	SET(dev->rings, dev->rings_have, ETHTOOL_A_RINGS_RX, 256);
	SET(dev->rings, dev->rings_have, ETHTOOL_A_RINGS_TX_MAX, 4096);
	SET(dev->rings, dev->rings_have, ETHTOOL_A_RINGS_TX, 256);
	SET(dev->co, dev->co_have, ETHTOOL_A_COALESCE_RX_USECS, 0);
	SET(dev->co, dev->co_have, ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, 0);
	feature("rx-gro", true, true, false);
	feature("rx-lro", false, false, false);
	feature("tx-tcp-segmentation", true, true, false);
	feature("tx-tcp6-segmentation", true, true, false);
	nl_set_ops(&ops);
	nic_io_reset();
	return 0;
}

static int dev_teardown(void **state)
{
	nl_set_ops(NULL);
	nic_io_reset();
	nic_ioctl_hook = NULL;
	free(dev);
	dev = NULL;
	return fx_teardown(state);
}

#define DEV_TEST(t) cmocka_unit_test_setup_teardown(t, dev_setup, dev_teardown)

/* The fixture's tree as the running system's: sys/class/net/eth0 with its
 * index, 4 CPUs online; the run about eth0 alone. */
static struct ctx *dev_ctx(struct fx *f, const char *conf)
{
	tree_write(f->dir, "sys/class/net/eth0/ifindex", "3\n");
	tree_mkdir(f->dir, "sys/bus/virtio/drivers/virtio_net");
	tree_symlink(f->dir, "sys/class/net/eth0/device/driver", "../../../../bus/virtio/drivers/virtio_net");
	tree_write(f->dir, "sys/devices/system/cpu/online", "0-3\n");
	fx_ctx(f, conf, NULL);
	f->c.root.is_host = true; /* the fake family stands for the kernel */
	f->c.only = DOM_NIC;
	f->c.iface = "eth0";
	return &f->c;
}

/* ---- keys ------------------------------------------------------------------- */

static void test_check_key(void **state)
{
	static const char *const good[][2] = {
		{ "channels.combined", "4" }, { "channels.rx", "max" }, { "channels.tx", "cpus" },
		{ "rings.rx", "max" }, { "rings.tx", "1024" }, { "offload.rx-gro", "off" },
		{ "offload.generic-receive-offload", "on" }, { "coalesce.rx_usecs", "0" },
		{ "coalesce.adaptive_rx", "on" }, { "match.driver", "virtio_net ena" }, { "match.class", "virt*" },
		{ "channels.rx", "" },
	};
	static const char *const bad[][3] = {
		{ "channels.combined", "0", "a count from 1" },
		{ "rings.rx", "cpus", "or max" },
		{ "channels.rx", "4k", "cpus" },
		{ "offload.gro", "on", "not a feature of Linux" },
		{ "offload.udp-fragmentation-offload", "off", "UFO) is gone from the kernel since Linux 4.14" },
		{ "offload.ufo", "off", "offload.tx-udp-segmentation is UDP segmentation offload (USO)" },
		{ "offload.tx-udp-fragmentation", "on", "since Linux 4.14" },
		{ "offload.rx-gro", "yes", "allowed: on off" },
		{ "coalesce.adaptive_rx", "1", "allowed: on off" },
		{ "coalesce.rx_usec", "3", "did you mean 'coalesce.rx_usecs'" },
		{ "chanels.rx", "3", "did you mean 'channels.rx'" },
		{ "match.vendor", "x", "allowed: match.name match.driver match.class" },
		{ "match.class", "nvme", "allowed: physical virtual" },
		{ "match.name", "eth[0", "" },
		{ "qdisc", "fq", "allowed: channels.combined" },
	};
	char why[384];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		assert_int_equal(nic_check_key(good[i][0], good[i][1], why, sizeof(why)), 0);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(nic_check_key(bad[i][0], bad[i][1], why, sizeof(why)), -EINVAL);
		assert_non_null(strstr(why, bad[i][2]));
	}
}

/* [net] and [net "NAME"] are two domains' sections: each key in its own. */
static void test_sections(void **state)
{
	struct fx *f = *state;
	struct capture cap;

	fx_ctx(f, "[net]\nqdisc = pfifo\n[net \"nic\"]\nchannels.combined = max\n", NULL);
	assert_string_equal(config_get(&f->c.cfg, "net", NULL, "qdisc")->value, "pfifo");
	assert_string_equal(config_get(&f->c.cfg, "net", "nic", "channels.combined")->value, "max");
	capture_begin(&cap);
	config_parse_text(&f->cfg, "[net \"x\"]\nqdisc = fq\n[net]\nrings.rx = 4\n", "t.conf");
	f->text = capture_end(&cap);
	assert_int_equal(f->cfg.errors, 2);
	assert_non_null(strstr(f->text, "'qdisc' belongs in [net], not [net \"NAME\"]"));
	assert_non_null(strstr(f->text, "'rings.rx' belongs in [net \"NAME\"], not [net]"));
}

/* ---- messages ----------------------------------------------------------------- */

static struct nlmsghdr *recorded(struct fx *f, const char *hex)
{
	size_t len;
	unsigned char *b = unhex(hex, &len);

	free(f->text);
	f->text = (char *)b;
	assert_int_equal(((struct nlmsghdr *)b)->nlmsg_len, len);
	return (struct nlmsghdr *)b;
}

static void test_recorded_family(void **state)
{
	uint16_t id = 0;

	assert_int_equal(nic_parse_family(recorded(*state, REC_FAMILY), &id), 0);
	assert_int_equal(id, 21);
}

/* veth: rx and tx channels (4 of 4), no combined ones: the kernel leaves
 * out a kind whose maximum is 0. */
static void test_recorded_channels(void **state)
{
	struct nic_values v = { 0 };

	assert_int_equal(nic_parse_values(recorded(*state, REC_VETH_CHANNELS), &v), 0);
	assert_int_equal(v.v[ETHTOOL_A_CHANNELS_RX_MAX], 4);
	assert_int_equal(v.v[ETHTOOL_A_CHANNELS_TX_COUNT], 4);
	assert_true(v.have & (1ull << ETHTOOL_A_CHANNELS_RX_COUNT));
	assert_false(v.have & (1ull << ETHTOOL_A_CHANNELS_COMBINED_COUNT));
	assert_false(v.have & (1ull << 1)); /* the header nest is no value */
}

/* veth's features by name: GRO changeable, rx-gro-hw fixed off,
 * vlan-challenged never changeable. */
static void test_recorded_features(void **state)
{
	struct nic_features *ft = calloc(1, sizeof(*ft));
	const struct nic_feature *x;

	assert_non_null(ft);
	assert_int_equal(nic_parse_features(recorded(*state, REC_VETH_FEATURES), ft), 0);
	assert_true(ft->n > 40);
	x = nic_feature_of(ft, "rx-gro");
	assert_non_null(x);
	assert_true(x->hw);
	x = nic_feature_of(ft, "rx-gro-hw");
	assert_non_null(x);
	assert_false(x->hw || x->active);
	x = nic_feature_of(ft, "vlan-challenged");
	assert_true(x && x->nochange && !x->hw && !x->active);
	free(ft);
}

/* What a request holds: the family, the command, the device by index in
 * the header nest; a feature by name with its value flag. */
static void test_builders(void **state)
{
	struct nl_batch *b = calloc(1, sizeof(*b));
	const struct nlmsghdr *h = (const struct nlmsghdr *)b->buf;
	struct nic_features *ft = calloc(1, sizeof(*ft));
	const struct nlattr *a;
	int seen = 0;

	(void)state;
	assert_non_null(ft);
	assert_int_equal(nic_put_get(b, 7, FAMILY, NG_RINGS, IFINDEX), 0);
	assert_int_equal(h->nlmsg_type, FAMILY);
	assert_int_equal(((const struct genlmsghdr *)NLMSG_DATA(h))->cmd, ETHTOOL_MSG_RINGS_GET);
	for_each_nla(a, (const char *)h + NLMSG_LENGTH(GENL_HDRLEN), h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), off) {
		const struct nlattr *in;

		assert_int_equal(a->nla_type, 1 | NLA_F_NESTED);
		for_each_nla(in, nla_data(a), nla_len(a), o2)
			if (in->nla_type == ETHTOOL_A_HEADER_DEV_INDEX && *(const uint32_t *)nla_data(in) == IFINDEX)
				seen++;
	}
	assert_int_equal(seen, 1);
	b->len = b->count = 0;
	assert_int_equal(nic_put_set(b, 8, FAMILY, NG_COALESCE, IFINDEX, ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, 1, true), 0);
	assert_int_equal(h->nlmsg_len, NLMSG_LENGTH(GENL_HDRLEN) + 12 + 8); /* the header nest, a u8 */
	b->len = b->count = 0;
	assert_int_equal(nic_put_feature(b, 9, FAMILY, IFINDEX, "rx-gro", true), 0);
	free(ft);
	free(b);
}

/* Broken answers are refused or skipped, never read past their end. */
static void test_parse_short(void **state)
{
	struct nic_values v = { 0 };
	struct nlmsghdr h = { .nlmsg_len = sizeof(h), .nlmsg_type = FAMILY };
	uint16_t id;

	(void)state;
	assert_int_equal(nic_parse_values(&h, &v), -EBADMSG);
	assert_int_equal(nic_parse_family(&h, &id), -EBADMSG);
}

/* ---- plan, apply, revert against the fake family ------------------------- */

static const char conf_all[] = "[net \"virtio\"]\n"
			       "match.driver = virtio_*\n"
			       "match.name = eth*\n"
			       "channels.combined = cpus\n"
			       "channels.rx = 2\n"
			       "rings.rx = 1000\n"
			       "rings.tx = max\n"
			       "coalesce.rx_usecs = 50\n"
			       "coalesce.adaptive_rx = on\n"
			       "coalesce.tx_usecs = 10\n"
			       "offload.large-receive-offload = on\n"
			       "offload.tcp-segmentation-offload = off\n"
			       "[net \"later\"]\n"
			       "match.name = eth0\n"
			       "offload.rx-gro = off\n";

static void apply_all(struct ctx *c, struct plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].action == ACT_CHANGE) {
			assert_int_equal(p->v[i].kind, ITEM_ETHTOOL);
			nic_apply(c, &p->v[i]);
		}
}

/* Channels first, in the table's order; cpus = 4 online of 8; a kind of
 * channel the device lacks, a parameter it lacks and a fixed feature are
 * skips, the last unmet; an alias sets each feature it stands for, the
 * device's own among them. */
static void test_plan(void **state)
{
	struct fx *f = *state;
	struct ctx *c = dev_ctx(f, conf_all);
	const struct item *it;

	assert_int_equal(nic_plan(c, &f->p), 0);
	assert_string_equal(f->p.v[0].setting, "channels.combined");
	it = want(&f->p, "channels.combined", ACT_CHANGE, "1", "4");
	assert_non_null(strstr(it->reason, "cpus: 4 online"));
	assert_string_equal(it->path, "ethtool/ifindex/3/channels.combined"); /* the tree names no namespace */
	it = want(&f->p, "channels.rx", ACT_SKIP, NULL, NULL);
	assert_non_null(strstr(it->reason, "virtio_net"));
	want(&f->p, "rings.rx", ACT_CHANGE, "256", "1000");
	want(&f->p, "rings.tx", ACT_CHANGE, "256", "4096");
	want(&f->p, "coalesce.rx_usecs", ACT_CHANGE, "0", "50");
	want(&f->p, "coalesce.adaptive_rx", ACT_CHANGE, "off", "on");
	want(&f->p, "coalesce.tx_usecs", ACT_SKIP, NULL, NULL);
	it = want(&f->p, "offload.rx-lro", ACT_SKIP, "off", "on");
	assert_true(it->unmet);
	assert_non_null(strstr(it->reason, "fixed"));
	want(&f->p, "offload.tx-tcp-segmentation", ACT_CHANGE, "on", "off");
	want(&f->p, "offload.tx-tcp6-segmentation", ACT_CHANGE, "on", "off");
	want(&f->p, "offload.tx-tcp-ecn-segmentation", ACT_SKIP, NULL, NULL);
	want(&f->p, "offload.rx-gro", ACT_CHANGE, "on", "off");
}

/* Each write read back: the rounded ring is what the kernel kept. */
static void test_apply(void **state)
{
	struct fx *f = *state;
	struct ctx *c = dev_ctx(f, conf_all);
	const struct item *it;

	assert_int_equal(nic_plan(c, &f->p), 0);
	apply_all(c, &f->p);
	for (size_t i = 0; i < f->p.n; i++)
		if (f->p.v[i].action == ACT_CHANGE && f->p.v[i].result != RES_APPLIED)
			fail_msg("%s: %s", f->p.v[i].setting, f->p.v[i].error);
	assert_int_equal(dev->ch[ETHTOOL_A_CHANNELS_COMBINED_COUNT], 4);
	assert_int_equal(dev->rings[ETHTOOL_A_RINGS_RX], 1024);
	it = want(&f->p, "rings.rx", ACT_CHANGE, NULL, NULL);
	assert_non_null(strstr(it->reason, "rounded 1000 to 1024"));
	assert_int_equal(dev->co[ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX], 1);
	assert_false(nic_feature_of(&dev->feat, "rx-gro")->active);
	assert_false(nic_feature_of(&dev->feat, "tx-tcp6-segmentation")->active);
	/* Planned again: everything holds. */
	plan_free(&f->p);
	assert_int_equal(nic_plan(c, &f->p), 0);
	want(&f->p, "coalesce.rx_usecs", ACT_KEEP, "50", "50");
	want(&f->p, "offload.rx-gro", ACT_KEEP, "off", "off");
	it = want(&f->p, "rings.rx", ACT_KEEP, "1024", "1000"); /* the rounded ring holds */
	assert_non_null(strstr(it->reason, "rounds 1000 up to a power of two"));
}

/* A write the driver refuses fails with the kernel's extended-ack text. */
static void test_refused(void **state)
{
	struct fx *f = *state;
	struct ctx *c = dev_ctx(f, "[net \"x\"]\ncoalesce.rx_usecs = 8\n");
	const struct item *it;

	dev->refuse = ETHTOOL_A_COALESCE_RX_USECS;
	assert_int_equal(nic_plan(c, &f->p), 0);
	apply_all(c, &f->p);
	it = want(&f->p, "coalesce.rx_usecs", ACT_CHANGE, "0", "8");
	assert_int_equal(it->result, RES_FAILED);
	assert_non_null(strstr(it->error, "unsupported parameter"));
	assert_non_null(strstr(it->error, strerror(EOPNOTSUPP)));
}

/* Revert writes each recorded value back, by the record's index. */
static void test_revert(void **state)
{
	struct fx *f = *state;
	struct ctx *c = dev_ctx(f, "[net \"x\"]\nchannels.combined = max\noffload.rx-gro = off\n");
	struct item *items[2];
	const char *values[2] = { "1", "on" };

	assert_int_equal(nic_plan(c, &f->p), 0);
	apply_all(c, &f->p);
	assert_int_equal(dev->ch[ETHTOOL_A_CHANNELS_COMBINED_COUNT], 8);
	plan_free(&f->p);
	items[0] = plan_add(&f->p, "nic", "old-name", "channels.combined", "ethtool/ifindex/3/channels.combined");
	items[1] = plan_add(&f->p, "nic", "old-name", "offload.rx-gro", "ethtool/ifindex/3/offload.rx-gro");
	c->root.is_host = false; /* the name by index from the tree: sys/class/net */
	assert_int_equal(nic_revert_batch(c, items, values, 2), 0);
	assert_int_equal(dev->ch[ETHTOOL_A_CHANNELS_COMBINED_COUNT], 1);
	assert_true(nic_feature_of(&dev->feat, "rx-gro")->active);
	assert_string_equal(items[0]->target, "eth0");
	assert_int_equal(items[0]->result, RES_APPLIED);
}

/* Sections that do not match the interface give it nothing; without any
 * [net "NAME"] the family is never asked. */
static void test_no_match(void **state)
{
	struct fx *f = *state;
	struct ctx *c = dev_ctx(f, "[net \"ena\"]\nmatch.driver = ena\nrings.rx = max\n"
				   "[net \"virtual\"]\nmatch.class = virtual\nrings.rx = max\n[net]\nqdisc = pfifo\n");

	assert_int_equal(nic_plan(c, &f->p), 0);
	assert_int_equal(f->p.n, 0);
	assert_int_equal(dev->head, 0);
}

/* The features as the ioctl shows them: the fake's table is the string set. */
static int fake_features(uint32_t cmd, void *arg)
{
	if (cmd == ETHTOOL_GSSET_INFO) {
		((struct ethtool_sset_info *)arg)->data[0] = (uint32_t)dev->feat.n;
	} else if (cmd == ETHTOOL_GSTRINGS) {
		struct ethtool_gstrings *g = arg;

		assert_int_equal(g->len, dev->feat.n);
		for (size_t i = 0; i < dev->feat.n; i++)
			strncpy((char *)g->data + i * ETH_GSTRING_LEN, dev->feat.v[i].name, ETH_GSTRING_LEN);
	} else if (cmd == ETHTOOL_GFEATURES) {
		struct ethtool_gfeatures *g = arg;

		assert_int_equal(g->size, 1);
		for (size_t i = 0; i < dev->feat.n; i++) {
			g->features[0].available |= (uint32_t)dev->feat.v[i].hw << i;
			g->features[0].active |= (uint32_t)dev->feat.v[i].active << i;
			g->features[0].never_changed |= (uint32_t)dev->feat.v[i].nochange << i;
		}
	} else {
		struct ethtool_sfeatures *sf = arg;

		for (size_t i = 0; i < dev->feat.n; i++)
			if (sf->features[0].valid >> i & 1)
				dev->feat.v[i].active = sf->features[0].requested >> i & 1;
	}
	return 0;
}

static int fake_ioctl(const char *ifname, void *cmd)
{
	struct ethtool_channels *ch = cmd;

	assert_string_equal(ifname, "eth0");
	if (ch->cmd == ETHTOOL_GSSET_INFO || ch->cmd == ETHTOOL_GSTRINGS || ch->cmd == ETHTOOL_GFEATURES ||
	    ch->cmd == ETHTOOL_SFEATURES)
		return fake_features(ch->cmd, cmd);
	if (ch->cmd == ETHTOOL_GCHANNELS) {
		ch->max_combined = dev->ch[ETHTOOL_A_CHANNELS_COMBINED_MAX];
		ch->combined_count = dev->ch[ETHTOOL_A_CHANNELS_COMBINED_COUNT];
		return 0;
	}
	if (ch->cmd == ETHTOOL_SCHANNELS) {
		dev->ch[ETHTOOL_A_CHANNELS_COMBINED_COUNT] = ch->combined_count;
		return 0;
	}
	if (ch->cmd == ETHTOOL_GCOALESCE) {
		((struct ethtool_coalesce *)cmd)->rx_coalesce_usecs = dev->co[ETHTOOL_A_COALESCE_RX_USECS];
		((struct ethtool_coalesce *)cmd)->use_adaptive_rx_coalesce = dev->co[ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX];
		((struct ethtool_coalesce *)cmd)->rate_sample_interval = 7;
		return 0;
	}
	if (ch->cmd == ETHTOOL_SCOALESCE) {
		const struct ethtool_coalesce *co = cmd;

		assert_int_equal(co->rate_sample_interval, 7); /* the others as they were */
		dev->co[ETHTOOL_A_COALESCE_RX_USECS] = co->rx_coalesce_usecs;
		dev->co[ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX] = co->use_adaptive_rx_coalesce;
		return 0;
	}
	return -EOPNOTSUPP;
}

/* A kernel without the family: everything through SIOCETHTOOL, the
 * features by their place in the ioctl's string set. */
static void test_no_family(void **state)
{
	struct fx *f = *state;
	struct ctx *c = dev_ctx(f, "[net \"x\"]\nchannels.combined = 3\noffload.rx-gro = off\n"
				   "offload.rx-lro = on\ncoalesce.rx_usecs = 30\ncoalesce.adaptive_rx = on\nrings.rx = 512\n");
	const struct item *it;

	dev->no_family = true;
	nic_ioctl_hook = fake_ioctl;
	assert_int_equal(nic_plan(c, &f->p), 0);
	want(&f->p, "channels.combined", ACT_CHANGE, "1", "3");
	want(&f->p, "offload.rx-gro", ACT_CHANGE, "on", "off");
	it = want(&f->p, "offload.rx-lro", ACT_SKIP, "off", "on");
	assert_true(it->unmet);
	want(&f->p, "coalesce.rx_usecs", ACT_CHANGE, "0", "30");
	want(&f->p, "coalesce.adaptive_rx", ACT_CHANGE, "off", "on");
	want(&f->p, "rings.rx", ACT_SKIP, NULL, NULL); /* this driver's ioctl has none */
	apply_all(c, &f->p);
	assert_int_equal(dev->ch[ETHTOOL_A_CHANNELS_COMBINED_COUNT], 3);
	assert_int_equal(find_item(&f->p, "eth0", "channels.combined")->result, RES_APPLIED);
	assert_int_equal(dev->co[ETHTOOL_A_COALESCE_RX_USECS], 30);
	assert_int_equal(find_item(&f->p, "eth0", "coalesce.adaptive_rx")->result, RES_APPLIED);
	assert_false(nic_feature_of(&dev->feat, "rx-gro")->active);
	assert_int_equal(find_item(&f->p, "eth0", "offload.rx-gro")->result, RES_APPLIED);
	assert_true(nic_feature_of(&dev->feat, "tx-tcp-segmentation")->active);
}

/* A queue file of eth0 holds want (its trailing newline aside). */
static void queue_holds(struct fx *f, const char *file, int q, const char *want)
{
	char rel[96];

	snprintf(rel, sizeof(rel), "sys/class/net/eth0/queues/%s-%d/%s", *file == 'r' ? "rx" : "tx", q, file);
	free(f->text);
	f->text = tree_read(f->dir, rel);
	assert_non_null(f->text);
	f->text[strcspn(f->text, "\n")] = '\0';
	if (strcmp(f->text, want))
		fail_msg("%s: '%s', want '%s'", rel, f->text, want);
}

/* A command of the engine on the fixture: exit 0 (its stderr kept in
 * f->text), no RPS left at a change of channels, and the device's channels
 * after it. */
static void run_ok(struct fx *f, int (*cmd)(struct ctx *), uint32_t channels)
{
	struct capture cap;
	int r;

	free(f->text);
	f->text = NULL;
	capture_begin(&cap);
	r = cmd(&f->c);
	f->text = capture_end(&cap);
	if (r)
		fail_msg("exit %d: %s", r, f->text);
	assert_string_equal(dev->order, "");
	assert_int_equal(dev->ch[ETHTOOL_A_CHANNELS_COMBINED_COUNT], channels);
}

/* The engine's reshape: a device of 4 queue pairs asked for 2, with RPS
 * and XPS. plan shows the 4 queues there are (noting that apply reads them
 * again); apply writes the channels first (the fake fails the test if any
 * RPS came before), plans again, and writes RPS and XPS of rx-0, rx-1,
 * tx-0, tx-1 alone: nothing for the queues the channels removed, nothing
 * failed, nothing recorded of them; XPS's originals are those the driver
 * derived for 2 queues. Planned again, everything holds. revert puts the
 * channels back last, so the driver's XPS for 4 queues is what stays. */
static void test_reshape(void **state)
{
	struct fx *f = *state;
	struct ctx *c = dev_ctx(f, "[net \"x\"]\nchannels.combined = 2\nrps_cpus = f\nxps_cpus = f\n");
	static const char *const xps4[] = { "1", "2", "4", "8" };
	char *records;
	const struct item *it;

	dev->tree = f->dir;
	SET(dev->ch, dev->ch_have, ETHTOOL_A_CHANNELS_COMBINED_COUNT, 4);
	reshape_queues(4);
	assert_int_equal(nic_plan(c, &f->p), 0);
	want(&f->p, "channels.combined", ACT_CHANGE, "4", "2");
	it = want(&f->p, "queues/rx-3/rps_cpus", ACT_CHANGE, "0", "f");
	assert_contains(it->reason, "apply reads the queues again once the channels change");
	want(&f->p, "queues/tx-3/xps_cpus", ACT_CHANGE, "8", "f");
	assert_int_equal(count_items(&f->p, "eth0"), 9);
	plan_free(&f->p);

	run_ok(f, cmd_apply, 2);
	for (int q = 0; q < 2; q++) {
		queue_holds(f, "rps_cpus", q, "f");
		queue_holds(f, "xps_cpus", q, "f");
	}
	free(f->text);
	records = f->text = tree_read(f->dir, "run/earlytune/links/3"); /* freed by the fixture */
	assert_non_null(records);
	assert_contains(records, "channels.combined");
	assert_contains(records, "queues/rx-1/rps_cpus");
	assert_contains(records, "queues/tx-0/xps_cpus\tethtool/ifindex/3/queues/tx-0/xps_cpus\t3\t");
	assert_contains(records, "queues/tx-1/xps_cpus\tethtool/ifindex/3/queues/tx-1/xps_cpus\tc\t");
	assert_null(strstr(records, "queues/rx-2/"));
	assert_null(strstr(records, "queues/tx-3/"));
	assert_true(strstr(records, "channels.combined") < strstr(records, "queues/rx-0/rps_cpus"));

	assert_int_equal(nic_plan(c, &f->p), 0);
	assert_int_equal(count_items(&f->p, "eth0"), 5);
	for (size_t i = 0; i < f->p.n; i++)
		assert_int_equal(f->p.v[i].action, ACT_KEEP);
	assert_null(find_item(&f->p, "eth0", "queues/rx-2/rps_cpus"));

	c->root.is_host = false; /* the name by index from the tree, not this machine's */
	run_ok(f, cmd_revert, 4);
	for (int q = 0; q < 4; q++) {
		queue_holds(f, "rps_cpus", q, "0");
		queue_holds(f, "xps_cpus", q, xps4[q]);
	}
}

/* The plan made again after the channels were written fails (the listing
 * of sys/class/net does): the channels stay in the run log and the records
 * (revert puts them back), and every other item fails with that cause, not
 * with one about recording originals. */
static void test_reshape_replan_fails(void **state)
{
	struct fx *f = *state;
	struct ctx *c = dev_ctx(f, "[net \"x\"]\nchannels.combined = 2\nrps_cpus = f\nxps_cpus = f\n");
	struct capture cap;
	int r;

	dev->tree = f->dir, dev->unlist = true;
	SET(dev->ch, dev->ch_have, ETHTOOL_A_CHANNELS_COMBINED_COUNT, 4);
	reshape_queues(4);
	c->iface = NULL; /* every interface of sys/class/net: listed again by the second plan */
	capture_begin(&cap);
	r = cmd_apply(c);
	f->text = capture_end(&cap);
	assert_int_equal(r, 1);
	assert_int_equal(dev->ch[ETHTOOL_A_CHANNELS_COMBINED_COUNT], 2);
	free(f->text);
	f->text = tree_read(f->dir, "run/earlytune/runs");
	assert_contains(f->text, "channels.combined");
	assert_contains(f->text, "not written: cannot plan again after eth0 channels.combined was written");
	assert_not_contains(f->text, "cannot record originals");
	assert_contains(f->text, "the rest not written: Too many levels of symbolic links");
	free(f->text);
	f->text = tree_read(f->dir, "run/earlytune/records"); /* a run of every interface: the one file */
	assert_contains(f->text, "ethtool/ifindex/3/channels.combined\t4\t");
	unlist(f->dir, false);
	dev->unlist = false;
	c->root.is_host = false; /* the name by index from the tree */
	run_ok(f, cmd_revert, 4);
}

/* A family request that gets no answer fails that request alone: the next
 * asks again and reads. A kernel without the family is asked once. */
static void test_family_retried(void **state)
{
	struct nic_iface ifc = { .ifindex = IFINDEX, .name = "eth0" };

	(void)state;
	dev->ctrl_lost = 1;
	assert_int_equal(nic_read(&ifc, NG_CHANNELS), -ETIMEDOUT);
	assert_int_equal(nic_read(&ifc, NG_CHANNELS), 0);
	assert_int_equal(ifc.g[NG_CHANNELS].v[ETHTOOL_A_CHANNELS_COMBINED_MAX], 8);
	assert_int_equal(dev->ctrl, 2);
	nic_io_reset();
	dev->ctrl = dev->ctrl_lost = 0, dev->no_family = true;
	nic_ioctl_hook = fake_ioctl;
	assert_int_equal(nic_read(&ifc, NG_CHANNELS), 0);
	assert_int_equal(nic_read(&ifc, NG_COALESCE), 0);
	assert_int_equal(dev->ctrl, 1);
}

/* A plan that holds the interface's items already (nic_add_item takes
 * them again): each queue's item keeps its own note. */
static void test_plan_again(void **state)
{
	struct fx *f = *state;
	struct ctx *c = dev_ctx(f, "[net \"x\"]\nchannels.combined = 2\nrps_cpus = f\n");
	const struct item *it;

	dev->tree = f->dir;
	SET(dev->ch, dev->ch_have, ETHTOOL_A_CHANNELS_COMBINED_COUNT, 4);
	reshape_queues(4);
	assert_int_equal(nic_plan(c, &f->p), 0);
	assert_int_equal(nic_plan(c, &f->p), 0);
	assert_int_equal(count_items(&f->p, "eth0"), 5);
	for (int q = 0; q < 4; q++) {
		char setting[64];

		snprintf(setting, sizeof(setting), "queues/rx-%d/rps_cpus", q);
		it = want(&f->p, setting, ACT_CHANGE, "0", "f");
		if (!it->reason || strcmp(it->reason, "(a queue there now: apply reads the queues again once the "
							 "channels change)"))
			fail_msg("%s: reason '%s'", setting, it->reason ? it->reason : "");
	}
}

/* Records: the namespace and index in the path; another namespace's is
 * not this one's to judge. */
static void test_records(void **state)
{
	char path[128];
	struct record x = { .path = path, .identity = (char *)"ifindex:3", .target = (char *)"eth0" };
	char id[32];

	(void)state;
	nic_record_path(4026531840ull, 3, "rings.rx", path, sizeof(path));
	assert_string_equal(path, "ethtool/netns/4026531840/ifindex/3/rings.rx");
	assert_int_equal(nic_record_ifindex(path), 3);
	assert_true(nic_owns_path(path));
	assert_false(nic_owns_path("ethtool/netns/x/ifindex/3/rings.rx"));
	assert_false(nic_owns_path("ethtool/ifindex/3"));
	assert_int_equal(nic_record_ifindex("netlink/ifindex/3"), 0);
	assert_int_equal(nic_identity(NULL, "rings.rx", path, id, sizeof(id)), 0);
	assert_string_equal(id, "ifindex:3");
	(void)x;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_key),
		cmocka_unit_test_setup_teardown(test_sections, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_recorded_family, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_recorded_channels, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_recorded_features, fx_setup, fx_teardown),
		cmocka_unit_test(test_builders),
		cmocka_unit_test(test_parse_short),
		DEV_TEST(test_plan),
		DEV_TEST(test_apply),
		DEV_TEST(test_refused),
		DEV_TEST(test_revert),
		DEV_TEST(test_no_match),
		DEV_TEST(test_no_family),
		DEV_TEST(test_reshape),
		DEV_TEST(test_reshape_replan_fails),
		DEV_TEST(test_family_retried),
		DEV_TEST(test_plan_again),
		cmocka_unit_test(test_records),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
