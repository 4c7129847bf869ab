// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * verify --image's command line: not what earlytune recorded but what the
 * bootloader will read for a kernel. A UKI's .cmdline (systemd-stub);
 * grub.cfg's `linux` lines (GRUB reads them, never /etc/default/grub.d:
 * update-grub turns one into the other); the BLS entries grubby edits;
 * kernel-install's result, the entries or UKI it built from
 * /etc/kernel/cmdline. Missing, older than its source or without the
 * parameters fails, naming the command that regenerates it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/log.h"
#include "base/pe.h"
#include "cmdline/internal.h"

#define KINSTALL "etc/kernel/cmdline"

struct verdict {
	struct ctx *c;
	const char *kver, *wanted, *backend;
	bool ok;
	char *why;
};

/* Returns ok (1 pass, 0 fail) after putting the sentence in v. */
_printf_(3, 4) static int say(struct verdict *v, bool ok, const char *fmt, ...)
{
	va_list ap;

	free(v->why);
	va_start(ap, fmt);
	if (vasprintf(&v->why, fmt, ap) < 0)
		v->why = NULL;
	va_end(ap);
	v->ok = ok;
	return v->why ? ok : -ENOMEM;
}

static const char *in_image(const struct ctx *c)
{
	return c->root.is_host ? "" : " in the image";
}

static int stat_in(const struct root *r, const char *rel, struct stat *st)
{
	_cleanup_(closep) int fd = root_openat(r, rel, O_PATH, 0);

	if (fd < 0)
		return fd;
	return fstat(fd, st) < 0 ? -errno : 0;
}

/* 1 when a was last written before b, 0 not (or either is absent), -errno.
 * Equal times are not older: image builders often set every file's. */
static int older(const struct root *r, const char *a, const char *b)
{
	struct stat sa, sb;
	int ra = stat_in(r, a, &sa), rb = stat_in(r, b, &sb);

	if (ra == -ENOENT || rb == -ENOENT)
		return 0;
	if (ra < 0 || rb < 0)
		return ra < 0 ? ra : rb;
	return sa.st_mtim.tv_sec < sb.st_mtim.tv_sec ||
	       (sa.st_mtim.tv_sec == sb.st_mtim.tv_sec && sa.st_mtim.tv_nsec < sb.st_mtim.tv_nsec);
}

/* Whether a kernel path (grub.cfg's `linux`, an entry's `linux`) is kver's:
 * /boot/vmlinuz-VER, /vmlinuz-VER (a separate /boot), or kernel-install's
 * /ENTRY-TOKEN/VER/linux. */
static bool boots(const char *path, size_t len, const char *kver)
{
	size_t k = strlen(kver);
	const char *end = path + len, *base = end;

	while (base > path && base[-1] != '/')
		base--;
	if ((size_t)(end - base) == k + 8 && !strncmp(base, "vmlinuz-", 8) && !strncmp(base + 8, kver, k))
		return true;
	return (size_t)(base - path) >= k + 2 && !strncmp(end - 5, "linux", 5) && end - 5 == base &&
	       base[-1] == '/' && !strncmp(base - 1 - k, kver, k) && (base - 1 - k == path || base[-2 - k] == '/');
}

/* "kernel-install add VER /boot/vmlinuz-VER": Debian's kernel, else
 * Fedora's place for it. */
static const char *kinstall_cmd(const struct verdict *v, char *buf, size_t size)
{
	const struct root *r = &v->c->root;
	char kf[PATH_MAX];

	if (pathf(kf, sizeof(kf), "lib/modules/%s/vmlinuz", v->kver) < 0 || root_access(r, kf) <= 0 ||
	    (pathf(kf, sizeof(kf), "boot/vmlinuz-%s", v->kver) == 0 && root_access(r, kf) > 0))
		snprintf(kf, sizeof(kf), "boot/vmlinuz-%s", v->kver);
	snprintf(buf, size, "kernel-install add %s /%s", v->kver, kf);
	return buf;
}

/* ---- unified kernel images ------------------------------------------------ */

