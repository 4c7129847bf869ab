// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Service resource limits. /etc/security/limits.conf is read by pam_limits
 * for login sessions: systemd starts services with its own defaults (soft
 * nofile 1024), so a limit a service needs belongs to the unit. earlytune
 * writes it as drop-ins in /run (gone at reboot, rewritten at every boot by
 * its generator, which systemd runs before it loads units):
 * run/systemd/system/UNIT.d/50-earlytune-limits.conf ([Service] LimitX=) for
 * each service a [limits "GLOB"] names, run/systemd/system.conf.d/ for the
 * [limits] default ([Manager] DefaultLimitX=). One item per unit and limit;
 * current is what the service has: its running process's limit, or, when it
 * does not run, what its drop-in will give it at its next start.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "limits/internal.h"

/* The effective entry of key for target: the last one read of the sections
 * naming it ([limits] for the manager). NULL: none, or unset (""). */
static const struct cfg_entry *effective(const struct config *cfg, const char *target, const char *key)
{
	bool manager = !strcmp(target, LIMITS_MANAGER);

	for (size_t i = cfg->n; i-- > 0;) {
		const struct cfg_entry *e = &cfg->v[i];

		if (strcmp(e->section, "limits") || strcmp(e->key, key) || !e->name != manager)
			continue;
		if (manager || fnmatch(e->name, target, 0) == 0)
			return *e->value ? e : NULL;
	}
	return NULL;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void directive(const char *target, const struct limit_key *k, char *buf, size_t size)
{
	snprintf(buf, size, "%sLimit%s", strcmp(target, LIMITS_MANAGER) ? "" : "Default", k->directive);
}

/* The value of directive in a drop-in's text, or NULL. */
static const char *dropin_value(const char *text, const char *dir, char *buf, size_t size)
{
	size_t n = strlen(dir);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, dir, n) || p[n] != '=')
			continue;
		snprintf(buf, size, "%.*s", (int)strcspn(p + n + 1, "\n"), p + n + 1);
		return buf;
	}
	return NULL;
}

/* What the running processes of a unit have, against what is wanted. */
struct seen_run {
	const struct root *r;
	const struct limit_key *k;
	struct rlim want;
	int n, pid, err;
	char instance[NAME_MAX + 1], have[64];
	bool differ, own_soft;
};

static int seen_process(const char *instance, int pid, void *data)
{
	struct seen_run *s = data;
	_cleanup_(freep) char *text = NULL;
	char rel[64];
	struct rlim l;
	int r;

	snprintf(rel, sizeof(rel), "proc/%d/limits", pid);
	r = root_read_file(s->r, rel, &text, 1 << 16);
	if (r == -ENOENT)
		return 0; /* it left since the cgroup was read */
	if (r >= 0)
		r = limits_parse_proc(text, s->k, &l);
	if (r < 0) {
		s->err = r;
		s->pid = pid;
		return 0;
	}
	s->n++;
	if (s->differ)
		return 0; /* the first that differs is named */
	/* A process may move its own soft limit up to the hard one (Go does,
	 * for nofile): the hard limit is what systemd set. */
	s->own_soft = l.hard == s->want.hard && l.soft != s->want.soft;
	s->differ = l.hard != s->want.hard;
	s->pid = pid;
	snprintf(s->instance, sizeof(s->instance), "%s", instance);
	limits_format(&l, s->have, sizeof(s->have));
	return 0;
}

/* A nofile above fs.nr_open: the kernel refuses it (setrlimit EPERM), so
 * the service cannot have it however often it restarts. Written all the
 * same (systemd gets as close as it can); unmet for verify. 0: not above. */
static uint64_t nr_open_above(struct ctx *c, const struct limit_key *k, const struct rlim *want)
{
	uint64_t nr;

	if (strcmp(k->key, "nofile") || limits_nr_open(&c->root, &nr) < 0 || want->hard <= nr)
		return 0;
	return nr;
}

/* The usual mistake, said where it is made: limits.conf is pam_limits's,
 * read for login sessions; systemd never applies it to a service. */
static void pam_note(struct ctx *c, struct item *it, const struct limit_key *k)
{
	char where[PATH_MAX + 16];

	if (limits_pam_line(&c->root, k->key, where, sizeof(where)) > 0)
		item_add_reason(it, "(%s sets %s for login sessions, through pam_limits: it never reaches a service)",
				where, k->key);
}

