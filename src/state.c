// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Originals, recorded in ROOT/run/earlytune/originals before the first change
 * of an item (a tmpfs: they live until reboot, as the changes do). One line
 * per item: domain, target, setting, path, value, tab-separated. udev runs one
 * earlytune per device in parallel: every read-modify-write of the file
 * happens under an exclusive lock, and the file is replaced by rename.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "earlytune.h"

#define STATE_DIR "run/earlytune"
#define STATE_FILE STATE_DIR "/originals"
#define STATE_TMP STATE_DIR "/.originals.tmp"
#define LOCK_WAIT_MS 10000

int state_lock(struct records *rs, const struct root *r)
{
	struct timespec ts = { 0, 2 * 1000 * 1000 };
	int fd, rr;

	rs->lock_fd = -1;
	rr = root_mkdir_p(r, STATE_DIR, 0755);
	if (rr < 0)
		return rr;
	fd = root_openat(r, STATE_DIR "/lock", O_RDWR | O_CREAT, 0600);
	if (fd < 0)
		return fd;
	/* Bounded: a tuning tool must not hang a boot behind a stuck peer. */
	for (int waited = 0; flock(fd, LOCK_EX | LOCK_NB) < 0; waited += 2) {
		if (errno != EWOULDBLOCK || waited >= LOCK_WAIT_MS) {
			rr = errno == EWOULDBLOCK ? -ETIMEDOUT : -errno;
			close(fd);
			return rr;
		}
		nanosleep(&ts, NULL);
	}
	rs->lock_fd = fd;
	return 0;
}

static int push(struct records *rs, char **fields)
{
	struct record *rec;

	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 32;
		struct record *v = realloc(rs->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		rs->v = v;
		rs->cap = cap;
	}
	rec = &rs->v[rs->n++];
	*rec = (struct record){ strdup(fields[0]), strdup(fields[1]), strdup(fields[2]),
				strdup(fields[3]), strdup(fields[4]) };
	if (!rec->domain || !rec->target || !rec->setting || !rec->path || !rec->value)
		return -ENOMEM;
	return 0;
}

/* Lines that do not have five fields are dropped: a record we cannot read
 * back is one we must not write back. */
int state_load(struct records *rs, const struct root *r)
{
	_cleanup_(freep) char *buf = NULL;
	char *save = NULL, *line;
	int rr = root_read_file(r, STATE_FILE, &buf, 1 << 26);

	if (rr == -ENOENT)
		return 0;
	if (rr < 0)
		return rr;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[5], *s = line;
		size_t n = 0;

		while (n < 5 && (f[n] = strsep(&s, "\t")))
			n++;
		if (n != 5 || s || !valid_name(f[1]) || strstr(f[3], ".."))
			continue;
		rr = push(rs, f);
		if (rr < 0)
			return rr;
	}
	return 0;
}

int state_save(const struct records *rs, const struct root *r)
{
	struct strbuf sb = { 0 };
	_cleanup_(closep) int fd = -1;
	int rr = 0;

	for (size_t i = 0; i < rs->n; i++) {
		const struct record *x = &rs->v[i];

		sb_printf(&sb, "%s\t%s\t%s\t%s\t%s\n", x->domain, x->target, x->setting, x->path,
			  x->value);
	}
	if (sb.oom) {
		sb_free(&sb);
		return -ENOMEM;
	}
	fd = root_openat(r, STATE_TMP, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		sb_free(&sb);
		return fd;
	}
	if (sb.len && write(fd, sb.s, sb.len) != (ssize_t)sb.len)
		rr = errno ? -errno : -EIO;
	sb_free(&sb);
	if (rr == 0 && renameat(r->fd, STATE_TMP, r->fd, STATE_FILE) < 0)
		rr = -errno;
	return rr;
}

const struct record *state_find(const struct records *rs, const char *path)
{
	for (size_t i = 0; i < rs->n; i++)
		if (!strcmp(rs->v[i].path, path))
			return &rs->v[i];
	return NULL;
}

/* Never replaces an existing record: the first original is the true one. */
int state_add(struct records *rs, const struct item *it, const char *original)
{
	char *f[5] = { (char *)it->domain, it->target, it->setting, it->path, (char *)original };

	if (state_find(rs, it->path))
		return 0;
	for (int i = 0; i < 5; i++)
		if (!f[i] || strpbrk(f[i], "\t\n"))
			return -EINVAL;
	return push(rs, f);
}

static void record_free(struct record *x)
{
	free(x->domain);
	free(x->target);
	free(x->setting);
	free(x->path);
	free(x->value);
}

void state_forget(struct records *rs, size_t i)
{
	record_free(&rs->v[i]);
	memmove(&rs->v[i], &rs->v[i + 1], (rs->n - i - 1) * sizeof(*rs->v));
	rs->n--;
}

void state_free(struct records *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		record_free(&rs->v[i]);
	free(rs->v);
	if (rs->lock_fd >= 0)
		close(rs->lock_fd);
	*rs = (struct records){ .lock_fd = -1 };
}
