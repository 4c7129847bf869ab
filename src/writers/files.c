// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The writers that are files of "path value" lines: sysctl.d (through
 * engine/sysctl.c, systemd-sysctl's order), tmpfiles.d `w` lines under /sys and
 * /proc/sys, and sysfsutils' /etc/sysfs.conf and /etc/sysfs.d.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/sysctl.h"
#include "writers/internal.h"

enum { F_DUP = 1 }; /* tmpfiles: an earlier line wrote that path, this one is ignored */

/* Path-keyed entries apply to the item whose path their glob matches. */
static int path_applies(const struct wentry *e, const struct wctx *w, const struct item *it)
{
	char path[PATH_MAX];

	writers_item_path(it, path, sizeof(path));
	return *path && writers_file_match(w, e, path);
}

/* ---- sysctl.d ---- */

static void judge_sysctl(const struct wentry *e, const struct wctx *w, const struct item *it, struct wjudge *j)
{
	const char *base = strrchr(e->file, '/') + 1;
	int cmp = strcmp(base, SYSCTL_GUARD);

	j->applies = path_applies(e, w, it);
	j->beats = cmp >= 0;
	if (cmp > 0)
		snprintf(j->why, sizeof(j->why), "it sorts after earlytune's guard " SYSCTL_GUARD);
	else if (!cmp)
		snprintf(j->why, sizeof(j->why), "it masks earlytune's guard /" SYSCTL_GUARD_PATH);
	else
		snprintf(j->why, sizeof(j->why), "it sorts before earlytune's guard " SYSCTL_GUARD ", which resets "
			 "it: earlytune's value stays");
}

struct sysctl_data {
	struct wctx *w;
	int err;
};

static void sysctl_line(const char *rel, int line, const char *key, const char *value, void *data)
{
	struct sysctl_data *d = data;
	struct wentry *e;
	char path[PATH_MAX];

	if (!strcmp(rel, SYSCTL_GUARD_PATH) || pathf(path, sizeof(path), "proc/sys/%s", key) < 0)
		return; /* the guard is earlytune's own */
	for (char *s = path + 9; *s; s++)
		*s = *s == '.' ? '/' : *s;
	if (!(e = wentry_add(d->w, "sysctl.d", rel, line, WS_SYSCTL))) {
		d->err = -ENOMEM;
		return;
	}
	wset(&e->key, path);
	wset(&e->value, value);
	wsetf(&e->what, "%s = %s", key, value);
	e->judge = judge_sysctl;
}

static void sysctl_error(const char *rel, int err, void *data)
{
	writers_error(((struct sysctl_data *)data)->w, rel, err);
}

int writers_sysctl(struct wctx *w)
{
	struct sysctl_data d = { w, 0 };
	struct sysctl_visit v = { sysctl_line, sysctl_error, &d };
	int r = sysctl_each(w->r, &v);

	if (r < 0 && r != -ENOMEM)
		writers_error(w, "etc/sysctl.d", r);
	return d.err ? d.err : r == -ENOMEM ? r : 0;
}

/* ---- tmpfiles.d ---- */

static void judge_tmpfiles(const struct wentry *e, const struct wctx *w, const struct item *it, struct wjudge *j)
{
	j->applies = path_applies(e, w, it);
	j->beats = !(e->flags & F_DUP);
	if (e->flags & F_DUP)
		snprintf(j->why, sizeof(j->why), "ignored: %s writes that path first", e->extra);
	else
		snprintf(j->why, sizeof(j->why), "systemd-tmpfiles-setup runs after earlytune");
}

/* "w", "w+", with the modifiers "!-=": a write; "~" (base64) and "^"
 * (a credential) carry a value only systemd-tmpfiles knows. */
static bool write_type(const char *t, bool *opaque)
{
	*opaque = false;
	if (*t != 'w')
		return false;
	for (t++; *t; t++) {
		if (*t == '~' || *t == '^')
			*opaque = true;
		else if (!strchr("+!-=", *t))
			return false;
	}
	return true;
}

static void mark_dup(struct wctx *w, struct wentry *e)
{
	for (size_t i = 0; i + 1 < w->n; i++)
		if (w->v[i].judge == judge_tmpfiles && !strcmp(w->v[i].key, e->key)) {
			e->flags |= F_DUP;
			wsetf(&e->extra, "%s:%d", w->v[i].file, w->v[i].line);
			return;
		}
}

static void tmpfiles_line(struct wctx *w, const char *rel, int n, char *line)
{
	char *f[6], *save = NULL, *arg;
	bool opaque;
	struct wentry *e;

	for (int k = 0; k < 6; k++)
		f[k] = strtok_r(k ? NULL : line, " \t", &save);
	if (!f[1] || *f[0] == '#' || !write_type(f[0], &opaque) ||
	    (strncmp(f[1], "/sys/", 5) && strncmp(f[1], "/proc/sys/", 10)))
		return;
	arg = save ? strip(save) : NULL;
	if (!(e = wentry_add(w, "tmpfiles.d", rel, n, WS_TMPFILES)))
		return;
	wset(&e->key, f[1]);
	wset(&e->value, opaque || !arg || !*arg ? NULL : arg);
	wsetf(&e->what, "%s %s %s", f[0], f[1], arg && *arg ? arg : "-");
	e->judge = judge_tmpfiles;
	mark_dup(w, e);
}

static void tmpfiles_file(struct wctx *w, const char *rel, char *text)
{
	int n = 0;

	for (char *line; (line = writers_next_line(&text, &n));)
		tmpfiles_line(w, rel, n, strip(line));
}

int writers_tmpfiles(struct wctx *w)
{
	static const char *const dirs[] = { "etc/tmpfiles.d", "run/tmpfiles.d", "usr/local/lib/tmpfiles.d",
					    "usr/lib/tmpfiles.d", "lib/tmpfiles.d" };

	return writers_files(w, dirs, ARRAY_SIZE(dirs), "*.conf", tmpfiles_file);
}

/* ---- sysfsutils ---- */

static void judge_sysfs(const struct wentry *e, const struct wctx *w, const struct item *it, struct wjudge *j)
{
	j->applies = path_applies(e, w, it);
	j->beats = true;
	snprintf(j->why, sizeof(j->why), "sysfsutils runs after earlytune");
}

static void sysfs_file(struct wctx *w, const char *rel, char *text)
{
	int n = 0;

	for (char *line; (line = writers_next_line(&text, &n));) {
		char *s = strip(line), *eq = strchr(s, '=');
		struct wentry *e;

		if (*s == '#' || !eq || !strncmp(s, "mode ", 5) || !strncmp(s, "owner ", 6))
			continue;
		*eq = '\0';
		s = strip(s);
		if (!*s || !(e = wentry_add(w, "sysfsutils", rel, n, WS_SYSFS)))
			continue;
		wsetf(&e->key, "sys/%s", s + (*s == '/'));
		wset(&e->value, strip(eq + 1));
		wsetf(&e->what, "%s = %s", s, e->value ? e->value : "");
		e->judge = judge_sysfs;
	}
}

/* sysfsutils reads /etc/sysfs.conf, then /etc/sysfs.d/ by name. */
int writers_sysfs(struct wctx *w)
{
	static const char *const dirs[] = { "etc/sysfs.d" };
	_cleanup_(freep) char *text = NULL;

	if (writers_read(w, "etc/sysfs.conf", &text) == 0)
		sysfs_file(w, "etc/sysfs.conf", text);
	return writers_files(w, dirs, ARRAY_SIZE(dirs), "*.conf", sysfs_file);
}
