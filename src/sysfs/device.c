// SPDX-License-Identifier: LGPL-2.1-or-later
/* A [sysfs] path under a device's directory (sys/block/NAME/…,
 * sys/class/block/NAME/…, sys/class/net/NAME/…) is that device's: planned
 * at its udev event with the glob matched against it alone, its record in
 * its scope and tied to its identity (the disk's, as [block] ties its own;
 * an interface's index), so that a device taking the name later never gets
 * another's original. An interface's record is kept by network namespace
 * and index (sysfs/netns/INODE/ifindex/N/ATTR), as the other records of
 * interfaces are: namespaces share /run, and names and indexes repeat
 * across them. One of an earlier version, under the file's path, is the
 * namespace's that reads it. */
#include <errno.h>
#include <fnmatch.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

#include "base/netif.h"
#include "engine/state.h"
#include "sysfs/internal.h"

static const struct {
	const char *prefix;
	int kind;
} dirs[] = {
	{ "sys/block/", SYSFS_DISK },
	{ "sys/class/block/", SYSFS_DISK },
	{ "sys/class/net/", SYSFS_IFACE },
};

static sysfs_identity_fn *disk_identity;

void sysfs_set_hooks(sysfs_claim_fn *claims, sysfs_identity_fn *disk)
{
	sysfs_set_claims(claims);
	disk_identity = disk;
}

int sysfs_device_path(const char *rel, struct sysfs_dev *d)
{
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		size_t n = strlen(dirs[i].prefix), len;

		if (strncmp(rel, dirs[i].prefix, n))
			continue;
		len = strcspn(rel + n, "/");
		if (!len || rel[n + len] != '/' || !rel[n + len + 1])
			continue;
		*d = (struct sysfs_dev){ .kind = dirs[i].kind, .at = n, .len = len };
		return d->kind;
	}
	*d = (struct sysfs_dev){ .kind = 0 };
	return 0;
}

#define KEY_PREFIX "sysfs/"

int sysfs_record_ifindex(const char *path)
{
	struct netif_key k;

	return netif_key_parse(path, KEY_PREFIX, 0, &k) < 0 ? 0 : k.ifindex;
}

bool sysfs_owns_path(const char *path)
{
	struct netif_key k;

	return netif_key_parse(path, KEY_PREFIX, NETIF_KEY_REST, &k) == 0;
}

/* Another namespace's interface: its index N is not this namespace's N. */
bool sysfs_elsewhere(const struct root *r, const struct record *x)
{
	return netif_key_elsewhere(r, x->path, KEY_PREFIX, 0);
}

/* The interface whose directory holds path ("sys/class/net/NAME/…"), by
 * name ("" none). */
static bool path_iface(const char *path, struct sysfs_dev *d, char *name, size_t size)
{
	*name = '\0';
	if (sysfs_device_path(path, d) != SYSFS_IFACE || d->len >= size)
		return false;
	snprintf(name, size, "%.*s", (int)d->len, path + d->at);
	return true;
}

/* Where the run cannot tell its namespace (a tree without proc/), the
 * file's path: as before namespaces were told apart. */
int sysfs_record_path(const struct root *r, const struct item *it, char *out, size_t size)
{
	struct sysfs_dev d;
	char name[NAME_MAX + 1];
	unsigned long long netns = netif_netns(r);
	int ifindex = netns && path_iface(it->path, &d, name, sizeof(name)) ? netif_index_of(r, name) : 0;

	if (ifindex <= 0)
		return ifindex < 0 ? ifindex : 0;
	return netif_key_path(out, size, KEY_PREFIX, netns, ifindex, it->path + d.at + d.len + 1) < 0
		       ? -ENAMETOOLONG
		       : 1;
}

/* The interface of the key's index here: the one the record was made on
 * if it still has that index (renames aside, one read), else by index. */
int sysfs_record_file(const struct root *r, const struct record *x, char *out, size_t size)
{
	struct netif_key k;
	struct sysfs_dev d;
	char name[NAME_MAX + 1];
	int rr;

	if (netif_key_parse(x->path, KEY_PREFIX, 0, &k) < 0)
		return 0;
	if (pathf(out, size, "sys/%s", x->setting) < 0 || !path_iface(out, &d, name, sizeof(name)) ||
	    netif_index_of(r, name) != k.ifindex) {
		rr = netif_name(r, k.ifindex, name, sizeof(name));
		if (rr < 0)
			return rr;
	}
	return pathf(out, size, "sys/class/net/%s/%s", name, k.rest) < 0 ? -ENAMETOOLONG : 1;
}

void sysfs_device_of(const struct record *x, char *disk, size_t size, int *ifindex)
{
	struct sysfs_dev d;
	int kind = sysfs_device_path(x->path, &d);
	long long i;

	*disk = '\0';
	*ifindex = sysfs_record_ifindex(x->path);
	if (kind == SYSFS_DISK)
		snprintf(disk, size, "%.*s", (int)d.len, x->path + d.at);
	else if (kind == SYSFS_IFACE && !strncmp(x->identity, "ifindex:", 8) && parse_s64(x->identity + 8, &i) == 0 &&
		 i > 0 && i <= INT_MAX)
		*ifindex = (int)i;
}

/* A key's interface is its index: still here (looked for under the name
 * it had first), or gone. */
static int key_identity(const struct root *r, const char *setting, const char *path, char *out, size_t size)
{
	struct sysfs_dev d;
	char name[NAME_MAX + 1] = "", file[PATH_MAX];
	int ifindex = sysfs_record_ifindex(path), rr;

	if (pathf(file, sizeof(file), "sys/%s", setting) == 0)
		path_iface(file, &d, name, sizeof(name));
	rr = netif_index_exists(r, name, ifindex);
	if (rr <= 0)
		return rr < 0 ? rr : -ENOENT;
	netif_identity(ifindex, out, size);
	return 0;
}

int sysfs_identity(const struct root *r, const char *setting, const char *path, char *out, size_t size)
{
	struct sysfs_dev d;
	char rel[PATH_MAX];
	unsigned long long i;
	int kind = sysfs_device_path(path, &d), rr;

	*out = '\0';
	if (sysfs_record_ifindex(path) > 0)
		return key_identity(r, setting, path, out, size);
	if (kind == SYSFS_DISK)
		return disk_identity ? disk_identity(r, path + d.at + d.len + 1, path, out, size) : 0;
	if (kind != SYSFS_IFACE)
		return 0;
	if (pathf(rel, sizeof(rel), "%.*s/ifindex", (int)(d.at + d.len), path) < 0)
		return -ENAMETOOLONG;
	rr = root_read_u64(r, rel, &i);
	if (rr < 0)
		return rr;
	snprintf(out, size, "ifindex:%llu", i);
	return 0;
}

int sysfs_iface_name(const struct root *r, int ifindex, char *name, size_t size)
{
	return netif_name(r, ifindex, name, size);
}
