// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A directory of the root held open: paths below it resolve from its fd,
 * not again from the root through every symlink on the way (a sysfs disk's
 * attributes lie past the link sys/block/X). Confined as root.c
 * confines: below a held directory openat2 RESOLVE_BENEATH, and a path that
 * leaves it (a ".." above it, an absolute or escaping link: EXDEV) is
 * resolved from the root as any path is, so a held directory never changes
 * where a path leads. Also: attribute fds held open from the read of a
 * value to its write, within a budget of the file limit.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/root.h"

/* openat2(2) asks for retries on EAGAIN; bounded as root.c bounds them. */
#define BENEATH_RETRIES 64

/* rel into d->path as fmt "%s" puts it (cut to fit): false when cut. A
 * copy, not fmt: every disk's directory is held. */
static bool set_path(struct rdir *d, const char *rel)
{
	str_copy(d->path, sizeof(d->path), rel);
	return strlen(rel) < sizeof(d->path);
}

int rdir_open(struct rdir *d, const struct root *r, const char *rel)
{
	d->root = r;
	d->held = false;
	if (!set_path(d, rel))
		return -ENAMETOOLONG;
	d->fd = root_openat(r, rel, O_PATH | O_DIRECTORY, 0);
	if (d->fd < 0)
		return d->fd;
	d->held = true;
	return 0;
}

/* fd, a directory rel opened by root_openat (O_PATH is enough), held as
 * rdir_open would hold it; d owns it. */
void rdir_adopt(struct rdir *d, const struct root *r, const char *rel, int fd)
{
	d->root = r;
	d->fd = fd;
	d->held = set_path(d, rel);
	if (!d->held) {
		close(fd);
		d->fd = -1;
	}
}

/* Not held: every path below it goes through the root (a directory that
 * could not be opened fails or is absent each time as it did once). */
void rdir_unheld(struct rdir *d, const struct root *r, const char *rel)
{
	d->root = r;
	d->held = false;
	d->fd = -1;
	set_path(d, rel);
}

void rdir_close(struct rdir *d)
{
	if (d->held)
		close(d->fd);
	d->held = false;
	d->fd = -1;
}

static int beneath(int dirfd, const char *rel, int flags, int mode)
{
	struct open_how how = {
		.flags = (unsigned long long)(flags | O_CLOEXEC),
		.mode = (unsigned long long)((flags & (O_CREAT | O_TMPFILE)) ? mode : 0),
		.resolve = RESOLVE_BENEATH,
	};

	for (int i = 0; i < BENEATH_RETRIES; i++) {
		long fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));

		if (fd >= 0)
			return (int)fd;
		if (errno != EAGAIN)
			return -errno;
	}
	return -EAGAIN;
}

/* Paths through the root are made in a short buffer where they fit: a
 * PATH_MAX one would put the walk below it a page deeper into the stack,
 * and each page of stack a udev run touches is a fault. */
#define SHORT_PATH 256

static __attribute__((noinline)) int via_root_long(const struct rdir *d, const char *rel, int flags, int mode)
{
	char path[PATH_MAX];
	int r = pathf(path, sizeof(path), "%s/%s", d->path, rel);

	return r < 0 ? r : root_openat(d->root, path, flags, mode);
}

static int via_root(const struct rdir *d, const char *rel, int flags, int mode)
{
	char path[SHORT_PATH];

	if (pathf(path, sizeof(path), "%s/%s", d->path, rel) < 0)
		return via_root_long(d, rel, flags, mode);
	return root_openat(d->root, path, flags, mode);
}

int rdir_openat(const struct rdir *d, const char *rel, int flags, int mode)
{
	int fd;

	if (!d->held || root_no_openat2 || *rel == '/')
		return via_root(d, rel, flags, mode);
	if (d->root->is_host) {
		fd = openat(d->fd, rel, flags | O_CLOEXEC, mode);
		return fd < 0 ? -errno : fd;
	}
	fd = beneath(d->fd, rel, flags, mode);
	return fd == -EXDEV || fd == -ENOSYS ? via_root(d, rel, flags, mode) : fd;
}

/* root_read below d. */
int rdir_read(const struct rdir *d, const char *rel, char *buf, size_t size)
{
	_cleanup_(closep) int fd = rdir_openat(d, rel, O_RDONLY, 0);

	return fd < 0 ? fd : root_trimmed(buf, read(fd, buf, size - 1));
}

/* root_read_selector below d: raw, its active choice ("" when none is
 * marked), the length or -errno. */
int rdir_read_selector(const struct rdir *d, const char *rel, char *raw, size_t rsize, char *active, size_t asize)
{
	int n = rdir_read(d, rel, raw, rsize);

	*active = '\0';
	if (n >= 0 && selector_active(raw, active, asize) < 0)
		*active = '\0';
	return n;
}

