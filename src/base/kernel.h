/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * kernel.c: the kernel of the root being looked at. Anyone may include it.
 */
#pragma once

#include <limits.h>
#include <stdbool.h>

struct root;

struct kernel {
	char release[128];
	unsigned version; /* KV(major, minor) */
	char *cmdline;
	bool hv_probed;   /* kernel_hypervisor asked once: hypervisor holds the answer */
	int hypervisor;   /* once probed: 0 no, 1 yes, else -errno of the read that failed */
	char hv_why[192];
	bool modules;     /* CONFIG_MODULES: /proc/modules exists */
	char no_modules[192]; /* !modules: the evidence (no /proc/modules, and
			       * proc/sys/kernel without modprobe), said as such; */
	bool modules_unknown; /* it is missing from the tree: no fact either way */
	bool other;       /* --kernel named another release than the running one */
	const char *unreadable; /* kernel_probe: the file whose read failed (not ENOENT) */
	/* Where the release came from: "proc" (the tree's /proc), "option"
	 * (--kernel), "image" (the only kernel installed), NULL: unknown. */
	const char *from;
};
#define KV(a, b) ((unsigned)(a) << 8 | (unsigned)(b))
int kernel_probe(struct kernel *k, const struct root *r);
void kernel_target(struct kernel *k, const struct root *r, const char *release);
int kernel_hypervisor(struct kernel *k, const struct root *r);
void kernel_free(struct kernel *k);
