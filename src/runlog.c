// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The run log, ROOT/run/earlytune/runs: one record per apply (at boot, from
 * udev, by hand), so that `earlytune status` can say what was done and what
 * was not, and why. Text, tab-separated, one line per field list:
 *
 *   V  1  DROPPED                     the format, and how many runs the bound dropped
 *   R  TIME_NS DURATION_US COMMAND BOOT SCOPE NAMES ONLY
 *      CHANGED KEPT SKIPPED FAILED CONFIG_ERRORS MORE NOTE
 *   I  OUTCOME DOMAIN TARGET SETTING CURRENT DESIRED DETAIL SOURCE
 *
 * Each R line is followed by the I lines of its items that were not kept,
 * failures first; beyond RUNLOG_MAX_ITEMS they are only counted (MORE).
 * Fields escape backslash, tab, newline and carriage return (\\ \t \n \r):
 * device and interface names are untrusted and must not break a line.
 *
 * Bounded: every apply rewrites the whole file through root_write_atomic
 * under the state lock (udev runs one earlytune per device, in parallel),
 * keeping the newest runs that fit RUNLOG_MAX_RUNS and RUNLOG_MAX_BYTES, and
 * always the newest boot run of the whole system. /run is a tmpfs: the log
 * lives as long as the boot it tells about.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runlog.h"

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
	if (c->only == domains_all() || (c->ndevices && c->only == DOM_BLOCK) ||
	    ((c->ifindex || c->iface) && c->only == DOM_NET))
		return put_field(sb, ""); /* what the scope implies */
	for (size_t i = 0; i < ndomains; i++)
		if (c->only & domains[i].bit)
			snprintf(only + strlen(only), sizeof(only) - strlen(only), "%s%s", *only ? "," : "",
				 domains[i].name);
	put_field(sb, only);
}

static void put_item(struct strbuf *sb, const struct item *it, enum outcome o)
{
	sb_printf(sb, "I");
	put_field(sb, outcome_names[o]);
	put_field(sb, it->domain);
	put_field(sb, it->target);
	put_field(sb, it->setting);
	put_field(sb, it->current);
	put_field(sb, it->desired);
	put_field(sb, it->error ? it->error : it->reason);
	put_field(sb, it->source);
	sb_printf(sb, "\n");
}

/* One run: its R line, then its items by outcome, failures first. */
static void put_run(struct strbuf *sb, const struct ctx *c, const struct plan *p, const char *note)
{
	unsigned n[O_KEPT + 1] = { 0 }, listed = 0;
	size_t nitems = p ? p->n : 0;

	for (size_t i = 0; i < nitems; i++)
		n[outcome_of(&p->v[i])]++;
	sb_printf(sb, "R\t%lld\t%lld", now_ns(CLOCK_REALTIME), (now_ns(CLOCK_MONOTONIC) - c->t0_ns) / 1000);
	put_field(sb, "apply");
	sb_printf(sb, "\t%d", c->boot);
	put_scope(sb, c);
	sb_printf(sb, "\t%u\t%u\t%u\t%u\t%d", n[O_CHANGED], n[O_KEPT], n[O_UNMET] + n[O_SKIPPED], n[O_FAILED],
		  c->cfg.errors);
	listed = n[O_FAILED] + n[O_CHANGED] + n[O_UNMET] + n[O_SKIPPED];
	sb_printf(sb, "\t%u", listed > RUNLOG_MAX_ITEMS ? listed - RUNLOG_MAX_ITEMS : 0);
	put_field(sb, note);
	sb_printf(sb, "\n");
	listed = 0;
	for (enum outcome o = O_FAILED; o < O_KEPT; o++)
		for (size_t i = 0; i < nitems && listed < RUNLOG_MAX_ITEMS; i++)
			if (outcome_of(&p->v[i]) == o) {
				put_item(sb, &p->v[i], o);
				listed++;
			}
}

/* The runs already in the log, as spans of the file. */
struct span {
	const char *s;
	size_t len;
	bool boot;
};

/* A boot run of the whole system: "R TIME DURATION COMMAND 1 global ...". */
static bool span_is_boot(const char *line)
{
	for (int tabs = 0; tabs < 4; tabs++) {
		line = strchr(line, '\t');
		if (!line)
			return false;
		line++;
	}
	return !strncmp(line, "1\tglobal\t", 9);
}

/* The length of the line at s, its newline included (strchrnul: strcspn
 * was a tenth of a one-disk run that rewrote a full log). */
static size_t line_len(const char *s)
{
	const char *e = strchrnul(s, '\n');

	return (size_t)(e - s) + (*e == '\n');
}

static int add_span(struct span **v, size_t *n, size_t *cap, const char *line, size_t len)
{
	struct span *nv;

	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		nv = realloc(*v, *cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		*v = nv;
	}
	(*v)[(*n)++] = (struct span){ line, len, span_is_boot(line) };
	return 0;
}

/* A log of another format (or none) starts again: its runs are not ours to read. */
static int split_runs(const char *buf, struct span **v, size_t *n, unsigned long long *dropped)
{
	size_t cap = 0, len;

	if (strncmp(buf, "V\t1\t", 4))
		return 0;
	*dropped = strtoull(buf + 4, NULL, 10);
	for (const char *line = buf; *line; line += len) {
		len = line_len(line);
		if (!strncmp(line, "R\t", 2) && add_span(v, n, &cap, line, len) < 0)
			return -ENOMEM;
		if (!strncmp(line, "I\t", 2) && *n)
			(*v)[*n - 1].len += len;
	}
	return 0;
}

