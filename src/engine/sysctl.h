/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sysctl.c: what systemd-sysctl will do after us, and the guard apply writes
 * against it. For the engine, the commands (main.c, image/verify.c), the
 * domains that set sysctls (net/, sched/) and the sysctl.d writer reader
 * (writers/files.c).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "earlytune.h"

#define SYSCTL_GUARD "60-earlytune.conf"
#define SYSCTL_GUARD_PATH "run/sysctl.d/" SYSCTL_GUARD
struct sysctl_visit {
	void (*fn)(const char *rel, int line, const char *key, const char *value, void *data);
	void (*error)(const char *rel, int err, void *data); /* NULL: not said */
	void *data;
};
int sysctl_each(const struct root *r, const struct sysctl_visit *v);
int sysctl_final(const struct root *r, const char *key, char *value, size_t vsize, char *file,
		 size_t fsize);
int sysctl_guard(const struct config *cfg, FILE *out);
int sysctl_write_guard(const struct root *r, const struct config *cfg); /* cfg NULL: empty */
int sysctl_remove_guard(const struct root *r);
bool sysctl_guard_scope(const struct ctx *c);
void sysctl_warn_override(const struct root *r, struct item *it, const char *key, const char *want);
