// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The records' files read under the lock (state_write.c writes them). On a
 * 1,000-disk host one shared file would be read and rewritten by every udev
 * run (a boot's N runs moving O(N^2) bytes): a run about one device reads
 * its own file only, and the rest when it asks for a record outside it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/state.h"

#define NFIELDS 6

/* Any failure to read a file but its absence is an error: "nothing
 * recorded" would let apply record the values it changed itself as
 * originals, and revert forget the true ones. An absent file is one whose
 * records are known: none. */
static int load_file(struct records *rs, const struct root *r, const char *rel)
{
	_cleanup_(freep) char *buf = NULL;
	size_t file;
	int rr = state_file_add(rs, rel, &file);

	if (rr >= 0)
		rr = root_read_file(r, rel, &buf, 1 << 26);
	if (rr >= 0 || rr == -ENOENT)
		rs->files[file].read = true;
	if (rr == -ENOENT)
		return 0;
	if (rr < 0)
		return rr;
	rs->files[file].override = true;
	rs->files[file].size = (size_t)rr;
	return state_parse_file(rs, buf, file);
}

static bool read_already(const struct records *rs, const char *rel)
{
	size_t f = state_file_find(rs, rel);

	return f != STRINDEX_NONE && rs->files[f].read;
}

/* Every file of DIR not read yet (names with a dot first are temporary
 * files of a rewrite: state_save sweeps them). */
static int load_dir(struct records *rs, const struct root *r, const char *dir)
{
	int fd = root_openat(r, dir, O_RDONLY | O_DIRECTORY, 0), rr = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!d) {
		rr = fd == -ENOENT ? 0 : fd < 0 ? fd : -errno;
		if (fd >= 0)
			close(fd);
		return rr;
	}
	while (rr >= 0 && (errno = 0, de = readdir(d))) {
		char rel[STATE_REL_MAX];

		if (de->d_name[0] == '.')
			continue;
		fmt(rel, sizeof(rel), "%s/%s", dir, de->d_name);
		if (!read_already(rs, rel))
			rr = load_file(rs, r, rel);
	}
	if (rr >= 0 && errno)
		rr = -errno;
	closedir(d);
	return rr;
}

/* The files a scoped load did not read, the overrides before the one
 * file: the records are then all there. */
int state_load_rest(struct records *rs, const struct root *r)
{
	int rr = read_already(rs, STATE_FILE) ? 0 : load_file(rs, r, STATE_FILE);

	rs->scoped_load = false;
	if (rr >= 0)
		rr = load_dir(rs, r, DISKS_DIR);
	if (rr >= 0)
		rr = load_dir(rs, r, LINKS_DIR);
	if (rr >= 0)
		rr = state_load_one(rs, r);
	return rr;
}

int state_load(struct records *rs, const struct root *r)
{
	rs->root = r;
	return rs->none ? 0 : state_load_rest(rs, r);
}

/* Records of an earlier version, all in originals, are moved by a full
 * load; until one has, a scoped run cannot trust the files of its devices.
 * disks/ exists once this version has saved originals or a disk's file. */
static bool files_split(const struct root *r)
{
	return root_access(r, DISKS_DIR) == 1 || root_access(r, STATE_FILE) == 0;
}

static bool any_override(const struct records *rs)
{
	for (size_t f = 0; f < rs->nfiles; f++)
		if (rs->files[f].override)
			return true;
	return false;
}

/* Drops what a load read, the lock and the root kept. */
static void records_clear(struct records *rs)
{
	struct records keep = { .lock_fd = rs->lock_fd, .root = rs->root, .whole = rs->whole, .none = rs->none };

	rs->lock_fd = -1;
	state_free(rs);
	*rs = keep;
}

/* A udev run about one disk or interface reads the files of its devices
 * (what in_scope can pick); runs about everything, and --iface (a name,
 * whose index may have changed), read all. A record outside the scope asked
 * for (state_find) or added (state_add) reads the others first, so no
 * caller can miss one. */
