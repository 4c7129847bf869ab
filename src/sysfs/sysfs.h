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
void sysfs_set_claims(sysfs_claim_fn *fn);

int sysfs_check_key(const char *key, const char *value, char *why, size_t size); /* conf.c */
void sysfs_check_conf(struct config *c);                                        /* conf.c */
int sysfs_plan(struct ctx *c, struct plan *p);                                  /* plan.c */
