// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The run log, ROOT/run/earlytune/runs: one record per apply (at boot, from
 * udev, by hand) and per revert, so that `earlytune status` can say what
 * was done and what was not, and why. Text, tab-separated, one line per field list:
 *
 *   V  2  DROPPED                     the format, and how many runs were dropped
 *   R  TIME_NS DURATION_US COMMAND BOOT SCOPE NAMES ONLY
 *      CHANGED KEPT SKIPPED FAILED CONFIG_ERRORS MORE NOTE LINES
 *   P  the same fields: a run carried over by a rotation (below)
 *   I  OUTCOME DOMAIN TARGET SETTING CURRENT DESIRED DETAIL SOURCE
 *
 * Each R or P line is followed by the I lines of its items that were not kept,
 * failures first (LINES of them); beyond RUNLOG_MAX_ITEMS they are only
 * counted (MORE). Each run begins with an empty line.
 * Fields escape backslash, tab, newline and carriage return (\\ \t \n \r):
 * device and interface names are untrusted and must not break a line.
 *
 * Two segments, runs.old and runs. Every apply appends its run to runs
 * (O_APPEND, under the state lock: udev runs one earlytune per device, in
 * parallel) in one open, fstat (a regular file, and its size), write and
 * close: a run costs the same with a full log as with an empty one, and
 * the append reads nothing of the log.
 * When runs would pass RUNLOG_SEGMENT_BYTES it becomes runs.old, and the
 * runs.old before it is dropped and counted in the new segment's V line;
 * the newest boot run of the whole system, when it would go with it, is
 * carried into the new segment as its first run (P). A crashed append
 * leaves a torn run, its last line cut: the next append's empty line ends
 * that line, and the reader (runlog_runs) knows the run for torn, since
 * no empty line follows it or its I lines fall short of LINES. The first
 * version (V 1: no LINES, no empty lines, a torn last line cut by the
 * append after it) is still read, and appended to as it is. The reader
 * (runlog_read.c) applies the bound (RUNLOG_MAX_RUNS, RUNLOG_MAX_BYTES).
 * /run is a tmpfs: the log lives as long as the boot it tells about.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/array.h"
#include "base/log.h"
#include "engine/runlog.h"

enum outcome { O_FAILED, O_CHANGED, O_UNMET, O_SKIPPED, O_KEPT };
static const char *const outcome_names[] = { "failed", "changed", "unmet", "skipped" };

/* As apply's summary counts: written, failed, skipped, else kept. */
static enum outcome outcome_of(const struct item *it)
{
	if (it->result == RES_APPLIED)
		return O_CHANGED;
	if (it->result == RES_FAILED || it->action == ACT_ERROR)
		return O_FAILED;
	if (it->action == ACT_SKIP)
		return it->unmet ? O_UNMET : O_SKIPPED;
	return O_KEPT;
}

static void put_field(struct strbuf *sb, const char *s)
{
	sb_put(sb, "\t", 1);
	while (s && *s) {
		size_t n = strcspn(s, "\\\t\n\r");

		sb_put(sb, s, n);
		s += n;
		if (!*s)
			break;
		sb_put(sb, *s == '\\' ? "\\\\" : *s == '\t' ? "\\t" : *s == '\n' ? "\\n" : "\\r", 2);
		s++;
	}
}

/* SCOPE and NAMES: global, or the disks ('\n' between names, which cannot
 * hold one), the interface index or name; then ONLY, when not every domain. */
static void put_scope(struct strbuf *sb, const struct ctx *c)
{
	struct strbuf names = { 0 };
	char only[128] = "";

	for (size_t i = 0; i < c->ndevices; i++)
		sb_printf(&names, "%s%s", i ? "\n" : "", c->devices[i]);
	if (c->ifindex)
		sb_printf(&names, "%d", c->ifindex);
	else if (c->iface && !c->ndevices)
		sb_printf(&names, "%s", c->iface);
	put_field(sb, c->ndevices ? "device" : c->ifindex ? "ifindex" : c->iface ? "iface" : "global");
	put_field(sb, names.oom ? NULL : names.s);
	sb_free(&names);
	if (c->only == domains_all() || c->only == domains_implied(c))
		return put_field(sb, ""); /* what the scope implies */
	for (size_t i = 0; i < ndomains; i++)
		if (c->only & domains[i].bit)
			snprintf(only + strlen(only), sizeof(only) - strlen(only), "%s%s", *only ? "," : "",
				 domains[i].name);
	put_field(sb, only);
}

