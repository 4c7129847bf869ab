/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `earlytune cmdline`: kernel command-line suggestions and bootloader
 * integration. Its commands for main.c, the check of [cmdline] keys for
 * engine/domains.c, and what verify --image asks (image/verify.c).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "earlytune.h"

int cmdline_check_key(const char *key, const char *value, char *why, size_t size); /* keys.c */
int cmd_cmdline_suggest(struct ctx *c);
int cmd_cmdline_apply(struct ctx *c, const char *backend, bool update);
int cmd_cmdline_remove(struct ctx *c);
int cmd_cmdline_verify(struct ctx *c);
int cmdline_missing(struct ctx *c, char **missing, char *backend, size_t size);
