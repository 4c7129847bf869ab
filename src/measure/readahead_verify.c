// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What measure readahead --verify judges by: the file --apply wrote read
 * back, and the verdict on the same rounds made again at the value in
 * force. Two tolerances, one a quantity:
 *
 * - the amplification within MR_TOLERANCE (20 %) of the model's
 *   prediction, re-made for the touches the round after made (k from the
 *   file; the same touches give the file's number): the model's own
 *   tolerance, the one measure readahead holds its candidate's round to;
 * - sequential throughput at least MT_TOLERANCE_PCT (75 %) of what the
 *   candidate's round read: a throughput measured again on a host that
 *   runs other work differs by run, as measure tcp's does, and the file
 *   records one run.
 *
 * Both: held. Short of that, moved when the change still pays for what it
 * was made for (a cap: random reads pull at least a fifth less than
 * before, sequential reads within their tolerance; a raise: sequential
 * reads a tenth faster than before), the thresholds measure readahead
 * suggested it by: the model missed, the change works. Anything else
 * failed, and the file's "To revert:" line is the way back. Pure: the
 * unit tests feed it recorded rounds.
 */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "measure/readahead_verify.h"

/* A number a file gives: finite and not negative, else 0. */
static double num(double x)
{
	return isfinite(x) && x > 0 ? x : 0;
}

static void parse_comment(const char *line, struct mr_applied *a)
{
	unsigned long long n;
	double x, y, z;
	unsigned u;
	char dev[32], date[32];
	enum mt_outcome o;
	const char *rest;

	if (sscanf(line, "# Before: read_ahead_kb = %u: amplification %lfx, sequential %lf MiB/s", &u, &x, &y) == 3)
		a->before_kb = u, a->before_amp = num(x), a->before_seq = num(y);
	else if (sscanf(line, "# Prediction: amplification %lfx at %*u KiB for %llu touches (bytes a touch = k x "
			"read-ahead x s, k = %lf), sequential %lf MiB/s", &x, &n, &y, &z) == 4)
		a->pred_amp = num(x), a->touches = n, a->k = num(y), a->pred_seq = num(z);
	else if (sscanf(line, "# Check it with the same measurement: earlytune measure readahead %31s --for %u "
			"--max-bytes %llu", dev, &u, &n) == 3)
		a->seconds = u, a->max_bytes = n;
	else if ((rest = mt_check_head(line, &o, date, sizeof(date))) &&
		 sscanf(rest, "amplification %lfx, sequential %lf MiB/s", &x, &y) == 2) {
		a->outcome = o, a->after_amp = num(x), a->after_seq = num(y);
		snprintf(a->checked, sizeof(a->checked), "%s", date);
	}
}

int mr_applied_parse(const char *text, struct mr_applied *a)
{
	bool have = false;

	memset(a, 0, sizeof(*a));
	a->outcome = MO_UNVERIFIED;
	for (const char *line = text; *line; line += strcspn(line, "\n") + (line[strcspn(line, "\n")] == '\n')) {
		char buf[512];
		unsigned u;

		snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(line, "\n"), line);
		if (buf[0] == '#')
			parse_comment(buf, a);
		else if (!*a->dev && sscanf(buf, " match.name = %31s", a->dev) == 1)
			continue;
		else if (!*a->serial && sscanf(buf, " match.serial = %127s", a->serial) == 1)
			continue;
		else if (!have && sscanf(buf, " read_ahead_kb = %u", &u) == 1)
			a->value_kb = u, have = true;
	}
	return have ? 0 : -EBADMSG;
}

bool mr_serial_matches(const struct mr_applied *a, const char *serial)
{
	return !*a->serial || (*serial && fnmatch(a->serial, serial, 0) == 0);
}

/* --apply wrote white space as '?' and escaped glob characters
 * (readahead_report.c's glob_literal): undone, the serial sysfs showed. */
void mr_serial_shown(const struct mr_applied *a, char *out, size_t size)
{
	size_t n = 0;

	for (const char *p = a->serial; *p && n + 1 < size; p++)
		if (*p == '\\' && p[1])
			out[n++] = *++p;
		else
			out[n++] = *p == '?' ? ' ' : *p;
	if (size)
		out[n] = '\0';
}

