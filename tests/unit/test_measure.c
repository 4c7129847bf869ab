// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * measure/: what recorded tcp_info samples mean (each limit, the change a
 * setting makes, its prediction and cost; a short tcp_info, a zero RTT, an
 * idle connection, a buffer the application set), the sock_diag answer
 * parsed (every message in a heap block of exactly its length), and the
 * host's files read through a tree. The worked case: a 1 Gbit/s, 100 ms
 * path where a 4 MiB tcp_wmem leaves ~3.5 MB in flight.
 */
#include <linux/inet_diag.h>
#include <linux/sock_diag.h>
#include <arpa/inet.h>

#include "unit.h"
#include "measure_fx.h"
#include "base/root.h"
#include "measure/internal.h"
#include "measure/report.h"

static void test_sndbuf_worked_case(void **state)
{
	struct mt_host h = host();
	struct mt_flow f;
	struct mt_verdict v;

	flow2(&f, &wa, &wb);
	mt_interpret(&f, &h, &v);
	assert_int_equal(v.limit, MT_SNDBUF);
	assert_int_equal(v.share[0], 900);
	/* The rest of busy, every rate sample application-limited: the application's. */
	assert_int_equal(v.share[3], 100);
	assert_int_equal(v.rate_bps, 280000000);
	assert_int_equal(v.min_rtt_us, 100000);
	assert_int_equal(v.inflight, 2417 * MSS);
	assert_int_equal(v.cwnd_bytes, 4834 * MSS);
	assert_int_equal(v.link_bps, 0); /* every rate sample application-limited */
	assert_string_equal(v.change.sysctl, "net.ipv4.tcp_wmem");
	assert_string_equal(v.change.value, "4096 16384 16777216");
	assert_false(v.change.on_peer);
	/* 4× the buffer, the same share of it in flight: 14 MB over 100 ms. */
	assert_in_range(v.change.pred_inflight, 13990000, 14010000);
	assert_in_range(v.change.pred_bps, 1119000000, 1121000000);
	/* 16 MiB a flow is 4096 pages; 61500 below the threshold: 15 flows. */
	assert_int_equal(v.change.flow_pages, 4096);
	assert_true(v.change.have_cost);
	assert_int_equal(v.change.flows, 15);
	assert_non_null(strstr(v.why, "the send buffer"));
}

/* The same with one rate sample not limited by the application: while the
 * send buffer holds the connection back it measures the buffer, not the
 * link, and the prediction does not stop at it. */
static void test_sndbuf_rate_sample(void **state)
{
	struct mt_host h = host();
	struct rec mid = wb;
	struct mt_sample s1 = mk(&wa), s2, s3 = mk(&wb);
	struct mt_flow f = { 0 };
	struct mt_verdict v;

	mid.t = 5 * SEC, mid.busy = 5 * SEC, mid.sndbuf = 4 * SEC, mid.acked = 175000000;
	mid.rate = 40000000, mid.app_limited = false;
	s2 = mk(&mid);
	mt_flow_add(&f, &s1);
	mt_flow_add(&f, &s2);
	mt_flow_add(&f, &s3);
	assert_int_equal(f.link_Bps, 40000000);
	mt_interpret(&f, &h, &v);
	assert_int_equal(v.limit, MT_SNDBUF);
	assert_int_equal(v.link_bps, 0);
	assert_int_equal(v.bdp, 3500000);
	assert_string_equal(v.change.value, "4096 16384 16777216");
	assert_in_range(v.change.pred_bps, 1119000000, 1121000000);
}

/* A buffer the application set (SO_SNDBUF) is no sysctl's. */
static void test_sndbuf_application_set(void **state)
{
	struct rec a = wa, b = wb;
	struct mt_verdict v;

	a.sk_sndbuf = b.sk_sndbuf = 32768;
	judge(&a, &b, &v);
	expect_none(&v, MT_SNDBUF, "SO_SNDBUF: 32768");
}

