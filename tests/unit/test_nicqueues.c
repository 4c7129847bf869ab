// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * nic/mask.c and nic/queues.c: CPU masks as the kernel prints them (parse,
 * compare, the kernel's layout, the online list), flow counts rounded, and
 * the plan, apply and revert of txqueuelen, rps_cpus, rps_flow_cnt and
 * xps_cpus on fake trees laid out as the kernel lays out queues/.
 */
#include "unit.h"
#include "nic/internal.h"
#include "nic_fx.h"

static void mask_of(const char *s, struct nic_mask *m)
{
	char why[192];

	if (nic_mask_parse(s, m, why, sizeof(why)) < 0)
		fail_msg("'%s': %s", s, why);
}

static void test_mask_parse(void **state)
{
	struct nic_mask a, b;
	char why[192];

	(void)state;
	mask_of("f", &a);
	assert_int_equal(a.w[0], 0xf);
	mask_of("00000000,0000000f", &b);
	assert_true(nic_mask_equal(&a, &b)); /* the kernel's width: the same CPUs */
	mask_of("0000000F", &b);
	assert_true(nic_mask_equal(&a, &b));
	mask_of("1,00000000", &a);
	assert_int_equal(a.w[0], 0);
	assert_int_equal(a.w[1], 1);
	assert_int_equal(nic_mask_last(&a), 32);
	mask_of("100000000", &b); /* one group of any length: a plain number */
	assert_true(nic_mask_equal(&a, &b));
	mask_of("ff,0", &a); /* a short group is 32 bits all the same */
	assert_int_equal(a.w[1], 0xff);
	assert_int_equal(a.w[0], 0);
	mask_of("0", &a);
	assert_int_equal(nic_mask_last(&a), -1);
	assert_int_equal(nic_mask_parse("", &a, why, sizeof(why)), -EINVAL);
	assert_int_equal(nic_mask_parse("0x3", &a, why, sizeof(why)), -EINVAL);
	assert_contains(why, "'x' is not a hex digit");
	assert_int_equal(nic_mask_parse("f,,f", &a, why, sizeof(why)), -EINVAL);
	assert_int_equal(nic_mask_parse(",f", &a, why, sizeof(why)), -EINVAL);
	assert_int_equal(nic_mask_parse("f,", &a, why, sizeof(why)), -EINVAL);
	assert_int_equal(nic_mask_parse("1,000000000", &a, why, sizeof(why)), -EINVAL);
	assert_contains(why, "more than 8 hex digits");
}

/* CPU 8191 is Linux's last; a bit past it is refused, leading zeros are not. */
static void test_mask_bounds(void **state)
{
	char big[NIC_MASK_CHARS], why[192];
	struct nic_mask m;

	(void)state;
	memset(big, '0', 2048);
	big[0] = '8', big[2048] = '\0';
	mask_of(big, &m);
	assert_int_equal(nic_mask_last(&m), 8191);
	big[0] = '0';
	memmove(big + 1, big, 2049);
	big[0] = '1';
	assert_int_equal(nic_mask_parse(big, &m, why, sizeof(why)), -ERANGE);
	big[0] = '0';
	mask_of(big, &m);
	assert_int_equal(nic_mask_last(&m), -1);
}

static void test_mask_format(void **state)
{
	struct nic_mask m;
	char out[64];

	(void)state;
	mask_of("3", &m);
	assert_int_equal(nic_mask_format(&m, "00000000,00000000", out, sizeof(out)), 0);
	assert_string_equal(out, "00000000,00000003");
	assert_int_equal(nic_mask_format(&m, "0", out, sizeof(out)), 0);
	assert_string_equal(out, "3");
	mask_of("1,00000000", &m);
	assert_int_equal(nic_mask_format(&m, "ff,ffffffff", out, sizeof(out)), 0);
	assert_string_equal(out, "01,00000000");
	/* Past the kernel's width (nr_cpu_ids): it would refuse the write. */
	assert_int_equal(nic_mask_format(&m, "ffffffff", out, sizeof(out)), -ERANGE);
	mask_of("10", &m);
	assert_int_equal(nic_mask_format(&m, "f", out, sizeof(out)), -ERANGE);
	assert_int_equal(nic_mask_format(&m, "", out, sizeof(out)), -ERANGE);
	assert_int_equal(nic_mask_format(&m, "00", out, 2), -ERANGE); /* no room */
}

