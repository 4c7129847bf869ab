// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * `verify --prometheus FILE`: verify's verdicts and the run log in the text
 * format of node_exporter's textfile collector. earlytune runs no daemon:
 * a timer (earlytune-verify.timer) rewrites the file, Prometheus aggregates.
 * FILE is absolute and, like every path earlytune writes, resolved inside
 * --root; it is replaced atomically (temporary file and rename in its
 * directory), so the collector never reads half a file.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "engine/runlog.h"

/* The length of the UTF-8 sequence at s, or 0 when it is not one. */
static size_t utf8_seq(const unsigned char *s)
{
	size_t n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3
		 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;

	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((n == 2 && s[0] < 0xc2) || (n == 3 && s[0] == 0xe0 && s[1] < 0xa0) ||
	    (n == 3 && s[0] == 0xed && s[1] >= 0xa0) || (n == 4 && s[0] == 0xf0 && s[1] < 0x90) ||
	    (n == 4 && (s[0] > 0xf4 || (s[0] == 0xf4 && s[1] >= 0x90))))
		return 0; /* overlong, a surrogate, or past U+10FFFF */
	return n;
}

/* A label value: backslash, double quote and newline escaped as the format
 * wants; a byte that is not UTF-8, or another control byte, as the four
 * characters \xHH (the backslash escaped), so that any interface or device
 * name gives a valid file. */
static void put_label(struct strbuf *sb, const char *name, const char *value)
{
	const unsigned char *s = (const unsigned char *)(value ? value : "");

	sb_printf(sb, "%s=\"", name);
	while (*s) {
		size_t n = utf8_seq(s);

		if (*s == '\\' || *s == '"')
			sb_printf(sb, "\\%c", *s);
		else if (*s == '\n')
			sb_printf(sb, "\\n");
		else if (!n || *s < 0x20 || *s == 0x7f)
			sb_printf(sb, "\\\\x%02x", *s);
		else
			sb_printf(sb, "%.*s", (int)n, (const char *)s);
		s += n ? n : 1;
	}
	sb_printf(sb, "\"");
}

static void put_head(struct strbuf *sb, const char *metric, const char *help)
{
	sb_printf(sb, "# HELP %s %s\n# TYPE %s gauge\n", metric, help, metric);
}

/* 1, or 0 with the first error's file, line and words: a broken
 * configuration writes the file too, instead of leaving the last one. */
static void put_config(struct strbuf *sb, const struct config *cfg)
{
	put_head(sb, "earlytune_config_valid",
		 "Whether the configuration has no error (1); 0 names the first error's file, line and message.");
	if (!cfg->errors) {
		sb_printf(sb, "earlytune_config_valid 1\n");
	} else {
		sb_printf(sb, "earlytune_config_valid{");
		put_label(sb, "file", cfg->first_file ? cfg->first_file : "");
		sb_printf(sb, ",line=\"%d\",", cfg->first_line);
		put_label(sb, "message", cfg->first_msg);
		sb_printf(sb, "} 0\n");
	}
	put_head(sb, "earlytune_config_errors", "Lines rejected and files skipped in the configuration.");
	sb_printf(sb, "earlytune_config_errors %d\n", cfg->errors);
}

static void put_holds(struct strbuf *sb, const struct plan *p)
{
	put_head(sb, "earlytune_setting_holds",
		 "Whether a setting the configuration asks for is in force (1) or not: drifted, unmet, unknown or not applied (0).");
	for (size_t i = 0; i < p->n; i++) {
		const struct item *it = &p->v[i];
		enum verdict v = plan_verdict(p, it);

		if (v == V_NA)
			continue;
		sb_printf(sb, "earlytune_setting_holds{");
		put_label(sb, "domain", it->domain);
		put_label(sb, ",target", it->target);
		put_label(sb, ",setting", it->setting);
		sb_printf(sb, "} %d\n", v == V_HOLDS);
	}
}

