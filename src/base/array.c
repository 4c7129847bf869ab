// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/util.h"

#define FIRST_BYTES 1024

int array_reserve(void *v, size_t *cap, size_t want, size_t size)
{
	void *old, *grown;

	if (want <= *cap)
		return 0;
	if (want > SIZE_MAX / size)
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

int array_grow(void *v, size_t *cap, size_t n, size_t size, size_t first)
{
	size_t want;

	if (n < *cap)
		return 0;
	/* The first block at most FIRST_BYTES: a run of one device (udev's)
	 * fills a few elements, and every page a block spans that malloc
	 * writes a header into is a page fault of its own. */
	want = *cap ? *cap * 2 : first * size > FIRST_BYTES && size <= FIRST_BYTES ? FIRST_BYTES / size : first;
	return want <= n ? -ENOMEM : array_reserve(v, cap, want, size);
}

/* Eight bytes a step: fnv1a's byte a step over records' paths was 4 % of
 * a 1,000-disk apply. Only a slot: never kept, so byte order is no matter. */
uint32_t strindex_hash(const char *key)
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
	/* murmur3's finish: every bit of h reaches the low ones kept */
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return (uint32_t)(h ^ (h >> 33));
}

#define EMPTY UINT32_MAX

static void put(struct strslot *slots, size_t nslots, uint32_t i, uint32_t h)
{
	size_t mask = nslots - 1, k = h & mask;

	while (slots[k].i != EMPTY)
		k = (k + 1) & mask;
	slots[k] = (struct strslot){ i, h };
}

void strindex_insert_hashed(struct strindex *x, size_t i, uint32_t h)
{
	put(x->slots, x->nslots, (uint32_t)i, h);
}

void strindex_insert(struct strindex *x, size_t i)
{
	strindex_insert_hashed(x, i, strindex_hash(x->key(x->data, i)));
}

static void clear(struct strslot *slots, size_t nslots)
{
	for (size_t k = 0; k < nslots; k++)
		slots[k].i = EMPTY;
}

void strindex_rebuild(struct strindex *x, size_t n)
{
	clear(x->slots, x->nslots);
	for (size_t i = 0; i < n; i++)
		strindex_insert(x, i);
}

int strindex_reserve(struct strindex *x, size_t n)
{
	size_t ns = x->nslots ? x->nslots * 2 : 64;
	struct strslot *v;

	if ((n + 1) * 2 <= x->nslots)
		return 0;
	if (n >= EMPTY - 1 || ns > SIZE_MAX / sizeof(*v) || !(v = malloc(ns * sizeof(*v))))
		return -ENOMEM;
	clear(v, ns);
	/* The slots move with their hashes; a first table is made from the
	 * keys (a caller may reserve after adding elements). */
	for (size_t k = 0; k < x->nslots; k++)
		if (x->slots[k].i != EMPTY)
			put(v, ns, x->slots[k].i, x->slots[k].h);
	if (!x->nslots)
		for (size_t i = 0; i < n; i++)
			put(v, ns, (uint32_t)i, strindex_hash(x->key(x->data, i)));
	free(x->slots);
	x->slots = v, x->nslots = ns;
	return 0;
}

size_t strindex_find_hashed(const struct strindex *x, const char *key, uint32_t h)
{
	size_t mask = x->nslots - 1;

	if (!x->nslots)
		return STRINDEX_NONE;
	for (size_t k = h & mask; x->slots[k].i != EMPTY; k = (k + 1) & mask)
		if (x->slots[k].h == h && !strcmp(x->key(x->data, x->slots[k].i), key))
			return x->slots[k].i;
	return STRINDEX_NONE;
}

size_t strindex_find(const struct strindex *x, const char *key)
{
	return x->nslots ? strindex_find_hashed(x, key, strindex_hash(key)) : STRINDEX_NONE;
}

void strindex_free(struct strindex *x)
{
	free(x->slots);
	x->slots = NULL, x->nslots = 0;
}

struct arena_block {
	struct arena_block *next;
	size_t used, size;
	char data[];
};

#define ARENA_FIRST 1024
#define ARENA_MAX 65536

void *arena_alloc(struct arena *a, size_t n)
{
	struct arena_block *b = a->head;
	size_t size;

	if (!b || b->size - b->used < n) {
		size = a->next_size ? a->next_size : ARENA_FIRST;
		a->next_size = size < ARENA_MAX ? size * 2 : size;
		size -= sizeof(*b);
		if (size < n)
			size = n;
		if (size > SIZE_MAX - sizeof(*b) || !(b = malloc(sizeof(*b) + size)))
			return NULL;
		*b = (struct arena_block){ .next = a->head, .size = size };
		a->head = b;
	}
	b->used += n;
	return b->data + b->used - n;
}

char *arena_strdup(struct arena *a, const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = arena_alloc(a, n);

	return d ? memcpy(d, s, n) : NULL;
}

char *arena_cat(struct arena *a, const char *s1, const char *s2)
{
	size_t n1 = strlen(s1), n2 = strlen(s2) + 1;
	char *d = arena_alloc(a, n1 + n2);

	if (d) {
		memcpy(d, s1, n1);
		memcpy(d + n1, s2, n2);
	}
	return d;
}

void arena_free(struct arena *a)
{
	for (struct arena_block *b = a->head, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	*a = (struct arena){ .head = NULL };
}
