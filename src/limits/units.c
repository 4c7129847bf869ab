// SPDX-License-Identifier: LGPL-2.1-or-later
/* Which services a [limits "GLOB"] names (their unit files), and which of
 * them run now (their cgroups, their oldest process). A static binary has no
 * D-Bus to ask systemd for MainPID: the cgroup holds the unit's processes,
 * and its oldest one is the main process, or the one it forked from, whose
 * limits systemd set (children inherit them). */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "limits/internal.h"

static const char *const unit_dirs[] = { UNIT_DIRS };

struct seen {
	const struct root *r;
	const char *glob;
	struct units *u;
	char **names; /* every unit name met, masked or not: the first directory decides */
	size_t nnames;
	int err;
};

static bool listed(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

static int push(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv || !(nv[*n] = strdup(s))) {
		if (nv)
			*v = nv;
		return -ENOMEM;
	}
	*v = nv;
	(*n)++;
	return 0;
}

int units_add(struct units *u, const char *name)
{
	return listed(u->v, u->n, name) ? 0 : push(&u->v, &u->n, name);
}

static void seen_unit(const char *rel, void *data)
{
	struct seen *s = data;
	const char *name = strrchr(rel, '/') + 1;

	if (s->err || listed(s->names, s->nnames, name))
		return;
	s->err = push(&s->names, &s->nnames, name);
	if (!s->err && !conf_masked(s->r, rel) && fnmatch(s->glob, name, 0) == 0)
		s->err = push(&s->u->v, &s->u->n, name);
}

/* A literal instance (getty@tty1.service) has no file of its own: its
 * template's file makes it a unit. */
