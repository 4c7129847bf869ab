/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Recorded rounds of measure readahead and a target to read them against:
 * test_readahead.c and test_readahead_verify.c. */
#pragma once

#include "measure/readahead.h"

#define KiB 1024ULL
#define MiB (1024ULL * 1024)
#define GiB (1024ULL * MiB)

static inline double absd(double x)
{
	return x < 0 ? -x : x;
}

static inline struct mr_round rnd(unsigned ra_kb, uint64_t touches, uint64_t per_touch)
{
	return (struct mr_round){ .ra_kb = ra_kb, .touches = touches, .dev_bytes = touches * per_touch,
				  .ns = 1000000000LL, .done = true };
}

static inline struct mr_round seq(unsigned ra_kb, uint64_t bytes, long long ns, uint64_t reqs)
{
	return (struct mr_round){ .ra_kb = ra_kb, .bytes = bytes, .dev_bytes = bytes, .dev_reqs = reqs, .ns = ns,
				  .done = true };
}

static inline struct mr_target target(unsigned ra, unsigned cand, uint64_t region)
{
	struct mr_target t = { .ra_kb = ra, .cand_kb = cand, .region = region, .page = 4096, .seconds = 20,
			       .max_bytes = GiB };

	snprintf(t.dev, sizeof(t.dev), "vdb");
	snprintf(t.cand_from, sizeof(t.cand_from), "--candidate");
	return t;
}

/* A cap measured on a 16 GiB region: the whole 8 MiB window read each
 * touch at 8192 KiB, 1088 KiB at 1024 KiB; sequential 256 -> 204.8 MiB/s. */
static inline struct mr_rounds cap_rounds(void)
{
	return (struct mr_rounds){ .rnd = { rnd(8192, 31, 8 * MiB), rnd(1024, 31, MiB + 64 * KiB) },
				   .seq = { seq(8192, 256 * MiB, 1000000000LL, 64),
					    seq(1024, 256 * MiB, 1250000000LL, 256) } };
}
