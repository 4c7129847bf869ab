// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Originals, recorded in ROOT/run/earlytune/originals before the first change
 * of an item (a tmpfs: they live until reboot, as the changes do). One line
 * per item: domain, target, setting, path, value, tab-separated. udev runs one
 * earlytune per device in parallel: every access happens under an exclusive
 * lock. apply only appends the lines it adds (a udev event must not rewrite
 * every other device's records); revert rewrites the file and renames it.
 */
#include <errno.h>
#include <stdint.h>
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
#define HASH_EMPTY SIZE_MAX
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

static size_t hash_path(const char *s)
{
	size_t h = 14695981039346656037ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static void hash_insert(struct records *rs, size_t i)
{
	size_t mask = rs->nslots - 1, h = hash_path(rs->v[i].path) & mask;

	while (rs->slots[h] != HASH_EMPTY)
		h = (h + 1) & mask;
	rs->slots[h] = i;
}

/* An index path → record, kept at most half full. */
static int hash_grow(struct records *rs)
{
	size_t n = rs->nslots ? rs->nslots * 2 : 64;
	size_t *slots = malloc(n * sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	free(rs->slots);
	rs->slots = slots;
	rs->nslots = n;
	for (size_t i = 0; i < n; i++)
		slots[i] = HASH_EMPTY;
	for (size_t i = 0; i < rs->n; i++)
		hash_insert(rs, i);
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
	if ((rs->n + 1) * 2 > rs->nslots && hash_grow(rs) < 0)
		return -ENOMEM;
	rec = &rs->v[rs->n];
	*rec = (struct record){ strdup(fields[0]), strdup(fields[1]), strdup(fields[2]),
				strdup(fields[3]), strdup(fields[4]) };
	if (!rec->domain || !rec->target || !rec->setting || !rec->path || !rec->value) {
		free(rec->domain);
		free(rec->target);
		free(rec->setting);
		free(rec->path);
		free(rec->value);
		return -ENOMEM;
	}
	hash_insert(rs, rs->n++);
	return 0;
}

/* Lines that do not have five fields are dropped: a record we cannot read
 * back is one we must not write back. Splits buf in place. */
int state_parse(struct records *rs, char *buf)
{
	char *save = NULL, *line;
	int rr;

	/* A last line without its newline was torn by a crash mid-append. */
	if (strrchr(buf, '\n'))
		strrchr(buf, '\n')[1] = '\0';
	else
		buf[0] = '\0';
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

int state_load(struct records *rs, const struct root *r)
{
	_cleanup_(freep) char *buf = NULL;
	int rr = root_read_file(r, STATE_FILE, &buf, 1 << 26);

	if (rr == -ENOENT)
		return 0;
	if (rr < 0)
		return rr;
	return state_parse(rs, buf);
}

static int format(const struct records *rs, size_t from, struct strbuf *sb)
{
	for (size_t i = from; i < rs->n; i++) {
		const struct record *x = &rs->v[i];

		sb_printf(sb, "%s\t%s\t%s\t%s\t%s\n", x->domain, x->target, x->setting, x->path,
			  x->value);
	}
	return sb->oom ? -ENOMEM : 0;
}

static int write_all(int fd, const struct strbuf *sb)
{
	ssize_t n = sb->len ? write(fd, sb->s, sb->len) : 0;

	if (n < 0)
		return -errno;
	return (size_t)n == sb->len ? 0 : -EIO;
}

/* Rewrites the whole file (revert): a new file, then rename over the old. */
int state_save(const struct records *rs, const struct root *r)
{
	struct strbuf sb = { 0 };
	_cleanup_(closep) int fd = -1;
	int rr = format(rs, 0, &sb);

	if (rr >= 0)
		fd = rr = root_openat(r, STATE_TMP, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (rr >= 0)
		rr = write_all(fd, &sb);
	if (rr >= 0 && renameat(r->fd, STATE_TMP, r->fd, STATE_FILE) < 0)
		rr = -errno;
	sb_free(&sb);
	return rr;
}

/* Appends the records from index `from` on (apply), in one write. */
int state_append(const struct records *rs, size_t from, const struct root *r)
{
	struct strbuf sb = { 0 };
	_cleanup_(closep) int fd = -1;
	int rr = format(rs, from, &sb);

	if (rr >= 0 && sb.len)
		fd = rr = root_openat(r, STATE_FILE, O_WRONLY | O_CREAT | O_APPEND, 0600);
	if (rr >= 0 && sb.len)
		rr = write_all(fd, &sb);
	sb_free(&sb);
	return rr < 0 ? rr : 0;
}

const struct record *state_find(const struct records *rs, const char *path)
{
	size_t mask = rs->nslots - 1, h;

	if (!rs->nslots)
		return NULL;
	for (h = hash_path(path) & mask; rs->slots[h] != HASH_EMPTY; h = (h + 1) & mask)
		if (!strcmp(rs->v[rs->slots[h]].path, path))
			return &rs->v[rs->slots[h]];
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

/* Drops every record whose drop[i] is set, then rebuilds the index once. */
void state_forget(struct records *rs, const bool *drop)
{
	size_t keep = 0;

	for (size_t i = 0; i < rs->n; i++) {
		if (drop[i])
			record_free(&rs->v[i]);
		else
			rs->v[keep++] = rs->v[i];
	}
	rs->n = keep;
	for (size_t k = 0; k < rs->nslots; k++)
		rs->slots[k] = HASH_EMPTY;
	for (size_t k = 0; k < rs->n; k++)
		hash_insert(rs, k);
}

void state_free(struct records *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		record_free(&rs->v[i]);
	free(rs->v);
	free(rs->slots);
	if (rs->lock_fd >= 0)
		close(rs->lock_fd);
	*rs = (struct records){ .lock_fd = -1 };
}
