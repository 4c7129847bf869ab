// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Originals, recorded under ROOT/run/earlytune before the first change of an
 * item (a tmpfs: they live until reboot, as the changes do): a disk's in
 * disks/NAME, an interface's in links/IFINDEX, the global ones in originals.
 * One line per item: domain, target, setting, path, value, identity,
 * tab-separated. The identity names the device the original belongs to (see
 * state_identity); lines of five fields (earlier versions) have none and are
 * not checked. udev runs one earlytune per device in parallel: every access
 * happens under an exclusive lock, and every change rewrites a whole file
 * through root_write_atomic: a crash or a full /run leaves the old file or
 * the new one, never a torn line (appends did: the next append joined it and
 * both records were lost).
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "limits/limits.h"
#include "engine/domain.h"
#include "engine/state.h"

#define STATE_DIR "run/earlytune"
#define STATE_FILE STATE_DIR "/originals"
#define HASH_EMPTY SIZE_MAX
#define NFIELDS 6
/* A waiter gives up when the lock has not changed hands for
 * state_lock_stall_ms (a stuck peer: a holder needs milliseconds), or after
 * state_lock_wait_ms whatever happens (udev kills a RUN program at its
 * 180 s event timeout). A long queue that moves is not a stuck peer: 256
 * udev runs under ASan on a loaded 2-core machine queued for over 30 s. */
unsigned state_lock_stall_ms = 10000, state_lock_wait_ms = 90000;

/* Every holder counts itself in the lock file's size: the waiters' sign of
 * progress. A size, not content: a sparse file takes no page of a full
 * /run (the last page a /run filled mid-apply has is for the originals). */
static off_t lock_gen(int fd)
{
	struct stat st;

	return fstat(fd, &st) < 0 ? 0 : st.st_size;
}

static void lock_bump(int fd)
{
	if (ftruncate(fd, lock_gen(fd) + 1) < 0)
		return; /* the waiters see no progress and wait out the stall bound */
}

static void on_alarm(int sig)
{
	(void)sig; /* only there to interrupt flock() */
}

/* A blocking flock(), bounded: a tuning tool must not hang a boot behind a
 * stuck peer. The kernel queues the waiters and wakes them at each unlock;
 * the earlier LOCK_NB poll every 2 ms made 255 udev-started waiters spin at
 * 500 Hz each and starve the holder (256 concurrent runs took 18 s and 3 of
 * 4 timed out). A repeating SIGALRM without SA_RESTART interrupts the wait
 * so the bounds are checked without polling the lock. */
static int lock_wait(int fd)
{
	struct sigaction sa = { .sa_handler = on_alarm }, old_sa;
	struct itimerval tick = { { 0, 100 * 1000 }, { 0, 100 * 1000 } }, old_tick;
	long long now = now_ns(CLOCK_MONOTONIC), deadline = now + state_lock_wait_ms * 1000000LL;
	long long stall = now + state_lock_stall_ms * 1000000LL;
	off_t gen = lock_gen(fd), g;
	int rr = 0;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, &old_sa) < 0)
		return -errno;
	if (setitimer(ITIMER_REAL, &tick, &old_tick) < 0) {
		rr = -errno;
		sigaction(SIGALRM, &old_sa, NULL);
		return rr;
	}
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			rr = -errno;
			break;
		}
		now = now_ns(CLOCK_MONOTONIC);
		g = lock_gen(fd);
		if (g != gen) {
			gen = g;
			stall = now + state_lock_stall_ms * 1000000LL;
		}
		if (now >= stall || now >= deadline) {
			rr = -ETIMEDOUT;
			break;
		}
	}
	setitimer(ITIMER_REAL, &old_tick, NULL);
	sigaction(SIGALRM, &old_sa, NULL);
	return rr;
}

