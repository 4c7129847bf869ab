// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * `earlytune cmdline`: kernel command-line suggestions for a kernel version,
 * and their integration with the bootloader (ostree, BLS with grubby, Debian
 * GRUB drop-in, kernel-install, UKI). earlytune records exactly what it
 * added in /var/lib/earlytune/cmdline.state and removes exactly that.
 */
#include <errno.h>
#include <dirent.h>
#include <stdarg.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "earlytune.h"

#define STATE "var/lib/earlytune/cmdline.state"
#define GRUB_DROPIN "etc/default/grub.d/99-earlytune.cfg"
#define KINSTALL "etc/kernel/cmdline"
/* Command lines are a few KiB at most (COMMAND_LINE_SIZE); a file beyond
 * this is an error, never taken as absent or cut. */
#define FILE_MAX (1 << 20)

/* Parameters that trade security for speed: suggested only when configured,
 * and then always with a warning. */
static const char *const security_keys[] = {
	"mitigations", "init_on_alloc", "init_on_free", "nosmt", "nospectre_v1", "nospectre_v2",
	"spectre_v2", "spectre_v2_user", "spec_store_bypass_disable", "nopti", "pti", "l1tf", "mds",
	"tsx", "tsx_async_abort", "retbleed", "srbds", "mmio_stale_data", "gather_data_sampling",
	"reg_file_data_sampling", "kpti", "lockdown", "module.sig_enforce", "selinux", "apparmor",
	"security", "random.trust_cpu", "page_alloc.shuffle", "slab_nomerge", NULL,
};

struct sugg {
	char *param;
	bool remove;
	bool security;
	char *why;
	const char *risk;
	char *source;
};

/* Suggestions, as many as there are; err/err_path: the first read that
 * failed (a failure is never "no match"). */
struct suggs {
	struct sugg *v;
	size_t n, cap;
	int err;
	char *err_path;
};

/* ---- configuration ------------------------------------------------------- */

static bool param_word(const char *w)
{
	if (!*w || *w == '=' || *w == '-')
		return false;
	for (; *w; w++)
		if ((unsigned char)*w <= ' ' || *w == '"' || *w == '\'' || *w == '\\' || *w == '$' || *w == '`')
			return false;
	return true;
}

int cmdline_check_key(const char *key, const char *value, char *why, size_t size)
{
	char w[WORD_MAX];
	size_t len;

	if (!strcmp(key, "match.vendor") || !strcmp(key, "match.product") || !strcmp(key, "match.disk"))
		return 0;
	if (strcmp(key, "add")) {
		snprintf(why, size, "unknown key '%s' in [cmdline]; allowed: add match.vendor match.product match.disk", key);
		return -EINVAL;
	}
	while ((len = next_word(&value, w, sizeof(w))))
		if (len >= sizeof(w) || !param_word(w)) {
			snprintf(why, size, "[cmdline] add: '%s' is not a kernel parameter (key or key=value, no quotes, spaces or shell characters)", w);
			return -EINVAL;
		}
	return 0;
}


static bool is_security(const char *param)
{
	_cleanup_(freep) char *key = strndup(param, strcspn(param, "="));

	for (const char *const *k = security_keys; key && *k; k++)
		if (kparam_key_eq(key, *k))
			return true;
	return false;
}

/* The first read that failed decides the command: it is reported, and
 * nothing is suggested or written on the strength of a partial view. */
static void read_failed(struct suggs *s, const char *rel, int r)
{
	if (s->err)
		return;
	s->err = r;
	s->err_path = strdup(rel);
}

/* ---- the target kernel ----------------------------------------------------- */

/* "NAME=y" on a line of its own in a kernel config. */
static bool kconfig_set(const char *cfg, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = cfg; (p = strstr(p, name)); p += n)
		if ((p == cfg || p[-1] == '\n') && !strncmp(p + n, "=y", 2) && (p[n + 2] == '\n' || !p[n + 2]))
			return true;
	return false;
}

