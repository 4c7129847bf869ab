// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Rooted file access, in the manner of `lsblk --sysroot`: one directory fd,
 * every path relative to it. Outside the host root, openat2(RESOLVE_IN_ROOT)
 * keeps absolute symlinks of a captured tree inside that tree.
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "earlytune.h"

int root_open(struct root *r, const char *dir)
{
	struct stat a, b;

	r->fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->fd < 0)
		return -errno;
	r->dir = strdup(dir);
	if (!r->dir) {
		root_close(r);
		return -ENOMEM;
	}
	r->is_host = fstat(r->fd, &a) == 0 && stat("/", &b) == 0 &&
		     a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	return 0;
}

void root_close(struct root *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	free(r->dir);
	r->dir = NULL;
}

static const char *rel_path(const char *rel)
{
	while (*rel == '/')
		rel++;
	return *rel ? rel : ".";
}

int root_openat(const struct root *r, const char *rel, int flags, int mode)
{
	static bool no_openat2;
	struct open_how how = {
		.flags = (unsigned long long)(flags | O_CLOEXEC),
		.mode = (unsigned long long)mode,
		.resolve = RESOLVE_IN_ROOT,
	};
	int fd;

	rel = rel_path(rel);
	if (!r->is_host && !no_openat2) {
		fd = (int)syscall(SYS_openat2, r->fd, rel, &how, sizeof(how));
		if (fd >= 0)
			return fd;
		if (errno != ENOSYS)
			return -errno;
		no_openat2 = true;
	}
	fd = openat(r->fd, rel, flags | O_CLOEXEC, mode);
	return fd < 0 ? -errno : fd;
}

/* Reads one attribute: at most size-1 bytes, trailing white space removed. */
int root_read(const struct root *r, const char *rel, char *buf, size_t size)
{
	_cleanup_(closep) int fd = root_openat(r, rel, O_RDONLY, 0);
	ssize_t n;
	size_t len;

	if (fd < 0)
		return fd;
	n = read(fd, buf, size - 1);
	if (n < 0)
		return -errno;
	/* Captured trees pad attributes with NULs: the value ends at the first. */
	len = strnlen(buf, (size_t)n);
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' ' || buf[len - 1] == '\t'))
		len--;
	buf[len] = '\0';
	return (int)len;
}

/* Writes one attribute in a single write(), as sysfs wants. O_TRUNC makes the
 * same call work on the regular files of a fake tree; no O_CREAT, so a
 * missing attribute stays missing. */
int root_write(const struct root *r, const char *rel, const char *value)
{
	_cleanup_(closep) int fd = root_openat(r, rel, O_WRONLY | O_TRUNC, 0);
	_cleanup_(freep) char *line = xasprintf("%s\n", value);
	ssize_t n;

	if (fd < 0)
		return fd;
	if (!line)
		return -ENOMEM;
	n = write(fd, line, strlen(line));
	if (n < 0)
		return -errno;
	return (size_t)n == strlen(line) ? 0 : -EIO;
}

int root_read_file(const struct root *r, const char *rel, char **out, size_t max)
{
	_cleanup_(closep) int fd = root_openat(r, rel, O_RDONLY, 0);
	size_t len = 0, cap = 4096;
	char *buf = NULL, *nbuf;
	ssize_t n;

	if (fd < 0)
		return fd;
	for (;;) {
		nbuf = realloc(buf, cap + 1);
		if (!nbuf) {
			free(buf);
			return -ENOMEM;
		}
		buf = nbuf;
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			free(buf);
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len >= max) {
			free(buf);
			return -EFBIG;
		}
		if (len == cap)
			cap *= 2;
	}
	buf[len] = '\0';
	*out = buf;
	return (int)len;
}

int root_readlink(const struct root *r, const char *rel, char *buf, size_t size)
{
	ssize_t n = readlinkat(r->fd, rel_path(rel), buf, size - 1);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return (int)n;
}

/* The entries of directory dir (below the root) whose names match pattern;
 * fn gets each as a root-relative path. Not glob(3): that pulls the NSS
 * code of static glibc in (for ~user), 200 KB of a binary that must stay
 * small. Returns the number of matches. */
int root_match(const struct root *r, const char *dir, const char *pattern,
	       void (*fn)(const char *rel, void *data), void *data)
{
	int fd = root_openat(r, dir, O_RDONLY | O_DIRECTORY, 0), n = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while ((de = readdir(d))) {
		char rel[PATH_MAX];

		if (de->d_name[0] == '.' || fnmatch(pattern, de->d_name, 0))
			continue;
		n++;
		snprintf(rel, sizeof(rel), "%s/%s", rel_path(dir), de->d_name);
		if (fn)
			fn(rel, data);
	}
	closedir(d);
	return n;
}

bool root_exists(const struct root *r, const char *rel)
{
	_cleanup_(closep) int fd = root_openat(r, rel, O_PATH, 0);

	return fd >= 0;
}

int root_mkdir_p(const struct root *r, const char *rel, int mode)
{
	char path[PATH_MAX], *p;

	if (snprintf(path, sizeof(path), "%s", rel_path(rel)) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	for (p = path;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char saved = *p;
		*p = '\0';
		if (mkdirat(r->fd, path, (mode_t)mode) < 0 && errno != EEXIST)
			return -errno;
		*p = saved;
		if (!saved)
			return 0;
	}
}
