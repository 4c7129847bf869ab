// SPDX-License-Identifier: LGPL-2.1-or-later
/* Network interfaces as the root shows them: read through it, so that a
 * --root tree answers for itself. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/netif.h"
#include "base/util.h"

unsigned long long netif_netns(const struct root *r)
{
	char link[64], *end;
	unsigned long long v;

	if (root_readlink(r, "proc/self/ns/net", link, sizeof(link)) < 0 || strncmp(link, "net:[", 5) ||
	    !isdigit((unsigned char)link[5]))
		return 0;
	errno = 0;
	v = strtoull(link + 5, &end, 10);
	return errno || strcmp(end, "]") ? 0 : v;
}

int netif_index_of(const struct root *r, const char *name)
{
	char rel[PATH_MAX];
	unsigned long long v;
	int rr = pathf(rel, sizeof(rel), "sys/class/net/%s/ifindex", name);

	if (rr == 0)
		rr = root_read_u64(r, rel, &v);
	if (rr == -ENOENT || rr == -ENOTDIR || rr == -EINVAL || (rr == 0 && v > INT_MAX))
		return 0;
	return rr < 0 ? rr : (int)v;
}

struct find {
	const struct root *r;
	int ifindex, err;
	char name[IF_NAMESIZE + 1];
};

static void match_index(const char *rel, void *data)
{
	struct find *f = data;
	int rr = *f->name ? 0 : netif_index_of(f->r, strrchr(rel, '/') + 1);

	if (rr > 0 && rr == f->ifindex)
		snprintf(f->name, sizeof(f->name), "%s", strrchr(rel, '/') + 1);
	else if (rr < 0 && !f->err)
		f->err = rr;
}

static int find_index(const struct root *r, int ifindex, struct find *f)
{
	int n;

	*f = (struct find){ .r = r, .ifindex = ifindex };
	n = root_match(r, "sys/class/net", "*", match_index, f);
	return n < 0 ? n : 0;
}

int netif_name(const struct root *r, int ifindex, char *name, size_t size)
{
	struct find f;
	char buf[IF_NAMESIZE];
	int n;

	if (r->is_host) {
		if (!if_indextoname((unsigned)ifindex, buf))
			return -errno;
		snprintf(name, size, "%s", buf);
		return 0;
	}
	n = find_index(r, ifindex, &f);
	if (n < 0)
		return n;
	if (!*f.name)
		return -ENODEV;
	snprintf(name, size, "%s", f.name);
	return 0;
}

int netif_index_exists(const struct root *r, const char *name, int ifindex)
{
	struct find f;
	int rr;

	if (ifindex > 0 && netif_index_of(r, name) == ifindex)
		return 1;
	rr = find_index(r, ifindex, &f);
	if (rr < 0 || (!*f.name && f.err))
		return rr < 0 ? rr : f.err;
	return !!*f.name;
}

void netif_identity(int ifindex, char *out, size_t size)
{
	*out = '\0';
	if (ifindex > 0)
		snprintf(out, size, "ifindex:%d", ifindex);
}

int netif_stale(const struct root *r, const char *name, const char *identity, int ifindex, char *why, size_t size)
{
	int rr;

	if (strncmp(identity, "ifindex:", 8))
		return 0;
	rr = netif_index_exists(r, name, ifindex);
	if (rr < 0)
		return rr;
	snprintf(why, size, "no interface has ifindex %d any more", ifindex);
	return !rr;
}

/* Digits at *s up to a '/' or the end, not 0: moved past them. */
static int key_number(const char **s, unsigned long long *v)
{
	char *end;

	if (!isdigit((unsigned char)**s))
		return -EINVAL;
	errno = 0;
	*v = strtoull(*s, &end, 10);
	if (errno || !*v || (*end && *end != '/'))
		return -EINVAL;
	*s = end;
	return 0;
}

/* N[/REST] at s, as flags want it. */
static int key_index(const char *s, int flags, struct netif_key *k)
{
	unsigned long long ifindex;
	const char *rest;

	if (key_number(&s, &ifindex) < 0 || ifindex > INT_MAX)
		return -EINVAL;
	rest = *s ? s + 1 : s;
	if ((flags & NETIF_KEY_REST && !*rest) || (flags & NETIF_KEY_END && *s))
		return -EINVAL;
	k->ifindex = (int)ifindex;
	k->rest = rest;
	return 0;
}

int netif_key_parse(const char *path, const char *prefix, int flags, struct netif_key *k)
{
	size_t n = strlen(prefix);
	const char *s = path + n;

	*k = (struct netif_key){ .rest = "" };
	if (strncmp(path, prefix, n))
		return -EINVAL;
	if (flags & NETIF_KEY_EARLIER && !strncmp(s, "ifindex/", 8))
		return key_index(s + 8, flags, k);
	if (strncmp(s, "netns/", 6))
		return -EINVAL;
	s += 6;
	if (key_number(&s, &k->netns) < 0 || strncmp(s, "/ifindex/", 9))
		return -EINVAL;
	return key_index(s + 9, flags, k);
}

int netif_key_path(char *out, size_t size, const char *prefix, unsigned long long netns, int ifindex, const char *rest)
{
	char ns[32] = "";

	if (netns)
		snprintf(ns, sizeof(ns), "netns/%llu/", netns);
	return pathf(out, size, "%s%sifindex/%d%s%s", prefix, ns, ifindex, rest ? "/" : "", rest ? rest : "");
}

bool netif_key_elsewhere(const struct root *r, const char *path, const char *prefix, int flags)
{
	struct netif_key k;

	return netif_key_parse(path, prefix, flags, &k) == 0 && k.netns && k.netns != netif_netns(r);
}
