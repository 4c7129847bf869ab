// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One file, many paths: /sys/block/vda/queue/x, /sys/class/block/vda/queue/x
 * and /sys/devices/…/block/vda/queue/x are one attribute, and another
 * writer may name it by any of them. An entry whose path does not name the
 * item's as written is compared by the real file, found through the root:
 * a plain path by the file it opens (device and inode), a glob against the
 * file's real path and the paths the kernel's links give the devices it is
 * below (sys/class/CLASS/NAME, sys/bus/BUS/devices/NAME). Only an entry
 * whose last component names the file's is looked at, and each item's file
 * and each entry's path is resolved at most once a run: a udev run about
 * one device resolves its own files and the entries that name them, never
 * the host's other files.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "writers/internal.h"

/* The item's file (annotate's item, or a path alone). */
struct wfile {
	const struct item *it; /* the item it was looked for, NULL: none yet */
	char path[PATH_MAX];   /* as writers_item_path gives it */
	int state;             /* 0 not looked for, 1 found, -errno */
	dev_t dev;
	ino_t ino;
	char real[PATH_MAX];
	struct strbuf aliases; /* the links' paths to it, each ending in '\n' */
	bool aliased;          /* aliases made (perhaps none) */
};

/* A plain path of an entry, opened once. */
struct wkey {
	int state; /* 0 not looked for, 1 found, -errno */
	dev_t dev;
	ino_t ino;
};

struct wcache {
	struct wfile file;
	struct wkey *keys; /* one per entry, as many as nkeys */
	size_t nkeys;
};

static int open_file(const struct root *r, const char *rel, dev_t *dev, ino_t *ino)
{
	_cleanup_(closep) int fd = root_openat(r, rel, O_PATH, 0);
	struct stat st;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		return -errno;
	*dev = st.st_dev, *ino = st.st_ino;
	return 1;
}

static void file_reset(struct wfile *f, const struct item *it, const char *path)
{
	sb_free(&f->aliases);
	*f = (struct wfile){ .it = it };
	snprintf(f->path, sizeof(f->path), "%s", path);
}

static int file_found(const struct wctx *w, struct wfile *f)
{
	if (!f->state)
		f->state = open_file(w->r, f->path, &f->dev, &f->ino);
	if (f->state > 0 && !*f->real && root_realpath(w->r, f->path, f->real, sizeof(f->real)) < 0)
		snprintf(f->real, sizeof(f->real), "%s", root_rel_path(f->path));
	return f->state;
}

/* A device's subsystem link, "../../../class/block": kind "class", name
 * "block" (cut in place). */
static bool link_kind(char *target, const char **kind, const char **name)
{
	char *last = strrchr(target, '/'), *prev;

	if (!last || last == target)
		return false;
	*last = '\0';
	prev = strrchr(target, '/');
	*kind = prev ? prev + 1 : target;
	*name = last + 1;
	return true;
}

/* Each device directory the real path is below, nearest first: fn gets
 * the path its link gives it, the rest of real after it, and its class
 * ("block", "net"; "" for a bus's device). Stops when fn returns true. */
static bool each_device(const struct wctx *w, const char *real,
			bool (*fn)(const char *link, const char *rest, const char *cls, void *data), void *data)
{
	static const char devices[] = "sys/devices/";
	char sub[PATH_MAX], target[PATH_MAX], link[PATH_MAX];
	const char *kind, *name, *dev;
	bool class;

	if (strncmp(real, devices, strlen(devices)))
		return false;
	for (size_t n = strlen(real); n > strlen(devices); n--) {
		if (real[n] != '/' || pathf(sub, sizeof(sub), "%.*s/subsystem", (int)n, real) < 0 ||
		    root_readlink(w->r, sub, target, sizeof(target)) < 0 || !link_kind(target, &kind, &name))
			continue;
		class = !strcmp(kind, "class");
		for (dev = real + n; dev > real && dev[-1] != '/'; dev--)
			;
		if ((class || !strcmp(kind, "bus")) &&
		    pathf(link, sizeof(link), class ? "sys/class/%s/%.*s" : "sys/bus/%s/devices/%.*s", name,
			  (int)(real + n - dev), dev) == 0 &&
		    fn(link, real + n, class ? name : "", data))
			return true;
	}
	return false;
}

