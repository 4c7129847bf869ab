// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Originals, recorded under ROOT/run/earlytune before the first change of an
 * item (a tmpfs: they live until reboot, as the changes do): a disk's in
 * disks/NAME, an interface's in links/IFINDEX, the global ones in originals.
 * One line per item: domain, target, setting, path, value, identity,
 * tab-separated. The identity names the device the original belongs to (see
 * state_identity); lines of five fields (earlier versions) have none and are
 * not checked. This file holds them in memory; state_io.c reads the files
 * and state_write.c writes them, under the lock of lock.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/domain.h"
#include "engine/state.h"

#define NFIELDS 6

static const char *record_key(const void *data, size_t i)
{
	return ((const struct records *)data)->v[i].path;
}

static const char *file_key(const void *data, size_t i)
{
	return ((const struct records *)data)->files[i].rel;
}

/* The indexes point at their records: set at each use, since a struct
 * records may be copied between uses. */
static struct strindex *paths(const struct records *rs)
{
	struct strindex *x = (struct strindex *)&rs->by_path;

	x->key = record_key, x->data = rs;
	return x;
}

static struct strindex *rels(const struct records *rs)
{
	struct strindex *x = (struct strindex *)&rs->by_rel;

	x->key = file_key, x->data = rs;
	return x;
}

/* The file of disk NAME in rel: any kernel name but one that starts with a
 * dot, which a full load would take for a temporary file and skip (and a
 * sweep remove). No kernel names a disk so; a --device or a record can:
 * its records stay in originals. */
bool state_disk_file(const char *name, char *rel)
{
	if (!valid_name(name) || name[0] == '.')
		return false;
	_Static_assert(sizeof(DISKS_DIR "/") + NAME_MAX <= STATE_REL_MAX, "a disk's file name fits");
	memcpy(rel, DISKS_DIR "/", sizeof(DISKS_DIR));
	strcpy(rel + sizeof(DISKS_DIR), name);
	return true;
}

/* A disk's records in disks/NAME, an interface's in links/IFINDEX (what
 * in_scope calls a device's or an interface's; for a domain of both global
 * and device items, its device_of hook says which, from the path and the
 * identity), the others in originals.
 * A udev run about one device then reads and rewrites its own file only. */
void state_file_of(const char *domain, const char *target, const char *path, const char *identity, char *rel)
{
	const struct domain *d = state_domain(domain);
	int ifindex;
	char disk[NAME_MAX + 1];

	/* A disk's domain: its target names the file (the rest is asked only
	 * of a name that cannot be one). */
	if (d && d->disks && state_disk_file(target, rel))
		return;
	ifindex = state_ifindex(domain, path);
	disk[0] = '\0'; /* not = "": that zeroes all of it, each record */
	if (d && d->device_of) {
		const struct record x = { .path = (char *)path, .identity = (char *)identity };

		d->device_of(&x, disk, sizeof(disk), &ifindex);
	}
	if (d && !d->disks && *disk && state_disk_file(disk, rel))
		return;
	if (ifindex > 0)
		fmt(rel, STATE_REL_MAX, LINKS_DIR "/%d", ifindex);
	else
		fmt(rel, STATE_REL_MAX, STATE_FILE);
}

size_t state_file_find(const struct records *rs, const char *rel)
{
	return strindex_find(rels(rs), rel);
}

/* The index of the file REL, added if it is not there yet. A disk's
 * records come one after another: the file last asked for is compared
 * before the index is hashed. */
int state_file_add(struct records *rs, const char *rel, size_t *idx)
{
	uint32_t h;
	size_t n;
	char *copy;

	if (rs->last_file < rs->nfiles && !strcmp(rs->files[rs->last_file].rel, rel)) {
		*idx = rs->last_file;
		return 0;
	}
	h = strindex_hash(rel);
	*idx = strindex_find_hashed(rels(rs), rel, h);
	if (*idx != STRINDEX_NONE) {
		rs->last_file = *idx;
		return 0;
	}
	if (array_grow(&rs->files, &rs->files_cap, rs->nfiles, sizeof(*rs->files), 8) < 0 ||
	    strindex_reserve(rels(rs), rs->nfiles) < 0)
		return -ENOMEM;
	n = strnlen(rel, STATE_REL_MAX - 1);
	copy = arena_alloc(&rs->strings, n + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, rel, n);
	copy[n] = '\0';
	rs->files[rs->nfiles] = (struct state_file){ .rel = copy };
	rs->last_file = *idx = rs->nfiles++;
	strindex_insert_hashed(rels(rs), *idx, h);
	return 0;
}

/* A change that its file's text cannot take as an append. */
static void file_dirty(struct records *rs, size_t idx)
{
	rs->files[idx].dirty = rs->files[idx].rewrite = true;
	rs->dirty = true;
}

