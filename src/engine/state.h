/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The records: originals saved before the first change (state.c, read and
 * written by state_io.c and state_write.c under the lock of lock.c), and whose device each
 * belongs to (state_id.c, through the domains' identity hooks). For the
 * engine's files; commands use them through a session (session.h).
 */
#pragma once

#include <limits.h>

#include "base/array.h"
#include "earlytune.h"

struct record {
	char *domain, *target, *setting, *path, *value;
	char *identity; /* "diskseq:N", "dev:HASH", "ifindex:N"; "" unchecked (global, old line) */
			/* the six fields: NUL-separated in this order, in records.strings */
	size_t file;    /* its file in records.files */
	bool fresh;     /* added since its file was last written: an append writes it */
};
struct idcache {
	char target[NAME_MAX + 1], id[64];
	int r;
	bool valid;
};
/* A file of records: originals, disks/NAME or links/IFINDEX. */
#define STATE_REL_MAX 288
struct state_file {
	char *rel;      /* in records.strings: a 1,000-disk run has 1,000, and an inline
			 * STATE_REL_MAX each touched 300 KB (73 page faults) for names of 12 */
	bool dirty;     /* its records changed: state_commit rewrites it */
	bool moved_out; /* records of it moved to another file: written after that one */
	bool read;      /* its own file was looked for (and read when there) */
	bool override;  /* its own file is there: it replaces its lines of the one file */
	bool in_one;    /* the one file has lines of it (read, or replaced by the override) */
	bool rewrite;   /* its own file's text lost or moved a line, or was torn: written whole */
	size_t size;    /* its own file's bytes as read or last written */
};
struct records {
	struct record *v;
	size_t n, cap;
	struct strindex by_path;
	struct state_file *files; /* the files read (or to be written) */
	size_t nfiles, files_cap;
	struct strindex by_rel;
	int lock_fd;
	bool dirty;       /* changed since the load: state_commit saves */
	bool scoped_load; /* only the files of the command's devices were read */
	bool misplaced;   /* a scoped load met a record of a file it did not read */
	bool whole;       /* a run about everything: its commit writes the one file */
	bool one_seen;    /* the one file is there */
	bool none;        /* the lock made run/earlytune and came first: no file to read */
	struct arena strings;     /* the records' fields and the files' rels */
	const struct root *root; /* where a scoped load reads the others */
	struct idcache idcache;  /* the last disk's identity */
	size_t last_file;        /* the file state_file_add found last */
};

/* ---- lock.c ---- */
int state_lock(struct records *rs, const struct root *r); /* -ETIMEDOUT: a stuck peer */
void state_unlock(struct records *rs);
extern unsigned state_lock_stall_ms, state_lock_wait_ms; /* its bounds; the unit tests shorten them */
extern unsigned state_lock_beat_ms; /* how often a holder shows it is working */

/* ---- state_io.c reads the files, state_write.c writes them ---- */
int state_load(struct records *rs, const struct root *r);
/* Only the records c's --device or --ifindex can need; the rest on demand. */
int state_load_scoped(struct records *rs, const struct root *r, const struct ctx *c);
int state_load_rest(struct records *rs, const struct root *r);
int state_save(struct records *rs, const struct root *r);
int state_commit(struct records *rs, const struct root *r);

/* ---- state_one.c: the one file a run about everything writes ---- */
struct one_map {
	const char *p;
	size_t size, index, index_end, body;
};
struct one_entry {
	const char *key, *at; /* key: klen bytes; at: len bytes of lines */
	size_t klen, len;
};
int one_map(const struct root *r, struct one_map *m); /* -ENOENT: none; -EBADMSG: not ours */
void one_unmap(struct one_map *m);
int one_next(const struct one_map *m, size_t *pos, struct one_entry *e); /* 1, 0: the end */
int one_find(const struct one_map *m, const char *rel, struct one_entry *e); /* 1, 0: none */
char *one_format(const struct records *rs, const size_t *order, const size_t *start, size_t *len);
/* The lines of records idx[0..n) (an override file's text). */
char *state_format(const struct records *rs, const size_t *idx, size_t n, size_t *len);
/* Its groups not read yet; of a scoped load, those of the files it looked for. */
int state_load_one(struct records *rs, const struct root *r);
int state_load_one_scoped(struct records *rs, const struct root *r);

/* A scoped load reads the other files when what is asked may be there. */
const struct record *state_find(struct records *rs, const char *path);
/* The record of path, looked for where a record of that item goes. */
const struct record *state_find_as(struct records *rs, const struct item *it, const char *path,
				   const char *identity);
/* it's original, recorded under path (it->path, or its domain's key). */
int state_add(struct records *rs, const struct item *it, const char *path, const char *original,
	      const char *identity);

/* ---- state.c: the records in memory ---- */
int state_parse(struct records *rs, char *buf);
int state_parse_file(struct records *rs, char *buf, size_t file);
const struct record *state_find_loaded(const struct records *rs, const char *path);
int state_add_loaded(struct records *rs, char **fields, const char *rel);
void state_forget(struct records *rs, const bool *drop);
void state_free(struct records *rs);
/* The files (state_io.c reads them, state_write.c writes them). */
#define STATE_DIR "run/earlytune"
#define STATE_FILE STATE_DIR "/originals"
#define RECORDS_FILE STATE_DIR "/records"
#define DISKS_DIR STATE_DIR "/disks"
#define LINKS_DIR STATE_DIR "/links"
bool state_disk_file(const char *name, char *rel);
void state_file_of(const char *domain, const char *target, const char *path, const char *identity, char *rel);
size_t state_file_find(const struct records *rs, const char *rel); /* STRINDEX_NONE: not read */
int state_file_add(struct records *rs, const char *rel, size_t *idx);

/* ---- state_id.c ---- */
struct domain;
/* The table of domains hands the records its rows (domains.c). */
void state_register(const struct domain *table, size_t n);
const struct domain *state_domain(const char *name); /* NULL: not one of the table */
int state_identity(const struct root *r, const char *domain, const char *setting, const char *path,
		   char *out, size_t size);
int state_identity_cached(struct records *rs, const struct root *r, const char *domain,
			  const char *target, const char *setting, const char *path, char *out,
			  size_t size);
int state_stale(struct records *rs, const struct root *r, const struct record *x, char *why, size_t size);
/* The interface a record is about (its domain's ifindex hook), or 0. */
int state_ifindex(const char *domain, const char *path);
/* Whether a record may name path: where apply writes, nothing else. */
bool state_path_ok(const char *domain, const char *path);
