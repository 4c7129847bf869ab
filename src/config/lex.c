// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The configuration's line syntax and the friendly half of its errors.
 * Syntax: an inline comment after a value or a header ('#' or ';' after
 * white space, as git-config allows); a value written in double quotes keeps
 * '#' and ';' (escapes inside: \" and \\). Errors: the name of a non-ASCII
 * character that broke a value, "did you mean" for a near miss, glob syntax.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "config/lex.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))

/* A quoted value: from the opening quote to the closing one, unescaped in
 * place; after it only white space and a comment may follow. */
static int lex_quoted(char *v, char **comment, char *why, size_t size)
{
	char *p = v + 1, *out = v;

	for (; *p && *p != '"'; p++) {
		if (*p == '\\' && p[1] && p[1] != '"' && p[1] != '\\') {
			snprintf(why, size, "unknown escape '\\%c' in a quoted value; the escapes are \\\" and \\\\", p[1]);
			return -EINVAL;
		}
		if (*p == '\\' && p[1])
			p++;
		*out++ = *p;
	}
	if (!*p) {
		snprintf(why, size, "unterminated quote: a value that starts with '\"' must end with '\"'");
		return -EINVAL;
	}
	*out = '\0';
	p = strip(p + 1);
	if (*p == '#' || *p == ';')
		*comment = p + 1;
	else if (*p) {
		snprintf(why, size, "'%s' after the closing quote; only a comment ('# …') may follow it", p);
		return -EINVAL;
	}
	return 0;
}

int cfg_lex_value(char *v, char **comment, char *why, size_t size)
{
	*comment = NULL;
	if (*v == '"')
		return lex_quoted(v, comment, why, size);
	for (char *p = v; *p; p++) {
		if (*p != '#' && *p != ';')
			continue;
		if (p > v && !isspace((unsigned char)p[-1])) {
			snprintf(why, size, "'%c' inside a value: write the value in double quotes "
					    "(\"…%c…\"), or put a space before a comment", *p, *p);
			return -EINVAL;
		}
		*comment = p + 1;
		*p = '\0';
		break;
	}
	return 0;
}

/* "[section "name"]  # why": the comment starts at the first '#' or ';'
 * that only white space separates from a ']'. */
char *cfg_header_comment(char *s)
{
	for (char *b = strchr(s, ']'); b; b = strchr(b + 1, ']')) {
		char *p = b + 1;

		while (isspace((unsigned char)*p))
			p++;
		if (*p == '#' || *p == ';') {
			*p = '\0';
			return p + 1;
		}
	}
	return NULL;
}

const char *cfg_skip_bom(const char *text)
{
	return strncmp(text, "\xef\xbb\xbf", 3) ? text : text + 3;
}

/* ---- non-ASCII ----------------------------------------------------------- */

static const struct {
	unsigned cp;
	const char *name, *ascii;
} lookalikes[] = {
	{ 0x00a0, "NO-BREAK SPACE", " " },  { 0x2010, "HYPHEN", "-" },
	{ 0x2011, "NON-BREAKING HYPHEN", "-" }, { 0x2012, "FIGURE DASH", "-" },
	{ 0x2013, "EN DASH", "-" },         { 0x2014, "EM DASH", "-" },
	{ 0x2018, "LEFT SINGLE QUOTATION MARK", "'" }, { 0x2019, "RIGHT SINGLE QUOTATION MARK", "'" },
	{ 0x201a, "SINGLE LOW-9 QUOTATION MARK", "'" },
	{ 0x201c, "LEFT DOUBLE QUOTATION MARK", "\"" }, { 0x201d, "RIGHT DOUBLE QUOTATION MARK", "\"" },
	{ 0x201e, "DOUBLE LOW-9 QUOTATION MARK", "\"" },
	{ 0x2026, "HORIZONTAL ELLIPSIS", ".." }, { 0x200b, "ZERO WIDTH SPACE", "" },
	{ 0x202f, "NARROW NO-BREAK SPACE", " " }, { 0x2212, "MINUS SIGN", "-" },
	{ 0xfeff, "ZERO WIDTH NO-BREAK SPACE (a byte order mark)", "" },
};

/* The code point at s (len bytes), or -1 when s is not UTF-8. */
static long utf8_decode(const unsigned char *s, int *len)
{
	int n = s[0] >= 0xf0 && s[0] < 0xf5 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
	long cp = n == 4 ? s[0] & 0x07 : n == 3 ? s[0] & 0x0f : s[0] & 0x1f;

	*len = 1;
	if (!n || s[0] >= 0xf5)
		return -1;
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	*len = n;
	return cp;
}

/* What the character at p is, and the ASCII it stands in for when it is a
 * look-alike; false when it is ASCII. */
static bool describe(const unsigned char *p, char *buf, size_t size)
{
	long cp;
	int len;

	if (*p < 0x80)
		return false;
	cp = utf8_decode(p, &len);
	if (cp < 0) {
		snprintf(buf, size, "byte 0x%02x is not UTF-8 text", *p);
		return true;
	}
	for (size_t i = 0; i < ARRAY_SIZE(lookalikes); i++)
		if (lookalikes[i].cp == (unsigned)cp) {
			snprintf(buf, size, "'%.*s' is U+%04lX %s, not ASCII: write %s%s%s", len, (const char *)p,
				 cp, lookalikes[i].name, *lookalikes[i].ascii ? "'" : "nothing",
				 lookalikes[i].ascii, *lookalikes[i].ascii ? "'" : "");
			return true;
		}
	snprintf(buf, size, "'%.*s' is U+%04lX, not ASCII", len, (const char *)p, cp);
	return true;
}

bool cfg_non_ascii(const char *s, char *buf, size_t size)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p && *p < 0x80)
		p++;
	return *p && describe(p, buf, size);
}

