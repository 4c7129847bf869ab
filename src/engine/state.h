/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The records: originals saved before the first change (state.c), and whose
 * device each belongs to (state_id.c). For the engine's files, and the net
 * domain: its plan reads the records (which roots were earlytune's) and its
 * row's ifindex hook is record_ifindex.
 */
#pragma once

#include <limits.h>

#include "earlytune.h"

/* ---- state.c: originals recorded before the first change ---- */
struct record {
	char *domain, *target, *setting, *path, *value;
	char *identity; /* "diskseq:N", "dev:HASH", "ifindex:N"; "" unchecked (global, old line) */
	size_t file;    /* its file in records.files */
};
struct idcache {
	char target[NAME_MAX + 1], id[64];
	int r;
	bool valid;
};
/* A file of records (state.c): originals, disks/NAME or links/IFINDEX. */
#define STATE_REL_MAX 288
struct state_file {
	char rel[STATE_REL_MAX];
	bool dirty; /* its records changed: state_commit rewrites it */
	bool gave;  /* it had records of another file: written after that one */
};
struct records {
	struct record *v;
	size_t n, cap;
	size_t *slots, nslots; /* open-addressing index by path */
	struct state_file *files; /* the files read (or to be written) */
	size_t nfiles, files_cap;
	size_t *fslots, nfslots; /* their index by rel */
	int lock_fd;
	bool dirty;   /* changed since the load: state_commit saves */
	bool partial; /* a scoped load: only the files of its devices were read */
	bool misplaced; /* a scoped load met a record of a file it did not read */
	const struct root *root; /* where a partial load reads the others */
	struct idcache idcache;  /* the last disk's identity */
};
int state_lock(struct records *rs, const struct root *r); /* -ETIMEDOUT: a stuck peer */
extern unsigned state_lock_stall_ms, state_lock_wait_ms; /* its bounds; the unit tests shorten them */
int state_load(struct records *rs, const struct root *r);
/* Only the records c's --device or --ifindex can need; the rest on demand. */
int state_load_scoped(struct records *rs, const struct root *r, const struct ctx *c);
int state_parse(struct records *rs, char *buf);
int state_save(struct records *rs, const struct root *r);
int state_commit(struct records *rs, const struct root *r);
const struct record *state_find(struct records *rs, const char *path);
int state_add(struct records *rs, const struct item *it, const char *original, const char *identity);
void state_forget(struct records *rs, const bool *drop);
void state_free(struct records *rs);

/* ---- state_id.c ---- */
struct domain;
/* The table of domains hands the records its lookup (engine/domains.c). */
void state_register(const struct domain *(*find)(const char *name));
int state_identity(const struct root *r, const char *domain, const char *setting, const char *path,
		   char *out, size_t size);
int state_identity_cached(struct records *rs, const struct root *r, const char *domain,
			  const char *target, const char *setting, const char *path, char *out,
			  size_t size);
int state_stale(struct records *rs, const struct root *r, const struct record *x, char *why, size_t size);
int record_ifindex(const char *setting, const char *path);