static int add_instance(const struct root *r, const char *glob, struct units *u)
{
	const char *at = strchr(glob, '@');
	char tmpl[NAME_MAX + 1];

	if (!at || strpbrk(glob, "*?[\\") || !strcmp(at, "@.service") || listed(u->v, u->n, glob) ||
	    (size_t)(at - glob) + sizeof("@.service") > sizeof(tmpl))
		return 0;
	snprintf(tmpl, sizeof(tmpl), "%.*s@.service", (int)(at - glob), glob);
	for (size_t i = 0; i < ARRAY_SIZE(unit_dirs); i++) {
		char rel[PATH_MAX];

		if (pathf(rel, sizeof(rel), "%s/%s", unit_dirs[i], tmpl) == 0 && root_access(r, rel) == 1)
			return push(&u->v, &u->n, glob);
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int units_matching(const struct root *r, const char *glob, struct units *u)
{
	struct seen s = { .r = r, .glob = glob, .u = u };
	int rr = 0;

	for (size_t i = 0; i < ARRAY_SIZE(unit_dirs) && rr >= 0 && !s.err; i++)
		rr = root_match(r, unit_dirs[i], "*.service", seen_unit, &s);
	for (size_t i = 0; i < s.nnames; i++)
		free(s.names[i]);
	free(s.names);
	if (rr >= 0 && s.err)
		rr = s.err;
	if (rr >= 0)
		rr = add_instance(r, glob, u);
	if (rr < 0)
		return rr;
	if (u->n > 1)
		qsort(u->v, u->n, sizeof(*u->v), cmp_str);
	return (int)u->n;
}

void units_free(struct units *u)
{
	for (size_t i = 0; i < u->n; i++)
		free(u->v[i]);
	free(u->v);
	u->v = NULL;
	u->n = 0;
}

/* The 22nd field of /proc/PID/stat, after the parenthesized name. */
static int start_time(const struct root *r, int pid, unsigned long long *t)
{
	char rel[64], buf[1024];
	const char *p;
	int rr;

	snprintf(rel, sizeof(rel), "proc/%d/stat", pid);
	rr = root_read(r, rel, buf, sizeof(buf));
	if (rr < 0)
		return rr;
	p = strrchr(buf, ')');
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	return p && sscanf(p + 1, "%llu", t) == 1 ? 0 : -EBADMSG;
}

/* The oldest live process listed in a cgroup.procs: > 0, 0 none, -errno. */
static int oldest_pid(const struct root *r, const char *procs)
{
	_cleanup_(freep) char *text = NULL;
	unsigned long long best = ~0ULL, t;
	int rr = root_read_file(r, procs, &text, 1 << 20), pid = 0;

	if (rr < 0)
		return rr == -ENOENT ? 0 : rr;
	for (char *p = text, *end; *p; p = end) {
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		/* A process that left (its stat is gone) is not the main one. */
		if (v > 0 && v <= INT_MAX && start_time(r, (int)v, &t) == 0 && t < best) {
			best = t;
			pid = (int)v;
		}
		end += strspn(end, "\n ");
	}
	return pid;
}

/* system.slice, in the cgroup v2 tree, the hybrid's unified one or v1's. */
static int slice_dir(const struct root *r, char *dir, size_t size)
{
	static const char *const roots[] = { "sys/fs/cgroup", "sys/fs/cgroup/unified", "sys/fs/cgroup/systemd" };

	for (size_t i = 0; i < ARRAY_SIZE(roots); i++) {
		int rr = pathf(dir, size, "%s/system.slice", roots[i]);

		if (rr < 0)
			return rr;
		if (root_access(r, dir) == 1)
			return 1;
	}
	return 0;
}

/* systemd's unit_name_escape, for the slice of a template's instances:
 * postgresql@.service → system-postgresql.slice. */
static int template_slice(const char *unit, char *out, size_t size)
{
	size_t n = 0, at = (size_t)(strchr(unit, '@') - unit);

	n += (size_t)snprintf(out, size, "system-");
	for (size_t i = 0; i < at && n < size; i++) {
		unsigned char ch = (unsigned char)unit[i];

		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		    ch == ':' || ch == '_' || (ch == '.' && i))
			n += (size_t)snprintf(out + n, size - n, "%c", ch);
		else
			n += (size_t)snprintf(out + n, size - n, "\\x%02x", ch);
	}
	if (n < size)
		n += (size_t)snprintf(out + n, size - n, ".slice");
	return n < size ? 0 : -ENAMETOOLONG;
}

struct running {
	const struct root *r;
	int (*fn)(const char *instance, int pid, void *data);
	void *data;
	int count, err;
};

static void running_dir(const char *rel, void *data)
{
	struct running *s = data;
	char procs[PATH_MAX];
	int pid;

	if (s->err || pathf(procs, sizeof(procs), "%s/cgroup.procs", rel) < 0)
		return;
	pid = oldest_pid(s->r, procs);
	if (pid < 0)
		s->err = pid;
	else if (pid > 0) {
		s->count++;
		s->err = s->fn(strrchr(rel, '/') + 1, pid, s->data);
	}
}

/* fn for each running instance of unit (a template: every instance; else
 * the unit): the count of them, or -errno. */
int unit_running(const struct root *r, const char *unit, int (*fn)(const char *instance, int pid, void *data),
		 void *data)
{
	struct running s = { .r = r, .fn = fn, .data = data };
	char dir[PATH_MAX], slice[NAME_MAX + 1], pattern[NAME_MAX + 1];
	const char *at = strstr(unit, "@.service");
	int rr = slice_dir(r, dir, sizeof(dir));

	if (rr <= 0)
		return rr;
	if (!at) {
		size_t n = strlen(dir);

		rr = pathf(dir + n, sizeof(dir) - n, "/%s", unit);
		if (rr == 0)
			running_dir(dir, &s);
	} else {
		size_t n = strlen(dir);

		rr = template_slice(unit, slice, sizeof(slice));
		if (rr == 0)
			rr = pathf(dir + n, sizeof(dir) - n, "/%s", slice);
		if (rr == 0)
			rr = pathf(pattern, sizeof(pattern), "%.*s@*.service", (int)(at - unit), unit);
		if (rr == 0)
			rr = root_match(r, dir, pattern, running_dir, &s);
	}
	return rr < 0 ? rr : s.err < 0 ? s.err : s.count;
}

int limits_nr_open(const struct root *r, uint64_t *v)
{
	unsigned long long n;
	int rr = root_read_u64(r, "proc/sys/fs/nr_open", &n);

	if (rr == 0)
		*v = n;
	return rr;
}

int limits_dropin_path(const char *target, char *path, size_t size)
{
	if (!strcmp(target, LIMITS_MANAGER))
		return pathf(path, size, LIMITS_MANAGER_DIR "/" LIMITS_DROPIN);
	return pathf(path, size, LIMITS_UNIT_DIR "/%s.d/" LIMITS_DROPIN, target);
}

/* pam_limits's configuration: the first line setting item (nofile, nproc,
 * memlock, core: the same words) in etc/security/limits.conf, then
 * the *.conf files of limits.d. 1 with where = "FILE:LINE", 0 none. */
struct pam_seen {
	const struct root *r;
	const char *item;
	char *where;
	size_t size;
	bool found;
};

static void pam_file(const char *rel, void *data)
{
	struct pam_seen *s = data;
	_cleanup_(freep) char *text = NULL;
	int line = 0;

	if (s->found || root_read_file(s->r, rel, &text, 1 << 20) < 0)
		return;
	for (char *p = text, *next; p && *p && !s->found; p = next) {
		char dom[64], type[16], item[32];

		next = strchr(p, '\n');
		if (next)
			*next++ = '\0';
		line++;
		if (*p != '#' && sscanf(p, "%63s %15s %31s", dom, type, item) == 3 && dom[0] != '#' &&
		    !strcmp(item, s->item)) {
			snprintf(s->where, s->size, "/%s:%d", rel, line);
			s->found = true;
		}
	}
}

int limits_pam_line(const struct root *r, const char *item, char *where, size_t size)
{
	struct pam_seen s = { .r = r, .item = item, .where = where, .size = size };

	pam_file("etc/security/limits.conf", &s);
	if (!s.found)
		(void)root_match(r, "etc/security/limits.d", "*.conf", pam_file, &s);
	return s.found;
}
