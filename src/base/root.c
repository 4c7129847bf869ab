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
#include <time.h>
#include <unistd.h>

#include "base/root.h"

int root_open(struct root *r, const char *dir)
{
	struct stat a, b;

	r->boot = NULL;
	r->owned = false;
	r->fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->fd < 0)
		return -errno;
	r->dir = strdup(dir);
	if (!r->dir) {
		root_close(r);
		return -ENOMEM;
	}
	/* "/" is the host's by definition (udev's runs, no --root): two stats fewer. */
	r->is_host = !strcmp(dir, "/") || (fstat(r->fd, &a) == 0 && stat("/", &b) == 0 &&
					   a.st_dev == b.st_dev && a.st_ino == b.st_ino);
	return 0;
}

void root_close(struct root *r)
{
	if (r->boot) {
		root_close(r->boot);
		free(r->boot);
		r->boot = NULL;
	}
	if (r->owned && r->dir)
		remove_tree(AT_FDCWD, r->dir);
	r->owned = false;
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	free(r->dir);
	r->dir = NULL;
}

const char *root_rel_path(const char *rel)
{
	while (*rel == '/')
		rel++;
	return *rel ? rel : ".";
}

/* Tests set this to run the resolver that kernels without openat2 (< 5.6) get. */
bool root_no_openat2;

/* openat2(2): EAGAIN when a rename or mount anywhere races with a lookup that
 * crosses "..", which every sysfs symlink does. Retrying is what the manual
 * asks; bounded, so a machine busy renaming cannot hang a boot. */
#define RESOLVE_RETRIES 64
#define MAX_SYMLINKS 40
#define WALK_DEPTH 128

static int openat2_in_root(const struct root *r, const char *rel, int flags, int mode)
{
	struct open_how how = {
		.flags = (unsigned long long)(flags | O_CLOEXEC),
		.mode = (unsigned long long)((flags & (O_CREAT | O_TMPFILE)) ? mode : 0),
		.resolve = RESOLVE_IN_ROOT,
	};

	for (int i = 0; i < RESOLVE_RETRIES; i++) {
		long fd = syscall(SYS_openat2, r->fd, rel, &how, sizeof(how));

		if (fd >= 0)
			return (int)fd;
		if (errno != EAGAIN)
			return -errno;
	}
	return -EAGAIN;
}

/* ---- the resolver for kernels without openat2 ------------------------------
 * Component by component from the root fd, as RESOLVE_IN_ROOT defines it:
 * ".." never climbs above the root, an absolute symlink restarts at the
 * root, a relative one continues from the directory that holds it. The
 * directories walked are a stack of O_PATH fds, so ".." needs no lookup. */
struct walk {
	int fd[WALK_DEPTH];
	int depth;  /* fd[depth] is the current directory */
	int links;
	char todo[2 * PATH_MAX];
};

static void walk_reset(struct walk *w)
{
	while (w->depth > 0)
		close(w->fd[w->depth--]);
}

/* Replaces what is left to resolve with target + "/" + rest. */
static int walk_follow(struct walk *w, const char *target, const char *rest)
{
	char next[sizeof(w->todo)];

	if (++w->links > MAX_SYMLINKS)
		return -ELOOP;
	if (fmt(next, sizeof(next), "%s/%s", target, rest) >= (int)sizeof(next))
		return -ENAMETOOLONG;
	if (*target == '/')
		walk_reset(w);
	memcpy(w->todo, next, sizeof(next));
	return 0;
}

static int walk_link_target(int dirfd, const char *name, char *buf, size_t size)
{
	ssize_t n = readlinkat(dirfd, name, buf, size - 1);

	if (n < 0)
		return -errno;
	if ((size_t)n >= size - 1)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	return 0;
}

