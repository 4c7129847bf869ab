// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Where the configuration comes from: the embedded profile first, then
 * /etc/earlytune.conf, then the *.conf drop-ins of /usr/lib, /run and /etc
 * (a name in /etc masks /run masks /usr/lib; an empty file or a /dev/null
 * symlink masks it entirely), sorted by file name. A file that cannot be
 * read is named and skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "base/root.h"
#include "config/config.h"

#define CONFIG_MAX_SIZE (1 << 20)

static const char *const dropin_dirs[] = { "etc/earlytune.d", "run/earlytune.d",
					   "usr/lib/earlytune.d" };

static const char *keep_source(struct config *c, const char *src)
{
	char **v = realloc(c->files, (c->nfiles + 1) * sizeof(*v));

	if (!v)
		return NULL;
	c->files = v;
	v[c->nfiles] = strdup(src);
	return v[c->nfiles] ? v[c->nfiles++] : NULL;
}

/* A file that cannot be read is skipped, named and counted: the rest of the
 * configuration still loads (--boot applies it; other commands refuse to
 * write, as for a bad line). */
_printf_(3, 4) static void skip_file(struct config *c, const char *source, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	log_msg(LOG_ERR, "%s: %s; skipping this file", source, why);
	config_count_error(c, source, 0, why);
	c->skipped++;
}

static int parse_fd(struct config *c, int fd, const char *source)
{
	_cleanup_(freep) char *buf = NULL;
	size_t cap = 0, len = 0;
	const char *src;
	ssize_t n;

	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = len + 8192);

			if (!nb)
				return -ENOMEM;
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			skip_file(c, source, "cannot read: %s", strerror(errno));
			return 0;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > CONFIG_MAX_SIZE) {
			skip_file(c, source, "larger than 1 MiB");
			return 0;
		}
	}
	if (!buf)
		return 0;
	buf[len] = '\0';
	src = keep_source(c, source);
	if (!src)
		return -ENOMEM;
	if (strlen(buf) != len) {
		skip_file(c, source, "contains a NUL byte, not a text file");
		return 0;
	}
	return config_parse_text(c, buf, src);
}

static char *display_path(const struct root *r, const char *rel)
{
	if (r->is_host)
		return xasprintf("/%s", rel);
	return xasprintf("%s%s%s", r->dir, r->dir[strlen(r->dir) - 1] == '/' ? "" : "/", rel);
}

/* listed: the name came from a directory listing, so even ENOENT (a
 * dangling symlink) is a file that cannot be read, not an absent one.
 * O_NONBLOCK: a FIFO must not hang a boot; only regular files are read. */
static int parse_rooted(struct config *c, const struct root *r, const char *rel, bool listed)
{
	_cleanup_(closep) int fd = root_openat(r, rel, O_RDONLY | O_NONBLOCK, 0);
	_cleanup_(freep) char *shown = display_path(r, rel);
	struct stat st;

	if (fd == -ENOENT && !listed)
		return 0;
	if (!shown)
		return -ENOMEM;
	if (fd < 0) {
		skip_file(c, shown, "cannot open: %s", strerror(-fd));
		return 0;
	}
	if (fstat(fd, &st) < 0) {
		skip_file(c, shown, "cannot stat: %s", strerror(errno));
		return 0;
	}
	if (!S_ISREG(st.st_mode)) {
		skip_file(c, shown, "not a regular file");
		return 0;
	}
	log_msg(LOG_DEBUG, "reading %s", shown);
	return parse_fd(c, fd, shown);
}

bool conf_masked(const struct root *r, const char *rel)
{
	char target[32];
	struct stat st;
	_cleanup_(closep) int fd = -1;

	if (root_readlink(r, rel, target, sizeof(target)) > 0 && !strcmp(target, "/dev/null"))
		return true;
	/* A file that cannot be opened masks nothing: its reader says why. */
	fd = root_openat(r, rel, O_RDONLY | O_NONBLOCK, 0);
	return fd >= 0 && fstat(fd, &st) == 0 && st.st_size == 0 && S_ISREG(st.st_mode);
}

static int cmp_basename(const void *a, const void *b)
{
	const char *x = strrchr(*(char *const *)a, '/') + 1, *y = strrchr(*(char *const *)b, '/') + 1;

	return strcmp(x, y);
}

struct conf_list {
	char **v;
	size_t n;
	int err;
};

/* Adds "dir/name" unless an earlier directory had that name. */
static void add_conf(const char *rel, void *data)
{
	struct conf_list *l = data;
	const char *name = strrchr(rel, '/') + 1;
	char **nv;

	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(strrchr(l->v[i], '/') + 1, name))
			return;
	nv = realloc(l->v, (l->n + 1) * sizeof(*nv));
	if (nv)
		l->v = nv;
	if (!nv || !(nv[l->n] = strdup(rel))) {
		l->err = -ENOMEM;
		return;
	}
	l->n++;
}

/* Collects "dir/name" for each distinct *.conf name, sorted by name; the
 * first directory of dirs that has a name owns it (systemd's drop-in rule).
 * unlisted hears of each directory that cannot be listed (absent is fine:
 * not a directory is not); returns -ENOMEM or 0. */
