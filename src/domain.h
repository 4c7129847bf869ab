/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A domain (modules, thp, net, block, limits, sched) is one row of the table in domains.c.
 * The command line (--only, --help), the configuration reader (its section
 * and key check), the plan, apply, revert and the records know a domain only
 * through its row: a new domain is its own file plus one row.
 */
#pragma once

#include "earlytune.h"

struct domain {
	const char *name;  /* --only, the DOMAIN column, the records' first field */
	unsigned bit;      /* DOM_*: its bit in ctx.only */
	struct cfg_section section; /* the configuration section it reads (name NULL: none) */
	int (*plan)(struct ctx *c, struct plan *p);

	/* apply: items the engine does not write as files (kind other than
	 * ITEM_FILE) go to the domain, one at a time or, with apply_batch, all
	 * of the plan's at once at the first one's turn. */
	void (*apply)(struct ctx *c, struct item *it);
	int (*apply_batch)(struct ctx *c, struct plan *p);
	bool irreversible; /* revert undoes none of it: no originals are recorded */

	/* revert */
	int (*rank)(const char *setting);         /* order inside a target, apply's; NULL: 0 */
	const char *(*gone)(const char *setting); /* why a recorded attribute gone since is
						   * not a failure, or NULL */
	bool (*batched)(const char *setting);     /* that record goes back through revert_batch */
	int (*revert_batch)(struct ctx *c, struct item **items, const char **values, size_t n);

	/* The records a command about one disk or interface touches. */
	bool disks; /* targets are disks (--device): apply first drops the records
		     * of a disk that is gone or another disk now */
	int (*ifindex)(const char *setting, const char *path); /* a record's interface, or 0 */
	int (*iface_index)(const struct root *r, const char *name); /* --iface's index now, or 0 */
};

/* ---- the domains' entry points: domains.c puts them in its table ---- */
/* Config key checks: 0 when valid, else -EINVAL with why set. */
int block_check_key(const char *key, const char *value, char *why, size_t size);
int thp_check_key(const char *key, const char *value, char *why, size_t size);
int net_check_key(const char *key, const char *value, char *why, size_t size);
void net_check_conf(struct config *c);
int modules_check_key(const char *key, const char *value, char *why, size_t size);
bool module_name_valid(const char *w);

int block_plan(struct ctx *c, struct plan *p);
int block_rank(const char *setting);
const char *block_gone(const char *setting);
int thp_plan(struct ctx *c, struct plan *p);
int modules_plan(struct ctx *c, struct plan *p);
void modules_apply(struct ctx *c, struct item *it);
int net_plan(struct ctx *c, struct plan *p);
int net_rank(const char *setting);
bool qdisc_is_core(const char *kind);
bool net_cc_available(struct ctx *c, const char *name);
int net_ifindex_of(const struct root *r, const char *name); /* sys/class/net/NAME/ifindex: > 0, 0 none, -errno */
int net_apply_qdiscs(struct ctx *c, struct plan *p);
int net_revert_qdiscs(struct ctx *c, struct item **items, const char **values, size_t n);
bool net_batched(const char *setting);
int net_revert_batch(struct ctx *c, struct item **items, const char **values, size_t n);
int net_iface_index(const struct root *r, const char *name);
int initramfs_plan(struct ctx *c, struct plan *p);
int limits_check_key(const char *key, const char *value, char *why, size_t size);
void limits_check_conf(struct config *c);
int limits_plan(struct ctx *c, struct plan *p);
int limits_apply(struct ctx *c, struct plan *p);
bool limits_batched(const char *setting);
int limits_revert(struct ctx *c, struct item **items, const char **values, size_t n);
int sched_check_key(const char *key, const char *value, char *why, size_t size);
int sched_plan(struct ctx *c, struct plan *p);
int sched_apply(struct ctx *c, struct plan *p);
bool sched_batched(const char *setting);
int sched_revert(struct ctx *c, struct item **items, const char **values, size_t n);

extern const struct domain domains[];
extern const size_t ndomains;
const struct domain *domain_find(const char *name); /* NULL: no such domain */
unsigned domains_all(void);
