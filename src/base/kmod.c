// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Kernel modules through libkmod, behind a seam (state / lookup / insert) so
 * tests can fake them. libkmod reads /sys/module and /proc/modules without a
 * root prefix, so the state is read here, through the root; libkmod only
 * resolves names under ROOT/lib/modules/RELEASE and inserts into the running
 * kernel — and only when the root is the running system's own.
 */
#include <errno.h>
#include <fcntl.h>
#include <libkmod.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "base/kconfig.h"
#include "base/kernel.h"
#include "base/kmod.h"
#include "base/root.h"

struct mods {
	const struct root *root;
	const struct kernel *kernel;
	struct kmod_ctx *ctx;
	struct mod_ops ops;
	char *builtin; /* modules.builtin, read once */
	bool builtin_read;
	char *kconfig;   /* the kernel's build configuration, read once */
	int kconfig_err; /* 0, or why there is none (-ENOENT: the tree has none) */
	char kconfig_from[192];
	bool can_insert; /* only into the kernel we run on */
	int dirfd[4];    /* --root: the directories libkmod reads, opened confined */
	int ctx_err;     /* why the libkmod context could not be made: not retried */
};

static void normalize(const char *in, char *out, size_t size)
{
	size_t i;

	for (i = 0; i < size - 1 && in[i]; i++)
		out[i] = in[i] == '-' ? '_' : in[i];
	out[i] = '\0';
}

static bool in_builtin_list(struct mods *m, const char *norm)
{
	char rel[PATH_MAX], line[PATH_MAX];
	const char *p;

	if (!m->builtin_read) {
		m->builtin_read = true;
		if (pathf(rel, sizeof(rel), "lib/modules/%s/modules.builtin", m->kernel->release) < 0 ||
		    root_read_file(m->root, rel, &m->builtin, 1 << 22) < 0)
			m->builtin = NULL;
	}
	for (p = m->builtin; p && *p;) {
		const char *nl = strchrnul(p, '\n'), *base = p;
		size_t len = (size_t)(nl - p);

		for (const char *q = p; q < nl; q++)
			if (*q == '/')
				base = q + 1;
		len = (size_t)(nl - base);
		if (len > 3 && len < sizeof(line) && !strncmp(nl - 3, ".ko", 3)) {
			normalize(base, line, len - 3 + 1);
			if (!strcmp(line, norm))
				return true;
		}
		p = *nl ? nl + 1 : nl;
	}
	return false;
}

static int real_state(void *data, const char *name)
{
	struct mods *m = data;
	char norm[64], rel[128], buf[32];
	int r;

	normalize(name, norm, sizeof(norm));
	if (m->kernel->other)
		return in_builtin_list(m, norm) ? MOD_BUILTIN : MOD_ABSENT;
	if (pathf(rel, sizeof(rel), "sys/module/%s/initstate", norm) < 0)
		return -ENAMETOOLONG;
	if (root_read(m->root, rel, buf, sizeof(buf)) > 0)
		return !strcmp(buf, "live") ? MOD_LIVE : MOD_COMING;
	if (in_builtin_list(m, norm))
		return MOD_BUILTIN;
	/* A built-in module with parameters has a directory but no initstate. */
	r = pathf(rel, sizeof(rel), "sys/module/%s", norm);
	if (r == 0)
		r = root_access(m->root, rel);
	return r < 0 ? r : r ? MOD_BUILTIN : MOD_ABSENT;
}

/* libkmod takes paths, not fds. Under --root each directory is opened
 * confined (absolute symlinks of the image stay in the image) and handed over
 * as /proc/self/fd/N; a configuration directory the image lacks is left out. */
static char *confined_dir(struct mods *m, int k, const char *rel)
{
	int fd = root_openat(m->root, rel, O_PATH | O_DIRECTORY, 0);

	if (fd < 0)
		return NULL;
	m->dirfd[k] = fd;
	return xasprintf("/proc/self/fd/%d", fd);
}

static int ctx_get(struct mods *m, struct kmod_ctx **out)
{
	static const char *const conf_rel[] = { "etc/modprobe.d", "run/modprobe.d", "lib/modprobe.d" };
	char *conf[ARRAY_SIZE(conf_rel) + 1] = { NULL }, *dir = NULL, rel[PATH_MAX];
	size_t n = 0;
	int r = 0;

	if (m->ctx || m->ctx_err) {
		*out = m->ctx;
		return m->ctx_err;
	}
	r = pathf(rel, sizeof(rel), "lib/modules/%s", m->kernel->release);
	if (r < 0) {
		m->ctx_err = r;
		*out = NULL;
		return r;
	}
	if (m->root->is_host) {
		dir = xasprintf("/%s", rel);
		for (size_t i = 0; i < ARRAY_SIZE(conf_rel); i++)
			if ((conf[n] = xasprintf("/%s", conf_rel[i])))
				n++;
		r = dir && n == ARRAY_SIZE(conf_rel) ? 0 : -ENOMEM;
	} else {
		dir = confined_dir(m, 0, rel);
		for (size_t i = 0; i < ARRAY_SIZE(conf_rel); i++)
			if ((conf[n] = confined_dir(m, (int)i + 1, conf_rel[i])))
				n++;
		r = dir ? 0 : -ENOENT;
	}
	if (r == 0)
		m->ctx = kmod_new(dir, (const char *const *)conf);
	if (r == 0 && !m->ctx)
		r = -ENOMEM;
	if (r == 0)
		kmod_set_log_fn(m->ctx, NULL, NULL);
	free(dir);
	for (size_t i = 0; i < n; i++)
		free(conf[i]);
	m->ctx_err = r;
	*out = m->ctx;
	return r;
}

