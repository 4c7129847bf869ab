// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * `earlytune cmdline`'s suggestions for a kernel version: THP defaults
 * from the configuration, [cmdline] rules whose DMI and disk matches hold,
 * and removals of parameters in /proc/cmdline that do nothing or fight the
 * configuration. A read that fails is an error, never "no match".
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/kconfig.h"
#include "base/kparam.h"
#include "base/log.h"
#include "engine/engine.h"
#include "cmdline/internal.h"

/* Parameters that trade security for speed: suggested only when configured,
 * and then always with a warning. */
static const char *const security_keys[] = {
	"mitigations", "init_on_alloc", "init_on_free", "nosmt", "nospectre_v1", "nospectre_v2",
	"spectre_v2", "spectre_v2_user", "spec_store_bypass_disable", "nopti", "pti", "l1tf", "mds",
	"tsx", "tsx_async_abort", "retbleed", "srbds", "mmio_stale_data", "gather_data_sampling",
	"reg_file_data_sampling", "kpti", "lockdown", "module.sig_enforce", "selinux", "apparmor",
	"security", "random.trust_cpu", "page_alloc.shuffle", "slab_nomerge", NULL,
};

static bool is_security(const char *param)
{
	_cleanup_(freep) char *key = strndup(param, strcspn(param, "="));

	for (const char *const *k = security_keys; key && *k; k++)
		if (kparam_key_eq(key, *k))
			return true;
	return false;
}

/* ---- the target kernel ----------------------------------------------------- */

static bool kconfig_set(const char *cfg, const char *name)
{
	return kconfig_value(cfg, name) == 'y';
}

/* Without the kernel's configuration, THP support is what the tree shows:
 * the running kernel's sys/kernel/mm (with transparent_hugepage: THP, the
 * Kconfig default assumed; without: none). Another kernel's, or a tree
 * without sys/kernel/mm, is unknown: no suggestion, and a line says so. */
static const char *thp_unconfigured(struct ctx *c, struct suggs *s, char **from)
{
	static const char thp[] = "sys/kernel/mm/transparent_hugepage";
	char miss[PATH_MAX];
	int r = c->kernel.other ? 0 : root_missing(&c->root, thp, miss, sizeof(miss));

	if (r > 0) {
		*from = xasprintf("no /boot/config-%s: assuming the Kconfig default", c->kernel.release);
		return "always";
	}
	if (r < 0)
		first_err_set(&s->fail, thp, r);
	if (r == 0 && !c->kernel.other && !strcmp(miss, thp))
		return NULL; /* sys/kernel/mm without it: a kernel without THP */
	if (r == 0)
		log_msg(LOG_WARN, "unknown: transparent_hugepage= not suggested: no /boot/config-%s%s%s%s: whether kernel %s has transparent huge pages is unknown",
			c->kernel.release, c->kernel.other ? "" : " nor /", c->kernel.other ? "" : miss,
			c->kernel.other ? "" : " in this tree", c->kernel.release);
	return NULL;
}

/* The compiled-in THP default: /boot/config-VERSION (or the running
 * kernel's /proc/config.gz), else what the tree shows. */
static const char *thp_default(struct ctx *c, struct suggs *s, char **from)
{
	_cleanup_(freep) char *cfg = NULL;
	char file[192];
	int r = kconfig_read(&c->root, &c->kernel, &cfg, file, sizeof(file));

	if (r == -ENOENT)
		return thp_unconfigured(c, s, from);
	if (r < 0) {
		first_err_set(&s->fail, file + 1, r);
		return NULL;
	}
	*from = xasprintf("%s", file);
	if (!kconfig_set(cfg, "CONFIG_TRANSPARENT_HUGEPAGE"))
		return NULL;
	if (kconfig_set(cfg, "CONFIG_TRANSPARENT_HUGEPAGE_MADVISE"))
		return "madvise";
	if (kconfig_set(cfg, "CONFIG_TRANSPARENT_HUGEPAGE_NEVER"))
		return "never";
	return "always";
}

static struct sugg *add_sugg(struct suggs *s, const char *param, bool remove, const char *risk,
			     const struct cfg_entry *e)
{
	struct sugg *x;

	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].param, param) && s->v[i].remove == remove)
			return NULL;
	if (array_grow(&s->v, &s->cap, s->n, sizeof(*s->v), 16) < 0) {
		first_err_set(&s->fail, NULL, -ENOMEM);
		return NULL;
	}
	x = &s->v[s->n];
	*x = (struct sugg){ .remove = remove, .risk = risk, .param = strdup(param) };
	x->source = e ? config_source(e) : NULL;
	if (!x->param) {
		free(x->source);
		first_err_set(&s->fail, NULL, -ENOMEM);
		return NULL;
	}
	s->n++;
	return x;
}

