// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * measure readahead DEV --verify: the file --apply wrote for DEV read back,
 * the same rounds again (the file's --for and --max-bytes, as many
 * touches) at the read-ahead in force, a random one and a sequential one,
 * judged against the file's prediction (readahead_verify.c), the verdict
 * kept on the file's comment lines as measure tcp keeps its own
 * (mt_keep_check), one run in the run log. The read-ahead is restored
 * after the rounds as for the measurement (readahead.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "engine/engine.h"
#include "measure/measure.h"
#include "measure/readahead_verify.h"

/* One check: what --verify prints and keeps. */
struct ra_one {
	char rel[160], sel[96];
	struct mr_applied a;
	struct mr_target t;
	bool in_force, measured;
	struct mr_rounds m;
	struct mr_check k;
};

/* The kernel keeps the read-ahead in whole pages. */
static bool in_force(const struct mr_applied *a, unsigned now, uint64_t page)
{
	unsigned step = page >= 1024 ? (unsigned)(page / 1024) : 1;

	return now == a->value_kb || now == a->value_kb / step * step;
}

static void revert_words(char *out, size_t size, const struct ra_one *x)
{
	snprintf(out, size, "remove /%s and write %u to /sys/block/%s/queue/read_ahead_kb", x->rel, x->a.before_kb,
		 x->t.dev);
}

static void text_one(const struct ra_one *x)
{
	char buf[384];

	printf("measure readahead --verify: /%s\n", x->rel);
	printf("  setting:    %s read_ahead_kb = %u (%s; it reads %u KiB)\n", x->t.dev, x->a.value_kb,
	       x->in_force ? "in force" : "not in force", x->t.ra_kb);
	printf("  before:     %u KiB: amplification %.1fx, sequential %.1f MiB/s\n", x->a.before_kb, x->a.before_amp,
	       x->a.before_seq);
	printf("  predicted:  amplification %.1fx for %llu touches (k = %.4f), sequential %.1f MiB/s\n", x->a.pred_amp,
	       (unsigned long long)x->a.touches, x->a.k, x->a.pred_seq);
	if (x->measured)
		printf("  after:      amplification %.1fx for %llu touches (%.1fx predicted for them), sequential %.1f "
		       "MiB/s; on %s (%s)\n", x->k.amp, (unsigned long long)x->m.rnd[0].touches, x->k.pred_amp, x->k.seq,
		       mr_where(&x->t, buf, sizeof(buf)), x->sel);
	else
		printf("  after:      not measured (%s)\n", x->sel);
	printf("  verdict:    %s: %s\n", mt_outcome_name(x->k.outcome), x->k.why);
	revert_words(buf, sizeof(buf), x);
	if (x->k.outcome == MO_FAILED)
		printf("  revert:     %s\n", buf);
}

static void json_one(const struct ctx *c, const struct ra_one *x)
{
	struct strbuf sb = { 0 };
	char buf[384];

	json_head(&sb, c, "measure readahead verify");
	json_field(&sb, "device", x->t.dev);
	json_field(&sb, "file", x->rel);
	sb_printf(&sb, ",\"value_kb\":%u,\"now_kb\":%u,\"in_force\":%s", x->a.value_kb, x->t.ra_kb,
		  x->in_force ? "true" : "false");
	json_field(&sb, "selection", x->sel);
	sb_printf(&sb, ",\"tolerance_percent\":%d,\"sequential_percent\":%d", MR_TOLERANCE, MT_TOLERANCE_PCT);
	sb_printf(&sb, ",\"before\":{\"read_ahead_kb\":%u,\"amplification\":%.3f,\"mib_per_second\":%.3f}",
		  x->a.before_kb, x->a.before_amp, x->a.before_seq);
	sb_printf(&sb, ",\"prediction\":{\"amplification\":%.3f,\"touches\":%llu,\"k\":%.4f,\"mib_per_second\":%.3f}",
		  x->a.pred_amp, (unsigned long long)x->a.touches, x->a.k, x->a.pred_seq);
	if (x->measured)
		sb_printf(&sb, ",\"after\":{\"touches\":%llu,\"amplification\":%.3f,\"predicted_amplification\":%.3f,"
			  "\"error_percent\":%.2f,\"mib_per_second\":%.3f,\"percent_of_sequential\":%u}",
			  (unsigned long long)x->m.rnd[0].touches, x->k.amp, x->k.pred_amp, x->k.err, x->k.seq,
			  x->k.seq_pct);
	else
		sb_printf(&sb, ",\"after\":null");
	json_field(&sb, "verdict", mt_outcome_name(x->k.outcome));
	json_field(&sb, "why", x->k.why);
	revert_words(buf, sizeof(buf), x);
	json_field(&sb, "revert", x->k.outcome == MO_FAILED ? buf : NULL);
	sb_printf(&sb, "}\n");
	json_emit(&sb);
}

static void log_one(const struct ctx *c, const struct ra_one *x, int e)
{
	char current[32], desired[32], detail[480];
	struct measure_row row = { e < 0 ? "failed" : mt_outcome_name(x->k.outcome), "measure", x->t.dev,
				   "queue/read_ahead_kb", x->measured ? current : NULL,
				   x->k.pred_amp > 0 ? desired : NULL, detail };

	snprintf(current, sizeof(current), "%.1fx", x->k.amp);
	snprintf(desired, sizeof(desired), "%.1fx", x->k.pred_amp);
	snprintf(detail, sizeof(detail), "%s", e < 0 && !*x->k.why ? strerror(-e) : x->k.why);
	runlog_measurement(c, "measure readahead --verify", &row, 1);
}

static void words(struct strbuf *sb, const void *data)
{
	mr_check_words(sb, data);
}

/* The rounds at the value in force, judged and kept; 0 or -errno. */
static int check(struct ctx *c, const char *text, struct ra_one *x)
{
	int e = 0;

	x->in_force = in_force(&x->a, x->t.ra_kb, x->t.page);
	if (x->in_force && x->a.pred_amp > 0) {
		x->t.cand_kb = x->t.ra_kb, x->t.one = true, x->t.touches = x->a.touches;
		e = mr_run(c, &x->t, &x->m);
		if (e < 0)
			return e;
		x->measured = true;
	}
	mr_judge(&x->a, x->measured ? &x->m.rnd[0] : NULL, x->measured ? &x->m.seq[0] : NULL, x->t.region, x->t.page,
		 x->in_force, x->t.ra_kb, &x->k);
	if (x->k.outcome != MO_UNVERIFIED)
		mt_keep_check(&c->root, x->rel, text, x->k.outcome, words, &x->k, "measure readahead --verify");
	return 0;
}

/* The disk of sys/block whose serial the file's section matches. */
struct seek {
	const struct root *r;
	const struct mr_applied *a;
	char dev[32];
};

static void seek_one(const char *rel, void *data)
{
	struct seek *s = data;
	const char *name = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
	char serial[64];

	mr_serial(s->r, name, serial, sizeof(serial));
	if (!*s->dev && *serial && mr_serial_matches(s->a, serial))
		snprintf(s->dev, sizeof(s->dev), "%s", name);
}

/* A kernel name another disk took (at a boot, a hot-plug): measured now,
 * it would judge one disk's prediction on another, whose section the
 * serial keeps off it anyway. Refused, both disks named; -ESTALE. */
static int other_disk(struct ctx *c, struct ra_one *x)
{
	struct seek s = { &c->root, &x->a, "" };
	char was[128], now[80], where[64];

	mr_serial_shown(&x->a, was, sizeof(was));
	if (*x->t.serial)
		snprintf(now, sizeof(now), "serial '%s'", x->t.serial);
	else
		snprintf(now, sizeof(now), "no serial");
	root_match(&c->root, "sys/block", "*", seek_one, &s);
	if (*s.dev)
		snprintf(where, sizeof(where), "the disk measured is %s now", s.dev);
	else
		snprintf(where, sizeof(where), "no disk here has its serial");
	snprintf(x->k.why, sizeof(x->k.why), "/%s was measured on the disk with serial '%s', and %s is another disk "
		 "now (%s); %s: nothing measured, and the file's section tunes no disk here (remove it, or measure "
		 "again)", x->rel, was, x->t.dev, now, where);
	log_msg(LOG_ERR, "measure readahead --verify: %s", x->k.why);
	return -ESTALE;
}

/* The file and the disk; 0, -EINVAL (a name that is no disk), -errno (said). */
static int load(struct ctx *c, const struct measure_opts *o, char **text, struct ra_one *x)
{
	struct measure_opts mo = *o;
	int e = mr_disk_name(o->dev) < 0 ? -EINVAL : mr_conf_path(x->rel, sizeof(x->rel), o->dev);

	if (e < 0)
		return -EINVAL;
	e = root_read_file(&c->root, x->rel, text, 64 * 1024);
	if (e == -ENOENT)
		log_msg(LOG_ERR, "measure readahead --verify: nothing to verify: no /%s (measure readahead %s --apply "
			"writes one)", x->rel, o->dev);
	else if (e >= 0 && (e = mr_applied_parse(*text, &x->a)) < 0)
		log_msg(LOG_ERR, "measure readahead --verify: cannot read /%s: no read_ahead_kb line", x->rel);
	else if (e < 0)
		log_msg(LOG_ERR, "measure readahead --verify: cannot read /%s: %s", x->rel, strerror(-e));
	if (e < 0)
		return e == -EINVAL ? -EIO : e;
	mo.seconds = o->seconds ? o->seconds : x->a.seconds;
	mo.max_bytes = o->max_bytes ? o->max_bytes : x->a.max_bytes;
	e = mr_target_disk(c, &mo, &x->t);
	snprintf(x->sel, sizeof(x->sel), "--for %u --max-bytes %llu", x->t.seconds,
		 (unsigned long long)x->t.max_bytes);
	return e == 0 && !mr_serial_matches(&x->a, x->t.serial) ? other_disk(c, x) : e;
}

int cmd_measure_readahead_verify(struct ctx *c, const struct measure_opts *o)
{
	_cleanup_(freep) char *text = NULL;
	struct ra_one *x = calloc(1, sizeof(*x));
	int e = x ? load(c, o, &text, x) : -ENOMEM;

	if (e == -EINVAL) {
		free(x);
		return 2;
	}
	if (e >= 0)
		e = check(c, text, x);
	if (e >= 0 && c->json)
		json_one(c, x);
	else if (e >= 0)
		text_one(x);
	if (x && *x->t.dev)
		log_one(c, x, e);
	e = e < 0 ? e : x->k.outcome == MO_HELD || x->k.outcome == MO_MOVED ? 0 : -ECANCELED;
	free(x);
	return e == -ECANCELED ? 1 : mr_exit(e);
}
