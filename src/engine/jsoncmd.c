// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * --json for the commands that print no item table (config, sysctl-conf,
 * modules), the arrays of space-separated lists, and the error object a
 * command prints on stdout when it fails before it could print its own.
 */
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "engine/internal.h"
#include "engine/sysctl.h"

/* ,"name":["w1","w2"] from a space-separated list (NULL: an empty array). */
void json_words(struct strbuf *sb, const char *name, const char *list)
{
	char w[WORD_MAX];
	const char *s = list ? list : "";
	bool first = true;

	sb_printf(sb, ",\"%s\":[", name);
	while (next_word(&s, w, sizeof(w))) {
		sb_printf(sb, "%s", first ? "" : ",");
		sb_json_str(sb, w);
		first = false;
	}
	sb_printf(sb, "]");
}

static void json_entry(struct strbuf *sb, const struct cfg_entry *e, bool first)
{
	_cleanup_(freep) char *src = config_source(e);

	sb_printf(sb, "%s\n{\"section\":", first ? "" : ",");
	sb_json_str(sb, e->section);
	json_field(sb, "name", e->name);
	json_field(sb, "key", e->key);
	json_field(sb, "value", e->value);
	json_field(sb, "reason", e->reason && *e->reason ? e->reason : NULL);
	json_field(sb, "file", e->file);
	sb_printf(sb, ",\"line\":%d", e->line);
	json_field(sb, "source", src);
	sb_printf(sb, "}");
}

/* `config --json`: the effective entries (the last assignment of each key),
 * in the order of the files. */
void config_json(const struct ctx *c)
{
	struct strbuf sb = { 0 };
	bool first = true;

	json_head(&sb, c, "config");
	json_field(&sb, "profile", c->cfg.profile);
	sb_printf(&sb, ",\"entries\":[");
	for (size_t i = 0; i < c->cfg.n; i++) {
		const struct cfg_entry *e = &c->cfg.v[i];

		if (config_get(&c->cfg, e->section, e->name, e->key) != e)
			continue;
		json_entry(&sb, e, first);
		first = false;
	}
	sb_printf(&sb, "]}\n");
	json_emit(&sb);
}

struct json_list {
	struct strbuf *sb;
	bool first;
};

static void json_sysctl(const char *key, const struct cfg_entry *e, bool optional, void *data)
{
	_cleanup_(freep) char *src = config_source(e);
	struct json_list *l = data;

	(void)optional;
	sb_printf(l->sb, "%s{\"key\":", l->first ? "" : ",");
	sb_json_str(l->sb, key);
	json_field(l->sb, "value", e->value);
	json_field(l->sb, "source", src);
	sb_printf(l->sb, "}");
	l->first = false;
}

/* `sysctl-conf --json`: the guard's file name and the sysctls it holds. */
void sysctl_conf_json(const struct ctx *c)
{
	struct strbuf sb = { 0 };
	struct json_list l = { &sb, true };

	json_head(&sb, c, "sysctl-conf");
	json_field(&sb, "file", "/" SYSCTL_GUARD_PATH);
	sb_printf(&sb, ",\"sysctls\":[");
	domains_sysctls(&c->cfg, json_sysctl, &l);
	sb_printf(&sb, "]}\n");
	json_emit(&sb);
}

/* `forget --json`: the disk or interface and how many records were dropped. */
void forget_json(const struct ctx *c, const char *what, size_t dropped)
{
	struct strbuf sb = { 0 };

	json_head(&sb, c, "forget");
	json_field(&sb, "target", what);
	sb_printf(&sb, ",\"dropped\":%zu}\n", dropped);
	json_emit(&sb);
}

/* "FILE:LINE: message" as the configuration reader words it: file and line
 * apart; any other message has neither. */
static void json_error(struct strbuf *sb, const char *msg, bool first)
{
	const char *colon = msg, *end = NULL;
	long line = 0;

	while ((colon = strchr(colon, ':')) && !end) {
		char *stop;

		line = strtol(colon + 1, &stop, 10);
		if (stop > colon + 1 && colon[1] >= '0' && colon[1] <= '9' && stop[0] == ':' && stop[1] == ' ')
			end = stop;
		else
			colon++;
	}
	sb_printf(sb, "%s{\"file\":", first ? "" : ",");
	if (end) {
		char file[512];

		snprintf(file, sizeof(file), "%.*s", (int)(colon - msg), msg);
		sb_json_str(sb, file);
		sb_printf(sb, ",\"line\":%ld", line);
	} else {
		sb_printf(sb, "null,\"line\":null");
	}
	json_field(sb, "message", end ? end + 2 : msg);
	sb_printf(sb, "}");
}

/* The object for a command that failed before it printed one: its error
 * lines (also on stderr) and the exit status. */
void print_json_error(const struct ctx *c, const char *command, int code)
{
	struct strbuf sb = { 0 };
	const char *msg = NULL;
	size_t n = log_captured(0, &msg);

	json_head(&sb, c, command);
	sb_printf(&sb, ",\"errors\":[");
	for (size_t i = 0; i < n; i++) {
		log_captured(i, &msg);
		json_error(&sb, msg, i == 0);
	}
	if (!n)
		json_error(&sb, "failed (see the messages on stderr)", true);
	sb_printf(&sb, "],\"exit\":%d}\n", code);
	json_emit(&sb);
}
