// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * TuneD: the profile named in /etc/tuned/active_profile (several: merged in
 * order), with its include= chain (cycle-safe), [variables] and ${var}
 * substitution. TuneD merges an included profile first and lets the
 * including one override it, key by key (replace=1: section by section).
 * Read: [disk] elevator and readahead (">N" raises only) with devices=,
 * [vm] transparent_hugepages, [sysctl], [sysfs], [net] (features=,
 * coalesce=, ring=, channels=, txqueuelen=; tuned_judge.c judges them).
 * tuned.service starts after the network, long after earlytune: what it
 * sets wins, unless the service is not enabled, or (for sysctls) it
 * re-applies the sysctl.d files of /etc and /run after its own (reapply_sysctl, on by default), earlytune's guard
 * among them. A value TuneD computes (${f:...}) is said as such; the
 * conditions TuneD evaluates (a section's uname_regex and cpuinfo_regex,
 * the functions virt_check and cpuinfo_check) are evaluated here too
 * (tuned_cond.c): a section this machine would not run is no writer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/kparam.h"
#include "writers/internal.h"

#define TUNED_DEPTH 16

struct topt {
	char *sect, *key, *value, *file;
	int line;
};

struct tuned {
	struct wctx *w;
	struct topt *v;
	size_t n;
	const char *stack[TUNED_DEPTH];
	int depth;
	struct tcond cond;
	const char *maybe; /* the section being read: why its condition is not judged, or NULL */
};

static void topt_free(struct topt *o)
{
	free(o->sect);
	free(o->key);
	free(o->value);
	free(o->file);
}

/* Sets sect.key: the later assignment (the including profile) wins. */
static void topt_set(struct tuned *t, const char *sect, const char *key, const char *value, const char *file, int line)
{
	struct topt *o = NULL, *v;

	for (size_t i = 0; i < t->n && !o; i++)
		if (!strcmp(t->v[i].sect, sect) && !strcmp(t->v[i].key, key))
			o = &t->v[i];
	if (!o) {
		if (!(v = realloc(t->v, (t->n + 1) * sizeof(*v))))
			return;
		t->v = v;
		o = &v[t->n++];
		*o = (struct topt){ 0 };
		wset(&o->sect, sect);
		wset(&o->key, key);
	}
	wset(&o->value, value);
	wsetf(&o->file, "/%s", file);
	o->line = line;
}

static void section_drop(struct tuned *t, const char *sect)
{
	size_t k = 0;

	for (size_t i = 0; i < t->n; i++) {
		if (!strcmp(t->v[i].sect, sect))
			topt_free(&t->v[i]);
		else
			t->v[k++] = t->v[i];
	}
	t->n = k;
}

/* A unit's enabled= and replace=: TuneD takes True, true and 1 only. */
static bool unit_bool(const char *v, bool dflt)
{
	return v ? !strcmp(v, "True") || !strcmp(v, "true") || !strcmp(v, "1") : dflt;
}

/* drop=a,b: the options of the included profiles' section (not rel's own)
 * TuneD removes before merging this one's. */
static void options_drop(struct tuned *t, const char *sect, const char *list, const char *rel)
{
	char buf[1024], file[PATH_MAX];
	size_t k = 0;

	snprintf(buf, sizeof(buf), " %s ", list);
	snprintf(file, sizeof(file), "/%s", rel);
	for (char *p = buf; *p; p++)
		*p = *p == ',' || *p == ';' || *p == '\t' ? ' ' : *p;
	for (size_t i = 0; i < t->n; i++) {
		char key[256];
		bool listed;

		snprintf(key, sizeof(key), " %s ", t->v[i].key);
		listed = !strcmp(t->v[i].sect, sect) && strcmp(t->v[i].file, file) && strstr(buf, key);
		if (listed)
			topt_free(&t->v[i]);
		else
			t->v[k++] = t->v[i];
	}
	t->n = k;
}

/* The profile's tuned.conf: /etc over /usr/lib, the newer profiles/
 * directories over the older flat ones. */
static int profile_file(const struct root *r, const char *name, char *rel, size_t size)
{
	static const char *const dirs[] = { "etc/tuned/profiles", "etc/tuned", "usr/lib/tuned/profiles", "usr/lib/tuned" };
	int first = -ENOENT;

	if (!*name || strchr(name, '/') || !strcmp(name, "..") || !strcmp(name, "."))
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		int a = pathf(rel, size, "%s/%s/tuned.conf", dirs[i], name);

		if (a == 0 && (a = root_access(r, rel)) > 0)
			return 0;
		if (a < 0 && first == -ENOENT)
			first = a;
	}
	return first;
}

