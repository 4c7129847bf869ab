// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The one file of records (run/earlytune/records) as a run may find it:
 * whatever its bytes, its index tampered with (offsets or lengths past the
 * end, keys out of order or repeated, a key no group has), its body torn.
 * Properties: one_map() takes the file or answers -EBADMSG; every entry
 * one_next() gives has its group inside the body; where the index is
 * strictly sorted, one_find() finds every entry's group at the same place;
 * a full load keeps only records with six fields free of tabs and newlines,
 * and saved then loaded gives them back; a scoped load about the first
 * record's device, where the index is sorted, reads only records the full
 * load has (no bytes from outside its group's lines).
 */
#include <fcntl.h>

#include "engine/internal.h"
#include "engine/session.h"
#include "fuzz.h"
#include "stateroot.h"

static int key_order(const struct one_entry *a, const struct one_entry *b)
{
	int c = memcmp(a->key, b->key, a->klen < b->klen ? a->klen : b->klen);

	return c ? c : (a->klen > b->klen) - (a->klen < b->klen);
}

/* The index walked and searched; true when it is strictly sorted. */
static bool check_index(void)
{
	struct one_map m;
	struct one_entry e, prev = { 0 }, f;
	size_t pos = 0, n = 0, at[64], len[64], start[64];
	bool sorted = true;
	int rr = one_map(&root, &m);

	fuzz_assert(rr == 0 || rr == -EBADMSG, "one_map returned %d", rr);
	if (rr < 0)
		return false;
	for (size_t p0 = pos; (rr = one_next(&m, &pos, &e)) > 0; p0 = pos) {
		fuzz_assert(e.at >= m.p + m.body && e.len <= m.size && e.at + e.len <= m.p + m.size,
			    "entry '%.*s' outside the body", (int)e.klen, e.key);
		sorted &= !n || key_order(&prev, &e) < 0;
		if (n < 64)
			at[n] = (size_t)(e.at - m.p), len[n] = e.len, start[n] = p0;
		prev = e, n++;
	}
	fuzz_assert(rr == 0 || rr == -EBADMSG, "one_next returned %d", rr);
	sorted &= rr == 0;
	for (size_t i = 0; sorted && i < n && i < 64; i++) {
		char rel[STATE_REL_MAX];
		size_t p = start[i];

		fuzz_assert(one_next(&m, &p, &e) == 1, "entry %zu not read again", i);
		snprintf(rel, sizeof(rel), STATE_DIR "/%.*s", (int)e.klen, e.key);
		fuzz_assert(one_find(&m, rel, &f) == 1 && (size_t)(f.at - m.p) == at[i] && f.len == len[i],
			    "one_find('%s') misses the group of a sorted index", rel);
	}
	one_unmap(&m);
	return sorted;
}

static void check_fields(const struct record *x)
{
	const char *f[6] = { x->domain, x->target, x->setting, x->path, x->value, x->identity };

	for (int i = 0; i < 6; i++)
		fuzz_assert(f[i] && !strpbrk(f[i], "\t\n"), "field %d NULL or holds a tab or newline", i);
}

static void check_scoped(struct records *full)
{
	struct records sc = { .lock_fd = -1 };
	struct ctx c = { 0 };
	char *dev = (char *)(full->n ? full->v[0].target : "vda");
	int rr;

	c.devices = &dev, c.ndevices = 1;
	for (size_t i = 0; i < full->n && !c.ifindex; i++)
		c.ifindex = state_ifindex(full->v[i].domain, full->v[i].path);
	rr = state_load_scoped(&sc, &root, &c);
	fuzz_assert(rr == 0 || rr == -ENOMEM, "a scoped load of a file the full load took: %d", rr);
	for (size_t i = 0; i < sc.n; i++) {
		check_fields(&sc.v[i]);
		fuzz_assert(state_find(full, sc.v[i].path), "a scoped load read '%s', not in the file",
			    sc.v[i].path);
	}
	state_free(&sc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct records full = { .lock_fd = -1 }, again = { .lock_fd = -1 };
	bool sorted;
	int rr;

	clear(true);
	fuzz_assert(root_write_atomic(&root, RECORDS_FILE, (const char *)data, size, 0600) == 0, "cannot write");
	sorted = check_index();
	rr = state_load(&full, &root);
	fuzz_assert(rr == 0 || rr == -EBADMSG || rr == -ENOMEM, "state_load returned %d", rr);
	if (rr < 0)
		goto out;
	for (size_t i = 0; i < full.n; i++)
		check_fields(&full.v[i]);
	if (sorted)
		check_scoped(&full);
	full.dirty = true;
	fuzz_assert(state_save(&full, &root) == 0, "state_save failed");
	fuzz_assert(state_load(&again, &root) == 0, "state_load of what it saved failed");
	fuzz_assert(again.n == full.n, "%zu records saved, %zu loaded", full.n, again.n);
	for (size_t i = 0; i < full.n; i++)
		fuzz_assert(state_find(&again, full.v[i].path), "record '%s' lost by a save", full.v[i].path);
out:
	state_free(&again);
	state_free(&full);
	return 0;
}
