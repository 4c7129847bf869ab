// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The settings a measurement changed, gathered from every row of
 * ctx.measured (commands.c's measured_sources) for status and the Prometheus export: each
 * one's value, the prediction, before, and its newest check. They live in
 * files of their own (sysctl.d survives a reboot), not in the run log.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "engine/runlog.h"

static char *dup_or_null(const char *s, int *err)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		*err = -ENOMEM;
	return d;
}

static void add(const struct measured *m, void *data)
{
	struct measured_set *set = data;
	struct measured *d;

	if (array_grow(&set->v, &set->cap, set->n, sizeof(*set->v), 4) < 0) {
		set->err = -ENOMEM;
		return;
	}
	d = &set->v[set->n++];
	*d = *m;
	d->kind = dup_or_null(m->kind, &set->err);
	d->setting = dup_or_null(m->setting, &set->err);
	d->value = dup_or_null(m->value, &set->err);
	d->file = dup_or_null(m->file, &set->err);
	d->verdict = dup_or_null(m->verdict, &set->err);
	d->checked = dup_or_null(m->checked, &set->err);
	d->quantity = dup_or_null(m->quantity, &set->err);
}

void measured_load(const struct ctx *c, struct measured_set *set)
{
	memset(set, 0, sizeof(*set));
	for (size_t i = 0; i < c->nmeasured; i++) {
		int e = c->measured[i].list(&c->root, add, set);

		if (e < 0 && !set->err)
			set->err = e;
	}
}

void measured_free(struct measured_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		struct measured *m = &set->v[i];

		free((char *)m->kind), free((char *)m->setting), free((char *)m->value), free((char *)m->file);
		free((char *)m->verdict), free((char *)m->checked), free((char *)m->quantity);
	}
	free(set->v);
	memset(set, 0, sizeof(*set));
}

bool measured_failed(const struct measured *m)
{
	return m->verdict && !strcmp(m->verdict, "failed");
}

static bool ends(const char *s, const char *end)
{
	size_t n = s ? strlen(s) : 0, e = strlen(end);

	return n >= e && !strcmp(s + n - e, end);
}

/* A rate in bit/s (a quantity named *_bps) as Mbit/s, one in MiB/s
 * (*_mibps) as such, an amplification as a factor, anything else as the
 * number. */
void measured_value(char *out, size_t size, const struct measured *m, double v)
{
	if (ends(m->quantity, "_bps"))
		snprintf(out, size, "%.1f Mbit/s", v / 1e6);
	else if (ends(m->quantity, "_mibps"))
		snprintf(out, size, "%.1f MiB/s", v);
	else if (ends(m->quantity, "amplification"))
		snprintf(out, size, "%.1fx", v);
	else
		snprintf(out, size, "%.6g", v);
}
