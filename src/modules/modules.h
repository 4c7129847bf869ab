/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The modules domain ([modules]: load, options) and the `modules` command.
 * Its entry points for its row in src/domains.c, and the command for
 * main.c.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "earlytune.h"

int modules_check_key(const char *key, const char *value, char *why, size_t size);
bool module_name_valid(const char *w);
int modules_plan(struct ctx *c, struct plan *p);
void modules_apply(struct ctx *c, struct item *it);
int cmd_modules(struct ctx *c, bool check);