/* Running or not, in place or not: the action, current and why. */
static void judge(struct ctx *c, struct item *it, const char *target, const struct limit_key *k,
		  const struct rlim *want, const char *in_file)
{
	struct seen_run s = { .r = &c->root, .k = k, .want = *want };
	bool in_place = in_file && !strcmp(in_file, it->desired);
	int r = strcmp(target, LIMITS_MANAGER) ? unit_running(&c->root, target, seen_process, &s) : 0;
	uint64_t over = nr_open_above(c, k, want);

	it->action = in_place ? ACT_KEEP : ACT_CHANGE;
	item_set(&it->current, in_file ? in_file : "unset");
	if (s.err < 0 || r < 0) {
		char why[320];

		if (s.err < 0)
			snprintf(why, sizeof(why), "cannot read '%s' in /proc/%d/limits: %s", k->proc_name, s.pid,
				 s.err == -ENOENT ? "no such line" : strerror(-s.err));
		else
			snprintf(why, sizeof(why), "cannot read the cgroup of %s: %s", target, strerror(-r));
		/* What is in force is unknown; a missing drop-in is written all the same. */
		if (in_place) {
			item_set(&it->error, why);
			it->action = ACT_ERROR;
		} else {
			item_add_reason(it, "%s", why);
		}
		return;
	}
	if (!strcmp(target, LIMITS_MANAGER)) {
		item_add_reason(it, "the default of every service without its own Limit%s=: systemd reads system.conf.d at its start and at each daemon-reload",
				k->directive);
	} else if (!s.n) {
		item_add_reason(it, "not running: applies at its next start%s",
				in_place ? "" : " once systemd has read the drop-in (at boot, or systemctl daemon-reload)");
	} else {
		item_set(&it->current, s.have);
		if (s.own_soft)
			item_add_reason(it, "%s (PID %d) set its own soft limit (allowed up to the hard one)",
					s.instance, s.pid);
		else if (s.differ && in_place && !over) {
			it->foreign = true;
			item_add_reason(it, "%s (PID %d) started before the drop-in: restart %s to apply",
					s.instance, s.pid, s.instance);
		} else if (!in_place) {
			item_add_reason(it, "%s runs (PID %d): systemctl daemon-reload, then restart it, to apply",
					s.instance, s.pid);
		}
	}
	if (over) {
		item_add_reason(it, "warning: above fs.nr_open (%llu): the kernel refuses a nofile limit above it, so the service cannot get it: raise fs.nr_open first",
				(unsigned long long)over);
		it->unmet = true;
	}
	pam_note(c, it, k);
}

static void plan_limit(struct ctx *c, struct plan *p, const char *target, const char *path,
		       const struct limit_key *k, const char *text)
{
	const struct cfg_entry *e = effective(&c->cfg, target, k->key);
	char dir[64], in_buf[64], want_buf[64], why[256];
	const char *in_file;
	struct item *it;
	struct rlim want;

	directive(target, k, dir, sizeof(dir));
	in_file = text ? dropin_value(text, dir, in_buf, sizeof(in_buf)) : NULL;
	if (!e && !in_file)
		return;
	it = plan_add(p, "limits", target, dir, path);
	if (!it)
		return;
	it->kind = ITEM_DROPIN;
	if (!e) {
		/* Earlier configuration earlytune wrote: nothing is left behind. */
		item_set(&it->current, in_file);
		item_set(&it->desired, "unset");
		item_set(&it->reason, "earlytune's drop-in sets it, the configuration no longer does: removed");
		it->action = ACT_CHANGE;
		return;
	}
	item_from_entry(it, e);
	if (limits_parse_value(k, e->value, &want, why, sizeof(why)) < 0) {
		it->action = ACT_ERROR;
		item_set(&it->error, why);
		return;
	}
	limits_format(&want, want_buf, sizeof(want_buf));
	item_set(&it->desired, want_buf);
	judge(c, it, target, k, &want, in_file);
}