/* The compiled-in THP default: /boot/config-VERSION, else the Kconfig default. */
static const char *thp_default(struct ctx *c, struct suggs *s, char **from)
{
	_cleanup_(freep) char *cfg = NULL;
	_cleanup_(freep) char *rel = xasprintf("boot/config-%s", c->kernel.release);
	int r = rel ? root_read_file(&c->root, rel, &cfg, 1 << 22) : -ENOMEM;

	if (r == -ENOENT || r == -ENOTDIR) {
		*from = xasprintf("no /boot/config-%s: assuming the Kconfig default", c->kernel.release);
		return "always";
	}
	if (r < 0) {
		read_failed(s, rel ? rel : "boot/config", r);
		return NULL;
	}
	*from = xasprintf("/boot/config-%s", c->kernel.release);
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
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct sugg *v = realloc(s->v, cap * sizeof(*v));

		if (!v) {
			s->err = s->err ? s->err : -ENOMEM;
			return NULL;
		}
		s->v = v;
		s->cap = cap;
	}
	x = &s->v[s->n];
	*x = (struct sugg){ .remove = remove, .risk = risk, .param = strdup(param) };
	x->source = e ? config_source(e) : NULL;
	if (!x->param) {
		free(x->source);
		s->err = s->err ? s->err : -ENOMEM;
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
	const char *dflt = thp_default(c, s, &from);
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
		s->err = s->err ? s->err : -ENOMEM;
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
		read_failed(s, rel ? rel : file, r);
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

static int disk_present(struct ctx *c, struct suggs *s, const char *globs)
{
	int r = each_word(globs, disk_hit, &c->root);

	if (r < 0)
		read_failed(s, "sys/block", r);
	return r;
}

static bool rule_matches(struct ctx *c, struct suggs *s, const char *name)
{
	const struct cfg_entry *v = config_get(&c->cfg, "cmdline", name, "match.vendor");
	const struct cfg_entry *p = config_get(&c->cfg, "cmdline", name, "match.product");
	const struct cfg_entry *d = config_get(&c->cfg, "cmdline", name, "match.disk");

	return (!v || dmi_matches(c, s, "sys_vendor", v->value) > 0) &&
	       (!p || dmi_matches(c, s, "product_name", p->value) > 0) &&
	       (!d || disk_present(c, s, d->value) > 0);
}

/* [cmdline "NAME"] rules whose matches hold, and [cmdline] add. */
static void suggest_rules(struct ctx *c, struct suggs *s)
{
	for (size_t i = 0; i < c->cfg.n; i++) {
		const struct cfg_entry *e = &c->cfg.v[i];
		char w[WORD_MAX];
		const char *p;

		if (strcmp(e->section, "cmdline") || strcmp(e->key, "add") ||
		    config_get(&c->cfg, "cmdline", e->name, "add") != e || !rule_matches(c, s, e->name))
			continue;
		/* The words were checked (< WORD_MAX) when the configuration was read. */
		for (p = e->value; next_word(&p, w, sizeof(w));) {
			bool sec = is_security(w);
			struct sugg *x = add_sugg(s, w, false, sec ? "high: security" : "low", e);

			if (!x)
				continue;
			x->security = sec;
			if (e->reason)
				set_why(x, "%s", e->reason);
			else
				set_why(x, "configured in [cmdline%s%s%s]", e->name ? " \"" : "",
					e->name ? e->name : "", e->name ? "\"" : "");
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
		s->err = s->err ? s->err : -ENOMEM;
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

/* 0, or the first read error (then s->err_path names it). */
static int collect(struct ctx *c, struct suggs *s)
{
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
	return s->err;
}

static void free_suggs(struct suggs *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].param);
		free(s->v[i].why);
		free(s->v[i].source);
	}
	free(s->v);
	free(s->err_path);
	*s = (struct suggs){ 0 };
}

/* The one log line of a failed collect. */
static int collect_logged(struct ctx *c, struct suggs *s)
{
	int r = collect(c, s);

	if (r < 0)
		log_msg(LOG_ERR, "cannot read %s/%s: %s", c->root.is_host ? "" : c->root.dir,
			s->err_path ? s->err_path : "", strerror(-r));
	return r;
}

/* ---- printing -------------------------------------------------------------- */

static void print_suggs(struct ctx *c, const struct suggs *s)
{
	struct strbuf sb = { 0 };
	bool first = true;

	if (!c->json) {
		for (size_t i = 0; i < s->n; i++) {
			const struct sugg *x = &s->v[i];

			if (!x->param[0])
				continue;
			printf("%-6s %-40s %-14s %s%s%s%s\n", x->remove ? "remove" : "add", x->param, x->risk,
			       x->why ? x->why : "", x->source ? " [" : "", x->source ? x->source : "",
			       x->source ? "]" : "");
			if (x->security)
				printf("warning: %s weakens the kernel's protection against CPU and memory attacks; "
				       "suggested only because the configuration asks for it\n", x->param);
		}
		return;
	}
	sb_printf(&sb, "{\"version\":1,\"command\":\"cmdline\",\"kernel\":");
	sb_json_str(&sb, c->kernel.release);
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
		sb_json_str(&sb, x->why ? x->why : "");
		sb_printf(&sb, ",\"source\":");
		sb_json_str(&sb, x->source);
		sb_printf(&sb, ",\"security\":%s}", x->security ? "true" : "false");
		first = false;
	}
	sb_printf(&sb, "]}\n");
	if (!sb.oom)
		fputs(sb.s, stdout);
	sb_free(&sb);
}

int cmd_cmdline_suggest(struct ctx *c)
{
	struct suggs s = { 0 };
	int r = collect_logged(c, &s);

	if (r >= 0)
		print_suggs(c, &s);
	free_suggs(&s);
	return r < 0 ? 1 : 0;
}

/* ---- files, written atomically ------------------------------------------- */

/* root_write_atomic, after creating the parent directories. */
static int write_atomic(const struct root *r, const char *rel, const char *content)
{
	_cleanup_(freep) char *dir = strdup(rel);
	int rr;

	if (!dir)
		return -ENOMEM;
	*strrchr(dir, '/') = '\0';
	rr = root_mkdir_p(r, dir, 0755);
	return rr < 0 ? rr : root_write_atomic(r, rel, content, strlen(content), 0644);
}

/* A whole text file: 0 with *out, -ENOENT when absent, else -errno (EFBIG
 * beyond FILE_MAX, EILSEQ for a NUL byte, which no editor here may cut at). */
