// SPDX-License-Identifier: LGPL-2.1-or-later
/* thp.c: [thp] key checks and planning on fake transparent_hugepage trees. */
#include "unit.h"
#include "thp/thp.h"

#define THP "sys/kernel/mm/transparent_hugepage/"

static void expect_key(const char *key, const char *value, bool ok, const char *msg)
{
	char why[384] = "";
	int r = thp_check_key(key, value, why, sizeof(why));

	if (ok && r != 0)
		fail_msg("[thp] %s = '%s' rejected: %s", key, value, why);
	if (!ok && r != -EINVAL)
		fail_msg("[thp] %s = '%s' accepted (r=%d)", key, value, r);
	if (msg)
		assert_contains(why, msg);
}

static void test_check_selectors(void **state)
{
	expect_key("enabled", "always", true, NULL);
	expect_key("enabled", "madvise", true, NULL);
	expect_key("enabled", "never", true, NULL);
	expect_key("enabled", "", true, NULL);
	expect_key("enabled", "sometimes", false, "allowed: always madvise never");
	expect_key("enabled", "[madvise]", false, NULL);
	expect_key("enabled", "always madvise", false, NULL);
	expect_key("enabled", "Always", false, NULL);
	expect_key("defrag", "defer+madvise", true, NULL);
	expect_key("defrag", "defer", true, NULL);
	expect_key("defrag", "within_size", false, NULL);
	expect_key("shmem_enabled", "within_size", true, NULL);
	expect_key("shmem_enabled", "deny", true, NULL);
	expect_key("shmem_enabled", "force", true, NULL);
	expect_key("shmem_enabled", "madvise", false, NULL);
}

static void test_check_numbers(void **state)
{
	expect_key("use_zero_page", "0", true, NULL);
	expect_key("use_zero_page", "1", true, NULL);
	expect_key("use_zero_page", "2", false, "from 0 to 1");
	expect_key("khugepaged.defrag", "1", true, NULL);
	expect_key("khugepaged.pages_to_scan", "0", false, "from 1 to 4294967295");
	expect_key("khugepaged.pages_to_scan", "4096", true, NULL);
	expect_key("khugepaged.pages_to_scan", "4294967296", false, NULL);
	expect_key("khugepaged.scan_sleep_millisecs", "10000", true, NULL);
	expect_key("khugepaged.alloc_sleep_millisecs", "-1", false, NULL);
	expect_key("khugepaged.max_ptes_none", "511", true, NULL);
	expect_key("khugepaged.max_ptes_none", "512", false, NULL);
	expect_key("khugepaged.max_ptes_swap", "64", true, NULL);
	expect_key("khugepaged.max_ptes_shared", "256", true, NULL);
	expect_key("khugepaged.max_ptes_shared", "many", false, NULL);
	expect_key("khugepaged.bogus", "1", false, "unknown key 'khugepaged.bogus'");
}

static void test_check_sizes_and_others(void **state)
{
	expect_key("size.8kB.enabled", "always", true, NULL);
	expect_key("size.64kB.enabled", "inherit", true, NULL);
	expect_key("size.2048kB.enabled", "madvise", true, NULL);
	expect_key("size.1048576kB.enabled", "never", true, NULL);
	expect_key("size.64kB.enabled", "", true, NULL);
	expect_key("size.64kB.enabled", "sometimes", false, "always inherit madvise never");
	expect_key("size.64kB.enabled", "defer", false, NULL);
	expect_key("size.3kB.enabled", "always", false, "malformed key 'size.3kB.enabled'");
	expect_key("size.4kB.enabled", "always", false, "power of two");
	expect_key("size.48kB.enabled", "always", false, NULL);
	expect_key("size.0kB.enabled", "always", false, NULL);
	expect_key("size.kB.enabled", "always", false, NULL);
	expect_key("size.64KB.enabled", "always", false, NULL);
	expect_key("size.64kB.enable", "always", false, NULL);
	expect_key("size.64kB.enabledx", "always", false, NULL);
	expect_key("size.-64kB.enabled", "always", false, NULL);
	expect_key("size.64kB.enabled.x", "always", false, NULL);
	expect_key("override_cmdline", "yes", true, NULL);
	expect_key("override_cmdline", "no", true, NULL);
	expect_key("override_cmdline", "", true, NULL);
	expect_key("override_cmdline", "maybe", false, "allowed: yes no");
	expect_key("hugepages", "1", false, "unknown key 'hugepages' in [thp]");
	expect_key("", "1", false, NULL);
}

/* ---- thp_plan ------------------------------------------------------------------------- */

static void thp_tree(struct fx *f)
{
	tree_write(f->dir, THP "enabled", "[always] madvise never\n");
	tree_write(f->dir, THP "defrag", "[always] defer defer+madvise madvise never\n");
	tree_write(f->dir, THP "shmem_enabled", "always within_size advise [never] deny force\n");
	tree_write(f->dir, THP "use_zero_page", "1\n");
	tree_write(f->dir, THP "khugepaged/pages_to_scan", "4096\n");
	tree_write(f->dir, THP "hugepages-64kB/enabled", "always inherit madvise [never]\n");
}

static void plan(struct fx *f, const char *conf, const char *profile)
{
	fx_ctx(f, conf, profile);
	f->c.only = DOM_THP;
	assert_int_equal(thp_plan(&f->c, &f->p), 0);
}

static const struct item *item(struct fx *f, const char *setting)
{
	const struct item *it = find_item(&f->p, "thp", setting);

	if (!it)
		fail_msg("no thp item %s among %zu", setting, f->p.n);
	return it;
}

