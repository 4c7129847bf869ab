// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * measure readahead's output, text and JSON: each round, the model, the
 * prediction against what the candidate's round measured, the cost, and
 * the one change or why none; --apply's configuration file, whose comment
 * lines are the measurement.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "engine/engine.h"
#include "measure/readahead.h"
#include "measure/readahead_verify.h"
#include "measure/report.h"

const char *mr_where(const struct mr_target *t, char *buf, size_t size)
{
	if (*t->mount)
		snprintf(buf, size, "a scratch file of %llu MiB on /%s (%s)", (unsigned long long)(t->region >> 20),
			 strcmp(t->mount, ".") ? t->mount : "", t->fs_dev);
	else
		snprintf(buf, size, "/dev/%s read-only, its first %llu MiB", t->dev, (unsigned long long)(t->region >> 20));
	return buf;
}

static double secs(const struct mr_round *r)
{
	return (double)r->ns / 1e9;
}

static void text_rounds(const struct mr_target *t, const struct mr_rounds *m, const struct mr_verdict *v)
{
	printf("random 4 KiB touches through mmap, the region's pages dropped before each round:\n");
	for (int i = 0; i < 2; i++) {
		const struct mr_round *r = &m->rnd[i];

		printf("  at %u KiB: %llu touches in %.2f s (%.1f a second), %.1f KiB read a touch: amplification "
		       "%.1fx; %llu pages stayed cached, %.1f MiB cached after\n", r->ra_kb,
		       (unsigned long long)r->touches, secs(r), v->touch_rate[i],
		       r->touches ? (double)r->dev_bytes / 1024.0 / (double)r->touches : 0.0, v->amp[i],
		       (unsigned long long)r->resident, (double)(r->cached * t->page) / 1048576.0);
	}
	printf("sequential read, 64 KiB a read:\n");
	for (int i = 0; i < 2; i++) {
		const struct mr_round *r = &m->seq[i];

		printf("  at %u KiB: %.1f MiB in %.2f s: %.1f MiB/s; %llu requests of %.0f KiB on average\n", r->ra_kb,
		       (double)r->bytes / 1048576.0, secs(r), v->seq_mibps[i], (unsigned long long)r->dev_reqs,
		       v->seq_req_kib[i]);
	}
}

/* Which round left nothing to predict from or to compare with, and why. */
static void no_prediction(const struct mr_target *t, const struct mr_rounds *m, const struct mr_verdict *v)
{
	int i = v->pred_amp > 0 ? 1 : 0;
	const struct mr_round *r = &m->rnd[i];

	printf("prediction: none (the round at %u KiB: %s)\n", i ? t->cand_kb : t->ra_kb,
	       !r->done ? "not run" : !r->touches ? "no touch" : "the device served none of its touches");
}

static void text_report(const struct mr_target *t, const struct mr_rounds *m, const struct mr_verdict *v)
{
	char buf[384];

	printf("measure readahead %s: %u s, at most %llu MiB read; the touches on %s\n", t->dev, t->seconds,
	       (unsigned long long)(t->max_bytes >> 20), mr_where(t, buf, sizeof(buf)));
	printf("read-ahead: %u KiB now (restored); candidate %u KiB, from %s\n", t->ra_kb, t->cand_kb, t->cand_from);
	text_rounds(t, m, v);
	printf("model:      bytes a touch = k x read-ahead x s; k = %.2f (the share of the window read, measured at "
	       "%u KiB), s = %.2f and %.2f (the share of a window the round had not read yet", v->k, t->ra_kb,
	       v->share[0], v->share[1]);
	if (v->cache_cap < 1.0)
		printf("; pages evicted within the round: the page cache kept %.1f%% of the region", v->cache_cap * 100.0);
	printf(")\n");
	if (v->pred_amp > 0 && v->amp[1] > 0)
		printf("prediction: amplification %.1fx at %u KiB; measured %.1fx (%+.1f%%: %s %d%%)\n", v->pred_amp,
		       t->cand_kb, v->amp[1], v->pred_err, v->held ? "held, within" : "NOT held, beyond", MR_TOLERANCE);
	else
		no_prediction(t, m, v);
	printf("cost:       sequential throughput %.1f -> %.1f MiB/s at %u KiB: %.1f%% %s; requests of %.0f -> %.0f KiB\n",
	       v->seq_mibps[0], v->seq_mibps[1], t->cand_kb, v->cost >= 0 ? v->cost : -v->cost,
	       v->cost >= 0 ? "lost" : "gained", v->seq_req_kib[0], v->seq_req_kib[1]);
	if (v->suggest)
		printf("change:     read_ahead_kb = %u for %s: %s\n", t->cand_kb, t->dev, v->why);
	else
		printf("change:     none: %s\n", v->why);
}

