// SPDX-License-Identifier: LGPL-2.1-or-later
/* Built-in profiles, in the configuration's own syntax. The comment above a
 * key is its reason: plan output prints it. Numbers cite measurements.md. */
#include <stdio.h>
#include <string.h>

#include "config/config.h"

/* vps sets no [sched] value: the kernel's defaults scale with the CPUs
 * online, which a fixed number would stop, and no scheduler value has been
 * measured on a VPS yet. */
#define PROFILE_VPS \
	"[modules]\n" \
	"# BBR and fq must be loaded before the sysctls can name them (autoload needs CAP_NET_ADMIN and a working modprobe)\n" \
	"load = tcp_bbr sch_fq\n" \
	"[net]\n" \
	"# bbr/fq moved 93.7 Mbit/s where cubic/pfifo moved 3.2 on a 50 ms, 1% loss path (29x)\n" \
	"congestion_control = bbr\n" \
	"# fq paces BBR flows per socket; default_qdisc alone misses NICs that are already up\n" \
	"qdisc = fq\n" \
	"[thp]\n" \
	"# huge pages only where a program asks (madvise): no latency spikes or bloat for programs that did not\n" \
	"enabled = madvise\n" \
	"# never stall a page fault on compaction unless the program asked for huge pages\n" \
	"defrag = defer+madvise\n" \
	"[block \"virtual\"]\n" \
	"match.class = virtual nvme\n" \
	"# the host (a hypervisor-served disk) or the device (NVMe with more than one hardware queue) already schedules: none costs the least CPU\n" \
	"scheduler = none mq-deadline\n" \
	"# cap at 1024: random mmap reads fell 7.7x from 8192 while sequential requests grew 8%; raise below 128\n" \
	"read_ahead_kb = 128..1024\n" \
	"[block \"nvme-one-queue\"]\n" \
	"match.class = nvme\n" \
	"match.hw_queues = 1\n" \
	"# a single hardware queue: the kernel's own choice, mq-deadline, bounds latency; none is for more queues or a hypervisor-served disk\n" \
	"scheduler = mq-deadline none\n" \
	"[block \"ssd\"]\n" \
	"match.class = ssd\n" \
	"# mq-deadline bounds latency under mixed load on SATA/SAS SSDs at little CPU cost\n" \
	"scheduler = mq-deadline none\n" \
	"# cap at 1024: random mmap reads fell 7.7x from 8192 while sequential requests grew 8%; raise below 128\n" \
	"read_ahead_kb = 128..1024\n" \
	"[cmdline \"ec2-nvme\"]\n" \
	"match.platform = aws\n" \
	"match.disk = nvme*\n" \
	"# EBS volumes are NVMe devices: the 30 s default timeout turns a slow volume into I/O errors (AWS guidance)\n" \
	"add = nvme_core.io_timeout=4294967295\n" \
	"[cmdline \"gce-nvme\"]\n" \
	"match.platform = gce\n" \
	"match.disk = nvme*\n" \
	"# Persistent Disk on NVMe: the same guidance as EBS (Google's guest environment sets it)\n" \
	"add = nvme_core.io_timeout=4294967295\n" \
	"[block \"hdd\"]\n" \
	"match.class = hdd\n" \
	"# seeks dominate on spinning disks: bfq keeps interactive latency fair, mq-deadline is the fallback\n" \
	"scheduler = bfq mq-deadline\n" \
	"# spinning disks pay a seek per request: larger sequential reads, at least 1 MiB\n" \
	"read_ahead_kb = 1024..4096\n" \
	"[block \"raid\"]\n" \
	"match.class = raid\n" \
	"# a hardware RAID volume spans spindles behind the controller's cache and queue: bfq would serialise it; mq-deadline is what the vendors and distributions use\n" \
	"scheduler = mq-deadline none\n" \
	/* The filesystem on an LV, a LUKS map or md reads ahead through that \
	 * device, not the disk: it gets the cap of the disks it sits on. It has \
	 * no scheduler, so none is set. */ \
	"[block \"stacked-virtual\"]\n" \
	"match.class = stacked\n" \
	"match.slave_class = virtual nvme\n" \
	"# the filesystem reads ahead through this device, not the disks: the same cap as the virtual or NVMe disks under it\n" \
	"read_ahead_kb = 128..1024\n" \
	/* dm only: md sets its own read-ahead from the stripe width. */ \
	"[block \"stacked-ssd\"]\n" \
	"match.class = stacked\n" \
	"match.name = dm-*\n" \
	"match.slave_class = ssd\n" \
	"# the filesystem reads ahead through this map (multipath, LV, LUKS), not the SSD paths: the same cap as they get\n" \
	"read_ahead_kb = 128..1024\n" \
	"[block \"stacked-hdd\"]\n" \
	"match.class = stacked\n" \
	"match.name = dm-*\n" \
	"match.slave_class = hdd\n" \
	"# the filesystem reads ahead through this map (multipath, LV, LUKS), not the spinning paths: at least 1 MiB as they get\n" \
	"read_ahead_kb = 1024..4096\n"

