// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * systemd .link files: udev's net_setup_link builtin sets an interface's
 * channels, rings, offloads, coalescing, transmit queue length and RPS
 * CPUs from the first .link file (by name) whose [Match] fits it. It runs
 * while udev processes the rules of the "add" event, before any RUN
 * program, so earlytune's run at that event comes after it; but it applies
 * the file again at "move", the event of a rename, which comes after
 * earlytune's: on a renamed interface the .link value wins. Match keys
 * evaluated: OriginalName (against the name now, when the interface was not
 * renamed), Driver, MACAddress; any other makes the file "may apply". A
 * file without [Match] keys is ignored, as udev ignores it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "nic/nic.h"
#include "writers/internal.h"

enum { L_FILE = 1, L_BOOL = 2, L_SEC = 4, L_TOSEC = 8, L_RESET = 16 };

#define RPS_KEY "ReceivePacketSteeringCPUMask"
#define RPS_SETTING "queues/rx-*/rps_cpus"

static const struct {
	const char *key, *setting;
	int flags;
} keys[] = {
	{ "RxChannels", "channels.rx", 0 },
	{ "TxChannels", "channels.tx", 0 },
	{ "OtherChannels", "channels.other", 0 },
	{ "CombinedChannels", "channels.combined", 0 },
	{ "RxBufferSize", "rings.rx", 0 },
	{ "RxMiniBufferSize", "rings.rx_mini", 0 },
	{ "RxJumboBufferSize", "rings.rx_jumbo", 0 },
	{ "TxBufferSize", "rings.tx", 0 },
	{ "TransmitQueueLength", "tx_queue_len", 0 },
	{ "ReceiveChecksumOffload", "offload.rx-checksum", L_BOOL },
	{ "TransmitChecksumOffload", "offload.tx-checksum-*", L_BOOL },
	{ "TCPSegmentationOffload", "offload.tx-tcp-segmentation", L_BOOL },
	{ "TCP6SegmentationOffload", "offload.tx-tcp6-segmentation", L_BOOL },
	{ "GenericSegmentationOffload", "offload.tx-generic-segmentation", L_BOOL },
	{ "PartialGenericSegmentationOffload", "offload.tx-gso-partial", L_BOOL },
	{ "GenericReceiveOffload", "offload.rx-gro", L_BOOL },
	{ "GenericReceiveOffloadHardware", "offload.rx-gro-hw", L_BOOL },
	{ "GenericReceiveOffloadList", "offload.rx-gro-list", L_BOOL },
	{ "GenericReceiveOffloadUDPForwarding", "offload.rx-udp-gro-forwarding", L_BOOL },
	{ "LargeReceiveOffload", "offload.rx-lro", L_BOOL },
	{ "ReceiveVLANCTAGHardwareAcceleration", "offload.rx-vlan-hw-parse", L_BOOL },
	{ "TransmitVLANCTAGHardwareAcceleration", "offload.tx-vlan-hw-insert", L_BOOL },
	{ "ReceiveVLANCTAGFilter", "offload.rx-vlan-filter", L_BOOL },
	{ "TransmitVLANSTAGHardwareAcceleration", "offload.tx-vlan-stag-hw-insert", L_BOOL },
	{ "NTupleFilter", "offload.rx-ntuple-filter", L_BOOL },
	{ "ReceiveFCS", "offload.rx-fcs", L_BOOL },
	{ "ReceiveAll", "offload.rx-all", L_BOOL },
	{ "UseAdaptiveRxCoalesce", "coalesce.adaptive_rx", L_BOOL },
	{ "UseAdaptiveTxCoalesce", "coalesce.adaptive_tx", L_BOOL },
	{ "RxCoalesceSec", "coalesce.rx_usecs", L_SEC },
	{ "RxMaxCoalescedFrames", "coalesce.rx_frames", 0 },
	{ "RxCoalesceIrqSec", "coalesce.rx_usecs_irq", L_SEC },
	{ "RxMaxCoalescedIrqFrames", "coalesce.rx_frames_irq", 0 },
	{ "TxCoalesceSec", "coalesce.tx_usecs", L_SEC },
	{ "TxMaxCoalescedFrames", "coalesce.tx_frames", 0 },
	{ "TxCoalesceIrqSec", "coalesce.tx_usecs_irq", L_SEC },
	{ "TxMaxCoalescedIrqFrames", "coalesce.tx_frames_irq", 0 },
	{ "StatisticsBlockCoalesceSec", "coalesce.stats_block_usecs", L_SEC },
	{ "CoalescePacketRateLow", "coalesce.pkt_rate_low", 0 },
	{ "RxCoalesceLowSec", "coalesce.rx_usecs_low", L_SEC },
	{ "RxMaxCoalescedLowFrames", "coalesce.rx_frames_low", 0 },
	{ "TxCoalesceLowSec", "coalesce.tx_usecs_low", L_SEC },
	{ "TxMaxCoalescedLowFrames", "coalesce.tx_frames_low", 0 },
	{ "CoalescePacketRateHigh", "coalesce.pkt_rate_high", 0 },
	{ "RxCoalesceHighSec", "coalesce.rx_usecs_high", L_SEC },
	{ "RxMaxCoalescedHighFrames", "coalesce.rx_frames_high", 0 },
	{ "TxCoalesceHighSec", "coalesce.tx_usecs_high", L_SEC },
	{ "TxMaxCoalescedHighFrames", "coalesce.tx_frames_high", 0 },
	{ "CoalescePacketRateSampleIntervalSec", "coalesce.sample_interval", L_SEC | L_TOSEC },
};

