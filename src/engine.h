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
enum verdict item_verdict(const struct item *it);

/* ---- output.c ---- */
const char *dash(const char *s);
const char *scope_name(const struct ctx *c, bool devices, char *buf, size_t size);
const char *action_name(enum action a);
const char *result_name(enum result r);
void print_json(const struct ctx *c, const struct plan *p, const char *command, bool verify);
void report(const struct ctx *c, const struct plan *p, const char *command, bool results);
int exit_code(const struct plan *p);

/* ---- jsoncmd.c ---- */
void config_json(const struct ctx *c);
void sysctl_conf_json(const struct ctx *c);
void modules_json_add(struct strbuf *sb, const char *name, const char *state, const struct cfg_entry *why,
		      const char *src);
void modules_json_end(const struct ctx *c, struct strbuf *mods, unsigned missing);
void forget_json(const struct ctx *c, const char *what, size_t dropped);
void print_json_error(const struct ctx *c, const char *command, int code);

/* ---- table.c ---- */
int table_columns(void);
void print_table(const struct plan *p, bool results, int columns);

/* ---- revert.c ---- */
bool in_scope(const struct ctx *c, const struct domain *d, const struct record *x, int iface_ifindex);