/* The scheduler's knobs differ by kernel: each profile names both CFS's
 * (up to 6.5) and EEVDF's (6.6+); the plan writes the ones the target kernel
 * has and says of the others that they are for the other scheduler. Values
 * are absolute: the kernel's defaults are multiplied by 1 + log2(CPUs), up
 * to 4 (12 ms latency_ns on 2 CPUs). Their effect is not measured yet. */
static const char profile_vps[] = PROFILE_VPS;

static const char profile_latency[] = PROFILE_VPS
	"[sched]\n"
	"# CFS: the period in which each runnable task runs once; 4 ms (default 6 ms x the CPU factor) brings a waiting task back sooner, at more switches\n"
	"latency_ns = 4000000\n"
	"# CFS: the least a task runs before it can be preempted; 0.5 ms (default 0.75 ms x the CPU factor), latency_ns / 8 as the default keeps\n"
	"min_granularity_ns = 500000\n"
	"# CFS: how far ahead a woken task must be to preempt the running one; 0.5 ms (default 1 ms x the CPU factor): wakeups preempt sooner\n"
	"wakeup_granularity_ns = 500000\n"
	"# EEVDF: the slice a task asks for; 0.5 ms (default 0.75 ms x the CPU factor, 0.70 ms from 6.12) gives earlier deadlines, so a woken task runs sooner\n"
	"base_slice_ns = 500000\n";

static const char profile_throughput[] = PROFILE_VPS
	"[sched]\n"
	"# CFS: a 24 ms period (default 6 ms x the CPU factor) lets each task run longer between switches: fewer context switches, warmer caches\n"
	"latency_ns = 24000000\n"
	"# CFS: a task runs at least 3 ms before it can be preempted (default 0.75 ms x the CPU factor): batch work is cut up less\n"
	"min_granularity_ns = 3000000\n"
	"# CFS: a woken task must be 4 ms ahead to preempt the running one (default 1 ms x the CPU factor): fewer preemptions\n"
	"wakeup_granularity_ns = 4000000\n"
	"# EEVDF: a 3 ms slice (default 0.75 ms x the CPU factor, 0.70 ms from 6.12): longer runs between switches, later deadlines for wakeups\n"
	"base_slice_ns = 3000000\n"
	"# a task that ran in the last 5 ms counts as cache-hot (default 0.5 ms): load balancing moves it less and its cache stays warm\n"
	"migration_cost_ns = 5000000\n";

static const struct {
	const char *name, *text;
} profiles[] = {
	{ "vps", profile_vps },
	{ "latency", profile_latency },
	{ "throughput", profile_throughput },
	{ "none", "" },
};

const char *profile_text(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(profiles); i++)
		if (!strcmp(profiles[i].name, name))
			return profiles[i].text;
	return NULL;
}

/* The names of the table's rows, space-separated: --help, the error of an
 * unknown name and its "did you mean" read the same list as the lookup. */
const char *profile_names(void)
{
	static char names[128];

	if (!*names)
		for (size_t i = 0; i < ARRAY_SIZE(profiles); i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", i ? " " : "",
				 profiles[i].name);
	return names;
}
