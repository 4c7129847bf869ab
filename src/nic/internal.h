/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The NIC domain's own: its keys (one row each), an interface as the plan
 * sees it, and the ethtool generic netlink messages (ethtool.c builds and
 * parses them, io.c sends them, ioctl.c is the SIOCETHTOOL way of kernels
 * without the family). Only nic/ and its tests include it. */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/netlink.h"
#include "engine/item.h"
#include "nic/nic.h"

/* What a key sets, which says how its value is read and written. */
enum nic_group { NG_CHANNELS, NG_RINGS, NG_FEATURES, NG_COALESCE, NG_COUNT };
/* A key of a sysfs file: no ethtool group (never an index of nic_iface.g). */
#define NG_FILE NG_COUNT
/* Its values: a count (N, max, and for channels cpus), on/off, a number,
 * a CPU mask (hex, all, none), a flow count (the kernel keeps a power of 2). */
enum nic_kind { NK_COUNT, NK_COUNT_CPUS, NK_ONOFF, NK_U32, NK_BOOL, NK_MASK, NK_FLOWS };

/* A key of [net "NAME"]: name (a prefix ending in '.' takes any word after
 * it, offload.NAME), its kind and group, the ethtool attribute of its
 * value and of the device's maximum (0: none). A key of a sysfs file has
 * its own plan, the file's name and where it is: the interface's
 * directory, or every queue's (queues 'r': queues/rx-N, 't': queues/tx-N). */
struct nic_iface;
struct nic_key {
	const char *name;
	enum nic_kind kind;
	enum nic_group group;
	uint16_t attr, max_attr;
	int (*plan)(struct ctx *c, struct nic_iface *ifc, const struct nic_key *k, const struct cfg_entry *e,
		    struct plan *p);
	const char *file;
	char queues;
};
extern const struct nic_key nic_keys[];
const struct nic_key *nic_key_find(const char *key);
/* The key of an item's setting: a queue's (queues/rx-0/rps_cpus) is its file's. */
const struct nic_key *nic_setting_key(const char *setting);

#define NIC_ATTRS 40     /* attributes of a group's reply kept, by type */
#define NIC_FEATURES 160 /* features kept (the kernel has 64 at most today) */

struct nic_feature {
	char name[40];
	bool hw, active, nochange; /* changeable, on, never changeable */
};

/* A group as the kernel answered: err (-EOPNOTSUPP: the driver has none),
 * each attribute's value where the reply has it. */
struct nic_values {
	bool read;
	int err;
	char msg[160];
	uint64_t have; /* bit per attribute type present */
	uint32_t v[NIC_ATTRS];
};

struct nic_features {
	struct nic_feature v[NIC_FEATURES];
	size_t n;
};

/* One interface: its identity, what its sections ask (entry per key, the
 * last matching section's), what the kernel answered. */
struct nic_iface {
	int ifindex;
	char name[IF_NAMESIZE + 1];
	char driver[64];
	unsigned long long netns;
	struct nic_values g[NG_COUNT];
	struct nic_features *feat;
	int feat_err;
	char feat_msg[160];
};

/* conf.c */
bool nic_feature_known(const char *name);
/* The kernel features an ethtool word names (its own, or an alias of the
 * ethtool command: generic-receive-offload is rx-gro), NULL-terminated. */
const char *const *nic_feature_expand(const char *name, const char **one);

/* match.c */
/* Whether the entries of section name match the interface. */
bool nic_section_matches(struct ctx *c, const struct nic_iface *ifc, const char *name);
void nic_iface_driver(const struct root *r, struct nic_iface *ifc);
int nic_online_mask(const struct root *r, struct nic_mask *m, char *list, size_t size);
int nic_online_cpus(const struct root *r);

/* ethtool.c: messages of the ethtool family (pure, fuzzed) */
#define NIC_MSG_MAX 1024
int nic_put_family(struct nl_batch *b, uint32_t seq);
int nic_parse_family(const struct nlmsghdr *h, uint16_t *id);
int nic_put_get(struct nl_batch *b, uint32_t seq, uint16_t family, enum nic_group g, int ifindex);
int nic_put_set(struct nl_batch *b, uint32_t seq, uint16_t family, enum nic_group g, int ifindex, uint16_t attr,
		uint32_t value, bool u8);
int nic_put_feature(struct nl_batch *b, uint32_t seq, uint16_t family, int ifindex, const char *name, bool on);
int nic_parse_values(const struct nlmsghdr *h, struct nic_values *out);
int nic_parse_features(const struct nlmsghdr *h, struct nic_features *out);
const struct nic_feature *nic_feature_of(const struct nic_features *f, const char *name);
bool nic_attr_u8(enum nic_group g, uint16_t attr);

/* io.c: over the family, or the ioctl where it is absent */
int nic_read(struct nic_iface *ifc, enum nic_group g);
int nic_write(struct nic_iface *ifc, const struct nic_key *k, const char *feature, uint32_t value, char *msg,
	      size_t size);
void nic_io_reset(void); /* tests: forget the socket and the family */

/* ioctl.c: SIOCETHTOOL, channels, rings, coalescing, features */
int nic_ioctl_read(const char *ifname, enum nic_group g, struct nic_values *out);
int nic_ioctl_write(const char *ifname, enum nic_group g, uint16_t attr, uint32_t value);
int nic_ioctl_driver(const char *ifname, char *out, size_t size);
int nic_ioctl_features(const char *ifname, struct nic_features *out);
int nic_ioctl_feature(const char *ifname, const char *name, bool on);

/* mask.c: the rounding of flow counts (its CPU masks are in nic.h) */
uint32_t nic_pow2_above(uint32_t n); /* the least power of two at or above n (0: 0) */

/* queues.c: the keys of sysfs files (txqueuelen, RPS, XPS) */
int nic_plan_file(struct ctx *c, struct nic_iface *ifc, const struct nic_key *k, const struct cfg_entry *e,
		  struct plan *p);
void nic_file_apply(struct ctx *c, struct item *it, const struct nic_key *k);
void nic_file_restore(struct ctx *c, struct item *it, const struct nic_key *k, const char *value);

/* records.c */
void nic_record_path(unsigned long long netns, int ifindex, const char *setting, char *out, size_t size);

/* item.c */
struct item *nic_add_item(struct ctx *c, struct plan *p, const struct nic_iface *ifc, const char *setting,
			  const struct cfg_entry *e);

/* plan.c */
int nic_plan_ethtool(struct ctx *c, struct nic_iface *ifc, const struct nic_key *k, const struct cfg_entry *e,
		     struct plan *p);
extern int (*nic_ioctl_hook)(const char *ifname, void *cmd); /* tests: the kernel's part */
