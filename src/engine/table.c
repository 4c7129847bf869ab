// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The table people read. By default it fits the terminal: a row per item
 * (cells cut with '~' only when the row cannot fit otherwise), and the reason,
 * error and source on their own indented lines below it, wrapped at word
 * boundaries. --wide prints each item on one full line, reason included, for
 * grep and wide terminals. Either way each other writer of an item (plan,
 * verify) gets its own "also written by" line under the item, wrapped only
 * when the table fits the terminal.
 */
#include <errno.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "engine/internal.h"

#define MIN_COLUMNS 40
#define MAX_COLUMNS 1000
#define MIN_CELL 8
#define TABLE_CHUNK 65536

enum { C_DOMAIN, C_TARGET, C_SETTING, C_CURRENT, C_DESIRED, C_ACTION, C_RESULT, NCOLS };

static const char *const headers[NCOLS] = { "DOMAIN", "TARGET", "SETTING", "CURRENT", "DESIRED", "ACTION",
					    "RESULT" };

/* Not a terminal, as the answer just said: stdout fully buffered here,
 * where stdio would ask again (fstat, TCGETS) at its first write. Only
 * while it has no buffer yet: setvbuf after any output is undefined. */
static void buffer_stdout(void)
{
	static char buf[BUFSIZ];

	if (__fbufsize(stdout) == 0)
		setvbuf(stdout, buf, _IOFBF, sizeof(buf));
}

/* COLUMNS when set, else the terminal's width, else 80: a pipe or a file
 * (and so every test) gets 80 unless COLUMNS says otherwise. Asked once. */
static int ask_columns(void)
{
	const char *s = getenv("COLUMNS");
	unsigned long long v;
	struct winsize ws;
	int r;

	if (s && parse_u64(s, &v) == 0 && v > 0)
		return v < MIN_COLUMNS ? MIN_COLUMNS : v > MAX_COLUMNS ? MAX_COLUMNS : (int)v;
	/* TIOCGWINSZ fails on anything but a terminal: no isatty() before it. */
	r = ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws);
	if (r == 0 && ws.ws_col > 0)
		return ws.ws_col < MIN_COLUMNS ? MIN_COLUMNS : ws.ws_col;
	if (r < 0 && errno == ENOTTY)
		buffer_stdout();
	return 80;
}

int table_columns(void)
{
	static int columns;

	if (!columns)
		columns = ask_columns();
	return columns;
}

static void cells(const struct item *it, const char **v)
{
	v[C_DOMAIN] = it->domain;
	v[C_TARGET] = it->target;
	v[C_SETTING] = it->setting;
	v[C_CURRENT] = dash(it->current);
	v[C_DESIRED] = dash(it->desired);
	v[C_ACTION] = action_name(it->action);
	v[C_RESULT] = dash(result_name(it->result));
}

/* Natural widths; then, while the row is wider than columns (0: no limit),
 * the widest of target, setting, current and desired gives up a column. */
static int layout(const struct rows *p, int ncols, int columns, int *w)
{
	int total = ncols - 1;

	for (int k = 0; k < ncols; k++)
		w[k] = (int)strlen(headers[k]);
	for (size_t i = 0; i < p->n; i++) {
		const char *v[NCOLS];

		cells(p->v[i], v);
		for (int k = 0; k < ncols; k++)
			if ((int)strlen(v[k]) > w[k])
				w[k] = (int)strlen(v[k]);
	}
	for (int k = 0; k < ncols; k++)
		total += w[k];
	while (columns && total > columns) {
		int widest = C_TARGET;

		for (int k = C_SETTING; k <= C_DESIRED; k++)
			if (w[k] > w[widest])
				widest = k;
		if (w[widest] <= MIN_CELL)
			break;
		w[widest]--;
		total--;
	}
	return total;
}

static void put(struct strbuf *sb, const char *s)
{
	sb_put(sb, s, strlen(s));
}

/* A cell padded to w, or cut to w with '~' as its last character; returns
 * its end. */
static char *cell(char *p, const char *s, size_t n, int w)
{
	if (n > (size_t)w) {
		p = mempcpy(p, s, (size_t)(w - 1));
		*p++ = '~';
		return p;
	}
	p = mempcpy(p, s, n);
	memset(p, ' ', (size_t)w - n);
	return p + ((size_t)w - n);
}

/* The last cell is not padded, unless text follows it on the line. Copied
 * into room made once: a grow check per cell, pad and space was a fifth
 * of the table's instructions. */
static void row(struct strbuf *sb, const char *const *v, int ncols, const int *w, bool more)
{
	size_t len[NCOLS + 1], need = 0;
	char *p;

	for (int k = 0; k < ncols; k++) {
		bool padded = k < ncols - 1 || more;

		len[k] = strlen(v[k]);
		need += 1 + (padded && (size_t)w[k] > len[k] ? (size_t)w[k] : len[k]);
	}
	p = sb_room(sb, need);
	if (!p)
		return;
	for (int k = 0; k < ncols; k++) {
		if (k)
			*p++ = ' ';
		if (k == ncols - 1 && !more)
			p = mempcpy(p, v[k], len[k]);
		else
			p = cell(p, v[k], len[k], w[k]);
	}
	*p = '\0';
	sb->len = (size_t)(p - sb->s);
}

/* What is said about an item: "error: …" or its reason, then its source;
 * built in nb (emptied first), NULL when there is nothing to say. Copied
 * into room made once, as a row is. */
