/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The net domain: the TCP congestion control and default qdisc sysctls,
 * and the root qdisc of each interface over rtnetlink. Its entry points for
 * its row in domains.c, and what modules/ asks of it (the modules a
 * configured qdisc or congestion control needs).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "earlytune.h"

/* config.c: the row's hooks */
int net_check_key(const char *key, const char *value, char *why, size_t size);
void net_check_conf(struct config *c);
bool net_batched(const char *setting);
int net_revert_batch(struct ctx *c, struct item **items, const char **values, size_t n);
int net_iface_index(const struct root *r, const char *name);
void net_sysctls(const struct config *cfg,
		 void (*emit)(const char *key, const struct cfg_entry *e, bool optional, void *data), void *data);

/* records.c: the row's record hooks */
struct record;
struct records;
int net_record_ifindex(const char *path);
bool net_owns_path(const char *path);
bool net_elsewhere(const struct root *r, const struct record *x);
unsigned long long net_netns(const struct root *r); /* 0: cannot be told */
void net_qdisc_path(struct records *rs, unsigned long long netns, int ifindex, char *out, size_t size);
int net_identity(const struct root *r, const char *setting, const char *path, char *out, size_t size);
int net_stale(const struct root *r, const struct record *x, char *why, size_t size);

/* iface.c: the plan */
int net_plan(struct ctx *c, struct plan *p);
int net_rank(const char *setting);

/* apply.c */
int net_apply_qdiscs(struct ctx *c, struct plan *p);

/* dump.c, sysctl.c */
bool qdisc_is_core(const char *kind);
/* mods_available for a qdisc's (sch_KIND) or a congestion control's
 * (tcp_NAME) module, the kernel's configuration asked too. */
int net_module_available(struct ctx *c, const char *module, char *why, size_t size);
bool net_cc_available(struct ctx *c, const char *name);
int net_ifindex_of(const struct root *r, const char *name); /* sys/class/net/NAME/ifindex: > 0, 0 none, -errno */
