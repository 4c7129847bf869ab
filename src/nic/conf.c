// SPDX-License-Identifier: LGPL-2.1-or-later
/* The keys of [net "NAME"], one row each (kind, ethtool group, attribute),
 * and their check: what the kernel accepts, said before anything is
 * written, with the allowed values in the message. */
#include <errno.h>
#include <fnmatch.h>
#include <linux/ethtool_netlink.h>
#include <stdio.h>
#include <string.h>

#include "nic/internal.h"

#define CH(n, a, m) { "channels." n, NK_COUNT_CPUS, NG_CHANNELS, ETHTOOL_A_CHANNELS_##a, ETHTOOL_A_CHANNELS_##m, NULL, NULL, 0 }
#define RG(n, a, m) { "rings." n, NK_COUNT, NG_RINGS, ETHTOOL_A_RINGS_##a, ETHTOOL_A_RINGS_##m, NULL, NULL, 0 }
#define CO(n, a) { "coalesce." n, NK_U32, NG_COALESCE, ETHTOOL_A_COALESCE_##a, 0, NULL, NULL, 0 }
#define CB(n, a) { "coalesce." n, NK_BOOL, NG_COALESCE, ETHTOOL_A_COALESCE_##a, 0, NULL, NULL, 0 }

/* In plan order: channels first (a change recreates the queues every
 * later setting of the interface, and the qdisc, is about). */
const struct nic_key nic_keys[] = {
	CH("combined", COMBINED_COUNT, COMBINED_MAX),
	CH("rx", RX_COUNT, RX_MAX),
	CH("tx", TX_COUNT, TX_MAX),
	RG("rx", RX, RX_MAX),
	RG("tx", TX, TX_MAX),
	{ "offload.", NK_ONOFF, NG_FEATURES, 0, 0, NULL, NULL, 0 },
	CO("rx_usecs", RX_USECS),
	CO("rx_frames", RX_MAX_FRAMES),
	CO("rx_usecs_irq", RX_USECS_IRQ),
	CO("rx_frames_irq", RX_MAX_FRAMES_IRQ),
	CO("tx_usecs", TX_USECS),
	CO("tx_frames", TX_MAX_FRAMES),
	CO("tx_usecs_irq", TX_USECS_IRQ),
	CO("tx_frames_irq", TX_MAX_FRAMES_IRQ),
	CO("stats_block_usecs", STATS_BLOCK_USECS),
	CB("adaptive_rx", USE_ADAPTIVE_RX),
	CB("adaptive_tx", USE_ADAPTIVE_TX),
	CO("pkt_rate_low", PKT_RATE_LOW),
	CO("rx_usecs_low", RX_USECS_LOW),
	CO("rx_frames_low", RX_MAX_FRAMES_LOW),
	CO("tx_usecs_low", TX_USECS_LOW),
	CO("tx_frames_low", TX_MAX_FRAMES_LOW),
	CO("pkt_rate_high", PKT_RATE_HIGH),
	CO("rx_usecs_high", RX_USECS_HIGH),
	CO("rx_frames_high", RX_MAX_FRAMES_HIGH),
	CO("tx_usecs_high", TX_USECS_HIGH),
	CO("tx_frames_high", TX_MAX_FRAMES_HIGH),
	CO("sample_interval", RATE_SAMPLE_INTERVAL),
	/* Files of sysfs, after the channels that make the queues they are in. */
	{ "txqueuelen", NK_U32, NG_FILE, 0, 0, nic_plan_file, "tx_queue_len", 0 },
	{ "rps_cpus", NK_MASK, NG_FILE, 0, 0, nic_plan_file, "rps_cpus", 'r' },
	{ "rps_flow_cnt", NK_FLOWS, NG_FILE, 0, 0, nic_plan_file, "rps_flow_cnt", 'r' },
	{ "xps_cpus", NK_MASK, NG_FILE, 0, 0, nic_plan_file, "xps_cpus", 't' },
	{ NULL, 0, 0, 0, 0, NULL, NULL, 0 },
};