/* The online list, and all on a machine of N CPUs is that many bits. */
static void test_mask_online(void **state)
{
	struct nic_mask m, o;
	char out[64];

	(void)state;
	assert_int_equal(nic_mask_from_list("0-3,8,10-11\n", &m), 0);
	mask_of("d0f", &o);
	assert_true(nic_mask_equal(&m, &o));
	assert_int_equal(nic_mask_from_list("0-39", &m), 0);
	assert_int_equal(nic_mask_format(&m, "00000000,00000000", out, sizeof(out)), 0);
	assert_string_equal(out, "000000ff,ffffffff");
	assert_int_equal(nic_mask_from_list("0", &m), 0);
	assert_int_equal(m.w[0], 1);
	mask_of("3", &o);
	assert_int_equal(nic_mask_outside(&o, &m), 1);
	assert_int_equal(nic_mask_outside(&m, &o), -1);
	assert_int_equal(nic_mask_from_list("3-1", &m), -ERANGE);
	assert_int_equal(nic_mask_from_list("0-8192", &m), -ERANGE);
	assert_int_equal(nic_mask_from_list("a", &m), -EINVAL);
	assert_int_equal(nic_mask_from_list("-1", &m), -EINVAL);
	assert_int_equal(nic_mask_from_list("1-", &m), -EINVAL);
}

static void test_pow2(void **state)
{
	(void)state;
	assert_int_equal(nic_pow2_above(0), 0);
	assert_int_equal(nic_pow2_above(1), 1);
	assert_int_equal(nic_pow2_above(100), 128);
	assert_int_equal(nic_pow2_above(4096), 4096);
	assert_int_equal(nic_pow2_above(4097), 8192);
	assert_int_equal(nic_pow2_above(1u << 30), 1u << 30);
}

static void test_check_keys(void **state)
{
	char why[512];

	(void)state;
	assert_int_equal(nic_check_key("rps_cpus", "all", why, sizeof(why)), 0);
	assert_int_equal(nic_check_key("rps_cpus", "none", why, sizeof(why)), 0);
	assert_int_equal(nic_check_key("xps_cpus", "00000000,000000f0", why, sizeof(why)), 0);
	assert_int_equal(nic_check_key("xps_cpus", "cpus", why, sizeof(why)), -EINVAL);
	assert_contains(why, "xps_cpus");
	assert_contains(why, "all (the online CPUs)");
	assert_int_equal(nic_check_key("rps_flow_cnt", "1073741824", why, sizeof(why)), 0);
	assert_int_equal(nic_check_key("rps_flow_cnt", "1073741825", why, sizeof(why)), -EINVAL);
	assert_contains(why, "power of two");
	assert_int_equal(nic_check_key("txqueuelen", "0", why, sizeof(why)), 0);
	assert_int_equal(nic_check_key("txqueuelen", "-1", why, sizeof(why)), -EINVAL);
	assert_int_equal(nic_check_key("rps_cpu", "all", why, sizeof(why)), -EINVAL);
	assert_contains(why, "rps_cpus");
	assert_ptr_equal(nic_setting_key("queues/rx-0/rps_cpus"), nic_key_find("rps_cpus"));
	assert_null(nic_setting_key("queues/rx-0/txqueuelen"));
	assert_ptr_equal(nic_setting_key("tx_queue_len"), nic_key_find("txqueuelen"));
	assert_null(nic_setting_key("txqueuelen"));
	assert_ptr_equal(nic_setting_key("channels.rx"), nic_key_find("channels.rx"));
	assert_null(nic_setting_key("queues/rx-0/channels.rx"));
}

/* ---- plan, apply, revert on a tree --------------------------------------- */

/* A file of the tree as a value: trailing white space gone. */
static const char *value_of(const char *dir, const char *rel)
{
	static char v[256];
	char *s = tree_read(dir, rel);
	size_t n;

	assert_non_null(s);
	snprintf(v, sizeof(v), "%s", s);
	free(s);
	for (n = strlen(v); n && (v[n - 1] == '\n' || v[n - 1] == ' ');)
		v[--n] = '\0';
	return v;
}

static void unlink_tree_file(const char *dir, const char *rel)
{
	char path[PATH_MAX];

	tree_path(path, sizeof(path), dir, rel);
	assert_int_equal(unlink(path), 0);
}

/* A KVM guest of 40 vCPUs: eth0 with one RX queue and two TX queues, as
 * the kernel lays them out (the masks as wide as its nr_cpu_ids). */
