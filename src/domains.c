// SPDX-License-Identifier: LGPL-2.1-or-later
/* The table of domains, above the domains it lists and the engine that
 * reads it, in plan order: modules first, since later items name
 * the modules they need (tcp_bbr, sch_fq, the I/O schedulers). */
#include <string.h>

#include "block/block.h"
#include "net/net.h"
#include "nic/nic.h"
#include "thp/thp.h"
#include "sched/sched.h"
#include "limits/limits.h"
#include "sysfs/sysfs.h"
#include "modules/modules.h"
#include "image/image.h"
#include "cmdline/cmdline.h"
#include "engine/domain.h"
#include "engine/state.h"

const struct domain domains[] = {
	{
		.name = "modules", .bit = DOM_MODULES,
		.section = { "modules", false, modules_check_key, NULL },
		.plan = modules_plan, .apply = modules_apply, .irreversible = true,
	},
	{
		.name = "thp", .bit = DOM_THP,
		.section = { "thp", false, thp_check_key, NULL },
		.plan = thp_plan, .claims = thp_claims,
	},
	{
		/* Before net: a change of channels recreates the queues; apply
		 * writes it first and plans again, so that RPS, XPS and the
		 * qdisc items of the interface are about the queues there are. */
		.name = "nic", .bit = DOM_NIC,
		.section = { "net", true, nic_check_key, NULL },
		.plan = nic_plan, .apply = nic_apply, .batched = nic_batched, .revert_batch = nic_revert_batch,
		.reshapes = nic_reshapes, .claims = nic_claims,
		.ifindex = nic_record_ifindex, .iface_index = nic_iface_index, .identity = nic_identity,
		.stale = nic_stale, .owns_path = nic_owns_path, .elsewhere = nic_elsewhere,
	},
	{
		.name = "net", .bit = DOM_NET,
		.section = { "net", false, net_check_key, net_check_conf },
		.plan = net_plan, .apply_batch = net_apply_qdiscs, .rank = net_rank,
		.batched = net_batched, .revert_batch = net_revert_batch,
		.ifindex = net_record_ifindex, .iface_index = net_iface_index,
		.identity = net_identity, .stale = net_stale, .owns_path = net_owns_path,
		.elsewhere = net_elsewhere,
		.sysctls = net_sysctls, .owns_guard = true,
	},
	{
		.name = "block", .bit = DOM_BLOCK,
		.section = { "block", true, block_check_key, NULL },
		.plan = block_plan, .rank = block_rank, .gone = block_gone, .disks = true,
		.identity = block_identity, .claims = block_claims,
	},
	{
		/* Reads the image of the kernel; apply writes nothing of it. */
		.name = "initramfs", .bit = DOM_INITRAMFS,
		.plan = initramfs_plan, .irreversible = true, .report_only = true,
	},
	{
		.name = "limits", .bit = DOM_LIMITS,
		.section = { "limits", true, limits_check_key, limits_check_conf },
		.plan = limits_plan, .apply_batch = limits_apply, .batched = limits_batched,
		.revert_batch = limits_revert, .owns_path = limits_owns_path,
	},
	{
		/* debugfs knobs go through apply_batch: it mounts debugfs for them. */
		.name = "sched", .bit = DOM_SCHED,
		.section = { "sched", false, sched_check_key, NULL },
		.plan = sched_plan, .apply_batch = sched_apply, .batched = sched_batched,
		.revert_batch = sched_revert, .sysctls = sched_sysctls, .claims = sched_claims,
	},
	{
		/* Last: an attribute a module of the modules row brings is there by now. */
		.name = "sysfs", .bit = DOM_SYSFS,
		.section = { "sysfs", true, sysfs_check_key, sysfs_check_conf },
		.plan = sysfs_plan, .identity = sysfs_identity, .device_of = sysfs_device_of,
		.ifindex = sysfs_record_ifindex, .owns_path = sysfs_owns_path, .elsewhere = sysfs_elsewhere,
		.record_path = sysfs_record_path, .record_file = sysfs_record_file,
	},
};
const size_t ndomains = ARRAY_SIZE(domains);

/* Sections of the configuration that belong to no domain of the plan. */
static const struct cfg_section cmdline_section = { "cmdline", true, cmdline_check_key, NULL };

const struct domain *domain_find(const char *name)
{
	/* Asked a few times for each item, a domain's items in a row: 20,000
	 * scans of the table for a 1,000-disk apply. */
	static const struct domain *last;

	if (last && (last->name == name || !strcmp(last->name, name)))
		return last;
	for (size_t i = 0; i < ndomains; i++)
		if (!strcmp(domains[i].name, name))
			return last = &domains[i];
	return NULL;
}

void domains_sysctls(const struct config *cfg,
		     void (*emit)(const char *key, const struct cfg_entry *e, bool optional, void *data), void *data)
{
	for (size_t i = 0; i < ndomains; i++)
		if (domains[i].sysctls)
			domains[i].sysctls(cfg, emit, data);
}

unsigned domains_implied(const struct ctx *c)
{
	unsigned bits = 0;

	for (size_t i = 0; i < ndomains; i++)
		if (domains[i].device_of || (c->ndevices ? domains[i].disks
						     : (c->ifindex || c->iface) ? !!domains[i].iface_index : true))
			bits |= domains[i].bit;
	return bits;
}

unsigned domains_all(void)
{
	unsigned all = 0;

	for (size_t i = 0; i < ndomains; i++)
		all |= domains[i].bit;
	return all;
}

/* The [sysfs] sections' check: the key of the domain that writes path. */
static bool domains_claim(const char *path, char *key, size_t size)
{
	for (size_t i = 0; i < ndomains; i++)
		if (domains[i].claims && domains[i].claims(path, key, size))
			return true;
	return false;
}

/* The configuration reader and the records know no domain: the reader is
 * handed their sections, the records the lookup of their rows, before
 * main() (and before any test) runs. */
__attribute__((constructor)) static void register_sections(void)
{
	static const struct cfg_section *v[ARRAY_SIZE(domains) + 1];
	size_t n = 0;

	for (size_t i = 0; i < ndomains; i++)
		if (domains[i].section.name)
			v[n++] = &domains[i].section;
	v[n++] = &cmdline_section;
	config_register(v, n);
	sysfs_set_hooks(domains_claim, block_identity);
	state_register(domains, ndomains);
}
