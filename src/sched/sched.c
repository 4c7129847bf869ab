// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The scheduler's tunables. The configuration names them as people know
 * them (latency_ns, min_granularity_ns, base_slice_ns, ...); where each one
 * lives depends on the target kernel: sysctl kernel.sched_* up to 5.12,
 * debugfs sched/ from 5.13 (written through the engine's apply_batch, which
 * mounts debugfs for the write), and from 6.6 EEVDF, which removed the CFS
 * period and granularities and added base_slice_ns. A key the kernel has no
 * knob for is a skip that names the nearest one: one meaning is never
 * written under another's name.
 */
#include <errno.h>
#include <string.h>

#include "engine/sysctl.h"
#include "sched/internal.h"

#define V5_13 KV(5, 13)
#define V6_6 KV(6, 6)
#define V6_12 KV(6, 12)
#define NS_MAX 1000000000LL /* the sysctls' ceiling (1 s) */

static const struct sched_key {
	const char *key;
	const char *sysctl;         /* proc/sys/kernel/ name below sysctl_until, or NULL */
	unsigned sysctl_until;
	const char *debugfs;        /* sched/ name in [from, until) (until 0: still there), or NULL */
	unsigned from, until;
	long long min, max;
	bool hotplug;               /* scaled by the online CPUs: recomputed on CPU online */
	const char *before, *after; /* why there is none before from, from until on */
	const char *gone;           /* from 6.12, when it differs from after */
} sched_keys[] = {
	{ "latency_ns", "sched_latency_ns", V5_13, "latency_ns", V5_13, V6_6, 100000, NS_MAX, true, NULL,
	  "EEVDF (6.6+) removed latency_ns (it has no scheduling period); the nearest knob is base_slice_ns", NULL },
	{ "min_granularity_ns", "sched_min_granularity_ns", V5_13, "min_granularity_ns", V5_13, V6_6, 100000, NS_MAX,
	  true, NULL,
	  "EEVDF (6.6+) removed min_granularity_ns; the nearest knob is base_slice_ns (a task's requested slice, "
	  "not a least run time before preemption: set it on its own)", NULL },
	{ "wakeup_granularity_ns", "sched_wakeup_granularity_ns", V5_13, "wakeup_granularity_ns", V5_13, V6_6, 0,
	  NS_MAX, true, NULL,
	  "EEVDF (6.6+) removed wakeup_granularity_ns (a woken task preempts by its virtual deadline); the nearest "
	  "knob is base_slice_ns", NULL },
	{ "migration_cost_ns", "sched_migration_cost_ns", V5_13, "migration_cost_ns", V5_13, 0, 0, NS_MAX, false,
	  NULL, NULL, NULL },
	{ "nr_migrate", "sched_nr_migrate", V5_13, "nr_migrate", V5_13, 0, 1, 2147483647LL, false, NULL, NULL, NULL },
	{ "base_slice_ns", NULL, 0, "base_slice_ns", V6_6, 0, 100000, NS_MAX, true,
	  "base_slice_ns is EEVDF's (6.6+); on this CFS kernel the nearest knob is min_granularity_ns", NULL, NULL },
	{ "child_runs_first", "sched_child_runs_first", V6_6, NULL, 0, 0, 0, 1, false, NULL,
	  "EEVDF (6.6+) ignores sched_child_runs_first (a no-op until its removal in 6.12); no knob has its meaning",
	  "sched_child_runs_first is gone since 6.12 (a no-op from EEVDF, 6.6); no knob has its meaning" },
};

static const struct sched_key *key_find(const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(sched_keys); i++)
		if (!strcmp(sched_keys[i].key, key))
			return &sched_keys[i];
	return NULL;
}

bool sched_is_debugfs(const char *setting)
{
	return !strncmp(setting, "sched/", 6);
}

int sched_map(const char *key, unsigned version, struct sched_map *m)
{
	const struct sched_key *k = key_find(key);

	*m = (struct sched_map){ .via = SV_SKIP };
	if (!k)
		return -EINVAL;
	m->hotplug = k->hotplug;
	if (k->sysctl && version < k->sysctl_until) {
		m->via = SV_SYSCTL;
		snprintf(m->setting, sizeof(m->setting), "kernel.%s", k->sysctl);
		snprintf(m->path, sizeof(m->path), "proc/sys/kernel/%s", k->sysctl);
	} else if (k->debugfs && version >= k->from && (!k->until || version < k->until)) {
		m->via = SV_DEBUGFS;
		snprintf(m->setting, sizeof(m->setting), "sched/%s", k->debugfs);
		snprintf(m->path, sizeof(m->path), SCHED_DIR "/%s", k->debugfs);
	} else {
		m->why = version < k->from ? k->before : k->gone && version >= V6_12 ? k->gone : k->after;
		snprintf(m->setting, sizeof(m->setting), "%s", k->key);
		snprintf(m->path, sizeof(m->path), SCHED_DIR);
	}
	return 0;
}

