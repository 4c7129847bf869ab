// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * measure readahead --verify: the file --apply writes read back, and the
 * verdict on recorded rounds at the value in force: held (the
 * amplification within 20 % of the prediction, sequential reads at least
 * 75 % of the candidate's round), moved (the model missed, the change
 * still pays: a cap's amplification down by a fifth, a raise's sequential
 * reads up by a tenth), failed (neither; or sequential reads lost more
 * than measured), what cannot be judged (not in force, no prediction, no
 * touch reached the disk), the prediction re-made for fewer touches, the
 * check kept on the file's comment lines, and the disk's serial the file
 * keeps matched against the disk's now.
 */
#include "unit.h"
#include "readahead_fx.h"
#include "measure/readahead_verify.h"

/* The cap of test_readahead.c's measurement, as --apply writes it for a
 * disk with serial ("" none). */
static void cap_file_of(struct strbuf *sb, struct mr_applied *a, const char *serial)
{
	struct mr_target t = target(8192, 1024, 16 * GiB);
	struct mr_rounds m = cap_rounds();
	struct mr_verdict v;

	snprintf(t.serial, sizeof(t.serial), "%s", serial);
	mr_interpret(&t, &m, &v);
	assert_true(v.suggest);
	mr_conf_file(sb, &t, &v, "db1", 1764806400);
	assert_false(sb->oom);
	assert_int_equal(mr_applied_parse(sb->s, a), 0);
}

static void cap_file(struct strbuf *sb, struct mr_applied *a)
{
	cap_file_of(sb, a, "");
}

/* The serial the file keeps: read back, matched as match.serial matches
 * (that serial alone), shown as sysfs showed it; a file without one (a
 * disk without a serial, a file from before) matches any disk. */
static void test_serial(void **state)
{
	struct strbuf sb = { 0 };
	struct mr_applied a;
	char shown[64];

	cap_file_of(&sb, &a, "AB 1*2?");
	assert_string_equal(a.serial, "AB?1\\*2\\?");
	assert_true(mr_serial_matches(&a, "AB 1*2?"));
	assert_true(mr_serial_matches(&a, "AB\t1*2?"));
	assert_false(mr_serial_matches(&a, "AB 132?"));
	assert_false(mr_serial_matches(&a, "AB 1*2x"));
	assert_false(mr_serial_matches(&a, "XY 9"));
	assert_false(mr_serial_matches(&a, ""));
	mr_serial_shown(&a, shown, sizeof(shown));
	assert_string_equal(shown, "AB 1*2?");
	mr_serial_shown(&a, shown, 4);
	assert_string_equal(shown, "AB ");
	sb_free(&sb);
	cap_file(&sb, &a);
	assert_string_equal(a.serial, "");
	assert_true(mr_serial_matches(&a, "XY 9") && mr_serial_matches(&a, ""));
	sb_free(&sb);
}

/* The verdict on the rounds after, at 1024 KiB in force, 16 GiB region. */
static void judge_cap(const struct mr_applied *a, struct mr_round r, struct mr_round s, struct mr_check *k)
{
	mr_judge(a, &r, &s, 16 * GiB, 4096, true, 1024, k);
}

static void test_file_read_back(void **state)
{
	struct strbuf sb = { 0 };
	struct mr_applied a;

	cap_file(&sb, &a);
	assert_string_equal(a.dev, "vdb");
	assert_int_equal(a.value_kb, 1024);
	assert_int_equal(a.before_kb, 8192);
	assert_true(absd(a.before_amp - 2048.0) < 0.05 && absd(a.before_seq - 256.0) < 0.05);
	assert_true(a.pred_amp > 256.0 && a.pred_amp < 262.0);
	assert_true(a.k > 1.0 && a.k < 1.02); /* the window read whole, a little overlap */
	assert_int_equal(a.touches, 31);
	assert_true(absd(a.pred_seq - 204.8) < 0.05);
	assert_int_equal(a.seconds, 20);
	assert_int_equal(a.max_bytes, GiB);
	assert_int_equal(a.outcome, MO_UNVERIFIED);
	assert_string_equal(a.checked, "");
	sb_free(&sb);
	/* measure tcp's file, or no section: no read_ahead_kb line */
	assert_int_equal(mr_applied_parse("# Before: read_ahead_kb = 8192: amplification 2.0x, sequential 1.0 MiB/s.\n"
					  "net.ipv4.tcp_wmem = 4096 16384 16777216\n", &a), -EBADMSG);
}