static const char *const match_keys[] = { "name", "driver", "class", NULL };
static const char *const classes[] = { "physical", "virtual", NULL };

/* The kernel's feature names (netdev_features_strings, 6.18). */
static const char *const features[] = {
	"tx-scatter-gather", "tx-checksum-ipv4", "tx-checksum-ip-generic", "tx-checksum-ipv6", "highdma",
	"tx-scatter-gather-fraglist", "tx-vlan-hw-insert", "rx-vlan-hw-parse", "rx-vlan-filter",
	"vlan-challenged", "tx-generic-segmentation", "tx-lockless", "netns-local", "rx-gro", "rx-lro",
	"tx-tcp-segmentation", "tx-gso-robust", "tx-tcp-ecn-segmentation", "tx-tcp-mangleid-segmentation",
	"tx-tcp6-segmentation", "tx-fcoe-segmentation", "tx-gre-segmentation", "tx-gre-csum-segmentation",
	"tx-ipxip4-segmentation", "tx-ipxip6-segmentation", "tx-udp_tnl-segmentation",
	"tx-udp_tnl-csum-segmentation", "tx-gso-partial", "tx-tunnel-remcsum-segmentation",
	"tx-sctp-segmentation", "tx-esp-segmentation", "tx-udp-segmentation", "tx-gso-list",
	"tx-checksum-fcoe-crc", "tx-checksum-sctp", "fcoe-mtu", "rx-ntuple-filter", "rx-hashing",
	"rx-checksum", "tx-nocache-copy", "loopback", "rx-fcs", "rx-all", "tx-vlan-stag-hw-insert",
	"rx-vlan-stag-hw-parse", "rx-vlan-stag-filter", "l2-fwd-offload", "hw-tc-offload", "esp-hw-offload",
	"esp-tx-csum-hw-offload", "rx-udp_tunnel-port-offload", "tls-hw-tx-offload", "tls-hw-rx-offload",
	"rx-gro-hw", "tls-hw-record", "rx-gro-list", "macsec-hw-offload", "rx-udp-gro-forwarding",
	"hsr-tag-ins-offload", "hsr-tag-rm-offload", "hsr-fwd-offload", "hsr-dup-offload", NULL,
};

/* The ethtool command's long names, each for the kernel features it sets. */
static const struct {
	const char *alias;
	const char *const names[6];
} aliases[] = {
	{ "generic-receive-offload", { "rx-gro" } },
	{ "large-receive-offload", { "rx-lro" } },
	{ "generic-segmentation-offload", { "tx-generic-segmentation" } },
	{ "tcp-segmentation-offload",
	  { "tx-tcp-segmentation", "tx-tcp-ecn-segmentation", "tx-tcp-mangleid-segmentation", "tx-tcp6-segmentation" } },
	{ "rx-checksumming", { "rx-checksum" } },
	{ "tx-checksumming",
	  { "tx-checksum-ipv4", "tx-checksum-ip-generic", "tx-checksum-ipv6", "tx-checksum-fcoe-crc", "tx-checksum-sctp" } },
	{ "scatter-gather", { "tx-scatter-gather", "tx-scatter-gather-fraglist" } },
	{ "rx-vlan-offload", { "rx-vlan-hw-parse" } },
	{ "tx-vlan-offload", { "tx-vlan-hw-insert" } },
	{ "ntuple-filters", { "rx-ntuple-filter" } },
	{ "receive-hashing", { "rx-hashing" } },
};

/* ethtool's udp-fragmentation-offload (ufo) is tx-udp-fragmentation,
 * NETIF_F_UFO, which Linux 4.14 removed; tx-udp-segmentation (USO, 4.18)
 * segments UDP GSO packets, another feature: setting it for the old name
 * would change what the user did not ask for. */
static const char *const ufo_names[] = { "udp-fragmentation-offload", "ufo", "tx-udp-fragmentation", NULL };

static bool in_list(const char *const *list, const char *w)
{
	for (; *list; list++)
		if (!strcmp(*list, w))
			return true;
	return false;
}