static void load_profile(struct tuned *t, const char *name, const char *by);

/* include=a, b: each merged in order, before the including profile. */
static void includes(struct tuned *t, const char *list, const char *by)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "%s", list);
	for (char *save = NULL, *s = strtok_r(buf, ",; \t\n", &save); s; s = strtok_r(NULL, ",; \t\n", &save)) {
		s = strip(s);
		if (strstr(s, "${"))
			writers_errorf(t->w, "/%s: include=%s is computed by TuneD: not followed", by, s);
		else if (*s)
			load_profile(t, s, by);
	}
}

/* [variables] include=FILE: key=value lines. */
static void variables_file(struct tuned *t, const char *path)
{
	_cleanup_(freep) char *text = NULL;
	char *p;
	int n = 0;

	while (*path == '/')
		path++;
	if (writers_read(t->w, path, &text) < 0)
		return;
	p = text;
	for (char *line; (line = writers_next_line(&p, &n));) {
		char *s = strip(line), *eq = strchr(s, '=');

		if (*s != '#' && eq) {
			*eq = '\0';
			topt_set(t, "variables", strip(s), strip(eq + 1), path, n);
		}
	}
}

/* The file's lines, in two passes: include= first (merged under it), then
 * its own assignments over them. */
static void parse_profile(struct tuned *t, const char *rel, char *text, bool incl)
{
	struct wini ini = { .p = text, .strip_sect = true };
	const char *sect = ini.sect;
	char *k, *v;

	while (writers_next_ini(&ini, &k, &v)) {
		if (!k)
			continue;
		if (incl && !strcmp(sect, "main") && !strcmp(k, "include"))
			includes(t, v, rel);
		else if (!incl && !strcmp(sect, "variables") && !strcmp(k, "include"))
			variables_file(t, v);
		else if (!incl && !strcmp(k, "replace") && unit_bool(v, false))
			section_drop(t, sect);
		else if (!incl && !strcmp(k, "drop"))
			options_drop(t, sect, v, rel);
		else if (!incl && strcmp(sect, "main"))
			topt_set(t, sect, k, v, rel, ini.line);
	}
}

static void load_profile(struct tuned *t, const char *name, const char *by)
{
	char rel[PATH_MAX];
	_cleanup_(freep) char *text = NULL, *copy = NULL;
	int r;

	for (int i = 0; i < t->depth; i++)
		if (!strcmp(t->stack[i], name)) {
			writers_errorf(t->w, "/%s: include=%s is a cycle: not followed again", by, name);
			return;
		}
	if (t->depth == TUNED_DEPTH) {
		writers_errorf(t->w, "/%s: includes nested deeper than %d: %s not read", by, TUNED_DEPTH, name);
		return;
	}
	if ((r = profile_file(t->w->r, name, rel, sizeof(rel))) < 0) {
		writers_errorf(t->w, "/%s names the TuneD profile %s: %s", by, name,
			       r == -ENOENT ? "not installed" : strerror(-r));
		return;
	}
	if (writers_read(t->w, rel, &text) < 0 || !(copy = strdup(text)))
		return;
	t->stack[t->depth++] = name;
	parse_profile(t, rel, copy, true);
	parse_profile(t, rel, text, false);
	t->depth--;
}

#define TUNED_EXPANSIONS 64  /* ${name} substitutions per value */
#define TUNED_VALUE_MAX 4096  /* and no longer than this */

static const char *variable(const struct tuned *t, const char *name, size_t len)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].sect, "variables") && !strncmp(t->v[i].key, name, len) && !t->v[i].key[len])
			return t->v[i].value;
	return NULL;
}

/* The innermost ${…} at or after from: the last "${" before the first
 * '}'; NULL when there is none. */
static char *innermost(char *s, size_t from, char **close)
{
	char *open = NULL;

	*close = strchr(s + from, '}');
	for (char *p = s + from; *close && (p = strstr(p, "${")) && p < *close; p += 2)
		open = p;
	return open;
}

/* ${name} from [variables], variables within variables too (rescanned
 * from each substitution), and the functions TuneD's answer is known for
 * (virt_check, cpuinfo_check), innermost first, bounded; other ${f:...}
 * and unknown names stay. */