static const char *note(struct strbuf *nb, const struct item *it)
{
	const char *text = it->error ? it->error : it->reason;
	size_t lt = text ? strlen(text) : 0, ls = it->source ? strlen(it->source) : 0;
	char *p;

	nb->len = 0;
	if (!lt && !it->source)
		return NULL;
	p = sb_room(nb, (it->error ? 7 : 0) + lt + (it->source ? ls + 3 : 0));
	if (!p)
		return NULL;
	if (it->error)
		p = mempcpy(p, "error: ", 7);
	p = put_bytes(p, text ? text : "", lt);
	if (it->source) {
		if (lt)
			*p++ = ' ';
		*p++ = '[';
		p = mempcpy(p, it->source, ls);
		*p++ = ']';
	}
	*p = '\0';
	nb->len = (size_t)(p - nb->s);
	return nb->s;
}

/* A line of text at indent: wrapped to columns, or (0: --wide) one full line. */
static void text_line(struct strbuf *sb, const char *text, int indent, int columns)
{
	if (columns) {
		sb_wrap(sb, text, indent, columns);
		return;
	}
	sb_spaces(sb, indent);
	put(sb, text);
	sb_put(sb, "\n", 1);
}

/* A line per other writer of the item, under its notes. */
static void writer_lines(struct strbuf *sb, struct strbuf *nb, const struct item *it, int indent, int columns)
{
	for (size_t i = 0; i < it->nwriters; i++) {
		const struct writer *x = &it->writers[i];

		nb->len = 0;
		sb_printf(nb, "also written by %s:%d %s (%s, %s)", x->file, x->line, x->what, x->tool, x->why);
		if (!nb->oom)
			text_line(sb, nb->s, indent, columns);
	}
}

/* The last notes wrapped and their lines: the items of many disks share
 * their notes word for word (a disk's items take turns), and a copy costs
 * less than a wrap. */
#define WRAPPED 4
struct wrapped {
	struct strbuf text, lines;
	int indent;
};

static void wrap_note(struct strbuf *sb, struct wrapped *seen, const char *text, size_t n, int indent,
		      int columns)
{
	size_t start = sb->len;
	struct wrapped oldest = seen[WRAPPED - 1], *w = &seen[0];

	for (int k = 0; k < WRAPPED; k++)
		if (seen[k].text.len == n && seen[k].indent == indent && !memcmp(seen[k].text.s, text, n)) {
			sb_put(sb, seen[k].lines.s, seen[k].lines.len);
			return;
		}
	sb_wrap(sb, text, indent, columns);
	if (sb->oom)
		return;
	/* The oldest gives way: the others move down a place. */
	memmove(&seen[1], &seen[0], (WRAPPED - 1) * sizeof(*seen));
	seen[0] = oldest;
	w->text.len = w->lines.len = 0;
	w->indent = indent;
	sb_put(&w->text, text, n);
	sb_put(&w->lines, sb->s + start, sb->len - start);
	if (w->text.oom || w->lines.oom)
		w->text.len = 0, w->text.oom = w->lines.oom = false;
}

/* nb: scratch space for the item's notes, reused from item to item. */
static void item_lines(struct strbuf *sb, struct strbuf *nb, struct wrapped *seen, const struct item *it,
		       int ncols, const int *w, int columns)
{
	const char *text = note(nb, it);
	const char *v[NCOLS];

	cells(it, v);
	row(sb, v, ncols, w, columns == 0 && text);
	if (columns == 0 && text) {
		sb_put(sb, " ", 1);
		sb_put(sb, text, nb->len); /* note() knows its length */
	}
	sb_put(sb, "\n", 1);
	if (columns && text)
		wrap_note(sb, seen, text, nb->len, w[C_DOMAIN] + 1, columns);
	writer_lines(sb, nb, it, w[C_DOMAIN] + 1, columns);
}

/* columns: the width to fit, 0 (--wide) for full lines, -1 the terminal's. */
void print_table(const struct plan *plan, bool results, int columns, bool collapse)
{
	int ncols = results ? NCOLS : C_RESULT, w[NCOLS];
	struct strbuf sb = { 0 }, nb = { 0 };
	struct wrapped seen[WRAPPED] = { 0 };
	const char *v[NCOLS + 1];
	struct rows rows;
	const struct rows *p = &rows;

	if (columns < 0)
		columns = table_columns();
	if (rows_build(&rows, plan, collapse) < 0) {
		rows_free(&rows);
		if (!collapse)
			return;
		print_table(plan, results, columns, false);
		return;
	}
	layout(p, ncols, columns, w);
	memcpy(v, headers, sizeof(headers));
	v[ncols] = "REASON";
	row(&sb, v, columns ? ncols : ncols + 1, w, false);
	sb_put(&sb, "\n", 1);
	for (size_t i = 0; i < p->n && !sb.oom; i++) {
		item_lines(&sb, &nb, seen, p->v[i], ncols, w, columns);
		/* Written as it grows: a table of 1,000 disks is half a MiB. */
		if (sb.len >= TABLE_CHUNK && !sb.oom) {
			fwrite(sb.s, 1, sb.len, stdout);
			sb.len = 0;
		}
	}
	if (!sb.oom)
		fwrite(sb.s, 1, sb.len, stdout);
	for (int k = 0; k < WRAPPED; k++)
		sb_free(&seen[k].text), sb_free(&seen[k].lines);
	sb_free(&nb);
	sb_free(&sb);
	rows_free(&rows);
}
