// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What measure tcp leaves for the rest of earlytune: a run in the run log
 * per measurement (each busy connection, its limit, the change and its
 * prediction; the one --apply made), and the settings it changed, read
 * back from their sysctl.d files with their newest check, for status and
 * the Prometheus export (a row of commands.c's measured_sources).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "engine/engine.h"
#include "measure/measure.h"
#include "measure/report.h"
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

int mt_conf_files(const struct root *r, char (**out)[256], size_t *n)
{
	struct names ns = { 0 };
	int e = root_match(r, MT_CONF_DIR, MT_CONF_GLOB, add_name, &ns);

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

static void emit_file(const char *rel, const struct mt_applied *a,
		      void (*emit)(const struct measured *m, void *data), void *data)
{
	bool checked = a->outcome != MO_UNVERIFIED;
	struct measured m = {
		.setting = a->setting, .value = a->value, .file = rel, .verdict = mt_outcome_name(a->outcome),
		.checked = checked ? a->checked : NULL, .quantity = "throughput_bps", .before = (double)a->before_bps,
		.predicted = (double)a->pred_bps, .after = checked ? (double)a->after_bps : -1,
	};

	emit(&m, data);
}

int mt_measured(const struct root *r, void (*emit)(const struct measured *m, void *data), void *data)
{
	char (*names)[256] = NULL;
	size_t n = 0;
	int e = mt_conf_files(r, &names, &n);

	for (size_t i = 0; e >= 0 && i < n; i++) {
		_cleanup_(freep) char *text = NULL;
		struct mt_applied a;

		/* A file that cannot be read or has no setting is no measured
		 * setting: --verify says why. */
		if (root_read_file(r, names[i], &text, 64 * 1024) >= 0 && mt_applied_parse(text, &a) >= 0)
			emit_file(names[i], &a, emit, data);
	}
	free(names);
	return e;
}
