// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * measure tcp --apply: the one change a measurement named, as a sysctl.d
 * file of its own whose comment lines are the measurement (the connection,
 * the limit, before, the prediction, the cost, date and host), and the
 * value set now. Only a change on this host, and only one: several
 * connections asking for changes are told apart with --peer or --port.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "measure/measure.h"
#include "measure/report.h"
#include "measure/verify.h"

/* The options that select the same connections for the same window. */
void mt_selection(char *out, size_t size, unsigned seconds, const char *peer, unsigned port)
{
	int n = snprintf(out, size, "--for %u", seconds);

	if (peer && n > 0 && (size_t)n < size)
		n += snprintf(out + n, size - (size_t)n, " --peer %s", peer);
	if (port && n > 0 && (size_t)n < size)
		snprintf(out + n, size - (size_t)n, " --port %u", port);
}

/* The file's text: pure, for the unit tests. */
void mt_sysctl_file(struct strbuf *sb, const struct mt_flow *f, const struct mt_verdict *v, const char *host,
		    long long when, const char *was, const char *selection)
{
	const struct mt_change *c = &v->change;
	char date[32];

	mt_date(date, sizeof(date), when);
	sb_printf(sb, "# Written by earlytune measure tcp --apply on %s at %s.\n", host, date);
	sb_printf(sb, "# Measured: %s -> %s (%s): %s.\n", f->last.src, f->last.dst, f->last.cc[0] ? f->last.cc : "?",
		  v->why);
	sb_printf(sb, "# Before: %llu bit/s acked, %llu bytes in flight, min RTT %u us.\n",
		  (unsigned long long)v->rate_bps, (unsigned long long)v->inflight, v->min_rtt_us);
	if (c->pred_bps)
		sb_printf(sb, "# Prediction: %s%llu bit/s, %llu bytes in flight.\n", c->pred_floor ? "at least " : "",
			  (unsigned long long)c->pred_bps, (unsigned long long)c->pred_inflight);
	if (c->have_cost)
		sb_printf(sb, "# Cost: %llu pages a flow; %llu such flows before tcp_mem's pressure threshold.\n",
			  (unsigned long long)c->flow_pages, (unsigned long long)c->flows);
	if (was)
		sb_printf(sb, "# Was: %s = %s (to revert: set it back and remove this file).\n", c->sysctl, was);
	sb_printf(sb, "# Check it with the same measurement: earlytune measure tcp %s --verify\n", selection);
	sb_printf(sb, "%s = %s\n", c->sysctl, c->value);
}

/* The one connection whose change is this host's; -EEXIST for several. */
static int pick(const struct mt_report *rep, size_t *which, struct mt_verdict *out)
{
	size_t n = 0;

	for (size_t i = 0; i < rep->nflows; i++) {
		struct mt_verdict v;

		mt_interpret(&rep->flows[i], &rep->host, &v);
		if (rep->flows[i].n < 2 || !v.change.sysctl || v.change.on_peer)
			continue;
		if (n++ == 0)
			*which = i, *out = v;
	}
	return n > 1 ? -EEXIST : (int)n;
}

/* Why nothing applies: no setting is the limit, or the one that would be
 * is a value this kernel lacks (a file setting it would fail at boot). */
static const char *lacking(const struct mt_report *rep)
{
	for (size_t i = 0; i < rep->nflows; i++) {
		struct mt_verdict v;

		mt_interpret(&rep->flows[i], &rep->host, &v);
		if (rep->flows[i].n >= 2 && v.change.lacking)
			return "the limit asks for bbr, which is not available here (the measurement's why says what "
			       "would offer it); no file written";
	}
	return "no setting of this host is the limit";
}

void mt_conf_path(char *out, size_t size, const char *sysctl)
{
	const char *dot = strrchr(sysctl, '.');

	snprintf(out, size, "etc/sysctl.d/60-earlytune-measure-%s.conf", dot ? dot + 1 : sysctl);
}

void mt_proc_path(char *out, size_t size, const char *sysctl)
{
	snprintf(out, size, "proc/sys/%s", sysctl);
	for (char *p = out + strlen("proc/sys/"); *p; p++)
		*p = *p == '.' ? '/' : *p;
}

