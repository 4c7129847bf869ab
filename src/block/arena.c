// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Strings of one lifetime kept in a few large blocks: a listing's 1,000
 * disk directories, or the identities an apply noted, cost no malloc and
 * free each (a quarter of a disk's allocator work).
 */
#include <stdlib.h>
#include <string.h>

#include "block/disk.h"

#define ARENA_BLOCK 16384

/* Each block starts with the one before it, for arena_free. */
char *arena_cat(struct arena *a, const char *s1, const char *s2)
{
	size_t n1 = strlen(s1), n2 = strlen(s2), need = n1 + n2 + 1;
	char *s;

	if (!a->block || a->used + need > a->cap) {
		size_t cap = need + sizeof(char *) > ARENA_BLOCK ? need + sizeof(char *) : ARENA_BLOCK;
		char *b = malloc(cap);

		if (!b)
			return NULL;
		memcpy(b, &a->block, sizeof(char *));
		a->block = b, a->used = sizeof(char *), a->cap = cap;
	}
	s = a->block + a->used;
	stpcpy(stpcpy(s, s1), s2);
	a->used += need;
	return s;
}

void arena_free(struct arena *a)
{
	while (a->block) {
		char *prev;

		memcpy(&prev, a->block, sizeof(prev));
		free(a->block);
		a->block = prev;
	}
	a->used = a->cap = 0;
}