static int read_text(const struct root *r, const char *rel, char **out)
{
	int n = root_read_file(r, rel, out, FILE_MAX);

	if (n == -ENOTDIR)
		return -ENOENT;
	if (n < 0)
		return n;
	if (strlen(*out) != (size_t)n) {
		free(*out);
		*out = NULL;
		return -EILSEQ;
	}
	return 0;
}

static int change_error(const char *what, const char *rel, int r)
{
	log_msg(LOG_ERR, "cannot %s /%s: %s", what, rel, strerror(-r));
	return r;
}

/* Someone else's edit of a file of earlytune's own is theirs to undo. */
static int edited(const char *rel)
{
	log_msg(LOG_ERR, "/%s was changed since earlytune wrote it: left alone; restore or delete it", rel);
	return -EEXIST;
}

static int read_error(const struct ctx *c, const char *rel, int r)
{
	log_msg(LOG_ERR, "cannot read %s/%s: %s; nothing changed", c->root.is_host ? "" : c->root.dir, rel,
		r == -EFBIG ? "larger than 1 MiB" : r == -EILSEQ ? "holds a NUL byte" :
		r == -EINVAL ? "not what earlytune wrote" : strerror(-r));
	return r;
}

/* ---- state: what earlytune added, per backend ------------------------------- */

/* One line: BACKEND TAB PARAMS [TAB created[:HEX]]. HEX is the exact bytes
 * of a file earlytune created (kernel-install): remove may delete the file
 * only while it still holds exactly those. */
struct added {
	char backend[32];
	char *params; /* space-separated, never NULL */
	bool created;
	char *wrote;  /* what earlytune created the file with, or NULL */
};

static const char *const backends[] = { "ostree", "bls", "grub", "kernel-install", "uki", NULL };

static bool known_backend(const char *b)
{
	for (const char *const *k = backends; *k; k++)
		if (!strcmp(*k, b))
			return true;
	return false;
}

static void added_free(struct added *a)
{
	free(a->params);
	free(a->wrote);
	*a = (struct added){ .params = NULL };
}

static char *hex_encode(const char *s)
{
	size_t n = strlen(s);
	char *out = malloc(2 * n + 1);

	for (size_t i = 0; out && i < n; i++)
		sprintf(out + 2 * i, "%02x", (unsigned char)s[i]);
	if (out)
		out[2 * n] = '\0';
	return out;
}

static int hexval(char x)
{
	return x <= '9' ? x - '0' : x - 'a' + 10;
}

static int hex_decode(const char *h, char **out)
{
	size_t n = strlen(h);
	char *s;

	if (n % 2 || strspn(h, "0123456789abcdef") != n)
		return -EINVAL;
	s = malloc(n / 2 + 1);
	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < n / 2; i++)
		s[i] = (char)(hexval(h[2 * i]) << 4 | hexval(h[2 * i + 1]));
	s[n / 2] = '\0';
	if (strlen(s) != n / 2) {
		free(s);
		return -EINVAL;
	}
	*out = s;
	return 0;
}

static int parse_state(char *buf, struct added *a)
{
	char *f[4] = { NULL }, *save = NULL;
	size_t n = 0;

	buf[strcspn(buf, "\n")] = '\0';
	for (char *t = strtok_r(buf, "\t", &save); t && n < 4; t = strtok_r(NULL, "\t", &save))
		f[n++] = t;
	if (n < 2 || strlen(f[0]) >= sizeof(a->backend) || !known_backend(f[0]))
		return -EINVAL;
	snprintf(a->backend, sizeof(a->backend), "%s", f[0]);
	a->params = strdup(strip(f[1]));
	if (!a->params)
		return -ENOMEM;
	if (f[2] && strncmp(f[2], "created", 7))
		return -EINVAL;
	a->created = f[2] != NULL;
	if (f[2] && f[2][7] == ':')
		return hex_decode(f[2] + 8, &a->wrote);
	return f[2] && f[2][7] ? -EINVAL : 0;
}

/* 1 with *a filled, 0 when nothing is recorded, -errno when that cannot be
 * told (unreadable or malformed: never "nothing recorded"). */
static int load_state(const struct root *r, struct added *a)
{
	_cleanup_(freep) char *buf = NULL;
	int rr;

	*a = (struct added){ .params = strdup("") };
	if (!a->params)
		return -ENOMEM;
	rr = read_text(r, STATE, &buf);
	if (rr == -ENOENT)
		return 0;
	if (rr < 0)
		return rr;
	if (!*strip(buf))
		return 0;
	free(a->params);
	a->params = NULL;
	rr = parse_state(buf, a);
	if (rr < 0) {
		added_free(a);
		a->params = strdup("");
		return a->params ? rr : -ENOMEM;
	}
	return 1;
}

static int save_state(const struct root *r, const struct added *a)
{
	_cleanup_(freep) char *hex = a->wrote ? hex_encode(a->wrote) : NULL;
	_cleanup_(freep) char *line = NULL;

	if (!*a->params) {
		int rr = root_unlink(r, STATE, 0);

		return rr == -ENOENT ? 0 : rr;
	}
	if (a->wrote && !hex)
		return -ENOMEM;
	line = xasprintf("%s\t%s%s%s%s\n", a->backend, a->params, a->created ? "\tcreated" : "",
			 hex ? ":" : "", hex ? hex : "");
	return line ? write_atomic(r, STATE, line) : -ENOMEM;
}

/* State before the bootloader: what apply is about to add is recorded
 * first, so a failed state write changes nothing and a failed bootloader
 * write leaves at most a record remove handles. */
