// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What measure tcp leaves for the rest of earlytune: a run in the run log
 * per measurement (each busy connection, its limit, the change and its
 * prediction; the one --apply made), and the settings it changed, read
 * back from their sysctl.d files with their newest check, for status and
 * the Prometheus export (a row of commands.c's measured_sources); and
 * those measure readahead --apply changed, from their earlytune.d files.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "engine/engine.h"
#include "measure/measure.h"
#include "measure/report.h"
#include "measure/readahead_verify.h"
#include "measure/verify.h"

#define DOMAIN "measure"

struct names {
	char (*v)[256];
	size_t n, cap;
	int err;
};

static void add_name(const char *rel, void *data)
{
	struct names *ns = data;

	if (array_grow(&ns->v, &ns->cap, ns->n, sizeof(*ns->v), 4) < 0) {
		ns->err = -ENOMEM;
		return;
	}
	snprintf(ns->v[ns->n++], sizeof(*ns->v), "%s", rel);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

int mt_conf_files(const struct root *r, const char *dir, const char *glob, char (**out)[256], size_t *n)
{
	struct names ns = { 0 };
	int e = root_match(r, dir, glob, add_name, &ns);

	e = e < 0 ? e : ns.err;
	if (e < 0) {
		free(ns.v);
		return e;
	}
	if (ns.n)
		qsort(ns.v, ns.n, sizeof(*ns.v), by_name);
	*out = ns.v;
	*n = ns.n;
	return 0;
}

/* A row's words, kept beside it. */
struct row_text {
	char target[2 * MT_ADDR_MAX + 8], current[32], desired[96], detail[400];
};

static void row_of(const struct mt_flow *f, const struct mt_verdict *v, struct measure_row *row, struct row_text *t)
{
	char pred[32];

	snprintf(t->target, sizeof(t->target), "%s -> %s", f->last.src, f->last.dst);
	mt_rate(t->current, sizeof(t->current), v->rate_bps);
	mt_rate(pred, sizeof(pred), v->change.pred_bps);
	snprintf(t->desired, sizeof(t->desired), "%s = %s", v->change.sysctl ? v->change.sysctl : "",
		 v->change.value);
	snprintf(t->detail, sizeof(t->detail), "%s%s%s%s", v->why, v->change.pred_bps ? "; prediction " : "",
		 v->change.pred_bps && v->change.pred_floor ? "at least " : "", v->change.pred_bps ? pred : "");
	*row = (struct measure_row){ "measured", DOMAIN, t->target, mt_limit_name(v->limit), t->current,
				     v->change.sysctl ? t->desired : NULL, t->detail };
}

void mt_log_report(const struct ctx *c, const struct mt_report *rep, const char *command, size_t applied,
		   bool failed)
{
	struct measure_row *rows = calloc(rep->nflows + 1, sizeof(*rows));
	struct row_text *text = calloc(rep->nflows + 1, sizeof(*text));
	size_t n = 0;

	for (size_t i = 0; rows && text && i < rep->nflows; i++) {
		struct mt_verdict v;

		mt_interpret(&rep->flows[i], &rep->host, &v);
		if (rep->flows[i].n < 2 || v.limit == MT_IDLE)
			continue;
		row_of(&rep->flows[i], &v, &rows[n], &text[n]);
		if (i == applied)
			rows[n].outcome = failed ? "failed" : "changed";
		n++;
	}
	if (rows && text)
		runlog_measurement(c, command, rows, n);
	free(rows);
	free(text);
}

/* ---- the settings changed, for status and the Prometheus export ---- */

struct sink {
	void (*emit)(const struct measured *m, void *data);
	void *data;
};

static void tcp_file(const char *rel, const char *text, const struct sink *s)
{
	struct mt_applied a;
	bool checked;

	if (mt_applied_parse(text, &a) < 0)
		return;
	checked = a.outcome != MO_UNVERIFIED;
	s->emit(&(struct measured){ .kind = "tcp", .setting = a.setting, .value = a.value, .file = rel,
				    .verdict = mt_outcome_name(a.outcome), .checked = checked ? a.checked : NULL,
				    .quantity = "throughput_bps", .before = (double)a.before_bps,
				    .predicted = (double)a.pred_bps, .after = checked ? (double)a.after_bps : -1 },
		s->data);
}

/* Two quantities a setting: the amplification predicted, and the
 * sequential throughput the candidate's round read. */
static void readahead_file(const char *rel, const char *text, const struct sink *s)
{
	struct mr_applied a;
	char setting[64], value[16];
	bool checked;
	struct measured m;

	if (mr_applied_parse(text, &a) < 0 || !*a.dev)
		return;
	checked = a.outcome != MO_UNVERIFIED;
	snprintf(setting, sizeof(setting), "block/%s/queue/read_ahead_kb", a.dev);
	snprintf(value, sizeof(value), "%u", a.value_kb);
	m = (struct measured){ .kind = "readahead", .setting = setting, .value = value, .file = rel,
			       .verdict = mt_outcome_name(a.outcome), .checked = checked ? a.checked : NULL,
			       .quantity = "amplification", .before = a.before_amp, .predicted = a.pred_amp,
			       .after = checked ? a.after_amp : -1 };
	s->emit(&m, s->data);
	m.quantity = "sequential_mibps", m.before = a.before_seq, m.predicted = a.pred_seq;
	m.after = checked ? a.after_seq : -1;
	s->emit(&m, s->data);
}

/* each(rel, text) for the files of dir matching glob, by name. A file
 * that cannot be read or has no setting is no measured setting: --verify
 * says why. */
static int each_file(const struct root *r, const char *dir, const char *glob,
		     void (*each)(const char *rel, const char *text, const struct sink *s), const struct sink *s)
{
	char (*names)[256] = NULL;
	size_t n = 0;
	int e = mt_conf_files(r, dir, glob, &names, &n);

	for (size_t i = 0; e >= 0 && i < n; i++) {
		_cleanup_(freep) char *text = NULL;

		if (root_read_file(r, names[i], &text, 64 * 1024) >= 0)
			each(names[i], text, s);
	}
	free(names);
	return e;
}

int mt_measured(const struct root *r, void (*emit)(const struct measured *m, void *data), void *data)
{
	return each_file(r, MT_CONF_DIR, MT_CONF_GLOB, tcp_file, &(struct sink){ emit, data });
}

int mr_measured(const struct root *r, void (*emit)(const struct measured *m, void *data), void *data)
{
	return each_file(r, MR_CONF_DIR, MR_CONF_GLOB, readahead_file, &(struct sink){ emit, data });
}
