// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * measure tcp --verify: the file --apply writes read back, and the verdict
 * on recorded samples of the connection measured again: held (the worked
 * case at 869 Mbit/s of the 1.12 Gbit/s predicted, the limit moved to the
 * congestion window), moved (the limit left the send buffer, throughput
 * rose but something else sets the pace), failed (still the send buffer;
 * the limit moved but nothing rose), and what cannot be judged (the
 * setting not in force, no busy connection, no prediction, no file).
 */
#include "unit.h"
#include "measure_fx.h"
#include "measure/report.h"
#include "measure/verify.h"

/* The worked case's file, as --apply writes it, parsed back. */
static void worked_file(struct strbuf *sb, struct mt_applied *a)
{
	struct mt_verdict v;

	worked_file_text(sb, &v, "--for 10 --peer 10.0.0.2 --port 5201");
	assert_int_equal(mt_applied_parse(sb->s, a), 0);
}

/* 10 s after the change: in flight ≈ cwnd, the rate samples not
 * application-limited, the peer's window (22 MiB) above the cwnd. */
static const struct rec aa = { .t = 0, .unacked = 7500, .cwnd = 7500, .min_rtt = 100000, .rate = 108625000,
			       .snd_wnd = 23068672, .sk_sndbuf = 16777216 };
static const struct rec ab = { .t = 10 * SEC, .busy = 10 * SEC, .acked = 1086250000, .unacked = 7500,
			       .cwnd = 7500, .min_rtt = 100000, .rate = 108625000, .snd_wnd = 23068672,
			       .sk_sndbuf = 16777216, .segs = 750000 };

/* The worked case's file, and the connection after the change. */
static void worked_after(struct strbuf *sb, struct mt_applied *a, struct mt_verdict *v)
{
	worked_file(sb, a);
	judge(&aa, &ab, v);
}

static void test_file_read_back(void **state)
{
	struct strbuf sb = { 0 };
	struct mt_applied a;

	worked_file(&sb, &a);
	assert_string_equal(a.setting, "net.ipv4.tcp_wmem");
	assert_string_equal(a.value, "4096 16384 16777216");
	assert_string_equal(a.was, "4096\t16384\t4194304");
	assert_int_equal(a.before_bps, 280000000);
	assert_int_equal(a.before_inflight, 3499816);
	assert_int_equal(a.pred_bps, 1119941120);
	assert_int_equal(a.pred_inflight, 13999264);
	assert_false(a.pred_floor);
	assert_int_equal(a.seconds, 10);
	assert_int_equal(a.port, 5201);
	assert_string_equal(a.peer, "10.0.0.2");
	assert_int_equal(a.outcome, MO_UNVERIFIED);
	assert_int_equal(mt_limit_of(a.setting), MT_SNDBUF);
	sb_free(&sb);
	/* bbr's prediction is a floor. */
	assert_int_equal(mt_applied_parse("# Prediction: at least 1900000 bit/s, 9500 bytes in flight.\n"
					  "net.ipv4.tcp_congestion_control = bbr\n", &a), 0);
	assert_true(a.pred_floor);
	assert_int_equal(a.pred_bps, 1900000);
	assert_int_equal(mt_limit_of(a.setting), MT_CWND);
	assert_int_equal(a.seconds, 0); /* no selection kept: the default window */
}

/* The worked case: 869 Mbit/s of 1.12 Gbit/s predicted is 77 %, within
 * the tolerance; the limit moved to the congestion window. */
static void test_held(void **state)
{
	struct strbuf sb = { 0 };
	struct mt_applied a;
	struct mt_verdict v;
	struct mt_check k;

	worked_after(&sb, &a, &v);
	assert_int_equal(v.limit, MT_CWND);
	assert_int_equal(v.rate_bps, 869000000);
	mt_judge(&a, &v, true, a.value, &k);
	assert_int_equal(k.outcome, MO_HELD);
	assert_int_equal(k.pct, 77);
	assert_int_equal(k.before, MT_SNDBUF);
	assert_int_equal(k.after, MT_CWND);
	assert_non_null(strstr(k.why, "869.0 Mbit/s acked, 77% of the predicted 1119.9 Mbit/s (at least 75% holds)"));
	/* A file's prediction of 1 bit/s: the percent saturates. */
	a.pred_bps = 1;
	mt_judge(&a, &v, true, a.value, &k);
	assert_int_equal(k.outcome, MO_HELD);
	assert_int_equal(k.pct, 1000000);
	sb_free(&sb);
}

/* The limit left the send buffer for the application and throughput
 * doubled, at 56 % of the prediction: the change worked, the sender now
 * sets the pace (this project's test machine, python at both ends). */
