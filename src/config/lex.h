/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The configuration reader's line syntax (lex.c): for config.c only. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Cuts an inline comment off a value and unquotes it, in place; comment:
 * its text, or NULL. -EINVAL with why set on a syntax error. */
int cfg_lex_value(char *v, char **comment, char *why, size_t size);
/* Cuts the comment off a header line; returns its text, or NULL. */
char *cfg_header_comment(char *s);
const char *cfg_skip_bom(const char *text);
/* Describes the first non-ASCII character of s; false when there is none. */
bool cfg_non_ascii(const char *s, char *buf, size_t size);
/* Describes the first typographic quote (U+2018 U+2019 U+201A U+201C
 * U+201D U+201E) of s, a look-alike of ' or "; false when there is none. */
bool cfg_curly_quote(const char *s, char *buf, size_t size);
