// SPDX-License-Identifier: LGPL-2.1-or-later
/* Recorded tcp_info samples and a host shared by measure/'s unit tests:
 * the worked case of a 1 Gbit/s, 100 ms path where a 4 MiB tcp_wmem leaves
 * ~3.5 MB in flight. */
#pragma once

#include <arpa/inet.h>

#include "unit.h"
#include "measure/internal.h"
#include "measure/report.h"

#define MSS 1448
#define SEC 1000000LL

/* A sample's counters at time t (µs): what the kernel's chrono stats and
 * byte counters read then. */
struct rec {
	long long t;
	uint64_t busy, rwnd, sndbuf, acked;
	uint32_t unacked, cwnd, min_rtt, snd_wnd, retrans, segs, sk_sndbuf;
	uint32_t queued; /* sk_wmem_queued; 0: not said */
	uint64_t rate;   /* delivery rate, bytes/s */
	bool app_limited;
	const char *cc;
};

static inline struct mt_sample mk(const struct rec *r)
{
	struct mt_sample s = { .cookie = 7, .family = AF_INET, .t_us = r->t, .info_len = sizeof(struct tcp_info) };

	s.ti.tcpi_snd_mss = MSS;
	s.ti.tcpi_busy_time = r->busy;
	s.ti.tcpi_rwnd_limited = r->rwnd;
	s.ti.tcpi_sndbuf_limited = r->sndbuf;
	s.ti.tcpi_bytes_acked = r->acked;
	s.ti.tcpi_unacked = r->unacked;
	s.ti.tcpi_snd_cwnd = r->cwnd;
	s.ti.tcpi_min_rtt = r->min_rtt;
	s.ti.tcpi_snd_wnd = r->snd_wnd;
	s.ti.tcpi_total_retrans = r->retrans;
	s.ti.tcpi_data_segs_out = r->segs;
	s.ti.tcpi_delivery_rate = r->rate;
	s.ti.tcpi_delivery_rate_app_limited = r->app_limited;
	snprintf(s.cc, sizeof(s.cc), "%s", r->cc ? r->cc : "cubic");
	s.sndbuf = r->sk_sndbuf;
	s.have_mem = r->sk_sndbuf != 0;
	s.queued = r->queued;
	s.have_queued = r->queued != 0;
	return s;
}

static inline void flow2(struct mt_flow *f, const struct rec *a, const struct rec *b)
{
	struct mt_sample s1 = mk(a), s2 = mk(b);

	memset(f, 0, sizeof(*f));
	mt_flow_add(f, &s1);
	mt_flow_add(f, &s2);
}

static inline struct mt_host host(void);

/* The verdict on the flow from a to b against host(). */
static inline void judge(const struct rec *a, const struct rec *b, struct mt_verdict *v)
{
	struct mt_host h = host();
	struct mt_flow f;

	flow2(&f, a, b);
	mt_interpret(&f, &h, v);
}

/* v names limit, suggests nothing, and says why (when given). */
static inline void expect_none(const struct mt_verdict *v, enum mt_limit limit, const char *why)
{
	assert_int_equal(v->limit, limit);
	assert_null(v->change.sysctl);
	if (why)
		assert_non_null(strstr(v->why, why));
}

/* tcp_mem 46000 62000 93000 pages, TCP holding 500 of them, 4 KiB pages,
 * bbr in tcp_available_congestion_control. */
static inline struct mt_host host(void)
{
	struct mt_host h = { .wmem = { 4096, 16384, 4194304 }, .rmem = { 4096, 131072, 6291456 },
			     .tcp_mem = { 46000, 62000, 93000 }, .mem_pages = 500, .have_wmem = true,
			     .have_rmem = true, .have_tcp_mem = true, .have_mem = true, .page = 4096, .bbr = 1 };

	snprintf(h.cc, sizeof(h.cc), "cubic");
	return h;
}

/* 10 s of the worked case: the send buffer waited on 9 s, 2417 segments
 * (3.5 MB) in flight of a 4 MiB buffer, 35 MB/s delivered. */
static const struct rec wa = { .t = 0, .busy = 0, .sndbuf = 0, .acked = 0, .unacked = 2417, .cwnd = 4834,
			       .min_rtt = 100000, .rate = 35000000, .app_limited = true, .sk_sndbuf = 4194304,
			       .segs = 0 };
static const struct rec wb = { .t = 10 * SEC, .busy = 10 * SEC, .sndbuf = 9 * SEC, .acked = 350000000,
			       .unacked = 2417, .cwnd = 4834, .min_rtt = 100000, .rate = 35000000,
			       .app_limited = true, .sk_sndbuf = 4194304, .segs = 241700 };


/* The worked case's --apply file, selection kept, into sb; v its verdict. */
static inline void worked_file_text(struct strbuf *sb, struct mt_verdict *v, const char *selection)
{
	struct mt_host h = host();
	struct mt_flow f;

	flow2(&f, &wa, &wb);
	snprintf(f.last.src, sizeof(f.last.src), "10.0.0.1:40000");
	snprintf(f.last.dst, sizeof(f.last.dst), "10.0.0.2:5201");
	mt_interpret(&f, &h, v);
	mt_sysctl_file(sb, &f, v, "backup1", 1764806400, "4096\t16384\t4194304", selection);
	assert_false(sb->oom);
}