static void test_moved(void **state)
{
	struct mt_applied a;
	struct rec x = aa, y = ab;
	struct mt_verdict v;
	struct mt_check k;

	assert_int_equal(mt_applied_parse("# Before: 10500000 bit/s acked, 47784 bytes in flight, min RTT 40126 us.\n"
					  "# Prediction: 38100000 bit/s, 191136 bytes in flight.\n"
					  "net.ipv4.tcp_wmem = 4096 16384 262144\n", &a), 0);
	x.app_limited = y.app_limited = true;
	x.rate = y.rate = 2700000;
	y.acked = 27000000, y.busy = 4 * SEC;
	judge(&x, &y, &v);
	assert_int_equal(v.limit, MT_APP);
	mt_judge(&a, &v, true, a.value, &k);
	assert_int_equal(k.outcome, MO_MOVED);
	assert_int_equal(k.pct, 56);
	assert_non_null(strstr(k.why, "the limit moved off the send buffer to the application and the throughput rose "
				      "from 10.5 Mbit/s to 21.6 Mbit/s"));
	/* The same move without the rise: failed. */
	y.acked = 13000000;
	judge(&x, &y, &v);
	mt_judge(&a, &v, true, a.value, &k);
	assert_int_equal(k.outcome, MO_FAILED);
	assert_non_null(strstr(k.why, "the limit moved but the throughput did not rise by a quarter"));
}

/* Still the send buffer at 300 Mbit/s: failed, and kept in the file in
 * place of the check before. */
static void test_failed_kept(void **state)
{
	struct strbuf sb = { 0 }, out = { 0 }, again = { 0 };
	struct mt_applied a, back;
	struct rec y = wb;
	struct mt_verdict v;
	struct mt_check k;

	worked_file(&sb, &a);
	y.acked = 375000000;
	judge(&wa, &y, &v);
	assert_int_equal(v.limit, MT_SNDBUF);
	mt_judge(&a, &v, true, a.value, &k);
	assert_int_equal(k.outcome, MO_FAILED);
	assert_int_equal(k.pct, 26);
	assert_non_null(strstr(k.why, "the limit is still the setting's"));
	mt_record_check(&out, sb.s, &k, &v, "backup1", 1764892800);
	assert_false(out.oom);
	assert_non_null(strstr(out.s, "--verify\n# Verified: failed at 2025-12-05T00:00:00Z on backup1: 300000000 bit/s "
				      "acked, 3499816 bytes in flight, the limit send buffer; 26% of the prediction: "));
	assert_non_null(strstr(out.s, ".\nnet.ipv4.tcp_wmem = 4096 16384 16777216\n"));
	assert_int_equal(mt_applied_parse(out.s, &back), 0);
	assert_int_equal(back.outcome, MO_FAILED);
	assert_string_equal(back.checked, "2025-12-05T00:00:00Z");
	assert_int_equal(back.after_bps, 300000000);
	assert_int_equal(back.pred_bps, a.pred_bps);
	/* A second check replaces the first. */
	judge(&aa, &ab, &v);
	mt_judge(&a, &v, true, a.value, &k);
	mt_record_check(&again, out.s, &k, &v, "backup1", 1764979200);
	assert_null(strstr(again.s, "# Verified: failed"));
	assert_non_null(strstr(again.s, "# Verified: held at 2025-12-06T00:00:00Z"));
	assert_int_equal(mt_applied_parse(again.s, &back), 0);
	assert_int_equal(back.outcome, MO_HELD);
	assert_int_equal(back.after_bps, 869000000);
	/* one check line, the newest */
	assert_null(strstr(strstr(again.s, "# Verified: ") + 1, "# Verified: "));
	sb_free(&sb);
	sb_free(&out);
	sb_free(&again);
}

/* What cannot be judged: unverified, never held or failed. */
static void test_unverified(void **state)
{
	struct strbuf sb = { 0 };
	struct mt_applied a;
	struct mt_verdict v;
	struct mt_check k;

	worked_after(&sb, &a, &v);
	mt_judge(&a, &v, false, "4096 16384 4194304", &k);
	assert_int_equal(k.outcome, MO_UNVERIFIED);
	assert_non_null(strstr(k.why, "not in force: net.ipv4.tcp_wmem reads '4096 16384 4194304'"));
	mt_judge(&a, NULL, true, a.value, &k);
	assert_int_equal(k.outcome, MO_UNVERIFIED);
	assert_non_null(strstr(k.why, "no busy connection"));
	a.pred_bps = 0;
	mt_judge(&a, &v, true, a.value, &k);
	assert_int_equal(k.outcome, MO_UNVERIFIED);
	assert_non_null(strstr(k.why, "no prediction"));
	/* No file, or one without its setting line. */
	assert_int_equal(mt_applied_parse("", &a), -EBADMSG);
	assert_int_equal(mt_applied_parse("# Before: 1 bit/s acked, 1 bytes in flight\n\n", &a), -EBADMSG);
	assert_true(mt_same_value("4096\t16384 262144\n", "4096 16384  262144"));
	assert_false(mt_same_value("4096 16384 262144", "4096 16384 2621440"));
	sb_free(&sb);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_file_read_back),
	cmocka_unit_test(test_held),
	cmocka_unit_test(test_moved),
	cmocka_unit_test(test_failed_kept),
	cmocka_unit_test(test_unverified),
};

UNIT_MAIN("measure_verify", tests)