static void put_counts(struct strbuf *sb, const struct plan *p)
{
	static const char *const actions[] = { "change", "keep", "skip", "error" };
	unsigned na[ARRAY_SIZE(actions)] = { 0 }, nv[V_COUNT] = { 0 };

	for (size_t i = 0; i < p->n; i++) {
		na[p->v[i].action]++;
		nv[plan_verdict(p, &p->v[i])]++;
	}
	put_head(sb, "earlytune_items", "Items verify checked, by the action apply would take.");
	for (size_t i = 0; i < ARRAY_SIZE(actions); i++)
		sb_printf(sb, "earlytune_items{action=\"%s\"} %u\n", actions[i], na[i]);
	put_head(sb, "earlytune_verify_items",
		 "Items verify checked, by verdict (unmet: this kernel cannot give it; unknown: the tree does not show whether it can; not_applied: earlytune has not applied since boot, or was reverted).");
	for (size_t i = 0; i < V_COUNT; i++)
		sb_printf(sb, "earlytune_verify_items{verdict=\"%s\"} %u\n", verdict_name(i), nv[i]);
	put_head(sb, "earlytune_drifted_items",
		 "Items earlytune applied that are no longer in force: changed by someone, or owned by another writer.");
	sb_printf(sb, "earlytune_drifted_items %u\n", nv[V_DRIFTED]);
	put_head(sb, "earlytune_unmet_items",
		 "Items this kernel cannot give (a module, scheduler or knob it lacks) or whose possibility is unknown: the configuration or the kernel must change, not the host.");
	sb_printf(sb, "earlytune_unmet_items %u\n", nv[V_UNMET] + nv[V_UNKNOWN]);
	put_head(sb, "earlytune_not_applied_items",
		 "Items not in force because earlytune has not applied since boot, or the system was reverted.");
	sb_printf(sb, "earlytune_not_applied_items %u\n", nv[V_NOT_APPLIED]);
}

static bool same_scope(const struct run *a, const struct run *b)
{
	return streq_ptr(a->scope, b->scope) && streq_ptr(a->names, b->names) && streq_ptr(a->only, b->only);
}

/* Failures still standing: those of the newest run of each scope (the
 * system, each disk, each interface), so that a later run of one disk
 * neither hides the boot run's failures nor keeps a fixed one alive. */
static unsigned failed_now(const struct runlog *log)
{
	unsigned n = 0;

	for (size_t i = log->n; i-- > 0;) {
		bool newer = false;

		for (size_t j = i + 1; j < log->n && !newer; j++)
			newer = same_scope(&log->v[i], &log->v[j]);
		if (!newer)
			n += log->v[i].failed;
	}
	return n;
}

static void put_runs(struct strbuf *sb, const struct runlog *log)
{
	const struct run *last = runlog_last(log, "apply");

	put_head(sb, "earlytune_reverted",
		 "Whether the newest run reverted the whole system (1): the kernel's own values are back.");
	sb_printf(sb, "earlytune_reverted %d\n", runlog_reverted(log) != NULL);
	put_head(sb, "earlytune_last_apply_timestamp_seconds",
		 "When the last apply ran, in Unix time; 0: earlytune has not run since boot.");
	sb_printf(sb, "earlytune_last_apply_timestamp_seconds %lld.%09lld\n", last ? last->time_ns / 1000000000LL : 0,
		  last ? last->time_ns % 1000000000LL : 0);
	put_head(sb, "earlytune_last_apply_duration_seconds", "How long the last apply took.");
	sb_printf(sb, "earlytune_last_apply_duration_seconds %lld.%06lld\n", last ? last->duration_us / 1000000 : 0,
		  last ? last->duration_us % 1000000 : 0);
	put_head(sb, "earlytune_failed_items",
		 "Items that failed in the newest apply of each scope (system, disk, interface) this boot.");
	sb_printf(sb, "earlytune_failed_items %u\n", failed_now(log));
}

/* name{kind,setting,quantity} value for each measured setting fn picks. */
static void put_gauge(struct strbuf *sb, const struct measured_set *ms, const char *name, const char *help,
		      int (*fn)(const struct measured *m, double *v))
{
	put_head(sb, name, help);
	for (size_t i = 0; i < ms->n; i++) {
		double v;

		if (!fn(&ms->v[i], &v))
			continue;
		sb_printf(sb, "%s{", name);
		put_label(sb, "kind", ms->v[i].kind ? ms->v[i].kind : "");
		put_label(sb, ",setting", ms->v[i].setting);
		put_label(sb, ",quantity", ms->v[i].quantity);
		sb_printf(sb, "} %.17g\n", v);
	}
}

static int predicted(const struct measured *m, double *v)
{
	*v = m->predicted;
	return 1;
}

static int before(const struct measured *m, double *v)
{
	*v = m->before;
	return 1;
}

static int after(const struct measured *m, double *v)
{
	*v = m->after;
	return m->checked != NULL;
}

static int held(const struct measured *m, double *v)
{
	*v = m->checked && !measured_failed(m);
	return m->checked != NULL;
}

/* The settings a measurement changed (their files outlive the boot): the
 * prediction, before, the newest check, and whether it held. Nothing when
 * there are none. */