static struct ctx *tree_ctx(struct fx *f, const char *conf)
{
	static const char *const files[][2] = {
		{ "ifindex", "2" },
		{ "tx_queue_len", "1000" },
		{ "queues/rx-0/rps_cpus", "00000000,00000000" },
		{ "queues/rx-0/rps_flow_cnt", "0" },
		{ "queues/tx-0/xps_cpus", "00000000,00000000" },
		{ "queues/tx-1/xps_cpus", "00000000,00000000" },
	};
	char rel[256], line[64];

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(rel, sizeof(rel), "sys/class/net/eth0/%s", files[i][0]);
		snprintf(line, sizeof(line), "%s\n", files[i][1]);
		tree_write(f->dir, rel, line);
	}
	tree_write(f->dir, "sys/devices/system/cpu/online", "0-39\n");
	fx_ctx(f, conf, NULL);
	f->c.only = DOM_NIC;
	return &f->c;
}

static const char conf_queues[] = "[net \"virtio\"]\n"
				  "match.name = eth*\n"
				  "rps_cpus = all\n"
				  "rps_flow_cnt = 3000\n"
				  "xps_cpus = ff,0000ff00\n"
				  "txqueuelen = 2000\n";

static void test_tree_plan(void **state)
{
	struct fx *f = *state;
	struct ctx *c = tree_ctx(f, conf_queues);
	const struct item *it;

	assert_int_equal(nic_plan(c, &f->p), 0);
	/* A file's item is named by its path below the interface, as the
	 * other writers name it. */
	it = want(&f->p, "tx_queue_len", ACT_CHANGE, "1000", "2000");
	assert_string_equal(it->path, "ethtool/ifindex/2/tx_queue_len");
	want(&f->p, "queues/rx-0/rps_cpus", ACT_CHANGE, "00000000,00000000", "000000ff,ffffffff");
	it = want(&f->p, "queues/rx-0/rps_flow_cnt", ACT_CHANGE, "0", "4096");
	assert_contains(it->reason, "asks 3000");
	want(&f->p, "queues/tx-0/xps_cpus", ACT_CHANGE, NULL, "000000ff,0000ff00");
	want(&f->p, "queues/tx-1/xps_cpus", ACT_CHANGE, NULL, "000000ff,0000ff00");
	assert_null(find_item(&f->p, "eth0", "queues/rx-1/rps_cpus"));
	assert_int_equal(count_items(&f->p, "eth0"), 5);
}

/* Written, read back, a second plan keeps; revert restores each original
 * (a mask in the kernel's width, compared as CPUs). */
static void test_tree_apply_revert(void **state)
{
	struct fx *f = *state;
	struct ctx *c = tree_ctx(f, conf_queues);
	const char *orig[32];
	struct item *items[32];
	size_t n = 0;

	assert_int_equal(nic_plan(c, &f->p), 0);
	for (size_t i = 0; i < f->p.n; i++) {
		nic_apply(c, &f->p.v[i]);
		assert_int_equal(f->p.v[i].result, RES_APPLIED);
	}
	assert_string_equal(value_of(f->dir, "sys/class/net/eth0/queues/tx-1/xps_cpus"), "000000ff,0000ff00");
	assert_string_equal(value_of(f->dir, "sys/class/net/eth0/queues/rx-0/rps_flow_cnt"), "4096");
	plan_free(&f->p);
	assert_int_equal(nic_plan(c, &f->p), 0);
	for (size_t i = 0; i < f->p.n; i++)
		assert_int_equal(f->p.v[i].action, ACT_KEEP);
	for (size_t i = 0; i < f->p.n; i++) {
		assert_true(nic_batched(f->p.v[i].setting));
		items[n] = &f->p.v[i];
		orig[n++] = strstr(f->p.v[i].setting, "_cpus") ? "00000000,00000000" : "0";
	}
	orig[0] = "1000"; /* txqueuelen, first in the table */
	assert_int_equal(nic_revert_batch(c, items, orig, n), 0);
	assert_string_equal(value_of(f->dir, "sys/class/net/eth0/queues/rx-0/rps_cpus"), "00000000,00000000");
	assert_string_equal(value_of(f->dir, "sys/class/net/eth0/tx_queue_len"), "1000");
	assert_string_equal(value_of(f->dir, "sys/class/net/eth0/queues/rx-0/rps_flow_cnt"), "0");
}

