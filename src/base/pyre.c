// SPDX-License-Identifier: LGPL-2.1-or-later
/* A Pike machine for the part of Python's re that configuration files use:
 * the pattern compiled to instructions whose jumps are relative (a repeated
 * atom is copied as it is), run over the text once with every thread in
 * step. A search only asks whether a match exists: greedy and lazy are
 * one, {m,n} is m copies and n - m optional ones. glibc's regcomp cost
 * 70 KB of the static binary, and its patterns are POSIX's, not Python's. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/pyre.h"

#define CODE_MAX 4096 /* instructions: {m,n} copies its atom */
#define REPEAT_MAX 1000
#define DEPTH_MAX 64
#define SET_CLASS 256 /* set_item: a class escape (\d…) was added */

enum op { OP_CHAR, OP_ANY, OP_SET, OP_SPLIT, OP_JMP, OP_BOL, OP_EOL, OP_BOT, OP_EOT, OP_WORDB, OP_NWORDB, OP_MATCH };

struct inst {
	uint8_t op, c;
	uint16_t set; /* OP_SET: its index in sets */
	int x, y;     /* OP_SPLIT: the two targets, OP_JMP: x; relative */
};

struct prog {
	struct inst *code;
	size_t n, cap;
	uint8_t (*sets)[32];
	size_t nsets, setcap;
	const char *p; /* the parse's position in the pattern */
	int depth, err;
};

static size_t emit(struct prog *g, uint8_t op, int x, int y)
{
	if (g->err)
		return g->n;
	if (g->n >= CODE_MAX) {
		g->err = -EINVAL;
		return g->n;
	}
	if (array_grow(&g->code, &g->cap, g->n, sizeof(*g->code), 64) < 0) {
		g->err = -ENOMEM;
		return g->n;
	}
	g->code[g->n] = (struct inst){ .op = op, .x = x, .y = y };
	return g->n++;
}

/* Code before at jumps no further than at: what moves keeps its jumps. */
static void insert(struct prog *g, size_t at, uint8_t op, int x, int y)
{
	emit(g, OP_MATCH, 0, 0);
	if (g->err)
		return;
	memmove(&g->code[at + 1], &g->code[at], (g->n - 1 - at) * sizeof(*g->code));
	g->code[at] = (struct inst){ .op = op, .x = x, .y = y };
}

static void set_range(uint8_t *s, int lo, int hi)
{
	for (int c = lo; c <= hi; c++)
		s[c >> 3] |= (uint8_t)(1u << (c & 7));
}

#define in_set(s, c) ((s)[(c) >> 3] & (1u << ((c) & 7)))

/* \d \w \s and their complements (upper case), ASCII's, added to s. */
static void set_class(uint8_t *s, char k)
{
	uint8_t t[32] = { 0 };
	bool neg = k >= 'A' && k <= 'Z';

	switch (neg ? k - 'A' + 'a' : k) {
	case 'w':
		set_range(t, 'a', 'z');
		set_range(t, 'A', 'Z');
		set_range(t, '_', '_');
		/* fall through */
	case 'd':
		set_range(t, '0', '9');
		break;
	default: /* s: Python's str whitespace below 128 */
		set_range(t, '\t', '\r');
		set_range(t, 0x1c, ' ');
	}
	for (int i = 0; i < 32; i++)
		s[i] |= neg ? (uint8_t)~t[i] : t[i];
}

#define is_class(c) ((c) && strchr("dDwWsS", (c)))

/* The character an escape stands for (the backslash read, c after it),
 * or -EINVAL: Python rejects unknown letter escapes; digits are groups. */
