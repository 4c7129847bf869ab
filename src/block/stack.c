// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Stacked devices (dm-N, mdN): the whole disks at the bottom of them, and
 * whether they are ready. The filesystem reads ahead through the top device,
 * so its read-ahead follows the class of the disks it finally sits on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "block/disk.h"

/* dm on dm on md on dm is already deep; sysfs has no cycles, this is a guard. */
#define STACK_DEPTH 8

static int add_name(char ***v, size_t *n, const char *name)
{
	char **nv;

	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i], name))
			return 0; /* an LV on vda1 and vda2 sits on vda once */
	nv = realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n] = strdup(name);
	if (!nv[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* The DISK of a link ending …/DISK/NAME, or false. */
static bool link_disk(char *link, char *disk, size_t size)
{
	char *s = strrchr(link, '/');

	if (!s)
		return false;
	*s = '\0';
	fmt(disk, size, "%s", strrchr(link, '/') ? strrchr(link, '/') + 1 : link);
	return true;
}

int block_partition_disk(const struct root *r, const char *rel, char *disk, size_t size)
{
	const char *name = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
	char at[PATH_MAX], link[PATH_MAX];
	int p;

	if (pathf(at, sizeof(at), "sys/class/block/%s", name) < 0)
		return -ENAMETOOLONG;
	p = root_readlink(r, rel, link, sizeof(link));
	if (p == -EINVAL && strcmp(rel, at)) /* a captured tree that copied the link as a directory */
		p = root_readlink(r, at, link, sizeof(link));
	if (p > 0 && link_disk(link, disk, size))
		return 0;
	if (p < 0 && p != -EINVAL && p != -ENOENT)
		return p;
	/* Captures without sys/class/block: the disk whose name is a prefix of
	 * the partition's and that holds NAME/partition (sdc1 → sys/block/sdc/sdc1). */
	for (size_t len = *name ? strlen(name) - 1 : 0; len > 0; len--) {
		if (pathf(at, sizeof(at), "sys/block/%.*s/%s/partition", (int)len, name, name) < 0)
			return -ENAMETOOLONG;
		if (root_access(r, at) > 0) {
			fmt(disk, size, "%.*s", (int)len, name);
			return 0;
		}
	}
	return -ENOENT;
}

/* A slave is a whole disk or a partition (slaves/vda1 → …/block/vda/vda1):
 * a partition is read ahead through its disk, which is what has a class. */
static int slave_disk(const struct root *r, const char *rel, char *disk, size_t size)
{
	char at[PATH_MAX];
	int p;

	p = pathf(at, sizeof(at), "%s/partition", rel);
	if (p == 0)
		p = root_access(r, at);
	if (p <= 0) {
		fmt(disk, size, "%s", strrchr(rel, '/') + 1);
		return p;
	}
	return block_partition_disk(r, rel, disk, size);
}

struct walk {
	const struct root *r;
	char **v;
	size_t n;
	int depth;
	int err;
};

static int walk(struct walk *w, const char *dir);

/* One entry of a slaves/ directory: its disk, or the disks that one sits on. */
static void walk_slave(const char *rel, void *data)
{
	struct walk *w = data;
	char disk[NAME_MAX + 1], sub[PATH_MAX];
	int r;

	if (w->err < 0)
		return;
	r = slave_disk(w->r, rel, disk, sizeof(disk));
	if (r >= 0)
		r = pathf(sub, sizeof(sub), "sys/block/%s", disk);
	if (r >= 0) {
		r = w->depth < STACK_DEPTH ? walk(w, sub) : 0;
		if (r == 0)
			r = add_name(&w->v, &w->n, disk);
	}
	if (r < 0)
		w->err = r;
}

/* The number of dir's own slaves (0: dir is a bottom disk), or -errno. */
static int walk(struct walk *w, const char *dir)
{
	char rel[PATH_MAX];
	int n;

	if (pathf(rel, sizeof(rel), "%s/slaves", dir) < 0)
		return -ENAMETOOLONG;
	w->depth++;
	n = root_match(w->r, rel, "*", walk_slave, w);
	w->depth--;
	return w->err < 0 ? w->err : n;
}

static int cmp_names(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

int block_bottom_disks(const struct root *r, const char *dir, char ***names, size_t *n)
{
	struct walk w = { .r = r };
	int ret = walk(&w, dir);

	if (ret >= 0 && w.n)
		qsort(w.v, w.n, sizeof(*w.v), cmp_names);
	*names = w.v;
	*n = w.n;
	return ret < 0 ? ret : 0;
}

/* The kernel adds dm-N when its first table is loaded, suspended and with
 * size 0; resuming it sends the change event that tunes it. Only what the
 * tree says counts: a missing file is no evidence of either. */
int block_stack_ready(const struct root *r, const char *dir, const char *name, char *why, size_t size)
{
	char rel[PATH_MAX], v[32] = "";
	int ret;

	*why = '\0';
	ret = pathf(rel, sizeof(rel), "%s/size", dir);
	if (ret == 0)
		ret = root_read(r, rel, v, sizeof(v));
	if (ret < 0 && ret != -ENOENT)
		return ret;
	if (ret >= 0 && !strcmp(v, "0")) {
		fmt(why, size, "size 0: no table or array behind it yet");
		return 0;
	}
	if (strncmp(name, "dm-", 3))
		return 1;
	*v = '\0';
	ret = pathf(rel, sizeof(rel), "%s/dm/suspended", dir);
	if (ret == 0)
		ret = root_read(r, rel, v, sizeof(v));
	if (ret < 0 && ret != -ENOENT)
		return ret;
	if (!strcmp(v, "1")) {
		fmt(why, size, "dm/suspended=1: its table is not live until it resumes");
		return 0;
	}
	return 1;
}