static void put_row(struct strbuf *sb, const struct measure_row *r, const char *source)
{
	sb_printf(sb, "I");
	put_field(sb, r->outcome);
	put_field(sb, r->domain);
	put_field(sb, r->target);
	put_field(sb, r->setting);
	put_field(sb, r->current);
	put_field(sb, r->desired);
	put_field(sb, r->detail);
	put_field(sb, source);
	sb_printf(sb, "\n");
}

static void put_item(struct strbuf *sb, const struct item *it, enum outcome o)
{
	struct measure_row r = { outcome_names[o], it->domain, it->target, it->setting, it->current, it->desired,
				 it->error ? it->error : it->reason };

	put_row(sb, &r, it->source);
}

/* One run: the empty line before it, its R line, then its items by
 * outcome, failures first. */
static void put_run(struct strbuf *sb, const struct ctx *c, const char *command, const struct plan *p,
		    const char *note)
{
	unsigned n[O_KEPT + 1] = { 0 }, listed = 0;
	size_t nitems = p ? p->n : 0;

	for (size_t i = 0; i < nitems; i++)
		n[outcome_of(&p->v[i])]++;
	sb_printf(sb, "\nR\t%lld\t%lld", now_ns(CLOCK_REALTIME), (now_ns(CLOCK_MONOTONIC) - c->t0_ns) / 1000);
	put_field(sb, command);
	/* The boot run a rotation keeps is an apply's. */
	sb_printf(sb, "\t%d", c->boot && !strcmp(command, "apply"));
	put_scope(sb, c);
	sb_printf(sb, "\t%u\t%u\t%u\t%u\t%d", n[O_CHANGED], n[O_KEPT], n[O_UNMET] + n[O_SKIPPED], n[O_FAILED],
		  c->cfg.errors);
	listed = n[O_FAILED] + n[O_CHANGED] + n[O_UNMET] + n[O_SKIPPED];
	sb_printf(sb, "\t%u", listed > RUNLOG_MAX_ITEMS ? listed - RUNLOG_MAX_ITEMS : 0);
	put_field(sb, note);
	sb_printf(sb, "\t%u\n", listed > RUNLOG_MAX_ITEMS ? RUNLOG_MAX_ITEMS : listed);
	listed = 0;
	for (enum outcome o = O_FAILED; o < O_KEPT; o++)
		for (size_t i = 0; i < nitems && listed < RUNLOG_MAX_ITEMS; i++)
			if (outcome_of(&p->v[i]) == o) {
				put_item(sb, &p->v[i], o);
				listed++;
			}
}

/* ---- writing: an append to the current segment, now and then a rotation ---- */

/* The runs of a segment, as spans of it. */
struct span {
	const char *s;
	size_t len;
	bool boot;
};

/* A boot run of the whole system: "R TIME DURATION COMMAND 1 global ...",
 * read within its line: a line cut short has no fields of the next. */
static bool span_is_boot(const char *line, size_t len)
{
	const char *end = line + len;

	for (int tabs = 0; tabs < 4; tabs++) {
		line = memchr(line, '\t', (size_t)(end - line));
		if (!line)
			return false;
		line++;
	}
	return end - line >= 9 && !memcmp(line, "1\tglobal\t", 9);
}

struct spans {
	struct span *v;
	size_t n, cap;
};

static int add_span(char *s, size_t len, void *data)
{
	struct spans *sp = data;

	if (array_grow(&sp->v, &sp->cap, sp->n, sizeof(*sp->v), 64) < 0)
		return -ENOMEM;
	sp->v[sp->n++] = (struct span){ s, len, span_is_boot(s, (size_t)((char *)memchr(s, '\n', len) - s)) };
	return 0;
}

