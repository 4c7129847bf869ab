// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Whose a disk's original is: the identity the records keep beside it, so
 * that a record of a disk that left is never written to the one that took
 * its name (the block row's identity hook).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "base/array.h"
#include "block/disk.h"

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

/* What a disk may have that tells two disks of one name apart, in the order
 * the hash takes them (records of every version compare with it). */
static const char *const ids[] = { "dev", "wwid", "serial", "device/wwid", "device/serial", "dm/uuid",
				   "loop/backing_file" };

/* Bit i set: the disk's directory holds ids[i]'s first component. One
 * listing (an open, two getdents64, a close) in place of a failed open per
 * identifier a disk lacks: most lack most, and every open walks the path
 * through the sys/block link again. -errno: no listing; the caller then
 * tries every identifier, so the value stays what the reads alone give. */
static int present(const struct rdir *at, unsigned *bits)
{
	_cleanup_(closep) int fd = rdir_openat(at, ".", O_RDONLY | O_DIRECTORY, 0);
	char buf[4096] __attribute__((aligned(8)));
	ssize_t got;

	if (fd < 0)
		return fd;
	*bits = 0;
	while ((got = getdents64(fd, buf, sizeof(buf))) > 0)
		for (ssize_t off = 0; off < got;) {
			const struct dirent64 *de = (const void *)(buf + off);

			for (size_t i = 0; i < ARRAY_SIZE(ids); i++) {
				size_t n = strcspn(ids[i], "/");

				if (!strncmp(de->d_name, ids[i], n) && !de->d_name[n])
					*bits |= 1u << i;
			}
			off += de->d_reclen;
		}
	return got < 0 ? -errno : 0;
}

/* The hash of the place link (with its NUL) and of each identifier the disk
 * has (its name and value, each with its NUL). The identifiers are
 * optional: a read that fails counts as absent, because some exist and fail
 * for every read on devices without that data (SCSI wwid without VPD page
 * 0x83: EINVAL), so the same device hashes the same each time. */
static int disk_hash(const struct rdir *at, const char *link, unsigned bits, uint64_t *out)
{
	uint64_t h = fnv1a(FNV_OFFSET, link, strlen(link) + 1);
	char rel[PATH_MAX], buf[PATH_MAX];

	for (size_t i = 0; i < ARRAY_SIZE(ids); i++) {
		char *deleted;

		if (pathf(rel, sizeof(rel), "%s/%s", at->path, ids[i]) < 0)
			return -ENAMETOOLONG;
		if (!(bits & (1u << i)) || rdir_read(at, ids[i], buf, sizeof(buf)) < 0)
			continue;
		/* The backing file deleted since: still the same binding. */
		deleted = strstr(buf, " (deleted)");
		if (deleted && !deleted[10])
			*deleted = '\0';
		h = fnv1a(fnv1a(h, ids[i], strlen(ids[i]) + 1), buf, strlen(buf) + 1);
	}
	*out = h;
	return 0;
}

/* What identifies a disk. diskseq (Linux 5.15+) is exact: the kernel never
 * hands the same number out twice in a boot and takes a new one whenever a
 * loop device gets another file or a disk another medium; reading it is
 * all a disk of such a kernel costs. Without it nothing is exact; a hash
 * of what tells two disks of one name apart comes closest: MAJ:MIN, the
 * place in sys/devices the name links to (a new sdX on another port or LUN
 * lives elsewhere) and whatever identifiers the device has (wwid, serial,
 * dm uuid, a loop device's backing file: a re-attached cloud volume or a
 * loop device bound to another file differ there). A disk with none of
 * them that comes back at the same place and number passes for the same
 * one. */
static int disk_identity_hashed(const struct rdir *at, struct disk *d, char *out, size_t size);

static int disk_identity(const struct rdir *at, struct disk *d, char *out, size_t size)
{
	char buf[32];
	unsigned long long seq;
	int rr = rdir_read(at, "diskseq", buf, sizeof(buf));

	if (rr > 0 && rr < 20 && (buf[0] != '0' || rr == 1) && strspn(buf, "0123456789") == (size_t)rr &&
	    size > (size_t)rr + 8) {
		/* The number as the kernel prints it is the one %llu prints. */
		memcpy(stpcpy(out, "diskseq:"), buf, (size_t)rr + 1);
		return 0;
	}
	if (rr >= 0 && parse_u64(buf, &seq) < 0)
		rr = -EINVAL;
	if (rr >= 0) {
		fmt(out, size, "diskseq:%llu", seq);
		return 0;
	}
	return rr == -ENOENT ? disk_identity_hashed(at, d, out, size) : rr;
}

/* Without diskseq. Never inlined: its 12 KB of buffers put the diskseq
 * read of every disk (a udev run's) a stack page deeper. */
__attribute__((noinline)) static int disk_identity_hashed(const struct rdir *at, struct disk *d, char *out,
							  size_t size)
{
	char link[PATH_MAX];
	unsigned bits;
	uint64_t h;
	int rr;

	if (d && !*disk_link(d))
		return -EAGAIN; /* the hook reads it, and says why it cannot */
	if (pathf(link, sizeof(link), "%s", d ? d->path : at->path) < 0)
		return -ENAMETOOLONG;
	rr = d ? 0 : root_readlink(at->root, at->path, link, sizeof(link)); /* -ENOENT: gone */
	if (rr < 0 && rr != -EINVAL) /* EINVAL: a directory of a captured tree: its path is its place */
		return rr;
	if (present(at, &bits) < 0)
		bits = ~0u;
	if ((rr = disk_hash(at, link, bits, &h)) < 0)
		return rr;
	fmt(out, size, "dev:%016llx", (unsigned long long)h);
	return 0;
}

/* ---- the identities an apply's plan read -----------------------------------
 * The plan has each disk's directory open (and its link, when read): the identity
 * of a disk it changes is read there, and the hook asked for it when the
 * originals are recorded answers from here (the link not read again, no
 * walk through it per attribute). */
struct memo {
	char *dir;
	char id[64];
};
static struct memo *memo;
static size_t nmemo, memo_cap;
static struct strindex memo_x;
static struct arena memo_dirs; /* memo[].dir */
static size_t memo_last;       /* the entry last asked for */

static const char *memo_key(const void *data, size_t i)
{
	(void)data;
	return memo[i].dir;
}

void block_identity_reset(void)
{
	arena_free(&memo_dirs);
	free(memo);
	memo = NULL, nmemo = memo_cap = memo_last = 0;
	strindex_free(&memo_x);
}

/* The identity of d, which the plan changes, kept for the hook. A disk
 * whose identity cannot be read here is left to the hook (its failure then
 * reported where it always was). */
void block_identity_note(struct disk *d)
{
	char id[64];

	memo_x.key = memo_key;
	if (disk_identity(&d->at, d, id, sizeof(id)) < 0 ||
	    array_grow(&memo, &memo_cap, nmemo, sizeof(*memo), 64) < 0 || strindex_reserve(&memo_x, nmemo) < 0)
		return;
	memo[nmemo].dir = arena_strdup(&memo_dirs, d->dir);
	if (!memo[nmemo].dir)
		return;
	str_copy(memo[nmemo].id, sizeof(memo[nmemo].id), id);
	strindex_insert(&memo_x, nmemo++);
}

/* The entry of dir, STRINDEX_NONE none. The records ask in the plan's
 * order, disk after disk: the one asked last and the next are tried
 * before the index (a compare, not a hash). */
static size_t memo_at(const char *dir)
{
	size_t i;

	for (i = memo_last; i < nmemo && i < memo_last + 2; i++)
		if (!strcmp(memo[i].dir, dir))
			return memo_last = i;
	i = nmemo ? strindex_find(&memo_x, dir) : STRINDEX_NONE;
	if (i != STRINDEX_NONE)
		memo_last = i;
	return i;
}

/* A queue attribute's identity: its disk's. -ENOENT: the disk is gone. */
static int identity_of(const struct root *r, const char *dir, char *out, size_t size)
{
	struct rdir at;
	size_t i = memo_at(dir);

	if (i != STRINDEX_NONE) {
		str_copy(out, size, memo[i].id);
		return 0;
	}
	rdir_unheld(&at, r, dir);
	return disk_identity(&at, NULL, out, size);
}

static __attribute__((noinline)) int identity_long(const struct root *r, const char *setting, const char *path,
						   char *out, size_t size)
{
	char dir[PATH_MAX];

	return disk_dir(path, setting, dir, sizeof(dir)) < 0 ? -EINVAL : identity_of(r, dir, out, size);
}

/* The disk's directory in 256 bytes where it fits (sys/block/NAME does): a
 * PATH_MAX one would lie under the whole identity read, a page of stack
 * more for a udev run. */
int block_identity(const struct root *r, const char *setting, const char *path, char *out, size_t size)
{
	char dir[256];

	*out = '\0';
	if (disk_dir(path, setting, dir, sizeof(dir)) < 0)
		return identity_long(r, setting, path, out, size);
	return identity_of(r, dir, out, size);
}
