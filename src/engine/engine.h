/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The engine's commands and the output every command shares: for main.c,
 * the commands of other folders (cmdline/, image/verify.c, modules/) and
 * the engine's own files. The engine plans from the table of domains
 * (plan.c), applies (record → write → read back, apply.c), reverts and
 * forgets (revert.c), and prints (output.c, table.c, jsoncmd.c); it knows
 * domains only through their rows (domain.h).
 */
#pragma once

#include <stdbool.h>

#include "earlytune.h"

/* ---- the commands: plan.c, apply.c, revert.c, status.c ---- */
int cmd_plan(struct ctx *c, bool only_changes); /* only_changes: --changes */
int cmd_apply(struct ctx *c);
int cmd_verify(struct ctx *c);
int metrics_write_broken(const struct ctx *c); /* verify --prometheus, the configuration broken */
int cmd_revert(struct ctx *c);
int cmd_forget(struct ctx *c);
/* last: the newest N runs (0: all); failed: the runs with a failed item,
 * and of them only those items. */
int cmd_status(struct ctx *c, unsigned last, bool failed);

/* ---- measurements: a command that measures before it changes a setting
 * (a row of commands.c's measured_sources, in ctx.measured) records its runs in the run log
 * (runlog.c) and lists the settings it changed, which status and the
 * Prometheus export show. The engine knows them only as these rows. ---- */
struct measure_row {
	const char *outcome; /* measured, changed, failed; a check's held, moved, unverified */
	const char *domain, *target, *setting, *current, *desired, *detail;
};
/* One run of command in the run log: its rows, changed and failed counted. */
void runlog_measurement(const struct ctx *c, const char *command, const struct measure_row *rows, size_t n);

/* A setting a measurement changed and its newest check. */
struct measured {
	const char *kind;     /* the measurement: "tcp", "readahead" */
	const char *setting, *value, *file; /* file: root-relative */
	const char *verdict;  /* held, moved, failed; unverified: no check yet */
	const char *checked;  /* the check's date, NULL: none */
	const char *quantity; /* what the numbers are: "throughput_bps", "amplification" */
	double before, predicted, after; /* after < 0: no check */
};
struct measured_source {
	const char *command; /* the command that writes them: "measure tcp" */
	/* emit(m, data) for each such setting below the root; -errno when
	 * they cannot be listed */
	int (*list)(const struct root *r, void (*emit)(const struct measured *m, void *data), void *data);
};

/* ---- output.c: every command's JSON object starts with json_head and
 * goes out through json_emit (main prints an error object otherwise) ---- */
void json_head(struct strbuf *sb, const struct ctx *c, const char *command);
void json_field(struct strbuf *sb, const char *name, const char *value);
void json_words(struct strbuf *sb, const char *name, const char *list); /* jsoncmd.c */
void json_emit(struct strbuf *sb);
bool json_emitted(void);

/* ---- jsoncmd.c: --json of the commands that print no item table ---- */
void config_json(const struct ctx *c);
void sysctl_conf_json(const struct ctx *c);
void print_json_error(const struct ctx *c, const char *command, int code);

/* ---- table.c ---- */
int table_columns(void);