static char *expand(struct tuned *t, const char *value)
{
	char *s = strdup(value);
	size_t from = 0;

	for (int k = 0; s && k < TUNED_EXPANSIONS; k++) {
		char *close, *open = innermost(s, from, &close), *next;
		_cleanup_(freep) char *call = open && !strncmp(open, "${f:", 4) ? strndup(open + 4, close - open - 4) : NULL;
		_cleanup_(freep) char *fv = call ? tuned_function(&t->cond, t->w, call) : NULL;
		const char *v = fv ? fv : open && !call ? variable(t, open + 2, close - open - 2) : NULL;

		if (!close)
			break;
		if (!v) {
			from = close + 1 - s;
			continue;
		}
		if (strlen(s) + strlen(v) > TUNED_VALUE_MAX)
			break;
		from = open - s;
		next = xasprintf("%.*s%s%s", (int)from, s, v, close + 1);
		free(s);
		s = next;
	}
	return s;
}

/* A section's plugin: its type= or its name. */
static const char *section_type(const struct tuned *t, const char *sect)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].sect, sect) && !strcmp(t->v[i].key, "type"))
			return t->v[i].value;
	return sect;
}

static const char *section_opt(const struct tuned *t, const char *sect, const char *key)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].sect, sect) && !strcmp(t->v[i].key, key))
			return t->v[i].value;
	return NULL;
}

/* value: what TuneD writes; shown: o's value once expanded. */
static void add(struct tuned *t, const struct topt *o, const char *key, const char *value, const char *shown,
		const char *names, int flags)
{
	struct wentry *e = wentry_add(t->w, "TuneD", o->file + 1, o->line, WS_TUNED);

	if (!e)
		return;
	wset(&e->key, key);
	wset(&e->names, names);
	wset(&e->extra, t->maybe);
	e->flags = flags | (strstr(value, "${") ? T_COMPUTED : 0) | (t->maybe ? T_MAYBE : 0);
	wset(&e->value, e->flags & T_COMPUTED ? NULL : value);
	if (strcmp(shown, o->value))
		wsetf(&e->what, "[%s] %s=%s (%s)", o->sect, o->key, o->value, shown);
	else
		wsetf(&e->what, "[%s] %s=%s", o->sect, o->key, o->value);
	e->judge = judge_tuned;
}

/* readahead: KiB, or "N s" in 512-byte sectors; ">" raises only. */
static void disk_readahead(struct tuned *t, const struct topt *o, const char *value, const char *devs, int flags)
{
	const char *shown = value;
	char num[32];
	unsigned long long v;
	size_t n;

	if (*value == '>') {
		flags |= T_RAISE;
		value = strip((char *)value + 1);
	}
	n = strspn(value, "0123456789");
	snprintf(num, sizeof(num), "%.*s", (int)n, value);
	if (n && n < sizeof(num) && parse_u64(num, &v) == 0 && *strip((char *)value + n) == 's')
		snprintf(num, sizeof(num), "%llu", v / 2);
	else if (!n || value[n])
		snprintf(num, sizeof(num), "%s", value);
	add(t, o, "queue/read_ahead_kb", num, shown, devs, flags);
}

/* The scheduler plugin's sched_NAME: the sysctl kernel.sched_NAME where the
 * kernel has it (≤5.12), else debugfs sched/NAME: one entry for each, the
 * item's path picks. */
static void scheduler_knob(struct tuned *t, const struct topt *o, const char *value, int flags)
{
	_cleanup_(freep) char *sysctl = xasprintf("proc/sys/kernel/%s", o->key);
	_cleanup_(freep) char *debugfs = xasprintf("sys/kernel/debug/sched/%s", o->key + 6);

	if (sysctl)
		add(t, o, sysctl, value, value, NULL, flags);
	if (debugfs)
		add(t, o, debugfs, value, value, NULL, flags);
}

/* [net]: features=, coalesce=, ring=, channels= are ethtool's parameters,
 * an entry each; txqueuelen= the interface's transmit queue length. */
struct tnet {
	struct tuned *t;
	const struct topt *o;
	const char *shown, *devs;
	int flags;
};

static void net_param(void *ctx, const char *key, const char *value)
{
	struct tnet *n = ctx;

	add(n->t, n->o, key, value, n->shown, n->devs, n->flags | T_NET);
}

static void net_option(struct tuned *t, const struct topt *o, const char *value, const char *devs, int flags)
{
	struct tnet n = { t, o, value, devs, flags };

	if (!strcmp(o->key, "txqueuelen"))
		add(t, o, "tx_queue_len", value, value, devs, flags | T_NET);
	else
		nic_params(o->key, value, false, net_param, &n);
}

