// SPDX-License-Identifier: LGPL-2.1-or-later
/* kmod.c behind its seam, kernel.c's probe, and a scheduler that needs a
 * module loaded before the queue offers it. */
#include "unit.h"
#include "base/kconfig.h"
#include "base/kparam.h"
#include "block/block.h"

/* A mods on the fixture's tree with a fake kernel; modules: CONFIG_MODULES
 * (proc/modules and a release to look modules up in, or proc/sys/kernel
 * without proc/modules and modprobe: a fact, not a tree that lacks them). */
static struct mods *fake(struct fx *f, bool modules)
{
	if (modules) {
		tree_write(f->dir, "proc/modules", "");
		tree_write(f->dir, "proc/sys/kernel/osrelease", "6.1.0-et");
		tree_write(f->dir, "lib/modules/6.1.0-et/modules.dep", "");
	} else {
		tree_mkdir(f->dir, "proc/sys/kernel");
	}
	assert_int_equal(root_open(&f->c.root, f->dir), 0);
	assert_int_equal(kernel_probe(&f->c.kernel, &f->c.root), 0);
	assert_int_equal(f->c.kernel.modules, modules);
	assert_false(f->c.kernel.modules_unknown);
	assert_int_equal(mods_new(&f->c.mods, &f->c.root, &f->c.kernel), 0);
	fake_kmod_install(f->c.mods, &f->fk);
	return f->c.mods;
}

static void test_available(void **state)
{
	struct fx *f = *state;
	struct mods *m;
	char why[256];

	f->fk.live = "tcp_bbr sch_fq";
	f->fk.builtin = "mq-deadline";
	f->fk.coming = "kyber-iosched";
	f->fk.found = "bfq kyber-iosched";
	m = fake(f, true);
	assert_int_equal(mods_available(m, "tcp_bbr", why, sizeof(why)), 1);
	assert_int_equal(mods_available(m, "mq-deadline", why, sizeof(why)), 1);
	assert_int_equal(f->fk.nlookup, 0);
	assert_int_equal(mods_available(m, "bfq", why, sizeof(why)), 2);
	assert_int_equal(f->fk.nlookup, 1);
	assert_int_equal(mods_available(m, "kyber-iosched", why, sizeof(why)), 2);
	strcpy(why, "");
	assert_int_equal(mods_available(m, "nosuchmod", why, sizeof(why)), 0);
	assert_contains(why, "nosuchmod");
	assert_contains(why, "not found");
	assert_contains(why, f->c.kernel.release);
	/* Nothing is ever loaded by asking. */
	assert_int_equal(f->fk.ninsert, 0);
}

static void test_available_without_modules(void **state)
{
	struct fx *f = *state;
	struct mods *m;
	char why[256] = "";

	f->fk.builtin = "mq-deadline";
	f->fk.found = "bfq";
	m = fake(f, false);
	/* No modules.builtin either: nobody but the kernel can tell. */
	assert_int_equal(mods_available(m, "bfq", why, sizeof(why)), 3);
	assert_string_equal(why, "bfq: built in or absent is unknown: no /lib/modules/unknown/modules.builtin in this tree (nor the kernel's configuration; the kernel cannot load modules: no /proc/modules nor /proc/sys/kernel/modprobe)");
	assert_int_equal(f->fk.nlookup, 0);
	/* Built in needs no module support. */
	assert_int_equal(mods_available(m, "mq-deadline", why, sizeof(why)), 1);
}

static void test_absent_without_modules(void **state)
{
	struct fx *f = *state;
	struct mods *m;
	char why[256] = "", rel[PATH_MAX];

	f->fk.found = "bfq";
	m = fake(f, false);
	snprintf(rel, sizeof(rel), "lib/modules/%s/modules.builtin", f->c.kernel.release);
	tree_write(f->dir, rel, "kernel/block/mq-deadline.ko\n");
	/* modules.builtin lists what is built in: what it lacks is absent. */
	assert_int_equal(mods_available(m, "bfq", why, sizeof(why)), 0);
	assert_contains(why, "bfq: kernel has no module support (no /proc/modules nor /proc/sys/kernel/modprobe) and does not have it built in");
	assert_int_equal(f->fk.nlookup, 0);
}

/* Issue 9 (unknown is unknown): a tree without proc/ says nothing of the
 * kernel's module support; nor, for --kernel, one without lib/modules/VER. */