static void json_round(struct strbuf *sb, const char *kind, const struct mr_round *r, double amp, double rate)
{
	sb_printf(sb, "{\"kind\":\"%s\",\"read_ahead_kb\":%u,\"touches\":%llu,\"bytes\":%llu,\"device_bytes\":%llu,"
		  "\"device_requests\":%llu,\"resident_pages\":%llu,\"seconds\":%.3f,", kind, r->ra_kb,
		  (unsigned long long)r->touches, (unsigned long long)r->bytes, (unsigned long long)r->dev_bytes,
		  (unsigned long long)r->dev_reqs, (unsigned long long)r->resident, secs(r));
	if (!strcmp(kind, "random"))
		sb_printf(sb, "\"amplification\":%.3f,\"touches_per_second\":%.3f,\"cached_pages\":%llu}", amp,
			  rate, (unsigned long long)r->cached);
	else
		sb_printf(sb, "\"mib_per_second\":%.3f}", rate);
}

static void json_report(const struct ctx *c, const struct mr_target *t, const struct mr_rounds *m,
			const struct mr_verdict *v)
{
	struct strbuf sb = { 0 };

	json_head(&sb, c, "measure readahead");
	json_field(&sb, "device", t->dev);
	sb_printf(&sb, ",\"seconds\":%u,\"max_bytes\":%llu,\"page_bytes\":%llu,\"target\":{\"kind\":\"%s\"", t->seconds,
		  (unsigned long long)t->max_bytes, (unsigned long long)t->page, *t->mount ? "scratch file" : "device");
	json_field(&sb, "mount", *t->mount ? t->mount : NULL);
	sb_printf(&sb, ",\"region_bytes\":%llu},\"read_ahead_kb\":%u,\"candidate_kb\":%u",
		  (unsigned long long)t->region, t->ra_kb, t->cand_kb);
	json_field(&sb, "candidate_from", t->cand_from);
	sb_printf(&sb, ",\"rounds\":[");
	for (int i = 0; i < 4; i++) {
		sb_printf(&sb, i ? "," : "");
		if (i < 2)
			json_round(&sb, "random", &m->rnd[i], v->amp[i], v->touch_rate[i]);
		else
			json_round(&sb, "sequential", &m->seq[i - 2], 0, v->seq_mibps[i - 2]);
	}
	sb_printf(&sb, "],\"model\":{\"k\":%.4f,\"shares\":[%.4f,%.4f],\"cache_share\":%.4f},\"prediction\":{"
		  "\"amplification\":%.3f,\"error_percent\":%.2f,\"tolerance_percent\":%d,\"held\":%s},\"cost\":{"
		  "\"sequential_percent\":%.2f},\"change\":", v->k, v->share[0], v->share[1], v->cache_cap, v->pred_amp,
		  v->pred_err, MR_TOLERANCE, v->held ? "true" : "false", v->cost);
	sb_printf(&sb, v->suggest ? "{\"read_ahead_kb\":%u}" : "null", t->cand_kb);
	json_field(&sb, "why", v->why);
	sb_printf(&sb, "}\n");
	json_emit(&sb);
}

void mr_report(const struct ctx *c, const struct mr_target *t, const struct mr_rounds *m,
	       const struct mr_verdict *v)
{
	if (c->json)
		json_report(c, t, m, v);
	else
		text_report(t, m, v);
}

int mr_conf_path(char *out, size_t size, const char *dev)
{
	return pathf(out, size, "etc/earlytune.d/60-earlytune-measure-readahead-%s.conf", dev);
}

/* s as a match value of one word that matches s alone: white space (which
 * separates a value's patterns) any one character, glob characters
 * escaped. */
static void glob_literal(struct strbuf *sb, const char *s)
{
	for (; *s; s++)
		if (*s == ' ' || *s == '\t')
			sb_put(sb, "?", 1);
		else if (strchr("*?[]\\", *s))
			sb_printf(sb, "\\%c", *s);
		else
			sb_put(sb, s, 1);
}

/* The comment lines --verify reads back (readahead_verify.c) carry the
 * numbers whole: before, the prediction with k and the touches it was
 * made for, and the bounds of the same measurement. */
