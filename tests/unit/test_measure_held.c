// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * measure tcp where the kernel's own clocks do not see what holds a
 * connection back. The kernel marks a rate sample application-limited
 * whenever the write queue ran dry below the cwnd, and runs its
 * send-buffer clock only when it ran dry while the writer waited, so a
 * writer waiting on poll while bbr paces its last write out reads as the
 * application's unless what the buffer holds is looked at (sk_wmem_queued);
 * the prediction is scaled from what the buffer holds when a writer pushed
 * it past sk_sndbuf. Pacing and a sender's own qdisc hold sends back
 * before the window test: the peer's window is the limit only where what
 * is in flight fills it.
 */
#include "unit.h"
#include "measure_fx.h"
#include "measure/internal.h"

/* The worked case as bbr paces it: the kernel's send-buffer clock ran
 * 2 s of the 10, every rate sample application-limited. */
static void paced(struct rec *a, struct rec *b, uint32_t queued)
{
	*a = wa, *b = wb;
	b->sndbuf = 2 * SEC;
	a->queued = b->queued = queued;
}

/* 3.6 MB queued of a 4 MiB buffer (past the two thirds at which the kernel
 * wakes a writer): the application is waiting on the buffer. */
static void test_writer_waiting(void **state)
{
	struct rec a, b;
	struct mt_verdict v;

	paced(&a, &b, 3600000);
	judge(&a, &b, &v);
	assert_int_equal(v.limit, MT_SNDBUF);
	assert_int_equal(v.share[0], 1000);
	assert_int_equal(v.share[3], 0);
	assert_int_equal(v.queued, 3600000);
	assert_string_equal(v.change.sysctl, "net.ipv4.tcp_wmem");
	assert_non_null(strstr(v.why, "the application waiting for room 100.0% of the window"));

	/* Half the buffer is still the buffer's. */
	paced(&a, &b, 4194304 / 2);
	judge(&a, &b, &v);
	assert_int_equal(v.limit, MT_SNDBUF);

	/* One of the two samples held: half the rest each way. */
	paced(&a, &b, 3600000);
	a.queued = 100000;
	judge(&a, &b, &v);
	assert_int_equal(v.share[0], 600);
	assert_int_equal(v.share[3], 400);
}

/* Under half the buffer, or nothing said of it (an older kernel's shorter
 * SK_MEMINFO array): the application wrote less than the path carried. */
static void test_writer_short(void **state)
{
	struct rec a, b;
	struct mt_verdict v;

	paced(&a, &b, 2000000);
	judge(&a, &b, &v);
	expect_none(&v, MT_APP, "nothing a setting controls");
	assert_int_equal(v.share[0], 200);
	assert_int_equal(v.share[3], 800);
	paced(&a, &b, 0);
	judge(&a, &b, &v);
	assert_int_equal(v.limit, MT_APP);
	assert_int_equal(v.queued, 0);
}

/* 64 KiB past a 4 MiB buffer (a writer's last skb): the share in flight is
 * of what the buffer holds, and 16 MiB is predicted from that share, not
 * from the 4 MiB alone. */
static void test_prediction_overshoot(void **state)
{
	struct rec a = wa, b = wb;
	struct mt_verdict v;

	a.queued = b.queued = 4194304 + 65536;
	judge(&a, &b, &v);
	assert_int_equal(v.limit, MT_SNDBUF);
	/* 3,499,816 in flight of 4,259,840 held: 13,783,890 of 16 MiB. */
	assert_in_range(v.change.pred_inflight, 13783000, 13785000);
	/* Queued below the buffer: the buffer's own size, as before. */
	a.queued = b.queued = 3600000;
	judge(&a, &b, &v);
	assert_in_range(v.change.pred_inflight, 13990000, 14010000);
}

/* Cubic at a 100 Mbit/s link (tbf on the sender, 100 ms): the peer's
 * 1.59 MB window below the cwnd, but 1.28 MB in flight leaves a fifth of
 * it free, the rate the link's; the kernel's window clock ran 6 % of
 * busy. The path, not the window (6.12's guest in make check-measure). */
static void test_window_not_full(void **state)
{
	struct rec a = wa, b = wb;
	struct mt_verdict v;

	a.app_limited = b.app_limited = false;
	a.snd_wnd = b.snd_wnd = 1590144;
	a.cwnd = b.cwnd = 1933, a.unacked = b.unacked = 884;
	a.min_rtt = b.min_rtt = 100000, a.rate = b.rate = 11900000;
	b.busy = 10 * SEC, b.sndbuf = 0, b.rwnd = 6 * SEC / 10;
	judge(&a, &b, &v);
	expect_none(&v, MT_CWND, "the path itself");
	assert_int_equal(v.share[1], 60);
	/* In flight within an eighth of the window: the window. */
	a.unacked = b.unacked = 1000;
	judge(&a, &b, &v);
	assert_int_equal(v.limit, MT_RWND);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_writer_waiting),
	cmocka_unit_test(test_writer_short),
	cmocka_unit_test(test_prediction_overshoot),
	cmocka_unit_test(test_window_not_full),
};

UNIT_MAIN("measure_held", tests)
