// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Entries of the root's directories made, removed, renamed and read (a
 * link's target): each call works in the directory that holds the entry,
 * opened as confined as any open, on the last component alone (mkdirat,
 * unlinkat, renameat and readlinkat never follow it), so nothing they do
 * can leave the root.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/root.h"

/* rel's directory ("." for none) and its last component. */
static int split_parent(const char *rel, char dir[PATH_MAX], char *last, size_t size)
{
	char *slash, *name;
	size_t len;

	if (fmt(dir, PATH_MAX, "%s", root_rel_path(rel)) >= PATH_MAX)
		return -ENAMETOOLONG;
	len = strlen(dir);
	while (len > 1 && dir[len - 1] == '/')
		dir[--len] = '\0';
	slash = strrchr(dir, '/');
	name = slash ? slash + 1 : dir;
	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	if (strlen(name) >= size)
		return -ENAMETOOLONG;
	strcpy(last, name);
	if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	return 0;
}

/* The directory that holds rel's last component, opened as confined as any
 * open; the component goes to last. mkdirat, unlinkat, renameat and
 * readlinkat on (dirfd, last) never follow last, so nothing they do can
 * leave the root. */
int root_parent(const struct root *r, const char *rel, char *last, size_t size)
{
	char dir[PATH_MAX];
	int rr = split_parent(rel, dir, last, size);

	return rr < 0 ? rr : root_openat(r, dir, O_RDONLY | O_DIRECTORY, 0);
}

/* The link's target, whole: one that does not fit is -ENAMETOOLONG, never
 * a cut one (a cut device path would still name a device, and hash as one). */
int root_readlink(const struct root *r, const char *rel, char *buf, size_t size)
{
	char last[NAME_MAX + 1];
	_cleanup_(closep) int dfd = root_parent(r, rel, last, sizeof(last));

	return dfd < 0 ? dfd : readlink_whole(dfd, last, buf, size);
}

/* readlinkat(2), whole: it cuts silently, so a target that fills the
 * buffer may be cut. */
int readlink_whole(int dfd, const char *name, char *buf, size_t size)
{
	ssize_t n = readlinkat(dfd, name, buf, size);

	if (n < 0)
		return -errno;
	if ((size_t)n >= size)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	return (int)n;
}

/* The kernel's name for an open file (/proc/self/fd/N). */
static int fd_name(int fd, char *out, size_t size)
{
	char link[32];

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	return readlink_whole(AT_FDCWD, link, out, size);
}

/* name below the directory fd top names, root-relative in place: 1; 0 when
 * it is not below it. */
static int below(int top, char *name)
{
	char dir[PATH_MAX];
	const char *p;
	int n = fd_name(top, dir, sizeof(dir));

	if (n < 0)
		return n;
	if (!strcmp(dir, "/"))
		n = 0;
	if (strncmp(name, dir, n) || (name[n] != '/' && name[n]))
		return 0;
	for (p = name + n; *p == '/'; p++)
		;
	memmove(name, *p ? p : ".", strlen(*p ? p : ".") + 1);
	return 1;
}

/* The file's name, as the kernel gives it, is below the tree that holds it:
 * an image's sys/ and proc/ are its boot tree's. */
int root_realpath(const struct root *r, const char *rel, char *out, size_t size)
{
	_cleanup_(closep) int fd = root_openat(r, rel, O_PATH, 0);
	int n = fd < 0 ? fd : fd_name(fd, out, size);

	if (n >= 0 && r->boot)
		n = below(r->boot->fd, out);
	if (n >= 0 && (!r->boot || n == 0))
		n = below(r->fd, out);
	if (n == 0)
		return -EXDEV; /* not below the root: not a name of it */
	return n < 0 ? n : 0;
}

/* rel's parent first, made only when it is missing: a directory whose
 * parent exists (every run but a boot's first) costs one open, one mkdirat
 * and one close. Each component is created in the directory its parent
 * resolved to, so an absolute symlink in the image (run -> /run) stays
 * inside the root; one that exists is checked to resolve to a directory. */
int root_mkdir_p(const struct root *r, const char *rel, int mode)
{
	char path[PATH_MAX], last[NAME_MAX + 1], *slash;
	size_t len;
	int dfd, rr;


	if (fmt(path, sizeof(path), "%s", root_rel_path(rel)) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	for (len = strlen(path); len > 1 && path[len - 1] == '/';)
		path[--len] = '\0';
	dfd = root_parent(r, path, last, sizeof(last));
	if (dfd == -EINVAL) /* "." or empty: the root itself */
		return 0;
	if (dfd == -ENOENT && (slash = strrchr(path, '/'))) {
		*slash = '\0';
		rr = root_mkdir_p(r, path, mode);
		*slash = '/';
		if (rr < 0)
			return rr;
		dfd = root_parent(r, path, last, sizeof(last));
	}
	if (dfd < 0)
		return dfd;
	rr = mkdirat(dfd, last, (mode_t)mode) < 0 ? -errno : 0;
	close(dfd);
	if (rr != -EEXIST)
		return rr;
	rr = root_openat(r, path, O_PATH | O_DIRECTORY, 0);
	if (rr < 0)
		return rr;
	close(rr);
	return 0;
}

int root_unlink(const struct root *r, const char *rel, int flags)
{
	char last[NAME_MAX + 1];
	_cleanup_(closep) int dfd = root_parent(r, rel, last, sizeof(last));

	if (dfd < 0)
		return dfd;
	if (unlinkat(dfd, last, flags) < 0)
		return -errno;
	return fsync(dfd) < 0 && errno != EINVAL ? -errno : 0;
}

/* Within one directory (a rewrite's rotation), that directory is opened
 * once. */
int root_rename(const struct root *r, const char *from, const char *to)
{
	char a[NAME_MAX + 1], b[NAME_MAX + 1], dir_a[PATH_MAX], dir_b[PATH_MAX];
	_cleanup_(closep) int da = -1;
	_cleanup_(closep) int db = -1;
	int rr = split_parent(from, dir_a, a, sizeof(a)), dto;

	if (rr == 0)
		rr = split_parent(to, dir_b, b, sizeof(b));
	if (rr == 0)
		rr = da = root_openat(r, dir_a, O_RDONLY | O_DIRECTORY, 0);
	if (rr < 0)
		return rr;
	dto = strcmp(dir_a, dir_b) ? (db = root_openat(r, dir_b, O_RDONLY | O_DIRECTORY, 0)) : da;
	if (dto < 0)
		return dto;
	if (renameat(da, a, dto, b) < 0)
		return -errno;
	return fsync(dto) < 0 && errno != EINVAL ? -errno : 0;
}
