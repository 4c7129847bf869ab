// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * `earlytune verify --image`: an image (or any root) checked end to end
 * before it boots: the package's files, the unit enabled and not masked,
 * for each kernel its initramfs (initrd.c) and its command line (cmdline/),
 * and the sysctl guard not shadowed by a later sysctl.d file. Each check
 * is a line (an object with --json) with its reason; exit 1 when one fails.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/sysctl.h"
#include "cmdline/cmdline.h"
#include "image/image.h"
#include "image/initrd.h"

struct checks {
	struct ctx *c;
	struct strbuf json;
	unsigned passed, failed;
	bool generator; /* the image has dracut or initramfs-tools */
};

_printf_(5, 6) static void said(struct checks *k, const char *check, const char *target, bool ok,
				const char *fmt, ...)
{
	_cleanup_(freep) char *why = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&why, fmt, ap) < 0)
		why = NULL;
	va_end(ap);
	if (ok)
		k->passed++;
	else
		k->failed++;
	if (!k->c->json) {
		printf("%-4s  %-9s %s: %s\n", ok ? "pass" : "FAIL", check, target, why ? why : "?");
		return;
	}
	sb_printf(&k->json, "%s{\"check\":", k->passed + k->failed > 1 ? "," : "");
	sb_json_str(&k->json, check);
	json_field(&k->json, "target", target);
	sb_printf(&k->json, ",\"pass\":%s", ok ? "true" : "false");
	json_field(&k->json, "reason", why ? why : "?");
	sb_printf(&k->json, "}");
}

/* ---- the package's files -------------------------------------------------- */

/* A file the package installs, where any of its paths may hold it (a split
 * /usr image has /lib, a merged one links it to /usr/lib; make install
 * PREFIX=/usr/local puts what systemd and udev also read there). */
struct want {
	const char *what, *path[3];
};

static const struct want base_files[] = {
	{ "binary", { "usr/sbin/earlytune", "usr/local/sbin/earlytune" } },
	{ "udev rule", { "usr/lib/udev/rules.d/70-earlytune.rules", "lib/udev/rules.d/70-earlytune.rules",
			 "usr/local/lib/udev/rules.d/70-earlytune.rules" } },
	{ "unit", { "usr/lib/systemd/system/earlytune.service", "lib/systemd/system/earlytune.service",
		    "usr/local/lib/systemd/system/earlytune.service" } },
	{ "preset", { "usr/lib/systemd/system-preset/80-earlytune.preset",
		      "lib/systemd/system-preset/80-earlytune.preset",
		      "usr/local/lib/systemd/system-preset/80-earlytune.preset" } },
};
static const struct want dracut_files[] = {
	{ "dracut module", { "usr/lib/dracut/modules.d/50earlytune/module-setup.sh",
			     "lib/dracut/modules.d/50earlytune/module-setup.sh" } },
	{ "dracut hook", { "usr/lib/dracut/modules.d/50earlytune/earlytune-pre-udev.sh",
			   "lib/dracut/modules.d/50earlytune/earlytune-pre-udev.sh" } },
};
static const struct want itools_files[] = {
	{ "initramfs-tools hook", { "usr/share/initramfs-tools/hooks/earlytune" } },
	{ "initramfs-tools script", { "usr/share/initramfs-tools/scripts/init-top/earlytune" } },
};
/* After the generators' own hooks, so that the image they built is read. */
static const struct want postinst_files[] = {
	{ "kernel postinst hook", { "etc/kernel/postinst.d/zz-earlytune" } },
};
static const struct want kinstall_files[] = {
	{ "kernel-install plugin", { "usr/lib/kernel/install.d/95-earlytune.install",
				     "lib/kernel/install.d/95-earlytune.install",
				     "usr/local/lib/kernel/install.d/95-earlytune.install" } },
};

/* The tools whose presence asks for a part of the package. Debian builds
 * a kernel's initramfs from /etc/kernel/postinst.d (initramfs-tools' or
 * dracut's hook there): earlytune's hook runs beside them. Fedora has the
 * directory (dkms, akmods) but uses kernel-install. */
static const struct tool {
	const char *name, *path[3];
	const struct want *files;
	size_t n;
} tools[] = {
	{ "dracut", { "usr/bin/dracut", "usr/sbin/dracut", "usr/lib/dracut/dracut-functions.sh" },
	  dracut_files, ARRAY_SIZE(dracut_files) },
	{ "initramfs-tools", { "usr/sbin/mkinitramfs", "usr/share/initramfs-tools/hook-functions" },
	  itools_files, ARRAY_SIZE(itools_files) },
	{ "kernel postinst.d", { "etc/kernel/postinst.d/initramfs-tools", "etc/kernel/postinst.d/dracut" },
	  postinst_files, ARRAY_SIZE(postinst_files) },
	{ "kernel-install", { "usr/bin/kernel-install", "usr/lib/kernel/install.d" },
	  kinstall_files, ARRAY_SIZE(kinstall_files) },
};