static void plan_target(struct ctx *c, struct plan *p, const char *target)
{
	_cleanup_(freep) char *text = NULL;
	char path[PATH_MAX];
	struct item *it;
	int r = limits_dropin_path(target, path, sizeof(path));

	if (r == 0) {
		r = root_read_file(&c->root, path, &text, 1 << 16);
		r = r == -ENOENT ? 0 : r;
	}
	if (r < 0) {
		it = plan_add(p, "limits", target, "drop-in", path);
		if (it) {
			it->action = ACT_ERROR;
			item_setf(&it->error, "cannot read /%s: %s", path, strerror(-r));
		}
		return;
	}
	for (size_t i = 0; i < nlimit_keys; i++)
		plan_limit(c, p, target, path, &limit_keys[i], text);
}

/* The services glob names, added to t; none is said as a skip. */
static int glob_targets(struct ctx *c, struct plan *p, const char *glob, struct units *t)
{
	struct units u = { 0 };
	struct item *it;
	int r = units_matching(&c->root, glob, &u);

	for (size_t i = 0; r > 0 && i < u.n; i++)
		if (units_add(t, u.v[i]) < 0)
			r = -ENOMEM;
	units_free(&u);
	if (r > 0 || !(it = plan_add(p, "limits", glob, "units", LIMITS_UNIT_DIR)))
		return r == -ENOMEM || r > 0 ? r : 0;
	if (r < 0) {
		it->action = ACT_ERROR;
		item_setf(&it->error, "cannot list the unit files: %s", strerror(-r));
		return 0;
	}
	it->action = ACT_SKIP;
	item_set(&it->reason, "no unit file matches it in /etc/systemd/system, /run/systemd/system, /usr/lib/systemd/system or /lib/systemd/system: nothing written");
	return 0;
}

struct stale {
	const struct root *r;
	struct units *t;
	int err;
};

/* run/systemd/system/X.d holding earlytune's drop-in: X is a target (what
 * the configuration no longer asks for goes). */
static void seen_dropin_dir(const char *rel, void *data)
{
	struct stale *s = data;
	char path[PATH_MAX], name[NAME_MAX + 1];
	const char *base = strrchr(rel, '/') + 1;

	if (s->err || pathf(path, sizeof(path), "%s/" LIMITS_DROPIN, rel) < 0 || root_access(s->r, path) != 1)
		return;
	snprintf(name, sizeof(name), "%.*s", (int)(strlen(base) - 2), base);
	s->err = units_add(s->t, name);
}

static int collect_targets(struct ctx *c, struct plan *p, struct units *t)
{
	struct stale s = { .r = &c->root, .t = t };
	struct item *it;
	bool manager = root_access(&c->root, LIMITS_MANAGER_DIR "/" LIMITS_DROPIN) == 1;
	int r = 0;

	for (size_t i = 0; i < c->cfg.n && r >= 0; i++) {
		const struct cfg_entry *e = &c->cfg.v[i];
		bool first = true;

		if (strcmp(e->section, "limits"))
			continue;
		manager = manager || !e->name;
		for (size_t j = 0; j < i && e->name && first; j++)
			first = strcmp(c->cfg.v[j].section, "limits") || !streq_ptr(c->cfg.v[j].name, e->name);
		if (e->name && first)
			r = glob_targets(c, p, e->name, t);
		r = r > 0 ? 0 : r;
	}
	if (r >= 0 && root_match(&c->root, LIMITS_UNIT_DIR, "*.service.d", seen_dropin_dir, &s) < 0 &&
	    (it = plan_add(p, "limits", "drop-ins", "units", LIMITS_UNIT_DIR))) {
		/* Not fatal: what the configuration asks for is still planned. */
		it->action = ACT_ERROR;
		item_set(&it->error, "cannot list /" LIMITS_UNIT_DIR ": earlytune's drop-ins there are not known");
	}
	r = r < 0 ? r : s.err;
	if (r >= 0 && t->n > 1)
		qsort(t->v, t->n, sizeof(*t->v), cmp_names);
	return r < 0 ? r : manager;
}

int limits_plan(struct ctx *c, struct plan *p)
{
	struct units t = { 0 };
	int r = collect_targets(c, p, &t);

	if (r > 0)
		plan_target(c, p, LIMITS_MANAGER);
	for (size_t i = 0; r >= 0 && i < t.n; i++)
		plan_target(c, p, t.v[i]);
	units_free(&t);
	return r < 0 ? r : 0;
}