/* A systemd time span ("100us", "0.5ms", "2": seconds) in µs, or in whole
 * seconds (tosec); NULL: not one this reader knows. */
static const char *span(const char *v, bool tosec, char *buf, size_t size)
{
	static const struct {
		const char *unit;
		double us;
	} units[] = { { "", 1e6 }, { "s", 1e6 }, { "sec", 1e6 }, { "ms", 1e3 }, { "msec", 1e3 }, { "us", 1 },
		      { "usec", 1 } };
	char *end;
	double x = strtod(v, &end);

	if (end == v || x < 0)
		return NULL;
	end = strip(end);
	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcmp(end, units[i].unit)) {
			snprintf(buf, size, "%.0f", tosec ? x * units[i].us / 1e6 : x * units[i].us);
			return buf;
		}
	return NULL;
}

/* MACAddress= against the interface's address (any of the list). */
static int mac_match(const struct wctx *w, const char *iface, const char *list)
{
	char path[PATH_MAX], addr[64], buf[512];

	if (pathf(path, sizeof(path), "sys/class/net/%s/address", iface) < 0 ||
	    root_read(w->r, path, addr, sizeof(addr)) < 0)
		return 2;
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *save = NULL, *m = strtok_r(buf, " \t", &save); m; m = strtok_r(NULL, " \t", &save))
		if (!strcasecmp(m, addr))
			return 1;
	return 0;
}

/* Driver= against the driver udev asks ethtool for (veth's too), as
 * match.driver sees it; a tree shows no ethtool: without a device/driver
 * link there, cannot tell. */
static int driver_match(const struct wctx *w, const char *iface, const char *globs)
{
	char driver[64];

	nic_driver(w->r, iface, driver, sizeof(driver));
	if (!*driver)
		return w->r->is_host ? 0 : 2;
	return writers_names_match(globs, driver, " ");
}

/* One "Key=value" line of a file's [Match], kept in its entries' extra. */
static int match_line(const struct wctx *w, const char *iface, const char *line)
{
	const char *eq = strchr(line, '=');
	size_t n = eq ? (size_t)(eq - line) : 0;

	if (n == 12 && !strncmp(line, "OriginalName", n)) {
		if (!strchr(eq + 1, '!') && (!strcmp(eq + 1, "*") || strstr(eq + 1, " * ") ||
					     !strncmp(eq + 1, "* ", 2)))
			return 1; /* every name */
		if (nic_renamed(w, iface) != 0)
			return 2; /* the name it had is not known */
		return writers_names_match(eq + 1, iface, " ");
	}
	if (n == 6 && !strncmp(line, "Driver", n))
		return driver_match(w, iface, eq + 1);
	if (n == 10 && !strncmp(line, "MACAddress", n))
		return mac_match(w, iface, eq + 1);
	return 2;
}

