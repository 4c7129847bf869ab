// SPDX-License-Identifier: LGPL-2.1-or-later
/* [modules]: load = MOD…, options.MOD = ARGS. Loading only, never unloading:
 * revert leaves modules in (removing one in use is not a tuning decision). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/kmod.h"
#include "base/log.h"
#include "engine/engine.h"
#include "engine/item.h"
#include "block/block.h"
#include "net/net.h"
#include "modules/modules.h"

static const char *const state_names[] = { "absent", "live", "builtin", "coming" };

/* A module name as modprobe takes it: lower-case letters, digits, '_', '-'. */
bool module_name_valid(const char *w)
{
	if (!*w)
		return false;
	for (; *w; w++)
		if (!((*w >= 'a' && *w <= 'z') || (*w >= '0' && *w <= '9') || *w == '_' || *w == '-'))
			return false;
	return true;
}

static bool all_words(const char *value, bool (*ok)(const char *))
{
	char w[WORD_MAX];
	size_t len;

	while ((len = next_word(&value, w, sizeof(w))))
		if (len >= sizeof(w) || !ok(w))
			return false;
	return true;
}

int modules_check_key(const char *key, const char *value, char *why, size_t size)
{
	if (!strcmp(key, "load")) {
		if (all_words(value, module_name_valid))
			return 0;
		snprintf(why, size, "[modules] load = '%s': module names are letters, digits, '_' and '-'", value);
		return -EINVAL;
	}
	if (!strncmp(key, "options.", 8) && module_name_valid(key + 8))
		return 0;
	char buf[96];

	snprintf(why, size, "unknown key '%s' in [modules]%sallowed: load options.MODULE", key,
		 did_you_mean(key, "load", buf, sizeof(buf)));
	return -EINVAL;
}

/* tcp_bbr built in without parameters has no /sys/module entry; the list of
 * available congestion controls says it is there. */
static bool builtin_cc(struct ctx *c, const char *name)
{
	return !strncmp(name, "tcp_", 4) && net_cc_available(c, name + 4);
}

/* true when the module can be inserted; otherwise the item says why not:
 * built in after all (the kernel's configuration says so), unknown, or
 * unmet. */
static bool loadable(struct ctx *c, struct item *it, const char *name)
{
	char why[512] = "";
	int r = net_module_available(c, name, why, sizeof(why));

	if (r == 1) {
		item_set(&it->current, state_names[MOD_BUILTIN]);
		item_set(&it->desired, state_names[MOD_BUILTIN]);
	} else if (r == 3) {
		item_unknown(it, "%s", why);
	} else if (r != 2) {
		it->action = ACT_SKIP;
		it->unmet = true;
		item_set(&it->reason, why);
	}
	return r == 2;
}

static void plan_module(struct ctx *c, struct plan *p, const char *name, const struct cfg_entry *e)
{
	char path[PATH_MAX];
	const struct cfg_entry *opt;
	struct mod_info info;
	struct item *it;
	int st, r;

	r = pathf(path, sizeof(path), "sys/module/%s", name);
	it = plan_add(p, "modules", name, "state", r < 0 ? "sys/module" : path);
	if (!it)
		return;
	if (r < 0) {
		it->action = ACT_ERROR;
		item_setf(&it->error, "sys/module/%s: %s", name, strerror(-r));
		return;
	}
	it->kind = ITEM_MODULE;
	item_from_entry(it, e);
	item_set(&it->desired, "live");
	st = mods_state(c->mods, name);
	if (st == MOD_ABSENT && builtin_cc(c, name))
		st = MOD_BUILTIN;
	item_set(&it->current, st >= 0 && st < (int)ARRAY_SIZE(state_names) ? state_names[st] : "?");
	if (st == MOD_LIVE || st == MOD_BUILTIN) {
		item_set(&it->desired, state_names[st]);
		return; /* keep */
	}
	if (!loadable(c, it, name))
		return;
	it->action = ACT_CHANGE;
	item_set(&it->module, name);
	if (mods_lookup(c->mods, name, &info) == 0 && info.install_cmd)
		item_add_reason(it, "(the modprobe.d install command for %s is not run; the module is inserted)", name);
	snprintf(path, sizeof(path), "options.%s", name);
	opt = config_get(&c->cfg, "modules", NULL, path);
	if (opt)
		item_set(&it->options, opt->value);
}

int modules_plan(struct ctx *c, struct plan *p)
{
	const struct cfg_entry *e = config_get(&c->cfg, "modules", NULL, "load");
	char w[WORD_MAX];
	const char *s;

	if (!e)
		return 0;
	for (s = e->value; next_word(&s, w, sizeof(w));)
		plan_module(c, p, w, e);
	return 0;
}

/* Inserts and reads the state back: live (or built in) is the only success. */
void modules_apply(struct ctx *c, struct item *it)
{
	int r = mods_load(c->mods, it->target, it->options), st;

	if (r == -EXDEV)
		item_setf(&it->error, "modules reach only the running kernel, not --root %s", c->root.dir);
	else if (r == -EPERM)
		item_setf(&it->error, "cannot load %s: blacklisted in modprobe.d, or no CAP_SYS_MODULE", it->target);
	else if (r < 0)
		item_setf(&it->error, "cannot load %s: %s", it->target, strerror(-r));
	st = r < 0 ? MOD_ABSENT : mods_state(c->mods, it->target);
	if (r >= 0 && st != MOD_LIVE && st != MOD_BUILTIN)
		item_setf(&it->error, "%s was inserted but /sys/module/%s does not say live", it->target,
			  it->target);
	it->result = it->error ? RES_FAILED : RES_APPLIED;
}

/* ---- what the configuration needs from a kernel ------------------------------ */