/* One UKI's .cmdline: 1 carries every wanted parameter, 0 not (said). */
static int uki_one(struct verdict *v, const char *rel)
{
	_cleanup_(closep) int fd = root_openat(&v->c->root, rel, O_RDONLY, 0);
	_cleanup_(freep) char *text = NULL, *miss = NULL;
	char cmd[PATH_MAX + 64];
	int r = fd < 0 ? fd : pe_section_text(fd, ".cmdline", 1 << 16, &text);

	if (r < 0)
		return say(v, false, "cannot read the .cmdline of /%s: %s", rel, strerror(-r));
	r = kcmd_missing(text ? text : "", v->wanted, &miss);
	if (r < 0)
		return r;
	if (*miss)
		return say(v, false, "/%s %s %s: rebuild it with them (%s with them in /" KINSTALL
			   ", ukify build --cmdline, or mkosi's KernelCommandLine=)", rel,
			   text ? "has a .cmdline without" : "has no .cmdline, so not", miss, kinstall_cmd(v, cmd, sizeof(cmd)));
	r = !strcmp(v->backend, "kernel-install") ? older(&v->c->root, rel, KINSTALL) : 0;
	if (r > 0)
		return say(v, false, "/%s was built before /" KINSTALL " changed: %s%s", rel,
			   kinstall_cmd(v, cmd, sizeof(cmd)), in_image(v->c));
	return r < 0 ? r : say(v, true, "the UKI /%s carries them in its .cmdline", rel);
}

/* 2 when kver has no UKI, else each one's verdict (the first that fails). */
static int uki_check(struct verdict *v)
{
	struct ukis *u = malloc(sizeof(*u));
	int n = u ? uki_find(&v->c->root, v->kver, u) : -ENOMEM, r = 1;

	if (n < 0 && u && n != -E2BIG && n != -ENOMEM)
		r = say(v, false, "cannot read /%s: %s", u->rel[0], strerror(-n));
	else if (n < 0)
		r = n;
	for (int i = 0; i < n && r == 1; i++)
		r = uki_one(v, u->rel[i]);
	free(u);
	return n == 0 ? 2 : r;
}

/* ---- GRUB ------------------------------------------------------------------- */

static const char *const grub_cfgs[] = { "boot/grub/grub.cfg", "boot/grub2/grub.cfg" };

static const char *grub_regen(const struct root *r, const char *cfg)
{
	if (root_access(r, "usr/sbin/update-grub") > 0 || root_access(r, "sbin/update-grub") > 0)
		return "update-grub";
	if (strstr(cfg, "grub2") || root_access(r, "usr/sbin/grub2-mkconfig") > 0)
		return "grub2-mkconfig -o /boot/grub2/grub.cfg";
	return "grub-mkconfig -o /boot/grub/grub.cfg";
}

/* A grub.cfg line's options when it is a `linux` command booting kver. */
static const char *linux_options(const char *line, const char *kver)
{
	const char *p = line + strspn(line, " \t"), *path;
	size_t w = strcspn(p, " \t"), len;

	if (!((w == 5 && !strncmp(p, "linux", 5)) || (w == 7 && !strncmp(p, "linux16", 7)) ||
	      (w == 8 && !strncmp(p, "linuxefi", 8))))
		return NULL;
	path = p + w + strspn(p + w, " \t");
	len = strcspn(path, " \t");
	return boots(path, len, kver) ? path + len : NULL;
}

/* Of the `linux` lines booting kver (a recovery entry lacks what
 * GRUB_CMDLINE_LINUX_DEFAULT adds), one carries every parameter: 1; else 0
 * and *miss the first line's lack ("" no line); -errno. */
static int grub_lines(char *text, const char *kver, const char *wanted, char **miss)
{
	char *save = NULL;

	*miss = NULL;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		const char *opts = linux_options(l, kver);
		char *lack = NULL;
		int r = opts ? kcmd_missing(opts, wanted, &lack) : 0;

		if (r < 0 || (lack && !*lack)) {
			free(lack);
			return r < 0 ? r : 1;
		}
		if (lack && !*miss)
			*miss = lack;
		else
			free(lack);
	}
	return *miss || (*miss = strdup("")) ? 0 : -ENOMEM;
}

