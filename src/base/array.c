// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/util.h"

#define FIRST_BYTES 1024

int array_grow(void *v, size_t *cap, size_t n, size_t size, size_t first)
{
	void *old, *grown;
	size_t want;

	if (n < *cap)
		return 0;
	/* The first block at most FIRST_BYTES: a run of one device (udev's)
	 * fills a few elements, and every page a block spans that malloc
	 * writes a header into is a page fault of its own. */
	want = *cap ? *cap * 2 : first * size > FIRST_BYTES && size <= FIRST_BYTES ? FIRST_BYTES / size : first;
	if (want <= n || want > SIZE_MAX / size)
		return -ENOMEM;
	/* v is the address of any T *: read and written as bytes, which any
	 * pointer type may alias. */
	memcpy(&old, v, sizeof(old));
	grown = realloc(old, want * size);
	if (!grown)
		return -ENOMEM;
	memcpy(v, &grown, sizeof(grown));
	*cap = want;
	return 0;
}

/* Eight bytes a step: fnv1a's byte a step over records' paths was 4 % of
 * a 1,000-disk apply. Only a slot: never kept, so byte order is no matter. */
static uint64_t key_hash(const char *key)
{
	size_t len = strlen(key);
	uint64_t h = len * 0x9e3779b97f4a7c15ULL, w;

	for (; len >= 8; len -= 8, key += 8) {
		memcpy(&w, key, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 29;
	}
	w = 0;
	memcpy(&w, key, len);
	h = (h ^ w) * 0xff51afd7ed558ccdULL;
	/* murmur3's finish: every bit of h reaches the low ones the mask keeps */
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

static size_t slot_of(const struct strindex *x, const char *key)
{
	return (size_t)key_hash(key) & (x->nslots - 1);
}

void strindex_insert(struct strindex *x, size_t i)
{
	size_t mask = x->nslots - 1, h = slot_of(x, x->key(x->data, i));

	while (x->slots[h] != STRINDEX_NONE)
		h = (h + 1) & mask;
	x->slots[h] = i;
}

void strindex_rebuild(struct strindex *x, size_t n)
{
	for (size_t k = 0; k < x->nslots; k++)
		x->slots[k] = STRINDEX_NONE;
	for (size_t i = 0; i < n; i++)
		strindex_insert(x, i);
}

int strindex_reserve(struct strindex *x, size_t n)
{
	size_t ns = x->nslots ? x->nslots * 2 : 64;
	size_t *v;

	if ((n + 1) * 2 <= x->nslots)
		return 0;
	v = malloc(ns * sizeof(*v));
	if (!v)
		return -ENOMEM;
	free(x->slots);
	x->slots = v, x->nslots = ns;
	strindex_rebuild(x, n);
	return 0;
}

size_t strindex_find(const struct strindex *x, const char *key)
{
	size_t mask = x->nslots - 1;

	if (!x->nslots)
		return STRINDEX_NONE;
	for (size_t h = slot_of(x, key); x->slots[h] != STRINDEX_NONE; h = (h + 1) & mask)
		if (!strcmp(x->key(x->data, x->slots[h]), key))
			return x->slots[h];
	return STRINDEX_NONE;
}

void strindex_free(struct strindex *x)
{
	free(x->slots);
	x->slots = NULL, x->nslots = 0;
}
