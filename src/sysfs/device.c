// SPDX-License-Identifier: LGPL-2.1-or-later
/* A [sysfs] path under a device's directory (sys/block/NAME/…,
 * sys/class/block/NAME/…, sys/class/net/NAME/…) is that device's: planned
 * at its udev event with the glob matched against it alone, its record in
 * its scope and tied to its identity (the disk's, as [block] ties its own;
 * an interface's index), so that a device taking the name later never gets
 * another's original. */
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

void sysfs_device_of(const struct record *x, char *disk, size_t size, int *ifindex)
{
	struct sysfs_dev d;
	int kind = sysfs_device_path(x->path, &d);
	long long i;

	*disk = '\0';
	*ifindex = 0;
	if (kind == SYSFS_DISK)
		snprintf(disk, size, "%.*s", (int)d.len, x->path + d.at);
	else if (kind == SYSFS_IFACE && !strncmp(x->identity, "ifindex:", 8) && parse_s64(x->identity + 8, &i) == 0 &&
		 i > 0 && i <= INT_MAX)
		*ifindex = (int)i;
}

int sysfs_identity(const struct root *r, const char *setting, const char *path, char *out, size_t size)
{
	struct sysfs_dev d;
	char rel[PATH_MAX];
	unsigned long long i;
	int kind = sysfs_device_path(path, &d), rr;

	*out = '\0';
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