static void test_held(void **state)
{
	struct strbuf sb = { 0 };
	struct mr_applied a;
	struct mr_check k;

	cap_file(&sb, &a);
	judge_cap(&a, rnd(1024, 31, MiB + 64 * KiB), seq(1024, 256 * MiB, 1250000000LL, 256), &k);
	assert_int_equal(k.outcome, MO_HELD);
	assert_true(k.err > 4 && k.err < 7);           /* 272x against ~258x */
	assert_int_equal(k.seq_pct, 100);
	assert_non_null(strstr(k.why, "amplification 272.0x at 1024 KiB, +"));
	assert_non_null(strstr(k.why, "(within 20% holds); sequential 204.8 MiB/s, 100% of the 204.8 its round read "
				      "(at least 75% holds); before 2048.0x and 256.0 MiB/s at 8192 KiB"));
	/* sequential reads at 78 % of the candidate's round: still within */
	judge_cap(&a, rnd(1024, 31, MiB + 64 * KiB), seq(1024, 256 * MiB, 1600000000LL, 256), &k);
	assert_int_equal(k.outcome, MO_HELD);
	assert_int_equal(k.seq_pct, 78);
	/* within 20 % either way: 18 % under holds, 22 % under does not */
	judge_cap(&a, rnd(1024, 31, (uint64_t)(a.pred_amp * 4096 * 0.82)), seq(1024, 256 * MiB, 1250000000LL, 256), &k);
	assert_int_equal(k.outcome, MO_HELD);
	assert_true(k.err < -17.9 && k.err > -18.1);
	judge_cap(&a, rnd(1024, 31, (uint64_t)(a.pred_amp * 4096 * 0.78)), seq(1024, 256 * MiB, 1250000000LL, 256), &k);
	assert_int_equal(k.outcome, MO_MOVED);
	sb_free(&sb);
}

static void test_moved_and_failed(void **state)
{
	struct strbuf sb = { 0 };
	struct mr_applied a;
	struct mr_check k;

	cap_file(&sb, &a);
	/* twice the amplification predicted, a quarter of before's: the cap still pays */
	judge_cap(&a, rnd(1024, 31, 2 * MiB), seq(1024, 256 * MiB, 1250000000LL, 256), &k);
	assert_int_equal(k.outcome, MO_MOVED);
	assert_non_null(strstr(k.why, "; the prediction missed, but the cap still pays: random reads pull at least a "
				      "fifth less than before"));
	/* hardly below before: the read-ahead is not what random reads pay for */
	judge_cap(&a, rnd(1024, 31, 7 * MiB), seq(1024, 256 * MiB, 1250000000LL, 256), &k);
	assert_int_equal(k.outcome, MO_FAILED);
	assert_non_null(strstr(k.why, "amplification 1792.0x at 1024 KiB"));
	assert_non_null(strstr(k.why, "; the amplification is not the one predicted, and the change does not pay"));
	/* the amplification as predicted, sequential reads at 62 %: the cost is more than measured */
	judge_cap(&a, rnd(1024, 31, MiB + 64 * KiB), seq(1024, 256 * MiB, 2000000000LL, 256), &k);
	assert_int_equal(k.outcome, MO_FAILED);
	assert_int_equal(k.seq_pct, 62);
	assert_non_null(strstr(k.why, "; sequential reads lost more than the measurement said"));
	/* a cap whose amplification fell but whose sequential reads did not hold: failed, not moved */
	judge_cap(&a, rnd(1024, 31, 2 * MiB), seq(1024, 256 * MiB, 2000000000LL, 256), &k);
	assert_int_equal(k.outcome, MO_FAILED);
	sb_free(&sb);
}

