/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The limits domain: resource limits of systemd services, as drop-ins. Its
 * entry points for its row in domains.c.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "earlytune.h"

#define LIMITS_DROPIN "50-earlytune-limits.conf"

int limits_check_key(const char *key, const char *value, char *why, size_t size); /* conf.c */
void limits_check_conf(struct config *c);                                        /* conf.c */
int limits_plan(struct ctx *c, struct plan *p);                                  /* limits.c */
int limits_apply(struct ctx *c, struct plan *p);                                 /* apply.c */
bool limits_batched(const char *setting);                                        /* apply.c */
int limits_revert(struct ctx *c, struct item **items, const char **values, size_t n); /* apply.c */
bool limits_owns_path(const char *path);                                         /* apply.c */
