/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Network interfaces as the root shows them (netif.c): the namespace a run
 * sees, an interface's index by name and name by index, whether an index
 * is still there. For the domains of interfaces (net/, nic/, sysfs/). */
#pragma once

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
 * /run. 0 with its parts (rest "" when the key ends after N), -EINVAL when
 * path is not one. */
struct netif_key {
	unsigned long long netns;
	int ifindex;
	const char *rest;
};
int netif_key_parse(const char *path, const char *prefix, struct netif_key *k);