static void test_rwnd(void **state)
{
	struct rec a = wa, b = wb;
	struct mt_verdict v;

	a.snd_wnd = b.snd_wnd = 65536;
	a.app_limited = b.app_limited = false;
	b.sndbuf = 0, b.rwnd = 8 * SEC;
	judge(&a, &b, &v);
	assert_int_equal(v.limit, MT_RWND);
	/* The rest of busy too: the window (64 KiB) is below the cwnd (6.7 MB). */
	assert_int_equal(v.share[1], 1000);
	assert_string_equal(v.change.sysctl, "net.ipv4.tcp_rmem");
	assert_true(v.change.on_peer);
	/* 4× the window; the receiver's buffer twice that. */
	assert_string_equal(v.change.value, "4096 131072 524288");
	assert_int_equal(v.change.pred_inflight, 262144);
	assert_false(v.change.have_cost);
	assert_int_equal(v.change.flow_pages, 128);
	assert_non_null(strstr(v.why, "on the other host"));

	/* Pacing held most sends back before the window test: still the window. */
	b.rwnd = 3 * SEC;
	judge(&a, &b, &v);
	assert_int_equal(v.limit, MT_RWND);

	/* A window of 2.56 segments (3712 bytes) carries two; bbr's pacing
	 * holds half the sends back before the window test, and one or two
	 * are in flight, 1.5 on average: still the window, not bbr's cwnd. */
	a.snd_wnd = b.snd_wnd = 3712, a.cwnd = b.cwnd = 12, a.cc = b.cc = "bbr";
	a.unacked = 1, b.unacked = 2;
	b.rwnd = 48 * SEC / 10;
	judge(&a, &b, &v);
	assert_int_equal(v.limit, MT_RWND);
	assert_int_equal(v.inflight, 3 * MSS / 2);
	assert_non_null(strstr(v.why, "window of 3712 bytes"));

	/* A window closed: the receiving application, no setting. */
	b.snd_wnd = 0;
	judge(&a, &b, &v);
	expect_none(&v, MT_RWND, "not reading");
}

static void test_application(void **state)
{
	struct rec a = wa, b = wb;
	struct mt_verdict v;

	b.busy = 1 * SEC, b.sndbuf = 0;
	judge(&a, &b, &v);
	assert_int_equal(v.limit, MT_APP);
	assert_int_equal(v.share[3], 1000);
	assert_null(v.change.sysctl);

	/* Busy the whole window (its pauses shorter than the RTT) but every
	 * rate sample application-limited: still the application. */
	b.busy = 10 * SEC;
	judge(&a, &b, &v);
	expect_none(&v, MT_APP, "nothing a setting controls");
}

static void test_cwnd_and_loss(void **state)
{
	struct rec a = wa, b = wb;
	struct mt_verdict v;

	a.app_limited = b.app_limited = false;
	a.snd_wnd = b.snd_wnd = 22 << 20; /* the receiver offers more than the cwnd */
	b.sndbuf = 0, b.rate = 125000000;
	judge(&a, &b, &v);
	assert_int_equal(v.limit, MT_CWND);
	assert_int_equal(v.share[2], 1000);
	assert_null(v.change.sysctl);
	assert_non_null(strstr(v.why, "the path itself"));

	/* 1% of the segments retransmitted with cubic: bbr, predicted at the link. */
	b.retrans = 2417;
	judge(&a, &b, &v);
	assert_int_equal(v.retrans, 2417);
	assert_string_equal(v.change.sysctl, "net.ipv4.tcp_congestion_control");
	assert_string_equal(v.change.value, "bbr");
	assert_int_equal(v.change.pred_bps, 1000000000);
	assert_true(v.change.pred_floor);
	assert_non_null(strstr(v.why, "cubic with 2417 retransmits"));

	/* The same loss under bbr: nothing left to suggest, though its cwnd
	 * (7 MB, twice what it sends) is above the peer's window (5 MiB): what
	 * is in flight (1.4 MB) is not near that window. */
	a.cc = b.cc = "bbr";
	a.snd_wnd = b.snd_wnd = 5 << 20;
	a.unacked = b.unacked = 1000;
	judge(&a, &b, &v);
	expect_none(&v, MT_CWND, NULL);
}

/* A kernel before 4.9 sends a tcp_info without the chrono stats. */
static void test_short_tcp_info(void **state)
{
	struct mt_host h = host();
	struct mt_flow f;
	struct mt_verdict v;
	char want[32];

	flow2(&f, &wa, &wb);
	f.first.info_len = f.last.info_len = offsetof(struct tcp_info, tcpi_busy_time);
	snprintf(want, sizeof(want), "(%zu bytes)", offsetof(struct tcp_info, tcpi_busy_time));
	mt_interpret(&f, &h, &v);
	expect_none(&v, MT_UNKNOWN, "(4.9+)");
	assert_non_null(strstr(v.why, want));
}

