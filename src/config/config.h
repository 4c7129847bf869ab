/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The configuration: read (config.c), its files (load.c), the built-in
 * profiles (profiles.c). Anyone above base/ may include it; it knows no
 * domain: domains hand it their sections (src/domains.c).
 */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/util.h"

struct root;

/* ---- config.c ---- */
struct cfg_entry {
	char *section;
	char *name;   /* [section "name"], or NULL */
	char *key;
	char *value;  /* "" unsets an earlier assignment */
	char *reason; /* the comment lines right above the key, or NULL */
	const char *file;
	int line;
	bool borrowed; /* the strings are a built-in profile's table: never freed */
};

struct config {
	struct cfg_entry *v;
	size_t n, cap;
	char **files; /* owned source names the entries point at */
	size_t nfiles;
	char *profile;
	int errors;  /* lines rejected, files skipped */
	int skipped; /* files (or drop-in directories) that could not be read */
	/* The first error, for verify --prometheus: its file, its line (0: the
	 * file as a whole) and its words. */
	char *first_file, first_msg[256]; /* first_file NULL: no memory for it */
	int first_line;
};

/* A section of the configuration: its name, whether it also comes as
 * [name "NAME"], and the check of its keys, owned by the domain that reads
 * them (0, or -EINVAL with why set). The reader knows [main]; domains.c
 * registers the others. */
struct cfg_section {
	const char *name;
	bool named;
	int (*check_key)(const char *key, const char *value, char *why, size_t size);
	/* Checks across keys and files, once all are read (config_check); it
	 * drops what it rejects with config_reject. NULL: none. */
	void (*check_conf)(struct config *c);
};
void config_register(const struct cfg_section *const *v, size_t n);
/* lex.c: for the checks' messages. did_you_mean returns "; did you
 * mean 'X'? " when a word of list is near word, else "; ". */
bool cfg_closest(const char *word, const char *list, char *best, size_t size);
/* Its result is the text: buf is left unset when no word is near. */
const char *did_you_mean(const char *word, const char *list, char *buf, size_t size)
	__attribute__((warn_unused_result));
int cfg_glob_check(const char *what, const char *glob, char *why, size_t size);
/* The names of a table's rows (each row's first member, a string; the
 * table ends at its NROWS or at a NULL name), each after PREFIX, joined by
 * spaces into buf: the one list a message and did_you_mean both read, so
 * that no list of keys is written twice beside its table. */
const char *cfg_names(const void *table, size_t nrows, size_t stride, const char *prefix, char *buf, size_t size);
#define CFG_NAMES(table, prefix, buf) \
	cfg_names((table), sizeof(table) / sizeof((table)[0]), sizeof((table)[0]), (prefix), (buf), sizeof(buf))

int conf_files(const struct root *r, const char *const *dirs, size_t ndirs, char ***out, size_t *n);
int conf_files_match(const struct root *r, const char *const *dirs, size_t ndirs, const char *pattern, char ***out,
		     size_t *n);
bool conf_masked(const struct root *r, const char *rel);
int config_load(struct config *c, const struct root *r, const char *file,
		const char *profile_override);
int config_parse_text(struct config *c, const char *text, const char *source);
void config_count_error(struct config *c, const char *file, int line, const char *msg);
void config_check(struct config *c);
_printf_(3, 4) void config_reject(struct config *c, size_t i, const char *fmt, ...);
int config_use_profile(struct config *c, const char *name);
void config_free(struct config *c);
const struct cfg_entry *config_get(const struct config *c, const char *section,
				   const char *name, const char *key);
void config_print(const struct config *c, FILE *out);
char *config_source(const struct cfg_entry *e);
int config_source_in(const struct cfg_entry *e, char *buf, size_t size);
const char *profile_text(const char *name);
/* A built-in profile as the reader makes it from its text, parsed at build
 * time (tools/gen-profiles.c writes build/gen/profiles.c); NULL in a build
 * without that table (the generator, the unit tests), which parses the text. */
struct cfg_builtin {
	const char *section, *name, *key, *value, *reason;
	int line;
};
struct cfg_profile {
	const char *name;
	const struct cfg_profile *base; /* the profile whose entries come first, or NULL */
	const struct cfg_builtin *v;    /* then these */
	size_t n;
};
const struct cfg_profile *profile_compiled(const char *name);
const char *profile_names(void);