static int collect(const struct root *r, const char *const *dirs, size_t ndirs, const char *pattern,
		   struct conf_list *l, void (*unlisted)(const char *dir, int err, void *data), void *data)
{
	for (size_t d = 0; d < ndirs && !l->err; d++) {
		int k = root_list(r, dirs[d], pattern, add_conf, l);

		if (k < 0 && k != -ENOENT && !l->err)
			unlisted(dirs[d], k, data);
	}
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), cmp_basename);
	return l->err;
}

static void first_err(const char *dir, int err, void *data)
{
	int *first = data;

	if (!*first)
		*first = err;
}

/* A directory that cannot be listed is an error (returned once the others
 * are listed), an absent one is not. */
int conf_files(const struct root *r, const char *const *dirs, size_t ndirs, char ***out, size_t *n)
{
	return conf_files_match(r, dirs, ndirs, "*.conf", out, n);
}

/* conf_files for other names than *.conf (udev's *.rules, networkd's *.network). */
int conf_files_match(const struct root *r, const char *const *dirs, size_t ndirs, const char *pattern, char ***out,
		     size_t *n)
{
	struct conf_list l = { 0 };
	int err = 0, k = collect(r, dirs, ndirs, pattern, &l, first_err, &err);

	*out = l.v;
	*n = l.n;
	return k < 0 ? k : err;
}

struct dropins {
	struct config *c;
	const struct root *r;
};

static void skip_dir(const char *dir, int err, void *data)
{
	struct dropins *d = data;
	_cleanup_(freep) char *shown = display_path(d->r, dir);

	if (shown)
		skip_file(d->c, shown, "cannot list: %s", strerror(-err));
}

static int load_dropins(struct config *c, const struct root *r)
{
	struct dropins d = { c, r };
	struct conf_list l = { 0 };
	int rr = collect(r, dropin_dirs, ARRAY_SIZE(dropin_dirs), "*.conf", &l, skip_dir, &d);

	for (size_t i = 0; i < l.n; i++) {
		if (rr >= 0 && !conf_masked(r, l.v[i]))
			rr = parse_rooted(c, r, l.v[i], true);
		free(l.v[i]);
	}
	free(l.v);
	return rr;
}

/* Puts the profile's assignments in front of everything read from files. */
/* The build links the generated table over this one. */
__attribute__((weak)) const struct cfg_profile *profile_compiled(const char *name)
{
	return NULL;
}

/* The entries of a profile parsed at build time, as the reader would have
 * made them from its text: its base's, then its own. */
static int profile_copy(struct config *p, const struct cfg_profile *b, const char *source)
{
	size_t n = b->n + (b->base ? b->base->n : 0);

	p->v = calloc(n + 1, sizeof(*p->v));
	if (!p->v)
		return -ENOMEM;
	p->cap = n;
	for (size_t i = 0; i < n; i++) {
		const struct cfg_builtin *f = b->base && i < b->base->n ? &b->base->v[i] : &b->v[i - n + b->n];
		struct cfg_entry *e = &p->v[p->n++];

		/* The table's strings, not copies: a udev run would spend
		 * a tenth of its instructions copying and freeing them. */
		*e = (struct cfg_entry){
			.section = (char *)f->section,
			.name = (char *)f->name,
			.key = (char *)f->key,
			.value = (char *)f->value,
			.reason = (char *)f->reason,
			.file = source,
			.line = f->line,
			.borrowed = true,
		};
	}
	return 0;
}

int config_use_profile(struct config *c, const char *name)
{
	struct config p = { 0 };
	const char *text = profile_text(name), *source;
	const struct cfg_profile *built = profile_compiled(name);
	_cleanup_(freep) char *src = xasprintf("profile %s", name);
	struct cfg_entry *v;
	int r;

	if (!text)
		return -ENOENT;
	if (!src)
		return -ENOMEM;
	source = keep_source(c, src) ?: "profile";
	r = built ? profile_copy(&p, built, source) : config_parse_text(&p, text, source);
	if (r < 0 || p.errors) {
		config_free(&p);
		return r < 0 ? r : -EINVAL;
	}
	v = realloc(p.v, (p.n + c->n + 1) * sizeof(*v));
	if (!v) {
		config_free(&p);
		return -ENOMEM;
	}
	if (c->n)
		memcpy(v + p.n, c->v, c->n * sizeof(*v));
	free(c->v);
	c->v = v;
	c->n += p.n;
	c->cap = c->n;
	p.v = NULL;
	p.n = 0;
	config_free(&p);
	free(c->profile);
	c->profile = strdup(name);
	return c->profile ? 0 : -ENOMEM;
}

int config_load(struct config *c, const struct root *r, const char *file,
		const char *profile_override)
{
	const struct cfg_entry *e;
	int rr = 0;

	if (file) {
		/* Named on the command line: a pipe is fine, a directory is not
		 * (its read fails and names it). */
		_cleanup_(closep) int fd = open(file, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			skip_file(c, file, "cannot open: %s", strerror(errno));
		else
			rr = parse_fd(c, fd, file);
	} else {
		rr = parse_rooted(c, r, "etc/earlytune.conf", false);
		if (rr >= 0)
			rr = load_dropins(c, r);
	}
	if (rr < 0)
		return rr;
	e = config_get(c, "main", NULL, "profile");
	rr = config_use_profile(c, profile_override ? profile_override : e ? e->value : "vps");
	if (rr >= 0)
		config_check(c);
	return rr;
}