/* No RTT sample yet: the change is named, no throughput predicted. */
static void test_zero_rtt(void **state)
{
	struct rec a = wa, b = wb;
	struct mt_verdict v;

	a.min_rtt = b.min_rtt = 0;
	judge(&a, &b, &v);
	assert_int_equal(v.limit, MT_SNDBUF);
	assert_int_equal(v.bdp, 0);
	assert_string_equal(v.change.sysctl, "net.ipv4.tcp_wmem");
	assert_int_equal(v.change.pred_bps, 0);
}

static void test_idle_and_once(void **state)
{
	struct mt_host h = host();
	struct rec b = wa;
	struct mt_sample s = mk(&wa);
	struct mt_flow f = { 0 };
	struct mt_verdict v;

	b.t = 10 * SEC;
	judge(&wa, &b, &v);
	assert_int_equal(v.limit, MT_IDLE);

	memset(&f, 0, sizeof(f));
	mt_flow_add(&f, &s);
	mt_interpret(&f, &h, &v);
	assert_int_equal(v.limit, MT_UNKNOWN);
	assert_non_null(strstr(v.why, "one sample"));
}

/* ---- the sock_diag answer --------------------------------------------------- */

static struct nlmsghdr *diag_msg(size_t info_len, bool extras)
{
	size_t len = NLMSG_LENGTH(sizeof(struct inet_diag_msg)) + NLA_ALIGN(NLA_HDRLEN + info_len) +
		     (extras ? NLA_ALIGN(NLA_HDRLEN + 6) + NLA_HDRLEN + SK_MEMINFO_VARS * 4 : 0);
	struct nlmsghdr *h = calloc(1, len);
	struct inet_diag_msg *m = NLMSG_DATA(h);
	struct nlattr *a;
	uint32_t mem[SK_MEMINFO_VARS] = { 0 };
	uint64_t cookie = 0x1122334455667788ULL;

	assert_non_null(h);
	h->nlmsg_len = (uint32_t)len;
	h->nlmsg_type = SOCK_DIAG_BY_FAMILY;
	m->idiag_family = AF_INET;
	m->id.idiag_sport = htons(40000);
	m->id.idiag_dport = htons(5201);
	inet_pton(AF_INET, "10.0.0.1", m->id.idiag_src);
	inet_pton(AF_INET, "10.0.0.2", m->id.idiag_dst);
	memcpy(m->id.idiag_cookie, &cookie, sizeof(cookie));
	a = (struct nlattr *)((char *)h + NLMSG_LENGTH(sizeof(*m)));
	a->nla_type = INET_DIAG_INFO;
	a->nla_len = (uint16_t)(NLA_HDRLEN + info_len);
	memset((char *)a + NLA_HDRLEN, 0xff, info_len);
	if (!extras)
		return h;
	a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
	a->nla_type = INET_DIAG_CONG;
	a->nla_len = NLA_HDRLEN + 6;
	memcpy((char *)a + NLA_HDRLEN, "cubic", 6);
	a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
	a->nla_type = INET_DIAG_SKMEMINFO;
	a->nla_len = NLA_HDRLEN + sizeof(mem);
	mem[SK_MEMINFO_SNDBUF] = 4194304;
	mem[SK_MEMINFO_RCVBUF] = 131072;
	mem[SK_MEMINFO_WMEM_QUEUED] = 300000;
	memcpy((char *)a + NLA_HDRLEN, mem, sizeof(mem));
	return h;
}

/* diag_msg's last attribute, its SK_MEMINFO array. */
static struct nlattr *mem_attr(struct nlmsghdr *h)
{
	size_t off = NLMSG_LENGTH(sizeof(struct inet_diag_msg)) + NLA_ALIGN(NLA_HDRLEN + sizeof(struct tcp_info)) +
		     NLA_ALIGN(NLA_HDRLEN + 6);

	return (struct nlattr *)((char *)h + off);
}