int state_load_scoped(struct records *rs, const struct root *r, const struct ctx *c)
{
	char rel[STATE_REL_MAX];
	int rr = 0;

	if (c->iface || (!c->ndevices && !c->ifindex) || rs->none)
		return state_load(rs, r);
	/* A name without a file of its own (a dot first) has its records in
	 * originals, beside the global ones: a full load, then, as for a run
	 * about everything. An invalid name has none. */
	for (size_t i = 0; i < c->ndevices; i++)
		if (valid_name(c->devices[i]) && !state_disk_file(c->devices[i], rel))
			return state_load(rs, r);
	rs->root = r, rs->scoped_load = true;
	for (size_t i = 0; i < c->ndevices && rr >= 0; i++)
		if (state_disk_file(c->devices[i], rel))
			rr = load_file(rs, r, rel);
	if (rr >= 0 && c->ifindex > 0) {
		fmt(rel, sizeof(rel), LINKS_DIR "/%d", c->ifindex);
		rr = load_file(rs, r, rel);
	}
	if (rr >= 0)
		rr = state_load_one_scoped(rs, r);
	/* A device's own file is this version's, and so is the one file (only
	 * a full load of this version writes it, after moving what an earlier
	 * one left in originals): only without either is the format asked —
	 * two failed lookups a udev run made on every host. */
	if (rr >= 0 && !any_override(rs) && !rs->one_seen && !files_split(r)) {
		records_clear(rs);
		return state_load(rs, r);
	}
	if (rr >= 0 && rs->misplaced) {
		records_clear(rs);
		rr = state_load(rs, r);
	}
	return rr;
}

/* Whether the file PATH's record would be in is one a scoped load read:
 * an interface's path names it; a disk's does not (its name is the
 * record's target). */
static bool read_file_of(const struct records *rs, const char *path)
{
	char rel[STATE_REL_MAX];
	int ifindex = state_ifindex(NULL, path);

	if (ifindex <= 0)
		return false;
	fmt(rel, sizeof(rel), LINKS_DIR "/%d", ifindex);
	return state_file_find(rs, rel) != STRINDEX_NONE;
}

/* A scoped load reads the other files when PATH may be in them (ENOMEM
 * aside, which leaves it unfound as the allocation of a record would). */
const struct record *state_find(struct records *rs, const char *path)
{
	const struct record *x = state_find_loaded(rs, path);

	if (!x && rs->scoped_load && rs->root && !read_file_of(rs, path) &&
	    state_load_rest(rs, rs->root) >= 0)
		x = state_find_loaded(rs, path);
	return x;
}

/* The file a record of the item goes in, read (a scoped load may not have
 * read it yet: its record may be there). */
static int load_file_of(struct records *rs, const struct item *it, const char *path, const char *identity,
			char *rel)
{
	state_file_of(it->domain, it->target, path, identity, rel);
	if (rs->scoped_load && state_file_find(rs, rel) == STRINDEX_NONE)
		return rs->root ? state_load_rest(rs, rs->root) : -EINVAL;
	return 0;
}

const struct record *state_find_as(struct records *rs, const struct item *it, const char *path,
				   const char *identity)
{
	char rel[STATE_REL_MAX];

	return load_file_of(rs, it, path, identity, rel) < 0 ? NULL : state_find_loaded(rs, path);
}

/* Never replaces an existing record: the first original is the true one
 * (a stale record, of another device, is forgotten before: state_stale). */
int state_add(struct records *rs, const struct item *it, const char *path, const char *original,
	      const char *identity)
{
	char *f[NFIELDS] = { (char *)it->domain, it->target, it->setting, (char *)path, (char *)original,
			     (char *)identity };
	char rel[STATE_REL_MAX];
	int rr;

	for (int i = 0; i < NFIELDS; i++)
		if (!f[i] || strpbrk(f[i], "\t\n"))
			return -EINVAL;
	rr = load_file_of(rs, it, path, identity, rel);
	return rr < 0 ? rr : state_add_loaded(rs, f, rel);
}
