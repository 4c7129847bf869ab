// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The ethtool family over one generic netlink socket, opened at the first
 * request of a run and its family id asked once; every read and write is
 * one request about one interface by index (no dumps: a udev event costs
 * the same on a host of any number of interfaces). Where the kernel has
 * no ethtool family (before 5.6, or built without it), every setting goes
 * through the SIOCETHTOOL ioctl.
 */
#include <errno.h>
#include <linux/ethtool_netlink.h>
#include <stdlib.h>
#include <string.h>

#include "nic/internal.h"

static struct {
	struct nl nl;
	int err;         /* -ENOENT: the kernel has no ethtool family */
	uint16_t family; /* 0: not asked yet */
} io = { .nl.fd = -1 };

void nic_io_reset(void)
{
	nl_close(&io.nl);
	io.err = 0, io.family = 0;
}

struct answer {
	enum nic_group g;
	struct nic_values *values;
	struct nic_features *feat;
	uint16_t *family;
};

static int on_answer(const struct nlmsghdr *h, void *data)
{
	struct answer *a = data;

	if (a->family)
		return nic_parse_family(h, a->family);
	if (a->feat)
		return nic_parse_features(h, a->feat);
	return nic_parse_values(h, a->values);
}

/* One request already in b, sent alone: its answer to a, its ACK's error
 * (the kernel's extended-ack message in msg). */
static int exchange(struct nl_batch *b, struct answer *a, char *msg, size_t size)
{
	struct nl_result res;
	int r = nl_send_gets(&io.nl, b, &res, on_answer, a);

	if (msg)
		snprintf(msg, size, "%s", res.msg);
	return r < 0 ? r : res.err;
}

/* The family's id: -ENOENT when the kernel has none, for the whole run.
 * Any other failure (a timeout, no socket) is this request's alone: a boot
 * run over every interface asks again at the next, on a new socket. */
static int family(void)
{
	static struct nl_batch b;
	struct answer a = { .family = &io.family };
	int r;

	if (io.family || io.err)
		return io.err;
	b.len = b.count = 0;
	r = nl_open_proto(&io.nl, NETLINK_GENERIC);
	if (r >= 0)
		r = nic_put_family(&b, ++io.nl.seq);
	if (r >= 0)
		r = exchange(&b, &a, NULL, 0);
	if (r >= 0 && !io.family)
		r = -EBADMSG;
	if (r < 0)
		nl_close(&io.nl), io.family = 0;
	io.err = r == -ENOENT ? r : 0;
	return r < 0 ? r : 0;
}

static int read_netlink(struct nic_iface *ifc, enum nic_group g)
{
	static struct nl_batch b;
	struct nic_values *v = &ifc->g[g];
	struct answer a = { .g = g, .values = v };
	int r;

	if (g == NG_FEATURES) {
		ifc->feat->n = 0;
		a.feat = ifc->feat;
	}
	b.len = b.count = 0;
	r = nic_put_get(&b, ++io.nl.seq, io.family, g, ifc->ifindex);
	return r < 0 ? r : exchange(&b, &a, v->msg, sizeof(v->msg));
}

/* The group's values as the kernel has them now, in ifc->g[g]. */
int nic_read(struct nic_iface *ifc, enum nic_group g)
{
	struct nic_values *v = &ifc->g[g];
	int r = family();

	memset(v, 0, sizeof(*v));
	if (g == NG_FEATURES && !ifc->feat && !(ifc->feat = calloc(1, sizeof(*ifc->feat))))
		r = -ENOMEM;
	else if (r == -ENOENT && g == NG_FEATURES)
		r = nic_ioctl_features(ifc->name, ifc->feat);
	else if (r == -ENOENT)
		r = nic_ioctl_read(ifc->name, g, v);
	else if (r >= 0)
		r = read_netlink(ifc, g);
	v->read = r >= 0;
	v->err = r < 0 ? r : 0;
	return v->err;
}

/* One setting written: a value of k's group, or the feature by name. */
int nic_write(struct nic_iface *ifc, const struct nic_key *k, const char *feature, uint32_t value, char *msg,
	      size_t size)
{
	static struct nl_batch b;
	struct answer a = { .g = k->group, .values = &ifc->g[k->group] };
	int r = family();

	*msg = '\0';
	if (r == -ENOENT && feature)
		return nic_ioctl_feature(ifc->name, feature, value != 0);
	if (r == -ENOENT)
		return nic_ioctl_write(ifc->name, k->group, k->attr, value);
	if (r < 0)
		return r;
	b.len = b.count = 0;
	if (feature)
		r = nic_put_feature(&b, ++io.nl.seq, io.family, ifc->ifindex, feature, value != 0);
	else
		r = nic_put_set(&b, ++io.nl.seq, io.family, k->group, ifc->ifindex, k->attr, value,
				nic_attr_u8(k->group, k->attr));
	return r < 0 ? r : exchange(&b, &a, msg, size);
}