static void test_parse_diag(void **state)
{
	struct nlmsghdr *h = diag_msg(sizeof(struct tcp_info), true);
	struct mt_sample s;

	assert_int_equal(mt_parse_diag(h, &s), 0);
	assert_string_equal(s.src, "10.0.0.1:40000");
	assert_string_equal(s.dst, "10.0.0.2:5201");
	assert_int_equal(s.cookie, 0x1122334455667788ULL);
	assert_string_equal(s.cc, "cubic");
	assert_true(s.have_mem);
	assert_int_equal(s.sndbuf, 4194304);
	assert_int_equal(s.rcvbuf, 131072);
	assert_true(s.have_queued);
	assert_int_equal(s.queued, 300000);
	assert_int_equal(s.info_len, sizeof(struct tcp_info));
	assert_true(mt_has(&s, tcpi_snd_wnd));
	/* A shorter array, up to SK_MEMINFO_SNDBUF: the buffer, nothing queued. */
	mem_attr(h)->nla_len = NLA_HDRLEN + (SK_MEMINFO_SNDBUF + 1) * 4;
	assert_int_equal(mt_parse_diag(h, &s), 0);
	assert_true(s.have_mem);
	assert_int_equal(s.sndbuf, 4194304);
	assert_false(s.have_queued);
	free(h);
}

/* An older kernel's shorter tcp_info: only what it sent, the rest zero and
 * absent; a newer kernel's longer one: cut to what this build knows. */
static void test_parse_diag_lengths(void **state)
{
	size_t old = offsetof(struct tcp_info, tcpi_busy_time);
	struct nlmsghdr *h = diag_msg(old, false);
	struct mt_sample s;

	assert_int_equal(mt_parse_diag(h, &s), 0);
	assert_int_equal(s.info_len, old);
	assert_true(mt_has(&s, tcpi_delivery_rate));
	assert_false(mt_has(&s, tcpi_busy_time));
	assert_int_equal(s.ti.tcpi_busy_time, 0);
	assert_false(s.have_mem);
	free(h);
	h = diag_msg(sizeof(struct tcp_info) + 40, false);
	assert_int_equal(mt_parse_diag(h, &s), 0);
	assert_int_equal(s.info_len, sizeof(struct tcp_info));
	free(h);
	h = diag_msg(0, false);
	h->nlmsg_type = NLMSG_DONE;
	assert_int_equal(mt_parse_diag(h, &s), -EBADMSG);
	free(h);
}

/* --peer of an IPv4 address selects an IPv6 socket's IPv4-mapped peer: a
 * server listening on :: (iperf3 -s) holds its IPv4 clients so, and ss
 * shows them as [::ffff:10.0.0.2]. */
static void test_filter_mapped(void **state)
{
	struct mt_sample v6 = { .family = AF_INET6, .sport = 5201, .dport = 40000 };
	struct mt_sample v4 = { .family = AF_INET, .sport = 40000, .dport = 5201 };
	struct mt_filter f;

	inet_pton(AF_INET6, "::ffff:10.0.0.2", v6.daddr);
	inet_pton(AF_INET, "10.0.0.2", v4.daddr);
	assert_int_equal(mt_filter_init(&f, "10.0.0.2", 0), 0);
	assert_true(mt_filter_match(&f, &v4));
	assert_true(mt_filter_match(&f, &v6));
	assert_int_equal(mt_filter_init(&f, "::ffff:10.0.0.2", 5201), 0);
	assert_true(mt_filter_match(&f, &v4));
	assert_true(mt_filter_match(&f, &v6));
	/* another address, another port, a real IPv6 peer: not selected */
	assert_int_equal(mt_filter_init(&f, "10.0.0.3", 0), 0);
	assert_false(mt_filter_match(&f, &v4) || mt_filter_match(&f, &v6));
	assert_int_equal(mt_filter_init(&f, "10.0.0.2", 22), 0);
	assert_false(mt_filter_match(&f, &v4) || mt_filter_match(&f, &v6));
	inet_pton(AF_INET6, "2001:db8::ffff:a00:2", v6.daddr);
	assert_int_equal(mt_filter_init(&f, "10.0.0.2", 0), 0);
	assert_false(mt_filter_match(&f, &v6));
	assert_int_equal(mt_filter_init(&f, "2001:db8::ffff:a00:2", 0), 0);
	assert_true(mt_filter_match(&f, &v6));
	assert_false(mt_filter_match(&f, &v4));
}