static int record_first(struct ctx *c, const struct added *next)
{
	int r = save_state(&c->root, next);

	if (r < 0)
		log_msg(LOG_ERR, "cannot record the parameters in %s: %s; nothing changed", STATE, strerror(-r));
	return r;
}

/* After a failed bootloader write: the record goes back to what it was,
 * but only when the bootloader provably holds nothing new (a write can fail
 * after its rename, in the directory fsync; grubby can fail halfway): a
 * record of words that are not there is harmless, words without one are not. */
static void record_undo(struct ctx *c, const struct added *prev, bool unchanged)
{
	int r = unchanged ? save_state(&c->root, prev) : 0;

	if (r < 0)
		log_msg(LOG_ERR, "cannot restore %s: %s; `earlytune cmdline remove` removes what it records",
			STATE, strerror(-r));
}

/* rel still holds old (NULL: still absent); a failed read says no. */
static bool still(const struct root *r, const char *rel, const char *old)
{
	_cleanup_(freep) char *now = NULL;
	int rr = read_text(r, rel, &now);

	return old ? rr >= 0 && !strcmp(now, old) : rr == -ENOENT;
}

/* prev with more params (space-joined); backend and created facts as given. */
static int added_next(const struct added *prev, const char *backend, const char *more, struct added *next)
{
	*next = (struct added){ .created = prev->created };
	snprintf(next->backend, sizeof(next->backend), "%s", backend);
	next->params = xasprintf("%s%s%s", prev->params, *prev->params && *more ? " " : "", more);
	return next->params ? 0 : -ENOMEM;
}

/* ---- backends ---------------------------------------------------------------- */

static int any_file(const struct root *r, const char *dir, const char *pattern)
{
	int n = root_match(r, dir, pattern, NULL, NULL);

	return n < 0 ? n : n > 0;
}

/* 0 with *out set (or NULL when nothing is found), -errno when a path that
 * decides it cannot be examined: unreadable is not "no such bootloader". */
static int detect_backend(const struct root *r, const char **out)
{
	static const struct {
		const char *name, *path, *pattern;
	} probes[] = {
		{ "ostree", "run/ostree-booted", NULL }, { "ostree", "ostree/repo", NULL },
		{ "bls", "boot/loader/entries", "*.conf" }, { "grub", "etc/default/grub", NULL },
		{ "kernel-install", KINSTALL, NULL }, { "uki", "boot/EFI/Linux", "*.efi" },
		{ "uki", "efi/EFI/Linux", "*.efi" },
	};

	*out = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(probes); i++) {
		int hit = probes[i].pattern ? any_file(r, probes[i].path, probes[i].pattern)
					    : root_access(r, probes[i].path);

		if (hit < 0) {
			log_msg(LOG_ERR, "cannot examine %s/%s: %s: name the bootloader with --backend",
				r->is_host ? "" : r->dir, probes[i].path, strerror(-hit));
			return hit;
		}
		if (hit) {
			*out = probes[i].name;
			return 0;
		}
	}
	return 0;
}

/* fork/exec by argv, never a shell; the fds in keep are inherited. */
static int run_argv(char *const argv[], const int *keep, size_t nkeep)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		for (size_t i = 0; i < nkeep; i++)
			if (fcntl(keep[i], F_SETFD, 0) < 0)
				_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
		return -ENOENT;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -EIO;
}

/* Under --root no entry may be a symlink: grubby would follow it out of
 * the image (its paths are not confined the way earlytune's opens are). */
static int entries_confined(const struct ctx *c, int dfd)
{
	int fd = dup(dfd);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;
	int r = 0;

	if (!d) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		return r;
	}
	for (errno = 0; (de = readdir(d)); errno = 0) {
		struct stat st;

		if (fnmatch("*.conf", de->d_name, 0) || fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISLNK(st.st_mode))
			continue;
		log_msg(LOG_ERR, "%s/boot/loader/entries/%s is a symbolic link: grubby would follow it out of "
				 "the image", c->root.dir, de->d_name);
		r = -ELOOP;
		break;
	}
	if (!r && errno)
		r = -errno;
	closedir(d);
	return r;
}

/* grubby over BLS entries: by argv, never a shell. Under --root it gets the
 * image's directories as inherited fds opened inside the root
 * (/proc/self/fd/N: an absolute symlink in the image cannot lead it to the
 * host's), the image's grubenv, and --no-etc-grub-update: otherwise
 * --update-kernel=ALL rewrites the host's /etc/default/grub and grubenv. */
struct grubby {
	int dir, env; /* -1 on the host */
};

static void grubby_close(struct grubby *g)
{
	closep(&g->dir);
	closep(&g->env);
}

static int grubby_open_dirs(struct ctx *c, struct grubby *g)
{
	int r;

	*g = (struct grubby){ -1, -1 };
	if (c->root.is_host)
		return 0;
	g->dir = root_openat(&c->root, "boot/loader/entries", O_RDONLY | O_DIRECTORY, 0);
	if (g->dir < 0)
		return g->dir;
	r = entries_confined(c, g->dir);
	if (r < 0)
		return r;
	g->env = root_openat(&c->root, "boot/grub2", O_PATH | O_DIRECTORY, 0);
	if (g->env == -ENOENT)
		g->env = root_openat(&c->root, "boot", O_PATH | O_DIRECTORY, 0);
	return g->env < 0 ? g->env : 0;
}