static bool add_alias(const char *link, const char *rest, const char *cls, void *data)
{
	struct wfile *f = data;

	sb_printf(&f->aliases, "%s%s\n", link, rest);
	return f->aliases.oom;
}

/* A glob against the file's real path and the links' paths to it. */
static bool glob_matches(const struct wctx *w, struct wfile *f, const char *glob)
{
	char one[PATH_MAX];

	if (file_found(w, f) <= 0)
		return false;
	if (writers_path_match(glob, f->real))
		return true;
	if (!f->aliased) {
		each_device(w, f->real, add_alias, f);
		f->aliased = true;
	}
	for (const char *s = f->aliases.s; s && *s; s += strcspn(s, "\n") + 1)
		if (fmt(one, sizeof(one), "%.*s", (int)strcspn(s, "\n"), s) < (int)sizeof(one) &&
		    writers_path_match(glob, one))
			return true;
	return false;
}

static int key_found(const struct wctx *w, const struct wentry *e, struct wkey *k)
{
	if (!k->state)
		k->state = open_file(w->r, e->key, &k->dev, &k->ino);
	return k->state;
}

static bool same_file(const struct wctx *w, struct wfile *f, const struct wentry *e)
{
	struct wkey local = { 0 }, *k = &local;

	if (w->cache && w->cache->nkeys == w->n && e >= w->v && e < w->v + w->n)
		k = &w->cache->keys[e - w->v];
	return key_found(w, e, k) > 0 && file_found(w, f) > 0 && k->dev == f->dev && k->ino == f->ino;
}

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

bool writers_file_match(const struct wctx *w, const struct wentry *e, const char *path)
{
	struct wfile local = { 0 }, *f = w->cache && w->cache->file.it ? &w->cache->file : &local;
	bool r;

	if (writers_path_match(e->key, path))
		return true;
	/* an attribute is a file, never a link: its name is the same by any path */
	if (!w->r || fnmatch(base_of(e->key), base_of(path), 0))
		return false;
	if (f == &local)
		file_reset(f, NULL, path);
	r = strpbrk(e->key, "*?[") ? glob_matches(w, f, e->key) : same_file(w, f, e);
	if (f == &local)
		sb_free(&f->aliases);
	return r;
}

struct view {
	char *buf;
	size_t size;
};

static bool class_link(const char *link, const char *rest, const char *cls, void *data)
{
	struct view *v = data;

	return (!strcmp(cls, "block") || !strcmp(cls, "net")) && pathf(v->buf, v->size, "%s%s", link, rest) == 0;
}

const struct item *writers_item_view(const struct wctx *w, const struct item *it, struct item *view, char *buf,
				     size_t size)
{
	static const char *const named[] = { "sys/block/", "sys/class/block/", "sys/class/net/" };
	struct wfile local = { 0 }, *f = w->cache && w->cache->file.it == it ? &w->cache->file : &local;
	struct view v = { buf, size };
	bool found;

	if (strcmp(it->domain, "sysfs") || !it->path || strncmp(it->path, "sys/", 4))
		return it;
	for (size_t i = 0; i < ARRAY_SIZE(named); i++)
		if (!strncmp(it->path, named[i], strlen(named[i])))
			return it;
	if (f == &local)
		file_reset(f, it, it->path);
	found = file_found(w, f) > 0 && each_device(w, f->real, class_link, &v);
	if (f == &local)
		sb_free(&f->aliases);
	if (!found)
		return it;
	*view = *it;
	view->path = buf;
	return view;
}

void writers_cache_init(struct wctx *w)
{
	w->cache = calloc(1, sizeof(*w->cache));
	if (w->cache && w->n && (w->cache->keys = calloc(w->n, sizeof(*w->cache->keys))))
		w->cache->nkeys = w->n;
}

void writers_cache_item(const struct wctx *w, const struct item *it)
{
	char path[PATH_MAX];

	if (!w->cache)
		return;
	writers_item_path(it, path, sizeof(path));
	file_reset(&w->cache->file, it, path);
}

void writers_cache_free(struct wctx *w)
{
	if (!w->cache)
		return;
	sb_free(&w->cache->file.aliases);
	free(w->cache->keys);
	free(w->cache);
	w->cache = NULL;
}
