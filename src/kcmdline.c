// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * `earlytune cmdline`: kernel command-line suggestions for a kernel version,
 * and their integration with the bootloader (ostree, BLS with grubby, Debian
 * GRUB drop-in, kernel-install, UKI). earlytune records exactly what it
 * added in /var/lib/earlytune/cmdline.state and removes exactly that.
 */
#include <errno.h>
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
#define MAX_SUGG 64

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
	char param[256];
	bool remove;
	bool security;
	char why[320];
	const char *risk;
	char *source;
};

struct suggs {
	struct sugg v[MAX_SUGG];
	size_t n;
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
	char key[128];

	snprintf(key, sizeof(key), "%.*s", (int)strcspn(param, "="), param);
	for (const char *const *k = security_keys; *k; k++)
		if (cmdline_key_eq(key, *k))
			return true;
	return false;
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
static const char *thp_default(struct ctx *c, char *from, size_t size)
{
	_cleanup_(freep) char *cfg = NULL;
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "boot/config-%s", c->kernel.release);
	if (root_read_file(&c->root, rel, &cfg, 1 << 22) < 0) {
		snprintf(from, size, "no /boot/config-%s: assuming the Kconfig default", c->kernel.release);
		return "always";
	}
	snprintf(from, size, "/boot/config-%s", c->kernel.release);
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
	if (s->n == MAX_SUGG)
		return NULL;
	x = &s->v[s->n++];
	*x = (struct sugg){ .remove = remove, .risk = risk };
	snprintf(x->param, sizeof(x->param), "%s", param);
	x->source = e ? config_source(e) : NULL;
	return x;
}

static void suggest_thp(struct ctx *c, struct suggs *s)
{
	const struct cfg_entry *e = config_get(&c->cfg, "thp", NULL, "enabled");
	char from[PATH_MAX + 64], p[64];
	const char *dflt = thp_default(c, from, sizeof(from));
	struct sugg *x;

	if (!e || !dflt || !strcmp(e->value, dflt))
		return;
	snprintf(p, sizeof(p), "transparent_hugepage=%s", e->value);
	x = add_sugg(s, p, false, "low", e);
	if (x)
		snprintf(x->why, sizeof(x->why), "THP %s from the first page fault, before earlytune runs and on boots without an initramfs (compiled default: %s; %s)",
			 e->value, dflt, from);
}

/* thp_anon= (6.12+): the per-size policies of [thp] size.NkB.enabled. */
static void suggest_thp_anon(struct ctx *c, struct suggs *s)
{
	char p[256] = "thp_anon=", one[48];
	const struct cfg_entry *last = NULL;
	struct sugg *x;

	if (c->kernel.version < KV(6, 12))
		return;
	for (size_t i = 0; i < c->cfg.n; i++) {
		const struct cfg_entry *e = &c->cfg.v[i];
		unsigned long long kb;

		if (strcmp(e->section, "thp") || strncmp(e->key, "size.", 5) ||
		    config_get(&c->cfg, "thp", NULL, e->key) != e ||
		    sscanf(e->key, "size.%llukB.enabled", &kb) != 1 || !strcmp(e->value, "never"))
			continue;
		snprintf(one, sizeof(one), "%s%lluK:%s", last ? ";" : "", kb, e->value);
		if (strlen(p) + strlen(one) < sizeof(p))
			strcat(p, one);
		last = e;
	}
	if (!last)
		return;
	x = add_sugg(s, p, false, "low", last);
	if (x)
		snprintf(x->why, sizeof(x->why), "multi-size THP policy from boot (Linux 6.12+; sizes not named stay never)");
}

static bool dmi_matches(struct ctx *c, const char *file, const char *globs)
{
	char rel[PATH_MAX], have[256], w[WORD_MAX];
	const char *p = globs;

	snprintf(rel, sizeof(rel), "sys/class/dmi/id/%s", file);
	if (root_read(&c->root, rel, have, sizeof(have)) <= 0)
		return false;
	/* DMI strings have spaces: the whole value is one pattern too. */
	if (fnmatch(globs, have, 0) == 0)
		return true;
	while (next_word(&p, w, sizeof(w)))
		if (fnmatch(w, have, 0) == 0)
			return true;
	return false;
}