/* Opens (and checks) what grubby will be given, before anything is written. */
static int grubby_open(struct ctx *c, struct grubby *g)
{
	int r = grubby_open_dirs(c, g);

	if (r < 0 && r != -ELOOP) /* ELOOP: entries_confined said which entry */
		log_msg(LOG_ERR, "grubby: cannot open the image's entries: %s", strerror(-r));
	return r;
}

static int grubby_run(const struct grubby *g, const char *flag, const char *params)
{
	_cleanup_(freep) char *arg = xasprintf("%s=%s", flag, params), *bls = NULL, *env = NULL;
	char *argv[7] = { "grubby", "--update-kernel=ALL", arg };
	int keep[2] = { g->dir, g->env };

	if (!arg)
		return -ENOMEM;
	if (g->dir < 0)
		return run_argv(argv, NULL, 0);
	bls = xasprintf("--bls-directory=/proc/self/fd/%d", g->dir);
	env = xasprintf("--env=/proc/self/fd/%d/grubenv", g->env);
	if (!bls || !env)
		return -ENOMEM;
	argv[3] = bls;
	argv[4] = env;
	argv[5] = "--no-etc-grub-update";
	return run_argv(argv, keep, 2);
}

struct bls_ctx {
	const struct root *r;
	struct strbuf sb;
	int err;
	char *err_path;
};

static void bls_entry(const char *rel, void *data)
{
	struct bls_ctx *bc = data;
	_cleanup_(freep) char *buf = NULL;
	char *line, *save = NULL;
	int r;

	if (bc->err)
		return;
	r = read_text(bc->r, rel, &buf);
	if (r < 0) {
		bc->err = r;
		bc->err_path = strdup(rel);
		return;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "options", 7) && (kparam_space(line[7]) || !line[7]))
			sb_printf(&bc->sb, " %s", line + 7);
}

/* The parameters of every BLS entry's options line, joined; an entry that
 * cannot be read fails it (logged here). */
static int bls_options(struct ctx *c, char **out)
{
	struct bls_ctx bc = { &c->root, { 0 }, 0, NULL };
	int n = root_match(&c->root, "boot/loader/entries", "*.conf", bls_entry, &bc);

	if (n < 0 && !bc.err)
		bc.err = n;
	if (bc.err)
		read_error(c, bc.err_path ? bc.err_path : "boot/loader/entries", bc.err);
	else if (bc.sb.oom)
		bc.err = -ENOMEM;
	free(bc.err_path);
	if (bc.err) {
		sb_free(&bc.sb);
		return bc.err;
	}
	*out = bc.sb.s ? bc.sb.s : strdup("");
	return *out ? 0 : -ENOMEM;
}

static const char *grub_update_cmd(void)
{
	return "update-grub";
}

/* ---- apply / remove / verify ------------------------------------------------ */

/* Human lines; with --json the same facts go into one object instead. */
_printf_(2, 3) static void say(const struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->json)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

static void json_result(const struct ctx *c, const char *command, const char *backend, const char *key,
			const char *params, const char *hint)
{
	struct strbuf sb = { 0 };

	sb_printf(&sb, "{\"version\":1,\"command\":");
	sb_json_str(&sb, command);
	sb_printf(&sb, ",\"kernel\":");
	sb_json_str(&sb, c->kernel.release);
	sb_printf(&sb, ",\"backend\":");
	sb_json_str(&sb, backend);
	sb_printf(&sb, ",\"%s\":", key);
	sb_json_str(&sb, params);
	sb_printf(&sb, ",\"next\":");
	sb_json_str(&sb, hint);
	sb_printf(&sb, "}\n");
	if (!sb.oom)
		fputs(sb.s, stdout);
	sb_free(&sb);
}

/* The parameters to add, space-separated, into *out. */
static int wanted_params(struct ctx *c, char **out)
{
	struct suggs s = { 0 };
	struct strbuf sb = { 0 };
	int r = collect_logged(c, &s);

	for (size_t i = 0; r >= 0 && i < s.n; i++) {
		if (s.v[i].remove || !s.v[i].param[0] || (sb.s && kcmd_has(sb.s, s.v[i].param)))
			continue;
		if (s.v[i].security)
			log_msg(LOG_WARN, "warning: adding %s, which weakens the kernel's protection (configured)", s.v[i].param);
		sb_printf(&sb, "%s%s", sb.len ? " " : "", s.v[i].param);
	}
	free_suggs(&s);
	if (r >= 0 && sb.oom)
		r = -ENOMEM;
	if (r < 0) {
		sb_free(&sb);
		return r;
	}
	*out = sb.s ? sb.s : strdup("");
	return *out ? 0 : -ENOMEM;
}

struct apply {
	struct ctx *c;
	const char *backend;
	const char *params;   /* wanted */
	struct added *prev;   /* recorded before */
	struct added next;    /* recorded after */
	const char *shown;    /* what the human line names */
	bool changed;
	struct strbuf *next_step;
};

