// SPDX-License-Identifier: LGPL-2.1-or-later
/* The plan, from the table of domains: what `plan` shows and `verify` checks. */
#include <string.h>

#include "base/log.h"
#include "writers/writers.h"
#include "engine/runlog.h"

/* Every selected domain in the table's order, while none fails. */
/* applying: a domain that only reports has nothing to plan. */
int build_plan(struct ctx *c, struct plan *p, bool applying)
{
	int r = 0;

	for (size_t i = 0; i < ndomains && r >= 0; i++)
		if ((c->only & domains[i].bit) && !(applying && domains[i].report_only))
			r = domains[i].plan(c, p);
	return r;
}

int cmd_plan(struct ctx *c)
{
	struct plan p = { 0 };
	int r, unread;

	c->read_only = true;
	r = build_plan(c, &p, false);

	if (r < 0)
		log_msg(LOG_ERR, "cannot list devices: %s", strerror(-r));
	unread = writers_annotate(c, &p);
	report(c, &p, "plan", false);
	r = r < 0 || unread ? 1 : exit_code(&p);
	plan_free(&p);
	return r;
}

/* "; likely X:N (TOOL) sets VALUE": the writer verify blames for a drift. */
static const char *culprit(const struct item *it, char *buf, size_t size)
{
	const struct writer *x = writers_culprit(it);

	if (!x)
		return "";
	snprintf(buf, size, "; likely culprit: %s:%d %s (%s%s)", x->file, x->line, x->what, x->tool,
		 x->wins ? ", runs after earlytune" : "");
	return buf;
}

static void log_drift(const struct item *it, enum verdict v)
{
	char cb[PATH_MAX + 512];
	const char *who = culprit(it, cb, sizeof(cb));

	if (it->error)
		log_msg(LOG_ERR, "drift: %s %s %s: %s", it->domain, it->target, it->setting, it->error);
	else if (v == V_UNKNOWN)
		log_msg(LOG_WARN, "unknown: %s %s %s: %s [%s]", it->domain, it->target, it->setting,
			dash(it->reason), dash(it->source));
	else if (v == V_UNMET)
		log_msg(LOG_WARN, "unmet: %s %s %s: not possible here: %s [%s]", it->domain, it->target,
			it->setting, dash(it->reason), dash(it->source));
	else if (it->foreign && streq_ptr(it->current, it->desired))
		log_msg(LOG_WARN, "drift: %s %s %s is '%s' now, but will not stay: %s%s", it->domain, it->target,
			it->setting, dash(it->current), dash(it->reason), who);
	else if (it->foreign)
		log_msg(LOG_WARN, "drift: %s %s %s is '%s', want '%s': %s%s", it->domain, it->target,
			it->setting, dash(it->current), dash(it->desired), dash(it->reason), who);
	else
		log_msg(LOG_WARN, "drift: %s %s %s is '%s', want '%s' [%s]%s", it->domain, it->target,
			it->setting, dash(it->current), dash(it->desired), dash(it->source), who);
}

/* Exit 1 unless every item the configuration asks for is in force: changed
 * by someone (drifted), impossible on this kernel (unmet) and not shown by
 * the tree (unknown: in force or not cannot be told) all count; what does
 * not apply here (a partition, a bio-based queue, another network
 * namespace) does not. */
int cmd_verify(struct ctx *c)
{
	struct plan p = { 0 };
	unsigned n[V_COUNT] = { 0 };
	int r = build_plan(c, &p, false), m, unread;

	if (r < 0)
		log_msg(LOG_ERR, "verify: cannot list devices: %s", strerror(-r));
	unread = writers_annotate(c, &p);
	for (size_t i = 0; i < p.n; i++) {
		enum verdict v = item_verdict(&p.v[i]);

		n[v]++;
		if (!c->json && v != V_HOLDS && v != V_NA)
			log_drift(&p.v[i], v);
	}
	if (c->json)
		print_json(c, &p, "verify", true);
	else if (!c->boot && n[V_UNKNOWN])
		printf("verify: %u hold, %u drifted, %u unmet, %u not applicable, %u unknown\n", n[V_HOLDS],
		       n[V_DRIFTED], n[V_UNMET], n[V_NA], n[V_UNKNOWN]);
	else if (!c->boot)
		printf("verify: %u hold, %u drifted, %u unmet, %u not applicable\n", n[V_HOLDS], n[V_DRIFTED],
		       n[V_UNMET], n[V_NA]);
	m = c->prometheus ? metrics_write(c, &p) : 0;
	plan_free(&p);
	if (m < 0)
		return 2; /* the export is what the timer is for: its failure is not drift */
	return r < 0 || unread || n[V_DRIFTED] || n[V_UNMET] || n[V_UNKNOWN] ? 1 : 0;
}