static int grub_check(struct verdict *v)
{
	const struct root *r = &v->c->root;
	_cleanup_(freep) char *text = NULL, *miss = NULL;
	const char *cfg = NULL;
	int n = -ENOENT;

	for (size_t i = 0; i < ARRAY_SIZE(grub_cfgs) && n == -ENOENT; i++)
		if ((n = bl_read(r, grub_cfgs[i], &text)) == 0)
			cfg = grub_cfgs[i];
	if (n < 0 && n != -ENOENT)
		return say(v, false, "cannot read /boot/grub*/grub.cfg: %s", strerror(-n));
	if (!cfg)
		return say(v, false, "no /boot/grub/grub.cfg: GRUB never reads /" GRUB_DROPIN "; run %s%s",
			   grub_regen(r, ""), in_image(v->c));
	if ((n = older(r, cfg, GRUB_DROPIN)) != 0)
		return n < 0 ? n : say(v, false, "/%s was generated before /" GRUB_DROPIN ": run %s%s", cfg,
				       grub_regen(r, cfg), in_image(v->c));
	if ((n = grub_lines(text, v->kver, v->wanted, &miss)) != 0)
		return n < 0 ? n : say(v, true, "integrated with grub: a `linux` line of /%s carries them", cfg);
	if (!*miss)
		return say(v, false, "/%s has no `linux` line for kernel %s: run %s%s", cfg, v->kver, grub_regen(r, cfg),
			   in_image(v->c));
	return say(v, false, "/%s boots %s without %s: run %s%s", cfg, v->kver, miss, grub_regen(r, cfg),
		   in_image(v->c));
}

/* ---- BLS entries (grubby's, kernel-install's) --------------------------------- */

struct entries {
	struct verdict *v;
	const char *source;   /* what the entries are built from (kernel-install), or NULL */
	const char *kernelopts; /* grubenv's, which `options $kernelopts` names */
	int err;
	size_t seen;
	char carried[PATH_MAX], lacking[PATH_MAX], stale[PATH_MAX];
	char *miss;
};

/* An entry's options when it boots kver (its `version`, or its `linux`),
 * $kernelopts expanded the way GRUB's blscfg does from grubenv. */
static char *entry_options(char *buf, const char *kver, const char *kernelopts)
{
	struct strbuf sb = { 0 };
	char *save = NULL;
	bool mine = false;

	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		size_t w = strcspn(l, " \t");
		char *val = l + w + strspn(l + w, " \t");

		val = strip(val);
		if (w == 7 && !strncmp(l, "version", 7))
			mine |= !strcmp(val, kver);
		else if (w == 5 && !strncmp(l, "linux", 5))
			mine |= boots(val, strlen(val), kver);
		else if (w == 7 && !strncmp(l, "options", 7))
			sb_printf(&sb, " %s%s%s", val, strstr(val, "$kernelopts") && kernelopts ? " " : "",
				  strstr(val, "$kernelopts") && kernelopts ? kernelopts : "");
	}
	if (!mine || sb.oom) {
		sb_free(&sb);
		return NULL;
	}
	return sb.s ? sb.s : strdup("");
}

static void entry_seen(const char *rel, void *data)
{
	struct entries *e = data;
	_cleanup_(freep) char *buf = NULL, *opts = NULL, *lack = NULL;
	int r = e->err ? 0 : bl_read(&e->v->c->root, rel, &buf);

	if (r < 0)
		e->err = r;
	if (r < 0 || !buf || !(opts = entry_options(buf, e->v->kver, e->kernelopts)))
		return;
	e->seen++;
	if ((r = kcmd_missing(opts, e->v->wanted, &lack)) < 0) {
		e->err = r;
		return;
	}
	if (*lack && !*e->lacking) {
		snprintf(e->lacking, sizeof(e->lacking), "%s", rel);
		e->miss = lack;
		lack = NULL;
	} else if (!*lack && !*e->carried) {
		snprintf(e->carried, sizeof(e->carried), "%s", rel);
	}
	r = e->source && !*e->stale ? older(&e->v->c->root, rel, e->source) : 0;
	if (r > 0)
		snprintf(e->stale, sizeof(e->stale), "%s", rel);
	e->err = r < 0 ? r : e->err;
}

/* grubenv's kernelopts= (Fedora 30-33 entries say `options $kernelopts`). */
static char *grubenv_kernelopts(const struct root *r, char **env)
{
	char *p;

	if (bl_read(r, "boot/grub2/grubenv", env) < 0 && bl_read(r, "boot/grub/grubenv", env) < 0)
		return NULL;
	for (p = *env; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, "kernelopts=", 11)) {
			p[strcspn(p, "\n")] = '\0';
			return p + 11;
		}
	return NULL;
}

