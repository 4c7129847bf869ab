// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Originals, recorded in ROOT/run/earlytune/originals before the first change
 * of an item (a tmpfs: they live until reboot, as the changes do). One line
 * per item: domain, target, setting, path, value, identity, tab-separated.
 * The identity names the device the original belongs to (see
 * state_identity); lines of five fields (earlier versions) have none and are
 * not checked. udev runs one earlytune per device in parallel: every access
 * happens under an exclusive lock, and every change rewrites the whole file
 * through root_write_atomic: a crash or a full /run leaves the old file or
 * the new one, never a torn line (appends did: the next append joined it and
 * both records were lost). On tmpfs a rewrite of 3,000 records costs ~1 ms.
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

#include "earlytune.h"

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

static size_t hash_path(const char *s)
{
	return (size_t)fnv1a(FNV_OFFSET, s, strlen(s));
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

/* The fields of a record live in one allocation, the domain first. */
static void record_free(struct record *x)
{
	free(x->domain);
}

static int push(struct records *rs, char **fields)
{
	size_t len[NFIELDS], total = 0;
	struct record *rec;
	char *p;

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
	hash_insert(rs, rs->n++);
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
static void trim_torn(struct records *rs, char *buf)
{
	char *end = strrchr(buf, '\n');

	if (*(end ? end + 1 : buf)) {
		*(end ? end + 1 : buf) = '\0';
		rs->dirty = true;
	}
}

/* Lines that do not have five or six fields are dropped: a record we cannot
 * read back is one we must not write back. Splits line in place. */
static int parse_line(struct records *rs, char *line)
{
	char *f[NFIELDS], *s = line;
	size_t n = 0;

	while (n < NFIELDS && (f[n] = strsep(&s, "\t")))
		n++;
	if (n == NFIELDS - 1)
		f[n++] = (char *)""; /* no identity: not checked */
	if (n != NFIELDS || s || !valid_name(f[1]) || !record_path_ok(f[3]))
		return 0;
	return push(rs, f);
}

int state_parse(struct records *rs, char *buf)
{
	char *save = NULL, *line;
	int rr;

	trim_torn(rs, buf);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		rr = parse_line(rs, line);
		if (rr < 0)
			return rr;
	}
	return 0;
}

/* Any failure to read the file but its absence is an error: "nothing
 * recorded" would let apply record the values it changed itself as
 * originals, and revert forget the true ones. */
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

/* Whether a record of TARGET at PATH can be about the devices or the
 * interface of a scoped run: in_scope's test, on a line's unsplit fields.
 * A line it passes that in_scope would not is only parsed for nothing. */
static bool scope_has(const struct ctx *c, const char *target, size_t tn, const char *path, size_t pn)
{
	static const char nl[] = "netlink/ifindex/";
	const size_t k0 = sizeof(nl) - 1;
	unsigned long long v = 0;

	for (size_t i = 0; i < c->ndevices; i++)
		if (strlen(c->devices[i]) == tn && !memcmp(c->devices[i], target, tn))
			return true;
	if (!c->ifindex || pn <= k0 || memcmp(path, nl, k0))
		return false;
	for (size_t k = k0; k < pn; k++) {
		if (path[k] < '0' || path[k] > '9' || v > INT_MAX)
			return false;
		v = v * 10 + (unsigned)(path[k] - '0');
	}
	return v == (unsigned long long)c->ifindex;
}

/* The line of buf around the match at m, [*ls, *le) with its newline, if
 * the match is its field number k (1-based) with the tab before it. */
static bool line_of(char *buf, char *end, char *m, int k, char **ls, char **le)
{
	char *s = memrchr(buf, '\n', (size_t)(m - buf)), *nl;
	int tabs = 0;

	s = s ? s + 1 : buf;
	for (char *t = s; t && t <= m; t = memchr(t + 1, '\t', (size_t)(m - t)))
		tabs += *t == '\t';
	nl = memchr(m, '\n', (size_t)(end - m));
	if (tabs != k - 1 || !nl)
		return false;
	*ls = s, *le = nl + 1;
	return true;
}

static int span_cmp(const void *a, const void *b)
{
	const struct line_span *x = a, *y = b;

	return x->s < y->s ? -1 : x->s > y->s;
}

#define IFPATH "\tnetlink/ifindex"

/* Needle i of a scoped run: "\tNAME\t" per device; for the interface the
 * end of its path, "/N\t", and "/0" for a number written with leading
 * zeros (in_scope takes them), each behind IFPATH. A needle every
 * interface's record matched ("\tnetlink/ifindex/") made strstr and the
 * check of each line 0.55 of the 0.79 million instructions of a udev run
 * on a host of 1,000 interfaces; "/N" is rare, and strstr skips fast
 * over what does not begin like its needle. */
static size_t needle_of(const struct ctx *c, size_t i, char *needle, size_t size, size_t *back)
{
	*back = i < c->ndevices ? 0 : sizeof(IFPATH) - 1;
	if (i < c->ndevices)
		return (size_t)snprintf(needle, size, "\t%s\t", c->devices[i]);
	return (size_t)snprintf(needle, size, i == c->ndevices ? "/%d\t" : "/0", c->ifindex);
}

/* The lines of buf that can be a scoped run's own: a device's name as the
 * target (field 2), a path of netlink/ifindex/ (field 4) whose number is
 * the interface's. One strstr per needle (SSE4.2 in glibc: glibc's memmem
 * took 2.8 instructions a byte). */
static int scope_lines(const struct ctx *c, char *buf, char *end, struct line_span **out, size_t *n)
{
	size_t cap = 0, nn = c->ndevices + (c->ifindex ? 2 : 0);

	*out = NULL, *n = 0;
	for (size_t i = 0; i < nn; i++) {
		char needle[NAME_MAX + 3];
		bool dev = i < c->ndevices;
		size_t back, len = needle_of(c, i, needle, sizeof(needle), &back);

		for (char *at = buf, *m; (at = strstr(at, needle)); at += len - 1) {
			struct line_span sp;
			char *pe;

			/* m: the tab before the field */
			m = at - back;
			if ((back && ((size_t)(at - buf) < back || memcmp(m, IFPATH, back))) ||
			    !line_of(buf, end, m + 1, dev ? 2 : 4, &sp.s, &sp.e))
				continue;
			pe = dev ? NULL : memchr(m + 1, '\t', (size_t)(sp.e - m - 1));
			if (!dev && (!pe || !scope_has(c, "", 0, m + 1, (size_t)(pe - m - 1))))
				continue;
			if (*n == cap) {
				struct line_span *v = realloc(*out, (cap = cap ? 2 * cap : 8) * sizeof(*v));

				if (!v)
					return -ENOMEM;
				*out = v;
			}
			(*out)[(*n)++] = sp;
		}
	}
	if (*n > 1)
		qsort(*out, *n, sizeof(**out), span_cmp);
	return 0;
}

/* A udev run about one disk or interface parses only the lines that can be
 * its own; the others stay text (rs->rest), written back as read. Parsing
 * every record was most of a one-disk run on a 1,000-disk host: 4.6 of 7.0
 * million instructions, and a boot's N udev runs did O(N^2) of it; what is
 * left per record is a strstr's pass (and a copy when the run saves). The
 * rest is parsed when a record outside the scope is asked for
 * (state_unscope), so no caller can miss one. --iface (a name) and runs
 * about everything load all. */
int state_load_scoped(struct records *rs, const struct root *r, const struct ctx *c)
{
	char *buf = NULL, *end;
	struct line_span *v = NULL;
	size_t n = 0, k = 0;
	int rr;

	if (c->iface || (!c->ndevices && !c->ifindex))
		return state_load(rs, r);
	rr = root_read_file(r, STATE_FILE, &buf, 1 << 26);
	if (rr < 0) {
		free(buf);
		return rr == -ENOENT ? 0 : rr;
	}
	trim_torn(rs, buf);
	end = buf + strlen(buf);
	rr = scope_lines(c, buf, end, &v, &n);
	for (size_t i = 0; i < n && rr >= 0; i++) {
		if (k && v[i].s < v[k - 1].e)
			continue; /* the same line again (two needles) */
		v[k] = v[i];
		v[k].e[-1] = '\0';
		rr = parse_line(rs, v[k++].s); /* its bytes are a hole of the rest now */
	}
	rs->rest = buf;
	rs->rest_len = (size_t)(end - buf);
	rs->holes = v;
	rs->nholes = k;
	rs->scope = c;
	return rr;
}

/* Closes the holes the parsed lines left in the rest: only a run that
 * saves, or looks past its scope, pays for the copy. */
static void rest_compact(struct records *rs)
{
	char *rp = rs->rest, *wp = rs->rest, *end = rs->rest + rs->rest_len;

	if (!rs->nholes)
		return;
	for (size_t i = 0; i < rs->nholes; i++) {
		memmove(wp, rp, (size_t)(rs->holes[i].s - rp));
		wp += rs->holes[i].s - rp;
		rp = rs->holes[i].e;
	}
	memmove(wp, rp, (size_t)(end - rp));
	wp += end - rp;
	*wp = '\0';
	rs->rest_len = (size_t)(wp - rs->rest);
	free(rs->holes);
	rs->holes = NULL, rs->nholes = 0;
}

/* Parses the lines a scoped load kept as text: the records are then all
 * there, as after state_load. */
static int state_unscope(struct records *rs)
{
	char *rest = rs->rest;
	int rr;

	if (!rest)
		return 0;
	rest_compact(rs);
	rs->rest = NULL, rs->rest_len = 0, rs->scope = NULL;
	rr = state_parse(rs, rest);
	free(rest);
	return rr;
}

static void fields(const struct record *x, char *f[NFIELDS])
{
	f[0] = x->domain, f[1] = x->target, f[2] = x->setting;
	f[3] = x->path, f[4] = x->value, f[5] = x->identity;
}

/* Rewrites the whole file: a new file, then rename over the old one. Built
 * with memcpy, not printf: a udev run rewrites every disk's records, and
 * printf was most of the cost at 2,000 records. */
int state_save(struct records *rs, const struct root *r)
{
	_cleanup_(freep) char *buf = NULL;
	char *f[NFIELDS], *p;
	size_t len;
	int rr;

	if (rs->lock_fd >= 0)
		root_sweep_temps(r, STATE_DIR, "originals", "runs");
	if (rs->rest)
		rest_compact(rs);
	len = rs->rest_len;
	for (size_t i = 0; i < rs->n; i++) {
		fields(&rs->v[i], f);
		for (int k = 0; k < NFIELDS; k++)
			len += strlen(f[k]) + 1;
	}
	p = buf = malloc(len + 1);
	if (!buf)
		return -ENOMEM;
	if (rs->rest_len)
		p = mempcpy(p, rs->rest, rs->rest_len);
	for (size_t i = 0; i < rs->n; i++) {
		fields(&rs->v[i], f);
		for (int k = 0; k < NFIELDS; k++) {
			size_t n = strlen(f[k]);

			memcpy(p, f[k], n);
			p += n;
			*p++ = k == NFIELDS - 1 ? '\n' : '\t';
		}
	}
	rr = root_write_atomic(r, STATE_FILE, buf, len, 0600);
	if (rr >= 0)
		rs->dirty = false;
	return rr < 0 ? rr : 0;
}

/* Saves only when something changed since the load (or the file needs repair). */
int state_commit(struct records *rs, const struct root *r)
{
	return rs->dirty ? state_save(rs, r) : 0;
}

static const struct record *find(const struct records *rs, const char *path)
{
	size_t mask = rs->nslots - 1, h;

	if (!rs->nslots)
		return NULL;
	for (h = hash_path(path) & mask; rs->slots[h] != HASH_EMPTY; h = (h + 1) & mask)
		if (!strcmp(rs->v[rs->slots[h]].path, path))
			return &rs->v[rs->slots[h]];
	return NULL;
}

/* Whether the text a scoped load kept has a line whose path is PATH (or
 * another field that equals it: then it is parsed for nothing). */
static bool in_rest(struct records *rs, const char *path)
{
	size_t n = strlen(path);

	rest_compact(rs);
	for (const char *s = rs->rest; (s = memmem(s, rs->rest_len - (size_t)(s - rs->rest), path, n)); s++)
		if (s > rs->rest && s[-1] == '\t' && s[n] == '\t')
			return true;
	return false;
}

/* Parses a scoped load's other lines when they hold PATH (ENOMEM aside,
 * which leaves it unfound as the allocation of a record would). */
const struct record *state_find(struct records *rs, const char *path)
{
	const struct record *x = find(rs, path);

	if (!x && rs->rest && in_rest(rs, path) && state_unscope(rs) >= 0)
		x = find(rs, path);
	return x;
}

/* Never replaces an existing record: the first original is the true one
 * (a stale record, of another device, is forgotten before: state_stale). */
int state_add(struct records *rs, const struct item *it, const char *original, const char *identity)
{
	char *f[NFIELDS] = { (char *)it->domain, it->target, it->setting, it->path, (char *)original,
			     (char *)identity };
	int rr = 0;

	if (rs->scope && !scope_has(rs->scope, it->target, strlen(it->target), it->path, strlen(it->path)))
		rr = state_unscope(rs); /* its record may be in the text */
	if (rr < 0)
		return rr;
	if (find(rs, it->path))
		return 0;
	for (int i = 0; i < NFIELDS; i++)
		if (!f[i] || strpbrk(f[i], "\t\n"))
			return -EINVAL;
	rr = push(rs, f);
	if (rr >= 0)
		rs->dirty = true;
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
	rs->dirty = true;
	for (i = 0; i < rs->n; i++) {
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
	free(rs->rest);
	free(rs->holes);
	if (rs->lock_fd >= 0)
		close(rs->lock_fd);
	*rs = (struct records){ .lock_fd = -1 };
}