static int apply_ostree(struct apply *ap)
{
	const char *w;
	size_t n;

	sb_printf(ap->next_step, "rpm-ostree kargs");
	for (const char *p = ap->params; (w = kcmd_word(&p, &n));)
		sb_printf(ap->next_step, kcmd_needs_quotes(w, n) ? " '--append-if-missing=%.*s'" : " --append-if-missing=%.*s",
			  (int)n, w);
	say(ap->c, "ostree/bootc systems keep kernel arguments in the deployment; run:\n  %s\n", ap->next_step->s);
	return 0;
}

static int apply_bls(struct apply *ap)
{
	_cleanup_(freep) char *have = NULL, *add = NULL;
	struct grubby g;
	int r = bls_options(ap->c, &have);

	if (r < 0)
		return r;
	r = kcmd_missing(have, ap->params, &add);
	if (r < 0 || !*add)
		return r;
	r = grubby_open(ap->c, &g);
	if (r >= 0)
		r = added_next(ap->prev, "bls", add, &ap->next);
	if (r >= 0 && (r = record_first(ap->c, &ap->next)) >= 0) {
		r = grubby_run(&g, "--args", add);
		if (r < 0) {
			_cleanup_(freep) char *now = NULL, *left = NULL;

			log_msg(LOG_ERR, "grubby --update-kernel=ALL --args='%s' failed: %s", add, strerror(-r));
			record_undo(ap->c, ap->prev, bls_options(ap->c, &now) >= 0 &&
							     kcmd_missing(now, add, &left) >= 0 && !strcmp(left, add));
		}
	}
	grubby_close(&g);
	if (r < 0)
		return r;
	ap->changed = true;
	return 0;
}

/* Debian/Ubuntu GRUB: earlytune's own drop-in, appending to
 * GRUB_CMDLINE_LINUX_DEFAULT so what cloud images assign in
 * 50-cloudimg-settings.cfg stays. It carries everything earlytune added,
 * booted or not. A drop-in someone edited is not overwritten. */
static int apply_grub(struct apply *ap)
{
	_cleanup_(freep) char *old = NULL, *was = NULL, *more = NULL, *body = NULL;
	int r = read_text(&ap->c->root, GRUB_DROPIN, &old);

	if (r < 0 && r != -ENOENT)
		return read_error(ap->c, GRUB_DROPIN, r);
	r = grub_dropin_body(ap->prev->params, &was);
	if (r >= 0 && old && strcmp(old, was)) {
		return edited(GRUB_DROPIN);
	}
	if (r >= 0)
		r = kcmd_missing(ap->prev->params, ap->params, &more);
	if (r >= 0)
		r = added_next(ap->prev, "grub", more, &ap->next);
	if (r >= 0)
		r = grub_dropin_body(ap->next.params, &body);
	if (r < 0)
		return r;
	ap->shown = ap->next.params;
	if (old && !strcmp(old, body))
		return 0;
	r = record_first(ap->c, &ap->next);
	if (r < 0)
		return r;
	r = write_atomic(&ap->c->root, GRUB_DROPIN, body);
	if (r < 0) {
		log_msg(LOG_ERR, "cannot write /%s: %s", GRUB_DROPIN, strerror(-r));
		record_undo(ap->c, ap->prev, still(&ap->c->root, GRUB_DROPIN, old));
		return r;
	}
	ap->changed = true;
	return 0;
}

/* Without /etc/kernel/cmdline kernel-install takes /usr/lib/kernel/cmdline,
 * else /proc/cmdline: a new file starts from that, or new kernels lose
 * root=. Any read that fails is the end of it. */
static int kinstall_seed(struct ctx *c, char **out)
{
	_cleanup_(freep) char *proc = NULL;
	int r = read_text(&c->root, "usr/lib/kernel/cmdline", out);

	if (r != -ENOENT)
		return r < 0 ? read_error(c, "usr/lib/kernel/cmdline", r) : 0;
	r = read_text(&c->root, "proc/cmdline", &proc);
	if (r < 0) {
		log_msg(LOG_ERR, "no /%s to edit, and /proc/cmdline: %s: create /%s first", KINSTALL,
			strerror(-r), KINSTALL);
		return r;
	}
	return kcmd_base(proc, out);
}

/* The assertion before earlytune writes a command line: every parameter it
 * did not add is still there, in order, and an add never shortens it. */
static int edit_checked(const char *old, const char *new, const char *words, bool adding)
{
	if (kcmd_kept(old, new, words) < 0 || (adding && strlen(new) < strlen(old))) {
		log_msg(LOG_ERR, "internal error: editing /%s would lose parameters; nothing changed", KINSTALL);
		return -EPROTO;
	}
	return 0;
}