static int escaped_char(struct prog *g, char c)
{
	static const char from[] = "ntrfva", to[] = "\n\t\r\f\v\a";
	const char *k = c ? strchr(from, c) : NULL;
	char hex[3];

	if (k)
		return to[k - from];
	if (c == 'x') {
		if (!g->p[0] || !g->p[1])
			return -EINVAL;
		memcpy(hex, g->p, 2);
		hex[2] = '\0';
		if (strspn(hex, "0123456789abcdefABCDEF") != 2)
			return -EINVAL;
		g->p += 2;
		return (int)strtol(hex, NULL, 16);
	}
	if (!c || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
		return -EINVAL;
	return (unsigned char)c;
}

/* One member of a bracket: a character, or SET_CLASS once a class escape
 * is added to s; -EINVAL for what this subset does not read. */
static int set_item(struct prog *g, uint8_t *s)
{
	unsigned char c = (unsigned char)*g->p++;

	if (c >= 0x80)
		return -EINVAL;
	if (c != '\\')
		return c;
	c = (unsigned char)*g->p++;
	if (is_class((char)c)) {
		set_class(s, (char)c);
		return SET_CLASS;
	}
	if (c == 'b')
		return '\b';
	if (!c)
		g->p--;
	return escaped_char(g, (char)c);
}

static void emit_set(struct prog *g, const uint8_t *s)
{
	size_t at = emit(g, OP_SET, 0, 0);

	if (g->err)
		return;
	if (array_grow(&g->sets, &g->setcap, g->nsets, sizeof(*g->sets), 8) < 0) {
		g->err = -ENOMEM;
		return;
	}
	memcpy(g->sets[g->nsets], s, 32);
	g->code[at].set = (uint16_t)g->nsets++;
}

/* After '[': members up to ']' (one first is itself), ranges, '^'. */
static void parse_set(struct prog *g)
{
	uint8_t s[32] = { 0 };
	bool neg = *g->p == '^', first = true;

	g->p += neg;
	while (!g->err && *g->p && (*g->p != ']' || first)) {
		int lo = set_item(g, s), hi = lo;

		first = false;
		if (lo == SET_CLASS)
			continue;
		if (lo >= 0 && g->p[0] == '-' && g->p[1] && g->p[1] != ']') {
			g->p++;
			hi = set_item(g, s);
		}
		if (lo < 0 || hi < lo || hi == SET_CLASS)
			g->err = -EINVAL;
		else
			set_range(s, lo, hi);
	}
	if (!g->err && *g->p != ']')
		g->err = -EINVAL;
	if (g->err)
		return;
	g->p++;
	for (int i = 0; neg && i < 32; i++)
		s[i] = (uint8_t)~s[i];
	emit_set(g, s);
}

static void parse_escape(struct prog *g)
{
	static const char ops[] = "bBAZ";
	static const uint8_t op[] = { OP_WORDB, OP_NWORDB, OP_BOT, OP_EOT };
	char c = *g->p;
	const char *k = c ? strchr(ops, c) : NULL;
	uint8_t s[32] = { 0 };
	int ch;

	g->p += !!c;
	if (k) {
		emit(g, op[k - ops], 0, 0);
	} else if (is_class(c)) {
		set_class(s, c);
		emit_set(g, s);
	} else if ((ch = escaped_char(g, c)) < 0) {
		g->err = ch;
	} else {
		size_t at = emit(g, OP_CHAR, 0, 0);

		if (!g->err)
			g->code[at].c = (uint8_t)ch;
	}
}

static void parse_alt(struct prog *g);

static void parse_group(struct prog *g)
{
	if (*g->p == '?') { /* (?:…) and (?P<name>…) match as a group does */
		const char *close = g->p[1] == 'P' && g->p[2] == '<' ? strchr(g->p, '>') : NULL;

		if (g->p[1] != ':' && !close) {
			g->err = -EINVAL;
			return;
		}
		g->p = close ? close + 1 : g->p + 2;
	}
	if (++g->depth > DEPTH_MAX) {
		g->err = -EINVAL;
		return;
	}
	parse_alt(g);
	g->depth--;
	if (!g->err && *g->p != ')')
		g->err = -EINVAL;
	g->p += !g->err;
}

static void parse_atom(struct prog *g)
{
	char c = *g->p++;
	size_t at;

	switch (c) {
	case '(': parse_group(g); return;
	case '[': parse_set(g); return;
	case '\\': parse_escape(g); return;
	case '.': emit(g, OP_ANY, 0, 0); return;
	case '^': emit(g, OP_BOL, 0, 0); return;
	case '$': emit(g, OP_EOL, 0, 0); return;
	case '*': case '+': case '?': g->err = -EINVAL; return; /* nothing to repeat */
	}
	at = emit(g, OP_CHAR, 0, 0);
	if (!g->err)
		g->code[at].c = (uint8_t)c;
}

static long number(const char **p)
{
	long v = -1;

	for (; **p >= '0' && **p <= '9'; (*p)++) {
		v = v < 0 ? 0 : v;
		if (v <= REPEAT_MAX) /* past it, an error anyway: no overflow */
			v = v * 10 + (**p - '0');
	}
	return v;
}

/* {m} {m,} {,n} {m,n}; anything else is not a repeat and '{' is itself. */
static bool braces(const char **p, long *lo, long *hi)
{
	const char *q = *p + 1;

	*lo = number(&q);
	*hi = *lo;
	if (*q == ',') {
		q++;
		*hi = number(&q);
		*lo = *lo < 0 ? 0 : *lo;
	} else if (*lo < 0) {
		return false;
	}
	if (*q != '}')
		return false;
	*p = q + 1;
	return true;
}

static bool quantifier(struct prog *g, long *lo, long *hi)
{
	switch (*g->p) {
	case '*': *lo = 0, *hi = -1; break;
	case '+': *lo = 1, *hi = -1; break;
	case '?': *lo = 0, *hi = 1; break;
	case '{': return braces(&g->p, lo, hi);
	default: return false;
	}
	g->p++;
	return true;
}

static void put_block(struct prog *g, const struct inst *b, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		size_t at = emit(g, 0, 0, 0);

		if (g->err)
			return;
		g->code[at] = b[i];
	}
}

