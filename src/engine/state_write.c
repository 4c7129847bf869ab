// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The records' files written under the lock. A run about everything writes
 * the one file and removes the overrides it folded in; a run about one
 * device writes its device's file only. A file is replaced whole through a
 * new file renamed over it, so a crash or a full /run leaves the old file
 * or the new one; a device's file that only gained records has them
 * appended instead (a record is written before the change it records: a
 * torn line is of a change never made, and the reader drops it).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/state.h"

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

/* The lines of a file's records its own file does not have yet. */
static char *fresh_lines(const struct records *rs, const size_t *idx, size_t n, size_t *len)
{
	_cleanup_(freep) size_t *sel = malloc((n ? n : 1) * sizeof(*sel));
	size_t k = 0;

	if (!sel)
		return NULL;
	for (size_t j = 0; j < n; j++)
		if (rs->v[idx[j]].fresh)
			sel[k++] = idx[j];
	return state_format(rs, sel, k, len);
}

/* Directory i, made in run/earlytune (which the lock made): one open, one
 * mkdirat, one close. */
static int make_dir(const struct root *r, int i)
{
	char last[NAME_MAX + 1];
	_cleanup_(closep) int dfd = root_parent(r, dir_rel[i], last, sizeof(last));

	if (dfd < 0)
		return dfd;
	return mkdirat(dfd, last, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

/* Whether a device's file takes its records without a rewrite: one that
 * only gained records since it was read (appended to), or one looked for
 * and not there, or not looked for on a boot's first run, of a device the
 * one file has no line of (created with them). Not a device the one file
 * has lines of: killed between its create and its write, the empty file
 * left would be a tombstone, and those lines lost. */
static bool growable(const struct records *rs, const struct state_file *f, size_t n)
{
	if (dir_of(f->rel) == DIR_STATE)
		return false;
	return f->override ? !f->rewrite : n && (f->read || rs->none) && !f->in_one;
}

/* A growable file's records appended or created: three calls each, where
 * a replace costs ten (the udev run's first change of a disk). -ENOENT,
 * -EEXIST: the file is not as it was read, or disks/ is missing: the
 * caller replaces it. */
static int grow_file(struct records *rs, const struct root *r, size_t file, const size_t *idx, size_t n)
{
	struct state_file *f = &rs->files[file];
	_cleanup_(freep) char *buf = NULL;
	size_t len;
	int rr;

	buf = f->override ? fresh_lines(rs, idx, n, &len) : state_format(rs, idx, n, &len);
	if (!buf)
		return -ENOMEM;
	rr = root_append_known(r, f->rel, buf, len, f->override ? (off_t)f->size : -1, 0600);
	if (rr < 0) {
		f->rewrite = true;
		return rr;
	}
	f->size = f->override ? f->size + len : len;
	f->override = true;
	return 0;
}

/* A new file, then rename over the old one: a crash or a full /run leaves
 * the old file or the new one, never a torn line. A disk's or an
 * interface's file without records goes, unless the one file has lines of
 * it: it stays, empty, and they are gone (a tombstone). originals stays,
 * empty, and disks/ beside it is files_split's sign. */
static int replace_file(struct records *rs, const struct root *r, struct dirs *ds, size_t file,
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
		if (rr <= 0) {
			rs->files[file].override = false;
			return rr < 0 ? rr : unlink_file(ds, r, rel);
		}
	}
	buf = state_format(rs, idx, n, &len);
	if (!buf)
		return -ENOMEM;
	dfd = dir_fd(ds, r, i, true);
	rr = dfd < 0 ? dfd : file_replace_at(dfd, name, buf, len, 0600, false); /* /run: volatile */
	if (rr >= 0 && i == DIR_STATE)
		rr = dir_fd(ds, r, DIR_DISKS, true);
	if (rr >= 0 && i != DIR_STATE)
		rs->files[file].override = true, rs->files[file].size = len;
	return rr < 0 ? rr : 0;
}

/* A file's records, as they changed since it was read or last written. */
static int write_file(struct records *rs, const struct root *r, struct dirs *ds, size_t file,
		      const size_t *idx, size_t n)
{
	struct state_file *f = &rs->files[file];
	int rr = -ENOENT;

	if (growable(rs, f, n)) {
		rr = grow_file(rs, r, file, idx, n);
		/* a host's first device file: a run about everything made none */
		if (rr == -ENOENT && !f->override && make_dir(r, dir_of(f->rel)) >= 0)
			rr = grow_file(rs, r, file, idx, n);
	}
	if (rr == -ENOENT || rr == -EEXIST)
		rr = replace_file(rs, r, ds, file, idx, n);
	if (rr < 0)
		return rr;
	f->rewrite = false;
	for (size_t j = 0; j < n; j++)
		rs->v[idx[j]].fresh = false;
	return 0;
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
		rs->files[f].dirty = rs->files[f].rewrite = true;
	rs->dirty = true;
	if (rs->lock_fd >= 0 && rs->whole) /* even with nothing to write */
		root_sweep_temps(r, STATE_DIR, NULL, NULL);
	if (rs->lock_fd >= 0 && !rs->scoped_load) {
		root_sweep_temps(r, DISKS_DIR, NULL, NULL);
		root_sweep_temps(r, LINKS_DIR, NULL, NULL);
	}
	return state_commit(rs, r);
}
