/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * array.c: growable arrays and an index of their elements by a string key.
 * Anyone may include it: it knows nothing of earlytune.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Room for one more element in the array *v points to (v: a T **; n
 * used, *cap allocated, each size bytes), doubling from first (or from
 * as many as 1 KiB holds, when fewer): 0 or -ENOMEM, *v untouched then. */
int array_grow(void *v, size_t *cap, size_t n, size_t size, size_t first);
/* Room for want elements at once, where the caller knows how many come:
 * no copy per doubling on the way, each into pages of its own. */
int array_reserve(void *v, size_t *cap, size_t want, size_t size);

/* Open addressing over an array's indexes, kept at most half full. The
 * array stays the caller's: key(data, i) is element i's key. Each slot
 * keeps its key's hash beside the index: a growth moves slots without
 * hashing a key again, and a probe compares a key only when the hash
 * matches. At most UINT32_MAX - 1 elements. */
#define STRINDEX_NONE ((size_t)-1)
struct strslot {
	uint32_t i, h; /* the element (UINT32_MAX: empty) and its key's hash */
};
struct strindex {
	struct strslot *slots;
	size_t nslots;
	const char *(*key)(const void *data, size_t i);
	const void *data;
};
/* Room for n + 1 elements: grown when half full (the slots moved, or,
 * with none yet, made from the first n). */
int strindex_reserve(struct strindex *x, size_t n);
/* A key's hash: for the _hashed calls, which spare a second hash of a key
 * looked up and then inserted. */
uint32_t strindex_hash(const char *key);
void strindex_insert(struct strindex *x, size_t i);
void strindex_insert_hashed(struct strindex *x, size_t i, uint32_t h);
size_t strindex_find(const struct strindex *x, const char *key); /* STRINDEX_NONE: absent */
size_t strindex_find_hashed(const struct strindex *x, const char *key, uint32_t h);
/* Every slot again from the first n elements (after they moved). */
void strindex_rebuild(struct strindex *x, size_t n);
void strindex_free(struct strindex *x);

/* Many small allocations freed together: carved from blocks (the first
 * 1 KiB, for a run of one device, each next one twice as big, up to 64 KiB) that arena_free frees
 * whole. No alignment: for strings. A zeroed struct arena is empty. */
struct arena_block;
struct arena {
	struct arena_block *head;
	size_t next_size;
};
void *arena_alloc(struct arena *a, size_t n); /* NULL: out of memory */
char *arena_strdup(struct arena *a, const char *s);
char *arena_cat(struct arena *a, const char *s1, const char *s2); /* s1 then s2 */
void arena_free(struct arena *a);