/* The atom compiled at [start, n) repeated lo to hi times (hi -1: no limit). */
static void repeat(struct prog *g, size_t start, long lo, long hi)
{
	size_t len = g->n - start;
	struct inst *b;

	if (lo > REPEAT_MAX || hi > REPEAT_MAX || (hi >= 0 && hi < lo)) {
		g->err = -EINVAL;
		return;
	}
	b = malloc((len ? len : 1) * sizeof(*b));
	if (!b) {
		g->err = -ENOMEM;
		return;
	}
	if (len)
		memcpy(b, &g->code[start], len * sizeof(*b));
	g->n = start;
	for (long i = 0; i < lo; i++)
		put_block(g, b, len);
	if (hi < 0 && lo > 0) {
		emit(g, OP_SPLIT, -(int)len, 1);
	} else if (hi < 0) {
		emit(g, OP_SPLIT, 1, (int)len + 2);
		put_block(g, b, len);
		emit(g, OP_JMP, -(int)len - 1, 0);
	}
	for (long i = lo; i < hi; i++) {
		emit(g, OP_SPLIT, 1, (int)len + 1);
		put_block(g, b, len);
	}
	free(b);
}

static void parse_piece(struct prog *g)
{
	const char *a = g->p;
	bool assertion = *a == '^' || *a == '$' || (*a == '\\' && a[1] && strchr("bBAZ", a[1]));
	size_t start = g->n;
	long lo, hi;

	parse_atom(g);
	if (g->err || !quantifier(g, &lo, &hi))
		return;
	if (assertion || *g->p == '+') { /* nothing to repeat; possessive: not the same matches */
		g->err = -EINVAL;
		return;
	}
	g->p += *g->p == '?'; /* lazy: the same matches exist */
	repeat(g, start, lo, hi);
}

static void parse_alt(struct prog *g)
{
	size_t start = g->n, jmp;

	while (!g->err && *g->p && *g->p != '|' && *g->p != ')')
		parse_piece(g);
	if (g->err || *g->p != '|')
		return;
	g->p++;
	insert(g, start, OP_SPLIT, 1, 0);
	jmp = emit(g, OP_JMP, 0, 0);
	if (g->err)
		return;
	g->code[start].y = (int)(g->n - start);
	parse_alt(g);
	if (!g->err)
		g->code[jmp].x = (int)(g->n - jmp);
}

