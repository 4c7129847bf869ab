/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sched domain: CFS and EEVDF tunables. Its entry points for its row in
 * src/domains.c (among them the [sched] keys that are sysctls up to 5.12,
 * for the sysctl guard).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "earlytune.h"

int sched_check_key(const char *key, const char *value, char *why, size_t size);
int sched_plan(struct ctx *c, struct plan *p);
int sched_apply(struct ctx *c, struct plan *p);
bool sched_batched(const char *setting);
bool sched_claims(const char *path, char *key, size_t size);
int sched_revert(struct ctx *c, struct item **items, const char **values, size_t n);
void sched_sysctls(const struct config *cfg,
		   void (*fn)(const char *key, const struct cfg_entry *e, bool optional, void *data), void *data);
