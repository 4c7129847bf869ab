// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What a connection's samples say: the kernel's chrono stats (4.9+) split
 * the time it had data to send into waits on the send buffer, on the
 * peer's receive window, and the rest (the congestion window, the path);
 * the time it had nothing to send is the application's. The largest share
 * is the limit. Only a limit a setting controls gets a change, with its
 * prediction (throughput ≈ min(link, usable buffer / RTT); the link is
 * known only where the congestion window is the limit) and its cost
 * (tcp_mem pages against what TCP holds now). Pure: the unit tests feed it
 * recorded samples.
 */
#include <stdio.h>
#include <string.h>

#include "measure/internal.h"

#define SHARE_SNDBUF 0
#define SHARE_RWND 1
#define SHARE_CWND 2
#define SHARE_APP 3
#define BUF_CAP (1ULL << 30)   /* no suggestion past 1 GiB of buffer per socket */

const char *mt_limit_name(enum mt_limit l)
{
	static const char *const names[] = { "idle", "unknown", "send buffer", "receive window",
					     "congestion window", "application" };

	return names[l];
}

static uint64_t delta(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

static uint64_t pow2_at_least(uint64_t v)
{
	uint64_t p = 1;

	while (p < v && p < BUF_CAP)
		p <<= 1;
	return p;
}

/* Whether the send buffer, not the application, is why a rate sample was
 * application-limited. The kernel marks a sample so whenever the write
 * queue ran dry below the cwnd, and starts its send-buffer clock only when
 * it ran dry while the writer waited; a writer that waits on poll (or is
 * woken) only once a third of the buffer is free leaves it between two
 * thirds and full, and the kernel paces its last write out before it wakes.
 * An application that writes less than the path carries holds what it
 * sends in flight, a fraction of a buffer autotuned to twice the cwnd.
 * (A kernel that sends the queued bytes sends the buffer's size too.) */
static bool buffer_full(const struct mt_sample *s)
{
	return s->have_queued && s->sndbuf && (uint64_t)s->queued * 2 >= s->sndbuf;
}

void mt_flow_add(struct mt_flow *f, const struct mt_sample *s)
{
	if (!f->n)
		f->first = *s;
	f->last = *s;
	f->n++;
	f->sum_unacked += s->ti.tcpi_unacked;
	if (s->have_queued) {
		f->sum_queued += s->queued;
		f->n_queued++;
	}
	if (mt_has(s, tcpi_delivery_rate) && s->ti.tcpi_delivery_rate_app_limited) {
		f->app_limited++;
		f->buf_held += buffer_full(s);
	}
	/* A rate sample the application limited says nothing of the link. */
	if (mt_has(s, tcpi_delivery_rate) && !s->ti.tcpi_delivery_rate_app_limited &&
	    s->ti.tcpi_delivery_rate > f->link_Bps)
		f->link_Bps = s->ti.tcpi_delivery_rate;
}

/* A double as a count, saturated: counters come from the kernel, or from
 * anything, and converting a value past the range is undefined. */
static uint64_t count(double d)
{
	return d <= 0 ? 0 : d >= 9e18 ? (uint64_t)9e18 : (uint64_t)d;
}

/* bytes per second over us microseconds, in bits per second */
static uint64_t bps(uint64_t bytes, uint64_t us)
{
	return us ? count((double)bytes * 8e6 / (double)us) : 0;
}

static void basics(const struct mt_flow *f, struct mt_verdict *v, uint64_t dt)
{
	const struct tcp_info *a = &f->first.ti, *b = &f->last.ti;
	uint32_t mss = b->tcpi_snd_mss;

	if (mt_has(&f->last, tcpi_bytes_acked))
		v->rate_bps = bps(delta(a->tcpi_bytes_acked, b->tcpi_bytes_acked), dt);
	if (mt_has(&f->last, tcpi_delivery_rate))
		v->delivery_bps = count((double)b->tcpi_delivery_rate * 8);
	v->link_bps = count((double)f->link_Bps * 8);
	if (mt_has(&f->last, tcpi_min_rtt))
		v->min_rtt_us = b->tcpi_min_rtt;
	v->bdp = count((double)(v->link_bps ? v->link_bps : v->delivery_bps) / 8 * v->min_rtt_us / 1e6);
	v->cwnd_bytes = (uint64_t)b->tcpi_snd_cwnd * mss;
	/* Scaled before the division: a small window's one or two segments
	 * must not lose half a segment to the truncation. */
	v->inflight = f->n ? f->sum_unacked * mss / f->n : 0;
	v->queued = f->n_queued ? f->sum_queued / f->n_queued : 0;
	if (mt_has(&f->last, tcpi_notsent_bytes))
		v->notsent = b->tcpi_notsent_bytes;
	v->retrans = (uint32_t)delta(a->tcpi_total_retrans, b->tcpi_total_retrans);
	if (mt_has(&f->last, tcpi_data_segs_out))
		v->segs = (uint32_t)delta(a->tcpi_data_segs_out, b->tcpi_data_segs_out);
}

/* The throughput inflight bytes give at the min RTT, no more than the link. */
static void predict(struct mt_verdict *v, uint64_t inflight)
{
	struct mt_change *c = &v->change;

	c->pred_inflight = v->link_bps && v->bdp && inflight > v->bdp ? v->bdp : inflight;
	c->pred_bps = bps(c->pred_inflight, v->min_rtt_us);
	if (v->link_bps && c->pred_bps > v->link_bps)
		c->pred_bps = v->link_bps;
}

/* Each such flow may hold its whole buffer: how many fit below the
 * pressure threshold (tcp_mem's second value) beside what TCP holds now. */
static void cost(const struct mt_host *h, uint64_t buffer, struct mt_change *c)
{
	c->flow_pages = (buffer + h->page - 1) / h->page;
	if (!h->have_tcp_mem || !h->have_mem || c->on_peer)
		return;
	c->have_cost = true;
	c->flows = h->tcp_mem[1] > h->mem_pages ? (h->tcp_mem[1] - h->mem_pages) / c->flow_pages : 0;
}

static void sndbuf_change(const struct mt_flow *f, const struct mt_host *h, struct mt_verdict *v)
{
	const struct mt_sample *b = &f->last;
	unsigned long long cur = h->wmem[2], target = cur * 4;
	uint64_t holds;

	if (!h->have_wmem || !b->have_mem || !b->sndbuf) {
		snprintf(v->why, sizeof(v->why), "the send buffer; its size or tcp_wmem could not be read: no change");
		return;
	}
	/* Autotuning grows a socket's buffer up to tcp_wmem's max; one set
	 * with SO_SNDBUF stays where the application put it. */
	if (b->sndbuf < cur / 4 * 3 || b->sndbuf > cur) {
		snprintf(v->why, sizeof(v->why),
			 "the send buffer, the application's own (SO_SNDBUF: %u bytes; tcp_wmem's max %llu applies "
			 "to sockets that set none): the application's setting, no sysctl", b->sndbuf, h->wmem[2]);
		return;
	}
	if (target > BUF_CAP)
		target = BUF_CAP;
	if (target <= cur) {
		snprintf(v->why, sizeof(v->why), "the send buffer, already at %llu bytes: no larger one suggested", cur);
		return;
	}
	v->change.sysctl = "net.ipv4.tcp_wmem";
	snprintf(v->change.value, sizeof(v->change.value), "%llu %llu %llu", h->wmem[0], h->wmem[1],
		 (unsigned long long)target);
	/* The share of what the buffer holds that is in flight stays what it
	 * is now. What it holds may pass sk_sndbuf by one skb (the kernel
	 * tests for room before each write's next skb): an overshoot of the
	 * writer's, which a larger buffer does not scale. */
	holds = v->queued > b->sndbuf ? v->queued : b->sndbuf;
	predict(v, count((double)v->inflight * (double)target / (double)holds));
	cost(h, target, &v->change);
	snprintf(v->why, sizeof(v->why),
		 "the send buffer: the application waiting for room %u.%u%% of the window, "
		 "%llu bytes in flight of a %u-byte buffer (tcp_wmem's max %llu)", v->share[SHARE_SNDBUF] / 10,
		 v->share[SHARE_SNDBUF] % 10, (unsigned long long)v->inflight, b->sndbuf, cur);
}

static void rwnd_change(const struct mt_flow *f, const struct mt_host *h, struct mt_verdict *v)
{
	const struct mt_sample *b = &f->last;
	uint64_t wnd = b->ti.tcpi_snd_wnd, target;

	if (!mt_has(b, tcpi_snd_wnd)) {
		snprintf(v->why, sizeof(v->why), "the receive window (this kernel does not say the peer's window: no change)");
		return;
	}
	if (wnd < 2ULL * (b->ti.tcpi_snd_mss ? b->ti.tcpi_snd_mss : 1)) {
		snprintf(v->why, sizeof(v->why),
			 "the receive window: the peer offers %llu bytes, its application is not reading; no setting "
			 "on either host changes that", (unsigned long long)wnd);
		return;
	}
	target = wnd * 4;
	v->change.sysctl = "net.ipv4.tcp_rmem";
	v->change.on_peer = true;
	/* A receiver advertises about half its buffer (tcp_adv_win_scale). */
	snprintf(v->change.value, sizeof(v->change.value), "%llu %llu %llu", h->have_rmem ? h->rmem[0] : 4096,
		 h->have_rmem ? h->rmem[1] : 131072, (unsigned long long)pow2_at_least(target * 2));
	predict(v, target);
	cost(h, pow2_at_least(target * 2), &v->change);
	snprintf(v->why, sizeof(v->why),
		 "the receive window: the peer's window of %llu bytes held the connection %u.%u%% of the window; "
		 "the peer's tcp_rmem sets it, on the other host", (unsigned long long)wnd, v->share[SHARE_RWND] / 10,
		 v->share[SHARE_RWND] % 10);
}

/* bbr where the kernel may lack it: none suggested where it has none
 * (a sysctl.d file naming it would fail at every boot), what to install
 * said instead; a module or an unknown said beside the change. */
static bool bbr_lacking(const struct mt_host *h, struct mt_verdict *v, const char *cc)
{
	if (h->bbr != 0)
		return false;
	v->change.lacking = "bbr";
	snprintf(v->why, sizeof(v->why),
		 "the congestion window on a lossy path: %s with %u retransmits in %u segments cuts its window at "
		 "each loss; bbr would not, but it is not available here (%s): no change; a kernel built with "
		 "CONFIG_TCP_CONG_BBR (=m, its tcp_bbr module installed, or =y) offers it", cc, v->retrans, v->segs,
		 h->bbr_why);
	return true;
}

static void cwnd_change(const struct mt_flow *f, const struct mt_host *h, struct mt_verdict *v)
{
	const char *cc = f->last.cc[0] ? f->last.cc : h->cc;
	bool lossy = v->retrans && (uint64_t)v->retrans * 1000 >= v->segs;
	int n;

	if (!lossy || (strcmp(cc, "cubic") && strcmp(cc, "reno"))) {
		snprintf(v->why, sizeof(v->why),
			 "the congestion window (%s, %u retransmits in %u segments): the path itself; nothing a setting "
			 "controls", *cc ? cc : "?", v->retrans, v->segs);
		return;
	}
	if (bbr_lacking(h, v, cc))
		return;
	v->change.sysctl = "net.ipv4.tcp_congestion_control";
	snprintf(v->change.value, sizeof(v->change.value), "bbr");
	/* The best rate cubic reached between its cuts: bbr keeps at least that. */
	predict(v, v->bdp);
	v->change.pred_floor = true;
	n = snprintf(v->why, sizeof(v->why),
		     "the congestion window on a lossy path: %s with %u retransmits in %u segments cuts its window at "
		     "each loss; bbr paces at the measured bottleneck rate and min RTT and does not take random loss "
		     "for congestion", cc, v->retrans, v->segs);
	if (n <= 0 || (size_t)n >= sizeof(v->why))
		return;
	if (h->bbr == 2)
		snprintf(v->why + n, sizeof(v->why) - (size_t)n, "; tcp_bbr is a module the kernel loads when the "
			 "sysctl names it");
	else if (h->bbr == 3)
		snprintf(v->why + n, sizeof(v->why) - (size_t)n, "; whether this kernel has bbr is unknown (%s): "
			 "--apply sets it first, and a kernel without it refuses and leaves no file", h->bbr_why);
}

/* Whether the peer's window holds the connection where the kernel's
 * window test did not see it: pacing and small queues hold a send back
 * before that test would mark it. A window below the cwnd (bbr keeps a
 * cwnd of twice what it sends) that what is in flight fills to within an
 * eighth, or two segments (a sender sends whole segments, and a delayed
 * ACK frees two: a window of 2.5 carries 2, which 1.5 in flight fill). A
 * sender its own qdisc holds at the link's rate leaves more of it free. */
static bool window_full(const struct mt_verdict *v, const struct mt_sample *b)
{
	uint32_t mss = b->ti.tcpi_snd_mss ? b->ti.tcpi_snd_mss : 1;
	uint64_t usable, free, slack;

	if (!mt_has(b, tcpi_snd_wnd) || b->ti.tcpi_snd_wnd >= v->cwnd_bytes)
		return false;
	usable = b->ti.tcpi_snd_wnd / mss * mss;
	free = usable > v->inflight ? usable - v->inflight : 0;
	slack = usable / 8 > 2ULL * mss ? usable / 8 : 2ULL * mss;
	return free <= slack;
}

/* The shares of the window, in permille; the largest names the limit.
 * The kernel counts as busy all the time data is unacked or unsent, and
 * splits off only the waits on the send buffer and on the peer's window
 * that stop a send outright. The rest of busy is the application's in the
 * proportion of samples whose rate the kernel marked application-limited
 * (it wrote less than the window allowed: busy only because the RTT is
 * longer than its pauses), the send buffer's where such a sample found the
 * buffer at least half full (buffer_full); the remainder the peer's
 * window's where window_full holds, else the congestion window's. */
static enum mt_limit shares(struct mt_verdict *v, const struct mt_flow *f, uint64_t dt, uint64_t busy,
			    uint64_t rwnd, uint64_t sndbuf)
{
	double part[4], total, rest = (double)busy - (double)rwnd - (double)sndbuf, app, held;
	bool window = window_full(v, &f->last);
	enum mt_limit l = MT_SNDBUF;

	rest = rest > 0 ? rest : 0;
	held = rest * f->buf_held / f->n;
	app = rest * (f->app_limited - f->buf_held) / f->n;
	part[SHARE_SNDBUF] = (double)sndbuf + held;
	part[SHARE_RWND] = (double)rwnd + (window ? rest - app - held : 0);
	part[SHARE_CWND] = window ? 0 : rest - app - held;
	part[SHARE_APP] = (double)delta(busy, dt) + app;
	total = part[0] + part[1] + part[2] + part[3];
	for (int i = 0; i < 4; i++) {
		v->share[i] = (unsigned)(part[i] * 1000 / total);
		if (part[i] > part[l - MT_SNDBUF])
			l = (enum mt_limit)(MT_SNDBUF + i);
	}
	return l;
}

void mt_interpret(const struct mt_flow *f, const struct mt_host *h, struct mt_verdict *v)
{
	const struct tcp_info *a = &f->first.ti, *b = &f->last.ti;
	uint64_t dt = f->last.t_us > f->first.t_us ? (uint64_t)(f->last.t_us - f->first.t_us) : 0;
	uint64_t busy;

	memset(v, 0, sizeof(*v));
	v->limit = MT_UNKNOWN;
	basics(f, v, dt);
	if (!mt_has(&f->last, tcpi_sndbuf_limited)) {
		snprintf(v->why, sizeof(v->why),
			 "this kernel's tcp_info (%zu bytes) has no busy, receive-window and send-buffer times (4.9+)",
			 f->last.info_len);
		return;
	}
	busy = delta(a->tcpi_busy_time, b->tcpi_busy_time);
	if (f->n < 2 || !dt) {
		snprintf(v->why, sizeof(v->why), "seen in one sample: no window to compare");
		return;
	}
	if (!busy && !delta(a->tcpi_bytes_acked, b->tcpi_bytes_acked)) {
		v->limit = MT_IDLE;
		snprintf(v->why, sizeof(v->why), "idle: nothing sent in the window");
		return;
	}
	v->limit = shares(v, f, dt > busy ? dt : busy, busy, delta(a->tcpi_rwnd_limited, b->tcpi_rwnd_limited),
			  delta(a->tcpi_sndbuf_limited, b->tcpi_sndbuf_limited));
	/* A rate sample of a connection that a buffer, the peer's window or
	 * the application holds back measures that limit, not the link. */
	if (v->limit != MT_CWND) {
		v->link_bps = 0;
		v->bdp = count((double)v->delivery_bps / 8 * v->min_rtt_us / 1e6);
	}
	if (v->limit == MT_SNDBUF)
		sndbuf_change(f, h, v);
	else if (v->limit == MT_RWND)
		rwnd_change(f, h, v);
	else if (v->limit == MT_CWND)
		cwnd_change(f, h, v);
	else
		snprintf(v->why, sizeof(v->why),
			 "the application: nothing to send %u.%u%% of the window; nothing a setting controls",
			 v->share[SHARE_APP] / 10, v->share[SHARE_APP] % 10);
}
