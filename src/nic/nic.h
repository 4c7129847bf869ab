/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The NIC domain: [net "NAME"] sections, matched to interfaces by name and
 * driver, setting queues (channels), rings, offloads and interrupt
 * coalescing over ethtool's generic netlink family. Its row's hooks, for
 * src/domains.c.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "earlytune.h"

struct record;

/* conf.c */
int nic_check_key(const char *key, const char *value, char *why, size_t size);
bool nic_claims(const char *path, char *key, size_t size);

/* match.c: an interface's driver as match.driver and udev's .link Driver=
 * see it: its device/driver link, else (the running system's virtual
 * interfaces) the name ethtool -i gives; "" when it has none. */
void nic_driver(const struct root *r, const char *name, char *out, size_t size);

/* mask.c: CPU masks as rps_cpus and xps_cpus print them (pure, fuzzed);
 * the other writers' readers (writers/) compare theirs by them too. */
#define NIC_MASK_WORDS 256  /* 8192 CPUs, CONFIG_NR_CPUS's most */
#define NIC_MASK_CHARS 2560 /* its hex digits and commas */
struct nic_mask {
	uint32_t w[NIC_MASK_WORDS];
};
int nic_mask_parse(const char *s, struct nic_mask *m, char *why, size_t size);
bool nic_mask_equal(const struct nic_mask *a, const struct nic_mask *b);
int nic_mask_last(const struct nic_mask *m);
int nic_mask_count(const struct nic_mask *m); /* its CPUs */
int nic_mask_outside(const struct nic_mask *a, const struct nic_mask *b);
int nic_mask_format(const struct nic_mask *m, const char *like, char *out, size_t size);
int nic_mask_from_list(const char *s, struct nic_mask *m);
int nic_mask_add_list(const char *s, struct nic_mask *m); /* m with the list's CPUs added */
int nic_mask_hex(const struct nic_mask *m, char *out, size_t size);

/* plan.c */
int nic_plan(struct ctx *c, struct plan *p);

/* apply.c */
void nic_apply(struct ctx *c, struct item *it);
bool nic_batched(const char *setting);

/* item.c */
bool nic_reshapes(const char *setting);
int nic_revert_batch(struct ctx *c, struct item **items, const char **values, size_t n);

/* records.c */
int nic_record_ifindex(const char *path);
int nic_iface_index(const struct root *r, const char *name);
bool nic_owns_path(const char *path);
bool nic_elsewhere(const struct root *r, const struct record *x);
int nic_identity(const struct root *r, const char *setting, const char *path, char *out, size_t size);
int nic_stale(const struct root *r, const struct record *x, char *why, size_t size);
