// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * File I/O over the confined root (root.c resolves, this reads and writes):
 * attributes in one read() or write() as sysfs wants them, whole files,
 * typed values, paths whose truncation is an error, and the one atomic way
 * earlytune replaces a file.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/root.h"

/* snprintf that says when the path did not fit: a truncated path names
 * another file, which is worse than no file. */
int pathf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = fmt_v(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	return (size_t)n < size ? 0 : -ENAMETOOLONG;
}

/* An attribute's value as read: n bytes, trailing white space removed. */
int root_trimmed(char *buf, ssize_t n)
{
	size_t len;

	if (n < 0)
		return -errno;
	/* Captured trees pad attributes with NULs: the value ends at the first. */
	len = strnlen(buf, (size_t)n);
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' ' || buf[len - 1] == '\t'))
		len--;
	buf[len] = '\0';
	return (int)len;
}

/* Reads one attribute: at most size-1 bytes, trailing white space removed. */
int root_read(const struct root *r, const char *rel, char *buf, size_t size)
{
	_cleanup_(closep) int fd = root_openat(r, rel, O_RDONLY, 0);

	if (fd < 0)
		return fd;
	return root_trimmed(buf, read(fd, buf, size - 1));
}

/* A selector file ("always [madvise] never"): its content in raw and its
 * active choice in active, "" when it marks none. The read's length or -errno. */
int root_read_selector(const struct root *r, const char *rel, char *raw, size_t rsize, char *active, size_t asize)
{
	int n = root_read(r, rel, raw, rsize);

	*active = '\0';
	if (n >= 0 && selector_active(raw, active, asize) < 0)
		*active = '\0';
	return n;
}

/* The value and a newline, for a single write() as sysfs wants: in small
 * (VALUE_LINE_SMALL bytes) when it fits, else in *big, which the caller
 * frees (a write of every attribute allocated one before); its length in
 * *len. NULL when out of memory. */
const char *value_line(const char *value, char *small, char **big, size_t *len)
{
	char *line = small;

	*len = strlen(value) + 1;
	if (*len >= VALUE_LINE_SMALL && !(line = *big = malloc(*len)))
		return NULL;
	memcpy(line, value, *len - 1);
	line[*len - 1] = '\n';
	return line;
}

