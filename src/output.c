// SPDX-License-Identifier: LGPL-2.1-or-later
/* How the items of a command print: a table, one JSON object, or (--boot)
 * a line per change or failure in the kernel log and a summary. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"

static const char *const action_names[] = { "change", "keep", "skip", "error" };
static const char *const result_names[] = { NULL, "applied", "failed" };

const char *dash(const char *s)
{
	return s && *s ? s : "-";
}

static void json_field(struct strbuf *sb, const char *name, const char *value)
{
	sb_printf(sb, ",\"%s\":", name);
	sb_json_str(sb, value);
}

static void json_item(struct strbuf *sb, const struct item *it)
{
	sb_printf(sb, "{\"domain\":");
	sb_json_str(sb, it->domain);
	json_field(sb, "target", it->target);
	json_field(sb, "setting", it->setting);
	if (it->cls)
		json_field(sb, "class", it->cls);
	json_field(sb, "current", it->current);
	json_field(sb, "desired", it->desired);
	sb_printf(sb, ",\"action\":\"%s\"", action_names[it->action]);
	json_field(sb, "result", result_names[it->result]);
	json_field(sb, "error", it->error);
	json_field(sb, "reason", it->reason);
	json_field(sb, "source", it->source);
	sb_printf(sb, ",\"unmet\":%s}", it->unmet ? "true" : "false");
}

void print_json(const struct ctx *c, const struct plan *p, const char *command)
{
	struct strbuf sb = { 0 };

	sb_printf(&sb, "{\"version\":1");
	json_field(&sb, "command", command);
	json_field(&sb, "kernel", c->kernel.release);
	json_field(&sb, "root", c->root.dir);
	json_field(&sb, "profile", c->cfg.profile);
	sb_printf(&sb, ",\"items\":[");
	for (size_t i = 0; i < p->n; i++) {
		sb_printf(&sb, "%s\n", i ? "," : "");
		json_item(&sb, &p->v[i]);
	}
	sb_printf(&sb, "]}\n");
	if (!sb.oom)
		fputs(sb.s, stdout);
	sb_free(&sb);
}

static void widen(int *w, const char *s)
{
	int n = (int)strlen(dash(s));

	if (n > *w)
		*w = n;
}

static void print_table(const struct plan *p, bool results)
{
	int w[5] = { 6, 6, 7, 7, 7 };

	for (size_t i = 0; i < p->n; i++) {
		widen(&w[0], p->v[i].domain);
		widen(&w[1], p->v[i].target);
		widen(&w[2], p->v[i].setting);
		widen(&w[3], p->v[i].current);
		widen(&w[4], p->v[i].desired);
	}
	printf("%-*s %-*s %-*s %-*s %-*s %-6s %s%s\n", w[0], "DOMAIN", w[1], "TARGET", w[2], "SETTING",
	       w[3], "CURRENT", w[4], "DESIRED", "ACTION", results ? "RESULT  " : "", "REASON");
	for (size_t i = 0; i < p->n; i++) {
		const struct item *it = &p->v[i];

		printf("%-*s %-*s %-*s %-*s %-*s %-6s ", w[0], it->domain, w[1], it->target, w[2],
		       it->setting, w[3], dash(it->current), w[4], dash(it->desired),
		       action_names[it->action]);
		if (results)
			printf("%-7s ", dash(result_names[it->result]));
		if (it->error)
			printf("error: %s", it->error);
		else
			printf("%s", dash(it->reason));
		printf(it->source ? " [%s]\n" : "\n", it->source);
	}
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

static double elapsed_ms(long long t0_ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)(ts.tv_sec * 1000000000LL + ts.tv_nsec - t0_ns) / 1e6;
}

/* --boot: a line per change or failure in the kernel log, then the summary. */
static void log_boot(const struct ctx *c, const struct plan *p, const char *command)
{
	struct counts n = count(p);
	char buf[32];
	/* udev runs one per device: the summary names it (and a tree not "/"). */
	const char *what = scope_name(c, c->ndevices == 1, buf, sizeof(buf));

	for (size_t i = 0; i < p->n; i++) {
		const struct item *it = &p->v[i];

		if (it->result == RES_APPLIED)
			log_msg(LOG_NOTICE, "%s %s %s: %s -> %s [%s]", it->domain, it->target, it->setting,
				dash(it->current), it->desired, dash(it->source));
		else if (it->error)
			log_msg(LOG_ERR, "%s %s %s: %s", it->domain, it->target, it->setting, it->error);
		else if (it->action == ACT_SKIP && it->unmet)
			log_msg(LOG_WARN, "%s %s %s: not applied: %s [%s]", it->domain, it->target,
				it->setting, dash(it->reason), dash(it->source));
	}
	log_msg(LOG_NOTICE, "%s%s%s%s%s: %u changed, %u kept, %u skipped, %u failed in %.1f ms", command,
		what ? " " : "", what ? what : "", c->root.is_host ? "" : " --root ",
		c->root.is_host ? "" : c->root.dir, n.changed, n.kept, n.skipped, n.failed,
		elapsed_ms(c->t0_ns));
}

void report(const struct ctx *c, const struct plan *p, const char *command, bool results)
{
	if (c->json)
		print_json(c, p, command);
	else if (c->boot)
		log_boot(c, p, command);
	else
		print_table(p, results);
}
