// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * systemd-sysctl runs after earlytune in the real root and re-applies every
 * sysctl.d file: systemd's own 50-default.conf sets default_qdisc back to
 * fq_codel. This reads those files the way systemd-sysctl orders them, so
 * that plan can name any file that would still win over earlytune's guard
 * (engine/guard.c) and verify can blame it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "engine/item.h"
#include "engine/sysctl.h"

/* systemd's order; lib/ for split-/usr images (merged ones link it). */
static const char *const sysctl_dirs[] = { "etc/sysctl.d", "run/sysctl.d", "usr/local/lib/sysctl.d",
					   "usr/lib/sysctl.d", "lib/sysctl.d" };

/* "net/core/default_qdisc" and "net.core.default_qdisc" are one key. */
static bool same_key(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (*a != *b && !((*a == '.' || *a == '/') && (*b == '.' || *b == '/')))
			return false;
	return *a == *b;
}

/* Every assignment of one file, with its line. */
static int scan(const struct root *r, const char *rel, const struct sysctl_visit *v)
{
	_cleanup_(freep) char *buf = NULL;
	char *p, *line;
	int n = 0, rr = root_read_file(r, rel, &buf, 1 << 20);

	if (rr < 0)
		return rr;
	for (p = buf; (line = p); n++) {
		char *s, *eq;

		p = strchr(line, '\n');
		if (p)
			*p++ = '\0';
		s = strip(line);
		if (*s == '#' || *s == ';' || !(eq = strchr(s, '=')))
			continue;
		*eq = '\0';
		if (*s == '-') /* "-key = value": ignore failures; still an assignment */
			s++;
		v->fn(rel, n + 1, strip(s), strip(eq + 1), v->data);
	}
	return 0;
}

/* Every assignment systemd-sysctl makes, in its order (files by name, the
 * first directory's file of a name masking the others). A file that cannot
 * be read goes to v->error (absent ones are not said). */
int sysctl_each(const struct root *r, const struct sysctl_visit *v)
{
	char **files = NULL;
	size_t n = 0;
	int rr = conf_files(r, sysctl_dirs, ARRAY_SIZE(sysctl_dirs), &files, &n);

	for (size_t i = 0; i < n; i++) {
		int e = rr < 0 || conf_masked(r, files[i]) ? 0 : scan(r, files[i], v);

		if (e < 0 && e != -ENOENT && v->error)
			v->error(files[i], e, v->data);
		free(files[i]);
	}
	free(files);
	return rr;
}

struct final {
	const char *key;
	char *value, *file;
	size_t vsize, fsize;
};

static void keep_last(const char *rel, int line, const char *key, const char *value, void *data)
{
	struct final *f = data;

	if (!same_key(key, f->key))
		return;
	snprintf(f->value, f->vsize, "%s", value);
	snprintf(f->file, f->fsize, "/%s", rel);
}

/* The value systemd-sysctl would leave for key, and the file it comes from.
 * Returns 1 when some file sets it, 0 when none does. */
int sysctl_final(const struct root *r, const char *key, char *value, size_t vsize, char *file,
		 size_t fsize)
{
	struct final f = { key, value, file, vsize, fsize };
	struct sysctl_visit v = { keep_last, NULL, &f };
	int rr;

	*file = '\0';
	rr = sysctl_each(r, &v);
	if (rr < 0)
		return rr;
	return *file ? 1 : 0;
}

/* Why the file that systemd-sysctl applies last for key is not the guard
 * apply writes to /run/sysctl.d, or why the guard is stale. */
static void override_reason(struct item *it, const char *file, const char *key, const char *value)
{
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;

	if (!strcmp(file, "/" SYSCTL_GUARD_PATH))
		item_setf(&it->reason, "%s, earlytune's guard, sets %s = %s: written from an older "
				       "configuration; the next boot rewrites it (earlytune apply does now)",
			  file, key, value);
	else if (!strcmp(base, SYSCTL_GUARD))
		item_setf(&it->reason, "%s sets %s = %s and shadows earlytune's guard, which apply writes at "
				       "every boot to /" SYSCTL_GUARD_PATH ": remove %s", file, key, value, file);
	else if (strcmp(base, SYSCTL_GUARD) > 0)
		item_setf(&it->reason, "%s sets %s = %s and wins: it sorts after earlytune's guard " SYSCTL_GUARD
				       ", which cannot override it; edit that file or mask it (ln -s /dev/null "
				       "/etc/sysctl.d/%s)", file, key, value, base);
	else
		item_setf(&it->reason, "%s sets %s = %s and systemd-sysctl applies it after earlytune: "
				       "earlytune's guard /" SYSCTL_GUARD_PATH ", which apply writes at every boot "
				       "and sorts after it, is missing or empty (earlytune=0)", file, key, value);
}

/* A sysctl.d file that systemd-sysctl applies later would undo this item
 * (net's, sched's): name it (verify counts it as drift). */
void sysctl_warn_override(const struct root *r, struct item *it, const char *key, const char *want)
{
	char value[128], file[PATH_MAX];

	if (sysctl_final(r, key, value, sizeof(value), file, sizeof(file)) <= 0 ||
	    !strcmp(value, want))
		return;
	it->foreign = true;
	override_reason(it, file, key, value);
}