static void test_raise(void **state)
{
	struct mr_target t = target(128, 1024, 16 * GiB);
	struct mr_rounds m = { .rnd = { rnd(128, 400, 128 * KiB), rnd(1024, 400, MiB) },
			       .seq = { seq(128, 256 * MiB, 2000000000LL, 2048), seq(1024, 256 * MiB, 1000000000LL, 256) } };
	struct strbuf sb = { 0 };
	struct mr_verdict v;
	struct mr_applied a;
	struct mr_check k;
	struct mr_round r = rnd(1024, 400, 3 * MiB), s = seq(1024, 256 * MiB, 1000000000LL, 256);

	mr_interpret(&t, &m, &v);
	mr_conf_file(&sb, &t, &v, "db1", 1764806400);
	assert_int_equal(mr_applied_parse(sb.s, &a), 0);
	mr_judge(&a, &r, &s, 16 * GiB, 4096, true, 1024, &k);
	/* thrice the amplification predicted, sequential reads still twice before's */
	assert_int_equal(k.outcome, MO_MOVED);
	assert_non_null(strstr(k.why, "but the raise still pays: sequential reads gain a tenth"));
	s = seq(1024, 256 * MiB, 1900000000LL, 256);
	mr_judge(&a, &r, &s, 16 * GiB, 4096, true, 1024, &k);
	assert_int_equal(k.outcome, MO_FAILED);
	sb_free(&sb);
}

static void test_unverified(void **state)
{
	struct strbuf sb = { 0 };
	struct mr_applied a;
	struct mr_check k;
	struct mr_round r = rnd(1024, 31, 0), s = seq(1024, 256 * MiB, 1250000000LL, 256);

	cap_file(&sb, &a);
	mr_judge(&a, NULL, NULL, 16 * GiB, 4096, false, 8192, &k);
	assert_int_equal(k.outcome, MO_UNVERIFIED);
	assert_string_equal(k.why, "not in force: the read-ahead reads 8192 KiB, the file sets 1024; the measurement "
				   "would not test the change");
	/* the counters did not move: the touches never reached the disk */
	mr_judge(&a, &r, &s, 16 * GiB, 4096, true, 1024, &k);
	assert_int_equal(k.outcome, MO_UNVERIFIED);
	assert_string_equal(k.why, "vdb served none of the touches (its stat did not move): no measurement to go by");
	mr_judge(&a, NULL, NULL, 16 * GiB, 4096, true, 1024, &k);
	assert_int_equal(k.outcome, MO_UNVERIFIED);
	a.k = 0;
	r = rnd(1024, 31, MiB);
	mr_judge(&a, &r, &s, 16 * GiB, 4096, true, 1024, &k);
	assert_int_equal(k.outcome, MO_UNVERIFIED);
	assert_string_equal(k.why, "the file has no prediction to check");
	sb_free(&sb);
}

/* A round after that stopped at fewer touches (its time ran out): the
 * prediction is made again for them, not the file's number. */
static void test_fewer_touches(void **state)
{
	struct mr_target t = target(8192, 1024, 128 * MiB);
	struct mr_rounds m = { .rnd = { rnd(8192, 72, (uint64_t)(1729.3 * KiB)), rnd(1024, 72, (uint64_t)(747.8 * KiB)) },
			       .seq = { seq(8192, 32 * MiB, 100000000LL, 8), seq(1024, 32 * MiB, 100000000LL, 32) } };
	struct strbuf sb = { 0 };
	struct mr_verdict v;
	struct mr_applied a;
	struct mr_check k;
	struct mr_round r = rnd(1024, 20, 1000 * KiB), s = m.seq[1];

	mr_interpret(&t, &m, &v);
	mr_conf_file(&sb, &t, &v, "db1", 1764806400);
	assert_int_equal(mr_applied_parse(sb.s, &a), 0);
	assert_int_equal(a.touches, 72);
	mr_judge(&a, &r, &s, 128 * MiB, 4096, true, 1024, &k);
	/* 20 windows overlap less than 72: more a touch than the file's prediction */
	assert_true(absd(k.pred_amp - mr_predict_k(a.k, 1024, 20, 128 * MiB, 4096, 1.0)) < 1e-9);
	assert_true(k.pred_amp > a.pred_amp * 1.1);
	assert_int_equal(k.outcome, MO_HELD);
	sb_free(&sb);
}

/* The round as the workload benchmark's (2,000 touches of a 4 GiB disk in a
 * 1 GiB guest: pages evicted within it), the 6.12 guest's numbers: the
 * prediction re-made with what the page cache kept of the round after. */
