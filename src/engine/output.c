// SPDX-License-Identifier: LGPL-2.1-or-later
/* How the items of a command print: a table, one JSON object, or (--boot)
 * a line per change or failure in the kernel log and a summary. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "engine/internal.h"

static bool json_done;

/* Every JSON object goes out through here: main then knows whether the
 * command said its piece or an error object is due. */
void json_emit(struct strbuf *sb)
{
	if (!sb->oom)
		fputs(sb->s, stdout);
	json_done = true;
	sb_free(sb);
}

bool json_emitted(void)
{
	return json_done;
}

void json_field(struct strbuf *sb, const char *name, const char *value)
{
	sb_printf(sb, ",\"%s\":", name);
	sb_json_str(sb, value);
}

/* The start of every command's object: {"version":1,"command":…,"kernel":…
 * (null when the kernel was not read), "kernel_from": proc, option, image
 * (its only kernel) or null (unknown). */
void json_head(struct strbuf *sb, const struct ctx *c, const char *command)
{
	sb_printf(sb, "{\"version\":1");
	json_field(sb, "command", command);
	json_field(sb, "kernel", *c->kernel.release ? c->kernel.release : NULL);
	json_field(sb, "kernel_from", c->kernel.from);
}

/* "writers":[{"file","line","tool","what","value","wins","why"}] */
static void json_writers(struct strbuf *sb, const struct item *it)
{
	sb_printf(sb, ",\"writers\":[");
	for (size_t i = 0; i < it->nwriters; i++) {
		const struct writer *x = &it->writers[i];

		sb_printf(sb, "%s{\"file\":", i ? "," : "");
		sb_json_str(sb, x->file);
		sb_printf(sb, ",\"line\":%d", x->line);
		json_field(sb, "tool", x->tool);
		json_field(sb, "what", x->what);
		json_field(sb, "value", x->value);
		sb_printf(sb, ",\"wins\":%s", x->wins ? "true" : "false");
		json_field(sb, "why", x->why);
		sb_printf(sb, "}");
	}
	sb_printf(sb, "]");
}

static void json_item(struct strbuf *sb, const struct plan *p, const struct item *it, bool verify)
{
	sb_printf(sb, "{\"domain\":");
	sb_json_str(sb, it->domain);
	json_field(sb, "target", it->target);
	json_field(sb, "setting", it->setting);
	if (it->cls)
		json_field(sb, "class", it->cls);
	json_field(sb, "current", it->current);
	json_field(sb, "desired", it->desired);
	sb_printf(sb, ",\"action\":\"%s\"", action_name(it->action));
	json_field(sb, "result", result_name(it->result));
	json_field(sb, "error", it->error);
	json_field(sb, "reason", it->reason && *it->reason ? it->reason : NULL);
	json_field(sb, "source", it->source);
	sb_printf(sb, ",\"unknown\":%s,\"unmet\":%s", it->unknown ? "true" : "false", it->unmet ? "true" : "false");
	if (p->writers)
		json_writers(sb, it);
	if (verify)
		sb_printf(sb, ",\"verdict\":\"%s\",\"holds\":%s", verdict_name(plan_verdict(p, it)),
			  plan_verdict(p, it) == V_HOLDS ? "true" : "false");
	sb_printf(sb, "}");
}

/* verify's summary: the counts its text line gives. */
static void json_summary(struct strbuf *sb, const struct plan *p)
{
	unsigned n[V_COUNT] = { 0 };

	for (size_t i = 0; i < p->n; i++)
		n[plan_verdict(p, &p->v[i])]++;
	sb_printf(sb, ",\"summary\":{\"hold\":%u,\"drifted\":%u,\"unmet\":%u,\"not_applicable\":%u,\"unknown\":%u,"
		  "\"not_applied\":%u,\"in_force\":%s}",
		  n[V_HOLDS], n[V_DRIFTED], n[V_UNMET], n[V_NA], n[V_UNKNOWN], n[V_NOT_APPLIED],
		  n[V_DRIFTED] || n[V_UNMET] || n[V_UNKNOWN] || n[V_NOT_APPLIED] ? "false" : "true");
}

