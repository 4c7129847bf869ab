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
void sysfs_set_claims(sysfs_claim_fn *fn);
int sysfs_check_path(const char *path, char *why, size_t size);
bool sysfs_claimed(const char *rel, char *key, size_t size);
bool sysfs_has_glob(const char *s);

/* expand.c: the files a glob (root-relative, "sys/…") names under the
 * root, sorted; fn gets each. The count, or -errno. */
#define SYSFS_MATCH_MAX 4096
int sysfs_expand(const struct root *r, const char *glob, void (*fn)(const char *rel, void *data), void *data);
/* device.c: where a device's directory is in a path (a glob's too). */
enum { SYSFS_DISK = 1, SYSFS_IFACE = 2 };
struct sysfs_dev {
	int kind;       /* 0: none */
	size_t at, len; /* the device's name in the path */
};
int sysfs_device_path(const char *rel, struct sysfs_dev *d);
int sysfs_iface_name(const struct root *r, int ifindex, char *name, size_t size);

/* 1 when rel resolves to the same file through the root as through its
 * sys/ alone (no link leads out of /sys), 0 when not, -errno. */
int sysfs_confined(const struct root *r, const char *rel);