/* One intermediate component: descend into a directory or follow a link. */
static int walk_step(struct walk *w, const char *name, const char *rest)
{
	char target[PATH_MAX];
	struct stat st;
	int fd, r;

	if (!strcmp(name, "..")) {
		if (w->depth > 0)
			close(w->fd[w->depth--]);
		return 0;
	}
	fd = openat(w->fd[w->depth], name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if (S_ISLNK(st.st_mode)) {
		r = walk_link_target(fd, "", target, sizeof(target));
		close(fd);
		return r < 0 ? r : walk_follow(w, target, rest);
	}
	if (!S_ISDIR(st.st_mode) || w->depth + 1 >= WALK_DEPTH) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -ENAMETOOLONG : -ENOTDIR;
	}
	w->fd[++w->depth] = fd;
	return 0;
}

/* The last component: opened without following; a symlink is followed by
 * resolving its target inside the root (unless the caller said O_NOFOLLOW). */
static int walk_last(struct walk *w, const char *name, int flags, int mode, bool *again)
{
	char target[PATH_MAX];
	int fd, r, err;

	*again = false;
	if (!strcmp(name, "..")) {
		if (w->depth > 0)
			close(w->fd[w->depth--]);
		name = ".";
	}
	fd = openat(w->fd[w->depth], name, flags | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd >= 0 && (flags & O_PATH) && !(flags & O_NOFOLLOW)) {
		struct stat st;

		if (fstat(fd, &st) == 0 && S_ISLNK(st.st_mode)) {
			close(fd);
			fd = -1;
			errno = ELOOP;
		}
	}
	if (fd >= 0)
		return fd;
	/* O_NOFOLLOW on a link fails with ELOOP, or ENOTDIR with O_DIRECTORY. */
	err = errno;
	if ((err != ELOOP && err != ENOTDIR) || (flags & O_NOFOLLOW))
		return -err;
	r = walk_link_target(w->fd[w->depth], name, target, sizeof(target));
	if (r == -EINVAL) /* not a link: the error was real */
		return -err;
	if (r < 0)
		return r;
	*again = true;
	return walk_follow(w, target, "");
}

static int walk_open(const struct root *r, const char *rel, int flags, int mode)
{
	/* Not calloc: zeroing its 8 KiB path buffer was a quarter of a
	 * one-disk run on a kernel without openat2. */
	struct walk *w = malloc(sizeof(*w));
	int ret = -ENOENT;

	if (!w)
		return -ENOMEM;
	w->depth = 0, w->links = 0;
	w->fd[0] = r->fd;
	if (fmt(w->todo, sizeof(w->todo), "%s", rel) >= (int)sizeof(w->todo)) {
		free(w);
		return -ENAMETOOLONG;
	}
	for (;;) {
		char *p = w->todo, name[NAME_MAX + 1];
		size_t len;
		bool again;

		while (*p == '/' || (p[0] == '.' && (p[1] == '/' || !p[1])))
			p += *p == '/' ? 1 : 1 + (p[1] == '/');
		len = strcspn(p, "/");
		if (len > NAME_MAX) {
			ret = -ENAMETOOLONG;
			break;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		p += len;
		while (*p == '/')
			p++;
		if (!len) { /* nothing left: the directory we are in */
			ret = openat(w->fd[w->depth], ".", flags | O_CLOEXEC, mode);
			ret = ret < 0 ? -errno : ret;
			break;
		}
		memmove(w->todo, p, strlen(p) + 1);
		if (*w->todo) {
			ret = walk_step(w, name, w->todo);
			if (ret < 0)
				break;
			continue;
		}
		ret = walk_last(w, name, flags, mode, &again);
		if (ret < 0 || !again)
			break;
	}
	walk_reset(w);
	free(w);
	return ret;
}

/* sys/ and proc/ of an image's first boot come from its own tree. */
static bool boot_path(const char *rel)
{
	static const char *const dirs[] = { "sys", "proc" };

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		size_t n = strlen(dirs[i]);

		if (!strncmp(rel, dirs[i], n) && (rel[n] == '/' || !rel[n]))
			return true;
	}
	return false;
}