static bool disk_present(struct ctx *c, const char *globs)
{
	char w[WORD_MAX];
	bool hit = false;

	while (!hit && next_word(&globs, w, sizeof(w)))
		hit = root_match(&c->root, "sys/block", w, NULL, NULL) > 0;
	return hit;
}

static bool rule_matches(struct ctx *c, const char *name)
{
	const struct cfg_entry *v = config_get(&c->cfg, "cmdline", name, "match.vendor");
	const struct cfg_entry *p = config_get(&c->cfg, "cmdline", name, "match.product");
	const struct cfg_entry *d = config_get(&c->cfg, "cmdline", name, "match.disk");

	return (!v || dmi_matches(c, "sys_vendor", v->value)) &&
	       (!p || dmi_matches(c, "product_name", p->value)) && (!d || disk_present(c, d->value));
}

/* [cmdline "NAME"] rules whose matches hold, and [cmdline] add. */
static void suggest_rules(struct ctx *c, struct suggs *s)
{
	for (size_t i = 0; i < c->cfg.n; i++) {
		const struct cfg_entry *e = &c->cfg.v[i];
		char w[WORD_MAX];
		const char *p;

		if (strcmp(e->section, "cmdline") || strcmp(e->key, "add") ||
		    config_get(&c->cfg, "cmdline", e->name, "add") != e || !rule_matches(c, e->name))
			continue;
		for (p = e->value; next_word(&p, w, sizeof(w));) {
			bool sec = is_security(w);
			struct sugg *x = add_sugg(s, w, false, sec ? "high: security" : "low", e);

			if (!x)
				continue;
			x->security = sec;
			if (e->reason)
				snprintf(x->why, sizeof(x->why), "%s", e->reason);
			else
				snprintf(x->why, sizeof(x->why), "configured in [cmdline%s%s%s]", e->name ? " \"" : "",
					 e->name ? e->name : "", e->name ? "\"" : "");
		}
	}
}

struct stale_ctx {
	struct ctx *c;
	struct suggs *s;
};

/* Parameters in /proc/cmdline that do nothing now, or fight the configuration. */
static int check_stale(const char *key, const char *val, void *data)
{
	struct stale_ctx *sc = data;
	char p[512];
	struct sugg *x;

	snprintf(p, sizeof(p), "%s%s%s", key, val ? "=" : "", val ? val : "");
	if (cmdline_key_eq(key, "elevator")) {
		x = add_sugg(sc->s, p, true, "none", NULL);
		if (x)
			snprintf(x->why, sizeof(x->why), "no effect since Linux 5.0 (blk-mq; ignored, and warned about since 5.5): earlytune sets the scheduler per disk");
	} else if (cmdline_key_eq(key, "scsi_mod.use_blk_mq") || cmdline_key_eq(key, "dm_mod.use_blk_mq")) {
		x = add_sugg(sc->s, p, true, "none", NULL);
		if (x)
			snprintf(x->why, sizeof(x->why), "the legacy block layer it chose between was removed in Linux 5.0");
	}
	return 0;
}

/* Only the last transparent_hugepage= is in force: that one is judged. */
static void check_thp_param(struct ctx *c, struct suggs *s)
{
	const struct cfg_entry *thp = config_get(&c->cfg, "thp", NULL, "enabled");
	char val[64], p[96];
	struct sugg *x;

	if (!thp || !cmdline_get(c->kernel.cmdline, "transparent_hugepage", val, sizeof(val)) ||
	    !strcmp(val, thp->value))
		return;
	snprintf(p, sizeof(p), "transparent_hugepage=%s", val);
	x = add_sugg(s, p, true, "low", thp);
	if (x)
		snprintf(x->why, sizeof(x->why), "contradicts [thp] enabled = %s (and makes earlytune skip it)", thp->value);
}

