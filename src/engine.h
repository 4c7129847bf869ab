/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The engine: the plan from the table of domains (plan.c), apply (record →
 * write → read back, apply.c), revert and forget (revert.c), and how their
 * items print (output.c). It knows domains only through their rows.
 */
#pragma once

#include "domain.h"

/* ---- plan.c ---- */
int build_plan(struct ctx *c, struct plan *p);
/* What verify makes of an item: in force, not, or not applicable here. */
enum verdict { V_HOLDS, V_DRIFTED, V_UNMET, V_NA };
enum verdict verdict(const struct item *it);

/* ---- output.c ---- */
const char *dash(const char *s);
const char *scope_name(const struct ctx *c, bool devices, char *buf, size_t size);
void print_json(const struct ctx *c, const struct plan *p, const char *command);
void report(const struct ctx *c, const struct plan *p, const char *command, bool results);
int exit_code(const struct plan *p);

/* ---- revert.c ---- */
bool in_scope(const struct ctx *c, const struct domain *d, const struct record *x, int iface_ifindex);
