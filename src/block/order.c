// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The order disks are planned and printed in: their names as strverscmp
 * orders them (vd2 before vd10), found cheaply for a listing of 1,000.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "block/disk.h"

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

/* strverscmp's order, the common case without its state machine: names
 * that first differ after a digit run starting 1-9 ("vd1" "vd12") or with
 * no digit before, compared as it compares them; a run that starts with 0
 * (its "fractional" parts) is left to it. A 1,000-disk sort makes 10,000
 * compares. */
int block_name_cmp(const char *a, const char *b)
{
	size_t i = 0, j, k;
	bool da, db;

	while (a[i] && a[i] == b[i])
		i++;
	for (j = i; j && digit(a[j - 1]); j--)
		;
	if (j < i && a[j] == '0')
		return strverscmp(a, b);
	da = digit(a[i]), db = digit(b[i]);
	if (j == i && (!da || !db || a[i] == '0' || b[i] == '0'))
		return (unsigned char)a[i] - (unsigned char)b[i];
	if (da != db) /* in a run: the longer number is the larger */
		return da ? 1 : -1;
	if (!da)
		return (unsigned char)a[i] - (unsigned char)b[i];
	for (k = i + 1; digit(a[k]) && digit(b[k]); k++)
		;
	if (digit(a[k]) != digit(b[k]))
		return digit(a[k]) ? 1 : -1;
	return (unsigned char)a[i] - (unsigned char)b[i];
}

static int cmp_name(const void *a, const void *b)
{
	return block_name_cmp(base_of(*(char *const *)a), base_of(*(char *const *)b));
}

/* cmp_name of sys/block/NAME, whose names start at the same place. */
static int cmp_block(const void *a, const void *b)
{
	return block_name_cmp(*(char *const *)a + 10, *(char *const *)b + 10);
}

/* A name's sort key: when the name is a head (at most 8 bytes, not ending
 * in a digit) and a number strverscmp orders by value (no leading 0 but
 * "0" itself, at most 18 digits), that head and that number; two such
 * names of one head compare by number, as strverscmp compares them. */
struct sortkey {
	char *dir;
	const char *name;
	unsigned long long num;
	uint64_t head8;     /* the head, zero-padded */
	unsigned char head; /* its length */
	bool plain;
};

static void key_of(struct sortkey *k)
{
	const char *s = k->name;
	size_t len = strlen(s), h = len;

	while (h && digit(s[h - 1]))
		h--;
	k->plain = h < len && h <= 8 && len - h <= 18 && (s[h] != '0' || len - h == 1);
	if (!k->plain)
		return;
	k->head = (unsigned char)h;
	k->head8 = 0;
	memcpy(&k->head8, s, h);
	k->num = 0;
	for (size_t i = h; i < len; i++)
		k->num = k->num * 10 + (unsigned)(s[i] - '0');
}

static int cmp_key(const void *a, const void *b)
{
	const struct sortkey *x = *(const struct sortkey *const *)a, *y = *(const struct sortkey *const *)b;

	if (x->plain && y->plain && x->head == y->head && x->head8 == y->head8)
		return x->num < y->num ? -1 : x->num > y->num;
	return block_name_cmp(x->name, y->name);
}

/* v's n directories in their names' order; listed: each is sys/block/NAME.
 * Sorted by key, not by name: 10,000 compares of 1,000 names each cost a
 * version compare. */
void block_sort_dirs(char **v, size_t n, bool listed)
{
	struct sortkey *k = n > 1 ? malloc(n * sizeof(*k)) : NULL;
	struct sortkey **p = k ? malloc(n * sizeof(*p)) : NULL;

	if (!p) { /* one element, or no memory for the keys */
		free(k);
		if (n > 1)
			qsort(v, n, sizeof(*v), listed ? cmp_block : cmp_name);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		k[i].dir = v[i];
		k[i].name = listed ? v[i] + 10 : base_of(v[i]);
		key_of(&k[i]);
		p[i] = &k[i];
	}
	qsort(p, n, sizeof(*p), cmp_key);
	for (size_t i = 0; i < n; i++)
		v[i] = p[i]->dir;
	free(p);
	free(k);
}