const char *const *nic_feature_expand(const char *name, const char **one)
{
	for (size_t i = 0; i < ARRAY_SIZE(aliases); i++)
		if (!strcmp(aliases[i].alias, name))
			return aliases[i].names;
	one[0] = name, one[1] = NULL;
	return one;
}

bool nic_feature_known(const char *name)
{
	const char *one[2];

	return in_list(features, name) || nic_feature_expand(name, one) != one;
}

const struct nic_key *nic_key_find(const char *key)
{
	for (const struct nic_key *k = nic_keys; k->name; k++) {
		size_t n = strlen(k->name);

		if (k->name[n - 1] == '.' ? !strncmp(key, k->name, n) && key[n] : !strcmp(key, k->name))
			return k;
	}
	return NULL;
}

/* An item's setting is its key's name, or for a key of a file that file's
 * path below the interface (tx_queue_len, queues/rx-0/rps_cpus), which
 * the other writers name too. */
const struct nic_key *nic_setting_key(const char *setting)
{
	const char *last = strrchr(setting, '/');
	const struct nic_key *k;

	if (!strncmp(setting, "queues/", 7) && last) {
		k = nic_key_find(last + 1);
		return k && k->queues ? k : NULL;
	}
	for (k = nic_keys; k->name; k++)
		if (k->file && !k->queues && !strcmp(k->file, setting))
			return k;
	k = nic_key_find(setting);
	return k && !k->file ? k : NULL;
}

static int check_match(const char *what, const char *value, char *why, size_t size)
{
	char w[WORD_MAX], buf[96], names[128], allowed[160];
	const char *p = value;

	if (!in_list(match_keys, what)) {
		snprintf(why, size, "[net \"NAME\"] unknown match key 'match.%s'%sallowed: %s", what,
			 did_you_mean(what, CFG_NAMES(match_keys, "", names), buf, sizeof(buf)),
			 CFG_NAMES(match_keys, "match.", allowed));
		return -EINVAL;
	}
	while (next_word(&p, w, sizeof(w))) {
		if (cfg_glob_check("[net \"NAME\"] match", w, why, size) < 0)
			return -EINVAL;
		if (!strcmp(what, "class") && !strpbrk(w, "*?[") && !in_list(classes, w)) {
			snprintf(why, size, "[net \"NAME\"] match.class = '%s'%sallowed: physical virtual", w,
				 did_you_mean(w, "physical virtual", buf, sizeof(buf)));
			return -EINVAL;
		}
	}
	return 0;
}

static int check_feature(const char *name, const char *value, char *why, size_t size)
{
	char buf[96], names[1536];

	if (in_list(ufo_names, name)) {
		snprintf(why, size, "[net \"NAME\"] offload.%s: UDP fragmentation offload (UFO) is gone from the "
			 "kernel since Linux 4.14; offload.tx-udp-segmentation is UDP segmentation offload (USO), a "
			 "different thing", name);
		return -EINVAL;
	}
	if (!nic_feature_known(name)) {
		snprintf(why, size, "[net \"NAME\"] offload.%s: not a feature of Linux%sthe kernel's names as "
			 "`ethtool -k` prints them (rx-gro, rx-gro-hw, tx-tcp-segmentation…) or ethtool's long "
			 "ones (generic-receive-offload…)", name,
			 did_you_mean(name, CFG_NAMES(features, "", names), buf, sizeof(buf)));
		return -EINVAL;
	}
	if (*value && strcmp(value, "on") && strcmp(value, "off")) {
		snprintf(why, size, "[net \"NAME\"] offload.%s = '%s'; allowed: on off", name, value);
		return -EINVAL;
	}
	return 0;
}

/* The kernel refuses a flow table of more than 2^30 entries per queue. */
#define FLOWS_MAX (1u << 30)

