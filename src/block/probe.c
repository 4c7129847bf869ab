// SPDX-License-Identifier: LGPL-2.1-or-later
/* libblkid tags of a disk and its partitions, for match.fstype/uuid/label/
 * partuuid. Only sections that use those keys cause a probe: opening and
 * reading a disk is the most expensive thing earlytune can do. */
#include <blkid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "block/disk.h"

struct tags {
	char **v;
	size_t n;
};

static int tag_add(struct tags *t, const char *key, const char *value)
{
	char **v = realloc(t->v, (t->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	t->v = v;
	v[t->n] = xasprintf("%s=%s", key, value);
	if (!v[t->n])
		return -ENOMEM;
	t->n++;
	return 0;
}

static int open_dev(const struct root *r, const char *name)
{
	char rel[PATH_MAX];

	if (pathf(rel, sizeof(rel), "dev/%s", name) < 0)
		return -ENAMETOOLONG;
	return root_openat(r, rel, O_RDONLY | O_NONBLOCK, 0);
}

static void probe_partitions(blkid_probe pr, struct tags *t)
{
	blkid_partlist ls = blkid_probe_get_partitions(pr);
	int n = ls ? blkid_partlist_numof_partitions(ls) : 0;

	for (int i = 0; i < n; i++) {
		const char *uuid = blkid_partition_get_uuid(blkid_partlist_get_partition(ls, i));

		if (uuid)
			tag_add(t, "partuuid", uuid);
	}
}

static int probe_one(const struct root *r, const char *name, bool whole, struct tags *t)
{
	_cleanup_(closep) int fd = open_dev(r, name);
	blkid_probe pr;
	const char *v;

	if (fd < 0)
		return fd;
	pr = blkid_new_probe();
	if (!pr)
		return -ENOMEM;
	if (blkid_probe_set_device(pr, fd, 0, 0) < 0) {
		blkid_free_probe(pr);
		return -EIO;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_LABEL | BLKID_SUBLKS_UUID | BLKID_SUBLKS_TYPE);
	blkid_probe_enable_partitions(pr, whole);
	if (blkid_do_safeprobe(pr) == 0) {
		if (!blkid_probe_lookup_value(pr, "TYPE", &v, NULL))
			tag_add(t, "fstype", v);
		if (!blkid_probe_lookup_value(pr, "UUID", &v, NULL))
			tag_add(t, "uuid", v);
		if (!blkid_probe_lookup_value(pr, "LABEL", &v, NULL))
			tag_add(t, "label", v);
	}
	if (whole)
		probe_partitions(pr, t);
	blkid_free_probe(pr);
	return 0;
}

/* Partitions are the sys/block/DISK/DISKpN entries that have a "partition" file. */
int probe_disk_tags(const struct root *r, const char *sysdir, const char *disk, char ***out, size_t *n)
{
	const char *rel = sysdir;
	struct tags t = { 0 };
	int fd, rr;
	DIR *dir;
	struct dirent *de;

	rr = probe_one(r, disk, true, &t);
	fd = root_openat(r, rel, O_RDONLY | O_DIRECTORY, 0);
	dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir && fd >= 0)
		close(fd);
	while (dir && (de = readdir(dir))) {
		char part[PATH_MAX];

		if (strncmp(de->d_name, disk, strlen(disk)))
			continue;
		if (pathf(part, sizeof(part), "%s/%s/partition", rel, de->d_name) == 0 && root_exists(r, part) &&
		    probe_one(r, de->d_name, false, &t) == 0)
			rr = 0;
	}
	if (dir)
		closedir(dir);
	*out = t.v;
	*n = t.n;
	return rr;
}