static void collect(struct ctx *c, struct suggs *s)
{
	struct stale_ctx sc = { c, s };

	suggest_thp(c, s);
	suggest_thp_anon(c, s);
	suggest_rules(c, s);
	/* Removals concern the command line this kernel booted with. */
	cmdline_each(c->kernel.cmdline, check_stale, &sc);
	check_thp_param(c, s);
	/* A suggestion already on the command line is not one. */
	for (size_t i = 0; i < s->n; i++)
		if (!s->v[i].remove && cmdline_has_param(c->kernel.cmdline, s->v[i].param))
			s->v[i].param[0] = '\0';
}

static void free_suggs(struct suggs *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].source);
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
			printf("%-6s %-40s %-14s %s%s%s%s\n", x->remove ? "remove" : "add", x->param, x->risk, x->why,
			       x->source ? " [" : "", x->source ? x->source : "", x->source ? "]" : "");
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
		sb_json_str(&sb, x->why);
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
	struct suggs s = { .n = 0 };

	collect(c, &s);
	print_suggs(c, &s);
	free_suggs(&s);
	return 0;
}

/* ---- files, written atomically ------------------------------------------- */

static int write_atomic(const struct root *r, const char *rel, const char *content)
{
	char dir[PATH_MAX];
	int rr;

	snprintf(dir, sizeof(dir), "%s", rel);
	*strrchr(dir, '/') = '\0';
	rr = root_mkdir_p(r, dir, 0755);
	return rr < 0 ? rr : root_write_atomic(r, rel, content, strlen(content), 0644);
}

/* Writes only when the bytes differ: a second apply changes nothing. */
static int write_if_changed(const struct root *r, const char *rel, const char *content, bool *changed)
{
	_cleanup_(freep) char *old = NULL;

	*changed = false;
	if (root_read_file(r, rel, &old, 1 << 20) >= 0 && !strcmp(old, content))
		return 0;
	*changed = true;
	return write_atomic(r, rel, content);
}

/* ---- state: what earlytune added, per backend ------------------------------- */

struct added {
	char backend[32];
	char params[2048]; /* space-separated */
	bool created;      /* earlytune created the file (kernel-install) */
};

static int load_state(const struct root *r, struct added *a)
{
	_cleanup_(freep) char *buf = NULL;
	char *tab;

	*a = (struct added){ "", "", false };
	if (root_read_file(r, STATE, &buf, 1 << 16) < 0)
		return 0;
	tab = strchr(buf, '\t');
	if (!tab)
		return 0;
	*tab = '\0';
	snprintf(a->backend, sizeof(a->backend), "%s", buf);
	if (strchr(tab + 1, '\t')) {
		a->created = !strncmp(strchr(tab + 1, '\t') + 1, "created", 7);
		*strchr(tab + 1, '\t') = '\0';
	}
	snprintf(a->params, sizeof(a->params), "%s", strip(tab + 1));
	return 1;
}

static int save_state(const struct root *r, const struct added *a)
{
	char line[2200];

	if (!a->params[0]) {
		int rr = root_unlink(r, STATE, 0);

		return rr == -ENOENT ? 0 : rr;
	}
	snprintf(line, sizeof(line), "%s\t%s%s\n", a->backend, a->params, a->created ? "\tcreated" : "");
	return write_atomic(r, STATE, line);
}

/* ---- backends ---------------------------------------------------------------- */

static const char *const backends[] = { "ostree", "bls", "grub", "kernel-install", "uki", NULL };

static bool any_file(const struct root *r, const char *dir, const char *pattern)
{
	return root_match(r, dir, pattern, NULL, NULL) > 0;
}

static const char *detect_backend(const struct root *r)
{
	if (root_exists(r, "run/ostree-booted") || root_exists(r, "ostree/repo"))
		return "ostree";
	if (any_file(r, "boot/loader/entries", "*.conf"))
		return "bls";
	if (root_exists(r, "etc/default/grub"))
		return "grub";
	if (root_exists(r, "etc/kernel/cmdline"))
		return "kernel-install";
	if (any_file(r, "boot/EFI/Linux", "*.efi") || any_file(r, "efi/EFI/Linux", "*.efi"))
		return "uki";
	return NULL;
}

