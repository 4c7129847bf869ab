// SPDX-License-Identifier: LGPL-2.1-or-later
/* sched.c: the mapping of [sched] keys per kernel version, the key checks,
 * and plans on fake 5.10, 6.1 and 6.12 trees. */
#include "unit.h"
#include "sched/internal.h"

#define DBG "sys/kernel/debug/sched/"

static void expect_map(const char *key, unsigned version, enum sched_via via, const char *setting,
		       const char *path_or_why)
{
	struct sched_map m;

	assert_int_equal(sched_map(key, version, &m), 0);
	if (m.via != via)
		fail_msg("%s on %u.%u: via %d, expected %d", key, version >> 8, version & 0xff, m.via, via);
	assert_string_equal(m.setting, setting);
	if (via == SV_SKIP)
		assert_contains(m.why, path_or_why);
	else
		assert_string_equal(m.path, path_or_why);
}

static void test_map_510(void **state)
{
	unsigned v = KV(5, 10);

	expect_map("latency_ns", v, SV_SYSCTL, "kernel.sched_latency_ns", "proc/sys/kernel/sched_latency_ns");
	expect_map("min_granularity_ns", v, SV_SYSCTL, "kernel.sched_min_granularity_ns",
		   "proc/sys/kernel/sched_min_granularity_ns");
	expect_map("wakeup_granularity_ns", v, SV_SYSCTL, "kernel.sched_wakeup_granularity_ns",
		   "proc/sys/kernel/sched_wakeup_granularity_ns");
	expect_map("migration_cost_ns", v, SV_SYSCTL, "kernel.sched_migration_cost_ns",
		   "proc/sys/kernel/sched_migration_cost_ns");
	expect_map("nr_migrate", v, SV_SYSCTL, "kernel.sched_nr_migrate", "proc/sys/kernel/sched_nr_migrate");
	expect_map("child_runs_first", v, SV_SYSCTL, "kernel.sched_child_runs_first",
		   "proc/sys/kernel/sched_child_runs_first");
	expect_map("base_slice_ns", v, SV_SKIP, "base_slice_ns", "the nearest knob is min_granularity_ns");
	/* 5.12 is the last sysctl kernel, 5.13 the first debugfs one. */
	expect_map("latency_ns", KV(5, 12), SV_SYSCTL, "kernel.sched_latency_ns", "proc/sys/kernel/sched_latency_ns");
	expect_map("latency_ns", KV(5, 13), SV_DEBUGFS, "sched/latency_ns", DBG "latency_ns");
}

static void test_map_61(void **state)
{
	unsigned v = KV(6, 1);

	expect_map("latency_ns", v, SV_DEBUGFS, "sched/latency_ns", DBG "latency_ns");
	expect_map("min_granularity_ns", v, SV_DEBUGFS, "sched/min_granularity_ns", DBG "min_granularity_ns");
	expect_map("wakeup_granularity_ns", v, SV_DEBUGFS, "sched/wakeup_granularity_ns", DBG "wakeup_granularity_ns");
	expect_map("migration_cost_ns", v, SV_DEBUGFS, "sched/migration_cost_ns", DBG "migration_cost_ns");
	expect_map("nr_migrate", v, SV_DEBUGFS, "sched/nr_migrate", DBG "nr_migrate");
	/* child_runs_first stayed a sysctl until EEVDF made it a no-op. */
	expect_map("child_runs_first", v, SV_SYSCTL, "kernel.sched_child_runs_first",
		   "proc/sys/kernel/sched_child_runs_first");
	expect_map("base_slice_ns", v, SV_SKIP, "base_slice_ns", "EEVDF's (6.6+)");
	expect_map("latency_ns", KV(6, 5), SV_DEBUGFS, "sched/latency_ns", DBG "latency_ns");
}

static void test_map_612(void **state)
{
	unsigned v = KV(6, 12);

	expect_map("latency_ns", v, SV_SKIP, "latency_ns",
		   "EEVDF (6.6+) removed latency_ns (it has no scheduling period); the nearest knob is base_slice_ns");
	expect_map("min_granularity_ns", v, SV_SKIP, "min_granularity_ns", "the nearest knob is base_slice_ns");
	expect_map("wakeup_granularity_ns", v, SV_SKIP, "wakeup_granularity_ns", "the nearest knob is base_slice_ns");
	expect_map("base_slice_ns", v, SV_DEBUGFS, "sched/base_slice_ns", DBG "base_slice_ns");
	expect_map("migration_cost_ns", v, SV_DEBUGFS, "sched/migration_cost_ns", DBG "migration_cost_ns");
	expect_map("nr_migrate", v, SV_DEBUGFS, "sched/nr_migrate", DBG "nr_migrate");
	expect_map("child_runs_first", v, SV_SKIP, "child_runs_first", "gone since 6.12");
	/* 6.6 to 6.11: there, but a no-op. */
	expect_map("child_runs_first", KV(6, 6), SV_SKIP, "child_runs_first", "a no-op until its removal in 6.12");
	expect_map("latency_ns", KV(6, 6), SV_SKIP, "latency_ns", "EEVDF (6.6+) removed latency_ns");
	expect_map("base_slice_ns", KV(6, 6), SV_DEBUGFS, "sched/base_slice_ns", DBG "base_slice_ns");
}