static void test_host_read(void **state)
{
	char dir[256];
	struct root r = { .fd = -1 };
	struct mt_host h;

	tree_new(dir, sizeof(dir));
	tree_write(dir, "proc/sys/net/ipv4/tcp_wmem", "4096\t16384\t4194304\n");
	tree_write(dir, "proc/sys/net/ipv4/tcp_rmem", "4096 131072 6291456\n");
	tree_write(dir, "proc/sys/net/ipv4/tcp_mem", "46000 62000 93000\n");
	tree_write(dir, "proc/sys/net/ipv4/tcp_congestion_control", "cubic\n");
	tree_write(dir, "proc/net/sockstat", "sockets: used 200\nTCP: inuse 5 orphan 0 tw 2 alloc 7 mem 500\n"
					     "UDP: inuse 1 mem 9\n");
	assert_int_equal(root_open(&r, dir), 0);
	mt_host_read(&r, &h);
	assert_true(h.have_wmem && h.have_rmem && h.have_tcp_mem && h.have_mem);
	assert_int_equal(h.wmem[2], 4194304);
	assert_int_equal(h.tcp_mem[1], 62000);
	assert_int_equal(h.mem_pages, 500);
	assert_string_equal(h.cc, "cubic");
	root_close(&r);
	tree_remove(dir);
	/* A tree without them: each unknown. */
	tree_new(dir, sizeof(dir));
	assert_int_equal(root_open(&r, dir), 0);
	mt_host_read(&r, &h);
	assert_false(h.have_wmem || h.have_rmem || h.have_tcp_mem || h.have_mem);
	root_close(&r);
	tree_remove(dir);
}

/* --apply's file for the worked case: the measurement on comment lines,
 * the setting last. */
static void test_sysctl_file(void **state)
{
	struct strbuf sb = { 0 };
	struct mt_verdict v;

	worked_file_text(&sb, &v, "--for 10 --port 5201");
	assert_non_null(strstr(sb.s, "# Written by earlytune measure tcp --apply on backup1 at 2025-12-04T00:00:00Z.\n"
				     "# Measured: 10.0.0.1:40000 -> 10.0.0.2:5201 (cubic): the send buffer: "));
	assert_non_null(strstr(sb.s, "\n# Before: 280000000 bit/s acked, 3499816 bytes in flight, min RTT 100000 us.\n"
				     "# Prediction: 1119941120 bit/s, 13999264 bytes in flight.\n"));
	assert_non_null(strstr(sb.s, "\n# Cost: 4096 pages a flow; 15 such flows before tcp_mem's pressure threshold.\n"));
	assert_non_null(strstr(sb.s, "\n# Was: net.ipv4.tcp_wmem = 4096\t16384\t4194304 (to revert: set it back and "
				     "remove this file).\n"));
	assert_non_null(strstr(sb.s, "\n# Check it with the same measurement: earlytune measure tcp --for 10 --port 5201 "
				     "--verify\nnet.ipv4.tcp_wmem = 4096 16384 16777216\n"));
	assert_int_equal(sb.s[sb.len - 1], '\n');
	sb_free(&sb);
}

/* A second --apply keeps the original the first one's file recorded, not
 * the value the first one set. */
static void test_earlier_was(void **state)
{
	static const char file[] = "etc/sysctl.d/60-earlytune-measure-tcp_wmem.conf";
	struct root r = { .fd = -1 };
	char dir[64], was[64];

	tree_new(dir, sizeof(dir));
	assert_int_equal(root_open(&r, dir), 0);
	assert_int_equal(mt_earlier_was(&r, "net.ipv4.tcp_wmem", was, sizeof(was)), 0);
	tree_write(dir, file, "# Written by earlytune measure tcp --apply on h at 2026-12-03T00:00:00Z.\n"
			      "# Was: net.ipv4.tcp_wmem = 4096\t16384\t4194304 (to revert: set it back and remove this "
			      "file).\nnet.ipv4.tcp_wmem = 4096 16384 16777216\n");
	assert_int_equal(mt_earlier_was(&r, "net.ipv4.tcp_wmem", was, sizeof(was)), 1);
	assert_string_equal(was, "4096\t16384\t4194304");
	assert_int_equal(mt_earlier_was(&r, "net.ipv4.tcp_rmem", was, sizeof(was)), 0);
	tree_write(dir, file, "# Written by hand, no Was: line\nnet.ipv4.tcp_wmem = 1 2 3\n");
	assert_int_equal(mt_earlier_was(&r, "net.ipv4.tcp_wmem", was, sizeof(was)), 0);
	root_close(&r);
	tree_remove(dir);
}

