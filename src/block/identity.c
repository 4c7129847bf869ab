// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Whose a disk's original is: the identity the records keep beside it, so
 * that a record of a disk that left is never written to the one that took
 * its name (the block row's identity hook).
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "block/block.h"

/* The disk directory of a block item: its path without "/SETTING". */
static int disk_dir(const char *path, const char *setting, char *dir, size_t size)
{
	size_t lp = strlen(path), ls = strlen(setting);

	if (lp <= ls + 1 || strcmp(path + lp - ls, setting) || path[lp - ls - 1] != '/' || lp - ls > size)
		return -EINVAL;
	memcpy(dir, path, lp - ls - 1);
	dir[lp - ls - 1] = '\0';
	return 0;
}

/* What identifies a disk. diskseq (Linux 5.15+) is exact: the kernel never
 * hands the same number out twice in a boot and takes a new one whenever a
 * loop device gets another file or a disk another medium. Without it nothing
 * is exact; a hash of what tells two disks of one name apart comes closest:
 * MAJ:MIN, the place in sys/devices the name links to (a new sdX on another
 * port or LUN lives elsewhere) and whatever identifiers the device has (wwid,
 * serial, dm uuid, a loop device's backing file: a re-attached cloud volume
 * or a loop device bound to another file differ there). The identifiers are
 * optional: a read that fails counts as absent, because some exist and fail
 * for every read on devices without that data (SCSI wwid without VPD page
 * 0x83: EINVAL), so the same device hashes the same each time. A disk with
 * none of them that comes back at the same place and number passes for the
 * same one. */
static int disk_identity(const struct root *r, const char *dir, char *out, size_t size)
{
	static const char *const ids[] = { "dev", "wwid", "serial", "device/wwid", "device/serial",
					   "dm/uuid", "loop/backing_file" };
	char rel[PATH_MAX], buf[PATH_MAX];
	unsigned long long seq;
	uint64_t h = FNV_OFFSET;
	int rr;

	if (pathf(rel, sizeof(rel), "%s/diskseq", dir) < 0)
		return -ENAMETOOLONG;
	rr = root_read_u64(r, rel, &seq);
	if (rr == 0) {
		snprintf(out, size, "diskseq:%llu", seq);
		return 0;
	}
	if (rr != -ENOENT)
		return rr;
	rr = root_readlink(r, dir, buf, sizeof(buf)); /* -ENOENT: gone */
	if (rr == -EINVAL) /* a directory of a captured tree: its path is its place */
		rr = snprintf(buf, sizeof(buf), "%s", dir);
	if (rr < 0)
		return rr;
	h = fnv1a(h, buf, (size_t)rr + 1);
	for (size_t i = 0; i < ARRAY_SIZE(ids); i++) {
		char *deleted;

		if (pathf(rel, sizeof(rel), "%s/%s", dir, ids[i]) < 0)
			return -ENAMETOOLONG;
		rr = root_read(r, rel, buf, sizeof(buf));
		if (rr < 0)
			continue;
		/* The backing file deleted since: still the same binding. */
		deleted = strstr(buf, " (deleted)");
		if (deleted && !deleted[10])
			*deleted = '\0';
		h = fnv1a(fnv1a(h, ids[i], strlen(ids[i]) + 1), buf, strlen(buf) + 1);
	}
	snprintf(out, size, "dev:%016llx", (unsigned long long)h);
	return 0;
}

/* A queue attribute's identity: its disk's. -ENOENT: the disk is gone. */
int block_identity(const struct root *r, const char *setting, const char *path, char *out, size_t size)
{
	char dir[PATH_MAX];

	*out = '\0';
	if (disk_dir(path, setting, dir, sizeof(dir)) < 0)
		return -EINVAL;
	return disk_identity(r, dir, out, size);
}
