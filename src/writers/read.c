// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What the readers of other writers (tuned.c, udev.c, files.c, networkd.c)
 * share: entries, the errors they report, reading files, lines and INI
 * sections, globs.
 * Below the readers, as writers.c, which calls them, is above.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "writers/internal.h"

struct wentry *wentry_add(struct wctx *w, const char *tool, const char *file, int line, enum wstage stage)
{
	struct wentry *e;

	if (array_grow(&w->v, &w->cap, w->n, sizeof(*w->v), 32) < 0)
		return NULL;
	e = &w->v[w->n];
	*e = (struct wentry){ .tool = tool, .line = line, .stage = stage, .seq = (int)w->n };
	wsetf(&e->file, "/%s", file);
	if (!e->file)
		return NULL;
	w->n++;
	return e;
}

/* Length of the valid UTF-8 sequence at s, or 0. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;

	if (s[0] < 0x80)
		return 1;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

void wentries_drop(struct wctx *w, size_t first)
{
	for (size_t i = first; i < w->n; i++) {
		free(w->v[i].file);
		free(w->v[i].what);
		free(w->v[i].key);
		free(w->v[i].names);
		free(w->v[i].value);
		free(w->v[i].extra);
	}
	w->n = first;
}

/* The files are anyone's: what they say goes into the table and into JSON
 * as valid UTF-8 without control characters. */
void wset(char **field, const char *s)
{
	char *copy = s ? strdup(s) : NULL;

	free(*field);
	*field = copy;
	for (unsigned char *p = (unsigned char *)copy; p && *p;) {
		size_t n = utf8_len(p);

		if (!n || *p < 0x20 || *p == 0x7f) {
			*p++ = '?';
			continue;
		}
		p += n;
	}
}

void wsetf(char **field, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	wset(field, s);
	free(s);
}

void writers_errorf(struct wctx *w, const char *fmt, ...)
{
	char **v = realloc(w->errors, (w->nerrors + 1) * sizeof(*v));
	va_list ap;

	if (!v)
		return;
	w->errors = v;
	v[w->nerrors] = NULL;
	va_start(ap, fmt);
	if (vasprintf(&v[w->nerrors], fmt, ap) < 0)
		v[w->nerrors] = NULL;
	va_end(ap);
	if (v[w->nerrors])
		w->nerrors++;
}

void writers_error(struct wctx *w, const char *file, int err)
{
	if (err == -EFBIG)
		writers_errorf(w, "cannot read /%s: larger than %d KiB", file, WRITERS_MAX_FILE >> 10);
	else
		writers_errorf(w, "cannot read /%s: %s", file, strerror(-err));
}

/* A file of a source: absent is nothing to say, any other failure is. */
int writers_read(struct wctx *w, const char *rel, char **buf)
{
	int r = root_read_file(w->r, rel, buf, WRITERS_MAX_FILE);

	if (r < 0 && r != -ENOENT && r != -ENOTDIR)
		writers_error(w, rel, r);
	return r < 0 ? r : 0;
}

/* Each file of a source in its tool's order (by name; the first directory
 * holding a name masks the others; a link to /dev/null or an empty file
 * masks it), read whole and handed to fn. */
int writers_files(struct wctx *w, const char *const *dirs, size_t ndirs, const char *pattern,
		  void (*fn)(struct wctx *w, const char *rel, char *text))
{
	char **files = NULL;
	size_t n = 0;
	int r = conf_files_match(w->r, dirs, ndirs, pattern, &files, &n);

	if (r < 0 && r != -ENOMEM) /* conf_files says not which: the others are read */
		writers_errorf(w, "cannot list /%s or another directory of its kind: %s", dirs[0], strerror(-r));
	for (size_t i = 0; i < n; i++) {
		_cleanup_(freep) char *text = NULL;

		if (!conf_masked(w->r, files[i]) && writers_read(w, files[i], &text) == 0)
			fn(w, files[i], text);
		free(files[i]);
	}
	free(files);
	return r == -ENOMEM ? r : 0;
}

