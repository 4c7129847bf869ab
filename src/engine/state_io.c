// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The records' files, read and written whole under the lock: every change
 * rewrites a file through a new file renamed over it, so a crash or a full
 * /run leaves the old file or the new one, never a torn line. On a
 * 1,000-disk host one shared file would be read and rewritten by every udev
 * run (a boot's N runs moving O(N^2) bytes): a run about one device reads
 * and rewrites its own file only.
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
	return state_load_rest(rs, r);
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
	struct records keep = { .lock_fd = rs->lock_fd, .root = rs->root, .whole = rs->whole };

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

	if (c->iface || (!c->ndevices && !c->ifindex))
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

/* The directories one commit writes in, each opened once: a full run of a
 * 1,000-disk host writes 1,000 files in disks/, and opening the directory
 * for each was four system calls of the nine a file cost. */
enum { DIR_STATE, DIR_DISKS, DIR_LINKS, NDIRS };
static const char *const dir_rel[NDIRS] = { STATE_DIR, DISKS_DIR, LINKS_DIR };

struct dirs {
	int fd[NDIRS];
};

static void dirs_close(struct dirs *ds)
{
	for (int i = 0; i < NDIRS; i++)
		if (ds->fd[i] >= 0)
			close(ds->fd[i]);
}

/* The fd of directory i; made if missing and make, in run/earlytune as
 * opened (the lock made it: a save makes no more), never through a link. */
static int dir_fd(struct dirs *ds, const struct root *r, int i, bool make)
{
	const char *name = strrchr(dir_rel[i], '/') + 1;
	int rr, sfd;

	if (ds->fd[i] >= 0)
		return ds->fd[i];
	rr = root_openat(r, dir_rel[i], O_RDONLY | O_DIRECTORY, 0);
	if (rr == -ENOENT && make && i != DIR_STATE) {
		sfd = dir_fd(ds, r, DIR_STATE, false);
		rr = sfd < 0 ? sfd : mkdirat(sfd, name, 0755) < 0 && errno != EEXIST ? -errno : 0;
		if (rr >= 0 && (rr = openat(sfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
			rr = -errno;
	}
	return rr < 0 ? rr : (ds->fd[i] = rr);
}

static int dir_of(const char *rel)
{
	return !strcmp(rel, STATE_FILE)			    ? DIR_STATE
	       : !strncmp(rel, DISKS_DIR "/", sizeof(DISKS_DIR)) ? DIR_DISKS
								   : DIR_LINKS;
}

static int unlink_file(struct dirs *ds, const struct root *r, const char *rel)
{
	int dfd = dir_fd(ds, r, dir_of(rel), false);

	if (dfd < 0)
		return dfd == -ENOENT ? 0 : dfd;
	return unlinkat(dfd, strrchr(rel, '/') + 1, 0) < 0 && errno != ENOENT ? -errno : 0;
}

/* A new file, then rename over the old one: a crash or a full /run leaves
 * the old file or the new one, never a torn line. A disk's or an
 * interface's file without records goes, unless the one file has lines of
 * it: it stays, empty, and they are gone (a tombstone). originals stays,
 * empty, and disks/ beside it is files_split's sign. */
static int write_file(const struct records *rs, const struct root *r, struct dirs *ds, size_t file,
		      const size_t *idx, size_t n)
{
	const char *rel = rs->files[file].rel, *name = strrchr(rel, '/') + 1;
	int i = dir_of(rel);
	_cleanup_(freep) char *buf = NULL;
	size_t len;
	int dfd, rr;

	if (!n && i != DIR_STATE && !rs->files[file].in_one) {
		/* an override that a scoped load read: the one file may have lines */
		rr = rs->files[file].override ? root_access(r, RECORDS_FILE) : 0;
		if (rr <= 0)
			return rr < 0 ? rr : unlink_file(ds, r, rel);
	}
	buf = state_format(rs, idx, n, &len);
	if (!buf)
		return -ENOMEM;
	dfd = dir_fd(ds, r, i, true);
	rr = dfd < 0 ? dfd : file_replace_at(dfd, name, buf, len, 0600, false); /* /run: volatile */
	if (rr >= 0 && i == DIR_STATE)
		rr = dir_fd(ds, r, DIR_DISKS, true);
	return rr < 0 ? rr : 0;
}

/* The records' indexes grouped by file, in their order (a counting sort):
 * order[start[f] .. start[f + 1]) are file f's. */
static int group(const struct records *rs, size_t **order, size_t **start)
{
	size_t *pos;

	*order = malloc((rs->n + 1) * sizeof(**order));
	*start = calloc(rs->nfiles + 2, sizeof(**start));
	pos = calloc(rs->nfiles + 1, sizeof(*pos));
	if (!*order || !*start || !pos) {
		free(pos);
		return -ENOMEM;
	}
	for (size_t i = 0; i < rs->n; i++)
		(*start)[rs->v[i].file + 1]++;
	for (size_t f = 0; f < rs->nfiles; f++) {
		(*start)[f + 1] += (*start)[f];
		pos[f] = (*start)[f];
	}
	for (size_t i = 0; i < rs->n; i++)
		(*order)[pos[rs->v[i].file]++] = i;
	free(pos);
	return 0;
}

/* A run about everything: every record into the one file, then every
 * override goes (after the rename: a crash between leaves an override
 * that still wins, with the lines the one file has too). Without records
 * the one file goes too, last. An override that cannot go is an error
 * (it stays, the same as the one file's lines), the others go. */
static int commit_whole(struct records *rs, const struct root *r, struct dirs *ds, const size_t *order,
			const size_t *start)
{
	_cleanup_(freep) char *buf = NULL;
	int dfd = dir_fd(ds, r, DIR_STATE, false), rr, err = 0;
	size_t len;

	if (dfd < 0)
		return dfd;
	buf = one_format(rs, order, start, &len);
	if (!buf)
		return -ENOMEM;
	rr = file_replace_at(dfd, strrchr(RECORDS_FILE, '/') + 1, buf, len, 0600, false); /* /run: volatile */
	if (rr < 0)
		return rr;
	rs->one_seen = true;
	for (size_t f = 0; f < rs->nfiles; f++) {
		rs->files[f].in_one = start[f + 1] > start[f];
		if (!rs->files[f].override)
			continue;
		rr = unlink_file(ds, r, rs->files[f].rel);
		rs->files[f].override = rr < 0;
		err = err ? err : rr < 0 ? rr : 0;
	}
	if (!err && !rs->n && unlinkat(dfd, strrchr(RECORDS_FILE, '/') + 1, 0) < 0 && errno != ENOENT)
		err = -errno;
	rs->one_seen = rs->n || err;
	return err;
}

/* Rewrites the files whose records changed, those that moved records to
 * another file (an earlier version's originals) last: a record moved is
 * never only in the file it left. The first failure stops: the files not
 * written keep their records, and stay to be written. */
static int commit_files(struct records *rs, const struct root *r, struct dirs *ds, const size_t *order,
			const size_t *start)
{
	int rr = 0;

	for (int moved = 0; moved < 2; moved++)
		for (size_t f = 0; f < rs->nfiles && rr >= 0; f++) {
			if (!rs->files[f].dirty || rs->files[f].moved_out != moved)
				continue;
			rr = write_file(rs, r, ds, f, order + start[f], start[f + 1] - start[f]);
			rs->files[f].dirty = rr < 0;
		}
	return rr;
}

/* Whether a run about everything has to write: a change, an override to
 * fold in, or a one file that no record is left for. */
static bool whole_due(const struct records *rs)
{
	bool any = rs->dirty && (rs->n || rs->one_seen);

	for (size_t f = 0; !any && f < rs->nfiles; f++)
		any = rs->files[f].override;
	return any;
}

static bool writes_in(const struct records *rs, int dir)
{
	for (size_t f = 0; f < rs->nfiles; f++)
		if (rs->files[f].dirty && dir_of(rs->files[f].rel) == dir)
			return true;
	return false;
}

int state_commit(struct records *rs, const struct root *r)
{
	_cleanup_(freep) size_t *order = NULL;
	_cleanup_(freep) size_t *start = NULL;
	struct dirs ds = { { -1, -1, -1 } };
	int rr;

	if (rs->whole ? !whole_due(rs) : !rs->dirty) {
		rs->dirty = false;
		return 0;
	}
	/* A udev run writes its device's file in disks/ or links/ only: the
	 * listing of run/earlytune (seven calls) is for runs that write there. */
	if (rs->lock_fd >= 0 && (rs->whole || writes_in(rs, DIR_STATE)))
		root_sweep_temps(r, STATE_DIR, NULL, NULL);
	if (rs->lock_fd >= 0 && rs->whole) {
		root_sweep_temps(r, DISKS_DIR, NULL, NULL);
		root_sweep_temps(r, LINKS_DIR, NULL, NULL);
	}
	if (group(rs, &order, &start) < 0)
		return -ENOMEM;
	rr = rs->whole ? commit_whole(rs, r, &ds, order, start) : commit_files(rs, r, &ds, order, start);
	dirs_close(&ds);
	if (rr < 0)
		return rr;
	rs->dirty = false;
	for (size_t f = 0; f < rs->nfiles; f++)
		rs->files[f].moved_out = rs->files[f].dirty = false;
	return 0;
}

/* Rewrites every file read (a scoped load: its own only), originals
 * always after a full one, and sweeps the temporary files a killed rewrite
 * left in the directories of the others. */
int state_save(struct records *rs, const struct root *r)
{
	size_t shared;
	int rr = rs->scoped_load || rs->whole ? 0 : state_file_add(rs, STATE_FILE, &shared);

	if (rr < 0)
		return rr;
	for (size_t f = 0; f < rs->nfiles; f++)
		rs->files[f].dirty = true;
	rs->dirty = true;
	if (rs->lock_fd >= 0 && rs->whole) /* even with nothing to write */
		root_sweep_temps(r, STATE_DIR, NULL, NULL);
	if (rs->lock_fd >= 0 && !rs->scoped_load) {
		root_sweep_temps(r, DISKS_DIR, NULL, NULL);
		root_sweep_temps(r, LINKS_DIR, NULL, NULL);
	}
	return state_commit(rs, r);
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
