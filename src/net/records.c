// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The net records: a qdisc original is recorded by network namespace and
 * interface index (netlink/netns/INODE/ifindex/N) and belongs to the
 * interface of that index in that namespace, whatever its name is now
 * (interfaces are renamed; indexes repeat across namespaces, which share
 * /run). The net row's record hooks.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/netif.h"
#include "engine/state.h"
#include "net/net.h"

#define IFINDEX_PATH "netlink/ifindex/"
#define NETNS_PATH "netlink/netns/"

/* A number of digits alone at *s up to the character stop, which it skips. */
static int parse_num(const char **s, char stop, unsigned long long *v)
{
	char *end;

	if (!isdigit((unsigned char)**s))
		return -EINVAL;
	errno = 0;
	*v = strtoull(*s, &end, 10);
	if (errno || *end != stop)
		return -EINVAL;
	*s = end + (stop != '\0');
	return 0;
}

/* A net record's namespace and interface: netlink/netns/INODE/ifindex/N,
 * or netlink/ifindex/N (an earlier version's, without a namespace: 0). */
static int parse_path(const char *path, unsigned long long *netns, int *ifindex)
{
	const char *s = path + strlen(NETNS_PATH);
	unsigned long long v;

	*netns = 0, *ifindex = 0;
	if (!strncmp(path, NETNS_PATH, strlen(NETNS_PATH))) {
		if (parse_num(&s, '/', netns) < 0 || !*netns || strncmp(s, "ifindex/", 8))
			return -EINVAL;
		s += 8;
	} else if (!strncmp(path, IFINDEX_PATH, strlen(IFINDEX_PATH))) {
		s = path + strlen(IFINDEX_PATH);
	} else {
		return -EINVAL;
	}
	if (parse_num(&s, '\0', &v) < 0 || v == 0 || v > INT_MAX)
		return -EINVAL;
	*ifindex = (int)v;
	return 0;
}

/* The ifindex of a net record about one interface, or 0 for a global one
 * (a sysctl). */
int net_record_ifindex(const char *path)
{
	unsigned long long netns;
	int ifindex;

	return parse_path(path, &netns, &ifindex) < 0 ? 0 : ifindex;
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
	snprintf(out, size, IFINDEX_PATH "%d", ifindex);
	if (netns && !(rs && state_find(rs, out)))
		snprintf(out, size, NETNS_PATH "%llu/ifindex/%d", netns, ifindex);
}

/* A record of another network namespace's interface: its index N is not
 * this namespace's N. One without a namespace is this one's; one with a
 * namespace where the run cannot tell its own is another's. */
bool net_elsewhere(const struct root *r, const struct record *x)
{
	unsigned long long netns;
	int ifindex;

	return parse_path(x->path, &netns, &ifindex) == 0 && netns && netns != net_netns(r);
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
