// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The NIC records: an original is recorded by network namespace, interface
 * index and key (ethtool/netns/INODE/ifindex/N/KEY; without a namespace
 * where the run cannot tell it, ethtool/ifindex/N/KEY) and belongs to the
 * interface of that index in that namespace, whatever its name is now.
 * The row's record hooks.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/netif.h"
#include "engine/state.h"
#include "nic/internal.h"

#define NETNS_PATH "ethtool/netns/"
#define IFINDEX_PATH "ethtool/ifindex/"

void nic_record_path(unsigned long long netns, int ifindex, const char *setting, char *out, size_t size)
{
	if (netns)
		snprintf(out, size, NETNS_PATH "%llu/ifindex/%d/%s", netns, ifindex, setting);
	else
		snprintf(out, size, IFINDEX_PATH "%d/%s", ifindex, setting);
}

static bool number(const char **s, unsigned long long *v)
{
	char *end;

	if (!isdigit((unsigned char)**s))
		return false;
	errno = 0;
	*v = strtoull(*s, &end, 10);
	if (errno || *end != '/')
		return false;
	*s = end + 1;
	return true;
}

/* A record's namespace (0: none named) and interface; -EINVAL: not ours. */
static int parse_path(const char *path, unsigned long long *netns, int *ifindex)
{
	const char *s = path;
	unsigned long long v;

	*netns = 0, *ifindex = 0;
	if (!strncmp(s, NETNS_PATH, strlen(NETNS_PATH))) {
		s += strlen(NETNS_PATH);
		if (!number(&s, netns) || !*netns || strncmp(s, "ifindex/", 8))
			return -EINVAL;
		s += 8;
	} else if (!strncmp(s, IFINDEX_PATH, strlen(IFINDEX_PATH))) {
		s += strlen(IFINDEX_PATH);
	} else {
		return -EINVAL;
	}
	if (!number(&s, &v) || !v || v > INT_MAX || !*s)
		return -EINVAL;
	*ifindex = (int)v;
	return 0;
}

int nic_record_ifindex(const char *path)
{
	unsigned long long netns;
	int ifindex;

	return parse_path(path, &netns, &ifindex) < 0 ? 0 : ifindex;
}

int nic_iface_index(const struct root *r, const char *name)
{
	int i = netif_index_of(r, name);

	return i > 0 ? i : 0;
}

bool nic_owns_path(const char *path)
{
	return nic_record_ifindex(path) > 0;
}

/* Another namespace's interface: its index N is not this namespace's N. */
bool nic_elsewhere(const struct root *r, const struct record *x)
{
	unsigned long long netns;
	int ifindex;

	return parse_path(x->path, &netns, &ifindex) == 0 && netns && netns != netif_netns(r);
}

int nic_identity(const struct root *r, const char *setting, const char *path, char *out, size_t size)
{
	(void)r, (void)setting;
	netif_identity(nic_record_ifindex(path), out, size);
	return 0;
}

/* A record is stale when no interface has its index any more: looked up
 * through the record's name first, then every name. The interfaces here
 * are this namespace's: another's record is never stale from here. */
int nic_stale(const struct root *r, const struct record *x, char *why, size_t size)
{
	if (nic_elsewhere(r, x))
		return 0;
	return netif_stale(r, x->target, x->identity, nic_record_ifindex(x->path), why, size);
}
