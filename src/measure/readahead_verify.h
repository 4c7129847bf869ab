/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * measure readahead --verify: the file --apply wrote read back
 * (readahead_verify.c: pure, for the unit tests and the fuzz harness), the
 * same rounds again at the value in force judged against it, the verdict
 * kept on the file's comment lines (readahead_check.c). The verdicts are
 * measure tcp's (verify.h). For measure/ and its tests only.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "measure/readahead.h"
#include "measure/verify.h"

#define MR_CONF_DIR "etc/earlytune.d"
#define MR_CONF_GLOB "60-earlytune-measure-readahead-*.conf"

/* What the file keeps. */
struct mr_applied {
	char dev[32];            /* match.name */
	char serial[128];        /* match.serial as written: one pattern, "" none (a disk without one, or a file
				  * from before the serial was kept) */
	unsigned value_kb;       /* read_ahead_kb the section sets */
	unsigned before_kb;      /* the read-ahead it replaced */
	double before_amp, before_seq;
	double pred_amp, k, pred_seq; /* pred_amp 0: no prediction */
	uint64_t touches;        /* the touches the prediction is for */
	unsigned seconds;        /* the bounds of the same measurement */
	uint64_t max_bytes;
	/* The newest check: outcome MO_UNVERIFIED when none */
	enum mt_outcome outcome;
	char checked[32];
	double after_amp, after_seq;
};

/* A check's result. */
struct mr_check {
	enum mt_outcome outcome;
	double pred_amp;         /* the prediction for the touches of the round after */
	double amp, err;         /* measured after; percent off pred_amp */
	double seq;              /* MiB/s after */
	unsigned seq_pct;        /* of pred_seq */
	char why[480];
};

int mr_applied_parse(const char *text, struct mr_applied *a); /* 0, -EBADMSG: no read_ahead_kb line */
/* Whether serial (the disk's now, "" none) is the one a's section matches,
 * as match.serial matches it; a file that keeps none matches any. */
bool mr_serial_matches(const struct mr_applied *a, const char *serial);
/* a's match.serial as the disk showed it (the escapes --apply wrote undone) */
void mr_serial_shown(const struct mr_applied *a, char *out, size_t size);
/* rnd, seq: the rounds after (NULL: not measured); in_force: the disk's
 * read-ahead is the file's (now_kb: what it reads); region, page: the
 * rounds' */
void mr_judge(const struct mr_applied *a, const struct mr_round *rnd, const struct mr_round *seq, uint64_t region,
	      uint64_t page, bool in_force, unsigned now_kb, struct mr_check *k);
/* The words after "HOST: " of the check line */
void mr_check_words(struct strbuf *sb, const struct mr_check *k);
void mr_record_check(struct strbuf *out, const char *text, const struct mr_check *k, const char *host,
		     long long when);