/* The file's [Match] against the interface: 1, 0, or 2 (cannot tell). */
static int link_matches(const struct wctx *w, const char *match, const char *iface)
{
	char buf[2048];
	int res = 1;

	snprintf(buf, sizeof(buf), "%s", match ? match : "");
	for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		int m = match_line(w, iface, l);

		if (!m)
			return 0;
		if (m == 2)
			res = 2;
	}
	return res;
}

/* An earlier file that surely fits the interface: udev applies only it. */
static const struct wentry *first_file(const struct wctx *w, const struct wentry *e, const char *iface)
{
	for (size_t i = 0; i < w->n && w->v[i].seq < e->seq; i++) {
		const struct wentry *f = &w->v[i];

		if (f->tool == e->tool && f->flags & L_FILE && strcmp(f->file, e->file) &&
		    link_matches(w, f->extra, iface) == 1)
			return f;
	}
	return NULL;
}

static void judge_link(const struct wentry *e, const struct wctx *w, const struct item *it, struct wjudge *j)
{
	const struct wentry *first;
	char iface[NAME_MAX + 1];
	const char *key;
	int renamed;

	if (e->flags & (L_FILE | L_RESET) || !nic_item(it, iface, sizeof(iface), &key) || !nic_key_match(key, e->key) ||
	    !(j->applies = link_matches(w, e->extra, iface)))
		return;
	if ((first = first_file(w, e, iface))) {
		snprintf(j->why, sizeof(j->why), "ignored: udev applies only the first .link file matching %s, %s",
			 iface, first->file);
		return;
	}
	renamed = nic_renamed(w, iface);
	j->beats = renamed != 0;
	if (renamed > 0)
		snprintf(j->why, sizeof(j->why), "udev applies it again when %s is renamed (its move event), after "
			 "earlytune's run at add", iface);
	else if (renamed == 0)
		snprintf(j->why, sizeof(j->why), "udev applies .link files while it processes the add event, before "
			 "earlytune's RUN: earlytune's value stays");
	else {
		j->applies = 2;
		snprintf(j->why, sizeof(j->why), "if %s was renamed, udev applies it again at the move event, after "
			 "earlytune's run at add", iface);
	}
}

struct lfile {
	struct wctx *w;
	const char *rel;
	char *match; /* the [Match] lines */
	size_t first;
	int err;
};

static void link_key(struct lfile *f, const char *key, const char *value, int line)
{
	struct wentry *e;
	char buf[32];

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		if (strcmp(key, keys[i].key) || !(e = wentry_add(f->w, "udev .link", f->rel, line, WS_LINK)))
			continue;
		wset(&e->key, keys[i].setting);
		wsetf(&e->what, "%s=%s", key, value);
		if (keys[i].flags & L_BOOL)
			wset(&e->value, nic_bool(value));
		else if (keys[i].flags & L_SEC)
			wset(&e->value, span(value, keys[i].flags & L_TOSEC, buf, sizeof(buf)));
		else
			wset(&e->value, value);
		e->judge = judge_link;
	}
}

/* The CPUs of one ReceivePacketSteeringCPUMask= value put in m: indices and
 * ranges between white space or commas, "all" (the online CPUs, as
 * earlytune's all), "disable" (none). 0, -EINVAL (udev ignores the
 * assignment: m untouched), or -ENOENT (the online CPUs are not known). */
static int rps_cpus(const struct wctx *w, const char *value, struct nic_mask *m)
{
	char buf[1024];
	struct nic_mask add = *m;

	if (!strcmp(value, "disable")) {
		memset(m, 0, sizeof(*m));
		return 0;
	}
	if (!strcmp(value, "all"))
		return root_read(w->r, "sys/devices/system/cpu/online", buf, sizeof(buf)) > 0 &&
		       nic_mask_from_list(strip(buf), m) == 0 ? 0 : -ENOENT;
	if (snprintf(buf, sizeof(buf), "%s", value) >= (int)sizeof(buf))
		return -EINVAL;
	for (char *save = NULL, *s = strtok_r(buf, " \t,", &save); s; s = strtok_r(NULL, " \t,", &save))
		if (nic_mask_add_list(s, &add) < 0)
			return -EINVAL;
	*m = add;
	return 0;
}

