// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The run log read back, for `status` and the Prometheus export: both
 * segments parsed into runs (the format is described in runlog.c, which
 * writes it), then bounded to what status shows.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/array.h"
#include "base/log.h"
#include "engine/runlog.h"

/* Splits a line at its tabs and undoes the escapes, in place; empty fields
 * become NULL. Returns the number of fields. */
static size_t split_fields(char *line, char **f, size_t max)
{
	size_t n = 0;

	while (n < max) {
		char *end = strchrnul(line, '\t'), *w = line;
		bool last = !*end;

		*end = '\0';
		f[n++] = *line ? line : NULL;
		for (char *s = line; *s; s++) {
			if (*s == '\\' && s[1]) {
				s++;
				*s = *s == 't' ? '\t' : *s == 'n' ? '\n' : *s == 'r' ? '\r' : *s;
			}
			*w++ = *s;
		}
		*w = '\0';
		if (last)
			break;
		line = end + 1;
	}
	return n;
}

static bool parse_uint(const char *s, unsigned *out)
{
	unsigned long long v;

	if (!s || parse_u64(s, &v) < 0 || v > UINT_MAX)
		return false;
	*out = (unsigned)v;
	return true;
}

static bool parse_ll(const char *s, long long *out)
{
	unsigned long long v;

	if (!s || parse_u64(s, &v) < 0 || v > LLONG_MAX)
		return false;
	*out = (long long)v;
	return true;
}

/* An R line's fields (f[0] is "R"); false when it is not one. The second
 * version's has a 16th, the count of its I lines (runlog_runs checks it). */
static bool parse_run(char **f, size_t n, struct run *x)
{
	if (n != 15 && n != 16)
		return false;
	*x = (struct run){ .command = f[3], .scope = f[5], .names = f[6], .only = f[7], .note = f[14] };
	x->boot = f[4] && !strcmp(f[4], "1");
	return x->command && x->scope && parse_ll(f[1], &x->time_ns) &&
	       parse_ll(f[2], &x->duration_us) && parse_uint(f[8], &x->changed) && parse_uint(f[9], &x->kept) &&
	       parse_uint(f[10], &x->skipped) && parse_uint(f[11], &x->failed) &&
	       parse_uint(f[12], &x->config_errors) && parse_uint(f[13], &x->more);
}

