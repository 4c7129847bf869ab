/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Network interfaces as the root shows them (netif.c): the namespace a run
 * sees, an interface's index by name and name by index, whether an index
 * is still there. For the domains of interfaces (net/, nic/, sysfs/). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "base/root.h"

/* The inode of proc/self/ns/net, read through the root; 0: cannot be told. */
unsigned long long netif_netns(const struct root *r);
/* sys/class/net/NAME/ifindex: > 0, 0 none, -errno. */
int netif_index_of(const struct root *r, const char *name);
/* The name of interface ifindex: the kernel's (one ioctl) on the running
 * system, sys/class/net's in a tree (-ENODEV: none). */
int netif_name(const struct root *r, int ifindex, char *name, size_t size);
/* 1 when an interface has index ifindex (the one named name first, then
 * any: interfaces are renamed), 0 when none, -errno when it cannot be told. */
int netif_index_exists(const struct root *r, const char *name, int ifindex);
/* A record of interface ifindex: its identity ("ifindex:N", "" for none),
 * and whether it is stale (1: no interface has the index of its identity
 * any more, the one recorded as name looked at first; 0: it is there, or
 * the record has no such identity; -errno: cannot be told). */
void netif_identity(int ifindex, char *out, size_t size);
int netif_stale(const struct root *r, const char *name, const char *identity, int ifindex, char *why, size_t size);
/* A record kept by namespace and interface index, PREFIX/netns/INODE/
 * ifindex/N/REST: indexes and names repeat across namespaces, which share
 * /run. 0 with its parts (rest "" when the key ends after N or its '/'),
 * -EINVAL when path is not one or not as flags want it: NETIF_KEY_EARLIER
 * reads an earlier version's key without a namespace, PREFIX/ifindex/N/REST,
 * too (netns 0); NETIF_KEY_REST wants a REST, NETIF_KEY_END none (the key
 * ends after N). */
struct netif_key {
	unsigned long long netns;
	int ifindex;
	const char *rest;
};
enum { NETIF_KEY_EARLIER = 1, NETIF_KEY_REST = 2, NETIF_KEY_END = 4 };
int netif_key_parse(const char *path, const char *prefix, int flags, struct netif_key *k);
/* The key netif_key_parse reads (rest NULL: none; netns 0: the earlier
 * form, where the run cannot tell its namespace): 0 or -ENAMETOOLONG,
 * out cut short as snprintf cuts it. */
int netif_key_path(char *out, size_t size, const char *prefix, unsigned long long netns, int ifindex, const char *rest);
/* A key of another namespace's interface, whose index N is not this
 * namespace's N: one naming a namespace that r does not see (any, where r
 * cannot tell its own). One without a namespace is this namespace's. */
bool netif_key_elsewhere(const struct root *r, const char *path, const char *prefix, int flags);