static int check_value(const struct nic_key *k, const char *value, char *why, size_t size)
{
	unsigned long long v;
	struct nic_mask m;
	char err[192];

	if (!*value)
		return 0;
	if (k->kind == NK_MASK && (!strcmp(value, "all") || !strcmp(value, "none")))
		return 0;
	if (k->kind == NK_MASK && nic_mask_parse(value, &m, err, sizeof(err)) < 0) {
		snprintf(why, size, "[net \"NAME\"] %s: %s; allowed: a hex mask of CPUs as the kernel prints it "
			 "(f, 00000000,000000ff), all (the online CPUs) or none", k->name, err);
		return -EINVAL;
	}
	if (k->kind == NK_MASK)
		return 0;
	if (k->kind == NK_FLOWS && parse_u64(value, &v) == 0 && v <= FLOWS_MAX)
		return 0;
	if (k->kind == NK_ONOFF)
		return 0;
	if (k->kind == NK_BOOL && (!strcmp(value, "on") || !strcmp(value, "off")))
		return 0;
	if ((k->kind == NK_COUNT || k->kind == NK_COUNT_CPUS) && !strcmp(value, "max"))
		return 0;
	if (k->kind == NK_COUNT_CPUS && !strcmp(value, "cpus"))
		return 0;
	if (k->kind != NK_BOOL && k->kind != NK_FLOWS && parse_u64(value, &v) == 0 && v <= UINT32_MAX &&
	    (v > 0 || k->kind == NK_U32))
		return 0;
	snprintf(why, size, "[net \"NAME\"] %s = '%s'; allowed: %s", k->name, value,
		 k->kind == NK_BOOL ? "on off" : k->kind == NK_U32 ? "a whole number (0 to 4294967295)"
		 : k->kind == NK_FLOWS ? "a whole number of flows per queue (0 to 1073741824; the kernel keeps the "
					 "power of two at or above it)"
		 : k->kind == NK_COUNT_CPUS ? "a count from 1, max (the device's maximum), or cpus (the online CPUs, "
					      "capped at the maximum)"
					    : "a count from 1, or max (the device's maximum)");
	return -EINVAL;
}

/* Each kind of key once: the names of the table's rows are for did you mean. */
static const char key_kinds[] = "channels.combined channels.rx channels.tx rings.rx rings.tx offload.FEATURE "
				"coalesce.PARAM txqueuelen rps_cpus rps_flow_cnt xps_cpus match.name match.driver "
				"match.class";

static int unknown_key(const char *key, char *why, size_t size)
{
	char names[1024], buf[96];

	if (!strncmp(key, "coalesce.", 9)) {
		char params[512] = "";

		for (const struct nic_key *k = nic_keys; k->name; k++)
			if (k->group == NG_COALESCE)
				snprintf(params + strlen(params), sizeof(params) - strlen(params), " %s", k->name + 9);
		snprintf(why, size, "unknown key '%s'%scoalesce.PARAM:%s",
			 key, did_you_mean(key, CFG_NAMES(nic_keys, "", names), buf, sizeof(buf)), params);
		return -EINVAL;
	}
	snprintf(why, size, "unknown key '%s' in [net \"NAME\"]%sallowed: %s", key,
		 did_you_mean(key, CFG_NAMES(nic_keys, "", names), buf, sizeof(buf)), key_kinds);
	return -EINVAL;
}

int nic_check_key(const char *key, const char *value, char *why, size_t size)
{
	const struct nic_key *k;

	if (!strncmp(key, "match.", 6))
		return check_match(key + 6, value, why, size);
	k = nic_key_find(key);
	if (!k)
		return unknown_key(key, why, size);
	if (k->group == NG_FEATURES && k->kind == NK_ONOFF)
		return check_feature(key + strlen(k->name), value, why, size);
	return check_value(k, value, why, size);
}

/* The [net "NAME"] key of an interface's sysfs file (path may be a glob of
 * one): below sys/class/net or a device's net/ directory, a queue's file
 * under any queue. */
bool nic_claims(const char *path, char *key, size_t size)
{
	char pat[96];

	for (const struct nic_key *k = nic_keys; k->name; k++) {
		if (!k->file)
			continue;
		snprintf(pat, sizeof(pat), "sys/*net/*/%s%s", k->queues ? "queues/*/" : "", k->file);
		if (!fnmatch(pat, path, 0)) {
			snprintf(key, size, "[net \"NAME\"] %s", k->name);
			return true;
		}
	}
	return false;
}