/* The next line of a buffer read whole (cut in place), counting lines. */
char *writers_next_line(char **p, int *lineno)
{
	char *s = *p, *nl;

	if (!s || !*s)
		return NULL;
	nl = strchr(s, '\n');
	if (nl) {
		*nl = '\0';
		*p = nl + 1;
	} else {
		*p = s + strlen(s);
	}
	(*lineno)++;
	return s;
}

/* The next section header (*key NULL) or key=value line (key and value
 * stripped, cut in place) of an INI buffer read whole; blank lines, # and ;
 * comments and lines without = are passed over. False at the end. */
bool writers_next_ini(struct wini *ini, char **key, char **value)
{
	for (char *line; (line = writers_next_line(&ini->p, &ini->line));) {
		char *s = strip(line), *eq;

		if (*s == '[' && strchr(s, ']')) {
			*strchr(s, ']') = '\0';
			snprintf(ini->sect, sizeof(ini->sect), "%s", ini->strip_sect ? strip(s + 1) : s + 1);
			*key = *value = NULL;
			return true;
		}
		if (!*s || *s == '#' || *s == ';' || !(eq = strchr(s, '=')))
			continue;
		*eq = '\0';
		*key = strip(s);
		*value = strip(eq + 1);
		return true;
	}
	return false;
}

/* /sys/class/block/X is /sys/block/X, its bdi/read_ahead_kb is its
 * queue/read_ahead_kb; a leading / is the root's. */
static const char *norm_path(const char *p, char *buf, size_t size)
{
	static const char bdi[] = "/bdi/read_ahead_kb";
	size_t n, b = sizeof(bdi) - 1;
	const char *orig;
	bool block;

	while (*p == '/')
		p++;
	orig = p;
	block = !strncmp(p, "sys/block/", 10) || !strncmp(p, "sys/class/block/", 16);
	if (block)
		p += p[4] == 'c' ? 16 : 10;
	n = strlen(p);
	if (block && n > b && !strcmp(p + n - b, bdi) &&
	    pathf(buf, size, "sys/block/%.*s/queue/read_ahead_kb", (int)(n - b), p) == 0)
		return buf;
	if (block && pathf(buf, size, "sys/block/%s", p) == 0)
		return buf;
	return orig; /* too long for buf: as it is */
}

bool writers_path_match(const char *glob, const char *path)
{
	char gb[PATH_MAX], pb[PATH_MAX];

	return fnmatch(norm_path(glob, gb, sizeof(gb)), norm_path(path, pb, sizeof(pb)), FNM_PATHNAME) == 0;
}

/* globs separated by any of seps; "!glob" excludes. No glob: every name. */
bool writers_names_match(const char *globs, const char *name, const char *seps)
{
	bool positive = false, in = false;
	char w[WORD_MAX];

	if (!globs)
		return true;
	for (const char *s = globs; *s;) {
		size_t n = strcspn(s, seps);

		if (n && n < sizeof(w)) {
			memcpy(w, s, n);
			w[n] = '\0';
			if (w[0] == '!' && fnmatch(w + 1, name, 0) == 0)
				return false;
			if (w[0] != '!') {
				positive = true;
				in = in || fnmatch(w, name, 0) == 0;
			}
		}
		s += n + (s[n] != '\0');
	}
	return in || !positive;
}

void writers_item_path(const struct item *it, char *buf, size_t size)
{
	*buf = '\0';
	if (!strcmp(it->domain, "block") && strcmp(it->setting, "-"))
		pathf(buf, size, "sys/block/%s/%s", it->target, it->setting);
	else if (!strcmp(it->domain, "thp") && !strncmp(it->path, "sys/", 4))
		pathf(buf, size, "%s", it->path);
	else if (!strcmp(it->domain, "sysfs") || (!strcmp(it->domain, "nic") && it->path && !strncmp(it->path, "sys/", 4)))
		pathf(buf, size, "%s", it->path);
	else if (!strcmp(it->domain, "sched") && strcmp(it->target, "sched"))
		pathf(buf, size, "%s", it->path); /* proc/sys/kernel/sched_*, debugfs sched/ */
	else if (!strcmp(it->domain, "net") && !strcmp(it->target, "sysctl") &&
		 pathf(buf, size, "proc/sys/%s", it->setting) == 0)
		for (char *s = buf + 9; *s; s++)
			*s = *s == '.' ? '/' : *s;
}