static int run_argv(char *const argv[])
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
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

/* grubby over BLS entries: by argv, never a shell. */
static int grubby(struct ctx *c, const char *flag, const char *params)
{
	_cleanup_(freep) char *arg = xasprintf("%s=%s", flag, params);
	_cleanup_(freep) char *dir = xasprintf("--bls-directory=%s/boot/loader/entries", c->root.dir);
	char *argv[] = { "grubby", "--update-kernel=ALL", arg, c->root.is_host ? NULL : dir, NULL };

	if (!arg || !dir)
		return -ENOMEM;
	return run_argv(argv);
}

struct bls_ctx {
	const struct root *r;
	struct strbuf sb;
};

static void bls_entry(const char *rel, void *data)
{
	struct bls_ctx *bc = data;
	_cleanup_(freep) char *buf = NULL;
	char *line, *save = NULL;

	if (root_read_file(bc->r, rel, &buf, 1 << 16) < 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "options", 7))
			sb_printf(&bc->sb, " %s", line + 7);
}

/* The parameters of every BLS entry's options line, joined. */
static char *bls_options(const struct root *r)
{
	struct bls_ctx bc = { r, { 0 } };

	root_match(r, "boot/loader/entries", "*.conf", bls_entry, &bc);
	return bc.sb.oom ? NULL : bc.sb.s ? bc.sb.s : strdup("");
}

/* Characters GRUB's script language and shells give a meaning to. */
static bool needs_quotes(const char *w)
{
	return strpbrk(w, ";&|<>()#*?[]{}~!") != NULL;
}

/* params with the ones that need it in double quotes, for a GRUB variable
 * (escaped for the shell that sources /etc/default/grub.d). */
static void grub_quote(const char *params, char *out, size_t size)
{
	char w[WORD_MAX];

	*out = '\0';
	while (next_word(&params, w, sizeof(w)))
		snprintf(out + strlen(out), size - strlen(out), needs_quotes(w) ? "%s\\\"%s\\\"" : "%s%s",
			 *out ? " " : "", w);
}

static const char *grub_update_cmd(void)
{
	return "update-grub";
}

/* Debian/Ubuntu GRUB: a drop-in that appends to GRUB_CMDLINE_LINUX_DEFAULT,
 * so what cloud images assign in 50-cloudimg-settings.cfg stays. */
static int grub_write(struct ctx *c, const char *params, bool *changed)
{
	char quoted[4096];
	_cleanup_(freep) char *body = NULL;

	grub_quote(params, quoted, sizeof(quoted));
	body = xasprintf(
		"# Generated by `earlytune cmdline apply`; `earlytune cmdline remove` deletes it.\n"
		"# Appends earlytune's parameters to what earlier files assigned.\n"
		"GRUB_CMDLINE_LINUX_DEFAULT=\"${GRUB_CMDLINE_LINUX_DEFAULT:+$GRUB_CMDLINE_LINUX_DEFAULT }%s\"\n",
		quoted);
	return body ? write_if_changed(&c->root, GRUB_DROPIN, body, changed) : -ENOMEM;
}

static char *kernel_install_base(const char *cmdline);

/* kernel-install: /etc/kernel/cmdline. Edits keep every other byte: our
 * words go before the trailing newline, and come out again one by one. */
static int kinstall_add(struct ctx *c, const char *add, bool *created, bool *changed)
{
	_cleanup_(freep) char *old = NULL;
	struct strbuf sb = { 0 };
	char w[WORD_MAX];
	size_t end;
	int r;

	*created = false;
	if (root_read_file(&c->root, "etc/kernel/cmdline", &old, 1 << 16) < 0) {
		/* Without the file kernel-install takes /usr/lib/kernel/cmdline,
		 * else /proc/cmdline: start from that, or new kernels lose root=. */
		*created = true;
		if (root_read_file(&c->root, "usr/lib/kernel/cmdline", &old, 1 << 16) < 0)
			old = kernel_install_base(c->kernel.cmdline);
	}
	if (!old)
		return -ENOMEM;
	end = strlen(old);
	while (end && (old[end - 1] == '\n' || old[end - 1] == ' '))
		end--;
	sb_printf(&sb, "%.*s", (int)end, old);
	for (const char *p = add; next_word(&p, w, sizeof(w));)
		if (!word_listed(old, w))
			sb_printf(&sb, "%s%s", sb.len ? " " : "", w);
	sb_printf(&sb, "%s", *created ? "\n" : old + end);
	r = sb.oom ? -ENOMEM : write_if_changed(&c->root, "etc/kernel/cmdline", sb.s, changed);
	sb_free(&sb);
	return r;
}