/* h: the hash of its path (strindex_hash). */
static int push(struct records *rs, char **fields, size_t file, uint32_t h)
{
	size_t len[NFIELDS], total = 0;
	struct record *rec;
	char *p;

	if (array_grow(&rs->v, &rs->cap, rs->n, sizeof(*rs->v), 32) < 0 ||
	    strindex_reserve(paths(rs), rs->n) < 0)
		return -ENOMEM;
	for (int k = 0; k < NFIELDS; k++)
		total += len[k] = strlen(fields[k]) + 1;
	p = arena_alloc(&rs->strings, total);
	if (!p)
		return -ENOMEM;
	rec = &rs->v[rs->n];
	for (int k = 0; k < NFIELDS; k++) {
		char **dst[NFIELDS] = { &rec->domain, &rec->target, &rec->setting, &rec->path,
					&rec->value, &rec->identity };

		*dst[k] = memcpy(p, fields[k], len[k]);
		p += len[k];
	}
	rec->file = file;
	rec->fresh = false;
	strindex_insert_hashed(paths(rs), rs->n++, h);
	return 0;
}

/* A last line without its newline was torn by a crash mid-append (of its
 * record: the change it records was never made): dropped, and the next save
 * repairs the file. */
static void trim_torn(struct records *rs, char *buf, size_t file)
{
	char *end = strrchr(buf, '\n');

	if (*(end ? end + 1 : buf)) {
		*(end ? end + 1 : buf) = '\0';
		file_dirty(rs, file);
	}
}

/* A record read from FILE that belongs in another (written by an earlier
 * version, which kept every record in originals, or moved by hand) moves
 * there: both files are rewritten. A scoped load cannot know the other
 * file's records: it loads them all instead (state_load_scoped). */
static int file_of_record(struct records *rs, char **f, size_t from, size_t *file)
{
	char rel[STATE_REL_MAX];
	int rr;

	state_file_of(f[0], f[1], f[3], f[5], rel);
	*file = from;
	if (!strcmp(rel, rs->files[from].rel))
		return 0;
	if (rs->scoped_load && state_file_find(rs, rel) == STRINDEX_NONE) {
		rs->misplaced = true;
		return 1;
	}
	rr = state_file_add(rs, rel, file);
	if (rr < 0)
		return rr;
	file_dirty(rs, from);
	file_dirty(rs, *file);
	rs->files[from].moved_out = true;
	return 0;
}

/* Lines that do not have five or six fields are dropped: a record we cannot
 * read back is one we must not write back, nor one whose path is not where
 * apply writes (a tampered file must not point revert at etc/shadow of an
 * image). A second record of a path (a crash between the two files of a
 * move) is dropped too: the first original is the true one. Splits line in
 * place. */
static int parse_line(struct records *rs, char *line, size_t from)
{
	char *f[NFIELDS], *s = line;
	size_t n = 0, file;
	uint32_t h;
	int rr;

	while (n < NFIELDS && (f[n] = strsep(&s, "\t")))
		n++;
	if (n == NFIELDS - 1)
		f[n++] = (char *)""; /* no identity: not checked */
	if (n != NFIELDS || s || !valid_name(f[1]) || !state_path_ok(f[0], f[3]))
		return 0;
	h = strindex_hash(f[3]);
	if (strindex_find_hashed(paths(rs), f[3], h) != STRINDEX_NONE) {
		file_dirty(rs, from);
		return 0;
	}
	rr = file_of_record(rs, f, from, &file);
	return rr != 0 ? (rr < 0 ? rr : 0) : push(rs, f, file, h);
}

int state_parse_file(struct records *rs, char *buf, size_t file)
{
	char *save = NULL, *line;
	int rr;

	trim_torn(rs, buf, file);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		rr = parse_line(rs, line, file);
		if (rr < 0)
			return rr;
	}
	return 0;
}

/* Records as read from originals (the tests and the fuzzer feed it). */
int state_parse(struct records *rs, char *buf)
{
	size_t file;
	int rr = state_file_add(rs, STATE_FILE, &file);

	return rr < 0 ? rr : state_parse_file(rs, buf, file);
}

const struct record *state_find_loaded(const struct records *rs, const char *path)
{
	size_t i = strindex_find(paths(rs), path);

	return i == STRINDEX_NONE ? NULL : &rs->v[i];
}

/* Adds a record to file rel unless its path has one: the first original
 * is the true one. */
int state_add_loaded(struct records *rs, char **f, const char *rel)
{
	uint32_t h = strindex_hash(f[3]);
	size_t file;
	int rr;

	if (strindex_find_hashed(paths(rs), f[3], h) != STRINDEX_NONE)
		return 0;
	rr = state_file_add(rs, rel, &file);
	if (rr >= 0)
		rr = push(rs, f, file, h);
	if (rr >= 0) {
		rs->v[rs->n - 1].fresh = true;
		rs->files[file].dirty = rs->dirty = true;
	}
	return rr;
}

/* Drops every record whose drop[i] is set, then rebuilds the index once. */
void state_forget(struct records *rs, const bool *drop)
{
	size_t keep = 0, i;

	for (i = 0; i < rs->n && !drop[i]; i++)
		;
	if (i == rs->n)
		return; /* nothing to drop: the index stays */
	for (i = 0; i < rs->n; i++) {
		if (drop[i]) {
			file_dirty(rs, rs->v[i].file); /* its fields stay in strings */
		} else {
			rs->v[keep++] = rs->v[i];
		}
	}
	rs->n = keep;
	strindex_rebuild(paths(rs), rs->n);
}

void state_free(struct records *rs)
{
	free(rs->v);
	strindex_free(&rs->by_path);
	free(rs->files);
	arena_free(&rs->strings);
	strindex_free(&rs->by_rel);
	state_unlock(rs);
	*rs = (struct records){ .lock_fd = -1 };
}