/* The original an earlier --apply's file names: a second --apply keeps
 * it (the value now is the one the first set). */
int mt_earlier_was(const struct root *r, const char *sysctl, char *out, size_t size)
{
	char path[128], text[4096];
	struct mt_applied a;
	int n;

	mt_conf_path(path, sizeof(path), sysctl);
	n = root_read(r, path, text, sizeof(text));
	if (n < 0)
		return n == -ENOENT ? 0 : n;
	if (mt_applied_parse(text, &a) < 0 || strcmp(a.setting, sysctl) || !a.was[0])
		return 0;
	snprintf(out, size, "%s", a.was);
	return 1;
}

/* The value set first (rel: a sysctl's or a sysfs file; what: its name in
 * the messages), then its file (path, in dir): a value that cannot be set
 * leaves no file saying it is; a file that cannot be written sets was
 * back, so that a failed --apply leaves nothing behind, and the message
 * says what the value is then. */
int m_keep_change(const struct root *r, const char *command, const char *what, const char *rel, const char *value,
		  const char *was, const char *dir, const char *path, const struct strbuf *sb)
{
	int e = root_write(r, rel, value), back;

	if (e < 0) {
		log_msg(LOG_ERR, "%s: cannot set %s: %s", command, what, strerror(-e));
		return e;
	}
	e = root_mkdir_p(r, dir, 0755);
	if (!e)
		e = root_write_atomic(r, path, sb->s, sb->len, 0644);
	if (!e) {
		log_msg(LOG_NOTICE, "%s: %s = %s, in force and in /%s", command, what, value, path);
		return 0;
	}
	back = was ? root_write(r, rel, was) : -ENODATA;
	if (!back)
		log_msg(LOG_ERR, "%s: cannot write /%s: %s; %s set back to %s", command, path, strerror(-e), what, was);
	else if (was)
		log_msg(LOG_ERR, "%s: cannot write /%s: %s; cannot set %s back to %s either (%s): it stays %s", command,
			path, strerror(-e), what, was, strerror(-back), value);
	else
		log_msg(LOG_ERR, "%s: cannot write /%s: %s; %s stays %s (its value before could not be read)", command,
			path, strerror(-e), what, value);
	return e;
}

int mt_write_change(const struct root *r, const char *sysctl, const char *value, const char *was,
		    const struct strbuf *sb)
{
	char path[128], proc[128];

	mt_conf_path(path, sizeof(path), sysctl);
	mt_proc_path(proc, sizeof(proc), sysctl);
	return m_keep_change(r, "measure tcp --apply", sysctl, proc, value, was, MT_CONF_DIR, path, sb);
}

int mt_apply(const struct ctx *c, const struct mt_report *rep, const struct measure_opts *o, size_t *changed)
{
	struct strbuf sb = { 0 };
	struct mt_verdict v;
	char host[256] = "?", proc[128], now[128], was[128], sel[128];
	size_t which = 0;
	int n = pick(rep, &which, &v), e;
	bool have, first;

	if (n == -EEXIST) {
		log_msg(LOG_ERR, "measure tcp --apply: several connections ask for a change; pick one with --peer or --port");
		return n;
	}
	if (n == 0) {
		log_msg(LOG_NOTICE, "measure tcp --apply: nothing to apply: %s", lacking(rep));
		return 0;
	}
	*changed = which;
	if (root_read(&c->root, "proc/sys/kernel/hostname", host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "?");
	mt_proc_path(proc, sizeof(proc), v.change.sysctl);
	mt_selection(sel, sizeof(sel), rep->seconds, o->peer, o->port);
	have = root_read(&c->root, proc, now, sizeof(now)) >= 0;
	first = mt_earlier_was(&c->root, v.change.sysctl, was, sizeof(was)) > 0;
	mt_sysctl_file(&sb, &rep->flows[which], &v, host, (long long)time(NULL), first ? was : have ? now : NULL, sel);
	e = sb.oom ? -ENOMEM : mt_write_change(&c->root, v.change.sysctl, v.change.value, have ? now : NULL, &sb);
	sb_free(&sb);
	return e;
}