static int find_module(struct mods *m, const char *name, struct kmod_module **out)
{
	struct kmod_list *list = NULL;
	struct kmod_ctx *ctx;
	int r = ctx_get(m, &ctx);

	if (r < 0)
		return r;
	r = kmod_module_new_from_lookup(ctx, name, &list);
	if (r < 0)
		return r;
	if (!list)
		return -ENOENT;
	*out = kmod_module_get_module(list);
	kmod_module_unref_list(list);
	return 0;
}

/* The module's path as the image names it: libkmod's path under --root
 * starts with the /proc/self/fd/N it was handed, which means nothing to
 * whoever reads the message. */
static void shown_path(const struct mods *m, const char *p, char *out, size_t size)
{
	char fdpath[64];
	size_t len = (size_t)snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d/", m->dirfd[0]);
	size_t dl = strlen(m->root->dir);

	while (dl > 1 && m->root->dir[dl - 1] == '/')
		dl--;
	if (!m->root->is_host && m->dirfd[0] >= 0 && !strncmp(p, fdpath, len))
		snprintf(out, size, "%.*s/lib/modules/%s/%s", (int)dl, m->root->dir, m->kernel->release, p + len);
	else
		snprintf(out, size, "%s", p);
}

static int real_lookup(void *data, const char *name, struct mod_info *info)
{
	struct mods *m = data;
	struct kmod_list *list = NULL, *allowed = NULL;
	struct kmod_module *mod;
	struct kmod_ctx *ctx;
	const char *p;
	int r = ctx_get(m, &ctx);

	*info = (struct mod_info){ 0 };
	if (r >= 0)
		r = kmod_module_new_from_lookup(ctx, name, &list);
	if (r < 0)
		return r;
	if (!list)
		return -ENOENT;
	mod = kmod_module_get_module(list);
	p = kmod_module_get_path(mod);
	if (p) {
		shown_path(m, p, info->path, sizeof(info->path));
		info->install_cmd = kmod_module_get_install_commands(mod) != NULL;
		info->blacklisted = kmod_module_apply_filter(ctx, KMOD_FILTER_BLACKLIST, list, &allowed) == 0 &&
				    !allowed;
	}
	kmod_module_unref_list(allowed);
	kmod_module_unref(mod);
	kmod_module_unref_list(list);
	return p ? 0 : -ENOENT;
}

static int real_insert(void *data, const char *name, const char *options)
{
	struct mods *m = data;
	struct kmod_module *mod = NULL;
	int r;

	if (!m->root->is_host)
		return -EXDEV;
	r = find_module(m, name, &mod);
	if (r < 0)
		return r;
	/* modprobe.d options apply; install commands are never run. */
	r = kmod_module_probe_insert_module(mod, KMOD_PROBE_APPLY_BLACKLIST | KMOD_PROBE_IGNORE_COMMAND,
					    options, NULL, NULL, NULL);
	kmod_module_unref(mod);
	if (r > 0) /* the flag that stopped it: blacklisted */
		return -EPERM;
	return r == -EEXIST ? 0 : r;
}

int mods_new(struct mods **out, const struct root *r, const struct kernel *k)
{
	struct mods *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->root = r;
	m->kernel = k;
	m->ops = (struct mod_ops){ real_state, real_lookup, real_insert, m };
	m->can_insert = r->is_host;
	for (size_t i = 0; i < ARRAY_SIZE(m->dirfd); i++)
		m->dirfd[i] = -1;
	*out = m;
	return 0;
}

void mods_free(struct mods *m)
{
	if (!m)
		return;
	if (m->ctx)
		kmod_unref(m->ctx);
	for (size_t i = 0; i < ARRAY_SIZE(m->dirfd); i++)
		if (m->dirfd[i] >= 0)
			close(m->dirfd[i]);
	free(m->builtin);
	free(m->kconfig);
	free(m);
}

/* For tests: a fake kernel accepts inserts whatever the root. */
void mods_set_ops(struct mods *m, const struct mod_ops *ops)
{
	m->ops = *ops;
	m->can_insert = true;
}

int mods_state(struct mods *m, const char *name)
{
	return m->ops.state(m->ops.data, name);
}

int mods_lookup(struct mods *m, const char *name, struct mod_info *info)
{
	return m->ops.lookup(m->ops.data, name, info);
}

