// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The block domain: whole disks of ROOT/sys/block (or of sys/devices in a
 * captured tree), or those --device names, each classified and planned.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/array.h"
#include "base/log.h"
#include "block/disk.h"

/* ---- discovery ----------------------------------------------------------- */

/* The directories of the disks to plan, their texts in one arena. */
struct dirs {
	char **v;
	size_t n;
	struct arena names;
};

/* prefix and name, as one more directory. The room doubles, its size told
 * by the count (8, then each power of two): a realloc for each disk moved
 * the list every time, 4 MB copied for 1,000 disks. */
static int add_dir(struct dirs *l, const char *prefix, const char *name)
{
	size_t n = l->n;
	bool full = n >= 8 ? !(n & (n - 1)) : n == 0;
	char *dir = arena_cat(&l->names, prefix, name);
	char **nv = !dir ? NULL : full ? realloc(l->v, (n ? 2 * n : 8) * sizeof(*l->v)) : l->v;

	if (!nv)
		return -ENOMEM; /* dir, if made, goes with the arena */
	l->v = nv;
	nv[l->n++] = dir;
	return 0;
}

static void dirs_free(struct dirs *l)
{
	free(l->v);
	arena_free(&l->names);
	*l = (struct dirs){ 0 };
}

/* Trees captured without sys/block (libnvme's test data) still hold the
 * disks under sys/devices: a directory with a queue/ and no partition file.
 * Links are not followed; a disk's own subdirectories are not searched. */
static int walk_devices(struct ctx *c, const char *rel, int depth, struct dirs *l);

/* A directory with a queue/ and no partition file is a disk; any other is
 * searched, a few levels deep. */
static int walk_child(struct ctx *c, const char *child, int depth, struct dirs *l)
{
	char probe[PATH_MAX];
	int r = pathf(probe, sizeof(probe), "%s/queue", child);

	if (r == 0)
		r = root_access(&c->root, probe);
	if (r > 0) {
		r = pathf(probe, sizeof(probe), "%s/partition", child);
		if (r == 0)
			r = root_access(&c->root, probe);
		return r == 0 ? add_dir(l, "", child) : r;
	}
	return r == 0 && depth < 12 ? walk_devices(c, child, depth + 1, l) : r;
}

static int walk_devices(struct ctx *c, const char *rel, int depth, struct dirs *l)
{
	int fd = root_openat(&c->root, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	int r = 0;

	if (!dir) {
		if (fd >= 0)
			close(fd);
		/* Absent, or a link (not followed): nothing to walk. */
		return fd >= 0 ? -errno : fd == -ENOENT || fd == -ELOOP || fd == -ENOTDIR ? 0 : fd;
	}
	for (errno = 0; r >= 0 && (de = readdir(dir)); errno = 0) {
		char child[PATH_MAX];

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		r = pathf(child, sizeof(child), "%s/%s", rel, de->d_name);
		if (r == 0)
			r = walk_child(c, child, depth, l);
	}
	if (r >= 0 && errno)
		r = -errno;
	closedir(dir);
	return r < 0 ? r : 0;
}

/* The sysfs directory of every whole disk: sys/block/NAME normally. */
static int list_disks(struct ctx *c, struct dirs *l)
{
	int fd = root_openat(&c->root, "sys/block", O_RDONLY | O_DIRECTORY, 0);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	int r = 0;
	bool listed = dir != NULL; /* every name sys/block/NAME */

	if (!dir && fd >= 0)
		close(fd);
	if (!dir && fd != -ENOENT)
		return fd < 0 ? fd : -errno;
	if (!dir)
		r = walk_devices(c, "sys/devices", 0, l);
	for (errno = 0; dir && r >= 0 && (de = readdir(dir)); errno = 0)
		if (de->d_name[0] != '.')
			r = add_dir(l, "sys/block/", de->d_name);
	if (dir && r >= 0 && errno)
		r = -errno; /* a listing cut short is not "no more disks" */
	if (dir)
		closedir(dir);
	block_sort_dirs(l->v, l->n, listed);
	return r;
}

/* A --device that is not a whole disk becomes an error item (exit 1), and so
 * does one whose lookup failed (err < 0): an unreadable sys/block entry is
 * not a missing disk, nor is the disk a partition because its
 * sys/class/block link reads. */
static __attribute__((noinline)) const char *device_dir(struct ctx *c, struct plan *p, const char *name, char **dirs, size_t n, int err)
{
	char rel[PATH_MAX], disk[NAME_MAX + 1];
	struct item *it;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(base_of(dirs[i]), name))
			return dirs[i];
	if (pathf(rel, sizeof(rel), "sys/block/%s", name) < 0 && err >= 0)
		err = -ENAMETOOLONG;
	it = plan_add(p, "block", name, "-", rel);
	if (!it)
		return NULL;
	it->action = ACT_ERROR;
	if (err < 0) {
		item_setf(&it->error, "cannot look up '%s' in %s/sys/block: %s", name,
			  c->root.is_host ? "" : c->root.dir, strerror(-err));
		return NULL;
	}
	if (pathf(rel, sizeof(rel), "sys/class/block/%s", name) == 0 &&
	    block_partition_disk(&c->root, rel, disk, sizeof(disk)) == 0) {
		/* Not applicable, not a failure: udev may hand us any block device. */
		item_skip(it, NULL);
		item_setf(&it->reason, "'%s' is a partition of '%s'; earlytune tunes whole disks only", name, disk);
	} else {
		item_setf(&it->error, "'%s' is not a disk in %s/sys/block", name,
			  c->root.is_host ? "" : c->root.dir);
	}
	return NULL;
}

