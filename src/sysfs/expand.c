// SPDX-License-Identifier: LGPL-2.1-or-later
/* The files a [sysfs] path names: its globs expanded one component at a
 * time through the root (not glob(3), see root_match), and whether a link
 * on the way leads out of /sys. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/array.h"
#include "sysfs/internal.h"

struct names {
	char **v;
	size_t n, cap;
	int err;
};

static void collect(const char *rel, void *data)
{
	struct names *l = data;
	char *copy;

	if (l->err)
		return;
	if (l->n >= SYSFS_MATCH_MAX) {
		l->err = -E2BIG;
		return;
	}
	copy = strdup(rel);
	if (!copy || array_grow(&l->v, &l->cap, l->n, sizeof(*l->v), 16) < 0) {
		free(copy);
		l->err = -ENOMEM;
		return;
	}
	l->v[l->n++] = copy;
}

static int cmp_names(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

static void names_free(struct names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

struct walk {
	const struct root *r;
	void (*fn)(const char *rel, void *data);
	void *data;
	int count;
};

/* dir (a directory that exists) then rest, whose first component may be a glob. */
static int walk(struct walk *w, const char *dir, const char *rest)
{
	size_t n = strcspn(rest, "/");
	char comp[NAME_MAX + 1], next[PATH_MAX];
	struct names l = { 0 };
	int r = 0;

	if (n > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(comp, rest, n);
	comp[n] = '\0';
	if (!sysfs_has_glob(comp)) {
		if (pathf(next, sizeof(next), "%s/%s", dir, comp) < 0)
			return -ENAMETOOLONG;
		collect(next, &l);
	} else {
		r = root_match(w->r, dir, comp, collect, &l);
	}
	r = r < 0 ? r : l.err;
	if (l.n > 1)
		qsort(l.v, l.n, sizeof(*l.v), cmp_names);
	for (size_t i = 0; r >= 0 && i < l.n; i++) {
		if (!rest[n]) {
			if (root_access(w->r, l.v[i]) > 0 && w->count++ < SYSFS_MATCH_MAX)
				w->fn(l.v[i], w->data);
		} else {
			r = walk(w, l.v[i], rest + n + 1);
		}
	}
	names_free(&l);
	return r < 0 ? r : w->count > SYSFS_MATCH_MAX ? -E2BIG : 0;
}

int sysfs_expand(const struct root *r, const char *glob, void (*fn)(const char *rel, void *data), void *data)
{
	struct walk w = { .r = r, .fn = fn, .data = data };
	int rr;

	if (strncmp(glob, "sys/", 4))
		return -EINVAL;
	rr = walk(&w, "sys", glob + 4);
	return rr < 0 ? rr : w.count;
}

int sysfs_confined(const struct root *r, const char *rel)
{
	_cleanup_(closep) int sys = root_openat(r, "sys", O_PATH | O_DIRECTORY, 0);
	_cleanup_(closep) int a = root_openat(r, rel, O_PATH, 0);
	struct root in = { .fd = sys, .dir = (char *)"sys", .is_host = false };
	_cleanup_(closep) int b = sys < 0 || strncmp(rel, "sys/", 4) ? -ENOENT : root_openat(&in, rel + 4, O_PATH, 0);
	struct stat sa, sb;

	if (sys < 0)
		return sys;
	if (a < 0)
		return a;
	if (b == -ENOENT || b == -EXDEV || b == -ELOOP)
		return 0;
	if (b < 0)
		return b;
	if (fstat(a, &sa) < 0 || fstat(b, &sb) < 0)
		return -errno;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
