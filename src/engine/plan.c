// SPDX-License-Identifier: LGPL-2.1-or-later
/* The plan, from the table of domains: what `plan` shows and `verify` checks. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "writers/writers.h"
#include "engine/runlog.h"

/* Every selected domain in the table's order, while none fails. */
/* applying: a domain that only reports has nothing to plan. */
int build_plan(struct ctx *c, struct plan *p, bool applying)
{
	int r = 0;

	c->applying = applying;
	for (size_t i = 0; i < ndomains && r >= 0; i++)
		if ((c->only & domains[i].bit) && !(applying && domains[i].report_only))
			r = domains[i].plan(c, p);
	return r;
}

/* plan --changes: what apply would write, and what fails. */
static bool changes(const struct item *it)
{
	return it->action == ACT_CHANGE || it->action == ACT_ERROR || it->error;
}

int cmd_plan(struct ctx *c, bool only_changes)
{
	struct plan p = { 0 };
	size_t all;
	int r, unread;

	c->read_only = true;
	r = build_plan(c, &p, false);
	if (r < 0)
		log_msg(LOG_ERR, "cannot list devices: %s", strerror(-r));
	unread = writers_annotate(c, &p);
	all = p.n;
	if (only_changes)
		plan_keep(&p, changes);
	if (only_changes && !p.n && !c->json && !c->boot)
		printf("plan: nothing would change or fail (%zu item%s kept or skipped: plan without --changes "
		       "shows them)\n", all, all == 1 ? "" : "s");
	else
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
	fmt(buf, size, "; likely culprit: %s:%d %s (%s%s)", x->file, x->line, x->what, x->tool,
		 x->wins ? ", runs after earlytune" : "");
	return buf;
}

/* One of verify's lines: on stdout, with the summary (so that `verify |
 * grep vda` finds vda's), or in the kernel log under --boot. */
_printf_(3, 4) static void say(const struct ctx *c, int prio, const char *fmt, ...)
{
	char *line = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		log_msg(LOG_ERR, "verify: %s", strerror(ENOMEM));
	else if (c->boot)
		log_msg(prio, "%s", line);
	else
		printf("%s\n", line);
	if (n >= 0)
		free(line);
}

static void say_item(const struct ctx *c, const struct item *it, enum verdict v)
{
	char cb[PATH_MAX + 512];
	const char *who = culprit(it, cb, sizeof(cb)), *word = v == V_NOT_APPLIED ? "not applied" : "drift";

	if (it->error)
		say(c, LOG_ERR, "drift: %s %s %s: %s", it->domain, it->target, it->setting, it->error);
	else if (v == V_UNKNOWN)
		say(c, LOG_WARN, "unknown: %s %s %s: %s [%s]", it->domain, it->target, it->setting, dash(it->reason),
		    dash(it->source));
	else if (v == V_UNMET)
		say(c, LOG_WARN, "unmet: %s %s %s: not possible here: %s [%s]", it->domain, it->target, it->setting,
		    dash(it->reason), dash(it->source));
	else if (it->foreign && streq_ptr(it->current, it->desired))
		say(c, LOG_WARN, "drift: %s %s %s is '%s' now, but will not stay: %s%s", it->domain, it->target,
		    it->setting, dash(it->current), dash(it->reason), who);
	else if (it->foreign)
		say(c, LOG_WARN, "%s: %s %s %s is '%s', want '%s': %s%s", word, it->domain, it->target, it->setting,
		    dash(it->current), dash(it->desired), dash(it->reason), who);
	else
		say(c, LOG_WARN, "%s: %s %s %s is '%s', want '%s' [%s]%s", word, it->domain, it->target, it->setting,
		    dash(it->current), dash(it->desired), dash(it->source), who);
}

/* Why nothing is set, before the counts. */
static void say_unapplied(const struct ctx *c, enum ran ran, unsigned n)
{
	const char *where = c->root.is_host ? "" : c->root.dir;

	if (ran == RAN_REVERTED)
		say(c, LOG_NOTICE, "verify: %u not applied: earlytune's settings were reverted (%s/%s); "
		    "earlytune apply sets them again", n, where, RUNLOG_FILE);
	else
		say(c, LOG_NOTICE, "verify: %u not applied: earlytune has not run since boot (no %s/%s, no records); "
		    "earlytune apply sets them", n, where, RUNLOG_FILE);
}

static void say_summary(const struct ctx *c, const unsigned *n)
{
	struct strbuf sb = { 0 };

	sb_printf(&sb, "verify: %u hold, %u drifted, %u unmet, %u not applicable", n[V_HOLDS], n[V_DRIFTED],
		  n[V_UNMET], n[V_NA]);
	if (n[V_UNKNOWN])
		sb_printf(&sb, ", %u unknown", n[V_UNKNOWN]);
	if (n[V_NOT_APPLIED])
		sb_printf(&sb, ", %u not applied", n[V_NOT_APPLIED]);
	if (!sb.oom)
		printf("%s\n", sb.s);
	sb_free(&sb);
}

/* Exit 1 unless every item the configuration asks for is in force: changed
 * by someone (drifted), impossible on this kernel (unmet), not shown by the
 * tree (unknown: in force or not cannot be told) and not yet set (earlytune
 * has not run since boot, or was reverted) all count; what does not apply
 * here (a partition, a bio-based queue, another network namespace) does
 * not. */
int cmd_verify(struct ctx *c)
{
	struct plan p = { 0 };
	unsigned n[V_COUNT] = { 0 };
	int r = build_plan(c, &p, false), m, unread, log_err;
	enum ran ran = runlog_ran(&c->root, &log_err);

	if (r < 0)
		log_msg(LOG_ERR, "verify: cannot list devices: %s", strerror(-r));
	unread = writers_annotate(c, &p);
	p.unapplied = ran != RAN_APPLIED;
	for (size_t i = 0; i < p.n; i++) {
		enum verdict v = plan_verdict(&p, &p.v[i]);

		n[v]++;
		if (!c->json && v != V_HOLDS && v != V_NA)
			say_item(c, &p.v[i], v);
	}
	if (c->json)
		print_json(c, &p, "verify", true);
	else if (n[V_NOT_APPLIED])
		say_unapplied(c, ran, n[V_NOT_APPLIED]);
	if (!c->json && !c->boot)
		say_summary(c, n);
	m = c->prometheus ? metrics_write(c, &p) : 0;
	plan_free(&p);
	if (m < 0)
		return 2; /* the export is what the timer is for: its failure is not drift */
	/* A run log that cannot be read leaves "not applied" and drift apart
	 * unknown: not a verify that holds. */
	return r < 0 || unread || log_err < 0 || n[V_DRIFTED] || n[V_UNMET] || n[V_UNKNOWN] || n[V_NOT_APPLIED] ? 1 : 0;
}
