// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What --verify judges by: the measure file's comment lines read back (the
 * measurement before, the prediction, the selection, the newest check),
 * and the verdict on the same measurement made again. A prediction holds
 * when the throughput after is at least MT_TOLERANCE_PCT of it. Short of
 * that, the change still did what it was for when the limit moved off the
 * setting to another and the throughput rose by a quarter or more: the
 * prediction was min(link, buffer / RTT), and something else (the path,
 * the peer, the application) now sets the pace. Anything else failed, and
 * the file's "Was:" line is the way back. Pure: the unit tests feed it
 * recorded files and verdicts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "measure/report.h"
#include "measure/verify.h"

void mt_date(char *out, size_t size, long long when)
{
	time_t t = (time_t)when;
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(out, size, "?");
}

static const char *const outcome_names[] = { "held", "moved", "failed", "unverified" };

const char *mt_outcome_name(enum mt_outcome o)
{
	return outcome_names[o];
}

int mt_outcome_parse(const char *s)
{
	for (int i = 0; i <= MO_UNVERIFIED; i++)
		if (!strcmp(s, outcome_names[i]))
			return i;
	return -1;
}

enum mt_limit mt_limit_of(const char *sysctl)
{
	if (!strcmp(sysctl, "net.ipv4.tcp_wmem"))
		return MT_SNDBUF;
	if (!strcmp(sysctl, "net.ipv4.tcp_rmem"))
		return MT_RWND;
	return MT_CWND; /* net.ipv4.tcp_congestion_control */
}

bool mt_same_value(const char *a, const char *b)
{
	for (;;) {
		a += strspn(a, " \t\n");
		b += strspn(b, " \t\n");
		size_t na = strcspn(a, " \t\n"), nb = strcspn(b, " \t\n");

		if (na != nb || memcmp(a, b, na))
			return false;
		if (!na)
			return true;
		a += na, b += nb;
	}
}

static void copy_word(char *out, size_t size, const char *s, size_t n)
{
	snprintf(out, size, "%.*s", (int)n, s);
}

/* "earlytune measure tcp --for 2 --peer 10.0.0.2 --port 5201 --verify" */
static void parse_selection(const char *s, struct mt_applied *a)
{
	while ((s = strstr(s, " --"))) {
		const char *v = s + 3 + strcspn(s + 3, " ");
		size_t n;

		v += strspn(v, " ");
		n = strcspn(v, " \n");
		if (!strncmp(s, " --for ", 7))
			a->seconds = (unsigned)strtoul(v, NULL, 10);
		else if (!strncmp(s, " --port ", 8))
			a->port = (unsigned)strtoul(v, NULL, 10);
		else if (!strncmp(s, " --peer ", 8))
			copy_word(a->peer, sizeof(a->peer), v, n);
		s += 3;
	}
}

const char *mt_check_head(const char *line, enum mt_outcome *o, char *checked, size_t size)
{
	char outcome[16], date[32];
	int n = 0, i;

	/* the prefix exact, as the check's writer drops it (a space in
	 * sscanf's format matches none too) */
	if (strncmp(line, "# Verified: ", 12) ||
	    sscanf(line, "# Verified: %15s at %31s on %*s %n", outcome, date, &n) != 2 || !n ||
	    (i = mt_outcome_parse(outcome)) < 0)
		return NULL;
	*o = (enum mt_outcome)i;
	snprintf(checked, size, "%s", date);
	return line + n;
}

static void parse_checked(const char *line, struct mt_applied *a)
{
	unsigned long long after, inflight;
	enum mt_outcome o;
	char date[32];

	line = mt_check_head(line, &o, date, sizeof(date));
	if (!line || sscanf(line, "%llu bit/s acked, %llu bytes in flight", &after, &inflight) != 2)
		return;
	a->outcome = o;
	snprintf(a->checked, sizeof(a->checked), "%s", date);
	a->after_bps = after;
	a->after_inflight = inflight;
}

static void parse_comment(const char *line, struct mt_applied *a)
{
	unsigned long long x, y;
	const char *p;

	if (sscanf(line, "# Before: %llu bit/s acked, %llu bytes in flight", &x, &y) == 2)
		a->before_bps = x, a->before_inflight = y;
	else if (sscanf(line, "# Prediction: at least %llu bit/s, %llu bytes in flight", &x, &y) == 2)
		a->pred_bps = x, a->pred_inflight = y, a->pred_floor = true;
	else if (sscanf(line, "# Prediction: %llu bit/s, %llu bytes in flight", &x, &y) == 2)
		a->pred_bps = x, a->pred_inflight = y;
	else if (!strncmp(line, "# Was: ", 7) && (p = strstr(line, " = ")))
		copy_word(a->was, sizeof(a->was), p + 3,
			  strstr(p, " (to revert") ? (size_t)(strstr(p, " (to revert") - (p + 3)) : strlen(p + 3));
	else if (!strncmp(line, "# Check it with the same measurement: ", 38))
		parse_selection(line + 38, a);
	else if (!strncmp(line, "# Verified: ", 12))
		parse_checked(line, a);
}

/* "KEY = VALUE", the file's setting */
static int parse_setting(const char *line, struct mt_applied *a)
{
	const char *eq = strchr(line, '=');
	size_t n;

	if (!eq)
		return -EBADMSG;
	for (n = (size_t)(eq - line); n && (line[n - 1] == ' ' || line[n - 1] == '\t'); n--)
		;
	copy_word(a->setting, sizeof(a->setting), line, n);
	eq += 1 + strspn(eq + 1, " \t");
	copy_word(a->value, sizeof(a->value), eq, strcspn(eq, "\n"));
	return n ? 0 : -EBADMSG;
}