/* The kernel configuration's word on sym: 'y', 'm', 'n', or 0 when there
 * is no configuration to ask (no sym, none in the tree, unreadable). */
static int kconfig_says(struct mods *m, const char *sym)
{
	if (!sym)
		return 0;
	if (!m->kconfig && !m->kconfig_err)
		m->kconfig_err = kconfig_read(m->root, m->kernel, &m->kconfig, m->kconfig_from,
					      sizeof(m->kconfig_from));
	return m->kconfig ? kconfig_value(m->kconfig, sym) : 0;
}

static int not_configured(struct mods *m, const char *name, const char *sym, char *why, size_t size)
{
	snprintf(why, size, "%s: not in this kernel (%s is not set in %s)", name, sym, m->kconfig_from);
	return 0;
}

/* No module support, or no evidence of it (kernel->no_modules says which):
 * modules.builtin of the release, or the kernel's configuration, still
 * tells what is built in. What neither shows is unknown, said as such. */
static int without_modules(struct mods *m, const char *name, const char *sym, char *why, size_t size)
{
	const struct kernel *k = m->kernel;
	int cfg = kconfig_says(m, sym);
	char list[PATH_MAX + 64];

	in_builtin_list(m, "");
	snprintf(list, sizeof(list), "/lib/modules/%s/modules.builtin", k->release);
	if (cfg == 'y')
		return 1;
	if (cfg == 'n')
		return not_configured(m, name, sym, why, size);
	if (cfg == 'm')
		snprintf(why, size, "%s: a module (%s=m in %s), and %s: %s", name, sym, m->kconfig_from,
			 k->modules_unknown ? "whether the kernel can load modules is unknown" : "the kernel cannot load modules",
			 k->no_modules);
	if (cfg == 'm')
		return k->modules_unknown ? 3 : 0;
	if (k->modules_unknown && m->builtin)
		snprintf(why, size, "%s: not built in (%s does not list it); whether the kernel can load modules is unknown: %s",
			 name, list, k->no_modules);
	else if (k->modules_unknown)
		snprintf(why, size, "%s: built in, loadable or absent is unknown: %s", name, k->no_modules);
	else if (!m->builtin)
		snprintf(why, size, "%s: built in or absent is unknown: no %s in this tree (nor the kernel's configuration; the kernel cannot load modules: %s)",
			 name, list, k->no_modules);
	else
		snprintf(why, size, "%s: kernel has no module support (%s) and does not have it built in", name,
			 k->no_modules);
	return k->modules_unknown || !m->builtin ? 3 : 0;
}

/* A module libkmod cannot find: absent from the kernel's module tree, or
 * unknown where the tree has no module data of this release (an image
 * tree without lib/modules, an unknown release). */
static int not_found(struct mods *m, const char *name, char *why, size_t size)
{
	const char *rel = m->kernel->release;
	char dep[PATH_MAX];

	if (!strcmp(rel, "unknown")) {
		snprintf(why, size, "%s: built in, loadable or absent is unknown: the kernel release is unknown (no /proc/sys/kernel/osrelease or /proc/version in this tree)", name);
		return 3;
	}
	if (pathf(dep, sizeof(dep), "lib/modules/%s/modules.dep", rel) == 0 && root_access(m->root, dep) == 0) {
		snprintf(why, size, "%s: built in, loadable or absent is unknown: no /lib/modules/%s/modules.dep in this tree", name, rel);
		return 3;
	}
	snprintf(why, size, "%s: module not found under /lib/modules/%s", name, rel);
	return 0;
}

int mods_available(struct mods *m, const char *name, char *why, size_t size)
{
	return mods_available_cfg(m, name, NULL, why, size);
}

int mods_available_cfg(struct mods *m, const char *name, const char *sym, char *why, size_t size)
{
	struct mod_info info;
	int st = m->ops.state(m->ops.data, name);

	if (st == MOD_LIVE || st == MOD_BUILTIN)
		return 1;
	if (!m->kernel->modules)
		return without_modules(m, name, sym, why, size);
	if (m->ops.lookup(m->ops.data, name, &info) < 0) {
		/* Built in without parameters: no /sys/module entry, and a
		 * module tree (modules.builtin) the tree may lack. */
		if (kconfig_says(m, sym) == 'y')
			return 1;
		return not_found(m, name, why, size);
	}
	/* An image's first boot loads it into the image's own kernel. */
	if (!m->can_insert && !m->root->boot) {
		snprintf(why, size, "%s: would load %s, but modules reach only the running kernel, not --root %s",
			 name, info.path, m->root->dir);
		return 0;
	}
	if (info.blacklisted) {
		snprintf(why, size, "%s: blacklisted in modprobe.d", name);
		return 0;
	}
	return 2;
}

int mods_load(struct mods *m, const char *name, const char *options)
{
	int st = m->ops.state(m->ops.data, name);

	if (st == MOD_LIVE || st == MOD_BUILTIN)
		return 0;
	if (!m->can_insert)
		return -EXDEV;
	progress();
	return m->ops.insert(m->ops.data, name, options);
}
