/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * kconfig.c: the build configuration of the kernel a root is about. Anyone
 * may include it.
 */
#pragma once

#include <stddef.h>

struct root;
struct kernel;

/* The text of /boot/config-RELEASE, or for the kernel the tree runs (not
 * --kernel) of /proc/config.gz: 0 with *text (to free) and from naming the
 * file, -ENOENT when the tree has neither, else -errno. */
int kconfig_read(const struct root *r, const struct kernel *k, char **text, char *from, size_t size);
/* 'y' built in, 'm' a module, 'n' not set (or absent: the file lists every
 * symbol whose dependencies are met). */
int kconfig_value(const char *text, const char *sym);
/* A string symbol (CONFIG_DEFAULT_TCP_CONG="cubic"): 0, or -ENOENT. */
int kconfig_string(const char *text, const char *sym, char *buf, size_t size);
