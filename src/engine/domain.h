/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A domain (modules, thp, net, block, limits, sched) is one row of the table in domains.c.
 * The command line (--only, --help), the configuration reader (its section
 * and key check), the plan, apply, revert and the records know a domain only
 * through its row: a new domain is its own folder plus one row. For the
 * engine's files and main.c; each domain declares the functions of its row
 * in its own header (block/block.h, net/net.h, ...), which domains.c
 * includes.
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

/* ---- domains.c: the table ---- */
extern const struct domain domains[];
extern const size_t ndomains;
const struct domain *domain_find(const char *name); /* NULL: no such domain */
unsigned domains_all(void);