/* The newest boot run (unless the new run is one), then the newest runs
 * back to the first that does not fit. */
static size_t choose(const struct span *s, size_t n, size_t used, bool pin_boot, bool *keep)
{
	size_t runs = 1, kept = 0, pin = n;

	for (size_t i = n; i-- > 0 && pin == n && pin_boot;)
		if (s[i].boot)
			pin = i;
	if (pin < n) {
		keep[pin] = true;
		runs++, kept++;
		used += s[pin].len;
	}
	for (size_t i = n; i-- > 0;) {
		if (i == pin)
			continue;
		if (runs >= RUNLOG_MAX_RUNS || used + s[i].len > RUNLOG_MAX_BYTES)
			break;
		keep[i] = true;
		runs++, kept++;
		used += s[i].len;
	}
	return kept;
}

/* The log with the new run, within the bound; under the caller's lock. */
static int rewrite(const struct root *r, const struct strbuf *run, bool boot)
{
	_cleanup_(freep) char *old = NULL;
	_cleanup_(freep) struct span *s = NULL;
	_cleanup_(freep) bool *keep = NULL;
	struct strbuf out = { 0 };
	unsigned long long dropped = 0;
	size_t n = 0, kept;
	int rr = root_read_file(r, RUNLOG_FILE, &old, 4 * RUNLOG_MAX_BYTES);

	if (rr < 0 && rr != -ENOENT && rr != -EFBIG)
		return rr;
	if (rr >= 0 && (rr = split_runs(old, &s, &n, &dropped)) < 0)
		return rr;
	keep = calloc(n + 1, sizeof(*keep));
	if (!keep)
		return -ENOMEM;
	kept = choose(s, n, run->len, !boot, keep);
	sb_printf(&out, "V\t1\t%llu\n", dropped + (n - kept));
	for (size_t i = 0; i < n; i++)
		if (keep[i])
			sb_put(&out, s[i].s, s[i].len);
	sb_put(&out, run->s, run->len);
	rr = out.oom ? -ENOMEM : root_write_atomic(r, RUNLOG_FILE, out.s, out.len, 0644);
	sb_free(&out);
	return rr;
}

/* Every apply ends here, under the state lock it holds (HELD) or one taken
 * here (HELD NULL): a udev run queues for the lock once, not twice. A run
 * that cannot be recorded is said once and changes nothing else: not
 * apply's exit status, not what it did. */
void runlog_append(const struct ctx *c, const struct plan *p, int err, const struct records *held)
{
	struct records lock = { .lock_fd = -1 };
	struct strbuf run = { 0 };
	char note[160] = "";
	int r;

	if (!p)
		snprintf(note, sizeof(note), "earlytune=0 on the kernel command line: nothing written");
	else if (err < 0)
		snprintf(note, sizeof(note), "nothing written: %s", strerror(-err));
	put_run(&run, c, p, note);
	r = run.oom ? -ENOMEM : 0;
	if (r >= 0 && held)
		r = held->lock_fd >= 0 ? 0 : err < 0 ? err : -ENOLCK;
	else if (r >= 0)
		r = state_lock(&lock, &c->root);
	if (r >= 0)
		r = rewrite(&c->root, &run, c->boot && !c->ndevices && !c->ifindex && !c->iface);
	state_free(&lock);
	sb_free(&run);
	if (r < 0)
		log_msg(LOG_WARN, "cannot record this run in %s/%s: %s", c->root.is_host ? "" : c->root.dir,
			RUNLOG_FILE, strerror(-r));
}

/* ---- reading it back: status and the Prometheus export ---- */

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

/* An R line's fields (f[0] is "R"); false when it is not one. */
static bool parse_run(char **f, size_t n, struct run *x)
{
	if (n != 15)
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

static int add_line(struct runlog *log, char *line)
{
	char *f[16];
	size_t n = split_fields(line, f, ARRAY_SIZE(f));
	struct run x, *v;

	if (!f[0])
		return 0;
	if (!strcmp(f[0], "V") && n == 3 && f[2])
		log->dropped = strtoull(f[2], NULL, 10);
	if (!strcmp(f[0], "I") && n == 9 && log->n && f[1] && f[2])
		return add_item(&log->v[log->n - 1], f);
	if (strcmp(f[0], "R") || !parse_run(f, n, &x))
		return 0; /* a line this version does not know */
	v = realloc(log->v, (log->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	log->v = v;
	v[log->n++] = x;
	return 0;
}

int runlog_load(const struct root *r, struct runlog *log)
{
	int rr = root_read_file(r, RUNLOG_FILE, &log->buf, 4 * RUNLOG_MAX_BYTES);

	if (rr < 0)
		return rr;
	if (strncmp(log->buf, "V\t1\t", 4))
		return -EBADMSG;
	for (char *line = log->buf, *next; *line && rr >= 0; line = next) {
		next = strchrnul(line, '\n');
		if (*next)
			*next++ = '\0';
		rr = add_line(log, line);
	}
	return rr < 0 ? rr : 0;
}

void runlog_free(struct runlog *log)
{
	for (size_t i = 0; i < log->n; i++)
		free(log->v[i].items);
	free(log->v);
	free(log->buf);
	*log = (struct runlog){ 0 };
}

bool run_is_boot(const struct run *x)
{
	return x->boot && !strcmp(x->scope, "global");
}