void mr_conf_file(struct strbuf *sb, const struct mr_target *t, const struct mr_verdict *v, const char *host,
		  long long when)
{
	char date[32], buf[384];

	mt_date(date, sizeof(date), when);
	sb_printf(sb, "# Written by earlytune measure readahead --apply on %s at %s.\n", host, date);
	sb_printf(sb, "# Measured: random 4 KiB touches through mmap of %s: amplification %.1fx at %u KiB, %.1fx at "
		  "%u KiB; sequential %.1f and %.1f MiB/s.\n", mr_where(t, buf, sizeof(buf)), v->amp[0], t->ra_kb,
		  v->amp[1], t->cand_kb, v->seq_mibps[0], v->seq_mibps[1]);
	sb_printf(sb, "# Before: read_ahead_kb = %u: amplification %.1fx, sequential %.1f MiB/s.\n", t->ra_kb, v->amp[0],
		  v->seq_mibps[0]);
	sb_printf(sb, "# Prediction: amplification %.1fx at %u KiB for %llu touches (bytes a touch = k x read-ahead x s, "
		  "k = %.4f), sequential %.1f MiB/s (its round); the round at %u KiB measured %.1fx (%+.1f%%).\n",
		  v->pred_amp, t->cand_kb, (unsigned long long)v->touches, v->k, v->seq_mibps[1], t->cand_kb, v->amp[1],
		  v->pred_err);
	sb_printf(sb, "# Cost: sequential throughput %.1f -> %.1f MiB/s (%.1f%% %s).\n", v->seq_mibps[0], v->seq_mibps[1],
		  v->cost >= 0 ? v->cost : -v->cost, v->cost >= 0 ? "lost" : "gained");
	sb_printf(sb, "# Why: %s.\n", v->why);
	sb_printf(sb, "# To revert: remove this file and write %u to /sys/block/%s/queue/read_ahead_kb.\n", t->ra_kb,
		  t->dev);
	sb_printf(sb, "# Check it with the same measurement: earlytune measure readahead %s --for %u --max-bytes %llu "
		  "--verify\n", t->dev, t->seconds, (unsigned long long)t->max_bytes);
	sb_printf(sb, "[block \"measure-%s\"]\nmatch.name = %s\n", t->dev, t->dev);
	/* A kernel name (sdb, nvme1n1) may be another disk's at the next
	 * boot: the serial keeps the section to the disk measured. */
	if (*t->serial) {
		sb_printf(sb, "match.serial = ");
		glob_literal(sb, t->serial);
		sb_printf(sb, "\n");
	}
	sb_printf(sb, "read_ahead_kb = %u\n", t->cand_kb);
}

/* The candidate set first, then its file (m_keep_change). */
static int write_change(const struct root *r, const struct mr_target *t, const struct strbuf *sb)
{
	char path[128], ra[128], v[16], was[16], what[64];
	int e = mr_conf_path(path, sizeof(path), t->dev);

	if (!e)
		e = pathf(ra, sizeof(ra), "sys/block/%s/queue/read_ahead_kb", t->dev);
	if (e < 0) {
		log_msg(LOG_ERR, "measure readahead --apply: %s: %s", t->dev, strerror(-e));
		return e;
	}
	snprintf(v, sizeof(v), "%u", t->cand_kb);
	snprintf(was, sizeof(was), "%u", t->ra_kb);
	snprintf(what, sizeof(what), "%s read_ahead_kb", t->dev);
	return m_keep_change(r, "measure readahead --apply", what, ra, v, was, MR_CONF_DIR, path, sb);
}

int mr_apply(const struct ctx *c, const struct mr_target *t, const struct mr_verdict *v)
{
	struct strbuf sb = { 0 };
	char host[256];
	int e;

	if (!v->suggest) {
		log_msg(LOG_NOTICE, "measure readahead --apply: nothing to apply: %s", v->why);
		return 0;
	}
	if (root_read(&c->root, "proc/sys/kernel/hostname", host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "?");
	mr_conf_file(&sb, t, v, host, (long long)time(NULL));
	e = sb.oom ? -ENOMEM : write_change(&c->root, t, &sb);
	sb_free(&sb);
	return e;
}

void mr_log_report(const struct ctx *c, const struct mr_target *t, const struct mr_verdict *v, const char *command,
		   const char *outcome)
{
	char current[48], desired[16], detail[480];
	struct measure_row row = { outcome, "measure", t->dev, "queue/read_ahead_kb", current,
				   v->suggest ? desired : NULL, detail };

	snprintf(current, sizeof(current), "%u KiB: %.1fx", t->ra_kb, v->amp[0]);
	snprintf(desired, sizeof(desired), "%u", t->cand_kb);
	snprintf(detail, sizeof(detail), "%s; prediction %.1fx at %u KiB, its round %.1fx", v->why, v->pred_amp,
		 t->cand_kb, v->amp[1]);
	runlog_measurement(c, command, &row, 1);
}