static void expect(const struct item *it, const char *current, const char *desired, enum action a)
{
	if (!streq_ptr(it->current, current) || !streq_ptr(it->desired, desired) || it->action != a)
		fail_msg("%s: current '%s' desired '%s' action %d; expected '%s' '%s' %d (%s%s)",
			 it->setting, it->current ? it->current : "(null)",
			 it->desired ? it->desired : "(null)", it->action,
			 current ? current : "(null)", desired ? desired : "(null)", a,
			 it->reason ? it->reason : "", it->error ? it->error : "");
}

static void test_plan_profile(void **state)
{
	struct fx *f = *state;
	const struct item *it;

	thp_tree(f);
	plan(f, NULL, "vps");
	assert_int_equal(f->p.n, 2);
	it = item(f, "enabled");
	expect(it, "always", "madvise", ACT_CHANGE);
	assert_string_equal(it->domain, "thp");
	assert_string_equal(it->path, THP "enabled");
	assert_true(it->selector);
	assert_string_equal(it->source, "profile vps");
	assert_contains(it->reason, "huge pages only where a program asks");
	expect(item(f, "defrag"), "always", "defer+madvise", ACT_CHANGE);
}

static void test_plan_keys(void **state)
{
	struct fx *f = *state;
	const struct item *it;

	thp_tree(f);
	plan(f, "[thp]\nenabled = never\nenabled = madvise\nshmem_enabled = never\n"
		"use_zero_page = 0\nkhugepaged.pages_to_scan = 4096\nsize.64kB.enabled = inherit\n"
		"size.2048kB.enabled = always\ndefrag = madvise\ndefrag =\n", NULL);
	/* One item per key, with the last value; an unset key has none. */
	assert_int_equal(f->p.n, 6);
	assert_null(find_item(&f->p, "thp", "defrag"));
	it = item(f, "enabled");
	expect(it, "always", "madvise", ACT_CHANGE);
	assert_string_equal(it->source, "test.conf:3");
	expect(item(f, "shmem_enabled"), "never", "never", ACT_KEEP);
	it = item(f, "use_zero_page");
	expect(it, "1", "0", ACT_CHANGE);
	assert_false(it->selector);
	it = item(f, "khugepaged/pages_to_scan");
	expect(it, "4096", "4096", ACT_KEEP);
	assert_string_equal(it->path, THP "khugepaged/pages_to_scan");
	it = item(f, "hugepages-64kB/enabled");
	expect(it, "never", "inherit", ACT_CHANGE);
	assert_true(it->selector);
	it = item(f, "hugepages-2048kB/enabled");
	expect(it, NULL, "always", ACT_SKIP);
	assert_contains(it->reason, "multi-size THP");
}

static void test_plan_no_thp(void **state)
{
	struct fx *f = *state;

	tree_mkdir(f->dir, "sys/kernel/mm");
	plan(f, NULL, "vps");
	assert_int_equal(f->p.n, 2);
	for (size_t i = 0; i < f->p.n; i++) {
		expect(&f->p.v[i], NULL, f->p.v[i].desired, ACT_SKIP);
		assert_contains(f->p.v[i].reason, "kernel has no transparent huge pages");
	}
}

static void test_plan_cmdline(void **state)
{
	struct fx *f = *state;
	const struct item *it;

	thp_tree(f);
	tree_write(f->dir, "proc/cmdline", "root=/dev/vda1 transparent_hugepage=never quiet\n");
	plan(f, NULL, "vps");
	it = item(f, "enabled");
	expect(it, "always", "madvise", ACT_SKIP);
	assert_contains(it->reason, "transparent_hugepage=never");
	assert_contains(it->reason, "override_cmdline = yes");
	/* The command line only decides "enabled". */
	expect(item(f, "defrag"), "always", "defer+madvise", ACT_CHANGE);
}

static void test_plan_cmdline_override(void **state)
{
	struct fx *f = *state;

	thp_tree(f);
	tree_write(f->dir, "proc/cmdline", "transparent-hugepage=always\n");
	plan(f, "[thp]\noverride_cmdline = yes\n", "vps");
	assert_null(find_item(&f->p, "thp", "override_cmdline"));
	expect(item(f, "enabled"), "always", "madvise", ACT_CHANGE);
	plan_free(&f->p);
	assert_int_equal(config_parse_text(&f->c.cfg, "[thp]\noverride_cmdline = no\n", "b.conf"), 0);
	assert_int_equal(thp_plan(&f->c, &f->p), 0);
	expect(item(f, "enabled"), "always", "madvise", ACT_SKIP);
}

static void test_plan_not_offered(void **state)
{
	struct fx *f = *state;
	const struct item *it;

	tree_write(f->dir, THP "enabled", "[always] never\n");
	tree_write(f->dir, THP "defrag", "[always\n");
	tree_write(f->dir, THP "shmem_enabled", "advise\n");
	plan(f, "[thp]\nenabled = madvise\ndefrag = never\nshmem_enabled = advise\n", NULL);
	it = item(f, "enabled");
	assert_int_equal(it->action, ACT_SKIP);
	assert_true(it->unmet);
	assert_contains(it->reason, "does not offer enabled 'madvise'");
	it = item(f, "defrag");
	assert_int_equal(it->action, ACT_ERROR);
	assert_contains(it->error, "cannot read defrag");
	/* One unbracketed word: a fake tree after a write; it is the active one. */
	expect(item(f, "shmem_enabled"), "advise", "advise", ACT_KEEP);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_check_selectors),
	cmocka_unit_test(test_check_numbers),
	cmocka_unit_test(test_check_sizes_and_others),
	FX_TEST(test_plan_profile),
	FX_TEST(test_plan_keys),
	FX_TEST(test_plan_no_thp),
	FX_TEST(test_plan_cmdline),
	FX_TEST(test_plan_cmdline_override),
	FX_TEST(test_plan_not_offered),
};

UNIT_MAIN("thp", tests)