/* The disks to plan: each --device (one lookup, not a listing: udev runs
 * this per device; a lookup that fails leaves its error in errs[i]), or
 * every whole disk. sys/block itself is looked at only when a device is not
 * there: a tree without it holds its disks under sys/devices. noinline:
 * its PATH_MAX buffer is gone before block_plan's disks are planned. */
static __attribute__((noinline)) int disk_dirs(struct ctx *c, struct dirs *l, int *errs, int *at)
{
	int r = 0, block = 1;

	if (!c->ndevices)
		return list_disks(c, l);
	for (size_t i = 0; i < c->ndevices && r >= 0 && block > 0; i++) {
		char rel[PATH_MAX];
		int rr = pathf(rel, sizeof(rel), "sys/block/%s", c->devices[i]);

		/* Held open for the disk's reads: one lookup, not two. */
		if (rr == 0 && (rr = at[i] = root_openat(&c->root, rel, O_PATH | O_DIRECTORY, 0)) >= 0)
			rr = 1;
		else if (rr == -ENOTDIR)
			rr = root_access(&c->root, rel);
		else if (rr == -ENOENT)
			rr = 0;
		if (rr > 0)
			r = add_dir(l, "", rel);
		else if (rr < 0)
			errs[i] = rr;
		else
			block = root_access(&c->root, "sys/block");
	}
	if (block > 0)
		return r;
	dirs_free(l);
	if (!block)
		return list_disks(c, l);
	for (size_t i = 0; i < c->ndevices; i++) /* each disk asked for fails with the reason */
		errs[i] = block;
	return 0;
}

/* Whether the plan changes one of the items from first on. */
static bool changes(const struct plan *p, size_t first)
{
	for (size_t i = first; i < p->n; i++)
		if (p->v[i].action == ACT_CHANGE)
			return true;
	return false;
}

/* Two items a disk, most often (a scheduler, a read-ahead): a full run's
 * array for 1,000 disks made once, not copied at each doubling. */
static int reserve_items(const struct ctx *c, struct plan *p, size_t n)
{
	return c->ndevices || n <= 32 ? 0 : array_reserve(&p->v, &p->cap, p->n + 2 * n, sizeof(*p->v));
}

int block_plan(struct ctx *c, struct plan *p)
{
	struct bconf *bc = bconf_new(&c->cfg);
	int *errs = calloc(c->ndevices + 1, sizeof(*errs));
	int *at = malloc((c->ndevices + 1) * sizeof(*at));
	struct dirs dirs = { 0 };
	struct rdir blk;
	size_t n;
	int r;

	if (!bc || !errs || !at) {
		bconf_free(bc);
		free(errs);
		free(at);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->ndevices; i++)
		at[i] = -1;
	r = disk_dirs(c, &dirs, errs, at);
	n = dirs.n;
	block_identity_reset();
	if (reserve_items(c, p, n) < 0 && r >= 0)
		r = -ENOMEM;
	/* Each disk's link is read in sys/block held open: a udev run, about one
	 * disk, reads it by path (one lookup, no look at sys/block first). */
	if (c->ndevices || !n || strncmp(dirs.v[0], "sys/block/", 10) || rdir_open(&blk, &c->root, "sys/block") < 0)
		rdir_unheld(&blk, &c->root, "sys/block");
	for (size_t i = 0; i < (c->ndevices ? c->ndevices : n); i++) {
		const char *dir = c->ndevices ? device_dir(c, p, c->devices[i], dirs.v, n, errs[i]) : dirs.v[i];
		struct disk d;

		disk_init(&d, dir, &blk);
		if (c->ndevices && dir && at[i] >= 0 && !strncmp(dir, "sys/block/", 10) &&
		    !strcmp(dir + 10, c->devices[i])) /* the directory it opened */
			rdir_adopt(&d.at, &c->root, dir, at[i]);
		else if (c->ndevices && at[i] >= 0)
			close(at[i]);
		if (!dir)
			continue;
		size_t first = p->n;

		block_classify(c, &d);
		log_msg(LOG_DEBUG, "%s: class %s (%s)", d.name, cls_name(&d), d.why);
		block_plan_disk(c, p, &d, bc);
		/* The memo saves a full run's records a read by path each; a run
		 * about named devices reads a disk's identity once anyway (its
		 * records' cache holds it), and a second read here cost it an
		 * open, a read and a close of diskseq. */
		if (c->applying && !c->ndevices && changes(p, first))
			block_identity_note(&d);
		disk_free(&d);
	}
	rdir_close(&blk);
	/* One disk of a udev run matching none says nothing of the others. */
	if (!c->ndevices && n)
		bconf_unmatched(bc, p);
	dirs_free(&dirs);
	free(errs);
	free(at);
	bconf_free(bc);
	return r;
}