/* verify: each item's verdict and holds, and the summary. */
void print_json(const struct ctx *c, const struct plan *p, const char *command, bool verify)
{
	struct strbuf sb = { 0 };

	json_head(&sb, c, command);
	json_field(&sb, "root", c->root.dir);
	json_field(&sb, "profile", c->cfg.profile);
	if (verify)
		json_summary(&sb, p);
	sb_printf(&sb, ",\"items\":[");
	for (size_t i = 0; i < p->n; i++) {
		sb_printf(&sb, "%s\n", i ? "," : "");
		json_item(&sb, p, &p->v[i], verify);
	}
	sb_printf(&sb, "]}\n");
	json_emit(&sb);
}

struct counts {
	unsigned changed, kept, skipped, failed;
};

static struct counts count(const struct plan *p)
{
	struct counts n = { 0 };

	for (size_t i = 0; i < p->n; i++) {
		const struct item *it = &p->v[i];

		if (it->result == RES_APPLIED)
			n.changed++;
		else if (it->result == RES_FAILED || it->action == ACT_ERROR)
			n.failed++;
		else if (it->action == ACT_SKIP)
			n.skipped++;
		else
			n.kept++;
	}
	return n;
}

int exit_code(const struct plan *p)
{
	return count(p).failed ? 1 : 0;
}

/* What a command run by udev is about: the disk (when devices), else the
 * interface, or NULL for the whole system. */
const char *scope_name(const struct ctx *c, bool devices, char *buf, size_t size)
{
	if (devices && c->ndevices)
		return c->devices[0];
	if (c->iface)
		return c->iface;
	if (!c->ifindex)
		return NULL;
	snprintf(buf, size, "ifindex %d", c->ifindex);
	return buf;
}

/* Tenths of a millisecond since t0_ns, printed as "%lld.%lld": a udev
 * run's one float would bring glibc's float printing (16 KiB of code,
 * four pages faulted in) for this number alone. */
static long long elapsed_tenths(long long t0_ns)
{
	long long ns = now_ns(CLOCK_MONOTONIC) - t0_ns;

	return ns < 0 ? 0 : (ns + 50000) / 100000;
}

/* " [source]", or nothing for an item without one. */
static const char *from(const struct item *it, char *buf, size_t size)
{
	if (!it->source)
		return "";
	snprintf(buf, size, " [%s]", it->source);
	return buf;
}

/* One kernel-log line for an item, unless it is kept: a change, a failure,
 * a skip (a warning when the kernel cannot give what is asked for, a notice
 * when someone else owns it or the tree does not show whether the kernel
 * can give it, else information) with its reason. */
static void log_item(const struct item *it)
{
	char src[512];
	const char *reason = it->reason && *it->reason ? it->reason : "no reason recorded";

	if (it->result == RES_APPLIED)
		log_msg(LOG_NOTICE, "%s %s %s: %s -> %s%s", it->domain, it->target, it->setting, dash(it->current),
			it->desired, from(it, src, sizeof(src)));
	else if (it->error)
		log_msg(LOG_ERR, "%s %s %s: %s", it->domain, it->target, it->setting, it->error);
	else if (it->action == ACT_SKIP && it->unmet)
		log_msg(LOG_WARN, "%s %s %s: not applied: %s%s", it->domain, it->target, it->setting, reason,
			from(it, src, sizeof(src)));
	else if (it->action == ACT_SKIP)
		log_msg(it->foreign || it->unknown ? LOG_NOTICE : LOG_INFO, "%s %s %s: skipped: %s%s", it->domain, it->target,
			it->setting, reason, from(it, src, sizeof(src)));
}

/* --boot: a line per item that was not kept, then the summary. */
static void log_boot(const struct ctx *c, const struct plan *p, const char *command)
{
	struct counts n = count(p);
	char buf[32];
	/* udev runs one per device: the summary names it (and a tree not "/"). */
	const char *what = scope_name(c, c->ndevices == 1, buf, sizeof(buf));
	long long t;

	for (size_t i = 0; i < p->n; i++)
		log_item(&p->v[i]);
	t = elapsed_tenths(c->t0_ns);
	log_msg(LOG_NOTICE, "%s%s%s%s%s: %u changed, %u kept, %u skipped, %u failed in %lld.%lld ms", command,
		what ? " " : "", what ? what : "", c->root.is_host ? "" : " --root ",
		c->root.is_host ? "" : c->root.dir, n.changed, n.kept, n.skipped, n.failed, t / 10, t % 10);
}

void report(const struct ctx *c, const struct plan *p, const char *command, bool results)
{
	if (c->json)
		print_json(c, p, command, false);
	else if (c->boot)
		log_boot(c, p, command);
	else
		print_table(p, results, c->columns, !c->verbose);
}