/* A file that cannot be written sets the value back: nothing is left
 * half-done; the message says the value that is in force then. */
static void test_write_change_fails_whole(void **state)
{
	struct strbuf sb = { 0 };
	struct root r = { .fd = -1 };
	char dir[64], now[64];
	const char *msg = NULL;
	size_t n;

	tree_new(dir, sizeof(dir));
	assert_int_equal(root_open(&r, dir), 0);
	sb_printf(&sb, "net.ipv4.tcp_wmem = 4096 16384 262144\n");
	/* A value that cannot be set: no file that says it is. */
	assert_int_equal(mt_write_change(&r, "net.ipv4.tcp_wmem", "4096 16384 262144", NULL, &sb), -ENOENT);
	assert_false(root_exists(&r, "etc/sysctl.d/60-earlytune-measure-tcp_wmem.conf"));
	tree_write(dir, "proc/sys/net/ipv4/tcp_wmem", "4096\t16384\t65536\n");
	tree_write(dir, "etc/sysctl.d", "a file where the directory goes\n");
	log_capture_errors(true);
	n = log_captured(0, &msg);
	assert_true(mt_write_change(&r, "net.ipv4.tcp_wmem", "4096 16384 262144", "4096\t16384\t65536", &sb) < 0);
	assert_true(root_read(&r, "proc/sys/net/ipv4/tcp_wmem", now, sizeof(now)) >= 0);
	assert_string_equal(now, "4096\t16384\t65536");
	assert_int_equal(log_captured(n, &msg), n + 1);
	assert_non_null(strstr(msg, "Not a directory; net.ipv4.tcp_wmem set back to 4096\t16384\t65536"));
	/* No value before to set back: the message says the new one stays. */
	assert_true(mt_write_change(&r, "net.ipv4.tcp_wmem", "4096 16384 262144", NULL, &sb) < 0);
	assert_true(root_read(&r, "proc/sys/net/ipv4/tcp_wmem", now, sizeof(now)) >= 0);
	assert_string_equal(now, "4096 16384 262144");
	assert_int_equal(log_captured(n + 1, &msg), n + 2);
	assert_null(strstr(msg, "set back"));
	assert_non_null(strstr(msg, "net.ipv4.tcp_wmem stays 4096 16384 262144 (its value before could not be read)"));
	log_capture_errors(false);
	tree_write(dir, "proc/sys/net/ipv4/tcp_wmem", "4096\t16384\t65536\n");
	unlink(strcat(strcpy(now, dir), "/etc/sysctl.d"));
	assert_int_equal(mt_write_change(&r, "net.ipv4.tcp_wmem", "4096 16384 262144", "4096\t16384\t65536", &sb), 0);
	assert_true(root_read(&r, "proc/sys/net/ipv4/tcp_wmem", now, sizeof(now)) >= 0);
	assert_string_equal(now, "4096 16384 262144");
	assert_true(root_read(&r, "etc/sysctl.d/60-earlytune-measure-tcp_wmem.conf", now, sizeof(now)) >= 0);
	sb_free(&sb);
	root_close(&r);
	tree_remove(dir);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_filter_mapped),
	cmocka_unit_test(test_sysctl_file),
	cmocka_unit_test(test_earlier_was),
	cmocka_unit_test(test_write_change_fails_whole),
	cmocka_unit_test(test_sndbuf_worked_case),
	cmocka_unit_test(test_sndbuf_rate_sample),
	cmocka_unit_test(test_sndbuf_application_set),
	cmocka_unit_test(test_rwnd),
	cmocka_unit_test(test_application),
	cmocka_unit_test(test_cwnd_and_loss),
	cmocka_unit_test(test_short_tcp_info),
	cmocka_unit_test(test_zero_rtt),
	cmocka_unit_test(test_idle_and_once),
	cmocka_unit_test(test_parse_diag),
	cmocka_unit_test(test_parse_diag_lengths),
	cmocka_unit_test(test_host_read),
};

UNIT_MAIN("measure", tests)
