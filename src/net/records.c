// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The net records: a qdisc original is recorded by network namespace and
 * interface index (netlink/netns/INODE/ifindex/N) and belongs to the
 * interface of that index in that namespace, whatever its name is now
 * (interfaces are renamed; indexes repeat across namespaces, which share
 * /run). The net row's record hooks.
 */
#include <string.h>

#include "base/netif.h"
#include "engine/state.h"
#include "net/net.h"

#define KEY_PREFIX "netlink/"
#define KEY_FLAGS (NETIF_KEY_EARLIER | NETIF_KEY_END)
#define IFINDEX_PATH KEY_PREFIX "ifindex/"
#define NETNS_PATH KEY_PREFIX "netns/"

/* The ifindex of a net record about one interface, or 0 for a global one
 * (a sysctl): netlink/netns/INODE/ifindex/N, or netlink/ifindex/N (an
 * earlier version's, without a namespace). */
int net_record_ifindex(const char *path)
{
	struct netif_key k;

	return netif_key_parse(path, KEY_PREFIX, KEY_FLAGS, &k) < 0 ? 0 : k.ifindex;
}

/* Besides sysctls, a net record names an interface's root qdisc. */
bool net_owns_path(const char *path)
{
	return !strncmp(path, IFINDEX_PATH, strlen(IFINDEX_PATH)) || !strncmp(path, NETNS_PATH, strlen(NETNS_PATH));
}

/* The network namespace a run sees: the inode of proc/self/ns/net
 * ("net:[4026531840]"), read through the root, so that a --root tree
 * answers for itself; 0 when it cannot be told (a tree without it). */
unsigned long long net_netns(const struct root *r)
{
	return netif_netns(r);
}

/* The path of interface ifindex's root qdisc in namespace netns (0:
 * unknown, the form without one). A record of that earlier form is the
 * namespace's that reads it: its interface keeps that path, so that the
 * original recorded then stays the only one. */
void net_qdisc_path(struct records *rs, unsigned long long netns, int ifindex, char *out, size_t size)
{
	(void)netif_key_path(out, size, KEY_PREFIX, 0, ifindex, NULL);
	if (netns && !(rs && state_find(rs, out)))
		(void)netif_key_path(out, size, KEY_PREFIX, netns, ifindex, NULL);
}

/* A record of another network namespace's interface: its index N is not
 * this namespace's N. One without a namespace is this one's; one with a
 * namespace where the run cannot tell its own is another's. */
bool net_elsewhere(const struct root *r, const struct record *x)
{
	return netif_key_elsewhere(r, x->path, KEY_PREFIX, KEY_FLAGS);
}

int net_identity(const struct root *r, const char *setting, const char *path, char *out, size_t size)
{
	(void)r, (void)setting;
	netif_identity(net_record_ifindex(path), out, size);
	return 0;
}

/* A record is stale when no interface has its index any more: looked up
 * through the record's name first, then every name. The interfaces here
 * are this namespace's: another's record is never stale from here. */
int net_stale(const struct root *r, const struct record *x, char *why, size_t size)
{
	if (net_elsewhere(r, x))
		return 0;
	return netif_stale(r, x->target, x->identity, net_record_ifindex(x->path), why, size);
}