/* kernel-install: /etc/kernel/cmdline. Edits keep every other byte. */
static int apply_kinstall(struct apply *ap)
{
	_cleanup_(freep) char *old = NULL, *add = NULL, *new = NULL;
	bool created = false;
	int r = read_text(&ap->c->root, KINSTALL, &old);

	if (r == -ENOENT) {
		created = true;
		r = kinstall_seed(ap->c, &old);
		if (r < 0)
			return r;
	} else if (r < 0) {
		return read_error(ap->c, KINSTALL, r);
	}
	r = kcmd_missing(old, ap->params, &add);
	if (r < 0 || !*add)
		return r;
	r = kcmd_add(old, add, &new);
	if (r == -EINVAL)
		log_msg(LOG_ERR, "/%s ends inside a double quote; nothing changed", KINSTALL);
	if (r >= 0)
		r = edit_checked(old, new, add, true);
	if (r >= 0)
		r = added_next(ap->prev, "kernel-install", add, &ap->next);
	if (r < 0)
		return r;
	/* Delete-on-remove stays possible only while the file is ours unchanged. */
	ap->next.created = created || (ap->prev->wrote && !strcmp(old, ap->prev->wrote));
	ap->next.wrote = ap->next.created ? strdup(new) : NULL;
	if (ap->next.created && !ap->next.wrote)
		return -ENOMEM;
	r = record_first(ap->c, &ap->next);
	if (r < 0)
		return r;
	r = write_atomic(&ap->c->root, KINSTALL, new);
	if (r < 0) {
		log_msg(LOG_ERR, "cannot write /%s: %s", KINSTALL, strerror(-r));
		record_undo(ap->c, ap->prev, still(&ap->c->root, KINSTALL, created ? NULL : old));
		return r;
	}
	ap->changed = true;
	return 0;
}

static int apply_backend(struct apply *ap, bool update)
{
	struct ctx *c = ap->c;
	int r;

	if (!strcmp(ap->backend, "ostree"))
		return apply_ostree(ap);
	if (!strcmp(ap->backend, "uki")) {
		log_msg(LOG_ERR, "unified kernel images embed their command line when they are built: "
				 "nothing earlytune can edit. Add '%s' to the UKI build (ukify --cmdline, or "
				 "/etc/kernel/cmdline for kernel-install) and rebuild", ap->params);
		return -EOPNOTSUPP;
	}
	r = !strcmp(ap->backend, "bls") ? apply_bls(ap) : !strcmp(ap->backend, "grub") ? apply_grub(ap)
											: apply_kinstall(ap);
	if (r < 0)
		return r;
	say(c, "%s: %s%s\n", ap->backend, ap->changed ? "added " : "already in place: ", ap->shown);
	if (strcmp(ap->backend, "grub") || !ap->changed) {
		sb_printf(ap->next_step, "reboot");
		return 0;
	}
	if (update && c->root.is_host) {
		char *argv[] = { (char *)grub_update_cmd(), NULL };

		r = run_argv(argv, NULL, 0);
		if (r < 0)
			log_msg(LOG_ERR, "%s failed: %s", grub_update_cmd(), strerror(-r));
		return r;
	}
	sb_printf(ap->next_step, "%s", grub_update_cmd());
	say(c, "run %s%s to regenerate grub.cfg; the parameters take effect at the next boot\n",
	    c->root.is_host ? "" : "(in the image) ", grub_update_cmd());
	return 0;
}

static int state_loaded(struct ctx *c, struct added *a)
{
	int r = load_state(&c->root, a);

	return r < 0 ? read_error(c, STATE, r) : r;
}

int cmd_cmdline_apply(struct ctx *c, const char *backend, bool update)
{
	_cleanup_(freep) char *params = NULL;
	struct strbuf next = { 0 };
	struct added a;
	struct apply ap = { .c = c };
	int r;

	if (backend && !known_backend(backend)) {
		log_msg(LOG_ERR, "--backend: unknown '%s'; backends: ostree bls grub kernel-install uki", backend);
		return 2;
	}
	if (!backend && detect_backend(&c->root, &backend) < 0)
		return 1;
	if (!backend) {
		log_msg(LOG_ERR, "no bootloader configuration found (ostree, BLS entries, /etc/default/grub, "
				 "/etc/kernel/cmdline, a UKI): name one with --backend");
		return 1;
	}
	if (wanted_params(c, &params) < 0)
		return 1;
	if (state_loaded(c, &a) < 0) {
		added_free(&a);
		return 1;
	}
	if (*a.backend && strcmp(a.backend, backend)) {
		log_msg(LOG_ERR, "earlytune's parameters are integrated with %s; run `earlytune cmdline remove` first",
			a.backend);
		added_free(&a);
		return 1;
	}
	if (!*params) {
		say(c, "nothing to add for kernel %s\n", c->kernel.release);
		if (c->json)
			json_result(c, "cmdline apply", backend, "added", "", NULL);
		added_free(&a);
		return 0;
	}
	ap = (struct apply){ .c = c, .backend = backend, .params = params, .prev = &a, .shown = params,
			     .next_step = &next };
	r = apply_backend(&ap, update);
	if (r == -ENOMEM)
		log_msg(LOG_ERR, "cmdline apply: %s; nothing changed", strerror(-r));
	if (c->json && r >= 0)
		json_result(c, "cmdline apply", backend, "added", params, next.s);
	sb_free(&next);
	added_free(&ap.next);
	added_free(&a);
	return r < 0 ? 1 : 0;
}

/* The drop-in is earlytune's own: deleted while it holds exactly what
 * earlytune wrote; an edited one is left to whoever edited it. */
static int remove_grub(struct ctx *c, const struct added *a, bool *changed)
{
	_cleanup_(freep) char *old = NULL, *was = NULL;
	int r = read_text(&c->root, GRUB_DROPIN, &old);

	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return read_error(c, GRUB_DROPIN, r);
	r = grub_dropin_body(a->params, &was);
	if (r < 0)
		return r;
	if (strcmp(old, was))
		return edited(GRUB_DROPIN);
	r = root_unlink(&c->root, GRUB_DROPIN, 0);
	*changed = r >= 0;
	return r >= 0 || r == -ENOENT ? 0 : change_error("delete", GRUB_DROPIN, r);
}

