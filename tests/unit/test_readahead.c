// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * measure readahead's arithmetic over recorded rounds: the share of a
 * window a round had not read yet, the model's prediction (linear in the
 * read-ahead while the touches are sparse, bent by the overlap of a small
 * region, never below the page touched), the verdict (a cap suggested when
 * the amplification fell by a fifth, a raise when sequential reads gained
 * a tenth, the tolerance of the prediction, the cost's sign), the
 * configuration file --apply writes and --apply in a tree.
 */
#include "unit.h"
#include "readahead_fx.h"
#include "measure/measure.h"
#include "measure/readahead_verify.h"

static void test_union_share(void **state)
{
	assert_true(mr_union_share(8.0 * MiB, 0, GiB) == 1.0);
	/* sparse: 31 windows of 8 MiB in 4 GiB hardly meet */
	assert_true(mr_union_share(8.0 * MiB, 31, 4 * GiB) > 0.97);
	/* 72 windows of 8 MiB in 128 MiB: 128 (1 - (15/16)^72) / 576 */
	assert_true(absd(mr_union_share(8.0 * MiB, 72, 128 * MiB) - 0.2201) < 0.001);
	/* a window as large as the region: read once, whatever the touches */
	assert_true(absd(mr_union_share(256.0 * MiB, 4, 128 * MiB) - 0.125) < 1e-9);
}

static void test_predict_linear(void **state)
{
	/* the kernel reads the whole window each touch: 8192 KiB is 2048 pages */
	struct mr_round cur = rnd(8192, 31, 8 * MiB);
	double p = mr_predict(&cur, 1024, 16 * GiB, 4096);

	assert_true(absd(mr_amplification(&cur, 4096) - 2048.0) < 1e-9);
	assert_true(p > 256.0 * 0.99 && p < 256.0 * 1.02);
	/* the workload benchmark's 6,279 KiB a touch at 8192 KiB on its 4 GiB vdb, touches kept sparse:
	 * k = 0.79, so 1024 KiB reads about 805 KiB a touch (the benchmark measured 834) */
	cur = rnd(8192, 31, 6279 * KiB);
	p = mr_predict(&cur, 1024, 4 * GiB, 4096) * 4.0; /* KiB a touch */
	assert_true(p > 795 && p < 815);
}

static void test_predict_overlap_and_floor(void **state)
{
	/* a 128 MiB scratch file, 72 touches: measured on loop7 (1729.3 and 747.8 KiB a touch) */
	struct mr_round cur = rnd(8192, 72, (uint64_t)(1729.3 * KiB));
	double p = mr_predict(&cur, 1024, 128 * MiB, 4096);

	assert_true(absd(p - 747.8 / 4.0) / (747.8 / 4.0) < 0.02);
	/* no read-ahead: a fault still reads its own page */
	cur = rnd(128, 100, 128 * KiB);
	assert_true(absd(mr_predict(&cur, 0, 16 * GiB, 4096) - 1.0) < 0.01);
	/* nothing measured: no prediction */
	cur = rnd(8192, 0, 0);
	assert_true(mr_predict(&cur, 1024, GiB, 4096) == 0);
}

static void test_predict_evicted(void **state)
{
	/* the workload benchmark's round: 2,000 touches of its 4 GiB vdb in a 1 GiB guest, 6,330 KiB a touch
	 * at 8192 KiB, the page cache keeping some 700 MiB of the 12 GiB read: at 1024 KiB about 818 KiB a
	 * touch (the benchmark measured 834-846) */
	struct mr_round cur = rnd(8192, 2000, 6330 * KiB);
	double p;

	cur.cached = 700 * MiB / 4096;
	assert_true(absd(mr_cache_cap(&cur, 4 * GiB, 4096) - 700.0 / 4096.0) < 1e-9);
	p = mr_predict(&cur, 1024, 4 * GiB, 4096) * 4.0;
	assert_true(p > 810 && p < 826);
	/* the same round with eviction not counted: the union alone, far off (the page cache is not that big) */
	cur.cached = 0;
	assert_true(mr_cache_cap(&cur, 4 * GiB, 4096) == 1.0);
	assert_true(mr_predict(&cur, 1024, 4 * GiB, 4096) * 4.0 > 2000);
	/* everything it read still cached: no cap, the union formula */
	cur = rnd(8192, 31, 8 * MiB);
	cur.cached = 31 * 2048;
	assert_true(mr_cache_cap(&cur, 16 * GiB, 4096) == 1.0);
	/* a cap the round never reaches changes nothing; one it reaches at once leaves 1 - cap of each window */
	assert_true(absd(mr_share(8.0 * MiB, 72, 128 * MiB, 0.99) - mr_union_share(8.0 * MiB, 72, 128 * MiB)) < 1e-9);
	assert_true(absd(mr_share(8.0 * MiB, 1000, 4 * GiB, 1e-9) - 1.0) < 1e-6);
	assert_true(absd(mr_share(8.0 * MiB, 2000, 4 * GiB, 0.25) - 0.7588) < 0.001);
}

static void test_cap_suggested(void **state)
{
	struct mr_target t = target(8192, 1024, 16 * GiB);
	struct mr_rounds m = cap_rounds();
	struct mr_verdict v;

	mr_interpret(&t, &m, &v);
	assert_true(v.suggest);
	assert_true(v.held);                       /* 272 measured against ~256 predicted: +6 % */
	assert_true(v.pred_err > 5 && v.pred_err < 8);
	assert_true(absd(v.cost - 20.0) < 0.01);  /* 256 -> 204.8 MiB/s */
	assert_true(absd(v.seq_req_kib[0] - 4096.0) < 1e-9 && absd(v.seq_req_kib[1] - 1024.0) < 1e-9);
	assert_non_null(strstr(v.why, "2048.0x what they touch at 8192 KiB, 272.0x at 1024 KiB"));
}

static void test_cap_not_suggested(void **state)
{
	struct mr_target t = target(8192, 1024, 16 * GiB);
	/* the amplification barely moves: whatever the reads pay for, it is not the read-ahead */
	struct mr_rounds m = { .rnd = { rnd(8192, 31, 8 * MiB), rnd(1024, 31, 7 * MiB) },
			       .seq = { seq(8192, 256 * MiB, 1000000000LL, 64), seq(1024, 256 * MiB, 1000000000LL, 256) } };
	struct mr_verdict v;

	mr_interpret(&t, &m, &v);
	assert_false(v.suggest);
	assert_false(v.held);                     /* 1792x against ~256x */
	assert_non_null(strstr(v.why, "does not fall by a fifth"));
	/* already the candidate */
	t = target(1024, 1024, 16 * GiB);
	mr_interpret(&t, &m, &v);
	assert_false(v.suggest);
	assert_string_equal(v.why, "the read-ahead is already the candidate (1024 KiB)");
}

static void test_raise(void **state)
{
	struct mr_target t = target(128, 1024, 16 * GiB);
	struct mr_rounds m = { .rnd = { rnd(128, 400, 128 * KiB), rnd(1024, 400, MiB) },
			       .seq = { seq(128, 256 * MiB, 2000000000LL, 2048), seq(1024, 256 * MiB, 1000000000LL, 256) } };
	struct mr_verdict v;

	mr_interpret(&t, &m, &v);
	assert_true(v.suggest);
	assert_true(absd(v.cost + 100.0) < 0.01); /* twice the throughput: a cost of -100 % */
	assert_string_equal(v.why, "sequential reads gain 100% at 1024 KiB");
	m.seq[1] = seq(1024, 256 * MiB, 1900000000LL, 256);
	mr_interpret(&t, &m, &v);
	assert_false(v.suggest);
}

static void test_conf_file(void **state)
{
	struct mr_target t = target(8192, 1024, 16 * GiB);
	struct mr_rounds m = cap_rounds();
	struct strbuf sb = { 0 };
	struct mr_applied a;
	struct mr_verdict v;

	mr_interpret(&t, &m, &v);
	mr_conf_file(&sb, &t, &v, "db1", 1764806400);
	assert_false(sb.oom);
	assert_non_null(strstr(sb.s, "# Written by earlytune measure readahead --apply on db1 at 2025-12-04T00:00:00Z.\n"
				     "# Measured: random 4 KiB touches through mmap of /dev/vdb read-only, its first "
				     "16384 MiB: amplification 2048.0x at 8192 KiB, 272.0x at 1024 KiB; sequential 256.0 "
				     "and 204.8 MiB/s.\n# Before: read_ahead_kb = 8192: amplification 2048.0x, sequential "
				     "256.0 MiB/s.\n# Prediction: amplification "));
	assert_non_null(strstr(sb.s, "x at 1024 KiB for 31 touches (bytes a touch = k x read-ahead x s, k = 1.0"));
	assert_non_null(strstr(sb.s, "\n# Check it with the same measurement: earlytune measure readahead vdb --for 20 "
				     "--max-bytes 1073741824 --verify\n"));
	assert_non_null(strstr(sb.s, "\n# Cost: sequential throughput 256.0 -> 204.8 MiB/s (20.0% lost).\n"));
	assert_non_null(strstr(sb.s, "\n# To revert: remove this file and write 8192 to "
				     "/sys/block/vdb/queue/read_ahead_kb.\n"));
	assert_non_null(strstr(sb.s, "\n[block \"measure-vdb\"]\nmatch.name = vdb\nread_ahead_kb = 1024\n"));
	assert_int_equal(sb.s[sb.len - 1], '\n');
	sb_free(&sb);
	/* A disk with a serial: the section is that disk's, whatever its
	 * name at the next boot; the serial one pattern that matches it alone. */
	snprintf(t.serial, sizeof(t.serial), "AB 1*2");
	mr_conf_file(&sb, &t, &v, "db1", 1764806400);
	assert_non_null(strstr(sb.s, "\nmatch.name = vdb\nmatch.serial = AB?1\\*2\nread_ahead_kb = 1024\n"));
	assert_int_equal(mr_applied_parse(sb.s, &a), 0); /* --verify reads it back as before */
	assert_string_equal(a.dev, "vdb");
	assert_int_equal(a.value_kb, 1024);
	sb_free(&sb);
}

/* The serial match.serial reads: device/serial first, else the disk's own. */
static void test_target_serial(void **state)
{
	struct ctx c = { .root = { .fd = -1 } };
	struct measure_opts o = { .dev = "vdb", .candidate = -1 };
	struct mr_target t;
	char dir[64];

	tree_new(dir, sizeof(dir));
	tree_write(dir, "sys/block/vdb/dev", "252:16\n");
	tree_write(dir, "sys/block/vdb/size", "8388608\n");
	tree_write(dir, "sys/block/vdb/queue/read_ahead_kb", "8192\n");
	assert_int_equal(root_open(&c.root, dir), 0);
	assert_int_equal(mr_target_disk(&c, &o, &t), 0);
	assert_string_equal(t.serial, "");
	tree_write(dir, "sys/block/vdb/serial", "VIRTIO-1\n");
	assert_int_equal(mr_target_disk(&c, &o, &t), 0);
	assert_string_equal(t.serial, "VIRTIO-1");
	tree_write(dir, "sys/block/vdb/device/serial", "S4EVNX0 123\n");
	assert_int_equal(mr_target_disk(&c, &o, &t), 0);
	assert_string_equal(t.serial, "S4EVNX0 123");
	root_close(&c.root);
	tree_remove(dir);
}

/* --apply: a file that cannot be written sets the read-ahead back and
 * says so; one that can is the candidate in force and its file. */
static void test_apply_whole(void **state)
{
	struct mr_target t = target(8192, 1024, 16 * GiB);
	struct mr_rounds m = cap_rounds();
	struct ctx c = { .root = { .fd = -1 } };
	const char *conf = "etc/earlytune.d/60-earlytune-measure-readahead-vdb.conf", *msg = NULL;
	struct mr_verdict v;
	char dir[64], now[64];
	size_t n;

	mr_interpret(&t, &m, &v);
	assert_true(v.suggest);
	tree_new(dir, sizeof(dir));
	tree_write(dir, "sys/block/vdb/queue/read_ahead_kb", "8192\n");
	tree_write(dir, "etc/earlytune.d", "a file where the directory goes\n");
	assert_int_equal(root_open(&c.root, dir), 0);
	log_capture_errors(true);
	n = log_captured(0, &msg);
	assert_true(mr_apply(&c, &t, &v) < 0);
	assert_true(root_read(&c.root, "sys/block/vdb/queue/read_ahead_kb", now, sizeof(now)) >= 0);
	assert_string_equal(now, "8192");
	assert_int_equal(log_captured(n, &msg), n + 1);
	assert_non_null(strstr(msg, "measure readahead --apply: cannot write /etc/earlytune.d/60-earlytune-measure-"
				    "readahead-vdb.conf: Not a directory; vdb read_ahead_kb set back to 8192"));
	log_capture_errors(false);
	assert_int_equal(unlink(strcat(strcpy(now, dir), "/etc/earlytune.d")), 0);
	assert_int_equal(mr_apply(&c, &t, &v), 0);
	assert_true(root_read(&c.root, "sys/block/vdb/queue/read_ahead_kb", now, sizeof(now)) >= 0);
	assert_string_equal(now, "1024");
	assert_true(root_exists(&c.root, conf));
	root_close(&c.root);
	tree_remove(dir);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_union_share),
	cmocka_unit_test(test_predict_linear),
	cmocka_unit_test(test_predict_overlap_and_floor),
	cmocka_unit_test(test_predict_evicted),
	cmocka_unit_test(test_cap_suggested),
	cmocka_unit_test(test_cap_not_suggested),
	cmocka_unit_test(test_raise),
	cmocka_unit_test(test_conf_file),
	cmocka_unit_test(test_apply_whole),
	cmocka_unit_test(test_target_serial),
};

UNIT_MAIN("readahead", tests)