/* The numbers of a check, the same in every verdict. */
static int numbers(char *out, size_t size, const struct mr_applied *a, const struct mr_check *k)
{
	return snprintf(out, size, "amplification %.1fx at %u KiB, %+.1f%% from the predicted %.1fx (within %d%% holds); "
			"sequential %.1f MiB/s, %u%% of the %.1f its round read (at least %d%% holds); before %.1fx "
			"and %.1f MiB/s at %u KiB", k->amp, a->value_kb, k->err, k->pred_amp, MR_TOLERANCE, k->seq,
			k->seq_pct, a->pred_seq, MT_TOLERANCE_PCT, a->before_amp, a->before_seq, a->before_kb);
}

static void judge_measured(const struct mr_applied *a, bool amp_ok, bool seq_ok, struct mr_check *k)
{
	bool cap = a->value_kb < a->before_kb;
	bool paid = cap ? a->before_amp > 0 && k->amp <= a->before_amp * 0.8 && seq_ok
			: a->before_seq > 0 && k->seq >= a->before_seq * 1.1;
	int n = numbers(k->why, sizeof(k->why), a, k);
	char *w = k->why + (n > 0 && (size_t)n < sizeof(k->why) ? n : 0);
	size_t left = sizeof(k->why) - (size_t)(w - k->why);

	if (amp_ok && seq_ok)
		k->outcome = MO_HELD;
	else if (paid) {
		k->outcome = MO_MOVED;
		snprintf(w, left, "; the prediction missed, but the %s still pays: %s", cap ? "cap" : "raise",
			 cap ? "random reads pull at least a fifth less than before" : "sequential reads gain a tenth");
	} else {
		k->outcome = MO_FAILED;
		snprintf(w, left, "; %s", !amp_ok ? "the amplification is not the one predicted, and the change does not "
						    "pay for itself"
						  : "sequential reads lost more than the measurement said");
	}
}

void mr_judge(const struct mr_applied *a, const struct mr_round *rnd, const struct mr_round *seq, uint64_t region,
	      uint64_t page, bool in_force, unsigned now_kb, struct mr_check *k)
{
	double pct;

	memset(k, 0, sizeof(*k));
	k->outcome = MO_UNVERIFIED;
	if (!in_force) {
		snprintf(k->why, sizeof(k->why), "not in force: the read-ahead reads %u KiB, the file sets %u; the "
			 "measurement would not test the change", now_kb, a->value_kb);
		return;
	}
	if (!a->pred_amp || !a->k) {
		snprintf(k->why, sizeof(k->why), "the file has no prediction to check");
		return;
	}
	k->amp = rnd ? mr_amplification(rnd, page) : 0;
	if (!k->amp || !rnd->dev_bytes) {
		snprintf(k->why, sizeof(k->why), "%s served none of the touches (its stat did not move): no measurement "
			 "to go by", *a->dev ? a->dev : "the disk");
		return;
	}
	/* for the round after as it ran: its touches, and what the page cache
	 * kept of it (the memory's, not the read-ahead's) */
	k->pred_amp = mr_predict_k(a->k, a->value_kb, rnd->touches, region, page, mr_cache_cap(rnd, region, page));
	k->err = (k->amp - k->pred_amp) / k->pred_amp * 100.0;
	k->seq = seq ? mr_seq_mibps(seq) : 0;
	pct = a->pred_seq > 0 ? k->seq * 100.0 / a->pred_seq : 100.0;
	k->seq_pct = pct >= 1e6 ? 1000000 : (unsigned)pct; /* a file can predict 0.1 MiB/s */
	judge_measured(a, fabs(k->err) <= MR_TOLERANCE, a->pred_seq <= 0 || k->seq_pct >= MT_TOLERANCE_PCT, k);
}

static void words(struct strbuf *sb, const void *data)
{
	mr_check_words(sb, data);
}

void mr_check_words(struct strbuf *sb, const struct mr_check *k)
{
	sb_printf(sb, "amplification %.1fx, sequential %.1f MiB/s: %s.\n", k->amp, k->seq, k->why);
}

void mr_record_check(struct strbuf *out, const char *text, const struct mr_check *k, const char *host,
		     long long when)
{
	mt_record_with(out, text, k->outcome, host, when, words, k);
}
