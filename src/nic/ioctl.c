// SPDX-License-Identifier: LGPL-2.1-or-later
/* SIOCETHTOOL, for kernels without the ethtool netlink family: channels,
 * rings and coalescing read and written through the ioctl's structures,
 * their fields kept under the netlink attributes' numbers so that the plan
 * reads one shape; features by their names in the ETH_SS_FEATURES string
 * set, as the netlink family names them. */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/sockios.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nic/internal.h"

/* One ioctl on the interface; a test may stand in for the kernel. */
int (*nic_ioctl_hook)(const char *ifname, void *cmd);

static int ethtool_ioctl(const char *ifname, void *cmd)
{
	struct ifreq ifr;
	int fd, r;

	if (nic_ioctl_hook)
		return nic_ioctl_hook(ifname, cmd);
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = cmd;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	r = ioctl(fd, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
	close(fd);
	return r;
}

static void put(struct nic_values *out, uint16_t attr, uint32_t v)
{
	out->v[attr] = v;
	out->have |= 1ull << attr;
}

/* struct ethtool_coalesce is the command and 22 u32 in the order of the
 * netlink attributes: field i is attribute ETHTOOL_A_COALESCE_RX_USECS + i - 1. */
_Static_assert(sizeof(struct ethtool_coalesce) == 23 * sizeof(uint32_t), "ethtool_coalesce: 23 u32");
#define CO_FIELDS 22

static uint32_t *co_field(struct ethtool_coalesce *co, uint16_t attr)
{
	return (uint32_t *)co + (attr - ETHTOOL_A_COALESCE_RX_USECS + 1);
}

static int coalesce_read(const char *ifname, struct nic_values *out)
{
	struct ethtool_coalesce co = { .cmd = ETHTOOL_GCOALESCE };
	int r = ethtool_ioctl(ifname, &co);

	for (uint16_t a = ETHTOOL_A_COALESCE_RX_USECS; r >= 0 && a < ETHTOOL_A_COALESCE_RX_USECS + CO_FIELDS; a++)
		put(out, a, *co_field(&co, a));
	return r;
}

static int coalesce_write(const char *ifname, uint16_t attr, uint32_t value)
{
	struct ethtool_coalesce co = { .cmd = ETHTOOL_GCOALESCE };
	int r = ethtool_ioctl(ifname, &co);

	if (r < 0 || attr < ETHTOOL_A_COALESCE_RX_USECS || attr >= ETHTOOL_A_COALESCE_RX_USECS + CO_FIELDS)
		return r < 0 ? r : -EOPNOTSUPP;
	co.cmd = ETHTOOL_SCOALESCE;
	*co_field(&co, attr) = value;
	return ethtool_ioctl(ifname, &co);
}

int nic_ioctl_read(const char *ifname, enum nic_group g, struct nic_values *out)
{
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	struct ethtool_ringparam rp = { .cmd = ETHTOOL_GRINGPARAM };
	int r;

	if (g == NG_CHANNELS) {
		r = ethtool_ioctl(ifname, &ch);
		if (r < 0)
			return r;
		put(out, ETHTOOL_A_CHANNELS_RX_MAX, ch.max_rx), put(out, ETHTOOL_A_CHANNELS_TX_MAX, ch.max_tx);
		put(out, ETHTOOL_A_CHANNELS_COMBINED_MAX, ch.max_combined);
		put(out, ETHTOOL_A_CHANNELS_RX_COUNT, ch.rx_count), put(out, ETHTOOL_A_CHANNELS_TX_COUNT, ch.tx_count);
		put(out, ETHTOOL_A_CHANNELS_COMBINED_COUNT, ch.combined_count);
	} else if (g == NG_RINGS) {
		r = ethtool_ioctl(ifname, &rp);
		if (r < 0)
			return r;
		put(out, ETHTOOL_A_RINGS_RX_MAX, rp.rx_max_pending), put(out, ETHTOOL_A_RINGS_TX_MAX, rp.tx_max_pending);
		put(out, ETHTOOL_A_RINGS_RX, rp.rx_pending), put(out, ETHTOOL_A_RINGS_TX, rp.tx_pending);
	} else if (g != NG_COALESCE || (r = coalesce_read(ifname, out)) < 0) {
		return g != NG_COALESCE ? -EOPNOTSUPP : r;
	}
	out->read = true;
	return 0;
}

/* The ioctl sets every field at once: the others as they are now. */
int nic_ioctl_write(const char *ifname, enum nic_group g, uint16_t attr, uint32_t value)
{
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	struct ethtool_ringparam rp = { .cmd = ETHTOOL_GRINGPARAM };
	int r = g == NG_COALESCE ? 0 : ethtool_ioctl(ifname, g == NG_CHANNELS ? (void *)&ch : (void *)&rp);

	if (g == NG_COALESCE)
		return coalesce_write(ifname, attr, value);
	if (r < 0)
		return r;
	if (g == NG_CHANNELS) {
		ch.cmd = ETHTOOL_SCHANNELS;
		if (attr == ETHTOOL_A_CHANNELS_COMBINED_COUNT)
			ch.combined_count = value;
		else if (attr == ETHTOOL_A_CHANNELS_RX_COUNT)
			ch.rx_count = value;
		else
			ch.tx_count = value;
		return ethtool_ioctl(ifname, &ch);
	}
	rp.cmd = ETHTOOL_SRINGPARAM;
	if (attr == ETHTOOL_A_RINGS_RX)
		rp.rx_pending = value;
	else
		rp.tx_pending = value;
	return ethtool_ioctl(ifname, &rp);
}

/* The driver's name as ETHTOOL_GDRVINFO gives it: a virtual interface
 * (veth, a bridge) has no device/driver link to read it from. */
int nic_ioctl_driver(const char *ifname, char *out, size_t size)
{
	struct ethtool_drvinfo d = { .cmd = ETHTOOL_GDRVINFO };
	int r = ethtool_ioctl(ifname, &d);

	if (r >= 0)
		snprintf(out, size, "%.*s", (int)sizeof(d.driver), d.driver);
	return r;
}

/* The feature names of ETH_SS_FEATURES, ETH_GSTRING_LEN bytes each: their
 * count, and the strings in *out (malloc'ed). */
static int feature_names(const char *ifname, struct ethtool_gstrings **out)
{
	/* The info and the one count its mask asks for. */
	uint64_t buf[(sizeof(struct ethtool_sset_info) + sizeof(uint32_t) + 7) / 8] = { 0 };
	struct ethtool_sset_info *info = (struct ethtool_sset_info *)buf;
	int r;

	info->cmd = ETHTOOL_GSSET_INFO;
	info->sset_mask = 1ull << ETH_SS_FEATURES;
	r = ethtool_ioctl(ifname, info);
	*out = NULL;
	if (r < 0)
		return r;
	if (!info->sset_mask || !info->data[0] || info->data[0] > 1024)
		return -EOPNOTSUPP;
	*out = calloc(1, sizeof(**out) + (size_t)info->data[0] * ETH_GSTRING_LEN);
	if (!*out)
		return -ENOMEM;
	**out = (struct ethtool_gstrings){ .cmd = ETHTOOL_GSTRINGS, .string_set = ETH_SS_FEATURES,
					   .len = info->data[0] };
	r = ethtool_ioctl(ifname, *out);
	return r < 0 ? r : (int)info->data[0];
}

static struct ethtool_gfeatures *feature_blocks(uint32_t n)
{
	struct ethtool_gfeatures *g = calloc(1, sizeof(*g) + (n + 31) / 32 * sizeof(g->features[0]));

	if (g)
		*g = (struct ethtool_gfeatures){ .cmd = ETHTOOL_GFEATURES, .size = (n + 31) / 32 };
	return g;
}

static bool bit_of(const uint32_t *word, uint32_t i)
{
	return word[0] >> (i % 32) & 1;
}

/* ETHTOOL_GFEATURES by name: what may change, what is on, what never may. */
int nic_ioctl_features(const char *ifname, struct nic_features *out)
{
	struct ethtool_gstrings *names;
	int n = feature_names(ifname, &names), r = n;
	struct ethtool_gfeatures *g = n > 0 ? feature_blocks((uint32_t)n) : NULL;

	if (n > 0 && !g)
		r = -ENOMEM;
	if (g)
		r = ethtool_ioctl(ifname, g);
	out->n = 0;
	for (uint32_t i = 0; r >= 0 && i < (uint32_t)n && out->n < NIC_FEATURES; i++) {
		const struct ethtool_get_features_block *b = &g->features[i / 32];
		struct nic_feature *f = &out->v[out->n];
		const char *s = (const char *)names->data + (size_t)i * ETH_GSTRING_LEN;

		if (!*s)
			continue;
		snprintf(f->name, sizeof(f->name), "%.*s", ETH_GSTRING_LEN, s);
		f->hw = bit_of(&b->available, i), f->active = bit_of(&b->active, i);
		f->nochange = bit_of(&b->never_changed, i);
		out->n++;
	}
	free(names);
	free(g);
	return r < 0 ? r : 0;
}

/* ETHTOOL_SFEATURES of one feature, found by its name's place in the set. */
int nic_ioctl_feature(const char *ifname, const char *name, bool on)
{
	struct ethtool_gstrings *names;
	int n = feature_names(ifname, &names), r = n < 0 ? n : -ENOENT;
	struct ethtool_sfeatures *s = NULL;

	for (uint32_t i = 0; n > 0 && i < (uint32_t)n && r == -ENOENT; i++) {
		if (strncmp((const char *)names->data + (size_t)i * ETH_GSTRING_LEN, name, ETH_GSTRING_LEN))
			continue;
		s = calloc(1, sizeof(*s) + ((uint32_t)n + 31) / 32 * sizeof(s->features[0]));
		if (!s) {
			r = -ENOMEM;
			break;
		}
		*s = (struct ethtool_sfeatures){ .cmd = ETHTOOL_SFEATURES, .size = ((uint32_t)n + 31) / 32 };
		s->features[i / 32].valid = 1u << (i % 32);
		s->features[i / 32].requested = on ? 1u << (i % 32) : 0;
		r = ethtool_ioctl(ifname, s);
	}
	free(names);
	free(s);
	return r < 0 ? r : 0;
}