/* The options TuneD takes for the unit itself, not for its plugin. */
static bool unit_option(const char *key)
{
	static const char *const keys[] = { "type", "enabled", "replace", "drop", "devices", "devices_udev_regex",
					    "cpuinfo_regex", "uname_regex", "script_pre", "script_post", "priority" };

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (!strcmp(key, keys[i]))
			return true;
	return false;
}

/* Whether TuneD runs the section here: enabled, and its uname_regex and
 * cpuinfo_regex found (manager.py). A condition not judged (why in
 * t->maybe's buffer) leaves it in, as "may apply". */
static bool section_runs(struct tuned *t, const char *sect, char *why, size_t size)
{
	static const char *const conds[] = { "uname", "cpuinfo" };

	t->maybe = NULL;
	if (!unit_bool(section_opt(t, sect, "enabled"), true))
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(conds); i++) {
		char key[32];
		const char *re;
		_cleanup_(freep) char *v = NULL;
		int r;

		snprintf(key, sizeof(key), "%s_regex", conds[i]);
		if (!(re = section_opt(t, sect, key)) || !(v = expand(t, re)))
			continue;
		r = tuned_condition(&t->cond, t->w, conds[i], v, why, size);
		if (r == 0)
			return false;
		if (r < 0)
			t->maybe = why;
	}
	return true;
}

static void entries(struct tuned *t, int flags, bool reapply)
{
	int thp = kparam_has(t->w->cmdline ? t->w->cmdline : "", "transparent_hugepage") ? T_CMDLINE : 0;

	for (size_t i = 0; i < t->n; i++) {
		struct topt *o = &t->v[i];
		const char *type = section_type(t, o->sect), *d = section_opt(t, o->sect, "devices");
		_cleanup_(freep) char *value = NULL, *devs = NULL;
		char why[256];

		if (unit_option(o->key) || !section_runs(t, o->sect, why, sizeof(why)))
			continue;
		value = expand(t, o->value);
		devs = d ? expand(t, d) : NULL;
		if (!value || (d && !devs))
			continue;
		if (!strcmp(type, "disk") && !strcmp(o->key, "elevator"))
			add(t, o, "queue/scheduler", value, value, devs ? devs : "*", flags);
		else if (!strcmp(type, "disk") && !strcmp(o->key, "readahead"))
			disk_readahead(t, o, value, devs ? devs : "*", flags);
		else if (!strcmp(type, "vm") && (!strcmp(o->key, "transparent_hugepages") ||
						  !strcmp(o->key, "transparent_hugepage")))
			add(t, o, "sys/kernel/mm/transparent_hugepage/enabled", value, value, NULL, flags | thp);
		else if (!strcmp(type, "vm") && !strcmp(o->key, "transparent_hugepage.defrag"))
			add(t, o, "sys/kernel/mm/transparent_hugepage/defrag", value, value, NULL, flags);
		else if (!strcmp(type, "sysctl")) {
			_cleanup_(freep) char *key = xasprintf("proc/sys/%s", o->key);

			for (char *s = key ? key + 9 : NULL; s && *s; s++)
				*s = *s == '.' ? '/' : *s;
			if (key)
				add(t, o, key, value, value, NULL, flags | (reapply ? T_REAPPLY : 0));
		} else if (!strcmp(type, "sysfs") && !strncmp(o->key, "/sys/", 5))
			add(t, o, o->key + 1, value, value, NULL, flags);
		else if (!strcmp(type, "scheduler") && !strncmp(o->key, "sched_", 6))
			scheduler_knob(t, o, value, flags);
		else if (!strcmp(type, "net"))
			net_option(t, o, value, devs, flags);
	}
}

int writers_tuned(struct wctx *w)
{
	struct tuned t = { .w = w };
	_cleanup_(freep) char *active = NULL;
	int on;

	if (writers_read(w, "etc/tuned/active_profile", &active) < 0)
		return 0;
	on = tuned_service_enabled(w);
	/* several names (tuned-adm profile a b): merged in order, as includes */
	includes(&t, active, "etc/tuned/active_profile");
	entries(&t, on > 0 ? 0 : T_OFF, tuned_reapply_sysctl(w));
	for (size_t i = 0; i < t.n; i++)
		topt_free(&t.v[i]);
	free(t.v);
	tuned_cond_free(&t.cond);
	return 0;
}