static int add_item(struct run *x, char **f)
{
	struct run_item *v = realloc(x->items, (x->nitems + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	x->items = v;
	v[x->nitems++] = (struct run_item){ f[1], f[2], f[3] ? f[3] : "", f[4] ? f[4] : "", f[5], f[6], f[7], f[8] };
	return 0;
}

/* A run goes last, or first when carried (P): the newest boot run, moved
 * by a rotation into the segment after the one that held it, is older
 * than every run of both segments. */
static int add_run(struct runlog *log, const struct run *x, bool carried)
{
	struct run *v;

	if (array_grow(&log->v, &log->cap, log->n, sizeof(*log->v), 64) < 0)
		return -ENOMEM;
	v = log->v;
	log->cur = carried ? 0 : log->n;
	if (carried)
		memmove(v + 1, v, log->n * sizeof(*v));
	v[log->cur] = *x;
	log->n++;
	return 0;
}

static int add_line(struct runlog *log, char *line, size_t len)
{
	char *f[16];
	size_t n = split_fields(line, f, ARRAY_SIZE(f));
	bool carried = f[0] && !strcmp(f[0], "P");
	struct run x;

	if (!f[0])
		return 0;
	if (!strcmp(f[0], "I") && n == 9 && log->cur < log->n && f[1] && f[2]) {
		log->v[log->cur].bytes += len;
		return add_item(&log->v[log->cur], f);
	}
	if (strcmp(f[0], "R") && !carried)
		return 0; /* a line this version does not know */
	log->cur = SIZE_MAX;
	if (!parse_run(f, n, &x))
		return 0; /* nor is what follows a known run's */
	x.bytes = len;
	return add_run(log, &x, carried);
}

/* One run's lines, as runlog_runs hands them. */
static int add_lines(char *s, size_t len, void *data)
{
	struct runlog *log = data;
	char *end = s + len, *next;
	int rr = 0;

	log->cur = SIZE_MAX;
	for (char *line = s; rr >= 0 && (next = memchr(line, '\n', (size_t)(end - line))); line = next) {
		*next++ = '\0';
		rr = add_line(log, line, (size_t)(next - line));
	}
	return rr;
}

/* ---- a segment's runs -------------------------------------------------------- */

/* The run being walked: its lines so far; for the second version, the I
 * lines its R line announces and those seen. */
struct walk {
	char *s;
	size_t len;
	bool v2;
	unsigned long long want, seen;
};

/* What ends a run: an empty line or the segment's end, a run line of the
 * second version, anything else (a first version's run line, a cut one). A
 * second version's run is only ever followed by the empty line before the
 * next run, unless it was torn (and the next run's line ended its last). */
enum closer { CL_END, CL_V2, CL_OTHER };

/* A second version's run is whole when a separator or the end follows all
 * the I lines it announces; a first version's unless a second version's run
 * line follows it without a separator: its last line was torn, and ended by
 * the newline the append put before its run. */
static int close_run(struct walk *w, enum closer how, int (*fn)(char *s, size_t len, void *data), void *data)
{
	bool whole = w->v2 ? how == CL_END && w->seen == w->want : how != CL_V2;
	int rr = w->s && whole ? fn(w->s, w->len, data) : 0;

	w->s = NULL;
	return rr;
}

static size_t count_fields(const char *line, const char *end)
{
	size_t n = 1;

	for (const char *p = line; (p = memchr(p, '\t', (size_t)(end - p))); p++)
		n++;
	return n;
}

/* A run line, an R or P line: 2 for the second version's (16 fields, the
 * 16th the count of its I lines, in want), 1 for the first version's (15)
 * or one cut short (which no reader parses, but a rotation counts). */
static int run_version(const char *line, const char *end, unsigned long long *want)
{
	if ((*line != 'R' && *line != 'P') || line[1] != '\t')
		return -1;
	if (count_fields(line, end) != 16)
		return 1;
	*want = strtoull(memrchr(line, '\t', (size_t)(end - line)) + 1, NULL, 10);
	return 2;
}

int runlog_runs(char *buf, int (*fn)(char *s, size_t len, void *data), void *data, unsigned long long *dropped)
{
	int version = !strncmp(buf, "V\t1\t", 4) ? 1 : !strncmp(buf, "V\t2\t", 4) ? 2 : 0, rr = 0;
	struct walk w = { 0 };

	*dropped = version ? strtoull(buf + 4, NULL, 10) : 0;
	for (char *line = buf, *end; rr >= 0 && (end = strchr(line, '\n')); line = end + 1) {
		size_t len = (size_t)(end - line) + 1;
		unsigned long long want = 0;
		int v = run_version(line, end, &want);

		if (*line == 'I' && line[1] == '\t' && w.s) {
			w.len += len, w.seen++;
			continue;
		}
		if (v < 0 && line != end)
			continue; /* a line this version does not know */
		rr = close_run(&w, v < 0 ? CL_END : v == 2 ? CL_V2 : CL_OTHER, fn, data);
		/* A first version's run in a segment of another format is not ours. */
		if (v == 2 || (v == 1 && version))
			w = (struct walk){ line, len, v == 2, want, 0 };
	}
	if (rr >= 0)
		rr = close_run(&w, CL_END, fn, data);
	return rr < 0 ? rr : version;
}

/* What status shows: the newest run, the newest boot run of the whole
 * system whatever came after it, then the newest runs back to the first
 * that does not fit RUNLOG_MAX_RUNS and RUNLOG_MAX_BYTES. The rest counts
 * as dropped: the segments hold up to twice the bound's runs of tiny ones. */
static int bound(struct runlog *log)
{
	_cleanup_(freep) bool *keep = calloc(log->n + 1, sizeof(*keep));
	size_t pin = log->n, runs = 0, used = 0, kept = 0;

	if (!keep)
		return -ENOMEM;
	for (size_t i = log->n; i-- > 0 && pin == log->n;)
		if (run_is_boot(&log->v[i]))
			pin = i;
	if (pin < log->n)
		keep[pin] = true, runs++, used += log->v[pin].bytes;
	for (size_t i = log->n; i-- > 0;) {
		if (i == pin)
			continue;
		if (i + 1 < log->n && (runs >= RUNLOG_MAX_RUNS || used + log->v[i].bytes > RUNLOG_MAX_BYTES))
			break;
		keep[i] = true, runs++, used += log->v[i].bytes;
	}
	for (size_t i = 0; i < log->n; i++)
		if (keep[i])
			log->v[kept++] = log->v[i];
		else
			free(log->v[i].items);
	log->dropped += log->n - kept;
	log->n = kept;
	return 0;
}

/* Reads of both segments before a look gives up on a log that rotates
 * under every one (a rotation takes 128 KiB of runs). */
#define RUNLOG_READ_TRIES 16

/* Which file runs.old is (zeros: none). A rotation renames another onto it. */
static int old_identity(const struct root *r, struct stat *st)
{
	_cleanup_(closep) int fd = root_openat(r, RUNLOG_OLD, O_PATH, 0);

	memset(st, 0, sizeof(*st));
	if (fd == -ENOENT)
		return 0;
	return fd < 0 ? fd : fstat(fd, st) < 0 ? -errno : 0;
}

/* Both segments as one rotation left them, without the writers' lock (a
 * look must not queue behind udev's runs): runs.old, then runs (runs.new
 * when a crash between rotate's renames left only that). A rotation
 * between the two reads would leave the segment it moved in neither: when
 * runs.old is another file after the reads than before, or runs is gone
 * while runs.old is there, they are read again. */
static int read_segments(const struct root *r, struct runlog *log, int *rold, int *rcur)
{
	struct stat before, after;
	int rr = 0;

	for (int i = 0; i < RUNLOG_READ_TRIES; i++) {
		free(log->buf[0]), free(log->buf[1]);
		log->buf[0] = log->buf[1] = NULL;
		if ((rr = old_identity(r, &before)) < 0)
			return rr;
		*rold = root_read_file(r, RUNLOG_OLD, &log->buf[0], 4 * RUNLOG_MAX_BYTES);
		*rcur = root_read_file(r, RUNLOG_FILE, &log->buf[1], 4 * RUNLOG_MAX_BYTES);
		if (*rcur == -ENOENT)
			*rcur = root_read_file(r, RUNLOG_NEW, &log->buf[1], 4 * RUNLOG_MAX_BYTES);
		if ((rr = old_identity(r, &after)) < 0)
			return rr;
		if (before.st_dev == after.st_dev && before.st_ino == after.st_ino && (*rcur != -ENOENT || *rold < 0))
			return 0;
	}
	return 0; /* rotating faster than it can be read: the last reads */
}

/* runs.old, when there is one of this format, then runs. */
int runlog_load(const struct root *r, struct runlog *log)
{
	int rold, rcur, rr = read_segments(r, log, &rold, &rcur);
	unsigned long long dropped;
	bool old;
	size_t n;

	if (rr < 0)
		return rr;
	if (rold < 0 && rold != -ENOENT) {
		log->old_err = rold;
		log_msg(LOG_WARN, "cannot read %s/%s: %s; its runs, the oldest, are left out",
			r->is_host ? "" : r->dir, RUNLOG_OLD, strerror(-rold));
	}
	if (rold >= 0 && (rr = runlog_runs(log->buf[0], add_lines, log, &log->dropped)) < 0)
		return rr;
	old = rold >= 0 && (rr > 0 || log->n);
	if (rcur == -ENOENT && !old)
		return rcur;
	if (rcur < 0 && rcur != -ENOENT)
		return rcur;
	n = log->n;
	if (rcur >= 0 && (rr = runlog_runs(log->buf[1], add_lines, log, &dropped)) < 0)
		return rr;
	/* A segment of another format, which no run of ours was appended to. */
	if (rcur >= 0 && !rr && log->n == n)
		return -EBADMSG;
	if (rcur >= 0 && rr)
		log->dropped = dropped;
	return bound(log);
}

void runlog_free(struct runlog *log)
{
	for (size_t i = 0; i < log->n; i++)
		free(log->v[i].items);
	free(log->v);
	free(log->buf[0]);
	free(log->buf[1]);
	*log = (struct runlog){ 0 };
}

bool run_is_boot(const struct run *x)
{
	return x->boot && !strcmp(x->scope, "global");
}

bool run_is_measurement(const struct run *x)
{
	return !strcmp(x->scope, RUN_SCOPE_MEASUREMENT);
}

/* The newest run of COMMAND, or NULL. */
const struct run *runlog_last(const struct runlog *log, const char *command)
{
	for (size_t i = log->n; i-- > 0;)
		if (!strcmp(log->v[i].command, command))
			return &log->v[i];
	return NULL;
}

/* The newest run when it reverted the whole system (every domain, no
 * device or interface named), else NULL: a later apply of anything ends
 * the reverted state. */
const struct run *runlog_reverted(const struct runlog *log)
{
	const struct run *x = NULL;

	/* A measurement since changes nothing of it. */
	for (size_t i = log->n; i-- > 0 && !x;)
		x = run_is_measurement(&log->v[i]) ? NULL : &log->v[i];
	return x && !strcmp(x->command, "revert") && !strcmp(x->scope, "global") && !x->only ? x : NULL;
}

/* Runs that applied or reverted, measurements not counted. */
static size_t applies(const struct runlog *log)
{
	size_t n = 0;

	for (size_t i = 0; i < log->n; i++)
		n += !run_is_measurement(&log->v[i]);
	return n;
}

/* Never: no run in the log and no record of an original (a run the log
 * could not take still leaves its records). A log that cannot be read
 * tells nothing: applied, as verify always assumed. */
enum ran runlog_ran(const struct root *r, int *err)
{
	static const char *const records[] = { RUNLOG_DIR "/originals", RUNLOG_DIR "/disks", RUNLOG_DIR "/links" };
	struct runlog log = { 0 };
	int rr = runlog_load(r, &log);
	enum ran ran = RAN_APPLIED;

	/* What the log cannot show (a segment unread) is not "never ran". */
	*err = rr < 0 && rr != -ENOENT && rr != -EBADMSG ? rr : log.old_err;
	if (rr >= 0 && runlog_reverted(&log))
		ran = RAN_REVERTED;
	else if ((rr == -ENOENT || (rr >= 0 && !applies(&log))) && !root_exists(r, records[0]) &&
		 !root_exists(r, records[1]) && !root_exists(r, records[2]))
		ran = RAN_NEVER;
	runlog_free(&log);
	return ran;
}
