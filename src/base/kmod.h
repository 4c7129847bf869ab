/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * kmod.c: libkmod behind a seam so tests can fake the kernel. Anyone may
 * include it.
 */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct root;
struct kernel;

enum mod_state { MOD_ABSENT, MOD_LIVE, MOD_BUILTIN, MOD_COMING };
struct mod_info {
	char path[PATH_MAX];
	bool blacklisted;  /* a modprobe.d blacklist names it */
	bool install_cmd;  /* a modprobe.d install command exists: never run */
};
struct mod_ops {
	int (*state)(void *data, const char *name);                       /* enum mod_state or -errno */
	int (*lookup)(void *data, const char *name, struct mod_info *info); /* 0, -ENOENT */
	int (*insert)(void *data, const char *name, const char *options);  /* 0 or -errno */
	void *data;
};
struct mods;
int mods_new(struct mods **out, const struct root *r, const struct kernel *k);
void mods_free(struct mods *m);
void mods_set_ops(struct mods *m, const struct mod_ops *ops);
/* 1: in the kernel now; 2: can be loaded; 0: neither (why says so);
 * 3: unknown (the tree shows neither the module nor what is built in). */
int mods_available(struct mods *m, const char *name, char *why, size_t size);
/* The same, asking the kernel's configuration about sym (CONFIG_…, or
 * NULL) where modules.builtin and the module tree cannot tell. */
int mods_available_cfg(struct mods *m, const char *name, const char *sym, char *why, size_t size);
int mods_state(struct mods *m, const char *name);
int mods_lookup(struct mods *m, const char *name, struct mod_info *info);
int mods_load(struct mods *m, const char *name, const char *options);