/* ---- the machine ------------------------------------------------------------ */

struct run {
	const struct prog *g;
	const char *t;
	size_t len, *stack;
	unsigned *mark, gen;
};

static bool word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static bool holds(const struct run *m, uint8_t op, size_t pos)
{
	bool a, b;

	switch (op) {
	case OP_BOL: return pos == 0 || m->t[pos - 1] == '\n';
	case OP_EOL: return pos == m->len || m->t[pos] == '\n';
	case OP_BOT: return pos == 0;
	case OP_EOT: return pos == m->len;
	}
	if (!m->len) /* Python's \B never matches an empty string */
		return op == OP_WORDB && false;
	a = pos > 0 && word(m->t[pos - 1]);
	b = pos < m->len && word(m->t[pos]);
	return (a != b) == (op == OP_WORDB);
}

/* Every instruction that reads a character reached from pc at pos, added
 * to list once per generation; true when the pattern's end is reached. */
static bool add(struct run *m, size_t *list, size_t *n, size_t pc0, size_t pos)
{
	size_t sp = 0;

	m->stack[sp++] = pc0;
	while (sp) {
		size_t pc = m->stack[--sp];
		const struct inst *in = &m->g->code[pc];

		if (m->mark[pc] == m->gen)
			continue;
		m->mark[pc] = m->gen;
		if (in->op == OP_MATCH)
			return true;
		if (in->op == OP_JMP) {
			m->stack[sp++] = pc + (size_t)(ptrdiff_t)in->x;
		} else if (in->op == OP_SPLIT) {
			m->stack[sp++] = pc + (size_t)(ptrdiff_t)in->y;
			m->stack[sp++] = pc + (size_t)(ptrdiff_t)in->x;
		} else if (in->op <= OP_SET) {
			list[(*n)++] = pc;
		} else if (holds(m, in->op, pos)) {
			m->stack[sp++] = pc + 1;
		}
	}
	return false;
}

static bool reads(const struct prog *g, const struct inst *in, unsigned char ch)
{
	return in->op == OP_CHAR ? in->c == ch : in->op == OP_ANY ? ch != '\n' : in_set(g->sets[in->set], ch);
}

static bool run(struct run *m, size_t *cur, size_t *next)
{
	size_t ncur = 0, nnext;

	m->gen = 1;
	for (size_t pos = 0;; pos++) {
		if (add(m, cur, &ncur, 0, pos)) /* a match starting here */
			return true;
		if (pos == m->len)
			return false;
		m->gen++;
		nnext = 0;
		for (size_t i = 0; i < ncur; i++) {
			const struct inst *in = &m->g->code[cur[i]];

			if (reads(m->g, in, (unsigned char)m->t[pos]) && add(m, next, &nnext, cur[i] + 1, pos + 1))
				return true;
		}
		memcpy(cur, next, nnext * sizeof(*cur));
		ncur = nnext;
	}
}

int pyre_search(const char *pattern, const char *text)
{
	struct prog g = { .p = pattern };
	struct run m = { .g = &g, .t = text, .len = strlen(text) };
	size_t *lists = NULL;
	int r;

	parse_alt(&g);
	if (!g.err && *g.p) /* a ')' no group opened */
		g.err = -EINVAL;
	emit(&g, OP_MATCH, 0, 0);
	r = g.err;
	if (!r) {
		/* the stack (each instruction pushes two at most), then two lists */
		lists = malloc((4 * g.n + 2) * sizeof(*lists));
		m.mark = calloc(g.n, sizeof(*m.mark));
		m.stack = lists;
		r = lists && m.mark ? run(&m, lists + 2 * g.n + 2, lists + 3 * g.n + 2) : -ENOMEM;
	}
	free(lists);
	free(m.mark);
	free(g.code);
	free(g.sets);
	return r;
}