static void test_modules_unknown(void **state)
{
	struct fx *f = *state;
	struct kernel *k = &f->c.kernel;
	char why[256] = "";

	assert_int_equal(root_open(&f->c.root, f->dir), 0);
	assert_int_equal(kernel_probe(k, &f->c.root), 0);
	assert_false(k->modules);
	assert_true(k->modules_unknown);
	assert_int_equal(mods_new(&f->c.mods, &f->c.root, k), 0);
	fake_kmod_install(f->c.mods, &f->fk);
	assert_int_equal(mods_available(f->c.mods, "bfq", why, sizeof(why)), 3);
	assert_string_equal(why, "bfq: built in, loadable or absent is unknown: no /proc in this tree");
	kernel_target(k, &f->c.root, "6.9.0-et");
	assert_true(k->modules_unknown);
	assert_string_equal(k->no_modules, "no /lib in this tree");
	tree_mkdir(f->dir, "lib/modules/6.9.0-et");
	kernel_target(k, &f->c.root, "6.9.1-et");
	assert_string_equal(k->no_modules, "no /lib/modules/6.9.1-et in this tree");
	/* The release's directory without modules.dep: no module support. */
	kernel_target(k, &f->c.root, "6.9.0-et");
	assert_false(k->modules_unknown);
	assert_string_equal(k->no_modules, "no /lib/modules/6.9.0-et/modules.dep");
	assert_int_equal(mods_available(f->c.mods, "bfq", why, sizeof(why)), 3);
	assert_string_equal(why, "bfq: built in or absent is unknown: no /lib/modules/6.9.0-et/modules.builtin in this tree (nor the kernel's configuration; the kernel cannot load modules: no /lib/modules/6.9.0-et/modules.dep)");
}

/* Where modules.builtin cannot tell, the kernel's configuration does: =y
 * is in the kernel, "is not set" is absent whatever the module tree holds. */
static void test_available_kconfig(void **state)
{
	struct fx *f = *state;
	struct mods *m;
	char why[512] = "";

	f->fk.found = "sch_fq";
	tree_write(f->dir, "boot/config-unknown", "CONFIG_NET_SCH_FQ_CODEL=y\n# CONFIG_NET_SCH_FQ is not set\n");
	m = fake(f, false);
	assert_int_equal(mods_available_cfg(m, "sch_fq_codel", "CONFIG_NET_SCH_FQ_CODEL", why, sizeof(why)), 1);
	assert_int_equal(mods_available_cfg(m, "sch_fq", "CONFIG_NET_SCH_FQ", why, sizeof(why)), 0);
	assert_string_equal(why, "sch_fq: not in this kernel (CONFIG_NET_SCH_FQ is not set in /boot/config-unknown)");
	/* A symbol the file lacks had its dependencies unmet: not built. */
	assert_int_equal(mods_available_cfg(m, "sch_cake", "CONFIG_NET_SCH_CAKE", why, sizeof(why)), 0);
	/* No symbol to ask: unknown, as before. */
	assert_int_equal(mods_available_cfg(m, "sch_cake", NULL, why, sizeof(why)), 3);
	assert_int_equal(f->fk.nlookup, 0);
}

