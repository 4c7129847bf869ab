/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sysfs domain's own header (conf.c, plan.c, expand.c; and its unit
 * tests).
 */
#pragma once

#include "sysfs/sysfs.h"

/* The longest value earlytune writes or keeps as an original: its
 * read-back buffer is 256 bytes. */
#define SYSFS_VALUE_MAX 240

/* conf.c */
int sysfs_check_path(const char *path, char *why, size_t size);
bool sysfs_claimed(const char *rel, char *key, size_t size);
bool sysfs_has_glob(const char *s);

/* expand.c: the files a glob (root-relative, "sys/…") names under the
 * root, sorted; fn gets each. The count, or -errno. */
#define SYSFS_MATCH_MAX 4096
int sysfs_expand(const struct root *r, const char *glob, void (*fn)(const char *rel, void *data), void *data);
/* 1 when rel resolves to the same file through the root as through its
 * sys/ alone (no link leads out of /sys), 0 when not, -errno. */
int sysfs_confined(const struct root *r, const char *rel);
