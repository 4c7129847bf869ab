/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The confined root: every path below /sys /proc /etc /run /dev /lib goes
 * through here. root.c resolves, fileio.c reads and writes. Anyone may
 * include it.
 */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/util.h"

/* ---- root.c ---- */
struct root {
	int fd;
	char *dir;     /* as given, for messages */
	bool is_host;  /* the running system's "/": only then may we touch the kernel directly */
	/* An image seen as its first boot: its sys/ and proc/ are this tree's
	 * (the image kernel's and the target machine's, see image/machine.c). */
	struct root *boot;
	bool owned;    /* a directory of our own: root_close removes it */
};
int root_open(struct root *r, const char *dir);
void root_close(struct root *r);
/* Outside the host root every operation resolves inside it: openat2
 * RESOLVE_IN_ROOT (retried on EAGAIN), or on kernels without it a
 * component-by-component walk with the same rules; never a plain openat. */
int root_openat(const struct root *r, const char *rel, int flags, int mode);
int root_readlink(const struct root *r, const char *rel, char *buf, size_t size);
/* rel with every link on the way resolved through the root, root-relative
 * ("sys/block/vda" -> "sys/devices/.../block/vda"); -errno. */
int root_realpath(const struct root *r, const char *rel, char *out, size_t size);
bool root_exists(const struct root *r, const char *rel);
int root_access(const struct root *r, const char *rel); /* 1, 0 (absent) or -errno */
int access_verdict(int fd);
int root_missing(const struct root *r, const char *rel, char *miss, size_t size);
int root_match(const struct root *r, const char *dir, const char *pattern,
	       void (*fn)(const char *rel, void *data), void *data); /* count, or -errno */
int root_list(const struct root *r, const char *dir, const char *pattern,
	      void (*fn)(const char *rel, void *data), void *data); /* root_match; absent: -ENOENT */
const char *root_rel_path(const char *rel); /* rel without leading slashes, "." for none */
/* rootdir.c */
int root_mkdir_p(const struct root *r, const char *rel, int mode);
int root_parent(const struct root *r, const char *rel, char *last, size_t size);
int root_unlink(const struct root *r, const char *rel, int flags);
int root_rename(const struct root *r, const char *from, const char *to);
int readlink_whole(int dfd, const char *name, char *buf, size_t size); /* length, or -ENAMETOOLONG */
extern bool root_no_openat2; /* tests: use the resolver of kernels without openat2 */

/* ---- rdir.c: a directory held open below the root ---- */
struct rdir {
	const struct root *root;
	int fd;
	bool held;           /* fd is open; else every path below goes through the root */
	char path[PATH_MAX]; /* root-relative */
};
int rdir_open(struct rdir *d, const struct root *r, const char *rel);
void rdir_unheld(struct rdir *d, const struct root *r, const char *rel);
void rdir_adopt(struct rdir *d, const struct root *r, const char *rel, int fd);
void rdir_close(struct rdir *d);
int rdir_openat(const struct rdir *d, const char *rel, int flags, int mode); /* fd or -errno */
int rdir_read(const struct rdir *d, const char *rel, char *buf, size_t size); /* length, trimmed */
int rdir_read_selector(const struct rdir *d, const char *rel, char *raw, size_t rsize, char *active,
		       size_t asize);
int rdir_readlink(const struct rdir *d, const char *rel, char *buf, size_t size);
int rdir_access(const struct rdir *d, const char *rel); /* 1, 0 (absent) or -errno */
/* An fd held from a read to a write: false when the file limit allows no
 * more (the caller closes it and writes by path); fd_release closes one. */
bool fd_hold(void);
void fd_release(int fd);

/* ---- fileio.c: reading and writing through the root ---- */
int pathf(char *buf, size_t size, const char *fmt, ...) _printf_(3, 4); /* 0 or -ENAMETOOLONG */
int root_read(const struct root *r, const char *rel, char *buf, size_t size); /* length, trimmed */
int root_trimmed(char *buf, ssize_t n);
/* A selector file: raw and its active choice ("" when none is marked); length or -errno. */
int root_read_selector(const struct root *r, const char *rel, char *raw, size_t rsize, char *active, size_t asize); /* a read's n bytes as a value: trailing white space gone */
int root_read_u64(const struct root *r, const char *rel, unsigned long long *v);
int root_read_file(const struct root *r, const char *rel, char **out, size_t max);
int root_write(const struct root *r, const char *rel, const char *value); /* one write() */
int root_write_readback(const struct root *r, const char *rel, const char *value, char *buf, size_t size,
			int *got);
int fd_write_readback(int fd, size_t oldlen, const char *value, char *buf, size_t size, int *got);
#define VALUE_LINE_SMALL 128
const char *value_line(const char *value, char *small, char **big, size_t *len);
int root_write_atomic(const struct root *r, const char *rel, const char *data, size_t len, int mode);
int file_replace_at(int dfd, const char *last, const char *data, size_t len, int mode, bool durable);
int root_write_new(const struct root *r, const char *rel, const char *data, size_t len, int mode);
int root_open_append(const struct root *r, const char *rel, off_t *size); /* fd (O_RDWR | O_APPEND) or -errno */
int root_append_known(const struct root *r, const char *rel, const char *data, size_t len, off_t size, int mode);
void root_sweep_temps(const struct root *r, const char *dir, const char *name1, const char *name2);
int write_full(int fd, const void *data, size_t len);