/* A CPU not online, one past the kernel's width, a file the tree lacks. */
static void test_tree_refused(void **state)
{
	struct fx *f = *state;
	struct ctx *c = tree_ctx(f, "[net \"x\"]\nmatch.name = eth0\nrps_cpus = 10000000000\n"
				    "xps_cpus = 1,00000000,00000000\n");
	const struct item *it;

	tree_write(f->dir, "sys/devices/system/cpu/online", "0-39,64\n");
	unlink_tree_file(f->dir, "sys/class/net/eth0/queues/tx-1/xps_cpus");
	assert_int_equal(nic_plan(c, &f->p), 0);
	it = want(&f->p, "queues/rx-0/rps_cpus", ACT_SKIP, NULL, NULL);
	assert_true(it->unmet);
	assert_contains(it->reason, "names CPU 40, which this machine does not have online (online: 0-39,64)");
	it = want(&f->p, "queues/tx-0/xps_cpus", ACT_SKIP, NULL, NULL);
	assert_true(it->unmet);
	assert_contains(it->reason, "names CPU 64, past this kernel's CPUs (nr_cpu_ids: 00000000,00000000 has "
				    "room for 64)");
	it = want(&f->p, "queues/tx-1/xps_cpus", ACT_SKIP, NULL, NULL);
	assert_true(it->unknown);
}

/* Only a flow count is rounded: a length written as 0100 is asked as 100,
 * with no note of powers of two; 4096 flows written 04096 are what is kept. */
static void test_tree_no_rounding(void **state)
{
	struct fx *f = *state;
	struct ctx *c = tree_ctx(f, "[net \"x\"]\nmatch.name = eth0\ntxqueuelen = 0100\nrps_flow_cnt = 04096\n");
	const struct item *it;

	assert_int_equal(nic_plan(c, &f->p), 0);
	it = want(&f->p, "tx_queue_len", ACT_CHANGE, "1000", "100");
	assert_not_contains(it->reason, "power of two");
	it = want(&f->p, "queues/rx-0/rps_flow_cnt", ACT_CHANGE, "0", "4096");
	assert_not_contains(it->reason, "power of two");
}

/* The online CPUs counted as the masks read the list: a CPU named twice
 * once, a list past the kernel's most CPUs unknown (0). */
static void test_online_count(void **state)
{
	struct fx *f = *state;
	struct ctx *c = tree_ctx(f, "");

	assert_int_equal(nic_online_cpus(&c->root), 40);
	tree_write(f->dir, "sys/devices/system/cpu/online", "0-3,2-5\n");
	assert_int_equal(nic_online_cpus(&c->root), 6);
	tree_write(f->dir, "sys/devices/system/cpu/online", "0-99999\n");
	assert_int_equal(nic_online_cpus(&c->root), 0);
	tree_write(f->dir, "sys/devices/system/cpu/online", "0-2147483647,0-2147483647\n");
	assert_int_equal(nic_online_cpus(&c->root), 0);
	tree_write(f->dir, "sys/devices/system/cpu/online", "0-3x\n");
	assert_int_equal(nic_online_cpus(&c->root), 0);
}

/* A queue gone since apply (fewer channels): nothing to restore. */
static void test_tree_queue_gone(void **state)
{
	struct fx *f = *state;
	struct ctx *c = tree_ctx(f, conf_queues);
	const char *orig[1] = { "00000000,00000000" };
	struct item *it;

	assert_int_equal(nic_plan(c, &f->p), 0);
	it = (struct item *)find_item(&f->p, "eth0", "queues/tx-1/xps_cpus");
	unlink_tree_file(f->dir, "sys/class/net/eth0/queues/tx-1/xps_cpus");
	assert_int_equal(nic_revert_batch(c, &it, orig, 1), 0);
	assert_int_equal(it->action, ACT_SKIP);
	assert_contains(it->reason, "no such queue now");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mask_parse),
		cmocka_unit_test(test_mask_bounds),
		cmocka_unit_test(test_mask_format),
		cmocka_unit_test(test_mask_online),
		cmocka_unit_test(test_pow2),
		cmocka_unit_test(test_check_keys),
		FX_TEST(test_tree_plan),
		FX_TEST(test_tree_apply_revert),
		FX_TEST(test_tree_refused),
		FX_TEST(test_tree_queue_gone),
		FX_TEST(test_tree_no_rounding),
		FX_TEST(test_online_count),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