/* Found in the kernel's module tree, whether or not it could be loaded here
 * (another --root, a blacklist): the generators copy it all the same. */
static bool mods_lookup_ok(struct ctx *c, const char *name)
{
	struct mod_info info;

	return mods_lookup(c->mods, name, &info) == 0;
}

struct need {
	char name[64];
	const struct cfg_entry *why;
};

static size_t add_need(struct need *v, size_t n, size_t max, const char *name, const struct cfg_entry *e)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return n;
	if (n == max)
		return n;
	snprintf(v[n].name, sizeof(v[n].name), "%s", name);
	v[n].why = e;
	return n + 1;
}

static size_t collect_needs(struct ctx *c, struct need *v, size_t max)
{
	const struct cfg_entry *e;
	char w[WORD_MAX], name[80];
	const char *s;
	size_t n = 0;

	if ((e = config_get(&c->cfg, "modules", NULL, "load")))
		for (s = e->value; next_word(&s, w, sizeof(w));)
			n = add_need(v, n, max, w, e);
	if ((e = config_get(&c->cfg, "net", NULL, "congestion_control")) && strcmp(e->value, "reno")) {
		snprintf(name, sizeof(name), "tcp_%s", e->value);
		n = add_need(v, n, max, name, e);
	}
	if ((e = config_get(&c->cfg, "net", NULL, "qdisc")) && !qdisc_is_core(e->value)) {
		snprintf(name, sizeof(name), "sch_%s", e->value);
		n = add_need(v, n, max, name, e);
	}
	for (size_t i = 0; i < c->cfg.n; i++) {
		e = &c->cfg.v[i];
		if (strcmp(e->section, "block") || strcmp(e->key, "scheduler") ||
		    config_get(&c->cfg, "block", e->name, "scheduler") != e)
			continue;
		for (s = e->value; next_word(&s, w, sizeof(w));)
			if (block_sched_module(w))
				n = add_need(v, n, max, block_sched_module(w), e);
	}
	return n;
}

/* `earlytune modules [--kernel VERSION] [--check]`: one line per module the
 * configuration needs (name, state for that kernel, where the need comes
 * from). The initramfs generators copy these; the kernel hooks --check that
 * a new kernel has them, warning by name. */
/* One module of `modules --json`; the array is closed by modules_json_end. */
static void modules_json_add(struct strbuf *sb, const char *name, const char *state, const struct cfg_entry *why,
		      const char *src)
{
	sb_printf(sb, "%s{\"module\":", sb->len ? "," : "");
	sb_json_str(sb, name);
	json_field(sb, "state", state);
	json_field(sb, "section", why->section);
	json_field(sb, "key", why->key);
	json_field(sb, "value", why->value);
	json_field(sb, "source", src);
	sb_printf(sb, "}");
}

static void modules_json_end(const struct ctx *c, struct strbuf *mods, unsigned missing)
{
	struct strbuf sb = { 0 };

	json_head(&sb, c, "modules");
	sb_printf(&sb, ",\"missing\":%u,\"modules\":[%s]}\n", missing, mods->s ? mods->s : "");
	if (mods->oom)
		sb.oom = true;
	sb_free(mods);
	json_emit(&sb);
}

/* Another kernel without /lib/modules/VER is not installed: that is the one
 * cause of every module being unknown, said once. true when said. */
static bool kernel_absent(struct ctx *c)
{
	char rel[PATH_MAX];

	if (!c->kernel.other || pathf(rel, sizeof(rel), "lib/modules/%s", c->kernel.release) < 0 ||
	    root_access(&c->root, rel) != 0)
		return false;
	log_msg(LOG_WARN, "kernel %s is not installed: no /%s, so none of its modules can be checked", c->kernel.release, rel);
	return true;
}

int cmd_modules(struct ctx *c, bool check)
{
	struct need v[64];
	size_t n = collect_needs(c, v, ARRAY_SIZE(v));
	struct strbuf js = { 0 };
	int missing = 0;
	bool absent = check && kernel_absent(c);

	for (size_t i = 0; i < n; i++) {
		_cleanup_(freep) char *src = config_source(v[i].why);
		char why[256];
		int st = mods_state(c->mods, v[i].name);
		int a = mods_available(c->mods, v[i].name, why, sizeof(why));
		const char *state = st == MOD_LIVE ? "live" :
				    st == MOD_BUILTIN || (!c->kernel.other && builtin_cc(c, v[i].name)) ? "builtin" :
				    a == 2 || (a == 0 && c->mods && mods_lookup_ok(c, v[i].name)) ? "module" :
				    a == 3 ? "unknown" : "missing";

		if (c->json)
			modules_json_add(&js, v[i].name, state, v[i].why, src);
		else
			printf("%s\t%s\t[%s] %s = %s (%s)\n", v[i].name, state, v[i].why->section,
			       v[i].why->key, v[i].why->value, src ? src : "?");
		/* Another kernel's hook: what cannot be confirmed is warned about too. */
		if (!strcmp(state, "missing") || (a == 3 && c->kernel.other)) {
			missing++;
			if (absent)
				continue;
			if (check && a == 3)
				log_msg(LOG_WARN, "cannot tell whether kernel %s has module %s (%s), needed by [%s] %s = %s (%s)",
					c->kernel.release, v[i].name, why, v[i].why->section, v[i].why->key,
					v[i].why->value, src ? src : "?");
			else if (check)
				log_msg(LOG_WARN, "kernel %s has no module %s, needed by [%s] %s = %s (%s)",
					c->kernel.release, v[i].name, v[i].why->section, v[i].why->key,
					v[i].why->value, src ? src : "?");
		}
	}
	if (c->json)
		modules_json_end(c, &js, (unsigned)missing);
	return check && missing ? 1 : 0;
}
