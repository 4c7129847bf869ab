// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The text edits behind `earlytune cmdline`, free of I/O so that they can be
 * unit-tested and fuzzed: adding words to a kernel command line kept in a
 * file (kernel-install's /etc/kernel/cmdline) and taking exactly them out
 * again, the GRUB drop-in's body, and the check that an edit kept every
 * parameter earlytune did not add. The property they keep: remove(add(old,
 * p), missing(old, p)) == old, byte for byte, for any old.
 *
 * A file is split as the kernel splits its command line: on the kernel's
 * isspace() (which includes 0xA0, lib/ctype.c), with double quotes grouping.
 * A parameter list (earlytune's own words) is split on the same spaces.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/kparam.h"
#include "base/util.h"
#include "cmdline/kcmdtext.h"

/* The next word of a parameter list: its start, or NULL at the end. */
const char *kcmd_word(const char **p, size_t *len)
{
	const char *s = *p, *e;

	while (*s && kparam_space(*s))
		s++;
	if (!*s)
		return NULL;
	for (e = s; *e && !kparam_space(*e); e++)
		;
	*len = (size_t)(e - s);
	*p = e;
	return s;
}

/* The next token of a command line, quotes grouping; *open tells whether
 * the text ended inside a quote. */
static const char *next_token(const char **p, size_t *len, bool *open)
{
	const char *s = *p, *e;
	bool q = false;

	while (*s && kparam_space(*s))
		s++;
	if (!*s)
		return NULL;
	for (e = s; *e && (q || !kparam_space(*e)); e++)
		if (*e == '"')
			q = !q;
	*len = (size_t)(e - s);
	*p = e;
	if (open)
		*open = q;
	return s;
}

static bool token_is(const char *t, size_t tlen, const char *w, size_t wlen)
{
	return tlen == wlen && !memcmp(t, w, wlen);
}

/* The last token of text that is exactly w (wlen bytes), or NULL. */
static const char *find_last(const char *text, const char *w, size_t wlen)
{
	const char *p = text, *t, *last = NULL;
	size_t tlen;

	while ((t = next_token(&p, &tlen, NULL)))
		if (token_is(t, tlen, w, wlen))
			last = t;
	return last;
}

bool kcmd_has(const char *text, const char *word)
{
	return find_last(text, word, strlen(word)) != NULL;
}

static bool listed(const char *list, const char *w, size_t wlen)
{
	const char *x;
	size_t xlen;

	for (const char *p = list; (x = kcmd_word(&p, &xlen));)
		if (token_is(x, xlen, w, wlen))
			return true;
	return false;
}

static int sb_result(struct strbuf *sb, char **out)
{
	if (sb->oom) {
		sb_free(sb);
		return -ENOMEM;
	}
	*out = sb->s ? sb->s : strdup("");
	return *out ? 0 : -ENOMEM;
}

/* The words of params that are neither tokens of text nor repeated:
 * what an add would put in, space-separated. */
int kcmd_missing(const char *text, const char *params, char **out)
{
	struct strbuf sb = { 0 };
	const char *w;
	size_t n;

	for (const char *p = params; (w = kcmd_word(&p, &n));) {
		if (find_last(text, w, n) || (sb.s && listed(sb.s, w, n)))
			continue;
		sb_printf(&sb, "%s%.*s", sb.len ? " " : "", (int)n, w);
	}
	return sb_result(&sb, out);
}

/* old with the missing words of params inserted after its last token (" w"
 * each), before the trailing blanks and newline; a blank old gets them in
 * front ("w " each). Every byte of old stays. A quote left open at the end
 * of old would swallow the words: refused. */
int kcmd_add(const char *old, const char *params, char **out)
{
	_cleanup_(freep) char *add = NULL;
	struct strbuf sb = { 0 };
	size_t len = strlen(old), ins = len, tlen;
	const char *p = old, *w;
	bool open = false;
	int r;

	r = kcmd_missing(old, params, &add);
	if (r < 0)
		return r;
	if (strchr(add, '"'))
		return -EINVAL;
	while (next_token(&p, &tlen, &open))
		;
	if (*add && open)
		return -EINVAL;
	while (ins && kparam_space(old[ins - 1]))
		ins--;
	sb_printf(&sb, "%.*s", (int)ins, old);
	for (p = add; (w = kcmd_word(&p, &tlen));) {
		if (ins || !len) /* after old's last token, or alone */
			sb_printf(&sb, "%s%.*s", sb.len ? " " : "", (int)tlen, w);
		else /* in front of a blank old */
			sb_printf(&sb, "%.*s ", (int)tlen, w);
	}
	sb_printf(&sb, "%s", old + ins);
	return sb_result(&sb, out);
}

/* old without the last token equal to each word of params, each taken out
 * with the one blank before it (after it at the very start): the inverse of
 * kcmd_add. Words not found are left alone; nothing else changes. */
int kcmd_remove(const char *old, const char *params, char **out)
{
	char *buf = strdup(old);
	const char *w;
	size_t n;

	if (!buf)
		return -ENOMEM;
	for (const char *p = params; (w = kcmd_word(&p, &n));) {
		char *t = (char *)find_last(buf, w, n), *end = t + n;

		if (!t)
			continue;
		if (t > buf)
			t--;
		else if (*end && kparam_space(*end))
			end++;
		memmove(t, end, strlen(end) + 1);
	}
	*out = buf;
	return 0;
}

/* The next token of text that is not one of the words of params. */
static const char *next_kept(const char **p, size_t *len, const char *params)
{
	const char *t;

	while ((t = next_token(p, len, NULL)))
		if (!listed(params, t, *len))
			return t;
	return NULL;
}

/* 0 when out holds every token of old that is not a word of params, in the
 * same order, and no other (params' words may come or go): what earlytune
 * asserts before it writes a command line. -EPROTO otherwise. */
int kcmd_kept(const char *old, const char *out, const char *params)
{
	const char *a = old, *b = out, *x, *y;
	size_t xl = 0, yl = 0;

	for (;;) {
		x = next_kept(&a, &xl, params);
		y = next_kept(&b, &yl, params);
		if (!x || !y)
			return x == y ? 0 : -EPROTO;
		if (!token_is(x, xl, y, yl))
			return -EPROTO;
	}
}

/* /proc/cmdline as kernel-install takes it: without BOOT_IMAGE= and initrd=,
 * one line. */
int kcmd_base(const char *cmdline, char **out)
{
	struct strbuf sb = { 0 };
	const char *t, *p = cmdline;
	size_t n;

	while ((t = next_token(&p, &n, NULL)))
		if (!(n >= 11 && !memcmp(t, "BOOT_IMAGE=", 11)) && !(n >= 7 && !memcmp(t, "initrd=", 7)))
			sb_printf(&sb, "%s%.*s", sb.len ? " " : "", (int)n, t);
	sb_printf(&sb, "\n");
	return sb_result(&sb, out);
}

/* Characters GRUB's script language and shells give a meaning to. */
bool kcmd_needs_quotes(const char *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (w[i] && strchr(";&|<>()#*?[]{}~!", w[i]))
			return true;
	return false;
}

/* The Debian/Ubuntu GRUB drop-in: appends params to what earlier files
 * assigned to GRUB_CMDLINE_LINUX_DEFAULT, each word GRUB or the shell that
 * sources it would interpret in (escaped) double quotes. */
int grub_dropin_body(const char *params, char **out)
{
	struct strbuf sb = { 0 };
	const char *w;
	size_t n;

	sb_printf(&sb, "# Generated by `earlytune cmdline apply`; `earlytune cmdline remove` deletes it.\n"
		       "# Appends earlytune's parameters to what earlier files assigned.\n"
		       "GRUB_CMDLINE_LINUX_DEFAULT=\"${GRUB_CMDLINE_LINUX_DEFAULT:+$GRUB_CMDLINE_LINUX_DEFAULT }");
	for (const char *p = params, *sep = ""; (w = kcmd_word(&p, &n)); sep = " ") {
		if (memchr(w, '"', n) || memchr(w, '\\', n) || memchr(w, '$', n) || memchr(w, '`', n)) {
			sb_free(&sb);
			return -EINVAL;
		}
		sb_printf(&sb, kcmd_needs_quotes(w, n) ? "%s\\\"%.*s\\\"" : "%s%.*s", sep, (int)n, w);
	}
	sb_printf(&sb, "\"\n");
	return sb_result(&sb, out);
}
