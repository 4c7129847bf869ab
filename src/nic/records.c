// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The NIC records: an original is recorded by network namespace, interface
 * index and key (ethtool/netns/INODE/ifindex/N/KEY; without a namespace
 * where the run cannot tell it, ethtool/ifindex/N/KEY) and belongs to the
 * interface of that index in that namespace, whatever its name is now.
 * The row's record hooks.
 */
#include "base/netif.h"
#include "engine/state.h"
#include "nic/internal.h"

#define KEY_PREFIX "ethtool/"
#define KEY_FLAGS (NETIF_KEY_EARLIER | NETIF_KEY_REST)

void nic_record_path(unsigned long long netns, int ifindex, const char *setting, char *out, size_t size)
{
	(void)netif_key_path(out, size, KEY_PREFIX, netns, ifindex, setting);
}

int nic_record_ifindex(const char *path)
{
	struct netif_key k;

	return netif_key_parse(path, KEY_PREFIX, KEY_FLAGS, &k) < 0 ? 0 : k.ifindex;
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
	return netif_key_elsewhere(r, x->path, KEY_PREFIX, KEY_FLAGS);
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