int root_openat(const struct root *r, const char *rel, int flags, int mode)
{
	int fd;

	rel = root_rel_path(rel);
	if (r->boot && boot_path(rel))
		return root_openat(r->boot, rel, flags, mode);
	if (r->is_host) {
		fd = openat(r->fd, rel, flags | O_CLOEXEC, mode);
		return fd < 0 ? -errno : fd;
	}
	if (!root_no_openat2) {
		fd = openat2_in_root(r, rel, flags, mode);
		if (fd != -ENOSYS)
			return fd;
		root_no_openat2 = true;
	}
	return walk_open(r, rel, flags, mode);
}

/* The entries of directory dir (below the root) whose names match pattern;
 * fn gets each as a root-relative path. Not glob(3): that pulls the NSS
 * code of static glibc in (for ~user), 200 KB of a binary that must stay
 * small. Returns the number of matches. */
int root_match(const struct root *r, const char *dir, const char *pattern,
	       void (*fn)(const char *rel, void *data), void *data)
{
	int n = root_list(r, dir, pattern, fn, data);

	/* No such directory: nothing matches. Any other failure is not "none". */
	return n == -ENOENT || n == -ENOTDIR ? 0 : n;
}

/* Apart from root_list: its PATH_MAX buffer is on the stack only while
 * entries are listed, not under the open's walk. */
static __attribute__((noinline)) int list_names(DIR *d, const char *dir, const char *pattern, void (*fn)(const char *rel, void *data),
		      void *data)
{
	struct dirent *de;
	int n = 0;

	for (errno = 0; (de = readdir(d)); errno = 0) {
		char rel[PATH_MAX];

		if (de->d_name[0] == '.' || fnmatch(pattern, de->d_name, 0))
			continue;
		n++;
		if (fmt(rel, sizeof(rel), "%s/%s", root_rel_path(dir), de->d_name) >= (int)sizeof(rel))
			return -ENAMETOOLONG;
		if (fn)
			fn(rel, data);
	}
	return errno ? -errno : n;
}

/* root_match, for callers to whom a directory that is absent (-ENOENT) or
 * not a directory (-ENOTDIR) is not the same thing. */
int root_list(const struct root *r, const char *dir, const char *pattern,
	      void (*fn)(const char *rel, void *data), void *data)
{
	int fd = root_openat(r, dir, O_RDONLY | O_DIRECTORY, 0), n;
	DIR *d;

	if (fd < 0)
		return fd;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	n = list_names(d, dir, pattern, fn, data);
	closedir(d);
	return n;
}

bool root_exists(const struct root *r, const char *rel)
{
	_cleanup_(closep) int fd = root_openat(r, rel, O_PATH, 0);

	return fd >= 0;
}

/* 1 when rel exists (a dangling link does not), 0 when it does not, -errno
 * when that cannot be told: EIO or EACCES is not absence. */
int root_access(const struct root *r, const char *rel)
{
	return access_verdict(root_openat(r, rel, O_PATH, 0));
}

/* An O_PATH open's result as root_access tells it, the fd closed. */
int access_verdict(int fd)
{
	if (fd >= 0) {
		close(fd);
		return 1;
	}
	return fd == -ENOENT || fd == -ENOTDIR ? 0 : fd;
}

/* For saying what a tree lacks rather than what a kernel lacks: 1 when rel
 * exists; 0 with `miss` the shortest leading part of rel that does not (its
 * parent does: the nearest evidence); -errno when a lookup fails otherwise. */
int root_missing(const struct root *r, const char *rel, char *miss, size_t size)
{
	const char *p = root_rel_path(rel);
	int a;

	for (const char *end = p;; end++) {
		if (*end != '/' && *end != '\0')
			continue;
		fmt(miss, size, "%.*s", (int)(end - p), p);
		a = root_access(r, miss);
		if (a <= 0)
			return a;
		if (!*end)
			return 1;
	}
}