static void put_measured(struct strbuf *sb, const struct ctx *c)
{
	struct measured_set ms;

	measured_load(c, &ms);
	if (ms.n) {
		put_gauge(sb, &ms, "earlytune_measured_predicted",
			  "What changing a measured setting was predicted to give (quantity throughput_bps: bit/s; "
			  "amplification: bytes read a byte touched; sequential_mibps: MiB/s).",
			  predicted);
		put_gauge(sb, &ms, "earlytune_measured_before", "The same measurement before the change.", before);
		put_gauge(sb, &ms, "earlytune_measured_after",
			  "The same measurement at the newest check (measure --verify); none before one.", after);
		put_gauge(sb, &ms, "earlytune_measured_held",
			  "Whether the newest check held the prediction or moved the limit off the setting (1) or failed (0).",
			  held);
	}
	measured_free(&ms);
}

static int render(const struct ctx *c, const struct plan *p, struct strbuf *sb)
{
	struct runlog log = { 0 };
	int r = runlog_load(&c->root, &log);

	if (r < 0 && r != -ENOENT) {
		log_msg(LOG_ERR, "--prometheus: cannot read %s/%s: %s", c->root.is_host ? "" : c->root.dir, RUNLOG_FILE,
			r == -EBADMSG ? "not a run log of this version" : strerror(-r));
		runlog_free(&log);
		return r;
	}
	put_head(sb, "earlytune_info", "earlytune's version, its profile and the running kernel.");
	sb_printf(sb, "earlytune_info{");
	put_label(sb, "version", EARLYTUNE_VERSION);
	put_label(sb, ",profile", c->cfg.profile);
	put_label(sb, ",kernel", c->kernel.release);
	sb_printf(sb, "} 1\n");
	put_config(sb, &c->cfg);
	if (p) {
		put_holds(sb, p);
		put_counts(sb, p);
	}
	put_runs(sb, &log);
	put_measured(sb, c);
	runlog_free(&log);
	return 0;
}

/* Where node_exporter's textfile collector is told to look, in the order
 * tried: Debian's and Ubuntu's prometheus-node-exporter package, then the
 * directory of Chef's and Puppet's modules and most guides, then the
 * prometheus-community Ansible role's default. */
static const char *const textfile_dirs[] = {
	"/var/lib/prometheus/node-exporter",
	"/var/lib/node_exporter/textfile_collector",
	"/var/lib/node_exporter",
};

static bool is_dir(const struct root *r, const char *path)
{
	int fd = root_openat(r, path + strspn(path, "/"), O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);

	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/* --prometheus FILE, or for `auto` earlytune.prom in [main] textfile_dir,
 * else in the first of the usual directories this root has. */
static int metrics_path(const struct ctx *c, char *buf, size_t size)
{
	const struct cfg_entry *e = config_get(&c->cfg, "main", NULL, "textfile_dir");

	if (strcmp(c->prometheus, "auto"))
		return pathf(buf, size, "%s", c->prometheus);
	if (e && *e->value)
		return pathf(buf, size, "%s/earlytune.prom", e->value);
	for (size_t i = 0; i < ARRAY_SIZE(textfile_dirs); i++)
		if (is_dir(&c->root, textfile_dirs[i]))
			return pathf(buf, size, "%s/earlytune.prom", textfile_dirs[i]);
	log_msg(LOG_ERR, "--prometheus auto: no textfile directory in %s/: none of %s, %s, %s; set [main] textfile_dir "
		"to node_exporter's --collector.textfile.directory", c->root.is_host ? "" : c->root.dir, textfile_dirs[0],
		textfile_dirs[1], textfile_dirs[2]);
	return -ENOENT;
}

/* 0, or -errno after one log line. p: verify's plan, or NULL when the
 * configuration is broken (no verdicts, the rest still written). */
int metrics_write(const struct ctx *c, const struct plan *p)
{
	struct strbuf sb = { 0 };
	char path[PATH_MAX];
	int r = metrics_path(c, path, sizeof(path));

	if (r == -ENAMETOOLONG)
		log_msg(LOG_ERR, "--prometheus: the path of the file is too long");
	if (r >= 0)
		r = render(c, p, &sb);
	if (r >= 0) {
		r = sb.oom ? -ENOMEM : root_write_atomic(&c->root, path + strspn(path, "/"), sb.s, sb.len, 0644);
		if (r < 0)
			log_msg(LOG_ERR, "--prometheus %s%s: %s", c->root.is_host ? "" : c->root.dir, path, strerror(-r));
	}
	sb_free(&sb);
	return r;
}

/* verify --prometheus with a configuration verify will not judge by: the
 * file still says so (earlytune_config_valid 0, and the run log), so that
 * a broken drop-in does not leave the last good file standing. */
int metrics_write_broken(const struct ctx *c)
{
	return c->prometheus && c->cfg.errors ? metrics_write(c, NULL) : 0;
}