/* The first of paths present: 1 (*found), 0 none, -errno of a failed look. */
static int first_present(const struct root *r, const char *const *paths, size_t n, const char **found)
{
	for (size_t i = 0; i < n && paths[i]; i++) {
		int a = root_access(r, paths[i]);

		if (a != 0) {
			*found = paths[i];
			return a;
		}
	}
	return 0;
}

static void check_files(struct checks *k, const struct want *w, size_t n, const char *for_what)
{
	for (size_t i = 0; i < n; i++) {
		const char *at = w[i].path[0];
		int a = first_present(&k->c->root, w[i].path, ARRAY_SIZE(w[i].path), &at);

		if (a > 0)
			said(k, "files", w[i].what, true, "/%s", at);
		else if (a < 0)
			said(k, "files", w[i].what, false, "cannot look at /%s: %s", at, strerror(-a));
		else
			said(k, "files", w[i].what, false, "/%s missing%s%s%s: is the earlytune package installed?",
			     w[i].path[0], for_what ? " (the image has " : "", for_what ? for_what : "",
			     for_what ? ")" : "");
	}
}

static void check_package(struct checks *k)
{
	check_files(k, base_files, ARRAY_SIZE(base_files), NULL);
	for (size_t i = 0; i < ARRAY_SIZE(tools); i++) {
		const char *at = tools[i].path[0];
		int a = first_present(&k->c->root, tools[i].path, ARRAY_SIZE(tools[i].path), &at);

		k->generator |= a > 0 && i < 2;
		if (a != 0)
			check_files(k, tools[i].files, tools[i].n, tools[i].name);
	}
	if (!k->generator)
		said(k, "files", "initramfs", true,
		     "no initramfs generator in this image (dracut, initramfs-tools): the unit applies at boot");
}

/* ---- the units ------------------------------------------------------------ */

/* Enabled the way systemctl enable and preset do it (a link in /etc's
 * TARGET.wants to the unit, from [Install] WantedBy=TARGET); masked: /etc's
 * unit is /dev/null, which beats every link. */
static void check_enabled(struct checks *k, const char *unit, const char *target)
{
	const struct root *r = &k->c->root;
	char wants[PATH_MAX], place[PATH_MAX], link[PATH_MAX], mask[32];
	int n, a;
	const char *base;

	snprintf(wants, sizeof(wants), "etc/systemd/system/%s.wants/%s", target, unit);
	n = root_readlink(r, wants, link, sizeof(link));
	a = root_access(r, wants);
	base = n > 0 ? strrchr(link, '/') : NULL;
	snprintf(place, sizeof(place), "etc/systemd/system/%s", unit);
	if (root_readlink(r, place, mask, sizeof(mask)) > 0 && !strcmp(mask, "/dev/null")) {
		said(k, "unit", unit, false, "masked: /%s -> /dev/null; systemctl unmask %s", place, unit);
		return;
	}
	snprintf(place, sizeof(place), "usr/lib/systemd/system/%s.wants/%s", target, unit);
	if (n > 0 && a > 0 && !strcmp(base ? base + 1 : link, unit))
		said(k, "unit", unit, true, "enabled: /%s -> %s", wants, link);
	else if (n > 0)
		said(k, "unit", unit, false, "/%s -> %s: %s%s", wants, link,
		     a < 0 ? strerror(-a) : a == 0 ? "a dangling link" : "not a link to ", a > 0 ? unit : "");
	else if (root_access(r, place) > 0)
		said(k, "unit", unit, false, "only a static link in /usr/lib (an old install): systemctl preset %s", unit);
	else
		said(k, "unit", unit, false, "not enabled (no /%s): systemctl --root IMAGE preset %s", wants, unit);
}

/* earlytune.service at every boot; where the image has cloud-init, the unit
 * that applies what user-data writes, after cloud-init's init stage. */
static void check_units(struct checks *k)
{
	const struct root *r = &k->c->root;

	check_enabled(k, "earlytune.service", "sysinit.target");
	if (root_access(r, "usr/lib/systemd/system/cloud-init.target") > 0 ||
	    root_access(r, "lib/systemd/system/cloud-init.target") > 0)
		check_enabled(k, "earlytune-cloud-init.service", "cloud-init.target");
}

/* ---- each kernel ---------------------------------------------------------- */

static void check_initrd(struct checks *k, const char *kver)
{
	struct initrd_report rep = { 0 };
	int r = initrd_check(&k->c->root, kver, &rep);

	if (r < 0)
		said(k, "initramfs", kver, false, "cannot read the image's /boot: %s", strerror(-r));
	else if (rep.state == INITRD_CURRENT)
		said(k, "initramfs", kver, true, "/%s carries earlytune and the current configuration", rep.shown);
	else if (rep.state == INITRD_NONE && !k->generator)
		said(k, "initramfs", kver, true, "none, and no generator to build one: the unit applies at boot");
	else
		said(k, "initramfs", kver, false, "%s%s%s", rep.detail, rep.rebuild ? "; rebuild: " : "",
		     rep.rebuild ? rep.rebuild : "");
}