/* A typographic quote (an editor's or a web page's "smart" quotes): a glob
 * or a name holding one matches nothing, silently, while the check of the
 * value accepts it. */
bool cfg_curly_quote(const char *s, char *buf, size_t size)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		int len;
		long cp = *p >= 0x80 ? utf8_decode(p, &len) : -1;

		if (cp == 0x2018 || cp == 0x2019 || cp == 0x201a || cp == 0x201c || cp == 0x201d || cp == 0x201e)
			return describe(p, buf, size);
	}
	return false;
}

/* ---- did you mean ------------------------------------------------------------ */

/* Edit distance (insert, delete, substitute, swap two neighbours), case
 * ignored; words longer than 63 bytes are never near. */
static unsigned distance(const char *a, size_t la, const char *b, size_t lb)
{
	unsigned d[64][64];

	if (la >= 64 || lb >= 64)
		return 64;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (unsigned)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			unsigned cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			unsigned v = d[i - 1][j - 1] + cost;

			v = MIN(v, d[i - 1][j] + 1);
			v = MIN(v, d[i][j - 1] + 1);
			if (i > 1 && j > 1 && tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == tolower((unsigned char)b[j - 1]))
				v = MIN(v, d[i - 2][j - 2] + 1);
			d[i][j] = v;
		}
	return d[la][lb];
}

bool cfg_closest(const char *word, const char *list, char *best, size_t size)
{
	size_t lw = strlen(word);
	unsigned limit = (unsigned)(lw + 2) / 3, bestd = limit + 1;
	const char *p = list;
	char w[WORD_MAX];
	size_t len;

	while ((len = next_word(&p, w, sizeof(w)))) {
		unsigned d = len < sizeof(w) ? distance(word, lw, w, len) : 64;

		if (d < bestd && strcmp(word, w)) {
			bestd = d;
			snprintf(best, size, "%s", w);
		}
	}
	return bestd <= limit;
}

const char *did_you_mean(const char *word, const char *list, char *buf, size_t size)
{
	char best[WORD_MAX];

	if (!cfg_closest(word, list, best, sizeof(best)))
		return "; ";
	snprintf(buf, size, "; did you mean '%s'? ", best);
	return buf;
}

const char *cfg_names(const void *table, size_t nrows, size_t stride, const char *prefix, char *buf, size_t size)
{
	size_t len = 0;

	*buf = '\0';
	for (size_t i = 0; i < nrows; i++) {
		const char *name = *(const char *const *)((const char *)table + i * stride);

		if (!name || len >= size)
			break;
		len += snprintf(buf + len, size - len, "%s%s%s", len ? " " : "", prefix, name);
	}
	return buf;
}

/* ---- globs -------------------------------------------------------------------- */

/* fnmatch(3) takes an unclosed '[' as itself: a typo would then match
 * nothing, silently. */
int cfg_glob_check(const char *what, const char *w, char *why, size_t size)
{
	for (const char *p = w; *p; p++) {
		if (*p == '\\' && !*++p) {
			snprintf(why, size, "%s '%s': a glob cannot end in '\\'", what, w);
			return -EINVAL;
		}
		if (*p != '[')
			continue;
		const char *q = p + 1;

		q += *q == '!' || *q == '^';
		q += *q == ']';
		q = strchr(q, ']');
		if (!q) {
			snprintf(why, size, "%s '%s': '[' opens a character class that no ']' closes", what, w);
			return -EINVAL;
		}
		p = q;
	}
	if (!*w || !strcmp(w, "!")) {
		snprintf(why, size, "%s '%s': an empty glob", what, w);
		return -EINVAL;
	}
	return 0;
}