static void expect_key(const char *key, const char *value, bool ok, const char *msg)
{
	char why[384] = "";
	int r = sched_check_key(key, value, why, sizeof(why));

	if (ok && r != 0)
		fail_msg("[sched] %s = '%s' rejected: %s", key, value, why);
	if (!ok && r != -EINVAL)
		fail_msg("[sched] %s = '%s' accepted (r=%d)", key, value, r);
	if (msg)
		assert_contains(why, msg);
}

static void test_check_keys(void **state)
{
	struct sched_map m;

	expect_key("latency_ns", "4000000", true, NULL);
	expect_key("latency_ns", "", true, NULL);
	expect_key("latency_ns", "99999", false, "from 100000 to 1000000000");
	expect_key("latency_ns", "1000000001", false, "out of range");
	expect_key("latency_ns", "4ms", false, "a whole number");
	expect_key("wakeup_granularity_ns", "0", true, NULL);
	expect_key("base_slice_ns", "3000000", true, NULL);
	expect_key("nr_migrate", "0", false, "from 1 to 2147483647");
	expect_key("nr_migrate", "64", true, NULL);
	expect_key("child_runs_first", "1", true, NULL);
	expect_key("child_runs_first", "2", false, "from 0 to 1");
	expect_key("migration_cost_ns", "-1", false, NULL);
	expect_key("latency_nice", "-5", false, "never existed in mainline");
	expect_key("latency_nice", "-5", false, "cpu.weight");
	expect_key("latncy_ns", "1", false, "did you mean 'latency_ns'?");
	expect_key("sched_latency_ns", "1", false, "unknown key 'sched_latency_ns' in [sched]");
	assert_int_equal(sched_map("latency_nice", KV(6, 1), &m), -EINVAL);
	assert_true(sched_is_debugfs("sched/latency_ns"));
	assert_false(sched_is_debugfs("kernel.sched_latency_ns"));
}

static void plan(struct fx *f, const char *release, const char *conf, const char *profile)
{
	tree_write(f->dir, "proc/sys/kernel/osrelease", release);
	fx_ctx(f, conf, profile);
	f->c.only = DOM_SCHED;
	assert_int_equal(sched_plan(&f->c, &f->p), 0);
}

static const struct item *item(struct fx *f, const char *setting)
{
	for (size_t i = 0; i < f->p.n; i++)
		if (!strcmp(f->p.v[i].setting, setting))
			return &f->p.v[i];
	fail_msg("no sched item %s among %zu", setting, f->p.n);
	return NULL;
}

/* A skip of setting whose reason says why; unmet: whether verify counts it. */
static void expect_skip(struct fx *f, const char *setting, bool unmet, const char *why)
{
	const struct item *it = item(f, setting);

	assert_int_equal(it->action, ACT_SKIP);
	assert_int_equal(it->unmet, unmet);
	assert_contains(it->reason, why);
	assert_null(it->current);
}

static void test_plan_510_sysctl(void **state)
{
	struct fx *f = *state;
	const struct item *it;

	tree_write(f->dir, "proc/sys/kernel/sched_latency_ns", "12000000\n");
	tree_write(f->dir, "proc/sys/kernel/sched_nr_migrate", "32\n");
	plan(f, "5.10.0-30-amd64\n", "[sched]\nlatency_ns = 4000000\nnr_migrate = 32\nmin_granularity_ns = 500000\n", NULL);
	it = item(f, "kernel.sched_latency_ns");
	assert_int_equal(it->action, ACT_CHANGE);
	assert_int_equal(it->kind, ITEM_FILE);
	assert_string_equal(it->target, "sysctl");
	assert_string_equal(it->current, "12000000");
	assert_contains(it->reason, "CPU comes online");
	it = item(f, "kernel.sched_nr_migrate");
	assert_int_equal(it->action, ACT_KEEP);
	assert_null(it->reason); /* not scaled with the CPUs: no hotplug note */
	/* proc/sys/kernel is there, the file is not: the kernel lacks it. */
	expect_skip(f, "kernel.sched_min_granularity_ns", true, "CONFIG_SCHED_DEBUG");
}

