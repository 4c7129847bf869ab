/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An initramfs image, read as the kernel unpacks it: concatenated newc cpio
 * archives, uncompressed (the early-microcode prefix) or gzip/xz/lzma/zstd
 * compressed. initrd_check says whether the image of a kernel carries the
 * root's earlytune binary and configuration (initrd.c); initrd_walk is the
 * reader under it (cpio.c), which streams: only a window of the image and
 * the files compared are in memory. Only image/ and its tests include it.
 */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct root;

enum initrd_state { INITRD_NONE, INITRD_UNREADABLE, INITRD_WITHOUT, INITRD_STALE, INITRD_CURRENT };
/* NONE: no image for that kernel; WITHOUT: the image has no earlytune binary;
 * STALE: its earlytune binary or configuration differs from the root's. */
struct initrd_report {
	enum initrd_state state;
	char image[PATH_MAX];   /* the image found, relative to the root */
	char shown[PATH_MAX + 16]; /* the same, or "UKI (its .initrd)" */
	char differs[PATH_MAX]; /* first file that differs, is missing or extra; "" */
	char detail[256];       /* one sentence for a person */
	const char *rebuild;    /* "update-initramfs -u -k VER", "dracut -f --kver VER" or a UKI's builders;
				 * points into cmd below: a copy of the struct must re-point it */
	char cmd[NAME_MAX + 64];
};
/* 0 with rep filled (every state, UNREADABLE included), or -errno when the
 * root cannot be read (not the image's fault). */
int initrd_check(const struct root *r, const char *kver, struct initrd_report *rep);

/* ---- cpio.c: the reader ---- */
#define INITRD_MAX_IMAGE (1024u << 20) /* bytes of image read */
#define INITRD_MAX_OUTPUT (2ull << 30) /* bytes decompressed: a bomb stops here */

/* What the reader hands over: each entry (name without "./" or "/"), and
 * the data of those begin() asked for, in pieces, then end(). */
struct cpio_sink {
	bool (*begin)(void *data, const char *name, unsigned mode, uint32_t size);
	void (*chunk)(void *data, const unsigned char *p, size_t n);
	void (*end)(void *data);
	void *data;
};
/* 0, -EBADMSG (not a newc initramfs, or corrupt), -EFBIG (past
 * INITRD_MAX_OUTPUT), -EPROTONOSUPPORT (a compression not linked: its name
 * in *comp), -ENOMEM. */
int initrd_walk(const unsigned char *img, size_t len, const struct cpio_sink *sink, const char **comp);
/* The same from a file, read in windows of 256 KiB; also the read's -errno,
 * and -EFBIG past INITRD_MAX_IMAGE. */
int initrd_walk_fd(int fd, const struct cpio_sink *sink, const char **comp);
/* The same from len bytes at off (a UKI's .initrd section). */
int initrd_walk_part(int fd, unsigned long long off, unsigned long long len, const struct cpio_sink *sink,
		     const char **comp);