/* A segment's runs; one that is absent, or too big to be ours, has none. */
static int read_segment(const struct root *r, const char *rel, char **buf, struct spans *s,
			unsigned long long *dropped)
{
	int rr = root_read_file(r, rel, buf, 4 * RUNLOG_MAX_BYTES);

	if (rr == -ENOENT || rr == -EFBIG)
		return 0;
	return rr < 0 ? rr : runlog_runs(*buf, add_span, s, dropped);
}

static size_t newest_boot(const struct span *s, size_t n)
{
	for (size_t i = n; i-- > 0;)
		if (s[i].boot)
			return i;
	return n;
}

/* A log of its own (there was none, or an empty file), with the run. */
static int start_log(const struct root *r, const struct strbuf *run)
{
	struct strbuf out = { 0 };
	int rr;

	sb_printf(&out, "V\t2\t0\n");
	sb_put(&out, run->s, run->len);
	rr = out.oom ? -ENOMEM : root_write_atomic(r, RUNLOG_FILE, out.s, out.len, 0644);
	sb_free(&out);
	return rr;
}

/* The current segment becomes runs.old, the one before is dropped (and
 * counted), a new one begins with the run. Only whole files change: runs.new
 * is written complete, then runs -> runs.old, runs.new -> runs; a crash
 * between the renames leaves runs.new for the reader and the next run
 * (open_segment). The newest boot run goes into the new segment, first, as
 * a P line, when the dropped segment holds it and the run is not a newer. */
static int rotate(const struct root *r, const struct strbuf *run, bool boot)
{
	_cleanup_(freep) char *cur = NULL, *old = NULL;
	struct spans cs = { 0 }, os = { 0 };
	unsigned long long dropped = 0, before;
	struct strbuf out = { 0 };
	int rr = read_segment(r, RUNLOG_FILE, &cur, &cs, &dropped);

	if (rr >= 0)
		rr = read_segment(r, RUNLOG_OLD, &old, &os, &before);
	if (rr >= 0) {
		size_t carry = boot || newest_boot(cs.v, cs.n) < cs.n ? os.n : newest_boot(os.v, os.n);

		sb_printf(&out, "V\t2\t%llu\n", dropped + os.n - (carry < os.n));
		if (carry < os.n) {
			sb_put(&out, "\nP", 2);
			sb_put(&out, os.v[carry].s + 1, os.v[carry].len - 1);
		}
		sb_put(&out, run->s, run->len);
	}
	free(cs.v);
	free(os.v);
	if (rr < 0)
		return rr;
	root_sweep_temps(r, RUNLOG_DIR, "runs.new", NULL);
	rr = out.oom ? -ENOMEM : root_write_atomic(r, RUNLOG_NEW, out.s, out.len, 0644);
	sb_free(&out);
	if (rr >= 0)
		rr = root_rename(r, RUNLOG_FILE, RUNLOG_OLD);
	return rr < 0 ? rr : root_rename(r, RUNLOG_NEW, RUNLOG_FILE);
}

/* The current segment, open to append; -ENOENT when there is no log. A
 * crash between rotate's renames left none, and runs.new is it. */
static int open_segment(const struct root *r, off_t *size)
{
	int fd = root_open_append(r, RUNLOG_FILE, size);

	if (fd == -ENOENT && root_rename(r, RUNLOG_NEW, RUNLOG_FILE) == 0)
		fd = root_open_append(r, RUNLOG_FILE, size);
	return fd;
}

/* The run at the end of the current segment: a constant cost (a udev run
 * per disk pays it), not a rewrite of the log, and no read of it. Under
 * the caller's lock. */
static int append(const struct root *r, const struct strbuf *run, bool boot, bool none)
{
	off_t size = 0;
	_cleanup_(closep) int fd = none ? -ENOENT : open_segment(r, &size);
	int rr;

	if (fd == -ENOENT || (fd >= 0 && !size))
		return start_log(r, run);
	if (fd < 0)
		return fd;
	if ((size_t)size + run->len > RUNLOG_SEGMENT_BYTES)
		return rotate(r, run, boot);
	rr = write_full(fd, run->s, run->len);
	/* A failed write (a full /run) leaves no part of the run behind. */
	if (rr < 0 && ftruncate(fd, size) < 0)
		log_msg(LOG_DEBUG, "cannot cut %s back after a failed append: %s", RUNLOG_FILE, strerror(errno));
	return rr;
}

