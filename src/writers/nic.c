// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The NIC settings of [net "NAME"] as the other writers spell them. Each
 * reader (link.c, nm.c, tuned.c, udev.c) turns its own names into
 * earlytune's item settings: "channels.combined", "rings.rx",
 * "offload.FEATURE", "coalesce.rx_usecs", and the sysfs attributes below
 * the interface's directory ("tx_queue_len", "queues/rx-N/rps_cpus").
 * Offloads are compared by the kernel's feature names (ETH_SS_FEATURES);
 * ethtool's old short and long names stand for the group of kernel
 * features ethtool sets under them (its off_flag_def table). ufo stays
 * tx-udp-fragmentation, as ethtool has it: a feature gone since Linux 4.14
 * that no item sets (nic/conf.c refuses it), never USO's tx-udp-segmentation.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "nic/nic.h"
#include "writers/internal.h"

static const struct {
	const char *shortname, *longname, *kernel;
} legacy[] = {
	{ "rx", "rx-checksumming", "rx-checksum" },
	{ "tx", "tx-checksumming", "tx-checksum-*" },
	{ "sg", "scatter-gather", "tx-scatter-gather*" },
	{ "tso", "tcp-segmentation-offload", "tx-tcp*-segmentation" },
	{ "ufo", "udp-fragmentation-offload", "tx-udp-fragmentation" },
	{ "gso", "generic-segmentation-offload", "tx-generic-segmentation" },
	{ "gro", "generic-receive-offload", "rx-gro" },
	{ "lro", "large-receive-offload", "rx-lro" },
	{ "rxvlan", "rx-vlan-offload", "rx-vlan-hw-parse" },
	{ "txvlan", "tx-vlan-offload", "tx-vlan-hw-insert" },
	{ "ntuple", "ntuple-filters", "rx-ntuple-filter" },
	{ "rxhash", "receive-hashing", "rx-hashing" },
};

/* The kernel's name (or pattern of names) for an offload in any spelling. */
const char *nic_feature(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(legacy); i++)
		if (!strcmp(name, legacy[i].shortname) || !strcmp(name, legacy[i].longname))
			return legacy[i].kernel;
	return name;
}

/* A file of the interface's directory is known by its path, whatever the
 * item calls its setting: the key the writers name it by is the path below
 * sys/class/net/IFACE ("tx_queue_len", "queues/rx-0/rps_cpus"), for a
 * [net "NAME"] item as for a [sysfs] one. The ethtool settings have no
 * file: their key is the item's setting ("channels.combined",
 * "offload.rx-gro"). */
bool nic_item(const struct item *it, char *iface, size_t size, const char **key)
{
	static const char dir[] = "sys/class/net/";
	bool nic = !strcmp(it->domain, "nic");
	const char *name, *slash;

	if (!nic && strcmp(it->domain, "sysfs"))
		return false;
	if (it->path && !strncmp(it->path, dir, strlen(dir)) && (slash = strchr(name = it->path + strlen(dir), '/')) &&
	    slash[1] && slash > name && (size_t)(slash - name) < size) {
		snprintf(iface, size, "%.*s", (int)(slash - name), name);
		*key = slash + 1;
		return true;
	}
	if (!nic || !it->target || !it->setting || strlen(it->target) >= size)
		return false;
	snprintf(iface, size, "%s", it->target);
	*key = it->setting;
	return true;
}

/* An item's setting against an entry's key (a glob for rps_cpus of every
 * queue; offloads by the kernel's names, either side a pattern). */
bool nic_key_match(const char *item, const char *entry)
{
	if (!strncmp(item, "offload.", 8) && !strncmp(entry, "offload.", 8)) {
		const char *a = nic_feature(item + 8), *b = entry + 8;

		return !strcmp(a, b) || fnmatch(a, b, 0) == 0 || fnmatch(b, a, 0) == 0;
	}
	return !strcmp(item, entry) || fnmatch(entry, item, FNM_PATHNAME) == 0;
}

/* Two values of an item's CPU mask file (rps_cpus, xps_cpus) the same
 * CPUs, whatever their width and commas ("f", "00000000,0000000f"), as the
 * kernel reads them; false when the item has no such file or either is
 * not a mask. */
bool nic_same_cpus(const struct item *it, const char *a, const char *b)
{
	struct nic_mask ma, mb;
	char iface[NAME_MAX + 1], why[192];
	const char *key, *file;

	if (!a || !b || !nic_item(it, iface, sizeof(iface), &key))
		return false;
	file = strrchr(key, '/') ? strrchr(key, '/') + 1 : key;
	if (strcmp(file, "rps_cpus") && strcmp(file, "xps_cpus"))
		return false;
	return nic_mask_parse(a, &ma, why, sizeof(why)) == 0 && nic_mask_parse(b, &mb, why, sizeof(why)) == 0 &&
	       nic_mask_equal(&ma, &mb);
}