_printf_(2, 3) static void set_why(struct sugg *x, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&x->why, fmt, ap) < 0)
		x->why = NULL;
	va_end(ap);
}

static void suggest_thp(struct ctx *c, struct suggs *s)
{
	const struct cfg_entry *e = config_get(&c->cfg, "thp", NULL, "enabled");
	_cleanup_(freep) char *from = NULL, *p = NULL;
	const char *dflt = e ? thp_default(c, s, &from) : NULL;
	struct sugg *x;

	if (!e || !dflt || !strcmp(e->value, dflt))
		return;
	p = xasprintf("transparent_hugepage=%s", e->value);
	x = p ? add_sugg(s, p, false, "low", e) : NULL;
	if (x)
		set_why(x, "THP %s from the first page fault, before earlytune runs and on boots without an initramfs (compiled default: %s; %s)",
			e->value, dflt, from ? from : "");
}

/* thp_anon= (6.12+): the per-size policies of [thp] size.NkB.enabled. */
static void suggest_thp_anon(struct ctx *c, struct suggs *s)
{
	struct strbuf p = { 0 };
	const struct cfg_entry *last = NULL;
	struct sugg *x;

	if (c->kernel.version < KV(6, 12))
		return;
	sb_printf(&p, "thp_anon=");
	for (size_t i = 0; i < c->cfg.n; i++) {
		const struct cfg_entry *e = &c->cfg.v[i];
		unsigned long long kb;

		if (strcmp(e->section, "thp") || strncmp(e->key, "size.", 5) ||
		    config_get(&c->cfg, "thp", NULL, e->key) != e ||
		    sscanf(e->key, "size.%llukB.enabled", &kb) != 1 || !strcmp(e->value, "never"))
			continue;
		sb_printf(&p, "%s%lluK:%s", last ? ";" : "", kb, e->value);
		last = e;
	}
	if (p.oom)
		first_err_set(&s->fail, NULL, -ENOMEM);
	x = last && !p.oom ? add_sugg(s, p.s, false, "low", last) : NULL;
	if (x)
		set_why(x, "multi-size THP policy from boot (Linux 6.12+; sizes not named stay never)");
	sb_free(&p);
}

/* fn(word, data) for each word of a list, whatever its length; stops at
 * the first non-zero result and returns it. */
static int each_word(const char *list, int (*fn)(const char *w, void *data), void *data)
{
	const char *w;
	size_t n;
	int r = 0;

	for (const char *p = list; !r && (w = kcmd_word(&p, &n));) {
		char *word = strndup(w, n);

		r = word ? fn(word, data) : -ENOMEM;
		free(word);
	}
	return r;
}

static int glob_hit(const char *w, void *have)
{
	return fnmatch(w, have, 0) == 0;
}

/* 1 when a DMI string matches one of globs; an absent DMI file matches
 * nothing, an unreadable one is an error. */
static int dmi_matches(struct ctx *c, struct suggs *s, const char *file, const char *globs)
{
	_cleanup_(freep) char *rel = xasprintf("sys/class/dmi/id/%s", file), *have = NULL;
	int r = rel ? root_read_file(&c->root, rel, &have, 1 << 16) : -ENOMEM;

	if (r == -ENOENT || r == -ENOTDIR)
		return 0;
	if (r < 0) {
		first_err_set(&s->fail, rel ? rel : file, r);
		return r;
	}
	strip(have);
	if (!*have)
		return 0;
	/* DMI strings have spaces: the whole value is one pattern too. */
	if (fnmatch(globs, have, 0) == 0)
		return 1;
	return each_word(globs, glob_hit, have);
}

static int disk_hit(const char *w, void *root)
{
	int n = root_match(root, "sys/block", w, NULL, NULL);

	return n < 0 ? n : n > 0;
}

/* An image has no sys/block: its disks are known only when it boots. A
 * rule's disks are then assumed (*assumed says so in the reason) rather
 * than silently never matching: --platform aws on an EC2 image is asked for
 * exactly the rule that names the NVMe disks EBS gives it. */
static int disk_present(struct ctx *c, struct suggs *s, const char *globs, bool *assumed)
{
	int r = c->root.is_host ? 1 : root_access(&c->root, "sys/block");

	if (r == 0) {
		*assumed = true;
		return 1;
	}
	if (r > 0)
		r = each_word(globs, disk_hit, &c->root);
	if (r < 0)
		first_err_set(&s->fail, "sys/block", r);
	return r;
}