/* The parameters suggested for this kernel, in what its bootloader will
 * read (cmdline/boot.c). An image has not booted: nothing is "pending". */
static void check_cmdline(struct checks *k, const char *kver)
{
	_cleanup_(freep) char *why = NULL;
	bool ok = false;
	int r = cmdline_image_check(k->c, kver, &ok, &why);

	if (r < 0)
		said(k, "cmdline", kver, false, "cannot tell: %s", strerror(-r));
	else
		said(k, "cmdline", kver, ok, "%s", why);
}

/* Each kernel in turn is the one the suggestions are for; the command's
 * own (its JSON head) is put back after. */
static void check_kernels(struct checks *k)
{
	struct kernel saved = k->c->kernel;
	struct kernels ks;
	const char *only = k->c->kernel.from && !strcmp(k->c->kernel.from, "option") ? k->c->kernel.release : NULL;
	int n = only ? 1 : image_kernels(&k->c->root, &ks);

	if (n < 0)
		said(k, "kernels", "lib/modules", false, "cannot list the kernels: %s", strerror(-n));
	if (n == 0)
		said(k, "kernels", "lib/modules", false, "no kernel in this image (lib/modules/*, boot/vmlinuz-*)");
	for (int i = 0; i < n; i++) {
		const char *kver = only ? only : ks.v[i];

		kernel_target(&k->c->kernel, &k->c->root, kver);
		check_initrd(k, kver);
		check_cmdline(k, kver);
	}
	if (!only)
		kernels_free(&ks);
	k->c->kernel = saved;
}

/* ---- the sysctl guard ----------------------------------------------------- */

/* earlytune writes its guard at boot to /run/sysctl.d/60-earlytune.conf:
 * a file sorting after it wins, and /etc/sysctl.d/60-earlytune.conf
 * replaces it. Either setting the key otherwise resets what earlytune set. */
static void check_guard_key(struct checks *k, const char *key, const struct cfg_entry *want)
{
	char value[256] = "", file[PATH_MAX], link[PATH_MAX];
	/* A mask links to /dev/null, which the image need not have. */
	int over = root_readlink(&k->c->root, "etc/sysctl.d/" SYSCTL_GUARD, link, sizeof(link)) >= 0 ? 1 :
		   root_access(&k->c->root, "etc/sysctl.d/" SYSCTL_GUARD);
	int n = sysctl_final(&k->c->root, key, value, sizeof(value), file, sizeof(file));
	const char *base = strrchr(file, '/');

	base = base ? base + 1 : file;
	if (n < 0 || over < 0)
		said(k, "sysctl", key, false, "cannot read the sysctl.d directories: %s", strerror(-(n < 0 ? n : over)));
	else if (n > 0 && strcmp(value, want->value) && over > 0)
		said(k, "sysctl", key, false, "/etc/sysctl.d/" SYSCTL_GUARD " replaces earlytune's guard, and %s sets %s (configured: %s)",
		     file, value, want->value);
	else if (n > 0 && strcmp(value, want->value) && strcmp(base, SYSCTL_GUARD) > 0)
		said(k, "sysctl", key, false, "%s sorts after earlytune's guard (" SYSCTL_GUARD ") and sets %s (configured: %s)",
		     file, value, want->value);
	else
		said(k, "sysctl", key, true, "%s stays: no later sysctl.d file sets it otherwise", want->value);
}

static void check_guard(struct checks *k)
{
	const struct cfg_entry *q = config_get(&k->c->cfg, "net", NULL, "qdisc");
	const struct cfg_entry *cc = config_get(&k->c->cfg, "net", NULL, "congestion_control");

	if (q && *q->value)
		check_guard_key(k, "net.core.default_qdisc", q);
	if (cc && *cc->value)
		check_guard_key(k, "net.ipv4.tcp_congestion_control", cc);
	if (!(q && *q->value) && !(cc && *cc->value))
		said(k, "sysctl", SYSCTL_GUARD, true, "nothing to guard: no [net] qdisc or congestion_control");
}

/* ---- the command ---------------------------------------------------------- */

int cmd_verify_image(struct ctx *c)
{
	struct checks k = { .c = c };
	struct strbuf out = { 0 };

	check_package(&k);
	check_units(&k);
	check_kernels(&k);
	check_guard(&k);
	if (!c->json) {
		printf("image: %u check%s passed, %u failed\n", k.passed, k.passed == 1 ? "" : "s", k.failed);
		return k.failed ? 1 : 0;
	}
	json_head(&out, c, "verify image");
	json_field(&out, "root", c->root.dir);
	if (c->platform.resolved)
		json_platform(&out, &c->platform);
	sb_printf(&out, ",\"checks\":[%s],\"passed\":%u,\"failed\":%u}\n", k.json.s ? k.json.s : "", k.passed,
		  k.failed);
	if (k.json.oom)
		out.oom = true;
	sb_free(&k.json);
	json_emit(&out);
	return k.failed ? 1 : 0;
}