int state_lock(struct records *rs, const struct root *r)
{
	int fd, rr;

	rs->lock_fd = -1;
	rr = root_mkdir_p(r, STATE_DIR, 0755);
	if (rr < 0)
		return rr;
	fd = root_openat(r, STATE_DIR "/lock", O_RDWR | O_CREAT, 0600);
	if (fd < 0)
		return fd;
	rr = flock(fd, LOCK_EX | LOCK_NB) < 0 ? -errno : 0;
	if (rr == -EWOULDBLOCK)
		rr = lock_wait(fd);
	if (rr < 0) {
		close(fd);
		return rr;
	}
	lock_bump(fd);
	rs->lock_fd = fd;
	return 0;
}

static size_t hash_str(const char *s)
{
	return (size_t)fnv1a(FNV_OFFSET, s, strlen(s));
}

/* Open addressing, kept at most half full: SLOTS[h] is an index of the
 * array whose keys KEY(i) returns, or HASH_EMPTY. */
static void hash_insert(size_t *slots, size_t nslots, const char *key, size_t i)
{
	size_t mask = nslots - 1, h = hash_str(key) & mask;

	while (slots[h] != HASH_EMPTY)
		h = (h + 1) & mask;
	slots[h] = i;
}

static const char *record_key(const struct records *rs, size_t i)
{
	return rs->v[i].path;
}

static const char *file_key(const struct records *rs, size_t i)
{
	return rs->files[i].rel;
}

static int hash_grow(const struct records *rs, size_t **slots, size_t *nslots, size_t n,
		     const char *(*key)(const struct records *, size_t))
{
	size_t ns = *nslots ? *nslots * 2 : 64;
	size_t *v = malloc(ns * sizeof(*v));

	if (!v)
		return -ENOMEM;
	free(*slots);
	*slots = v, *nslots = ns;
	for (size_t i = 0; i < ns; i++)
		v[i] = HASH_EMPTY;
	for (size_t i = 0; i < n; i++)
		hash_insert(v, ns, key(rs, i), i);
	return 0;
}

static size_t hash_find(const struct records *rs, const size_t *slots, size_t nslots, const char *k,
			const char *(*key)(const struct records *, size_t))
{
	size_t mask = nslots - 1, h;

	if (!nslots)
		return HASH_EMPTY;
	for (h = hash_str(k) & mask; slots[h] != HASH_EMPTY; h = (h + 1) & mask)
		if (!strcmp(key(rs, slots[h]), k))
			return slots[h];
	return HASH_EMPTY;
}

/* ---- the files: a disk's records in disks/NAME, an interface's in
 * links/IFINDEX (what in_scope calls a device's or an interface's), the
 * others in originals. A udev run about one device reads and rewrites its
 * own file only: on a 1,000-disk host the single file was 168 KB read and
 * rewritten by every udev run, and a boot's N runs moved O(N^2) bytes. */
#define DISKS_DIR STATE_DIR "/disks"
#define LINKS_DIR STATE_DIR "/links"

/* The file of disk NAME in rel: any kernel name but one that starts with a
 * dot, which a full load would take for a temporary file and skip (and a
 * sweep remove). No kernel names a disk so; a --device or a record can:
 * its records stay in originals. */
static bool disk_file(const char *name, char *rel)
{
	if (!valid_name(name) || name[0] == '.')
		return false;
	snprintf(rel, STATE_REL_MAX, DISKS_DIR "/%s", name);
	return true;
}

/* The domain a record names, for the hooks that say which file holds it.
 * The table of domains sits above the records and hands them its lookup
 * at start (engine/domains.c), as it hands the configuration its sections. */
static const struct domain *(*find_domain)(const char *name);

void state_register(const struct domain *(*find)(const char *name))
{
	find_domain = find;
}

static void file_of(const char *domain, const char *target, const char *setting, const char *path, char *rel)
{
	const struct domain *d = find_domain ? find_domain(domain) : NULL;
	int ifindex = d && d->ifindex ? d->ifindex(setting, path) : 0;

	if (d && d->disks && disk_file(target, rel))
		return;
	if (ifindex > 0)
		snprintf(rel, STATE_REL_MAX, LINKS_DIR "/%d", ifindex);
	else
		snprintf(rel, STATE_REL_MAX, STATE_FILE);
}

static size_t file_find(const struct records *rs, const char *rel)
{
	return hash_find(rs, rs->fslots, rs->nfslots, rel, file_key);
}

