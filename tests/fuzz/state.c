// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The state loader (state_parse(), what state_load() does with the file).
 * Properties: every record it keeps has six fields (identity "" for a line
 * of five) without a tab or a newline, a valid target, a path where apply
 * writes (sys/, proc/sys/, netlink/ifindex/ or netlink/netns/, ethtool/,
 * sysfs/netns/ (an interface's attribute, by namespace), or a limits drop-in:
 * run/systemd/.../50-earlytune-limits.conf) without "..", and state_find()
 * finds it;
 * state_save() then state_load() through a real root gives back the same
 * records (run/earlytune of a temporary root: originals, disks/, links/),
 * each in its file.
 * Read as an earlier version's originals and saved, then loaded scoped (a
 * udev run about the first record's target, and the interface of the first
 * netlink record): the scoped load reads exactly the records session_in_scope()
 * keeps (all of them for a disk whose name starts with a dot: it has no
 * file of its own), and saved then loaded in full gives back the records
 * of a full load.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "engine/internal.h"
#include "engine/session.h"
#include "fuzz.h"
#include "stateroot.h"

/* Written out here, not taken from state.c: the property is the rule itself. */
static bool limits_dropin(const char *path)
{
	static const char end[] = "/50-earlytune-limits.conf";
	size_t n = strlen(path);

	return !strncmp(path, "run/systemd/", 12) && n > strlen(end) && !strcmp(path + n - strlen(end), end);
}

static void check_record(struct records *rs, const struct record *x)
{
	const char *f[6] = { x->domain, x->target, x->setting, x->path, x->value, x->identity };
	const struct record *found;

	for (int i = 0; i < 6; i++)
		fuzz_assert(f[i] && !strpbrk(f[i], "\t\n"), "field %d NULL or holds a tab or newline", i);
	fuzz_assert(valid_name(x->target), "target '%s' kept", x->target);
	fuzz_assert(!strstr(x->path, "..") && (!strncmp(x->path, "sys/", 4) || !strncmp(x->path, "proc/sys/", 9) ||
						!strncmp(x->path, "netlink/ifindex/", 16) ||
						!strncmp(x->path, "netlink/netns/", 14) ||
						!strncmp(x->path, "ethtool/", 8) ||
						!strncmp(x->path, "sysfs/netns/", 12) || limits_dropin(x->path)),
		    "path '%s' kept", x->path);
	found = state_find(rs, x->path);
	fuzz_assert(found && !strcmp(found->path, x->path), "state_find('%s') fails", x->path);
}

static bool same(const struct record *a, const struct record *b)
{
	return !strcmp(a->domain, b->domain) && !strcmp(a->target, b->target) &&
	       !strcmp(a->setting, b->setting) && !strcmp(a->path, b->path) &&
	       !strcmp(a->value, b->value) && !strcmp(a->identity, b->identity);
}

static bool has(const struct records *rs, const struct record *x, bool *used)
{
	for (size_t i = 0; i < rs->n; i++)
		if (!used[i] && same(&rs->v[i], x))
			return used[i] = true;
	return false;
}

/* The scope of a udev run the input can be about. */
static void scope_of(const struct records *full, struct ctx *c, char **dev)
{
	*dev = (char *)(full->n ? full->v[0].target : "vda");
	c->devices = dev, c->ndevices = 1;
	for (size_t i = 0; i < full->n && !c->ifindex; i++)
		c->ifindex = state_ifindex(full->v[i].domain, full->v[i].path);
}

static void check_scoped(const char *text, size_t len)
{
	struct records full = { .lock_fd = -1 }, sc = { .lock_fd = -1 }, again = { .lock_fd = -1 };
	struct ctx c = { 0 };
	bool *used, dotted;
	char *dev;

	size_t nscope = 0;

	clear(true);
	fuzz_assert(root_write_atomic(&root, "run/earlytune/originals", text, len, 0600) == 0, "cannot write");
	if (state_load(&full, &root) < 0)
		goto out; /* ENOMEM */
	fuzz_assert(state_save(&full, &root) == 0, "the move to the files failed");
	scope_of(&full, &c, &dev);
	fuzz_assert(state_load_scoped(&sc, &root, &c) == 0, "state_load_scoped failed");
	/* A disk's file is named after it; a name with a dot first would pass
	 * for a temporary file, so its records stay in originals, and a run
	 * about it reads everything. */
	dotted = valid_name(dev) && dev[0] == '.';
	fuzz_assert(sc.scoped_load != dotted, "a scoped load about '%s' %s", dev,
		    dotted ? "missed originals" : "of this version's files read them all");
	used = calloc(sc.n + 1, sizeof(*used));
	for (size_t i = 0; i < full.n; i++)
		if (dotted || session_in_scope(&c, domain_find(full.v[i].domain), &full.v[i], 0)) {
			fuzz_assert(has(&sc, &full.v[i], used), "record %zu in scope not read", i);
			nscope++;
		}
	fuzz_assert(sc.n == nscope, "a scoped load read %zu records, %zu in scope", sc.n, nscope);
	free(used);
	sc.dirty = true;
	fuzz_assert(state_save(&sc, &root) == 0, "scoped state_save failed");
	fuzz_assert(state_load(&again, &root) == 0, "state_load after the scoped save failed");
	fuzz_assert(again.n == full.n, "%zu records in full, %zu after a scoped save", full.n, again.n);
	used = calloc(again.n + 1, sizeof(*used));
	for (size_t i = 0; i < full.n; i++)
		fuzz_assert(has(&again, &full.v[i], used), "record %zu lost by a scoped save", i);
	free(used);
out:
	state_free(&again);
	state_free(&sc);
	state_free(&full);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct records rs = { .lock_fd = -1 }, again = { .lock_fd = -1 };
	char *buf = fuzz_cstr(data, size);
	int r;

	check_scoped(buf, strlen(buf));
	clear(false);
	r = state_parse(&rs, buf);

	fuzz_assert(r == 0 || r == -ENOMEM, "state_parse returned %d", r);
	for (size_t i = 0; i < rs.n; i++)
		check_record(&rs, &rs.v[i]);
	if (r == 0) {
		fuzz_assert(state_save(&rs, &root) == 0, "state_save failed");
		fuzz_assert(state_load(&again, &root) == 0, "state_load failed");
		fuzz_assert(again.n == rs.n, "%zu records saved, %zu loaded", rs.n, again.n);
		for (size_t i = 0; i < rs.n; i++) {
			const struct record *x = state_find(&again, rs.v[i].path);

			fuzz_assert(x && same(&rs.v[i], x), "record %zu differs after save and load", i);
			fuzz_assert(!strcmp(again.files[x->file].rel, rs.files[rs.v[i].file].rel),
				    "record %zu read from %s, saved to %s", i, again.files[x->file].rel,
				    rs.files[rs.v[i].file].rel);
		}
	}
	state_free(&again);
	state_free(&rs);
	free(buf);
	return 0;
}
