/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `earlytune cmdline`: kernel command-line suggestions and bootloader
 * integration. Its commands for main.c, the check of [cmdline] keys for
 * src/domains.c, and what verify --image asks (image/verify.c, image/initrd.c).
 */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "earlytune.h"

int cmdline_check_key(const char *key, const char *value, char *why, size_t size); /* keys.c */
int cmd_cmdline_suggest(struct ctx *c);
int cmd_cmdline_apply(struct ctx *c, const char *backend, bool update);
int cmd_cmdline_remove(struct ctx *c);
int cmd_cmdline_verify(struct ctx *c);

/* verify --image (boot.c): does what the bootloader reads for kver carry
 * the suggested parameters? *ok, and *why one sentence (malloc'ed) with the
 * command that regenerates what is stale or missing. 0, or -errno. */
int cmdline_image_check(struct ctx *c, const char *kver, bool *ok, char **why);

/* uki.c: the unified kernel images of kver on the ESP. */
#define UKI_MAX 8
struct ukis {
	const struct root *r;
	const char *kver;
	size_t n;
	int err;
	char rel[UKI_MAX][PATH_MAX]; /* after an error: rel[0], the path that failed */
};
int uki_find(const struct root *r, const char *kver, struct ukis *u); /* count, or -errno */
