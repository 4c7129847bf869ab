// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * `earlytune status`: what the applies and reverts of this boot did, from
 * the run log (runlog.c), oldest first: the boot run, then every udev and
 * manual run since; per run the time, what ran, the counts, and each item
 * that was not kept, failures first, with its reason. Names and reasons are printed with
 * control characters escaped: they come from device and interface names.
 * A boot with many udev runs logs hundreds of lines: --last N shows the
 * newest N runs, --failed the runs with a failed item and only those items.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "engine/runlog.h"

/* Text for a terminal: \n, \t and other control bytes as escapes. */
static void put_safe(struct strbuf *sb, const char *s)
{
	for (s = dash(s); *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '\n' || ch == '\t')
			sb_printf(sb, "\\%c", ch == '\n' ? 'n' : 't');
		else if (ch < 0x20 || ch == 0x7f)
			sb_printf(sb, "\\x%02x", ch);
		else
			sb_printf(sb, "%c", ch);
	}
}

static void put_scope(struct strbuf *sb, const struct run *x)
{
	const char *opt = !strcmp(x->scope, "device") ? "--device" : !strcmp(x->scope, "ifindex") ? "--ifindex"
			: !strcmp(x->scope, "iface") ? "--iface" : NULL;
	const char *s = x->names;

	if (x->only)
		sb_printf(sb, " --only %s", x->only);
	while (opt && s) {
		size_t n = strcspn(s, "\n");
		char name[NAME_MAX + 1];

		snprintf(name, sizeof(name), "%.*s", (int)n, s);
		sb_printf(sb, " %s ", opt);
		put_safe(sb, name);
		s = s[n] ? s + n + 1 : NULL;
	}
}

/* "  OUTCOME  DOMAIN TARGET SETTING: [CURRENT -> DESIRED: ]DETAIL [SOURCE]" */
static void put_item(struct strbuf *sb, const struct run_item *it)
{
	sb_printf(sb, "  %-8s %s ", it->outcome, it->domain);
	put_safe(sb, it->target);
	sb_printf(sb, " ");
	put_safe(sb, it->setting);
	sb_printf(sb, ": ");
	if (!strcmp(it->outcome, "changed")) {
		put_safe(sb, it->current);
		sb_printf(sb, " -> ");
		put_safe(sb, it->desired);
		sb_printf(sb, it->detail ? ": " : "");
	}
	if (it->detail || strcmp(it->outcome, "changed"))
		put_safe(sb, it->detail);
	if (it->source) {
		sb_printf(sb, " [");
		put_safe(sb, it->source);
		sb_printf(sb, "]");
	}
	sb_printf(sb, "\n");
}

/* Which runs are shown, and whether only their failed items. */
struct shown {
	size_t *idx, n;
	bool failed;
};

static bool item_shown(const struct shown *s, const struct run_item *it)
{
	return !s->failed || !strcmp(it->outcome, "failed");
}