static __attribute__((noinline)) int readlink_via_root(const struct rdir *d, const char *rel, char *buf, size_t size)
{
	char path[PATH_MAX];
	int r = pathf(path, sizeof(path), "%s/%s", d->path, rel);

	return r < 0 ? r : root_readlink(d->root, path, buf, size);
}

/* root_readlink below d: the link itself is never followed. */
int rdir_readlink(const struct rdir *d, const char *rel, char *buf, size_t size)
{
	const char *slash = strrchr(rel, '/');
	char dir[SHORT_PATH];
	_cleanup_(closep) int dfd = -1;

	if (!d->held || root_no_openat2 || *rel == '/' || (slash && !slash[1]) ||
	    (slash && (size_t)(slash - rel) >= sizeof(dir)))
		return readlink_via_root(d, rel, buf, size);
	/* On the host there is no root to leave: the kernel walks to the link
	 * (one call, not an open, a readlinkat and a close); below another root
	 * the directory holding it is opened confined, as a path only. */
	if (slash && !d->root->is_host) {
		memcpy(dir, rel, (size_t)(slash - rel));
		dir[slash - rel] = '\0';
		dfd = rdir_openat(d, dir, O_PATH | O_DIRECTORY, 0);
		if (dfd < 0)
			return dfd;
		rel = slash + 1;
	}
	return readlink_whole(dfd >= 0 ? dfd : d->fd, rel, buf, size);
}

/* root_access below d: 1, 0 (absent) or -errno. */
int rdir_access(const struct rdir *d, const char *rel)
{
	return access_verdict(rdir_openat(d, rel, O_PATH, 0));
}

/* ---- attribute fds held from the read to the write ------------------------
 * A 1,000-disk apply holds two per disk, past a soft limit of 1,024: the
 * soft limit is raised to the hard one once, and past what that allows
 * (less a reserve for everything else a run opens) a value is read and
 * written by path, as without holding. The first FD_FREE are held without
 * asking: a run of a few disks (udev's, one disk) then makes no limit
 * calls, and no limit a run can work under (FD_RESERVE and more) is
 * passed by them. */
#define FD_RESERVE 64
#define FD_FREE 8
#define FD_CAP 65536

static long held_fds, fd_budget = -1;

static long budget(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 0;
	if (rl.rlim_cur < rl.rlim_max && rl.rlim_cur < FD_CAP) {
		struct rlimit raised = { rl.rlim_max < FD_CAP ? rl.rlim_max : FD_CAP, rl.rlim_max };

		if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
			rl.rlim_cur = raised.rlim_cur;
	}
	return rl.rlim_cur > FD_RESERVE ? (long)(rl.rlim_cur > FD_CAP ? FD_CAP : rl.rlim_cur) - FD_RESERVE : 0;
}

bool fd_hold(void)
{
	if (fd_budget < 0 && held_fds >= FD_FREE)
		fd_budget = budget();
	if (held_fds >= (fd_budget < 0 ? FD_FREE : fd_budget))
		return false;
	held_fds++;
	return true;
}

/* Closes fd (none: -1) and gives its place back. */
void fd_release(int fd)
{
	if (fd >= 0)
		close(fd);
	if (held_fds > 0)
		held_fds--;
}

/* root_write_readback through an attribute held open since its value was
 * read (oldlen bytes, as read): cut to the value's length when the old one
 * was longer (a fake tree's regular file; sysfs ignores it, as it ignores
 * O_TRUNC), written at offset 0, read back at 0; then closed. Cut, not
 * emptied: on tmpfs an emptied file gives its page back and the write takes
 * a new one (zeroed), twice the kernel's work. A write that fails after the
 * cut empties the file, as an O_TRUNC open leaves a fake attribute whose
 * write failed: never a part of the old value. */
int fd_write_readback(int fd, size_t oldlen, const char *value, char *buf, size_t size, int *got)
{
	char small[VALUE_LINE_SMALL];
	_cleanup_(freep) char *big = NULL;
	size_t len;
	const char *line = value_line(value, small, &big, &len);
	ssize_t n;
	int rr = 0;

	if (!line)
		rr = -ENOMEM;
	else if (len < oldlen && ftruncate(fd, (off_t)len) < 0)
		rr = -errno;
	else if ((n = pwrite(fd, line, len, 0)) != (ssize_t)len) {
		rr = n < 0 ? -errno : -EIO;
		if (len < oldlen)
			rr = ftruncate(fd, 0) < 0 ? -errno : rr;
	}
	*got = rr < 0 ? rr : root_trimmed(buf, pread(fd, buf, size - 1, 0));
	fd_release(fd);
	return rr;
}