/* /proc/config.gz, the running kernel's own: gzip, inflated. */
static void test_kconfig_gz(void **state)
{
	struct fx *f = *state;
	char *text = NULL, from[64], cmd[PATH_MAX + 128];

	tree_write(f->dir, "proc/sys/kernel/osrelease", "6.1.0-et");
	tree_write(f->dir, "config", "CONFIG_TCP_CONG_BBR=y\nCONFIG_NET_SCH_FQ=m\n# CONFIG_NET_SCH_NETEM is not set\n");
	snprintf(cmd, sizeof(cmd), "gzip -c '%s/config' >'%s/proc/config.gz'", f->dir, f->dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(root_open(&f->c.root, f->dir), 0);
	assert_int_equal(kernel_probe(&f->c.kernel, &f->c.root), 0);
	assert_int_equal(kconfig_read(&f->c.root, &f->c.kernel, &text, from, sizeof(from)), 0);
	assert_string_equal(from, "/proc/config.gz");
	assert_int_equal(kconfig_value(text, "CONFIG_TCP_CONG_BBR"), 'y');
	assert_int_equal(kconfig_value(text, "CONFIG_NET_SCH_FQ"), 'm');
	assert_int_equal(kconfig_value(text, "CONFIG_NET_SCH_NETEM"), 'n');
	assert_int_equal(kconfig_value(text, "CONFIG_NET_SCH"), 'n');
	free(text);
	/* Another kernel's configuration is never the running one's. */
	f->c.kernel.other = true;
	assert_int_equal(kconfig_read(&f->c.root, &f->c.kernel, &text, from, sizeof(from)), -ENOENT);
	/* A truncated stream is no configuration. */
	snprintf(cmd, sizeof(cmd), "head -c 20 '%s/proc/config.gz' >'%s/t' && mv '%s/t' '%s/proc/config.gz'", f->dir,
		 f->dir, f->dir, f->dir);
	assert_int_equal(system(cmd), 0);
	f->c.kernel.other = false;
	assert_int_equal(kconfig_read(&f->c.root, &f->c.kernel, &text, from, sizeof(from)), -EBADMSG);
}

/* proc/ without modules is no module support only where proc/sys/kernel
 * shows no modprobe: a capture that kept modprobe, or has no
 * proc/sys/kernel, only lacks the list. */
static void test_modules_modprobe(void **state)
{
	struct fx *f = *state;
	struct kernel *k = &f->c.kernel;

	tree_write(f->dir, "proc/sys/kernel/modprobe", "/sbin/modprobe");
	assert_int_equal(root_open(&f->c.root, f->dir), 0);
	assert_int_equal(kernel_probe(k, &f->c.root), 0);
	assert_false(k->modules);
	assert_true(k->modules_unknown);
	assert_string_equal(k->no_modules, "no /proc/modules in this tree");
	tree_remove(f->dir);
	tree_new(f->dir, sizeof(f->dir));
	tree_write(f->dir, "proc/cmdline", "ro");
	root_close(&f->c.root);
	assert_int_equal(root_open(&f->c.root, f->dir), 0);
	assert_int_equal(kernel_probe(k, &f->c.root), 0);
	assert_true(k->modules_unknown);
	assert_string_equal(k->no_modules, "no /proc/modules nor /proc/sys/kernel in this tree");
	kernel_free(k);
}

static void test_available_truncates(void **state)
{
	struct fx *f = *state;
	struct mods *m = fake(f, true);
	char why[16];

	memset(why, 'x', sizeof(why));
	assert_int_equal(mods_available(m, "a-module-with-a-long-name", why, 8), 0);
	assert_int_equal(strlen(why), 7);
	assert_int_equal(why[8], 'x');
}

static void test_load(void **state)
{
	struct fx *f = *state;
	struct mods *m;

	f->fk.live = "tcp_bbr";
	f->fk.builtin = "mq-deadline";
	f->fk.found = "bfq sch_fq";
	m = fake(f, true);
	assert_int_equal(mods_load(m, "tcp_bbr", NULL), 0);
	assert_int_equal(mods_load(m, "mq-deadline", NULL), 0);
	assert_int_equal(f->fk.ninsert, 0);
	assert_int_equal(mods_load(m, "bfq", NULL), 0);
	assert_int_equal(f->fk.ninsert, 1);
	assert_string_equal(f->fk.inserted, "bfq");
	f->fk.insert_ret = -EPERM;
	assert_int_equal(mods_load(m, "sch_fq", NULL), -EPERM);
	assert_string_equal(f->fk.inserted, "bfq sch_fq");
}

/* The real state() reads the tree: /sys/module and modules.builtin. */
static void test_real_state(void **state)
{
	struct fx *f = *state;
	struct mods *m;
	char why[512] = "";

	tree_write(f->dir, "proc/sys/kernel/osrelease", "6.1.0-unit\n");
	tree_write(f->dir, "proc/modules", "tcp_bbr 20480 1 - Live 0x0\n");
	tree_write(f->dir, "sys/module/tcp_bbr/initstate", "live\n");
	tree_write(f->dir, "sys/module/kyber_iosched/initstate", "live\n");
	tree_write(f->dir, "sys/module/sch_fq/initstate", "coming\n");
	tree_mkdir(f->dir, "sys/module/dm_mod/parameters");
	tree_write(f->dir, "lib/modules/6.1.0-unit/modules.builtin",
		   "kernel/block/mq-deadline.ko\nkernel/crypto/crc32c_generic.ko\nkernel/block/bfq\n");
	tree_write(f->dir, "lib/modules/6.1.0-unit/modules.dep", "");
	assert_int_equal(root_open(&f->c.root, f->dir), 0);
	assert_int_equal(kernel_probe(&f->c.kernel, &f->c.root), 0);
	assert_true(f->c.kernel.modules);
	assert_int_equal(mods_new(&f->c.mods, &f->c.root, &f->c.kernel), 0);
	m = f->c.mods;
	assert_int_equal(mods_available(m, "tcp_bbr", why, sizeof(why)), 1);
	assert_int_equal(mods_available(m, "kyber-iosched", why, sizeof(why)), 1);
	assert_int_equal(mods_available(m, "mq-deadline", why, sizeof(why)), 1);
	assert_int_equal(mods_available(m, "mq_deadline", why, sizeof(why)), 1);
	assert_int_equal(mods_available(m, "crc32c-generic", why, sizeof(why)), 1);
	assert_int_equal(mods_available(m, "dm_mod", why, sizeof(why)), 1);
	/* A module still initialising is not in the kernel yet; nor is one whose
	 * modules.builtin line is not a .ko; nothing resolves in this tree. */
	assert_int_equal(mods_available(m, "sch_fq", why, sizeof(why)), 0);
	assert_contains(why, "sch_fq: module not found under /lib/modules/6.1.0-unit");
	assert_int_equal(mods_available(m, "bfq", why, sizeof(why)), 0);
	assert_int_equal(mods_load(m, "tcp_bbr", NULL), 0);
	assert_int_equal(mods_load(m, "mq-deadline", NULL), 0);
	/* Outside the host root nothing is ever inserted. */
	assert_true(mods_load(m, "bfq", NULL) < 0);
}

/* ---- a scheduler behind a module ------------------------------------------------------ */

static void sched_tree(struct fx *f, const char *sched)
{
	tree_write(f->dir, "proc/modules", "");
	tree_write(f->dir, "proc/sys/kernel/osrelease", "6.1.0-et");
	tree_write(f->dir, "lib/modules/6.1.0-et/modules.dep", "");
	tree_write(f->dir, "sys/block/vda/queue/scheduler", sched);
	tree_symlink(f->dir, "sys/block/vda/device/driver", "../../../../bus/virtio/drivers/virtio_blk");
}

static void test_plan_loads_bfq(void **state)
{
	struct fx *f = *state;
	const struct item *it;

	sched_tree(f, "[none]\n");
	f->fk.found = "bfq";
	fx_ctx(f, "[block]\nscheduler = bfq none\n", NULL);
	assert_true(f->c.kernel.modules);
	assert_int_equal(block_plan(&f->c, &f->p), 0);
	it = find_item(&f->p, "vda", "queue/scheduler");
	assert_non_null(it);
	assert_int_equal(it->action, ACT_CHANGE);
	assert_string_equal(it->current, "none");
	assert_string_equal(it->desired, "bfq");
	assert_non_null(it->module);
	assert_string_equal(it->module, "bfq");
	/* Planning loads nothing; apply's mods_load does. */
	assert_int_equal(f->fk.ninsert, 0);
	assert_int_equal(mods_load(f->c.mods, it->module, NULL), 0);
	assert_string_equal(f->fk.inserted, "bfq");
}

static void test_plan_module_names(void **state)
{
	struct fx *f = *state;
	const struct item *it;

	sched_tree(f, "[none]\n");
	f->fk.found = "kyber-iosched mq-deadline";
	fx_ctx(f, "[block]\nscheduler = kyber mq-deadline\n", NULL);
	assert_int_equal(block_plan(&f->c, &f->p), 0);
	it = find_item(&f->p, "vda", "queue/scheduler");
	assert_non_null(it);
	assert_string_equal(it->desired, "kyber");
	assert_string_equal(it->module, "kyber-iosched");
}

static void test_plan_no_module_when_offered(void **state)
{
	struct fx *f = *state;
	const struct item *it;

	/* Offered: chosen without the module; loadable bfq comes second. */
	sched_tree(f, "[none] mq-deadline\n");
	f->fk.found = "bfq mq-deadline";
	fx_ctx(f, "[block]\nscheduler = none bfq\n", NULL);
	assert_int_equal(block_plan(&f->c, &f->p), 0);
	it = find_item(&f->p, "vda", "queue/scheduler");
	assert_non_null(it);
	assert_int_equal(it->action, ACT_KEEP);
	assert_string_equal(it->desired, "none");
	assert_null(it->module);
	assert_int_equal(f->fk.nlookup, 0);
}

static void test_plan_module_not_found(void **state)
{
	struct fx *f = *state;
	const struct item *it;

	sched_tree(f, "[none]\n");
	fx_ctx(f, "[block]\nscheduler = bfq\n", NULL);
	assert_int_equal(block_plan(&f->c, &f->p), 0);
	it = find_item(&f->p, "vda", "queue/scheduler");
	assert_non_null(it);
	assert_int_equal(it->action, ACT_SKIP);
	assert_null(it->module);
	assert_contains(it->reason, "bfq: module not found");
}

/* ---- kernel.c ------------------------------------------------------------------------------ */

static void test_kernel_probe(void **state)
{
	struct fx *f = *state;
	struct kernel *k = &f->c.kernel;

	tree_write(f->dir, "proc/sys/kernel/osrelease", "6.8.0-31-generic\n");
	tree_write(f->dir, "proc/cmdline", "root=/dev/vda1 earlytune=0\n");
	assert_int_equal(root_open(&f->c.root, f->dir), 0);
	assert_int_equal(kernel_probe(k, &f->c.root), 0);
	assert_string_equal(k->release, "6.8.0-31-generic");
	assert_int_equal(k->version, KV(6, 8));
	assert_true(k->version >= KV(5, 0));
	assert_non_null(k->cmdline);
	assert_true(kparam_disabled(k->cmdline));
	assert_false(k->modules);
	assert_false(k->hv_probed); /* asked lazily, by the first SCSI disk */
	kernel_free(k);
	assert_null(k->cmdline);
}

/* Issue 8 defect 7: a command line that cannot be read (it may hold
 * earlytune=0) is an error of the probe, not an empty command line. */
static void test_kernel_probe_unreadable(void **state)
{
	struct fx *f = *state;
	struct kernel *k = &f->c.kernel;

	tree_write(f->dir, "proc/sys/kernel/osrelease", "6.8.0-31-generic\n");
	tree_mkdir(f->dir, "proc/cmdline");
	assert_int_equal(root_open(&f->c.root, f->dir), 0);
	assert_int_equal(kernel_probe(k, &f->c.root), -EISDIR);
	assert_string_equal(k->unreadable, "proc/cmdline");
	assert_null(k->cmdline);
	kernel_free(k);
}

static void test_kernel_probe_fallbacks(void **state)
{
	struct fx *f = *state;
	struct kernel *k = &f->c.kernel;

	tree_write(f->dir, "proc/version",
		   "Linux version 4.19.0-27-amd64 (debian-kernel@lists.debian.org) #1 SMP\n");
	tree_write(f->dir, "proc/modules", "");
	assert_int_equal(root_open(&f->c.root, f->dir), 0);
	assert_int_equal(kernel_probe(k, &f->c.root), 0);
	assert_string_equal(k->release, "4.19.0-27-amd64");
	assert_int_equal(k->version, KV(4, 19));
	assert_null(k->cmdline);
	assert_true(k->modules);
	kernel_free(k);
	root_close(&f->c.root);
	tree_remove(f->dir);
	tree_new(f->dir, sizeof(f->dir));
	*k = (struct kernel){ 0 };
	assert_int_equal(root_open(&f->c.root, f->dir), 0);
	assert_int_equal(kernel_probe(k, &f->c.root), 0);
	assert_string_equal(k->release, "unknown");
	assert_int_equal(k->version, 0);
}

static const struct CMUnitTest tests[] = {
	FX_TEST(test_available),
	FX_TEST(test_available_without_modules),
	FX_TEST(test_absent_without_modules),
	FX_TEST(test_modules_unknown),
	FX_TEST(test_available_kconfig),
	FX_TEST(test_kconfig_gz),
	FX_TEST(test_modules_modprobe),
	FX_TEST(test_available_truncates),
	FX_TEST(test_load),
	FX_TEST(test_real_state),
	FX_TEST(test_plan_loads_bfq),
	FX_TEST(test_plan_module_names),
	FX_TEST(test_plan_no_module_when_offered),
	FX_TEST(test_plan_module_not_found),
	FX_TEST(test_kernel_probe),
	FX_TEST(test_kernel_probe_unreadable),
	FX_TEST(test_kernel_probe_fallbacks),
};

UNIT_MAIN("kmod", tests)
