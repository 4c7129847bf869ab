// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * measure readahead: what the rounds mean. Pure: the unit tests feed it
 * recorded rounds.
 *
 * The model. A fault on a page that is not cached reads the read-around
 * window around it (read_ahead_kb, centred on the page; at least the page
 * itself); a page an earlier touch of the round brought in costs nothing.
 * For N touches spread uniformly over a region of R bytes, windows of w
 * bytes cover R·(1 − (1 − w/R)^N) of it, so a touch reads on average
 *
 *     bytes(w) = k · w · s(w),   s(w) = R·(1 − (1 − w/R)^N) / (N·w)
 *
 * where s is the share of a window not already read by the round (1 while
 * N·w is small against R) and k the share of the window the kernel really
 * reads (the window clipped at the region's ends, folios, the async part),
 * measured at the current read-ahead. The prediction at the candidate c is
 * k · c · s(c); amplification is bytes per touch over the page touched.
 * Where the page cache is smaller than what a round reads (a --max-bytes
 * beyond half the memory available, as the workload benchmark's round),
 * pages are evicted and read again: the read share of the region grows as
 * above only until it reaches the share the cache keeps (cap, counted with
 * mincore after the current round), then stays there, and each later
 * touch reads (1 − cap) of its window:
 *
 *     s(w) = (Σ_{i<m} (1 − w/R)^i + (N − m)·(1 − cap)) / N
 *
 * with m the touches before the cap is reached (all N without eviction:
 * the formula above).
 */
#include <stdio.h>
#include <string.h>

#include "measure/readahead.h"

/* (1 - p)^n by squaring: n is a count of touches, p a share. */
static double pow_n(double x, uint64_t n)
{
	double r = 1.0;

	while (n) {
		if (n & 1)
			r *= x;
		x *= x;
		n >>= 1;
	}
	return r;
}

double mr_union_share(double window, uint64_t touches, uint64_t region)
{
	return mr_share(window, touches, region, 1.0);
}

double mr_share(double window, uint64_t touches, uint64_t region, double cap)
{
	double p, q = 1.0, sum = 0;
	uint64_t m = 0;

	if (!touches || window <= 0 || !region)
		return 1.0;
	p = window / (double)region;
	if (p >= 1.0)
		return (double)region / ((double)touches * window);
	if (cap >= 1.0)
		return (double)region * (1.0 - pow_n(1.0 - p, touches)) / ((double)touches * window);
	for (; m < touches && 1.0 - q < cap; m++) {
		sum += q;
		q *= 1.0 - p;
	}
	return (sum + (double)(touches - m) * (1.0 - cap)) / (double)touches;
}

/* The share of the region the page cache kept through the round: 1 (no
 * limit) unless it kept less than nine tenths of what the device served,
 * that is evicted pages within the round; 1 too when it was not counted. */
double mr_cache_cap(const struct mr_round *r, uint64_t region, uint64_t page)
{
	double kept = (double)r->cached * (double)page;

	if (!r->done || !r->cached || !region || kept >= 0.9 * (double)r->dev_bytes)
		return 1.0;
	return kept < (double)region ? kept / (double)region : 1.0;
}

double mr_amplification(const struct mr_round *r, uint64_t page)
{
	if (!r->done || !r->touches || !page)
		return 0;
	return (double)r->dev_bytes / ((double)r->touches * (double)page);
}

static double window(unsigned ra_kb, uint64_t page)
{
	double w = (double)ra_kb * 1024.0;

	return w < (double)page ? (double)page : w;
}

double mr_predict_k(double k, unsigned kb, uint64_t touches, uint64_t region, uint64_t page, double cap)
{
	double w = window(kb, page), amp = k * w * mr_share(w, touches, region, cap) / (double)page;
	double floor = mr_share((double)page, touches, region, cap); /* a fault reads its own page */

	return amp < floor ? floor : amp;
}

/* The amplification the model gives the candidate, from the current round;
 * 0 when that round measured nothing. */
double mr_predict(const struct mr_round *cur, unsigned cand_kb, uint64_t region, uint64_t page)
{
	double w0 = window(cur->ra_kb, page), cap = mr_cache_cap(cur, region, page), k;

	if (!cur->done || !cur->touches || !cur->dev_bytes)
		return 0;
	k = (double)cur->dev_bytes / (double)cur->touches / (w0 * mr_share(w0, cur->touches, region, cap));
	return mr_predict_k(k, cand_kb, cur->touches, region, page, cap);
}

double mr_seq_mibps(const struct mr_round *r)
{
	return r->done && r->ns > 0 ? (double)r->bytes / 1048576.0 / ((double)r->ns / 1e9) : 0;
}

static void rates(const struct mr_rounds *m, struct mr_verdict *v, uint64_t page)
{
	for (int i = 0; i < 2; i++) {
		const struct mr_round *r = &m->rnd[i], *s = &m->seq[i];

		v->amp[i] = mr_amplification(r, page);
		v->touch_rate[i] = r->done && r->ns > 0 ? (double)r->touches / ((double)r->ns / 1e9) : 0;
		v->seq_mibps[i] = mr_seq_mibps(s);
		v->seq_req_kib[i] = s->done && s->dev_reqs ? (double)s->dev_bytes / 1024.0 / (double)s->dev_reqs : 0;
	}
}

/* The one change: a lower read-ahead where the measured amplification fell
 * as predicted; a higher one where sequential reads gained. */
static void decide(const struct mr_target *t, const struct mr_rounds *m, struct mr_verdict *v)
{
	bool cap = t->cand_kb < t->ra_kb;

	if (t->cand_kb == t->ra_kb) {
		snprintf(v->why, sizeof(v->why), "the read-ahead is already the candidate (%u KiB)", t->ra_kb);
	} else if (m->rnd[0].touches && !m->rnd[0].dev_bytes) {
		snprintf(v->why, sizeof(v->why), "%s served none of the touches (its stat did not move): they did not "
			 "reach it", t->dev);
	} else if (!v->amp[0] || !v->amp[1]) {
		snprintf(v->why, sizeof(v->why), "a random round touched nothing: no measurement to go by");
	} else if (cap && v->amp[1] <= v->amp[0] * 0.8) {
		v->suggest = true;
		snprintf(v->why, sizeof(v->why), "random reads pull %.1fx what they touch at %u KiB, %.1fx at %u KiB",
			 v->amp[0], t->ra_kb, v->amp[1], t->cand_kb);
	} else if (cap) {
		snprintf(v->why, sizeof(v->why), "the amplification does not fall by a fifth at %u KiB (%.1fx, %.1fx "
			 "at %u KiB): the read-ahead is not what random reads pay for", t->cand_kb, v->amp[1], v->amp[0],
			 t->ra_kb);
	} else if (v->seq_mibps[0] > 0 && v->seq_mibps[1] >= v->seq_mibps[0] * 1.1) {
		v->suggest = true;
		snprintf(v->why, sizeof(v->why), "sequential reads gain %.0f%% at %u KiB", -v->cost, t->cand_kb);
	} else {
		snprintf(v->why, sizeof(v->why), "sequential reads do not gain a tenth at %u KiB: the read-ahead is not "
			 "their limit", t->cand_kb);
	}
}

void mr_interpret(const struct mr_target *t, const struct mr_rounds *m, struct mr_verdict *v)
{
	memset(v, 0, sizeof(*v));
	rates(m, v, t->page);
	v->cache_cap = mr_cache_cap(&m->rnd[0], t->region, t->page);
	for (int i = 0; i < 2; i++)
		v->share[i] = mr_share(window(i ? t->cand_kb : t->ra_kb, t->page), m->rnd[0].touches, t->region,
				       v->cache_cap);
	if (v->amp[0] > 0)
		v->k = v->amp[0] * (double)t->page / (window(t->ra_kb, t->page) * v->share[0]);
	v->pred_amp = mr_predict(&m->rnd[0], t->cand_kb, t->region, t->page);
	v->touches = m->rnd[0].touches;
	if (v->pred_amp > 0 && v->amp[1] > 0) {
		v->pred_err = (v->amp[1] - v->pred_amp) / v->pred_amp * 100.0;
		v->held = v->pred_err <= MR_TOLERANCE && v->pred_err >= -MR_TOLERANCE;
	}
	if (v->seq_mibps[0] > 0 && v->seq_mibps[1] > 0)
		v->cost = (1.0 - v->seq_mibps[1] / v->seq_mibps[0]) * 100.0;
	decide(t, m, v);
}
