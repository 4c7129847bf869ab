/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* measure tcp's output (report.c): the text and the JSON; and what --apply
 * writes (apply.c). For measure/ and its tests only. */
#pragma once

#include "earlytune.h"
#include "measure/internal.h"

struct mt_report {
	unsigned seconds;
	struct mt_host host;
	struct mt_flow *flows;
	size_t nflows, cap;
};

void mt_report(const struct ctx *c, const struct mt_report *rep);
void mt_rate(char *out, size_t size, uint64_t bps);  /* "38.1 Mbit/s" */
void mt_bytes(char *out, size_t size, uint64_t b);   /* "186.7 KiB" */
/* tcp.c: the measurement over rep->seconds of the connections f selects */
int mt_measure(struct ctx *c, const struct mt_filter *f, struct mt_report *rep);

struct measure_opts;

/* apply.c: --apply, and the sysctl.d file's text (when: seconds since the
 * epoch; was: the value before, NULL when it could not be read; selection:
 * the options that measure the same connections again, "--for 10 --port
 * 5201"). *changed: the connection whose change it made (or failed to). */
int mt_apply(const struct ctx *c, const struct mt_report *rep, const struct measure_opts *o, size_t *changed);
void mt_sysctl_file(struct strbuf *sb, const struct mt_flow *f, const struct mt_verdict *v, const char *host,
		    long long when, const char *was, const char *selection);
void mt_selection(char *out, size_t size, unsigned seconds, const char *peer, unsigned port);
/* "etc/sysctl.d/60-earlytune-measure-KEY.conf" and "proc/sys/net/ipv4/KEY" for a sysctl */
void mt_conf_path(char *out, size_t size, const char *sysctl);
void mt_proc_path(char *out, size_t size, const char *sysctl);
/* UTC, as the files say it */
void mt_date(char *out, size_t size, long long when);
/* The original an earlier --apply's file names for sysctl: 1 with it in
 * out, 0 when there is none. */
int mt_earlier_was(const struct root *r, const char *sysctl, char *out, size_t size);
/* Sets rel to value now, then writes sb as path in dir; sets was back
 * (NULL: unknown, left) when the file cannot be written; said under
 * command's name. */
int m_keep_change(const struct root *r, const char *command, const char *what, const char *rel, const char *value,
		  const char *was, const char *dir, const char *path, const struct strbuf *sb);
/* ... for a sysctl: its sysctl.d file */
int mt_write_change(const struct root *r, const char *sysctl, const char *value, const char *was,
		    const struct strbuf *sb);

/* rows.c: the run log's record of a measurement (applied: the connection
 * --apply changed, SIZE_MAX none; failed: its change failed) */
void mt_log_report(const struct ctx *c, const struct mt_report *rep, const char *command, size_t applied,
		   bool failed);
