/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Inside `earlytune cmdline` (src/cmdline/): the command layer (kcmdline.c)
 * over the suggestions (suggest.c), the record of what earlytune added
 * (record.c) and the bootloader backends, one file each, listed in
 * backend.c. Backends return -errno and log where they handle a failure;
 * the command layer turns the result into an exit status. Only cmdline/
 * includes it.
 */
#pragma once

#include "cmdline/cmdline.h"
#include "cmdline/kcmdtext.h"

#define CMDLINE_STATE "var/lib/earlytune/cmdline.state"
#define GRUB_DROPIN "etc/default/grub.d/99-earlytune.cfg"

/* ---- io.c: files, processes, messages ---- */
struct first_err {
	int err;
	char *path; /* the file whose read failed, or NULL */
};
void first_err_set(struct first_err *f, const char *rel, int r);
int bl_read(const struct root *r, const char *rel, char **out);
bool bl_still(const struct root *r, const char *rel, const char *old);
int bl_read_error(const struct ctx *c, const char *rel, int r);
int bl_change_error(const char *what, const char *rel, int r);
int bl_edited(const char *rel);
int bl_run(char *const argv[], const int *keep, size_t nkeep);
void bl_say(const struct ctx *c, const char *fmt, ...) _printf_(2, 3);

/* ---- suggest.c ---- */
struct sugg {
	char *param;
	bool remove;
	bool security;
	char *why;
	const char *risk;
	char *source;
};

/* Suggestions, as many as there are; fail: the first read that failed (a
 * failure is never "no match"). */
struct suggs {
	struct sugg *v;
	size_t n, cap;
	struct first_err fail;
};
int suggest_collect(struct ctx *c, struct suggs *s); /* 0, or -errno (logged) */
void suggest_print(struct ctx *c, const struct suggs *s);
void suggs_free(struct suggs *s);

/* ---- kcmdline.c: for verify --image (boot.c) ---- */
int cmdline_missing(struct ctx *c, char **wanted, char **missing, char *backend, size_t size);

/* ---- record.c: CMDLINE_STATE ----
 * One line: BACKEND TAB PARAMS [TAB created[:HEX]]. HEX is the exact bytes
 * of a file earlytune created (kernel-install): remove may delete the file
 * only while it still holds exactly those. */
struct added {
	char backend[32];
	char *params; /* space-separated, never NULL */
	bool created;
	char *wrote;  /* what earlytune created the file with, or NULL */
};
void added_free(struct added *a);
int added_load(const struct root *r, struct added *a);
int added_save(const struct root *r, const struct added *a);
int added_record(struct ctx *c, const struct added *next);
void added_undo(struct ctx *c, const struct added *prev, bool unchanged);
int added_next(const struct added *prev, const char *backend, const char *more, struct added *next);

/* ---- backends ---- */
struct backend;

/* One `cmdline apply`: a backend's add fills next (recorded with
 * added_record before it writes), shown and changed. */
struct apply {
	struct ctx *c;
	const struct backend *be;
	const char *params;   /* wanted */
	struct added *prev;   /* recorded before */
	struct added next;    /* recorded after */
	const char *shown;    /* what the human line names */
	bool changed;
	struct strbuf *next_step;
};
int added_write(struct apply *ap, const char *rel, const char *body, const char *old); /* record.c */

/* A path whose presence tells the bootloader, or a directory holding a
 * file that matches pattern. */
struct probe {
	const char *path, *pattern;
};

struct backend {
	const char *name;
	struct probe probes[2];
	int (*add)(struct apply *ap);
	/* NULL for backends that record nothing (ostree prints a command, a
	 * UKI cannot be edited); *changed: a file was changed or deleted. */
	int (*remove)(struct ctx *c, const struct added *a, bool *changed);
	const char *update;  /* run after a change (--update), or NULL: a reboot is enough */
	const char *updates; /* what update regenerates */
};

extern const struct backend backend_ostree, backend_bls, backend_grub, backend_kinstall, backend_uki;

/* backend.c: the table, in the order detection tries them. */
const struct backend *backend_find(const char *name);
int backend_detect(const struct root *r, const struct backend **out);
void backend_names(struct strbuf *sb);