int sched_check_key(const char *key, const char *value, char *why, size_t size)
{
	const struct sched_key *k = key_find(key);
	char buf[96], names[160];
	long long v;

	if (!strcmp(key, "latency_nice")) {
		snprintf(why, size, "[sched] latency_nice never existed in mainline Linux (the latency-nice patches "
				    "were not merged): weight groups of tasks with the cgroup v2 cpu.weight instead");
		return -EINVAL;
	}
	if (!k) {
		snprintf(why, size, "unknown key '%s' in [sched]%sallowed: %s", key,
			 did_you_mean(key, CFG_NAMES(sched_keys, "", names), buf, sizeof(buf)), names);
		return -EINVAL;
	}
	if (*value && (parse_s64(value, &v) < 0 || v < k->min || v > k->max)) {
		snprintf(why, size, "[sched] %s = '%s' is out of range: a whole number from %lld to %lld", key, value,
			 k->min, k->max);
		return -EINVAL;
	}
	return 0;
}

/* The [sched] keys that are sysctls up to 5.12, for the guard that keeps
 * systemd-sysctl from resetting them: fn(sysctl key, its entry, optional).
 * The guard is written from the configuration alone, for whatever kernel
 * boots: optional, as 5.13+ moved them to debugfs. */
void sched_sysctls(const struct config *cfg,
		   void (*fn)(const char *key, const struct cfg_entry *e, bool optional, void *data), void *data)
{
	char key[64];

	for (size_t i = 0; i < ARRAY_SIZE(sched_keys); i++) {
		const struct cfg_entry *e = config_get(cfg, "sched", NULL, sched_keys[i].key);

		if (!e || !*e->value || !sched_keys[i].sysctl)
			continue;
		snprintf(key, sizeof(key), "kernel.%s", sched_keys[i].sysctl);
		fn(key, e, true, data);
	}
}

/* A built-in profile names the knobs of both schedulers (latency_ns for CFS,
 * base_slice_ns for EEVDF): the other one's is not for this kernel, which is
 * no failure. The user's own configuration asking for it is (unmet). */
static bool from_profile(const struct cfg_entry *e)
{
	return e->file && !strncmp(e->file, "profile ", 8);
}

static void skip(struct item *it, const struct cfg_entry *e, bool absent, const char *why)
{
	it->action = ACT_SKIP;
	it->unmet = !absent || !from_profile(e);
	item_set(&it->reason, why);
	if (absent && !it->unmet)
		item_add_reason(it, "(the profile sets it for the other scheduler)");
}

/* Why the file of m is missing, from the nearest part the tree has. 0 a
 * fact, 1 unknown (the tree does not show it), or -errno when the lookup
 * fails. */
static int absent_why(struct ctx *c, const struct sched_map *m, char *why, size_t size)
{
	char miss[PATH_MAX];
	int r = root_missing(&c->root, m->path, miss, sizeof(miss));
	bool fs_there;

	if (r < 0)
		return r;
	if (m->via == SV_SYSCTL) {
		fs_there = r == 0 && !strcmp(miss, m->path);
		if (fs_there)
			snprintf(why, size, "no /%s: this kernel has no such sysctl (all but sched_child_runs_first "
					    "need CONFIG_SCHED_DEBUG)", m->path);
		else
			snprintf(why, size, "no /%s in this tree: whether the kernel has it is unknown", r ? m->path : miss);
		return !fs_there;
	} else if (r == 0 && !strcmp(miss, m->path)) {
		snprintf(why, size, "no /%s: this kernel has no such knob", m->path);
	} else if (r == 0 && !strcmp(miss, SCHED_DIR)) {
		snprintf(why, size, c->root.is_host ? "no /" SCHED_DIR ": the kernel was built without CONFIG_SCHED_DEBUG"
						    : "no /" SCHED_DIR " in this tree: whether the kernel has CONFIG_SCHED_DEBUG "
						      "is unknown (debugfs may not have been mounted where the tree was taken)");
		return !c->root.is_host;
	} else {
		snprintf(why, size, "no /%s in this tree: whether the kernel has %s is unknown", r ? m->path : miss,
			 m->setting);
		return 1;
	}
	return 0;
}

/* Read now: current and the action, or a skip or error saying why not. */
static void judge(struct ctx *c, struct item *it, const struct cfg_entry *e, const struct sched_map *m,
		  struct sched_mount *mnt)
{
	char raw[64], why[PATH_MAX + 128];
	int r = m->via == SV_DEBUGFS ? sched_debugfs_get(&c->root, mnt) : 0;

	if (r == -ENODEV && mnt->no_mount) {
		item_unknown(it, "debugfs is not mounted on /" SCHED_DEBUGFS " and plan mounts nothing: the value of "
				 "%s is unknown (apply mounts it for the write)", m->setting);
		return;
	}
	if (r < 0) {
		snprintf(why, sizeof(why), "cannot mount debugfs on /" SCHED_DEBUGFS ": %s", strerror(-r));
		skip(it, e, false, why);
		return;
	}
	r = root_read(&c->root, m->path, raw, sizeof(raw));
	if (r == -ENOENT && (r = absent_why(c, m, why, sizeof(why))) >= 0) {
		if (r)
			item_unknown(it, "%s", why);
		else
			skip(it, e, false, why);
		return;
	}
	if (r == -EPERM && m->via == SV_DEBUGFS) {
		snprintf(why, sizeof(why), "%s: cannot read /%s", sched_errstr(r), m->path);
		skip(it, e, false, why);
		return;
	}
	if (r < 0) {
		it->action = ACT_ERROR;
		item_setf(&it->error, "cannot read /%s: %s", m->path, strerror(-r));
		return;
	}
	item_set(&it->current, raw);
	it->action = item_compare_value(it, raw) ? ACT_CHANGE : ACT_KEEP;
	if (m->via == SV_SYSCTL)
		sysctl_warn_override(&c->root, it, m->setting, e->value);
	if (m->hotplug)
		item_add_reason(it, "(the kernel recomputes it when a CPU comes online: the udev rule re-applies it)");
}