static void test_evicted(void **state)
{
	struct mr_target t = target(8192, 1024, 4 * GiB);
	struct mr_rounds m = { .rnd = { rnd(8192, 2000, (uint64_t)(6302.4 * KiB)), rnd(1024, 2000, (uint64_t)(832.8 * KiB)) },
			       .seq = { seq(8192, 4 * GiB, 11390000000LL, 1033), seq(1024, 4 * GiB, 16480000000LL, 4099) } };
	struct strbuf sb = { 0 };
	struct mr_verdict v;
	struct mr_applied a;
	struct mr_check k;
	struct mr_round r = rnd(1024, 2000, (uint64_t)(834.7 * KiB)), s = m.seq[1];
	double pred;

	m.rnd[0].cached = 795 * MiB / 4096, m.rnd[1].cached = 799 * MiB / 4096;
	mr_interpret(&t, &m, &v);
	assert_true(v.held && v.cache_cap < 0.2);
	mr_conf_file(&sb, &t, &v, "guest", 1764806400);
	assert_int_equal(mr_applied_parse(sb.s, &a), 0);
	r.cached = 780 * MiB / 4096;
	mr_judge(&a, &r, &s, 4 * GiB, 4096, true, 1024, &k);
	assert_true(absd(k.pred_amp - v.pred_amp) / v.pred_amp < 0.02);
	assert_true(absd(k.err) < 5);
	assert_int_equal(k.outcome, MO_HELD);
	/* what it kept not counted: the windows taken as all kept, fewer bytes a touch predicted (-8 %) */
	pred = k.pred_amp;
	r.cached = 0;
	mr_judge(&a, &r, &s, 4 * GiB, 4096, true, 1024, &k);
	assert_true(k.pred_amp < 0.95 * pred);
	sb_free(&sb);
}

static void test_record(void **state)
{
	struct strbuf sb = { 0 }, out = { 0 }, again = { 0 };
	struct mr_applied a, back;
	struct mr_check k;
	const char *p, *block;

	cap_file(&sb, &a);
	judge_cap(&a, rnd(1024, 31, MiB + 64 * KiB), seq(1024, 256 * MiB, 1250000000LL, 256), &k);
	mr_record_check(&out, sb.s, &k, "db1", 1764892800);
	assert_false(out.oom);
	p = strstr(out.s, "# Verified: held at 2025-12-05T00:00:00Z on db1: amplification 272.0x, sequential 204.8 "
			  "MiB/s: amplification 272.0x at 1024 KiB");
	block = strstr(out.s, "[block \"measure-vdb\"]");
	assert_non_null(p);
	assert_true(p < block && block[-1] == '\n');
	assert_int_equal(mr_applied_parse(out.s, &back), 0);
	assert_int_equal(back.outcome, MO_HELD);
	assert_string_equal(back.checked, "2025-12-05T00:00:00Z");
	assert_true(absd(back.after_amp - 272.0) < 0.05 && absd(back.after_seq - 204.8) < 0.05);
	assert_true(back.value_kb == a.value_kb && back.pred_amp == a.pred_amp && back.k == a.k);
	/* the next check replaces it */
	judge_cap(&a, rnd(1024, 31, 7 * MiB), seq(1024, 256 * MiB, 1250000000LL, 256), &k);
	mr_record_check(&again, out.s, &k, "db1", 1764979200);
	assert_null(strstr(again.s, "# Verified: held"));
	assert_non_null(strstr(again.s, "# Verified: failed at 2025-12-06T00:00:00Z on db1: amplification 1792.0x"));
	assert_int_equal(mr_applied_parse(again.s, &back), 0);
	assert_int_equal(back.outcome, MO_FAILED);
	p = strstr(again.s, "# Verified: ");
	assert_null(strstr(p + 1, "# Verified: ")); /* one check line, not two */
	sb_free(&sb);
	sb_free(&out);
	sb_free(&again);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_file_read_back),
	cmocka_unit_test(test_serial),
	cmocka_unit_test(test_held),
	cmocka_unit_test(test_moved_and_failed),
	cmocka_unit_test(test_raise),
	cmocka_unit_test(test_unverified),
	cmocka_unit_test(test_fewer_touches),
	cmocka_unit_test(test_evicted),
	cmocka_unit_test(test_record),
};

UNIT_MAIN("readahead_verify", tests)