/* on/off for the booleans every tool spells its own way; NULL: not one. */
const char *nic_bool(const char *v)
{
	static const char *const yes[] = { "on", "yes", "true", "1", "y", "t" };
	static const char *const no[] = { "off", "no", "false", "0", "n", "f" };

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(v, yes[i]))
			return "on";
		if (!strcasecmp(v, no[i]))
			return "off";
	}
	return NULL;
}

/* ethtool's word for a group of parameters: its -K/-C/-G/-L options, TuneD's
 * [net] option names. */
static const char *group_of(const char *word)
{
	static const struct {
		const char *word, *group;
	} groups[] = {
		{ "-K", "offload." },	{ "--features", "offload." }, { "--offload", "offload." },
		{ "features", "offload." }, { "-C", "coalesce." },    { "--coalesce", "coalesce." },
		{ "coalesce", "coalesce." }, { "-G", "rings." },	      { "--set-ring", "rings." },
		{ "ring", "rings." },	    { "-L", "channels." },     { "--set-channels", "channels." },
		{ "channels", "channels." },
	};

	for (size_t i = 0; i < ARRAY_SIZE(groups); i++)
		if (!strcmp(word, groups[i].word))
			return groups[i].group;
	return NULL;
}

/* One ethtool parameter as an item's setting and value: -K's features by
 * the kernel's names and on/off, the others with '_' for '-'. */
static void pair(const char *group, const char *name, const char *value, char *key, size_t size, const char **val)
{
	*val = value;
	if (!strcmp(group, "offload.")) {
		snprintf(key, size, "offload.%s", nic_feature(name));
		*val = nic_bool(value) ? nic_bool(value) : value;
		return;
	}
	snprintf(key, size, "%s%s", group, name);
	for (char *s = key + strlen(group); *s; s++)
		*s = *s == '-' ? '_' : *s;
	if (!strncmp(name, "adaptive", 8) && nic_bool(value))
		*val = nic_bool(value);
}

/* "gro off tso off" after a group word (TuneD's option name, ethtool's
 * option): fn per parameter. Words are split at white space, ',', ';' and
 * ':' as TuneD splits them; the device name ethtool takes first is skipped
 * (dev: 1). Returns the number of parameters. */
int nic_params(const char *groupword, const char *args, bool dev, nic_param_fn fn, void *ctx)
{
	const char *group = group_of(groupword);
	char buf[1024], key[160];
	char *words[64];
	int n = 0, k = 0;

	if (!group)
		return 0;
	snprintf(buf, sizeof(buf), "%s", args);
	for (char *save = NULL, *w = strtok_r(buf, " \t,;:", &save); w && n < (int)ARRAY_SIZE(words);
	     w = strtok_r(NULL, " \t,;:", &save))
		words[n++] = w;
	for (int i = dev ? 1 : 0; i + 1 < n; i += 2, k++) {
		const char *val;

		pair(group, words[i], words[i + 1], key, sizeof(key), &val);
		fn(ctx, key, val);
	}
	return k;
}

/* ethtool's option in a RUN program, and where its arguments start. */
bool nic_ethtool_call(const char *prog, char *word, size_t size, const char **args)
{
	const char *p = strstr(prog, "ethtool");
	size_t n;

	if (!p || (p != prog && p[-1] != '/' && p[-1] != ' '))
		return false;
	p += 7;
	p += strspn(p, " \t");
	n = strcspn(p, " \t");
	if (!n || n >= size)
		return false;
	memcpy(word, p, n);
	word[n] = '\0';
	*args = p + n;
	return group_of(word) != NULL;
}

/* NET_NAME_RENAMED (4): userspace renamed it, which the kernel announces
 * with a "move" event after the "add" that earlytune ran at. */
int nic_renamed(const struct wctx *w, const char *iface)
{
	char path[PATH_MAX], v[16];
	int r = pathf(path, sizeof(path), "sys/class/net/%s/name_assign_type", iface);

	if (r == 0)
		r = root_read(w->r, path, v, sizeof(v));
	return r < 0 ? r : !strcmp(v, "4");
}

/* Below /sys/devices/virtual: veth, bridges, bonds, tunnels. */
bool nic_virtual(const struct wctx *w, const char *iface)
{
	char path[PATH_MAX], target[PATH_MAX];

	return pathf(path, sizeof(path), "sys/class/net/%s", iface) == 0 &&
	       root_readlink(w->r, path, target, sizeof(target)) >= 0 && strstr(target, "/virtual/");
}
