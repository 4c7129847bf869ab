// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * measure tcp --verify: for each file --apply wrote
 * (etc/sysctl.d/60-earlytune-measure-*.conf), the same measurement again
 * (the file's --for, --peer and --port, or those given now), the busiest
 * connection it sees judged against the file's prediction (verify.c), the
 * verdict kept on the file's comment lines: sysctl.d survives a reboot,
 * and so does the before and after of the change beside it. A failed
 * prediction names the way back (the file's "Was:" line).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "engine/engine.h"
#include "measure/measure.h"
#include "measure/report.h"
#include "measure/verify.h"

/* One file's check: what verify prints and keeps. */
struct one {
	const char *rel;
	struct mt_applied a;
	char sel[128], now[128];
	bool in_force;
	const struct mt_flow *flow; /* the busiest connection measured, or NULL */
	struct mt_verdict after;
	struct mt_check k;
};

/* The busiest connection shown: the one the change was for, when the
 * selection is the one that measured it. */
static const struct mt_flow *busiest(const struct mt_report *rep, struct mt_verdict *out)
{
	const struct mt_flow *best = NULL;

	for (size_t i = 0; i < rep->nflows; i++) {
		struct mt_verdict v;

		mt_interpret(&rep->flows[i], &rep->host, &v);
		if (rep->flows[i].n < 2 || v.limit == MT_IDLE || v.limit == MT_UNKNOWN)
			continue;
		if (!best || v.rate_bps > out->rate_bps)
			best = &rep->flows[i], *out = v;
	}
	return best;
}

static void text_one(const struct one *x)
{
	char r[32], b[32];

	printf("measure tcp --verify: /%s\n", x->rel);
	printf("  setting:    %s = %s (%s)\n", x->a.setting, x->a.value, x->in_force ? "in force" : "not in force");
	mt_rate(r, sizeof(r), x->a.before_bps);
	mt_bytes(b, sizeof(b), x->a.before_inflight);
	printf("  before:     %s acked, %s in flight; limit %s\n", r, b, mt_limit_name(x->k.before));
	mt_rate(r, sizeof(r), x->a.pred_bps);
	mt_bytes(b, sizeof(b), x->a.pred_inflight);
	printf("  predicted:  %s%s, %s in flight\n", x->a.pred_floor ? "at least " : "", r, b);
	if (x->flow) {
		mt_rate(r, sizeof(r), x->after.rate_bps);
		mt_bytes(b, sizeof(b), x->after.inflight);
		printf("  after:      %s acked, %s in flight; limit %s (%s: %s -> %s)\n", r, b,
		       mt_limit_name(x->after.limit), x->sel, x->flow->last.src, x->flow->last.dst);
	} else {
		printf("  after:      %s (%s)\n", x->in_force ? "no busy connection" : "not measured", x->sel);
	}
	printf("  verdict:    %s: %s\n", mt_outcome_name(x->k.outcome), x->k.why);
	if (x->k.outcome == MO_FAILED)
		printf("  revert:     sysctl -w %s='%s' and remove /%s\n", x->a.setting, *x->a.was ? x->a.was : "?",
		       x->rel);
}

static void json_one(struct strbuf *sb, const struct one *x, size_t *shown)
{
	sb_printf(sb, "%s{\"file\":", (*shown)++ ? "," : "");
	sb_json_str(sb, x->rel);
	json_field(sb, "setting", x->a.setting);
	json_field(sb, "value", x->a.value);
	json_field(sb, "now", x->now);
	sb_printf(sb, ",\"in_force\":%s", x->in_force ? "true" : "false");
	json_field(sb, "selection", x->sel);
	sb_printf(sb, ",\"before\":{\"throughput_bps\":%llu,\"in_flight_bytes\":%llu,\"limit\":\"%s\"}",
		  (unsigned long long)x->a.before_bps, (unsigned long long)x->a.before_inflight,
		  mt_limit_name(x->k.before));
	sb_printf(sb, ",\"prediction\":{\"throughput_bps\":%llu,\"at_least\":%s,\"in_flight_bytes\":%llu}",
		  (unsigned long long)x->a.pred_bps, x->a.pred_floor ? "true" : "false",
		  (unsigned long long)x->a.pred_inflight);
	if (x->flow) {
		sb_printf(sb, ",\"after\":{\"src\":");
		sb_json_str(sb, x->flow->last.src);
		json_field(sb, "dst", x->flow->last.dst);
		sb_printf(sb, ",\"throughput_bps\":%llu,\"in_flight_bytes\":%llu,\"limit\":\"%s\"}",
			  (unsigned long long)x->after.rate_bps, (unsigned long long)x->after.inflight,
			  mt_limit_name(x->after.limit));
		sb_printf(sb, ",\"percent_of_prediction\":%u", x->k.pct);
	} else {
		sb_printf(sb, ",\"after\":null,\"percent_of_prediction\":null");
	}
	json_field(sb, "verdict", mt_outcome_name(x->k.outcome));
	json_field(sb, "why", x->k.why);
	json_field(sb, "revert", x->k.outcome == MO_FAILED && *x->a.was ? x->a.was : NULL);
	sb_printf(sb, "}");
}

void mt_keep_check(const struct root *r, const char *rel, const char *text, enum mt_outcome o,
		   void (*fill)(struct strbuf *sb, const void *data), const void *data, const char *command)
{
	struct strbuf sb = { 0 };
	char host[256];
	int e;

	if (root_read(r, "proc/sys/kernel/hostname", host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "?");
	mt_record_with(&sb, text, o, host, (long long)time(NULL), fill, data);
	e = sb.oom ? -ENOMEM : root_write_atomic(r, rel, sb.s, sb.len, 0644);
	if (e < 0)
		log_msg(LOG_WARN, "%s: cannot keep the verdict in /%s: %s", command, rel, strerror(-e));
	sb_free(&sb);
}

/* The words of tcp's check after "HOST: ". */
static void fill_tcp(struct strbuf *sb, const void *data)
{
	const struct one *x = data;

	mt_check_words(sb, &x->k, &x->after);
}

/* The measurement again, judged; 0, or -errno when it could not be made. */
static int check(struct ctx *c, const struct measure_opts *o, const char *text, struct one *x,
		 struct mt_report *rep)
{
	const char *peer = o->peer ? o->peer : *x->a.peer ? x->a.peer : NULL;
	unsigned port = o->port ? o->port : x->a.port;
	char proc[128];
	struct mt_filter f;
	int e;

	rep->seconds = o->seconds ? o->seconds : x->a.seconds ? x->a.seconds : 10;
	mt_selection(x->sel, sizeof(x->sel), rep->seconds, peer, port);
	mt_proc_path(proc, sizeof(proc), x->a.setting);
	x->in_force = root_read(&c->root, proc, x->now, sizeof(x->now)) >= 0 && mt_same_value(x->now, x->a.value);
	if (x->in_force) {
		if (mt_filter_init(&f, peer, port) < 0) {
			log_msg(LOG_ERR, "measure tcp --verify: --peer '%s' is not an IPv4 or IPv6 address", peer);
			return -EINVAL;
		}
		e = mt_measure(c, &f, rep);
		if (e < 0)
			return e;
		x->flow = busiest(rep, &x->after);
	}
	mt_judge(&x->a, x->flow ? &x->after : NULL, x->in_force, x->now, &x->k);
	if (x->k.outcome != MO_UNVERIFIED)
		mt_keep_check(&c->root, x->rel, text, x->k.outcome, fill_tcp, x, "measure tcp --verify");
	return 0;
}

/* A check as the run log keeps it. */
struct logged {
	struct measure_row row;
	char target[260], setting[64], current[32], desired[48], detail[400];
};

static void log_row(const struct one *x, int e, struct logged *l)
{
	snprintf(l->target, sizeof(l->target), "/%s", x->rel);
	snprintf(l->setting, sizeof(l->setting), "%s", x->a.setting);
	mt_rate(l->current, sizeof(l->current), x->after.rate_bps);
	mt_rate(l->desired, sizeof(l->desired), x->a.pred_bps);
	snprintf(l->detail, sizeof(l->detail), "%s", e < 0 ? strerror(-e) : x->k.why);
	l->row = (struct measure_row){ e < 0 ? "failed" : mt_outcome_name(x->k.outcome), "measure", l->target,
				       l->setting, x->flow ? l->current : NULL, x->a.pred_bps ? l->desired : NULL,
				       l->detail };
}

static int verify_file(struct ctx *c, const struct measure_opts *o, const char *rel, struct strbuf *js,
		       size_t *shown, struct logged *l)
{
	_cleanup_(freep) char *text = NULL;
	struct mt_report rep = { 0 };
	struct one x = { .rel = rel };
	int e = root_read_file(&c->root, rel, &text, 64 * 1024);

	if (e >= 0 && mt_applied_parse(text, &x.a) < 0)
		e = -EBADMSG;
	if (e < 0)
		log_msg(LOG_ERR, "measure tcp --verify: cannot read /%s: %s", rel,
			e == -EBADMSG ? "no setting line" : strerror(-e));
	else
		e = check(c, o, text, &x, &rep);
	if (e >= 0 && c->json)
		json_one(js, &x, shown);
	else if (e >= 0)
		text_one(&x);
	log_row(&x, e, l);
	free(rep.flows);
	return e < 0 ? e : (int)x.k.outcome;
}

/* Every file's check, one run in the run log; 0 when each held or moved. */
static int verify_all(struct ctx *c, const struct measure_opts *o, char (*names)[256], size_t n, struct strbuf *js)
{
	struct logged *l = calloc(n + 1, sizeof(*l));
	struct measure_row *rows = calloc(n + 1, sizeof(*rows));
	size_t shown = 0;
	int rc = 0;

	for (size_t i = 0; l && rows && i < n; i++) {
		int e = verify_file(c, o, names[i], js, &shown, &l[i]);

		rc |= e != MO_HELD && e != MO_MOVED;
		rows[i] = l[i].row;
	}
	if (l && rows)
		runlog_measurement(c, "measure tcp --verify", rows, n);
	else
		rc = -ENOMEM;
	free(rows);
	free(l);
	return rc;
}

int cmd_measure_tcp_verify(struct ctx *c, const struct measure_opts *o)
{
	char (*names)[256] = NULL;
	struct strbuf js = { 0 };
	struct mt_filter f;
	size_t n = 0;
	int e, rc;

	if (mt_filter_init(&f, o->peer, 0) < 0) {
		log_msg(LOG_ERR, "--peer: '%s' is not an IPv4 or IPv6 address", o->peer);
		return 2;
	}
	e = mt_conf_files(&c->root, MT_CONF_DIR, MT_CONF_GLOB, &names, &n);
	if (e < 0)
		log_msg(LOG_ERR, "measure tcp --verify: cannot list /%s: %s", MT_CONF_DIR, strerror(-e));
	else if (!n)
		log_msg(LOG_ERR, "measure tcp --verify: nothing to verify: no /%s/%s (measure tcp --apply writes one)",
			MT_CONF_DIR, MT_CONF_GLOB);
	json_head(&js, c, "measure tcp verify");
	sb_printf(&js, ",\"tolerance_percent\":%d,\"rise_percent\":%d,\"checks\":[", MT_TOLERANCE_PCT, MT_RISE_PCT);
	rc = e < 0 || !n || verify_all(c, o, names, n, &js) != 0;
	sb_printf(&js, "]}\n");
	if (c->json && e >= 0)
		json_emit(&js);
	sb_free(&js);
	free(names);
	return rc;
}
