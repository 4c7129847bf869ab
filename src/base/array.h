/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * array.c: growable arrays and an index of their elements by a string key.
 * Anyone may include it: it knows nothing of earlytune.
 */
#pragma once

#include <stddef.h>

/* Room for one more element in the array *v points to (v: a T **; n
 * used, *cap allocated, each size bytes), doubling from first (or from
 * as many as 1 KiB holds, when fewer): 0 or -ENOMEM, *v untouched then. */
int array_grow(void *v, size_t *cap, size_t n, size_t size, size_t first);

/* Open addressing over an array's indexes, kept at most half full. The
 * array stays the caller's: key(data, i) is element i's key. */
#define STRINDEX_NONE ((size_t)-1)
struct strindex {
	size_t *slots, nslots;
	const char *(*key)(const void *data, size_t i);
	const void *data;
};
/* Room for n + 1 elements: rebuilt from the first n when it grows. */
int strindex_reserve(struct strindex *x, size_t n);
void strindex_insert(struct strindex *x, size_t i);
size_t strindex_find(const struct strindex *x, const char *key); /* STRINDEX_NONE: absent */
void strindex_rebuild(struct strindex *x, size_t n);
void strindex_free(struct strindex *x);
