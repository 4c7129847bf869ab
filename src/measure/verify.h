/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * measure tcp --verify: the file --apply wrote read back (its setting, the
 * measurement before, the prediction, the selection), the same measurement
 * made again and judged against the prediction (verify.c: pure, for the
 * unit tests), the verdict kept on the file's comment lines (check.c), and
 * cmd_measure_tcp_verify (check.c). For measure/ and its tests only.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "earlytune.h"
#include "measure/internal.h"

/* The tolerance: a prediction holds when the throughput measured after is
 * at least this share of the predicted one. */
#define MT_TOLERANCE_PCT 75
/* A limit moved off the setting counts as the change working only when the
 * throughput rose by at least this much over before (percent). */
#define MT_RISE_PCT 125

#define MT_CONF_DIR "etc/sysctl.d"
#define MT_CONF_GLOB "60-earlytune-measure-tcp_*.conf"

enum mt_outcome { MO_HELD, MO_MOVED, MO_FAILED, MO_UNVERIFIED };

/* What a measure file keeps. */
struct mt_applied {
	char setting[64], value[128];
	char was[128];                 /* the value it replaced, "" unknown */
	uint64_t before_bps, before_inflight;
	uint64_t pred_bps, pred_inflight; /* pred_bps 0: no prediction */
	bool pred_floor;
	unsigned seconds, port;        /* the selection that measured it */
	char peer[64];
	/* The newest check: outcome MO_UNVERIFIED when none */
	enum mt_outcome outcome;
	char checked[32];              /* its date */
	uint64_t after_bps, after_inflight;
};

/* A check's result. */
struct mt_check {
	enum mt_outcome outcome;
	unsigned pct;          /* after over predicted, percent */
	enum mt_limit before, after;
	char why[400];
};

/* verify.c */
int mt_applied_parse(const char *text, struct mt_applied *a); /* 0, -EBADMSG: no setting line */
enum mt_limit mt_limit_of(const char *sysctl); /* the limit a setting relieves */
/* after: the connection measured again (NULL: none busy); in_force: the
 * setting reads as the file sets it (now: what it reads, for the words). */
void mt_judge(const struct mt_applied *a, const struct mt_verdict *after, bool in_force, const char *now,
	      struct mt_check *out);
const char *mt_outcome_name(enum mt_outcome o);
int mt_outcome_parse(const char *s); /* enum mt_outcome or -1 */
bool mt_same_value(const char *a, const char *b); /* equal but for white space */
/* rows.c: the files --apply wrote, by name (root-relative) */
int mt_conf_files(const struct root *r, const char *dir, const char *glob, char (**out)[256], size_t *n);

/* tcp's words of a check, after "HOST: " */
void mt_check_words(struct strbuf *line, const struct mt_check *k, const struct mt_verdict *after);
/* The file with its newest check line replaced by the one fill(data)
 * words (after "HOST: ", through "\n"). */
void mt_record_with(struct strbuf *out, const char *text, enum mt_outcome o, const char *host, long long when,
		    void (*fill)(struct strbuf *sb, const void *data), const void *data);
/* ... by tcp's */
void mt_record_check(struct strbuf *out, const char *text, const struct mt_check *k, const struct mt_verdict *after,
		     const char *host, long long when);
/* A check line read back: its outcome and date; what follows "HOST: ", NULL: no check line */
const char *mt_check_head(const char *line, enum mt_outcome *o, char *checked, size_t size);
/* check.c: mt_record_with's file written back in place (rel, whose text
 * is text); a failure is said (command names it), not returned */
struct root;
void mt_keep_check(const struct root *r, const char *rel, const char *text, enum mt_outcome o,
		   void (*fill)(struct strbuf *sb, const void *data), const void *data, const char *command);