static void put_run(struct strbuf *sb, const struct run *x, const struct shown *s)
{
	time_t t = (time_t)(x->time_ns / 1000000000LL);
	struct tm tm;
	char when[64] = "?";

	if (localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %z", &tm);
	sb_printf(sb, "%s  %s%s", when, x->command, x->boot ? " --boot" : "");
	put_scope(sb, x);
	if (run_is_measurement(x))
		sb_printf(sb, ": %u measured, %u changed, %u failed in %.1f ms", x->kept + x->changed + x->failed,
			  x->changed, x->failed, (double)x->duration_us / 1000.0);
	else
		sb_printf(sb, ": %u changed, %u kept, %u skipped, %u failed in %.1f ms", x->changed, x->kept,
			  x->skipped, x->failed, (double)x->duration_us / 1000.0);
	if (x->config_errors)
		sb_printf(sb, "; %u configuration error%s (lines skipped)", x->config_errors,
			  x->config_errors == 1 ? "" : "s");
	if (x->note) {
		sb_printf(sb, "; ");
		put_safe(sb, x->note);
	}
	sb_printf(sb, "\n");
	for (size_t i = 0; i < x->nitems; i++)
		if (item_shown(s, &x->items[i]))
			put_item(sb, &x->items[i]);
	if (x->more)
		sb_printf(sb, "  ... and %u more item%s not recorded\n", x->more, x->more == 1 ? "" : "s");
}

/* "  VERDICT  SETTING = VALUE: before B, predicted P, after A (checked DATE) [/FILE]" */
static void put_measured(struct strbuf *sb, const struct measured_set *ms, bool failed)
{
	char b[32], p[32], a[32];
	bool head = false;

	for (size_t i = 0; i < ms->n; i++) {
		const struct measured *m = &ms->v[i];

		if (failed && !measured_failed(m))
			continue;
		if (!head)
			sb_printf(sb, "measured settings (their own files, kept across boots):\n");
		head = true;
		measured_value(b, sizeof(b), m, m->before);
		measured_value(p, sizeof(p), m, m->predicted);
		measured_value(a, sizeof(a), m, m->after);
		sb_printf(sb, "  %-10s ", m->verdict);
		put_safe(sb, m->setting);
		sb_printf(sb, " = ");
		put_safe(sb, m->value);
		sb_printf(sb, ": before %s, predicted %s, ", b, p);
		if (m->checked) {
			sb_printf(sb, "after %s (checked ", a);
			put_safe(sb, m->checked);
			sb_printf(sb, ")");
		} else {
			sb_printf(sb, "not checked yet");
		}
		sb_printf(sb, " [/");
		put_safe(sb, m->file);
		sb_printf(sb, "]\n");
	}
}

static void print_measured(const struct measured_set *ms, bool failed)
{
	struct strbuf sb = { 0 };

	put_measured(&sb, ms, failed);
	if (!sb.oom && sb.len)
		fputs(sb.s, stdout);
	sb_free(&sb);
}

static void print_text(const struct runlog *log, const struct shown *s)
{
	struct strbuf sb = { 0 };

	sb_printf(&sb, "earlytune status: %zu run%s since boot, oldest first", log->n, log->n == 1 ? "" : "s");
	if (s->n < log->n || s->failed)
		sb_printf(&sb, "; %zu shown%s", s->n, s->failed ? " (the runs with a failed item: their failures)" : "");
	if (log->dropped)
		sb_printf(&sb, "; %llu earlier run%s dropped (the log keeps %d runs, %d KiB, and the boot run)",
			  log->dropped, log->dropped == 1 ? "" : "s", RUNLOG_MAX_RUNS, RUNLOG_MAX_BYTES / 1024);
	sb_printf(&sb, "\n");
	for (size_t i = 0; i < s->n; i++)
		put_run(&sb, &log->v[s->idx[i]], s);
	if (runlog_reverted(log) && !s->failed)
		sb_printf(&sb, "now reverted: the kernel's own values are back; earlytune apply sets earlytune's again\n");
	if (!sb.oom)
		fputs(sb.s, stdout);
	sb_free(&sb);
}

/* ---- --json ---- */

/* A list kept as one string ("a\nb", "block,net") as an array. */
static void json_list(struct strbuf *sb, const char *name, const char *s, const char *sep)
{
	sb_printf(sb, ",\"%s\":[", name);
	while (s && *s) {
		size_t n = strcspn(s, sep);
		char word[NAME_MAX + 1];

		snprintf(word, sizeof(word), "%.*s", (int)n, s);
		sb_json_str(sb, word);
		s += n + (s[n] != '\0');
		sb_printf(sb, "%s", *s ? "," : "");
	}
	sb_printf(sb, "]");
}

static void json_item(struct strbuf *sb, const struct run_item *it)
{
	bool failed = !strcmp(it->outcome, "failed");

	sb_printf(sb, "{\"outcome\":");
	sb_json_str(sb, it->outcome);
	json_field(sb, "domain", it->domain);
	json_field(sb, "target", it->target);
	json_field(sb, "setting", it->setting);
	json_field(sb, "current", it->current);
	json_field(sb, "desired", it->desired);
	json_field(sb, "error", failed ? it->detail : NULL);
	json_field(sb, "reason", failed ? NULL : it->detail);
	json_field(sb, "source", it->source);
	sb_printf(sb, "}");
}

static void json_run(struct strbuf *sb, const struct run *x, const struct shown *s)
{
	time_t t = (time_t)(x->time_ns / 1000000000LL);
	struct tm tm;
	char when[64] = "";

	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	sb_printf(sb, "{\"time\":\"%s\",\"timestamp\":%lld.%09lld", when, x->time_ns / 1000000000LL,
		  x->time_ns % 1000000000LL);
	json_field(sb, "command", x->command);
	sb_printf(sb, ",\"boot\":%s", x->boot ? "true" : "false");
	json_field(sb, "scope", x->scope);
	json_list(sb, "names", x->names, "\n");
	json_list(sb, "only", x->only, ",");
	sb_printf(sb, ",\"counts\":{\"changed\":%u,\"kept\":%u,\"skipped\":%u,\"failed\":%u}", x->changed, x->kept,
		  x->skipped, x->failed);
	sb_printf(sb, ",\"configuration_errors\":%u,\"duration_seconds\":%lld.%06lld", x->config_errors,
		  x->duration_us / 1000000, x->duration_us % 1000000);
	json_field(sb, "note", x->note);
	sb_printf(sb, ",\"items_not_recorded\":%u,\"items\":[", x->more);
	for (size_t i = 0, n = 0; i < x->nitems; i++) {
		if (!item_shown(s, &x->items[i]))
			continue;
		sb_printf(sb, "%s\n", n++ ? "," : "");
		json_item(sb, &x->items[i]);
	}
	sb_printf(sb, "]}");
}

/* "measured":[...], only where there are some: the output of a host
 * that measured nothing stays as it was. */
static void json_measured(struct strbuf *sb, const struct measured_set *ms)
{
	if (!ms->n)
		return;
	sb_printf(sb, ",\"measured\":[");
	for (size_t i = 0; i < ms->n; i++) {
		const struct measured *m = &ms->v[i];

		sb_printf(sb, "%s{\"kind\":", i ? "," : "");
		sb_json_str(sb, m->kind ? m->kind : "");
		json_field(sb, "setting", m->setting);
		json_field(sb, "value", m->value);
		json_field(sb, "file", m->file);
		json_field(sb, "verdict", m->verdict);
		json_field(sb, "checked", m->checked);
		json_field(sb, "quantity", m->quantity);
		sb_printf(sb, ",\"before\":%.17g,\"predicted\":%.17g,\"after\":", m->before, m->predicted);
		sb_printf(sb, m->after >= 0 ? "%.17g}" : "null}", m->after);
	}
	sb_printf(sb, "]");
}

static void print_json_status(const struct ctx *c, const struct runlog *log, const struct shown *s,
			      const char *message, const struct measured_set *ms)
{
	struct strbuf sb = { 0 };

	json_head(&sb, c, "status");
	json_field(&sb, "root", c->root.dir);
	json_field(&sb, "message", message);
	sb_printf(&sb, ",\"runs_dropped\":%llu,\"runs\":[", log->dropped);
	for (size_t i = 0; i < s->n; i++) {
		sb_printf(&sb, "%s\n", i ? "," : "");
		json_run(&sb, &log->v[s->idx[i]], s);
	}
	sb_printf(&sb, "]");
	json_measured(&sb, ms);
	sb_printf(&sb, "}\n");
	json_emit(&sb);
}

/* The newest last runs (0: all), of those with a failed item when failed. */
static int select_runs(const struct runlog *log, unsigned last, bool failed, struct shown *s)
{
	size_t n = 0;

	s->failed = failed;
	s->n = 0;
	s->idx = calloc(log->n + 1, sizeof(*s->idx));
	if (!s->idx)
		return -ENOMEM;
	for (size_t i = 0; i < log->n; i++)
		if (!failed || log->v[i].failed)
			s->idx[n++] = i;
	if (last && n > last) {
		memmove(s->idx, s->idx + (n - last), last * sizeof(*s->idx));
		n = last;
	}
	s->n = n;
	return 0;
}

/* Exit 0 when every run shown did all it could, 1 when one had a failed
 * item, a measured setting's prediction failed, or earlytune has not run,
 * 2 when the log cannot be read. */
int cmd_status(struct ctx *c, unsigned last, bool failed)
{
	struct runlog log = { 0 };
	struct measured_set ms;
	struct shown s = { 0 };
	int r = runlog_load(&c->root, &log), rc = 0;
	const char *never = "earlytune has not run since boot";

	if (r < 0 && r != -ENOENT) {
		log_msg(LOG_ERR, "status: cannot read %s/%s: %s", c->root.is_host ? "" : c->root.dir, RUNLOG_FILE,
			r == -EBADMSG ? "not a run log of this version" : strerror(-r));
		runlog_free(&log);
		return 2;
	}
	if (select_runs(&log, last, failed, &s) < 0) {
		log_msg(LOG_ERR, "status: %s", strerror(ENOMEM));
		runlog_free(&log);
		return 2;
	}
	for (size_t i = 0; i < s.n; i++)
		if (log.v[s.idx[i]].failed)
			rc = 1;
	measured_load(c, &ms);
	if (ms.err)
		log_msg(LOG_WARN, "status: cannot list every measured setting: %s", strerror(-ms.err));
	if (c->json)
		print_json_status(c, &log, &s, log.n ? NULL : never, &ms);
	else if (log.n)
		print_text(&log, &s);
	else
		printf("%s (no %s/%s)\n", never, c->root.is_host ? "" : c->root.dir, RUNLOG_FILE);
	if (!c->json)
		print_measured(&ms, failed);
	rc = log.n ? rc : 1;
	for (size_t i = 0; i < ms.n; i++)
		rc |= measured_failed(&ms.v[i]);
	measured_free(&ms);
	free(s.idx);
	runlog_free(&log);
	return rc;
}
