/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sched domain's own header (sched.c, debugfs.c; and its unit tests):
 * CFS and EEVDF tunables named in the user's vocabulary (latency_ns,
 * base_slice_ns, ...) and mapped to what the target kernel has: sysctl
 * kernel.sched_* up to 5.12, debugfs sched/ from 5.13, EEVDF's set from 6.6.
 */
#pragma once

#include "engine/item.h"
#include "sched/sched.h"

#define SCHED_DEBUGFS "sys/kernel/debug"
#define SCHED_DIR SCHED_DEBUGFS "/sched"

enum sched_via { SV_SKIP, SV_SYSCTL, SV_DEBUGFS };

/* Where a key lives on one kernel: the sysctl (kernel.sched_latency_ns) or
 * debugfs file (sched/latency_ns) and its path; or why it has none, with
 * the nearest knob that exists. */
struct sched_map {
	enum sched_via via;
	char setting[64];
	char path[96];
	const char *why; /* SV_SKIP */
	bool hotplug;    /* the kernel recomputes it when a CPU comes online */
};
int sched_map(const char *key, unsigned version, struct sched_map *m); /* 0, -EINVAL unknown key */
bool sched_is_debugfs(const char *setting);

/* debugfs.c: debugfs mounted for one command and only when needed. */
struct sched_mount {
	bool ours;  /* earlytune mounted it: it unmounts it */
	int err;    /* the mount failed: -errno, said by the items */
	bool no_mount; /* plan: use a mount that is there, else -ENODEV */
};
int sched_debugfs_get(const struct root *r, struct sched_mount *m);
void sched_debugfs_put(const struct root *r, struct sched_mount *m);
/* "debugfs is locked down (Secure Boot?)" for EPERM, else strerror. */
const char *sched_errstr(int err);
int sched_write(const struct root *r, struct item *it, const char *value);