static const char *const bls_dirs[] = { "boot/loader/entries" };
static const char *const kinstall_dirs[] = { "boot/loader/entries", "efi/loader/entries", "boot/efi/loader/entries" };

/* What regenerates an entry: grubby's edit (earlytune cmdline apply runs
 * it) or kernel-install from /etc/kernel/cmdline. */
static const char *entry_redo(const struct entries *e, char *buf, size_t size)
{
	const struct ctx *c = e->v->c;

	if (e->source)
		return kinstall_cmd(e->v, buf, size);
	snprintf(buf, size, "earlytune cmdline apply%s%s --kernel %s (grubby --update-kernel=ALL)",
		 c->root.is_host ? "" : " --root ", c->root.is_host ? "" : c->root.dir, e->v->kver);
	return buf;
}

static int entries_verdict(struct entries *e)
{
	struct verdict *v = e->v;
	char cmd[PATH_MAX + 128];

	if (!e->seen && e->source)
		return say(v, false, "kernel-install has put no entry for %s in /boot, /efi or /boot/efi "
				     "loader/entries, nor a UKI in EFI/Linux: run %s%s (GRUB never reads /" KINSTALL
				     ": earlytune cmdline apply --backend grub on a GRUB system)",
			   v->kver, kinstall_cmd(v, cmd, sizeof(cmd)), in_image(v->c));
	if (!e->seen)
		return say(v, false, "no BLS entry in /boot/loader/entries boots %s: run %s%s", v->kver,
			   kinstall_cmd(v, cmd, sizeof(cmd)), in_image(v->c));
	if (*e->lacking)
		return say(v, false, "/%s boots %s without %s: %s", e->lacking, v->kver, e->miss,
			   entry_redo(e, cmd, sizeof(cmd)));
	if (*e->stale)
		return say(v, false, "/%s was written before /%s changed: run %s%s", e->stale, e->source,
			   entry_redo(e, cmd, sizeof(cmd)), in_image(v->c));
	return say(v, true, "integrated with %s: /%s carries them", v->backend, e->carried);
}

static int entries_check(struct verdict *v, const char *const *dirs, size_t n, const char *source)
{
	_cleanup_(freep) char *env = NULL;
	struct entries e = { .v = v, .source = source };
	int r = 0;

	e.kernelopts = grubenv_kernelopts(&v->c->root, &env);
	for (size_t i = 0; i < n && !e.err; i++)
		if ((r = root_match(&v->c->root, dirs[i], "*.conf", entry_seen, &e)) < 0)
			e.err = r;
	r = e.err ? say(v, false, "cannot read the BLS entries: %s", strerror(-e.err)) : entries_verdict(&e);
	free(e.miss);
	return r;
}

/* ---- the command ------------------------------------------------------------ */

static int backend_check(struct verdict *v)
{
	int dropin = root_access(&v->c->root, GRUB_DROPIN);

	if (dropin < 0)
		return dropin;
	if (!strcmp(v->backend, "grub") || dropin > 0)
		return grub_check(v);
	if (!strcmp(v->backend, "bls"))
		return entries_check(v, bls_dirs, ARRAY_SIZE(bls_dirs), NULL);
	if (!strcmp(v->backend, "kernel-install"))
		return entries_check(v, kinstall_dirs, ARRAY_SIZE(kinstall_dirs), KINSTALL);
	return say(v, true, "integrated with %s", v->backend);
}

int cmdline_image_check(struct ctx *c, const char *kver, bool *ok, char **why)
{
	_cleanup_(freep) char *wanted = NULL, *missing = NULL;
	char backend[32] = "";
	struct verdict v = { .c = c, .kver = kver, .backend = backend };
	int r = cmdline_missing(c, &wanted, &missing, backend, sizeof(backend));

	v.wanted = wanted;
	if (r >= 0 && !*wanted)
		r = say(&v, true, "%s%s", *backend ? "integrated with " : "nothing to add", backend);
	else if (r >= 0 && (r = uki_check(&v)) == 2 && *missing)
		r = say(&v, false, "not integrated: %s; earlytune cmdline apply --root %s --kernel %s%s%s", missing,
			c->root.dir, kver, c->platform_opt ? " --platform " : "", c->platform_opt ? c->platform_opt : "");
	else if (r == 2)
		r = backend_check(&v);
	*ok = v.ok;
	*why = v.why;
	return r < 0 ? r : 0;
}
