/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The engine's own: what its files (plan.c, apply.c, revert.c, output.c,
 * table.c, jsoncmd.c, metrics.c, status.c) share among themselves. Only
 * engine/ includes it.
 */
#pragma once

#include "engine/engine.h"
#include "engine/domain.h"
#include "engine/item.h"
#include "engine/state.h"

/* ---- plan.c ---- */
int build_plan(struct ctx *c, struct plan *p, bool applying);
/* What verify makes of an item: in force, not, not applicable here,
 * unknown (the tree does not show whether this kernel can give it), or not
 * applied (a value earlytune has not set: it has not run since boot, or the
 * system was reverted). */
enum verdict { V_HOLDS, V_DRIFTED, V_UNMET, V_NA, V_UNKNOWN, V_NOT_APPLIED, V_COUNT };
enum verdict item_verdict(const struct item *it);
enum verdict plan_verdict(const struct plan *p, const struct item *it);
const char *verdict_name(enum verdict v);

/* ---- output.c ---- */
const char *dash(const char *s);
const char *scope_name(const struct ctx *c, bool devices, char *buf, size_t size);
const char *action_name(enum action a);
const char *result_name(enum result r);
void print_json(const struct ctx *c, const struct plan *p, const char *command, bool verify);
void report(const struct ctx *c, const struct plan *p, const char *command, bool results);
int exit_code(const struct plan *p);

/* ---- jsoncmd.c ---- */
void forget_json(const struct ctx *c, const char *what, size_t dropped);

/* ---- table.c, rows.c ---- */
/* collapse: alike skips of many devices as one row each (not --verbose). */
void print_table(const struct plan *p, bool results, int columns, bool collapse);
struct rows {
	/* The plan's items, pointed at: a copy of each touched as much memory
	 * again as the plan (352 KB, 86 page faults for 1,000 disks). */
	const struct item **v;
	size_t n;
	struct item *groups; /* the group rows */
	size_t ngroups;
	char **owned;        /* the group rows' targets and reasons */
	size_t nowned;
};
int rows_build(struct rows *r, const struct plan *p, bool collapse);
void rows_free(struct rows *r);