/* /proc/cmdline as kernel-install uses it: without BOOT_IMAGE= and initrd=. */
static char *kernel_install_base(const char *cmdline)
{
	struct strbuf sb = { 0 };
	char w[WORD_MAX];

	for (const char *p = cmdline ? cmdline : ""; next_word(&p, w, sizeof(w));)
		if (strncmp(w, "BOOT_IMAGE=", 11) && strncmp(w, "initrd=", 7))
			sb_printf(&sb, "%s%s", sb.len ? " " : "", w);
	sb_printf(&sb, "\n");
	return sb.oom ? NULL : sb.s;
}

/* Takes out exactly the words earlytune added, each with one space. */
static int kinstall_remove(struct ctx *c, const char *words, bool *changed)
{
	_cleanup_(freep) char *buf = NULL;
	char w[WORD_MAX];

	if (root_read_file(&c->root, "etc/kernel/cmdline", &buf, 1 << 16) < 0)
		return 0;
	for (const char *p = words; next_word(&p, w, sizeof(w));) {
		size_t n = strlen(w);

		for (char *s = buf; (s = strstr(s, w)); s += n) {
			bool starts = s == buf || s[-1] == ' ', ends = !s[n] || s[n] == ' ' || s[n] == '\n';

			if (!starts || !ends)
				continue;
			if (s > buf) /* with the space before it */
				s--, n++;
			else if (s[n] == ' ')
				n++;
			memmove(s, s + n, strlen(s + n) + 1);
			break;
		}
	}
	return write_if_changed(&c->root, "etc/kernel/cmdline", buf, changed);
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

static void wanted_params(struct ctx *c, char *out, size_t size)
{
	struct suggs s = { .n = 0 };

	*out = '\0';
	collect(c, &s);
	for (size_t i = 0; i < s.n; i++) {
		if (s.v[i].remove || !s.v[i].param[0] || word_listed(out, s.v[i].param))
			continue;
		if (s.v[i].security)
			log_msg(LOG_WARN, "warning: adding %s, which weakens the kernel's protection (configured)", s.v[i].param);
		snprintf(out + strlen(out), size - strlen(out), "%s%s", *out ? " " : "", s.v[i].param);
	}
	free_suggs(&s);
}

static int apply_backend(struct ctx *c, const char *backend, const char *params, struct added *a,
			 bool update, struct strbuf *next)
{
	bool changed = false;
	int r = 0;

	if (!strcmp(backend, "ostree")) {
		sb_printf(next, "rpm-ostree kargs");
		for (const char *p = params; *p;) {
			char w[WORD_MAX];

			if (!next_word(&p, w, sizeof(w)))
				break;
			sb_printf(next, needs_quotes(w) ? " '--append-if-missing=%s'" : " --append-if-missing=%s", w);
		}
		say(c, "ostree/bootc systems keep kernel arguments in the deployment; run:\n  %s\n", next->s);
		return 0;
	}
	if (!strcmp(backend, "uki")) {
		log_msg(LOG_ERR, "unified kernel images embed their command line when they are built: "
				 "nothing earlytune can edit. Add '%s' to the UKI build (ukify --cmdline, or "
				 "/etc/kernel/cmdline for kernel-install) and rebuild", params);
		return -EOPNOTSUPP;
	}
	if (!strcmp(backend, "bls")) {
		_cleanup_(freep) char *have = bls_options(&c->root);
		char add[2048] = "", w[WORD_MAX];

		for (const char *p = params; next_word(&p, w, sizeof(w));)
			if (!word_listed(have ? have : "", w))
				snprintf(add + strlen(add), sizeof(add) - strlen(add), "%s%s", *add ? " " : "", w);
		if (*add && (r = grubby(c, "--args", add)) < 0) {
			log_msg(LOG_ERR, "grubby --update-kernel=ALL --args='%s' failed: %s", add, strerror(-r));
			return r;
		}
		if (*add)
			snprintf(a->params + strlen(a->params), sizeof(a->params) - strlen(a->params), "%s%s",
				 *a->params ? " " : "", add);
		changed = *add;
	} else if (!strcmp(backend, "grub")) {
		/* The drop-in carries everything earlytune added, booted or not. */
		char all[2048], w[WORD_MAX];

		snprintf(all, sizeof(all), "%s", a->params);
		for (const char *p = params; next_word(&p, w, sizeof(w));)
			if (!word_listed(all, w))
				snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s", *all ? " " : "", w);
		r = grub_write(c, all, &changed);
		snprintf(a->params, sizeof(a->params), "%s", all);
		params = a->params;
	} else {
		char add[2048] = "";
		_cleanup_(freep) char *old = NULL;
		char w[WORD_MAX];
		bool created;

		root_read_file(&c->root, "etc/kernel/cmdline", &old, 1 << 16);
		for (const char *p = params; next_word(&p, w, sizeof(w));)
			if (!word_listed(old ? old : "", w))
				snprintf(add + strlen(add), sizeof(add) - strlen(add), "%s%s", *add ? " " : "", w);
		r = kinstall_add(c, add, &created, &changed);
		a->created = a->created || created;
		if (r >= 0 && *add)
			snprintf(a->params + strlen(a->params), sizeof(a->params) - strlen(a->params), "%s%s",
				 *a->params ? " " : "", add);
	}
	if (r < 0) {
		log_msg(LOG_ERR, "cannot write the %s configuration: %s", backend, strerror(-r));
		return r;
	}
	snprintf(a->backend, sizeof(a->backend), "%s", backend);
	say(c, "%s: %s%s\n", backend, changed ? "added " : "already in place: ", params);
	if (!strcmp(backend, "grub") && changed) {
		if (update && c->root.is_host) {
			char *argv[] = { (char *)grub_update_cmd(), NULL };

			r = run_argv(argv);
			if (r < 0)
				log_msg(LOG_ERR, "%s failed: %s", grub_update_cmd(), strerror(-r));
		} else {
			sb_printf(next, "%s", grub_update_cmd());
			say(c, "run %s%s to regenerate grub.cfg; the parameters take effect at the next boot\n",
			    c->root.is_host ? "" : "(in the image) ", grub_update_cmd());
		}
	} else {
		sb_printf(next, "reboot");
	}
	return r;
}

int cmd_cmdline_apply(struct ctx *c, const char *backend, bool update)
{
	char params[2048];
	struct added a;
	int r;

	if (backend) {
		bool known = false;

		for (const char *const *b = backends; *b; b++)
			known = known || !strcmp(*b, backend);
		if (!known) {
			log_msg(LOG_ERR, "--backend: unknown '%s'; backends: ostree bls grub kernel-install uki", backend);
			return 2;
		}
	} else if (!(backend = detect_backend(&c->root))) {
		log_msg(LOG_ERR, "no bootloader configuration found (ostree, BLS entries, /etc/default/grub, "
				 "/etc/kernel/cmdline, a UKI): name one with --backend");
		return 1;
	}
	wanted_params(c, params, sizeof(params));
	load_state(&c->root, &a);
	if (*a.backend && strcmp(a.backend, backend)) {
		log_msg(LOG_ERR, "earlytune's parameters are integrated with %s; run `earlytune cmdline remove` first",
			a.backend);
		return 1;
	}
	if (!*params) {
		say(c, "nothing to add for kernel %s\n", c->kernel.release);
		if (c->json)
			json_result(c, "cmdline apply", backend, "added", "", NULL);
		return 0;
	}
	struct strbuf next = { 0 };

	r = apply_backend(c, backend, params, &a, update, &next);
	if (r >= 0 && strcmp(backend, "ostree"))
		r = save_state(&c->root, &a);
	if (c->json && r >= 0)
		json_result(c, "cmdline apply", backend, "added", params, next.s);
	sb_free(&next);
	return r < 0 ? 1 : 0;
}

int cmd_cmdline_remove(struct ctx *c)
{
	struct added a;
	bool changed = false;
	int r = 0;

	if (!load_state(&c->root, &a) || !*a.params) {
		say(c, "nothing earlytune added is recorded\n");
		if (c->json)
			json_result(c, "cmdline remove", NULL, "removed", "", NULL);
		return 0;
	}
	if (!strcmp(a.backend, "grub")) {
		r = root_unlink(&c->root, GRUB_DROPIN, 0);
		r = r == -ENOENT ? 0 : r;
		changed = true;
	} else if (!strcmp(a.backend, "bls")) {
		r = grubby(c, "--remove-args", a.params);
	} else if (!strcmp(a.backend, "kernel-install") && a.created) {
		r = root_unlink(&c->root, "etc/kernel/cmdline", 0);
		r = r == -ENOENT ? 0 : r;
		root_unlink(&c->root, "etc/kernel", AT_REMOVEDIR); /* only if now empty */
	} else if (!strcmp(a.backend, "kernel-install")) {
		r = kinstall_remove(c, a.params, &changed);
	}
	if (r < 0) {
		log_msg(LOG_ERR, "cannot remove earlytune's parameters from %s: %s", a.backend, strerror(-r));
		return 1;
	}
	say(c, "%s: removed %s\n", a.backend, a.params);
	if (!strcmp(a.backend, "grub") && changed)
		say(c, "run %s to regenerate grub.cfg\n", grub_update_cmd());
	if (c->json)
		json_result(c, "cmdline remove", a.backend, "removed", a.params,
			    !strcmp(a.backend, "grub") ? grub_update_cmd() : "reboot");
	a.params[0] = '\0';
	a.created = false;
	return save_state(&c->root, &a) < 0 ? 1 : 0;
}

/* Integrated but not booted yet, or suggested but nowhere: exit 1. */
int cmd_cmdline_verify(struct ctx *c)
{
	char params[2048], w[WORD_MAX];
	struct strbuf js = { 0 };
	struct added a;
	int bad = 0;

	wanted_params(c, params, sizeof(params));
	load_state(&c->root, &a);
	sb_printf(&js, "{\"version\":1,\"command\":\"cmdline verify\",\"kernel\":");
	sb_json_str(&js, c->kernel.release);
	sb_printf(&js, ",\"backend\":");
	sb_json_str(&js, *a.backend ? a.backend : NULL);
	sb_printf(&js, ",\"pending\":[");
	for (const char *p = a.params; next_word(&p, w, sizeof(w));)
		if (!cmdline_has_param(c->kernel.cmdline, w)) {
			if (!c->json)
				printf("pending: %s is in the %s configuration but not in /proc/cmdline: reboot\n", w, a.backend);
			sb_printf(&js, "%s", bad++ ? "," : "");
			sb_json_str(&js, w);
		}
	sb_printf(&js, "],\"missing\":[");
	for (const char *p = params, *sep = ""; next_word(&p, w, sizeof(w));)
		if (!word_listed(a.params, w)) {
			if (!c->json)
				printf("missing: %s is suggested but neither booted nor integrated: earlytune cmdline apply\n", w);
			sb_printf(&js, "%s", sep);
			sb_json_str(&js, w);
			sep = ",";
			bad++;
		}
	sb_printf(&js, "],\"in_force\":%s}\n", bad ? "false" : "true");
	if (c->json && !js.oom)
		fputs(js.s, stdout);
	else if (!c->json)
		printf("cmdline: %s\n", bad ? "reboot pending or parameters missing" : "in force");
	sb_free(&js);
	return bad ? 1 : 0;
}
