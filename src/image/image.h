/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Images: the kernels installed in a tree (image.c), the initramfs domain
 * (initramfs.c: does the image of the kernel carry the root's earlytune?)
 * and `verify --image` (verify.c). For main.c, and src/domains.c for the
 * initramfs domain's row.
 */
#pragma once

#include <stddef.h>

#include "earlytune.h"

/* ---- image.c: the kernels installed in a tree ---- */
struct kernels {
	char **v;
	size_t n;
	int err;
};
int image_kernels(const struct root *r, struct kernels *ks); /* count, or -errno */
void kernels_list(const struct kernels *ks, char *buf, size_t size);
void kernels_free(struct kernels *ks);
int kernel_image(struct kernel *k, const struct root *r, char *buf, size_t size, const char **where);

/* ---- initramfs.c: the domain's entry point ---- */
int initramfs_plan(struct ctx *c, struct plan *p);

/* ---- verify.c ---- */
int cmd_verify_image(struct ctx *c);

/* ---- machine.c: plan of an unbooted image = its first boot ---- */
/* 0, or -EINVAL said (exit 2): --machine where it has no meaning, a bad
 * description, a view that cannot be written. */
int machine_setup(struct ctx *c, const char *command, const char *file);