/* systemd merges a file's ReceivePacketSteeringCPUMask= assignments (an
 * empty one resets them) and writes the result to every RX queue: one
 * entry per file, its value the CPUs as the hex mask rps_cpus takes, which
 * compares as CPUs with earlytune's ("0-3" is f); NULL when they are not
 * known. */
static void rps_key(struct lfile *f, const char *value, int line)
{
	struct wentry *e = NULL;
	struct nic_mask m = { { 0 } };
	char hex[NIC_MASK_CHARS];
	bool fresh, known;
	int r;

	for (size_t i = f->first; i < f->w->n && !e; i++)
		e = f->w->v[i].key && !strcmp(f->w->v[i].key, RPS_SETTING) ? &f->w->v[i] : NULL;
	if (!*value) {
		if (e)
			e->flags |= L_RESET;
		return;
	}
	fresh = !e || e->flags & L_RESET;
	known = fresh || !strcmp(value, "all") || !strcmp(value, "disable") ||
		(e->value && nic_mask_parse(e->value, &m, hex, sizeof(hex)) == 0);
	r = rps_cpus(f->w, value, &m);
	if (r == -EINVAL || (!e && !(e = wentry_add(f->w, "udev .link", f->rel, line, WS_LINK))))
		return;
	if (fresh)
		wsetf(&e->what, RPS_KEY "=%s", value);
	else
		wsetf(&e->what, RPS_KEY "=%s (with line %d's)", value, e->line);
	e->line = line;
	e->flags = 0;
	wset(&e->key, RPS_SETTING);
	wset(&e->value, known && r == 0 && nic_mask_hex(&m, hex, sizeof(hex)) == 0 ? hex : NULL);
	e->judge = judge_link;
}

static void match_key(struct lfile *f, const char *key, const char *value)
{
	char *m = xasprintf("%s%s=%s\n", f->match ? f->match : "", key, value);

	if (!m) { /* the keys kept would fit more interfaces than all of them */
		f->err = -ENOMEM;
		return;
	}
	free(f->match);
	f->match = m;
}

/* The file's [Match] goes on each of its entries, and on one of its own:
 * 0, or -ENOMEM (its entries dropped: one without its [Match] would fit
 * every interface). */
static int finish(struct lfile *f)
{
	struct wentry *e;
	int r = f->err;

	if (!f->match || r) { /* udev ignores a .link file without [Match] keys */
		wentries_drop(f->w, f->first);
		free(f->match);
		return r;
	}
	if ((e = wentry_add(f->w, "udev .link", f->rel, 1, WS_LINK))) {
		e->flags = L_FILE;
		wset(&e->what, "[Match]");
		e->judge = judge_link;
	}
	for (size_t i = f->first; i < f->w->n && !r; i++) { /* lines: not shown, so not through wset */
		free(f->w->v[i].extra);
		f->w->v[i].extra = strdup(f->match);
		r = f->w->v[i].extra ? 0 : -ENOMEM;
	}
	if (r)
		wentries_drop(f->w, f->first);
	free(f->match);
	return r;
}

static void link_file(struct wctx *w, const char *rel, char *text)
{
	struct lfile f = { .w = w, .rel = rel, .first = w->n };
	struct wini ini = { .p = text };
	const char *sect = ini.sect;
	char *k, *v;

	while (writers_next_ini(&ini, &k, &v)) {
		if (!k)
			continue;
		if (!strcmp(sect, "Match") && *v)
			match_key(&f, k, v);
		else if (!strcmp(sect, "Link") && !strcmp(k, RPS_KEY))
			rps_key(&f, v, ini.line);
		else if (!strcmp(sect, "Link"))
			link_key(&f, k, v, ini.line);
	}
	if (finish(&f) < 0)
		writers_error(w, rel, -ENOMEM);
}

int writers_link(struct wctx *w)
{
	static const char *const dirs[] = { "etc/systemd/network", "run/systemd/network",
					    "usr/local/lib/systemd/network", "usr/lib/systemd/network",
					    "lib/systemd/network" };

	return writers_files(w, dirs, ARRAY_SIZE(dirs), "*.link", link_file);
}
