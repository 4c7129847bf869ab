// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The NIC keys of sysfs files: txqueuelen (sys/class/net/IF/tx_queue_len),
 * and for every queue rps_cpus and rps_flow_cnt (queues/rx-N) and xps_cpus
 * (queues/tx-N). The queues are those there when the plan reads them:
 * apply plans again after a change of channels, which recreates them.
 * Each file is written by the interface's name now and read back; masks
 * are compared as CPUs, a flow count as the power of two the kernel keeps.
 * Records are by interface index like the ethtool settings' (records.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nic/internal.h"

/* The file of an item's setting under the interface named target now. */
static int file_of(const char *target, const struct nic_key *k, const char *setting, char *rel, size_t size)
{
	return pathf(rel, size, "sys/class/net/%s/%s", target, k->queues ? setting : k->file);
}

/* Two values of k's file the same: as CPUs for a mask, else as written. */
static bool same(const struct nic_key *k, const char *a, const char *b)
{
	struct nic_mask ma, mb;
	char why[192];

	if (k->kind != NK_MASK)
		return !strcmp(a, b);
	return nic_mask_parse(a, &ma, why, sizeof(why)) == 0 && nic_mask_parse(b, &mb, why, sizeof(why)) == 0 &&
	       nic_mask_equal(&ma, &mb);
}

/* A mask value (all, none, hex) as CPUs of this machine in the layout of
 * the file's value cur, in out; false with the item a skip when it asks
 * for a CPU that is not here. */
static bool mask_wanted(struct ctx *c, struct item *it, const char *value, const char *cur, char *out, size_t size)
{
	struct nic_mask want, online;
	char list[1024], why[192];
	int r = nic_online_mask(&c->root, &online, list, sizeof(list)), cpu;

	if (!strcmp(value, "all") && r < 0) {
		item_unknown(it, "the online CPUs are unknown: no readable sys/devices/system/cpu/online");
		return false;
	}
	if (!strcmp(value, "all"))
		want = online;
	else if (!strcmp(value, "none"))
		memset(&want, 0, sizeof(want));
	else if (nic_mask_parse(value, &want, why, sizeof(why)) < 0)
		return item_fail(it, -EINVAL, "%s", why), false;
	if (r >= 0 && (cpu = nic_mask_outside(&want, &online)) >= 0) {
		it->action = ACT_SKIP, it->unmet = true;
		item_setf(&it->reason, "%s names CPU %d, which this machine does not have online (online: %s)", value,
			  cpu, list);
		return false;
	}
	if (nic_mask_format(&want, cur, out, size) < 0) {
		it->action = ACT_SKIP, it->unmet = true;
		item_setf(&it->reason, "%s names CPU %d, past this kernel's CPUs (nr_cpu_ids: %s has room for %zu)",
			  value, nic_mask_last(&want), cur, (strlen(cur) - strlen(cur) / 9) * 4);
		return false;
	}
	return true;
}

/* Why a file is absent: a fact of the kernel on the running system (no
 * RPS, XPS on a single TX queue), unknown in a tree. */
static void absent(struct ctx *c, struct item *it, const struct nic_key *k, const char *rel, int ntx)
{
	if (!c->root.is_host) {
		item_unknown(it, "no /%s in this tree", rel);
	} else if (k->queues == 't' && ntx == 1) {
		it->action = ACT_SKIP;
		item_setf(&it->reason, "%s has one TX queue: XPS chooses among several", it->target);
	} else {
		it->action = ACT_SKIP, it->unmet = true;
		item_setf(&it->reason, "this kernel has no /%s (%s)", rel,
			  k->queues == 'r' ? "CONFIG_RPS" : k->queues == 't' ? "CONFIG_XPS" : "an interface without it");
	}
}

/* A queue's flow table steers nothing without the global one. */
static void rfs_table(struct ctx *c, struct item *it)
{
	char cur[32];

	if (!config_get(&c->cfg, "net", NULL, "rps_sock_flow_entries") &&
	    root_read(&c->root, "proc/sys/net/core/rps_sock_flow_entries", cur, sizeof(cur)) > 0 && !strcmp(cur, "0"))
		item_add_reason(it, "(RFS needs [net] rps_sock_flow_entries too: 0 now)");
}

static void plan_value(struct ctx *c, struct item *it, const struct nic_key *k, const char *value, const char *cur)
{
	char want[NIC_MASK_CHARS];

	if (k->kind == NK_MASK && !mask_wanted(c, it, value, cur, want, sizeof(want)))
		return;
	if (k->kind != NK_MASK) {
		unsigned long long asked = 0, n;

		parse_u64(value, &asked);
		n = k->kind == NK_FLOWS ? nic_pow2_above((uint32_t)asked) : asked;
		snprintf(want, sizeof(want), "%llu", n);
		/* By number: a value written 0100 is 100, not a rounding. */
		if (n != asked)
			item_add_reason(it, "(asks %s: the kernel keeps the power of two at or above)", value);
		if (k->kind == NK_FLOWS && n)
			rfs_table(c, it);
	}
	item_set(&it->desired, want);
	it->action = same(k, cur, want) ? ACT_KEEP : ACT_CHANGE;
}

/* The item of setting, planned: an earlier one of the plan again, or a new
 * one (NULL: no memory). */
