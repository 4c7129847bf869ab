// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The net records: a qdisc original is recorded by interface index
 * (netlink/ifindex/N) and belongs to the interface of that index, whatever
 * its name is now (interfaces are renamed). The net row's record hooks.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "engine/state.h"
#include "net/net.h"

#define IFINDEX_PATH "netlink/ifindex/"

/* The ifindex of a net record about one interface (its path is
 * netlink/ifindex/N), or 0 for a global one (a sysctl). */
int net_record_ifindex(const char *path)
{
	unsigned long long v;

	if (strncmp(path, IFINDEX_PATH, strlen(IFINDEX_PATH)) ||
	    parse_u64(path + strlen(IFINDEX_PATH), &v) < 0 || v == 0 || v > INT_MAX)
		return 0;
	return (int)v;
}

/* Besides sysctls, a net record names an interface's root qdisc. */
bool net_owns_path(const char *path)
{
	return !strncmp(path, IFINDEX_PATH, strlen(IFINDEX_PATH));
}

int net_identity(const struct root *r, const char *setting, const char *path, char *out, size_t size)
{
	int ifindex = net_record_ifindex(path);

	(void)r, (void)setting;
	*out = '\0';
	if (ifindex)
		snprintf(out, size, "ifindex:%d", ifindex);
	return 0;
}

struct ifindex_seen {
	const struct root *r;
	int ifindex, err;
	bool found;
};

static void seen_ifindex(const char *rel, void *data)
{
	struct ifindex_seen *s = data;
	int rr = net_ifindex_of(s->r, strrchr(rel, '/') + 1);

	if (rr > 0 && rr == s->ifindex)
		s->found = true;
	else if (rr < 0 && !s->err)
		s->err = rr;
}

/* 1 when an interface has index ifindex: the one of the record's name,
 * read directly, else any (interfaces are renamed); 0 when none, -errno
 * when that cannot be told. */
static int ifindex_exists(const struct root *r, const char *name, int ifindex)
{
	struct ifindex_seen s = { r, ifindex, 0, false };
	int rr;

	if (ifindex > 0 && net_ifindex_of(r, name) == ifindex)
		return 1;
	rr = root_match(r, "sys/class/net", "*", seen_ifindex, &s);
	if (rr < 0 || (!s.found && s.err))
		return rr < 0 ? rr : s.err;
	return s.found;
}

/* A record is stale when no interface has its index any more: looked up
 * through the record's name first, then every name. */
int net_stale(const struct root *r, const struct record *x, char *why, size_t size)
{
	int ifindex = net_record_ifindex(x->path), rr;

	if (strncmp(x->identity, "ifindex:", 8))
		return 0;
	rr = ifindex_exists(r, x->target, ifindex);
	if (rr < 0)
		return rr;
	snprintf(why, size, "no interface has ifindex %d any more", ifindex);
	return !rr;
}