/* The platform, given or guessed, once per command; said (once) when a
 * rule asks for it (the JSON object carries it). 0, or -errno of a DMI
 * read (s->fail names it). */
static int platform(struct ctx *c, struct suggs *s, bool say)
{
	const struct cfg_entry *e = config_get(&c->cfg, "main", NULL, "platform");
	_cleanup_(freep) char *from = e && !c->platform.resolved ? config_source(e) : NULL;
	int r = platform_resolve(&c->platform, &c->root, c->platform_opt, e ? e->value : NULL, from);

	if (r < 0)
		first_err_set(&s->fail, c->platform.from, r);
	if (r == 0 && say && !c->platform.said && !c->json) {
		platform_say(&c->platform);
		c->platform.said = true;
	}
	return r;
}

static int platform_matches(struct ctx *c, struct suggs *s, const char *list)
{
	if (platform(c, s, true) < 0)
		return -1;
	return c->platform.name && word_listed(list, c->platform.name);
}

static bool rule_matches(struct ctx *c, struct suggs *s, const char *name, bool *assumed)
{
	const struct cfg_entry *pf = config_get(&c->cfg, "cmdline", name, "match.platform");
	const struct cfg_entry *v = config_get(&c->cfg, "cmdline", name, "match.vendor");
	const struct cfg_entry *p = config_get(&c->cfg, "cmdline", name, "match.product");
	const struct cfg_entry *d = config_get(&c->cfg, "cmdline", name, "match.disk");

	*assumed = false;
	return (!pf || platform_matches(c, s, pf->value) > 0) &&
	       (!v || dmi_matches(c, s, "sys_vendor", v->value) > 0) &&
	       (!p || dmi_matches(c, s, "product_name", p->value) > 0) &&
	       (!d || disk_present(c, s, d->value, assumed) > 0);
}

#define DISKS_ASSUMED " (match.disk assumed: this image has no sys/block; its disks are known when it boots)"

/* [cmdline "NAME"] rules whose matches hold, and [cmdline] add. */
static void suggest_rules(struct ctx *c, struct suggs *s)
{
	for (size_t i = 0; i < c->cfg.n; i++) {
		const struct cfg_entry *e = &c->cfg.v[i];
		char w[WORD_MAX];
		const char *p;
		bool assumed;

		if (strcmp(e->section, "cmdline") || strcmp(e->key, "add") ||
		    config_get(&c->cfg, "cmdline", e->name, "add") != e || !rule_matches(c, s, e->name, &assumed))
			continue;
		/* The words were checked (< WORD_MAX) when the configuration was read. */
		for (p = e->value; next_word(&p, w, sizeof(w));) {
			bool sec = is_security(w);
			struct sugg *x = add_sugg(s, w, false, sec ? "high: security" : "low", e);

			if (!x)
				continue;
			x->security = sec;
			if (e->reason)
				set_why(x, "%s%s", e->reason, assumed ? DISKS_ASSUMED : "");
			else
				set_why(x, "configured in [cmdline%s%s%s]%s", e->name ? " \"" : "",
					e->name ? e->name : "", e->name ? "\"" : "", assumed ? DISKS_ASSUMED : "");
		}
	}
}

/* Parameters in /proc/cmdline that do nothing now, or fight the configuration. */
static int check_stale(const char *key, const char *val, void *data)
{
	struct suggs *s = data;
	_cleanup_(freep) char *p = xasprintf("%s%s%s", key, val ? "=" : "", val ? val : "");
	struct sugg *x;

	if (!p) {
		first_err_set(&s->fail, NULL, -ENOMEM);
		return 0;
	}
	if (kparam_key_eq(key, "elevator")) {
		x = add_sugg(s, p, true, "none", NULL);
		if (x)
			set_why(x, "no effect since Linux 5.0 (blk-mq; ignored, and warned about since 5.5): earlytune sets the scheduler per disk");
	} else if (kparam_key_eq(key, "scsi_mod.use_blk_mq") || kparam_key_eq(key, "dm_mod.use_blk_mq")) {
		x = add_sugg(s, p, true, "none", NULL);
		if (x)
			set_why(x, "the legacy block layer it chose between was removed in Linux 5.0");
	}
	return 0;
}