/* The run appended under the state lock held (HELD) or one taken here
 * (HELD NULL); err: the caller's failure to take it. Said once when it
 * cannot be, and nothing else changes. */
static void record(const struct ctx *c, const struct strbuf *run, const struct records *held, int err, bool boot,
		   bool measurement)
{
	struct records lock = { .lock_fd = -1 };
	int r = run->oom ? -ENOMEM : 0;

	if (r >= 0 && held)
		r = held->lock_fd >= 0 ? 0 : err < 0 ? err : -ENOLCK;
	else if (r >= 0)
		r = state_lock(&lock, &c->root);
	if (r >= 0)
		r = append(&c->root, run, boot, held && held->none); /* none: no log either */
	state_free(&lock);
	/* A user may measure (measure tcp reads only sock_diag); the log is
	 * root's, and a measurement it cannot enter is no fault of the run. */
	if (r < 0)
		log_msg(measurement && (r == -EACCES || r == -EPERM) && geteuid() ? LOG_DEBUG : LOG_WARN,
			"cannot record this run in %s/%s: %s", c->root.is_host ? "" : c->root.dir, RUNLOG_FILE,
			strerror(-r));
}

/* A failed apply may have written some items first (a change of channels
 * before its plan was made again). */
static bool any_applied(const struct plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].result == RES_APPLIED)
			return true;
	return false;
}

/* Every apply and revert ends here, under the state lock it holds (HELD)
 * or one taken here (HELD NULL): a udev run queues for the lock once, not
 * twice. A run that cannot be recorded is said once and changes nothing
 * else: not the command's exit status, not what it did. */
void runlog_add(const struct ctx *c, const char *command, const struct plan *p, int err,
		const struct records *held)
{
	struct strbuf run = { 0 };
	char note[160] = "";

	if (!p)
		snprintf(note, sizeof(note), "earlytune=0 on the kernel command line: nothing written");
	else if (err < 0)
		snprintf(note, sizeof(note), "%s written: %s", any_applied(p) ? "the rest not" : "nothing",
			 strerror(-err));
	put_run(&run, c, command, p, note);
	record(c, &run, held, err,
	       c->boot && !strcmp(command, "apply") && !c->ndevices && !c->ifindex && !c->iface, false);
	sb_free(&run);
}

/* A measurement's run: its scope RUN_SCOPE_MEASUREMENT, never a boot run;
 * the rows measured (or checked) count as kept. */
void runlog_measurement(const struct ctx *c, const char *command, const struct measure_row *rows, size_t n)
{
	struct strbuf run = { 0 };
	unsigned changed = 0, failed = 0;

	n = n > RUNLOG_MAX_ITEMS ? RUNLOG_MAX_ITEMS : n;
	for (size_t i = 0; i < n; i++) {
		changed += !strcmp(rows[i].outcome, "changed");
		failed += !strcmp(rows[i].outcome, "failed");
	}
	sb_printf(&run, "\nR\t%lld\t%lld", now_ns(CLOCK_REALTIME), (now_ns(CLOCK_MONOTONIC) - c->t0_ns) / 1000);
	put_field(&run, command);
	sb_printf(&run, "\t0");
	put_field(&run, RUN_SCOPE_MEASUREMENT);
	put_field(&run, "");
	put_field(&run, "");
	sb_printf(&run, "\t%u\t%zu\t0\t%u\t0\t0", changed, n - changed - failed, failed);
	put_field(&run, "");
	sb_printf(&run, "\t%zu\n", n);
	for (size_t i = 0; i < n; i++)
		put_row(&run, &rows[i], NULL);
	record(c, &run, NULL, 0, false, true);
	sb_free(&run);
}