/* The index of the file REL, added if it is not there yet. */
static int file_add(struct records *rs, const char *rel, size_t *idx)
{
	struct state_file *v;

	*idx = file_find(rs, rel);
	if (*idx != HASH_EMPTY)
		return 0;
	if (rs->nfiles == rs->files_cap) {
		size_t cap = rs->files_cap ? rs->files_cap * 2 : 8;

		v = realloc(rs->files, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		rs->files = v, rs->files_cap = cap;
	}
	if ((rs->nfiles + 1) * 2 > rs->nfslots &&
	    hash_grow(rs, &rs->fslots, &rs->nfslots, rs->nfiles, file_key) < 0)
		return -ENOMEM;
	*idx = rs->nfiles++;
	v = &rs->files[*idx];
	*v = (struct state_file){ .dirty = false };
	snprintf(v->rel, sizeof(v->rel), "%s", rel);
	hash_insert(rs->fslots, rs->nfslots, rel, *idx);
	return 0;
}

static void file_dirty(struct records *rs, size_t idx)
{
	rs->files[idx].dirty = true;
	rs->dirty = true;
}

/* The fields of a record live in one allocation, the domain first. */
static void record_free(struct record *x)
{
	free(x->domain);
}

static int grow_records(struct records *rs)
{
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 32;
		struct record *v = realloc(rs->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		rs->v = v;
		rs->cap = cap;
	}
	if ((rs->n + 1) * 2 > rs->nslots && hash_grow(rs, &rs->slots, &rs->nslots, rs->n, record_key) < 0)
		return -ENOMEM;
	return 0;
}

static int push(struct records *rs, char **fields, size_t file)
{
	size_t len[NFIELDS], total = 0;
	struct record *rec;
	char *p;

	if (grow_records(rs) < 0)
		return -ENOMEM;
	for (int k = 0; k < NFIELDS; k++)
		total += len[k] = strlen(fields[k]) + 1;
	p = malloc(total);
	if (!p)
		return -ENOMEM;
	rec = &rs->v[rs->n];
	for (int k = 0; k < NFIELDS; k++) {
		char **dst[NFIELDS] = { &rec->domain, &rec->target, &rec->setting, &rec->path,
					&rec->value, &rec->identity };

		*dst[k] = memcpy(p, fields[k], len[k]);
		p += len[k];
	}
	rec->file = file;
	hash_insert(rs->slots, rs->nslots, rec->path, rs->n++);
	return 0;
}

/* Revert writes a record's value to its path: only where apply writes
 * (sysfs attributes, sysctls, a qdisc by ifindex, earlytune's own systemd
 * drop-ins, which revert removes), so a tampered file
 * cannot point it at etc/shadow of an image. */
static bool record_path_ok(const char *path)
{
	static const char *const prefixes[] = { "sys/", "proc/sys/", "netlink/ifindex/" };

	static const char dropin[] = "/" LIMITS_DROPIN; /* limits: revert removes it */
	size_t n = strlen(path);

	if (strstr(path, ".."))
		return false;
	if (!strncmp(path, "run/systemd/", 12) && n > sizeof(dropin) && !strcmp(path + n - sizeof(dropin) + 1, dropin))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(path, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* A last line without its newline was torn by a crash mid-append (of an
 * earlier version): dropped, and the next save repairs the file. */
static void trim_torn(struct records *rs, char *buf, size_t file)
{
	char *end = strrchr(buf, '\n');

	if (*(end ? end + 1 : buf)) {
		*(end ? end + 1 : buf) = '\0';
		file_dirty(rs, file);
	}
}

/* A record read from FILE that belongs in another (written by an earlier
 * version, which kept every record in originals, or moved by hand) moves
 * there: both files are rewritten. A partial load cannot know the other
 * file's records: it loads them all instead (state_load_scoped). */
static int file_of_record(struct records *rs, char **f, size_t from, size_t *file)
{
	char rel[STATE_REL_MAX];
	int rr;

	file_of(f[0], f[1], f[2], f[3], rel);
	*file = from;
	if (!strcmp(rel, rs->files[from].rel))
		return 0;
	if (rs->partial && file_find(rs, rel) == HASH_EMPTY) {
		rs->misplaced = true;
		return 1;
	}
	rr = file_add(rs, rel, file);
	if (rr < 0)
		return rr;
	file_dirty(rs, from);
	file_dirty(rs, *file);
	rs->files[from].gave = true;
	return 0;
}

/* Lines that do not have five or six fields are dropped: a record we cannot
 * read back is one we must not write back. A second record of a path (a
 * crash between the two files of a move) is dropped too: the first original
 * is the true one. Splits line in place. */
static int parse_line(struct records *rs, char *line, size_t from)
{
	char *f[NFIELDS], *s = line;
	size_t n = 0, file;
	int rr;

	while (n < NFIELDS && (f[n] = strsep(&s, "\t")))
		n++;
	if (n == NFIELDS - 1)
		f[n++] = (char *)""; /* no identity: not checked */
	if (n != NFIELDS || s || !valid_name(f[1]) || !record_path_ok(f[3]))
		return 0;
	if (hash_find(rs, rs->slots, rs->nslots, f[3], record_key) != HASH_EMPTY) {
		file_dirty(rs, from);
		return 0;
	}
	rr = file_of_record(rs, f, from, &file);
	return rr != 0 ? (rr < 0 ? rr : 0) : push(rs, f, file);
}

static int parse_into(struct records *rs, char *buf, size_t file)
{
	char *save = NULL, *line;
	int rr;

	trim_torn(rs, buf, file);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		rr = parse_line(rs, line, file);
		if (rr < 0)
			return rr;
	}
	return 0;
}

/* Records as read from originals (the tests and the fuzzer feed it). */
int state_parse(struct records *rs, char *buf)
{
	size_t file;
	int rr = file_add(rs, STATE_FILE, &file);

	return rr < 0 ? rr : parse_into(rs, buf, file);
}

/* Any failure to read a file but its absence is an error: "nothing
 * recorded" would let apply record the values it changed itself as
 * originals, and revert forget the true ones. An absent file is one whose
 * records are known: none. */
static int load_file(struct records *rs, const struct root *r, const char *rel)
{
	_cleanup_(freep) char *buf = NULL;
	size_t file;
	int rr = file_add(rs, rel, &file);

	if (rr >= 0)
		rr = root_read_file(r, rel, &buf, 1 << 26);
	if (rr == -ENOENT)
		return 0;
	return rr < 0 ? rr : parse_into(rs, buf, file);
}

/* Every file of DIR not read yet (names with a dot first are temporary
 * files of a rewrite: state_save sweeps them). */
static int load_dir(struct records *rs, const struct root *r, const char *dir)
{
	int fd = root_openat(r, dir, O_RDONLY | O_DIRECTORY, 0), rr = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!d) {
		rr = fd == -ENOENT ? 0 : fd < 0 ? fd : -errno;
		if (fd >= 0)
			close(fd);
		return rr;
	}
	while (rr >= 0 && (errno = 0, de = readdir(d))) {
		char rel[STATE_REL_MAX];

		if (de->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "%s/%s", dir, de->d_name);
		if (file_find(rs, rel) == HASH_EMPTY)
			rr = load_file(rs, r, rel);
	}
	if (rr >= 0 && errno)
		rr = -errno;
	closedir(d);
	return rr;
}

/* The files a partial load did not read: the records are then all there. */
static int load_rest(struct records *rs, const struct root *r)
{
	int rr = file_find(rs, STATE_FILE) == HASH_EMPTY ? load_file(rs, r, STATE_FILE) : 0;

	rs->partial = false;
	if (rr >= 0)
		rr = load_dir(rs, r, DISKS_DIR);
	if (rr >= 0)
		rr = load_dir(rs, r, LINKS_DIR);
	return rr;
}

int state_load(struct records *rs, const struct root *r)
{
	rs->root = r;
	return load_rest(rs, r);
}

/* Records of an earlier version, all in originals, are moved by a full
 * load; until one has, a scoped run cannot trust the files of its devices.
 * disks/ exists once this version has saved originals or a disk's file. */
static bool files_split(const struct root *r)
{
	return root_access(r, DISKS_DIR) == 1 || root_access(r, STATE_FILE) == 0;
}

/* Drops what a load read, the lock and the root kept. */
static void records_clear(struct records *rs)
{
	struct records keep = { .lock_fd = rs->lock_fd, .root = rs->root };

	rs->lock_fd = -1;
	state_free(rs);
	*rs = keep;
}

/* A udev run about one disk or interface reads the files of its devices
 * (what in_scope can pick); runs about everything, and --iface (a name,
 * whose index may have changed), read all. A record outside the scope asked
 * for (state_find) or added (state_add) reads the others first, so no
 * caller can miss one. */
int state_load_scoped(struct records *rs, const struct root *r, const struct ctx *c)
{
	char rel[STATE_REL_MAX];
	int rr = 0;

	if (c->iface || (!c->ndevices && !c->ifindex) || !files_split(r))
		return state_load(rs, r);
	/* A name without a file of its own (a dot first) has its records in
	 * originals, beside the global ones: a full load, then, as for a run
	 * about everything. An invalid name has none. */
	for (size_t i = 0; i < c->ndevices; i++)
		if (valid_name(c->devices[i]) && !disk_file(c->devices[i], rel))
			return state_load(rs, r);
	rs->root = r, rs->partial = true;
	for (size_t i = 0; i < c->ndevices && rr >= 0; i++)
		if (disk_file(c->devices[i], rel))
			rr = load_file(rs, r, rel);
	if (rr >= 0 && c->ifindex > 0) {
		snprintf(rel, sizeof(rel), LINKS_DIR "/%d", c->ifindex);
		rr = load_file(rs, r, rel);
	}
	if (rr >= 0 && rs->misplaced) {
		records_clear(rs);
		rr = state_load(rs, r);
	}
	return rr;
}

static void fields(const struct record *x, char *f[NFIELDS])
{
	f[0] = x->domain, f[1] = x->target, f[2] = x->setting;
	f[3] = x->path, f[4] = x->value, f[5] = x->identity;
}

/* Built with memcpy, not printf: printf was most of the cost of a rewrite
 * of 2,000 records. */
static char *format(const struct records *rs, const size_t *idx, size_t n, size_t *len)
{
	char *f[NFIELDS], *buf, *p;

	*len = 0;
	for (size_t i = 0; i < n; i++) {
		fields(&rs->v[idx[i]], f);
		for (int k = 0; k < NFIELDS; k++)
			*len += strlen(f[k]) + 1;
	}
	p = buf = malloc(*len + 1);
	for (size_t i = 0; buf && i < n; i++) {
		fields(&rs->v[idx[i]], f);
		for (int k = 0; k < NFIELDS; k++) {
			p = mempcpy(p, f[k], strlen(f[k]));
			*p++ = k == NFIELDS - 1 ? '\n' : '\t';
		}
	}
	return buf;
}

/* The directories one commit writes in, each opened once: a full run of a
 * 1,000-disk host writes 1,000 files in disks/, and opening the directory
 * for each was four system calls of the nine a file cost. */
enum { DIR_STATE, DIR_DISKS, DIR_LINKS, NDIRS };
static const char *const dir_rel[NDIRS] = { STATE_DIR, DISKS_DIR, LINKS_DIR };

struct dirs {
	int fd[NDIRS];
};

static void dirs_close(struct dirs *ds)
{
	for (int i = 0; i < NDIRS; i++)
		if (ds->fd[i] >= 0)
			close(ds->fd[i]);
}

/* The fd of directory i; made if missing and make (the lock made
 * run/earlytune: a save makes no more). */
static int dir_fd(struct dirs *ds, const struct root *r, int i, bool make)
{
	int rr;

	if (ds->fd[i] >= 0)
		return ds->fd[i];
	rr = root_openat(r, dir_rel[i], O_RDONLY | O_DIRECTORY, 0);
	if (rr == -ENOENT && make && i != DIR_STATE) {
		rr = root_access(r, STATE_DIR);
		rr = rr == 1 ? root_mkdir_p(r, dir_rel[i], 0755) : rr < 0 ? rr : -ENOENT;
		if (rr >= 0)
			rr = root_openat(r, dir_rel[i], O_RDONLY | O_DIRECTORY, 0);
	}
	return rr < 0 ? rr : (ds->fd[i] = rr);
}

/* A new file, then rename over the old one: a crash or a full /run leaves
 * the old file or the new one, never a torn line. A disk's or an
 * interface's file without records goes; originals stays, empty, and
 * disks/ beside it is files_split's sign. */
static int write_file(const struct records *rs, const struct root *r, struct dirs *ds, size_t file,
		      const size_t *idx, size_t n)
{
	const char *rel = rs->files[file].rel, *name = strrchr(rel, '/') + 1;
	int i = !strcmp(rel, STATE_FILE)			  ? DIR_STATE
		: !strncmp(rel, DISKS_DIR "/", sizeof(DISKS_DIR)) ? DIR_DISKS
								  : DIR_LINKS;
	_cleanup_(freep) char *buf = NULL;
	size_t len;
	int dfd, rr;

	if (!n && i != DIR_STATE) {
		dfd = dir_fd(ds, r, i, false);
		if (dfd < 0)
			return dfd == -ENOENT ? 0 : dfd;
		return unlinkat(dfd, name, 0) < 0 && errno != ENOENT ? -errno : 0;
	}
	buf = format(rs, idx, n, &len);
	if (!buf)
		return -ENOMEM;
	dfd = dir_fd(ds, r, i, true);
	rr = dfd < 0 ? dfd : file_replace_at(dfd, name, buf, len, 0600, false); /* /run: volatile */
	if (rr >= 0 && i == DIR_STATE)
		rr = dir_fd(ds, r, DIR_DISKS, true);
	return rr < 0 ? rr : 0;
}

/* The records' indexes grouped by file, in their order (a counting sort):
 * order[start[f] .. start[f + 1]) are file f's. */
static int group(const struct records *rs, size_t **order, size_t **start)
{
	size_t *pos;

	*order = malloc((rs->n + 1) * sizeof(**order));
	*start = calloc(rs->nfiles + 2, sizeof(**start));
	pos = calloc(rs->nfiles + 1, sizeof(*pos));
	if (!*order || !*start || !pos) {
		free(pos);
		return -ENOMEM;
	}
	for (size_t i = 0; i < rs->n; i++)
		(*start)[rs->v[i].file + 1]++;
	for (size_t f = 0; f < rs->nfiles; f++) {
		(*start)[f + 1] += (*start)[f];
		pos[f] = (*start)[f];
	}
	for (size_t i = 0; i < rs->n; i++)
		(*order)[pos[rs->v[i].file]++] = i;
	free(pos);
	return 0;
}

/* Rewrites the files whose records changed, those that gave records to
 * another file (an earlier version's originals) last: a record moved is
 * never only in the file it left. The first failure stops: the files not
 * written keep their records, and stay to be written. */
int state_commit(struct records *rs, const struct root *r)
{
	_cleanup_(freep) size_t *order = NULL;
	_cleanup_(freep) size_t *start = NULL;
	struct dirs ds = { { -1, -1, -1 } };
	int rr = 0;

	if (!rs->dirty)
		return 0;
	if (rs->lock_fd >= 0)
		root_sweep_temps(r, STATE_DIR, "originals", "runs");
	if (group(rs, &order, &start) < 0)
		return -ENOMEM;
	for (int gave = 0; gave < 2; gave++)
		for (size_t f = 0; f < rs->nfiles && rr >= 0; f++) {
			if (!rs->files[f].dirty || rs->files[f].gave != gave)
				continue;
			rr = write_file(rs, r, &ds, f, order + start[f], start[f + 1] - start[f]);
			rs->files[f].dirty = rr < 0;
		}
	dirs_close(&ds);
	if (rr < 0)
		return rr;
	rs->dirty = false;
	for (size_t f = 0; f < rs->nfiles; f++)
		rs->files[f].gave = false;
	return 0;
}

/* Rewrites every file read (a partial load: its own only), originals
 * always after a full one, and sweeps the temporary files a killed rewrite
 * left in the directories of the others. */
int state_save(struct records *rs, const struct root *r)
{
	size_t shared;
	int rr = rs->partial ? 0 : file_add(rs, STATE_FILE, &shared);

	if (rr < 0)
		return rr;
	for (size_t f = 0; f < rs->nfiles; f++)
		rs->files[f].dirty = true;
	rs->dirty = true;
	if (rs->lock_fd >= 0 && !rs->partial) {
		root_sweep_temps(r, DISKS_DIR, NULL, NULL);
		root_sweep_temps(r, LINKS_DIR, NULL, NULL);
	}
	return state_commit(rs, r);
}

static const struct record *find(const struct records *rs, const char *path)
{
	size_t i = hash_find(rs, rs->slots, rs->nslots, path, record_key);

	return i == HASH_EMPTY ? NULL : &rs->v[i];
}

/* Whether the file PATH's record would be in is one a partial load read:
 * an interface's path names it; a disk's does not (its name is the
 * record's target). */
static bool read_file_of(const struct records *rs, const char *path)
{
	char rel[STATE_REL_MAX];
	int ifindex = record_ifindex("qdisc", path);

	if (ifindex <= 0)
		return false;
	snprintf(rel, sizeof(rel), LINKS_DIR "/%d", ifindex);
	return file_find(rs, rel) != HASH_EMPTY;
}

/* A partial load reads the other files when PATH may be in them (ENOMEM
 * aside, which leaves it unfound as the allocation of a record would). */
const struct record *state_find(struct records *rs, const char *path)
{
	const struct record *x = find(rs, path);

	if (!x && rs->partial && rs->root && !read_file_of(rs, path) && load_rest(rs, rs->root) >= 0)
		x = find(rs, path);
	return x;
}

/* Never replaces an existing record: the first original is the true one
 * (a stale record, of another device, is forgotten before: state_stale). */
int state_add(struct records *rs, const struct item *it, const char *original, const char *identity)
{
	char *f[NFIELDS] = { (char *)it->domain, it->target, it->setting, it->path, (char *)original,
			     (char *)identity };
	char rel[STATE_REL_MAX];
	size_t file;
	int rr = 0;

	for (int i = 0; i < NFIELDS; i++)
		if (!f[i] || strpbrk(f[i], "\t\n"))
			return -EINVAL;
	file_of(f[0], f[1], f[2], f[3], rel);
	if (rs->partial && file_find(rs, rel) == HASH_EMPTY)
		rr = rs->root ? load_rest(rs, rs->root) : -EINVAL; /* its record may be there */
	if (rr < 0)
		return rr;
	if (find(rs, it->path))
		return 0;
	rr = file_add(rs, rel, &file);
	if (rr >= 0)
		rr = push(rs, f, file);
	if (rr >= 0)
		file_dirty(rs, file);
	return rr;
}

/* Drops every record whose drop[i] is set, then rebuilds the index once. */
void state_forget(struct records *rs, const bool *drop)
{
	size_t keep = 0, i;

	for (i = 0; i < rs->n && !drop[i]; i++)
		;
	if (i == rs->n)
		return; /* nothing to drop: the index stays */
	for (i = 0; i < rs->n; i++) {
		if (drop[i]) {
			file_dirty(rs, rs->v[i].file);
			record_free(&rs->v[i]);
		} else {
			rs->v[keep++] = rs->v[i];
		}
	}
	rs->n = keep;
	for (size_t k = 0; k < rs->nslots; k++)
		rs->slots[k] = HASH_EMPTY;
	for (size_t k = 0; k < rs->n; k++)
		hash_insert(rs->slots, rs->nslots, rs->v[k].path, k);
}

void state_free(struct records *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		record_free(&rs->v[i]);
	free(rs->v);
	free(rs->slots);
	free(rs->files);
	free(rs->fslots);
	if (rs->lock_fd >= 0)
		close(rs->lock_fd);
	*rs = (struct records){ .lock_fd = -1 };
}