static int write_value(int fd, const char *value)
{
	char small[VALUE_LINE_SMALL];
	_cleanup_(freep) char *big = NULL;
	size_t len;
	const char *line = value_line(value, small, &big, &len);
	ssize_t n;

	if (!line)
		return -ENOMEM;
	n = write(fd, line, len);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

/* Writes one attribute. O_TRUNC makes the same call work on the regular
 * files of a fake tree; no O_CREAT, so a missing attribute stays missing. */
int root_write(const struct root *r, const char *rel, const char *value)
{
	_cleanup_(closep) int fd = root_openat(r, rel, O_WRONLY | O_TRUNC, 0);

	return fd < 0 ? fd : write_value(fd, value);
}

/* root_write, then the value the kernel kept read back through the same
 * open file (sysfs and procfs show afresh on a read at offset 0): what a
 * write then a read of the attribute do, in two system calls fewer. Returns
 * the write's result; the read's (a length or -errno) goes to *got. */
int root_write_readback(const struct root *r, const char *rel, const char *value, char *buf, size_t size,
			int *got)
{
	_cleanup_(closep) int fd = root_openat(r, rel, O_RDWR | O_TRUNC, 0);
	int rr = fd < 0 ? fd : write_value(fd, value);

	*got = rr < 0 ? rr : root_trimmed(buf, pread(fd, buf, size - 1, 0));
	return rr;
}

/* The room after a full buffer: a regular file's size, in one read (a
 * 1,000-disk host's originals grew by doubling: 6 reallocs, a sixth of a
 * one-disk run's parse), asked only once the first 4 KB are full: most
 * files read are smaller (a udev run's: no fstat). A sysfs attribute says
 * 4096 whatever it holds. */
static size_t next_cap(int fd, size_t len, size_t cap, size_t max)
{
	struct stat st;

	if (len == 4096 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size < max &&
	    (size_t)st.st_size >= cap)
		return (size_t)st.st_size + 1;
	return cap * 2;
}

/* The rest of a file past the first SMALL bytes already in small. */
static int read_rest(int fd, const char *small, size_t len, char **out, size_t max)
{
	size_t cap = 4096;
	char *buf = NULL, *nbuf;
	ssize_t n;

	for (;;) {
		nbuf = realloc(buf, cap + 1);
		if (!nbuf) {
			free(buf);
			return -ENOMEM;
		}
		if (!buf)
			memcpy(nbuf, small, len);
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
			cap = next_cap(fd, len, cap, max);
	}
	buf[len] = '\0';
	*out = buf;
	return (int)len;
}

/* A file of up to SMALL bytes (most a run reads: the kernel's command line)
 * is read on the stack and kept in a block of its size, not of 4 KiB: every
 * page a block spans that malloc writes a header into is a page fault. */
#define SMALL 512

int root_read_file(const struct root *r, const char *rel, char **out, size_t max)
{
	_cleanup_(closep) int fd = root_openat(r, rel, O_RDONLY, 0);
	char small[SMALL];
	size_t len = 0;
	ssize_t n = 1;

	if (fd < 0)
		return fd;
	while (len < sizeof(small) && (n = read(fd, small + len, sizeof(small) - len)) > 0)
		len += (size_t)n;
	if (n < 0)
		return -errno;
	if (len >= max)
		return -EFBIG;
	if (n != 0)
		return read_rest(fd, small, len, out, max);
	*out = malloc(len + 1);
	if (!*out)
		return -ENOMEM;
	memcpy(*out, small, len);
	(*out)[len] = '\0';
	return (int)len;
}

/* An unsigned decimal attribute: 0, -EINVAL when it is not one, or the
 * read's -errno. */
int root_read_u64(const struct root *r, const char *rel, unsigned long long *v)
{
	char buf[32];
	int n = root_read(r, rel, buf, sizeof(buf));

	if (n < 0)
		return n;
	return parse_u64(buf, v) < 0 ? -EINVAL : 0;
}

/* A file in a directory that may not exist yet (run/…, etc/…): the
 * directories first, then the atomic replace. */
int root_write_new(const struct root *r, const char *rel, const char *data, size_t len, int mode)
{
	const char *slash = strrchr(rel, '/');
	char dir[PATH_MAX];
	int rr;

	if (slash) {
		if ((size_t)(slash - rel) >= sizeof(dir))
			return -ENAMETOOLONG;
		memcpy(dir, rel, (size_t)(slash - rel));
		dir[slash - rel] = '\0';
		rr = root_mkdir_p(r, dir, 0755);
		if (rr < 0)
			return rr;
	}
	return root_write_atomic(r, rel, data, len, mode);
}

/* A file to add to at its end: O_APPEND, so that every write lands there
 * whatever the offset; readable, so that the caller can check how it
 * begins and ends (its size in *size, from the one fstat that checks it).
 * Only a regular file: a symlink is refused as root_write_atomic refuses it
 * (a directory by open itself). */
int root_open_append(const struct root *r, const char *rel, off_t *size)
{
	int fd = root_openat(r, rel, O_RDWR | O_APPEND | O_NOFOLLOW, 0), rr;
	struct stat st;

	if (fd < 0)
		return fd;
	rr = fstat(fd, &st) < 0 ? -errno : S_ISREG(st.st_mode) ? 0 : -EISDIR;
	if (rr == 0 && size)
		*size = st.st_size;
	if (rr == 0)
		return fd;
	close(fd);
	return rr;
}

/* Adds data at the end of rel, a file its caller has read under a lock
 * (size bytes then; size < 0: absent, and created here). A record is
 * appended before the change it records is made, so a crash mid-append
 * tears a line of a change never made, which the reader drops; a failed
 * write (a full /run) takes back what it added: the file is as it was, or
 * gone if it was new (a caller rewrites a file whose append failed whole).
 * Three calls where a replace costs ten. A new file gets mode less the
 * umask (not set past it, as file_replace_at does: for files only root
 * reads, whatever the umask leaves of 0600). */
int root_append_known(const struct root *r, const char *rel, const char *data, size_t len, off_t size, int mode)
{
	int flags = O_WRONLY | O_NOFOLLOW | O_NONBLOCK | (size < 0 ? O_CREAT | O_EXCL : O_APPEND);
	int fd = root_openat(r, rel, flags, mode), rr;

	if (fd < 0)
		return fd;
	rr = write_full(fd, data, len);
	if (rr < 0 && size >= 0)
		(void)!ftruncate(fd, size); /* failing, it leaves a torn line the reader drops */
	if (close(fd) < 0 && rr >= 0)
		rr = -errno;
	if (rr < 0 && size < 0)
		root_unlink(r, rel, 0);
	return rr;
}

/* write(2) until done: a short write is retried, so the error reported is
 * the one that stopped it (ENOSPC), never a stale errno. */
int write_full(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* A temporary file's name keeps this much of its target's: with the dot
 * and the suffix it stays within NAME_MAX whatever the target's length. */
#define TEMP_KEEP 200

/* A new temporary file beside the target, created exclusively: a stale one
 * of a crashed run, or another writer's, is never reused. */
static int create_temp(int dfd, const char *last, mode_t mode, char *tmp, size_t size)
{
	static pid_t pid; /* a name's salt only: O_EXCL makes it safe */
	struct timespec ts;

	if (!pid)
		pid = getpid();
	clock_gettime(CLOCK_REALTIME, &ts);
	for (unsigned i = 0; i < 100; i++) {
		unsigned x = (unsigned)ts.tv_nsec ^ ((unsigned)pid << 12) ^ (i * 2654435761u);
		int fd;

		snprintf(tmp, size, ".%.*s.%08x", TEMP_KEEP, last, x);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* Files under ROOT/run (originals, the run log, the sysctl guard, limits
 * drop-ins) live on a tmpfs as long as the boot they describe: a power loss
 * takes them with it, so fsync buys nothing there, and rename alone already
 * gives a crashed process's reader the whole old or new file. Each udev run
 * holds the state lock while it writes three of them, so every fsync there
 * would be paid once per device, one device after another. */
static bool volatile_path(const char *rel)
{
	return !strncmp(rel, "run/", 4);
}

/* The one way earlytune replaces a file, last in the directory dfd: an
 * exclusive temporary file with the target's mode and owner (mode for a new
 * one), written, fsynced if durable, renamed over the target, then the
 * directory fsynced if durable. Readers and a crash at any point see the
 * whole old file or the whole new one. A target that is a symlink or not a
 * regular file is refused, not replaced. */
int file_replace_at(int dfd, const char *last, const char *data, size_t len, int mode, bool durable)
{
	char tmp[NAME_MAX + 1];
	struct stat st;
	bool exists = fstatat(dfd, last, &st, AT_SYMLINK_NOFOLLOW) == 0;
	int fd, rr = 0;

	if (!exists && errno != ENOENT)
		return -errno;
	if (exists && !S_ISREG(st.st_mode))
		return S_ISLNK(st.st_mode) ? -ELOOP : -EISDIR;
	mode = exists ? (int)(st.st_mode & 07777) : mode;
	fd = create_temp(dfd, last, (mode_t)mode, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	if (fchmod(fd, (mode_t)mode) < 0) /* past the umask */
		rr = -errno;
	if (!rr && exists && fchown(fd, st.st_uid, st.st_gid) < 0)
		rr = -errno;
	if (!rr)
		rr = write_full(fd, data, len);
	if (!rr && durable && fsync(fd) < 0)
		rr = -errno;
	if (close(fd) < 0 && !rr)
		rr = -errno;
	if (!rr && renameat(dfd, tmp, dfd, last) < 0)
		rr = -errno;
	if (rr < 0) {
		unlinkat(dfd, tmp, 0);
		return rr;
	}
	return durable && fsync(dfd) < 0 && errno != EINVAL ? -errno : 0;
}

/* file_replace_at for a path under the root. */
int root_write_atomic(const struct root *r, const char *rel, const char *data, size_t len, int mode)
{
	char last[NAME_MAX + 1];
	_cleanup_(closep) int dfd = root_parent(r, rel, last, sizeof(last));

	return dfd < 0 ? dfd : file_replace_at(dfd, last, data, len, mode, !volatile_path(rel));
}

/* A temporary file of root_write_atomic for NAME (NULL: any name):
 * ".NAME.XXXXXXXX", NAME cut to TEMP_KEEP bytes as create_temp cuts it. */
static bool temp_of(const char *file, const char *name)
{
	size_t len = strlen(file), n = name ? strnlen(name, TEMP_KEEP) : len > 10 ? len - 10 : 0;

	return file[0] == '.' && n && len == n + 10 && (!name || !strncmp(file + 1, name, n)) &&
	       file[n + 1] == '.' && strspn(file + n + 2, "0123456789abcdef") == 8;
}

/* A rewrite killed between its temporary file and the rename (kill -9, a
 * power cut on a persistent /run) leaves .NAME.XXXXXXXX behind (see
 * create_temp), and nothing else would ever remove it. Only the holder of
 * the state lock rewrites these files, so under the lock any such file is a
 * dead run's; the next rewrite removes it. Best effort: litter is no reason
 * to fail a command. name1 NULL: every such file; name2 may be NULL. */
void root_sweep_temps(const struct root *r, const char *dir, const char *name1, const char *name2)
{
	int fd = root_openat(r, dir, O_RDONLY | O_DIRECTORY, 0);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		char rel[PATH_MAX];

		if (!temp_of(de->d_name, name1) && !(name2 && temp_of(de->d_name, name2)))
			continue;
		if (pathf(rel, sizeof(rel), "%s/%s", dir, de->d_name) == 0 && root_unlink(r, rel, 0) == 0)
			log_msg(LOG_DEBUG, "removed %s, left by a run that died mid-rewrite", rel);
	}
	closedir(d);
}
