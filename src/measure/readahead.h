/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * measure readahead's own parts, for measure/ and its tests: the device and
 * its candidate (readahead.c), the rounds a child process runs on it
 * (readahead_probe.c), what the rounds mean (readahead_model.c: pure, fed
 * recorded rounds by the unit tests), the output and --apply's file
 * (readahead_report.c).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "earlytune.h"

/* One round at one read-ahead: random page touches, or a sequential read. */
struct mr_round {
	unsigned ra_kb;
	uint64_t touches;    /* random: pages touched through the mapping */
	uint64_t bytes;      /* sequential: bytes the program read */
	uint64_t dev_bytes;  /* what the device served: stat's sectors read × 512 */
	uint64_t dev_reqs;   /* stat's reads completed */
	uint64_t resident;   /* pages of the region still cached after the drop */
	uint64_t cached;     /* random: pages of the region cached after the round (what eviction left) */
	long long ns;        /* its duration */
	bool done;
};

/* Index 0: the read-ahead the device had; 1: the candidate. */
struct mr_rounds {
	struct mr_round rnd[2], seq[2];
	int err;             /* -errno of the probe's failure, 0 */
	char what[160];      /* what failed */
};

/* The device and how it is measured. */
struct mr_target {
	char dev[32];
	char devno[16];        /* MAJ:MIN */
	unsigned ra_kb;        /* the read-ahead it had: restored on every exit */
	unsigned cand_kb;
	char cand_from[256];   /* where the candidate comes from */
	char mount[256];       /* a filesystem of the device: the scratch file's directory ("": the device) */
	char fs_dev[32];       /* the disk or partition that holds it */
	char serial[64];       /* the disk's serial as match.serial reads it, "" none */
	uint64_t dev_bytes;    /* the disk's size */
	uint64_t region;       /* the bytes the touches fall in */
	uint64_t max_bytes;    /* --max-bytes: all rounds together read at most this */
	unsigned seconds;      /* --for: all rounds together */
	uint64_t page;
	bool is_host;          /* the host's root: the rounds may run */
	bool one;              /* --verify: only the rounds at ra_kb (a random one and a sequential one) */
	uint64_t touches;      /* the random rounds' touches at most; 0: the default */
};

#define MR_TOLERANCE 20 /* percent: how far the candidate's amplification may be from the prediction */

/* What the rounds mean. Amplification: bytes the device read per byte touched. */
struct mr_verdict {
	double amp[2];         /* measured, per round; 0: no touches */
	double touch_rate[2];  /* random touches a second */
	double k;              /* the share of the window the kernel read, at the current read-ahead */
	double share[2];       /* s: the share of a window the round had not read yet */
	double cache_cap;      /* the share of the region the page cache kept in the current round; 1: all it read */
	double pred_amp;       /* the model's amplification at the candidate */
	uint64_t touches;      /* the touches of the round it comes from */
	double pred_err;       /* percent, measured against predicted at the candidate */
	bool held;             /* within MR_TOLERANCE */
	double seq_mibps[2];   /* sequential MiB/s */
	double seq_req_kib[2]; /* KiB a read request */
	double cost;           /* percent of sequential throughput lost at the candidate (negative: gained) */
	bool suggest;          /* the candidate is the one change */
	char why[320];
};

/* readahead_target.c: the device, the candidate and the bounds (errors
 * said); the fd the rounds read (the scratch file or the device). */
struct measure_opts;
int mr_target_init(struct ctx *c, const struct measure_opts *o, struct mr_target *t);
int mr_open(const struct root *r, struct mr_target *t);

/* readahead_model.c */
double mr_union_share(double window, uint64_t touches, uint64_t region);
double mr_share(double window, uint64_t touches, uint64_t region, double cap);
double mr_cache_cap(const struct mr_round *r, uint64_t region, uint64_t page);
double mr_amplification(const struct mr_round *r, uint64_t page);
double mr_predict(const struct mr_round *cur, unsigned cand_kb, uint64_t region, uint64_t page);
/* The model's amplification at kb for k and a round of touches over region,
 * of which the page cache keeps the share cap (1: all the round reads) */
double mr_predict_k(double k, unsigned kb, uint64_t touches, uint64_t region, uint64_t page, double cap);
double mr_seq_mibps(const struct mr_round *r);
void mr_interpret(const struct mr_target *t, const struct mr_rounds *m, struct mr_verdict *v);

/* readahead_probe.c: the rounds on fd (the scratch file, written first, or
 * the device), run in a child; fills m. 0 or -errno. */
int mr_probe(const struct root *r, const struct mr_target *t, int fd, struct mr_rounds *m);

/* readahead_report.c */
void mr_report(const struct ctx *c, const struct mr_target *t, const struct mr_rounds *m,
	       const struct mr_verdict *v);
void mr_conf_file(struct strbuf *sb, const struct mr_target *t, const struct mr_verdict *v, const char *host,
		  long long when);
int mr_apply(const struct ctx *c, const struct mr_target *t, const struct mr_verdict *v);
/* where the touches fell, in words */
const char *mr_where(const struct mr_target *t, char *buf, size_t size);
/* "etc/earlytune.d/60-earlytune-measure-readahead-DEV.conf"; 0 or -ENAMETOOLONG */
int mr_conf_path(char *out, size_t size, const char *dev);
/* the run log's row of a measurement (outcome: measured, changed, failed) */
void mr_log_report(const struct ctx *c, const struct mr_target *t, const struct mr_verdict *v, const char *command,
		   const char *outcome);

/* readahead_target.c: the disk, its read-ahead and the bounds, without a
 * candidate (--verify's, whose candidate is the value in force) */
int mr_target_disk(struct ctx *c, const struct measure_opts *o, struct mr_target *t);
int mr_disk_name(const char *dev); /* 0, -EINVAL (said): no name of sys/block */
void mr_serial(const struct root *r, const char *dev, char *out, size_t size); /* "" none */

/* readahead.c: the rounds run and the read-ahead restored; 0, -EINTR
 * (a signal: mr_exit re-raises it), -errno (said) */
int mr_run(struct ctx *c, struct mr_target *t, struct mr_rounds *m);
int mr_exit(int e); /* the exit status for e; a signal that stopped the rounds ends the process by it */