static void test_plan_61_debugfs(void **state)
{
	struct fx *f = *state;
	const struct item *it;

	tree_write(f->dir, DBG "latency_ns", "12000000\n");
	tree_write(f->dir, DBG "migration_cost_ns", "500000\n");
	plan(f, "6.1.0-28-cloud-amd64\n", "[sched]\nmigration_cost_ns = 5000000\nbase_slice_ns = 500000\n", "latency");
	it = item(f, "sched/latency_ns");
	assert_int_equal(it->action, ACT_CHANGE);
	assert_int_equal(it->kind, ITEM_DEBUGFS);
	assert_string_equal(it->source, "profile latency");
	assert_contains(it->reason, "CFS: the period");
	it = item(f, "sched/migration_cost_ns");
	assert_int_equal(it->action, ACT_CHANGE);
	assert_string_equal(it->desired, "5000000");
	/* The user asked for EEVDF's knob on a CFS kernel: unmet, nearest named. */
	expect_skip(f, "base_slice_ns", true, "the nearest knob is min_granularity_ns");
	/* The profile's missing files: the tree lacks them, the kernel has debugfs sched/. */
	expect_skip(f, "sched/wakeup_granularity_ns", true, "this kernel has no such knob");
}

static void test_plan_612_eevdf(void **state)
{
	struct fx *f = *state;
	const struct item *it;

	tree_write(f->dir, DBG "base_slice_ns", "1500000\n");
	plan(f, "6.12.9-amd64\n", "[sched]\nchild_runs_first = 1\n", "latency");
	it = item(f, "sched/base_slice_ns");
	assert_int_equal(it->action, ACT_CHANGE);
	assert_string_equal(it->desired, "500000");
	/* The profile's CFS knobs: not for this kernel, no failure. */
	expect_skip(f, "latency_ns", false, "the nearest knob is base_slice_ns");
	assert_contains(item(f, "latency_ns")->reason, "for the other scheduler");
	expect_skip(f, "child_runs_first", true, "gone since 6.12");
}

static void test_plan_no_debugfs_in_tree(void **state)
{
	struct fx *f = *state;

	plan(f, "6.1.0\n", "[sched]\nnr_migrate = 64\n", NULL);
	/* What the tree does not show is unknown: its own verdict, not unmet. */
	expect_skip(f, "sched/nr_migrate", false, "in this tree: whether the kernel has sched/nr_migrate is unknown");
	assert_true(item(f, "sched/nr_migrate")->unknown);
}

static void test_plan_unknown_version(void **state)
{
	struct fx *f = *state;
	const struct item *it;

	plan(f, "weird\n", "[sched]\nlatency_ns = 4000000\n", NULL);
	assert_int_equal(f->p.n, 1);
	it = &f->p.v[0];
	assert_int_equal(it->action, ACT_SKIP);
	assert_false(it->unmet);
	assert_true(it->unknown);
	assert_contains(it->reason, "version is unknown (release 'weird')");
}

/* "key =" switches a profile's value off: no item. */
static void test_plan_unset(void **state)
{
	struct fx *f = *state;

	tree_write(f->dir, DBG "latency_ns", "12000000\n");
	plan(f, "6.1.0\n", "[sched]\nlatency_ns =\n", "latency");
	assert_null(find_item(&f->p, "debugfs", "sched/latency_ns"));
	assert_non_null(find_item(&f->p, "debugfs", "sched/min_granularity_ns"));
}

static void test_vps_sets_no_sched(void **state)
{
	struct fx *f = *state;

	tree_write(f->dir, DBG "latency_ns", "12000000\n");
	plan(f, "6.1.0\n", NULL, "vps");
	assert_int_equal(f->p.n, 0);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_map_510),
	cmocka_unit_test(test_map_61),
	cmocka_unit_test(test_map_612),
	cmocka_unit_test(test_check_keys),
	FX_TEST(test_plan_510_sysctl),
	FX_TEST(test_plan_61_debugfs),
	FX_TEST(test_plan_612_eevdf),
	FX_TEST(test_plan_no_debugfs_in_tree),
	FX_TEST(test_plan_unknown_version),
	FX_TEST(test_plan_unset),
	FX_TEST(test_vps_sets_no_sched),
};

UNIT_MAIN("sched", tests)