/* Takes out exactly the words earlytune added, from whatever the file holds
 * now; deletes it only while it is byte for byte what earlytune created. */
static int remove_kinstall(struct ctx *c, const struct added *a, bool *changed)
{
	_cleanup_(freep) char *old = NULL, *new = NULL;
	int r = read_text(&c->root, KINSTALL, &old);

	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return read_error(c, KINSTALL, r);
	if (a->wrote && !strcmp(old, a->wrote)) {
		r = root_unlink(&c->root, KINSTALL, 0);
		if (r >= 0)
			root_unlink(&c->root, "etc/kernel", AT_REMOVEDIR); /* only if now empty */
		*changed = r >= 0;
		return r >= 0 || r == -ENOENT ? 0 : change_error("delete", KINSTALL, r);
	}
	r = kcmd_remove(old, a->params, &new);
	if (r < 0)
		return change_error("edit", KINSTALL, r);
	r = edit_checked(old, new, a->params, false);
	if (r < 0 || !strcmp(old, new))
		return r;
	*changed = true;
	r = write_atomic(&c->root, KINSTALL, new);
	return r < 0 ? change_error("write", KINSTALL, r) : 0;
}

static int remove_bls(struct ctx *c, const struct added *a)
{
	struct grubby g;
	int r = grubby_open(c, &g);

	if (r >= 0) {
		r = grubby_run(&g, "--remove-args", a->params);
		if (r < 0)
			log_msg(LOG_ERR, "grubby --update-kernel=ALL --remove-args='%s' failed: %s", a->params, strerror(-r));
	}
	grubby_close(&g);
	return r;
}

int cmd_cmdline_remove(struct ctx *c)
{
	struct added a, none = { .params = "" };
	bool changed = false;
	int r = state_loaded(c, &a);

	if (r < 0) {
		added_free(&a);
		return 1;
	}
	if (!r || !*a.params) {
		say(c, "nothing earlytune added is recorded\n");
		if (c->json)
			json_result(c, "cmdline remove", NULL, "removed", "", NULL);
		added_free(&a);
		return 0;
	}
	if (!strcmp(a.backend, "grub"))
		r = remove_grub(c, &a, &changed);
	else if (!strcmp(a.backend, "bls"))
		r = remove_bls(c, &a);
	else if (!strcmp(a.backend, "kernel-install"))
		r = remove_kinstall(c, &a, &changed);
	if (r < 0) {
		added_free(&a);
		return 1;
	}
	say(c, "%s: removed %s\n", a.backend, a.params);
	if (!strcmp(a.backend, "grub") && changed)
		say(c, "run %s to regenerate grub.cfg\n", grub_update_cmd());
	if (c->json)
		json_result(c, "cmdline remove", a.backend, "removed", a.params,
			    !strcmp(a.backend, "grub") ? grub_update_cmd() : "reboot");
	r = save_state(&c->root, &none);
	if (r < 0)
		log_msg(LOG_ERR, "cannot clear /%s: %s", STATE, strerror(-r));
	added_free(&a);
	return r < 0 ? 1 : 0;
}

/* Integrated but not booted yet, or suggested but nowhere: exit 1. */
int cmd_cmdline_verify(struct ctx *c)
{
	_cleanup_(freep) char *params = NULL;
	struct strbuf js = { 0 };
	struct added a;
	const char *w, *sep = "";
	size_t n;
	int bad = 0, r;

	if (wanted_params(c, &params) < 0)
		return 1;
	r = state_loaded(c, &a);
	if (r < 0) {
		added_free(&a);
		return 1;
	}
	sb_printf(&js, "{\"version\":1,\"command\":\"cmdline verify\",\"kernel\":");
	sb_json_str(&js, c->kernel.release);
	sb_printf(&js, ",\"backend\":");
	sb_json_str(&js, *a.backend ? a.backend : NULL);
	sb_printf(&js, ",\"pending\":[");
	for (const char *p = a.params; (w = kcmd_word(&p, &n));) {
		_cleanup_(freep) char *word = strndup(w, n);

		if (!word || kparam_has_param(c->kernel.cmdline, word))
			continue;
		if (!c->json)
			printf("pending: %s is in the %s configuration but not in /proc/cmdline: reboot\n", word, a.backend);
		sb_printf(&js, "%s", bad++ ? "," : "");
		sb_json_str(&js, word);
	}
	sb_printf(&js, "],\"missing\":[");
	for (const char *p = params; (w = kcmd_word(&p, &n));) {
		_cleanup_(freep) char *word = strndup(w, n);

		if (!word || kcmd_has(a.params, word))
			continue;
		if (!c->json)
			printf("missing: %s is suggested but neither booted nor integrated: earlytune cmdline apply\n", word);
		sb_printf(&js, "%s", sep);
		sb_json_str(&js, word);
		sep = ",";
		bad++;
	}
	sb_printf(&js, "],\"in_force\":%s}\n", bad ? "false" : "true");
	if (c->json && !js.oom)
		fputs(js.s, stdout);
	else if (!c->json)
		printf("cmdline: %s\n", bad ? "reboot pending or parameters missing" : "in force");
	sb_free(&js);
	added_free(&a);
	return bad ? 1 : 0;
}
