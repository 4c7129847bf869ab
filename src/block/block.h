/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The block domain: disks, their class, the [block] sections that match
 * them, their scheduler and queue attributes. Its entry points for its row
 * in src/domains.c, and the module of a scheduler for modules/.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "earlytune.h"

/* Config key check: 0 when valid, else -EINVAL with why set (config.c). */
int block_check_key(const char *key, const char *value, char *why, size_t size);
int block_plan(struct ctx *c, struct plan *p); /* disks.c */
int block_rank(const char *setting);           /* config.c */
const char *block_gone(const char *setting);   /* config.c */
bool block_claims(const char *path, char *key, size_t size); /* config.c */

/* The module that provides a blk-mq scheduler, or NULL (none is built in). */
const char *block_sched_module(const char *sched);

/* The identity of the disk of a queue attribute: "diskseq:N" or "dev:HASH"
 * (identity.c); -ENOENT: the disk is gone. */
int block_identity(const struct root *r, const char *setting, const char *path, char *out, size_t size);
