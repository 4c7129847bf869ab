// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * measure tcp's bbr where the kernel may lack it: the host's answer read
 * through a tree (the list, then the module tree and the kernel asked as
 * the net domain asks), the verdict on a lossy cubic flow for each answer,
 * and --apply, which writes no file for a bbr the kernel does not have.
 */
#include "unit.h"
#include "measure_fx.h"
#include "measure/internal.h"
#include "measure/measure.h"
#include "measure/report.h"

#define CC_LIST "proc/sys/net/ipv4/tcp_available_congestion_control"
#define CONF "etc/sysctl.d/60-earlytune-measure-tcp_congestion_control.conf"

/* 10 s of cubic on a 1 Gbit/s path losing 1% of its segments: the
 * congestion window the limit (test_measure.c's test_cwnd_and_loss). */
static void lossy(struct mt_flow *f)
{
	struct rec a = wa, b = wb;

	a.app_limited = b.app_limited = false;
	a.snd_wnd = b.snd_wnd = 22 << 20;
	b.sndbuf = 0, b.rate = 125000000, b.retrans = 2417;
	flow2(f, &a, &b);
}

static void verdict(const struct mt_host *h, struct mt_verdict *v)
{
	struct mt_flow f;

	lossy(&f);
	mt_interpret(&f, h, v);
	assert_int_equal(v->limit, MT_CWND);
}

/* Listed: offered, and the kernel is not probed for it. */
static void test_listed(void **state)
{
	struct fx *f = *state;
	struct mt_host h;

	tree_write(f->dir, CC_LIST, "reno cubic bbr\n");
	assert_int_equal(root_open(&f->c.root, f->dir), 0);
	mt_host_read(&f->c.root, &h);
	assert_int_equal(h.bbr, 1);
	mt_host_bbr(&f->c, &h);
	assert_int_equal(h.bbr, 1);
	assert_null(f->c.mods);
}

/* Not listed, and a kernel that cannot load modules: not in this kernel;
 * the limit named, no change, and what would offer bbr said. */
static void test_absent(void **state)
{
	struct fx *f = *state;
	struct mt_verdict v;
	struct mt_host h;

	tree_write(f->dir, CC_LIST, "reno cubic\n");
	tree_write(f->dir, "proc/sys/kernel/osrelease", "6.18.0-et\n");
	assert_int_equal(root_open(&f->c.root, f->dir), 0);
	mt_host_read(&f->c.root, &h);
	assert_int_equal(h.bbr, 0);
	mt_host_bbr(&f->c, &h);
	assert_non_null(f->c.mods);
	assert_false(f->c.kernel.modules);
	assert_int_equal(h.bbr, 0);
	assert_contains(h.bbr_why, "tcp_bbr: not in this kernel (bbr is not in /" CC_LIST);
	h = (struct mt_host){ .page = 4096, .bbr = 0 };
	snprintf(h.bbr_why, sizeof(h.bbr_why), "tcp_bbr: not in this kernel");
	verdict(&h, &v);
	assert_null(v.change.sysctl);
	assert_string_equal(v.change.lacking, "bbr");
	assert_contains(v.why, "the congestion window on a lossy path: cubic with 2417 retransmits");
	assert_contains(v.why, "bbr would not, but it is not available here (tcp_bbr: not in this kernel): no change");
	assert_contains(v.why, "CONFIG_TCP_CONG_BBR");
}

/* Not listed, a module the module tree has: bbr suggested, the module
 * said; unknown: suggested, the unknown said. */
static void test_module_and_unknown(void **state)
{
	struct fx *f = *state;
	struct mt_verdict v;
	struct mt_host h;

	tree_write(f->dir, "proc/modules", "");
	tree_write(f->dir, "proc/sys/kernel/osrelease", "6.1.0-et");
	tree_write(f->dir, "lib/modules/6.1.0-et/modules.dep", "");
	tree_write(f->dir, CC_LIST, "reno cubic\n");
	f->fk.found = "tcp_bbr";
	assert_int_equal(root_open(&f->c.root, f->dir), 0);
	assert_int_equal(kernel_probe(&f->c.kernel, &f->c.root), 0);
	assert_int_equal(mods_new(&f->c.mods, &f->c.root, &f->c.kernel), 0);
	fake_kmod_install(f->c.mods, &f->fk);
	mt_host_read(&f->c.root, &h);
	mt_host_bbr(&f->c, &h);
	assert_int_equal(h.bbr, 2);
	verdict(&h, &v);
	assert_string_equal(v.change.value, "bbr");
	assert_null(v.change.lacking);
	assert_contains(v.why, "; tcp_bbr is a module the kernel loads when the sysctl names it");
	h = host();
	h.bbr = 3;
	snprintf(h.bbr_why, sizeof(h.bbr_why), "tcp_bbr: built in, loadable or absent is unknown");
	verdict(&h, &v);
	assert_string_equal(v.change.value, "bbr");
	assert_contains(v.why, "; whether this kernel has bbr is unknown (tcp_bbr: built in, loadable or absent is "
			       "unknown): --apply sets it first");
}

/* --apply of a lossy flow: no file and the sysctl untouched where the
 * kernel has no bbr; set and kept where it has. */
static void test_apply(void **state)
{
	struct fx *f = *state;
	struct measure_opts o = { .seconds = 10, .apply = true };
	struct mt_report rep = { .seconds = 10, .nflows = 1, .cap = 1 };
	struct mt_flow fl;
	size_t changed = SIZE_MAX;
	char now[32];

	tree_write(f->dir, "proc/sys/net/ipv4/tcp_congestion_control", "cubic\n");
	assert_int_equal(root_open(&f->c.root, f->dir), 0);
	lossy(&fl);
	rep.flows = &fl;
	rep.host = host();
	rep.host.bbr = 0;
	assert_int_equal(mt_apply(&f->c, &rep, &o, &changed), 0);
	assert_int_equal(changed, SIZE_MAX);
	assert_false(root_exists(&f->c.root, CONF));
	assert_true(root_read(&f->c.root, "proc/sys/net/ipv4/tcp_congestion_control", now, sizeof(now)) > 0);
	assert_string_equal(now, "cubic");
	rep.host.bbr = 2;
	assert_int_equal(mt_apply(&f->c, &rep, &o, &changed), 0);
	assert_int_equal(changed, 0);
	assert_true(root_exists(&f->c.root, CONF));
	assert_true(root_read(&f->c.root, "proc/sys/net/ipv4/tcp_congestion_control", now, sizeof(now)) > 0);
	assert_string_equal(now, "bbr");
}

static const struct CMUnitTest tests[] = {
	FX_TEST(test_listed),
	FX_TEST(test_absent),
	FX_TEST(test_module_and_unknown),
	FX_TEST(test_apply),
};

UNIT_MAIN("measure_bbr", tests)
