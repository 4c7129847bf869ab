/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What earlytune did: every apply leaves one record in the run log
 * (runlog.c writes it, runlog_read.c reads it back); `status` prints it (status.c) and `verify --prometheus` exports
 * it with verify's verdicts (metrics.c). Only engine/ includes it.
 */
#pragma once

#include <string.h>

#include "engine/engine.h"
#include "engine/internal.h"

#define RUNLOG_DIR "run/earlytune"
#define RUNLOG_FILE RUNLOG_DIR "/runs"   /* the current segment, appended to */
#define RUNLOG_OLD RUNLOG_FILE ".old"    /* the one before it */
#define RUNLOG_NEW RUNLOG_FILE ".new"    /* the next one, between rotate's renames */
/* The bound status shows: the newest runs that fit both limits; the newest
 * boot run of the whole system is kept whatever came after it. */
#define RUNLOG_MAX_RUNS 256
#define RUNLOG_MAX_BYTES (256 * 1024)
/* The current segment rotates before it passes half of that: the two hold
 * at most the bound (more only when one run alone is bigger). */
#define RUNLOG_SEGMENT_BYTES (RUNLOG_MAX_BYTES / 2)
/* Items of one run beyond this are counted, not recorded (failures first). */
#define RUNLOG_MAX_ITEMS 200
/* The SCOPE of a measurement's run (runlog_measurement): not an apply of
 * anything, so neither the boot run, a revert, nor "never ran". */
#define RUN_SCOPE_MEASUREMENT "measurement"

struct run_item {
	const char *outcome; /* failed, changed, unmet, skipped */
	const char *domain, *target, *setting, *current, *desired;
	const char *detail;  /* the error of a failure, else the reason */
	const char *source;
};

struct run {
	long long time_ns;      /* CLOCK_REALTIME */
	long long duration_us;
	const char *command, *scope, *names, *only, *note; /* names: '\n'-separated */
	bool boot;
	unsigned changed, kept, skipped, failed, config_errors, more;
	struct run_item *items;
	size_t nitems;
	size_t bytes; /* its lines in the log, for the bound */
};

struct runlog {
	struct run *v;
	size_t n, cap;
	size_t cur;                 /* the run an I line belongs to; SIZE_MAX: none */
	unsigned long long dropped; /* runs the bound removed since the log began */
	char *buf[2];               /* runs.old, runs: every string points into them */
	int old_err;                /* runs.old could not be read (-errno): its runs are missing */
};


/* runlog.c */
/* command: "apply" or "revert"; p: the plan it ran, NULL when earlytune=0
 * disabled it; err: its failure to read or record originals (-errno), or 0. */
void runlog_add(const struct ctx *c, const char *command, const struct plan *p, int err,
		const struct records *held);
static inline void runlog_append(const struct ctx *c, const struct plan *p, int err, const struct records *held)
{
	runlog_add(c, "apply", p, err, held);
}

/* runlog_read.c */
/* The runs of a segment (NUL-terminated) that no crash tore, oldest first:
 * fn gets each one's lines (its R or P line, then its I lines, newlines
 * and all), and may write within them. Returns the version its V line
 * names (1, 2; 0: none, a segment of another format, of which only the
 * second version's runs are read) or fn's first error; *dropped: the V
 * line's count of dropped runs. */
int runlog_runs(char *buf, int (*fn)(char *s, size_t len, void *data), void *data, unsigned long long *dropped);
int runlog_load(const struct root *r, struct runlog *log); /* 0, -ENOENT, -errno */
void runlog_free(struct runlog *log);
bool run_is_boot(const struct run *x);
bool run_is_measurement(const struct run *x);
const struct run *runlog_last(const struct runlog *log, const char *command);
const struct run *runlog_reverted(const struct runlog *log);
/* Whether earlytune's settings are meant to be in force here. */
enum ran { RAN_APPLIED, RAN_NEVER, RAN_REVERTED };
enum ran runlog_ran(const struct root *r, int *err); /* err: a segment that could not be read */

/* measured.c: the settings ctx.measured lists */
struct measured_set {
	struct measured *v;
	size_t n, cap;
	int err; /* a source could not list them (-errno) */
};
void measured_load(const struct ctx *c, struct measured_set *set);
void measured_free(struct measured_set *set);
bool measured_failed(const struct measured *m);
void measured_value(char *out, size_t size, const struct measured *m, double v);

/* metrics.c */
int metrics_write(const struct ctx *c, const struct plan *p);