int mt_applied_parse(const char *text, struct mt_applied *a)
{
	int e = -EBADMSG;

	memset(a, 0, sizeof(*a));
	a->outcome = MO_UNVERIFIED;
	for (const char *line = text; *line; line += strcspn(line, "\n") + (line[strcspn(line, "\n")] == '\n')) {
		char buf[512];

		copy_word(buf, sizeof(buf), line, strcspn(line, "\n"));
		if (buf[0] == '#')
			parse_comment(buf, a);
		else if (buf[strspn(buf, " \t")] && e < 0)
			e = parse_setting(buf, a);
	}
	return e;
}

static void mbit(char *out, size_t size, uint64_t bps)
{
	snprintf(out, size, "%.1f Mbit/s", (double)bps / 1e6);
}

static void judge_measured(const struct mt_applied *a, const struct mt_verdict *after, struct mt_check *k)
{
	char now[32], pred[32], before[32];
	bool rose = (double)after->rate_bps * 100 >= (double)a->before_bps * MT_RISE_PCT;
	double pct = (double)after->rate_bps * 100 / (double)a->pred_bps;

	mbit(now, sizeof(now), after->rate_bps);
	mbit(pred, sizeof(pred), a->pred_bps);
	mbit(before, sizeof(before), a->before_bps);
	/* Saturated: a file can predict 1 bit/s, and converting a double past
	 * the range is undefined. */
	k->pct = pct >= 1e6 ? 1000000 : (unsigned)pct;
	if (k->pct >= MT_TOLERANCE_PCT) {
		k->outcome = MO_HELD;
		snprintf(k->why, sizeof(k->why), "%s acked, %u%% of the predicted %s%s (at least %d%% holds); before %s",
			 now, k->pct, a->pred_floor ? "floor of " : "", pred, MT_TOLERANCE_PCT, before);
	} else if (k->after != k->before && rose) {
		k->outcome = MO_MOVED;
		snprintf(k->why, sizeof(k->why),
			 "the limit moved off the %s to the %s and the throughput rose from %s to %s, %u%% of the "
			 "predicted %s: the %s now sets the pace", mt_limit_name(k->before), mt_limit_name(k->after),
			 before, now, k->pct, pred, mt_limit_name(k->after));
	} else {
		k->outcome = MO_FAILED;
		snprintf(k->why, sizeof(k->why), "%s acked, %u%% of the predicted %s (at least %d%% holds), before %s; %s",
			 now, k->pct, pred, MT_TOLERANCE_PCT, before,
			 k->after == k->before ? "the limit is still the setting's"
					       : "the limit moved but the throughput did not rise by a quarter");
	}
}

void mt_judge(const struct mt_applied *a, const struct mt_verdict *after, bool in_force, const char *now,
	      struct mt_check *k)
{
	memset(k, 0, sizeof(*k));
	k->outcome = MO_UNVERIFIED;
	k->before = mt_limit_of(a->setting);
	k->after = after ? after->limit : MT_IDLE;
	if (!in_force)
		snprintf(k->why, sizeof(k->why),
			 "not in force: %s reads '%s', the file sets '%s'; the measurement would not test the change",
			 a->setting, now ? now : "?", a->value);
	else if (!a->pred_bps)
		snprintf(k->why, sizeof(k->why), "the file has no prediction to check (no RTT was measured)");
	else if (!after)
		snprintf(k->why, sizeof(k->why),
			 "no busy connection in the window: measure again while the transfer runs");
	else
		judge_measured(a, after, k);
}

static void put_check(struct strbuf *out, const char *text, const char *line)
{
	bool put = false;

	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");

		if (!put && p[0] != '#' && p[strspn(p, " \t")] != '\n') {
			sb_printf(out, "%s", line);
			put = true;
		}
		if (strncmp(p, "# Verified: ", 12))
			sb_printf(out, "%.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
}

static void check_line(struct strbuf *sb, enum mt_outcome o, const char *host, long long when)
{
	char date[32];

	mt_date(date, sizeof(date), when);
	sb_printf(sb, "# Verified: %s at %s on %s: ", mt_outcome_name(o), date, host);
}

void mt_check_words(struct strbuf *line, const struct mt_check *k, const struct mt_verdict *after)
{
	sb_printf(line, "%llu bit/s acked, %llu bytes in flight, the limit %s; %u%% of the prediction: %s.\n",
		  (unsigned long long)after->rate_bps, (unsigned long long)after->inflight, mt_limit_name(after->limit),
		  k->pct, k->why);
}

void mt_record_with(struct strbuf *out, const char *text, enum mt_outcome o, const char *host, long long when,
		    void (*fill)(struct strbuf *sb, const void *data), const void *data)
{
	struct strbuf line = { 0 };

	check_line(&line, o, host, when);
	fill(&line, data);
	if (line.oom)
		out->oom = true;
	else
		put_check(out, text, line.s);
	sb_free(&line);
}

struct tcp_check {
	const struct mt_check *k;
	const struct mt_verdict *after;
};

static void tcp_words(struct strbuf *sb, const void *data)
{
	const struct tcp_check *x = data;

	mt_check_words(sb, x->k, x->after);
}

void mt_record_check(struct strbuf *out, const char *text, const struct mt_check *k, const struct mt_verdict *after,
		     const char *host, long long when)
{
	struct tcp_check x = { k, after };

	mt_record_with(out, text, k->outcome, host, when, tcp_words, &x);
}
