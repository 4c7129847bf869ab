/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * kcmdtext.c: pure edits of command-line text, free of I/O (unit-tested,
 * fuzzed). A text is split as the kernel splits its command line (isspace() with
 * 0xA0, double quotes grouping); a params list on the same spaces. Each
 * returns 0 with *out malloc'ed, or -errno. remove(add(old, m), m) == old
 * byte for byte, where m comes from kcmd_missing(old, params).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

int kcmd_missing(const char *text, const char *params, char **out);
int kcmd_add(const char *old, const char *params, char **out);    /* -EINVAL: old ends inside a quote */
int kcmd_remove(const char *old, const char *params, char **out);
int kcmd_kept(const char *old, const char *out, const char *params); /* 0, or -EPROTO */
int kcmd_base(const char *proc_cmdline, char **out);
int grub_dropin_body(const char *params, char **out);
bool kcmd_has(const char *text, const char *word);
const char *kcmd_word(const char **p, size_t *len);
bool kcmd_needs_quotes(const char *w, size_t n);