static struct item *plan_file(struct ctx *c, struct nic_iface *ifc, const struct nic_key *k,
			      const struct cfg_entry *e, struct plan *p, const char *setting, int ntx)
{
	struct item *it = nic_add_item(c, p, ifc, setting, e);
	char rel[PATH_MAX], cur[NIC_MASK_CHARS];
	int r;

	if (!it)
		return NULL;
	if (file_of(ifc->name, k, setting, rel, sizeof(rel)) < 0)
		return item_fail(it, -ENAMETOOLONG, "/sys/class/net/%s/%s", ifc->name, setting), it;
	r = root_read(&c->root, rel, cur, sizeof(cur));
	if (r == -ENOENT)
		absent(c, it, k, rel, ntx);
	else if (r < 0)
		item_fail(it, r, "cannot read /%s", rel);
	else if (k->kind == NK_MASK && !same(k, cur, cur))
		item_fail(it, -EBADMSG, "/%s reads '%s', not a CPU mask", rel, cur);
	else {
		item_set(&it->current, cur);
		plan_value(c, it, k, e->value, cur);
	}
	if (it->result == RES_FAILED)
		it->action = ACT_ERROR, it->result = RES_NONE; /* a plan's error, not a write's */
	return it;
}

static void count_one(const char *rel, void *data)
{
	(void)rel;
	++*(int *)data;
}

/* The queues of a kind the interface has now (queues/rx-N, queues/tx-N). */
static int queues(struct ctx *c, const char *ifname, char kind)
{
	char dir[PATH_MAX];
	int n = 0;

	if (pathf(dir, sizeof(dir), "sys/class/net/%s/queues", ifname) < 0)
		return 0;
	root_match(&c->root, dir, kind == 'r' ? "rx-*" : "tx-*", count_one, &n);
	return n;
}

/* Whether the plan changes the interface's channels (planned before). */
static bool channels_change(const struct plan *p, const struct nic_iface *ifc)
{
	for (size_t i = p->n; i-- > 0;)
		if (!strcmp(p->v[i].domain, "nic") && p->v[i].ifindex == ifc->ifindex &&
		    p->v[i].action == ACT_CHANGE && nic_reshapes(p->v[i].setting))
			return true;
	return false;
}

static int plan_queues(struct ctx *c, struct nic_iface *ifc, const struct nic_key *k, const struct cfg_entry *e,
		       struct plan *p, int n, int ntx)
{
	bool again = !c->applying && channels_change(p, ifc);
	char setting[128];
	struct item *it;

	/* The kernel numbers a device's queues from 0, with no gap. */
	for (int q = 0; q < n; q++) {
		snprintf(setting, sizeof(setting), "queues/%s-%d/%s", k->queues == 'r' ? "rx" : "tx", q, k->file);
		if (!(it = plan_file(c, ifc, k, e, p, setting, ntx)))
			return -ENOMEM;
		if (again)
			item_add_reason(it, "(a queue there now: apply reads the queues again once the channels "
					    "change)");
	}
	return 0;
}

int nic_plan_file(struct ctx *c, struct nic_iface *ifc, const struct nic_key *k, const struct cfg_entry *e,
		  struct plan *p)
{
	int n, ntx = queues(c, ifc->name, 't');

	if (!k->queues)
		return plan_file(c, ifc, k, e, p, k->file, ntx) ? 0 : -ENOMEM;
	n = k->queues == 't' ? ntx : queues(c, ifc->name, k->queues);
	if (!n) {
		struct item *it = nic_add_item(c, p, ifc, k->file, e);

		if (!it)
			return -ENOMEM;
		item_unknown(it, "no sys/class/net/%s/queues/%s-N here", ifc->name, k->queues == 'r' ? "rx" : "tx");
		return 0;
	}
	return plan_queues(c, ifc, k, e, p, n, ntx);
}

/* Writes value and reads it back: 0, or the item failed. */
static int write_file(struct ctx *c, struct item *it, const struct nic_key *k, const char *value)
{
	char rel[PATH_MAX], now[NIC_MASK_CHARS];
	int r, got;

	r = file_of(it->target, k, it->setting, rel, sizeof(rel));
	if (r >= 0)
		r = root_write_readback(&c->root, rel, value, now, sizeof(now), &got);
	if (r < 0)
		return item_fail(it, r, "writing %s to /%s", value, rel), r;
	if (got < 0)
		return item_fail(it, got, "reading back /%s", rel), got;
	if (!same(k, now, value)) {
		it->result = RES_FAILED;
		item_setf(&it->error, "the kernel did not keep the value: wrote %s, reads back %s%s", value, now,
			  k->queues == 'r' && k->kind == NK_MASK ? " (RPS leaves out CPUs isolated by isolcpus=)" : "");
		return -EIO;
	}
	it->result = RES_APPLIED;
	return 0;
}

void nic_file_apply(struct ctx *c, struct item *it, const struct nic_key *k)
{
	write_file(c, it, k, it->desired);
}

/* A record's value back when the file holds another; a queue gone since
 * (fewer channels now) has nothing to restore. */
void nic_file_restore(struct ctx *c, struct item *it, const struct nic_key *k, const char *value)
{
	char rel[PATH_MAX], now[NIC_MASK_CHARS];
	int r = file_of(it->target, k, it->setting, rel, sizeof(rel));

	if (r >= 0)
		r = root_read(&c->root, rel, now, sizeof(now));
	if (r == -ENOENT && k->queues) {
		it->action = ACT_SKIP;
		item_setf(&it->reason, "%s has no such queue now: nothing to restore", it->target);
		return;
	}
	if (r >= 0) {
		item_set(&it->current, now);
		it->action = same(k, now, value) ? ACT_KEEP : ACT_CHANGE;
	}
	if (it->action != ACT_KEEP)
		write_file(c, it, k, value);
}
