/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sysfs domain: [sysfs "NAME"] sections, the escape hatch for a sysfs
 * attribute no other domain sets (path = /sys/… globs, value = …), with
 * every other item's guarantees: recorded, read back, verified, reverted.
 * Its entry points for its row in src/domains.c.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "earlytune.h"

/* Whether one of earlytune's domains writes the file at path ("sys/…",
 * relative to the root, or a glob of such paths): then key names what to
 * set instead ("[block] scheduler"). The table of domains hands it over at
 * start, as it hands the configuration its sections. */
typedef bool sysfs_claim_fn(const char *path, char *key, size_t size);
/* The identity of the disk whose directory holds path ([block]'s). */
typedef int sysfs_identity_fn(const struct root *r, const char *setting, const char *path, char *out, size_t size);
void sysfs_set_hooks(sysfs_claim_fn *claims, sysfs_identity_fn *disk_identity); /* device.c */

int sysfs_check_key(const char *key, const char *value, char *why, size_t size); /* conf.c */
void sysfs_check_conf(struct config *c);                                        /* conf.c */
int sysfs_plan(struct ctx *c, struct plan *p);                                  /* plan.c */
struct record;
/* device.c: the row's records hooks */
void sysfs_device_of(const struct record *x, char *disk, size_t size, int *ifindex);
int sysfs_record_ifindex(const char *path);
bool sysfs_owns_path(const char *path);
bool sysfs_elsewhere(const struct root *r, const struct record *x);
int sysfs_record_path(const struct root *r, const struct item *it, char *out, size_t size);
int sysfs_record_file(const struct root *r, const struct record *x, char *out, size_t size);
int sysfs_identity(const struct root *r, const char *setting, const char *path, char *out, size_t size);