static void plan_key(struct ctx *c, struct plan *p, const struct cfg_entry *e, struct sched_mount *mnt)
{
	struct sched_map m;
	struct item *it;

	if (sched_map(e->key, c->kernel.version, &m) < 0)
		return; /* the configuration reader rejected it */
	it = plan_add(p, "sched", m.via == SV_SYSCTL ? "sysctl" : m.via == SV_DEBUGFS ? "debugfs" : "sched", m.setting,
		      m.path);
	if (!it)
		return;
	item_from_entry(it, e);
	item_set(&it->desired, e->value);
	if (!c->kernel.version) {
		item_unknown(it, "the target kernel's version is unknown (release '%s'): which knob %s is cannot be told",
			     c->kernel.release, e->key);
	} else if (m.via == SV_SKIP) {
		skip(it, e, true, m.why);
	} else if (c->kernel.other) {
		/* The tree's files are the running kernel's, not the target's. */
		it->action = ACT_SKIP;
		item_setf(&it->reason, "the target kernel %s is not the one running here: %s is applied when it boots",
			  c->kernel.release, m.setting);
	} else {
		it->kind = m.via == SV_DEBUGFS ? ITEM_DEBUGFS : ITEM_FILE;
		judge(c, it, e, &m, mnt);
	}
}

int sched_plan(struct ctx *c, struct plan *p)
{
	struct sched_mount mnt = { .no_mount = c->read_only };

	for (size_t i = 0; i < ARRAY_SIZE(sched_keys); i++) {
		const struct cfg_entry *e = config_get(&c->cfg, "sched", NULL, sched_keys[i].key);

		if (e)
			plan_key(c, p, e, &mnt);
	}
	sched_debugfs_put(&c->root, &mnt);
	return 0;
}

/* The debugfs knobs the plan changes, with debugfs mounted for them. */
int sched_apply(struct ctx *c, struct plan *p)
{
	struct sched_mount mnt = { 0 };

	for (size_t i = 0; i < p->n; i++) {
		struct item *it = &p->v[i];
		int r;

		if (strcmp(it->domain, "sched") || it->kind != ITEM_DEBUGFS || it->action != ACT_CHANGE)
			continue;
		r = sched_debugfs_get(&c->root, &mnt);
		if (r < 0)
			item_fail(it, r, "cannot mount debugfs on /" SCHED_DEBUGFS);
		else
			(void)sched_write(&c->root, it, it->desired);
	}
	sched_debugfs_put(&c->root, &mnt);
	return 0;
}

bool sched_batched(const char *setting)
{
	return sched_is_debugfs(setting);
}

static void revert_one(struct ctx *c, struct item *it, struct sched_mount *mnt)
{
	char raw[64];
	int r = sched_debugfs_get(&c->root, mnt);

	if (r < 0) {
		item_fail(it, r, "cannot mount debugfs on /" SCHED_DEBUGFS);
		return;
	}
	r = root_read(&c->root, it->path, raw, sizeof(raw));
	if (r == -ENOENT) {
		it->action = ACT_SKIP;
		item_setf(&it->reason, "/%s is gone (another kernel, or debugfs not there): nothing to restore", it->path);
		return;
	}
	if (r >= 0) {
		item_set(&it->current, raw);
		if (!item_compare_value(it, raw)) {
			it->action = ACT_KEEP;
			return;
		}
	}
	it->action = ACT_CHANGE;
	(void)sched_write(&c->root, it, it->desired);
}

/* The recorded originals of the debugfs knobs, debugfs mounted for them. */
int sched_revert(struct ctx *c, struct item **items, const char **values, size_t n)
{
	struct sched_mount mnt = { 0 };

	for (size_t k = 0; k < n; k++)
		revert_one(c, items[k], &mnt);
	sched_debugfs_put(&c->root, &mnt);
	return 0;
}

/* The [sched] key of a debugfs knob (its sysctls are below /proc/sys, which
 * [sysfs] refuses whole). */
bool sched_claims(const char *path, char *key, size_t size)
{
	static const char dir[] = SCHED_DIR "/";

	if (strncmp(path, dir, sizeof(dir) - 1))
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(sched_keys); i++)
		if (sched_keys[i].debugfs && !strcmp(path + sizeof(dir) - 1, sched_keys[i].debugfs)) {
			snprintf(key, size, "[sched] %s", sched_keys[i].key);
			return true;
		}
	return false;
}