/* Only the last transparent_hugepage= is in force: that one is judged. */
static void check_thp_param(struct ctx *c, struct suggs *s)
{
	const struct cfg_entry *thp = config_get(&c->cfg, "thp", NULL, "enabled");
	const char *cl = c->kernel.cmdline;
	_cleanup_(freep) char *val = cl ? malloc(strlen(cl) + 1) : NULL, *p = NULL;
	struct sugg *x;

	if (!thp || !val || !kparam_get(cl, "transparent_hugepage", val, strlen(cl) + 1) ||
	    !strcmp(val, thp->value))
		return;
	p = xasprintf("transparent_hugepage=%s", val);
	x = p ? add_sugg(s, p, true, "low", thp) : NULL;
	if (x)
		set_why(x, "contradicts [thp] enabled = %s (and makes earlytune skip it)", thp->value);
}

/* 0, or the first read error (then s->fail.path names it). */
static int collect(struct ctx *c, struct suggs *s)
{
	/* Resolved for every command's JSON; said where a rule asks. */
	if (platform(c, s, false) < 0)
		return s->fail.err;
	suggest_thp(c, s);
	suggest_thp_anon(c, s);
	suggest_rules(c, s);
	/* Removals concern the command line this kernel booted with. */
	kparam_each(c->kernel.cmdline, check_stale, s);
	check_thp_param(c, s);
	/* A suggestion already on the command line is not one. */
	for (size_t i = 0; i < s->n; i++)
		if (!s->v[i].remove && kparam_has_param(c->kernel.cmdline, s->v[i].param))
			s->v[i].param[0] = '\0';
	return s->fail.err;
}

void suggs_free(struct suggs *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].param);
		free(s->v[i].why);
		free(s->v[i].source);
	}
	free(s->v);
	free(s->fail.path);
	*s = (struct suggs){ 0 };
}

/* The one log line of a failed collect. */
int suggest_collect(struct ctx *c, struct suggs *s)
{
	int r = collect(c, s);

	if (r < 0)
		log_msg(LOG_ERR, "cannot read %s/%s: %s", c->root.is_host ? "" : c->root.dir,
			s->fail.path ? s->fail.path : "", strerror(-r));
	return r;
}

/* Like the item table: a row (action, parameter, risk), then why and the
 * source on indented lines that fit the width; --wide: one full line. */
static void print_sugg(const struct ctx *c, const struct sugg *x)
{
	_cleanup_(freep) char *note = xasprintf("%s%s%s%s", x->why ? x->why : "", x->source ? " [" : "",
						x->source ? x->source : "", x->source ? "]" : "");
	struct strbuf sb = { 0 };
	int columns = c->columns < 0 ? table_columns() : c->columns;

	if (!columns) {
		sb_printf(&sb, "%-6s %-40s %-14s %s\n", x->remove ? "remove" : "add", x->param, x->risk,
			  note ? note : "");
	} else {
		sb_printf(&sb, "%-6s %s  %s\n", x->remove ? "remove" : "add", x->param, x->risk);
		if (note)
			sb_wrap(&sb, note, 7, columns);
	}
	if (x->security)
		sb_printf(&sb, "warning: %s weakens the kernel's protection against CPU and memory attacks; "
			  "suggested only because the configuration asks for it\n", x->param);
	fputs(sb.s ? sb.s : "", stdout);
	free(sb.s);
}

void suggest_print(struct ctx *c, const struct suggs *s)
{
	struct strbuf sb = { 0 };
	bool first = true;

	if (!c->json) {
		for (size_t i = 0; i < s->n; i++)
			if (s->v[i].param[0])
				print_sugg(c, &s->v[i]);
		return;
	}
	json_head(&sb, c, "cmdline");
	json_platform(&sb, &c->platform);
	sb_printf(&sb, ",\"suggestions\":[");
	for (size_t i = 0; i < s->n; i++) {
		const struct sugg *x = &s->v[i];

		if (!x->param[0])
			continue;
		sb_printf(&sb, "%s{\"action\":\"%s\",\"parameter\":", first ? "" : ",", x->remove ? "remove" : "add");
		sb_json_str(&sb, x->param);
		sb_printf(&sb, ",\"risk\":");
		sb_json_str(&sb, x->risk);
		sb_printf(&sb, ",\"reason\":");
		sb_json_str(&sb, x->why && *x->why ? x->why : NULL);
		sb_printf(&sb, ",\"source\":");
		sb_json_str(&sb, x->source);
		sb_printf(&sb, ",\"security\":%s}", x->security ? "true" : "false");
		first = false;
	}
	sb_printf(&sb, "]}\n");
	json_emit(&sb);
}
