// SPDX-License-Identifier: LGPL-2.1-or-later
/* writers*.c: each source's reader on fake trees, and the verdicts. */
#include "writers_fx.h"
#include "writers/udev.h"

/* The verdict of entry i for an item. */
static struct wjudge judge(struct wfx *x, size_t i, const char *domain, const char *target, const char *setting,
			   const char *path, const char *desired)
{
	struct wjudge j = { 0 };

	x->it = (struct item){ .domain = domain, .target = (char *)target, .setting = (char *)setting,
			       .path = (char *)path, .desired = (char *)desired };
	assert_true(i < x->w.n);
	x->w.v[i].judge(&x->w.v[i], &x->w, &x->it, &j);
	return j;
}

/* ---- udev ---- */

static void test_udev_pairs(void **state)
{
	const char *p = "ACTION==\"add|change\", KERNEL!=\"sd*\",ATTR{queue/scheduler}:=\"b\\\"fq\" RUN+=e\"x\"";
	struct udev_pair u;

	assert_int_equal(udev_next_pair(&p, &u), 1);
	assert_string_equal(u.key, "ACTION");
	assert_string_equal(u.op, "==");
	assert_string_equal(u.value, "add|change");
	assert_int_equal(udev_next_pair(&p, &u), 1);
	assert_string_equal(u.op, "!=");
	assert_int_equal(udev_next_pair(&p, &u), 1);
	assert_string_equal(u.attr, "queue/scheduler");
	assert_string_equal(u.op, ":=");
	assert_string_equal(u.value, "b\"fq");
	assert_int_equal(udev_next_pair(&p, &u), 1);
	assert_string_equal(u.key, "RUN");
	assert_string_equal(u.value, "x");
	assert_int_equal(udev_next_pair(&p, &u), 0);
	/* malformed: no operator, no closing quote, no closing brace */
	p = "KERNEL \"sda\"";
	assert_int_equal(udev_next_pair(&p, &u), -EINVAL);
	p = "KERNEL==\"sda";
	assert_int_equal(udev_next_pair(&p, &u), -EINVAL);
	p = "ATTR{queue/scheduler=\"x\"";
	assert_int_equal(udev_next_pair(&p, &u), -EINVAL);
	p = "  # a comment";
	assert_int_equal(udev_next_pair(&p, &u), 0);
}

static void test_udev_rules(void **state)
{
	struct wfx *x = *state;
	struct udev_when when;
	struct wjudge j;

	tree_write(x->dir, "sys/block/sda/queue/rotational", "1\n");
	tree_write(x->dir, "usr/lib/udev/rules.d/60-block-scheduler.rules",
		   "ACTION==\"add\", SUBSYSTEM==\"block\", ENV{DEVTYPE}==\"disk\", \\\n"
		   "  KERNEL==\"mmcblk*[0-9]|msblk*[0-9]|mspblk*[0-9]|sd*[!0-9]|sr*\", \\\n"
		   "  ATTR{queue/scheduler}=\"bfq\"\n");
	tree_write(x->dir, "etc/udev/rules.d/60-block-scheduler.rules.bak", "ATTR{queue/scheduler}=\"x\"\n");
	tree_write(x->dir, "run/udev/rules.d/99-x.rules",
		   "ATTR{queue/rotational}==\"1\", ATTR{queue/read_ahead_kb}=\"4096\"\n"
		   "ACTION==\"add\", DRIVERS==\"ahci\", RUN+=\"/bin/echo none > /sys%p/queue/scheduler\"\n");
	wload(x, writers_udev);
	assert_int_equal(x->w.n, 3);
	assert_string_equal(x->w.v[0].file, "/usr/lib/udev/rules.d/60-block-scheduler.rules");
	assert_int_equal(x->w.v[0].line, 1);
	assert_string_equal(x->w.v[0].value, "bfq");
	assert_int_equal(udev_rule_matches(&x->w, x->w.v[0].extra, "sda", &when), 1);
	assert_true(when.add);
	assert_false(when.change);
	assert_int_equal(udev_rule_matches(&x->w, x->w.v[0].extra, "sda1", &when), 0);
	assert_int_equal(udev_rule_matches(&x->w, x->w.v[0].extra, "nvme0n1", &when), 0);
	j = judge(x, 0, "block", "sda", "queue/scheduler", "", "none");
	assert_int_equal(j.applies, 1);
	assert_false(j.beats); /* add only: earlytune's RUN comes after */
	/* no ACTION: every event, change included; ATTR{} read from the tree */
	j = judge(x, 1, "block", "sda", "queue/read_ahead_kb", "", "1024");
	assert_int_equal(j.applies, 1);
	assert_true(j.beats);
	j = judge(x, 1, "block", "dm-0", "queue/read_ahead_kb", "", "1024");
	assert_int_equal(j.applies, 2); /* dm-0 has no rotational in the tree */
	assert_false(j.beats);          /* earlytune re-runs on change for dm */
	/* RUN after 70-earlytune.rules, DRIVERS not evaluated: may apply, wins */
	assert_null(x->w.v[2].value);
	j = judge(x, 2, "block", "sda", "queue/scheduler", "", "none");
	assert_int_equal(j.applies, 2);
	assert_true(j.beats);
	j = judge(x, 2, "thp", "thp", "enabled", "sys/kernel/mm/transparent_hugepage/enabled", "madvise");
	assert_int_equal(j.applies, 0);
}

/* ---- TuneD ---- */

static void test_tuned_profiles(void **state)
{
	struct wfx *x = *state;
	struct wjudge j;

	tree_write(x->dir, "usr/lib/tuned/base/tuned.conf",
		   "[main]\nsummary=x\n[vm]\ntransparent_hugepages=always\n[disk]\nreadahead=>4096\n"
		   "[sysctl]\nnet.core.default_qdisc = fq_codel\n");
	tree_write(x->dir, "usr/lib/tuned/other/tuned.conf", "[main]\ninclude=base\n[disk]\nreadahead=>1\n");
	tree_write(x->dir, "etc/tuned/profiles/mine/tuned.conf",
		   "[main]\ninclude= base ,other\n[variables]\nra=64 s\nd=vd*\ninclude=/etc/tuned/v.conf\n"
		   "[my_disk]\ntype=disk\ndevices=${d}\nelevator=${sched}\nreadahead=${ra}\n"
		   "[disk]\nreplace=1\nreadahead=>8192\n");
	tree_write(x->dir, "etc/tuned/v.conf", "sched=bfq\n");
	tree_write(x->dir, "etc/tuned/active_profile", "mine\n");
	tree_write(x->dir, "etc/tuned/tuned-main.conf", "reapply_sysctl = 0\n");
	wload(x, writers_tuned);
	/* [vm], [sysctl] from base; [my_disk] as type disk; [disk] replaced
	 * (other's >1 and base's >4096 dropped) */
	assert_int_equal(x->w.n, 5);
	assert_string_equal(x->w.v[0].key, "sys/kernel/mm/transparent_hugepage/enabled");
	assert_string_equal(x->w.v[0].file, "/usr/lib/tuned/base/tuned.conf");
	assert_string_equal(x->w.v[1].key, "proc/sys/net/core/default_qdisc");
	assert_string_equal(x->w.v[2].what, "[my_disk] elevator=${sched} (bfq)");
	assert_string_equal(x->w.v[2].names, "vd*");
	assert_string_equal(x->w.v[3].value, "32"); /* 64 sectors */
	assert_string_equal(x->w.v[4].what, "[disk] readahead=>8192");
	assert_string_equal(x->w.v[4].value, "8192");
	assert_string_equal(x->w.v[4].file, "/etc/tuned/profiles/mine/tuned.conf");
	/* not enabled: named, never the winner */
	j = judge(x, 4, "block", "vda", "queue/read_ahead_kb", "", "1024");
	assert_int_equal(j.applies, 1);
	assert_false(j.beats);
	assert_contains(j.why, "not enabled");
	j = judge(x, 2, "block", "sda", "queue/scheduler", "", "none");
	assert_int_equal(j.applies, 0);
	j = judge(x, 2, "block", "vdb", "queue/scheduler", "", "none");
	assert_int_equal(j.applies, 1);
}

static void test_tuned_enabled(void **state)
{
	struct wfx *x = *state;
	struct wjudge j;

	tree_write(x->dir, "usr/lib/tuned/profiles/a/tuned.conf", "[main]\ninclude=b\n[disk]\nreadahead=>4096\n");
	tree_write(x->dir, "usr/lib/tuned/profiles/b/tuned.conf", "[main]\ninclude=a\n[sysctl]\nnet.core.default_qdisc=fq\n");
	tree_write(x->dir, "etc/tuned/active_profile", "a\n");
	tree_symlink(x->dir, "etc/systemd/system/multi-user.target.wants/tuned.service",
		     "/usr/lib/systemd/system/tuned.service");
	wload(x, writers_tuned);
	assert_int_equal(x->w.nerrors, 1);
	assert_contains(x->w.errors[0], "include=a is a cycle");
	assert_int_equal(x->w.n, 2);
	j = judge(x, 1, "block", "vda", "queue/read_ahead_kb", "", "1024");
	assert_true(j.beats);
	j = judge(x, 1, "block", "vda", "queue/read_ahead_kb", "", "4096");
	assert_false(j.beats); /* raise only: not below earlytune's */
	j = judge(x, 0, "net", "sysctl", "net.core.default_qdisc", "", "fq");
	assert_int_equal(j.applies, 1);
	assert_false(j.beats); /* reapply_sysctl by default */
}

/* ---- sysctl.d, tmpfiles.d, sysfsutils ---- */

static void test_files(void **state)
{
	struct wfx *x = *state;
	struct wjudge j;
	size_t first;

	tree_write(x->dir, "usr/lib/sysctl.d/50-default.conf", "-net.core.default_qdisc = fq_codel\n");
	tree_write(x->dir, "etc/sysctl.d/99-x.conf", "# c\nnet/core/default_qdisc=pfifo\n");
	tree_write(x->dir, "run/sysctl.d/60-earlytune.conf", "net.core.default_qdisc = fq\n");
	wload(x, writers_sysctl);
	assert_int_equal(x->w.n, 2); /* the guard is earlytune's own */
	j = judge(x, 0, "net", "sysctl", "net.core.default_qdisc", "", "fq");
	assert_false(j.beats);
	j = judge(x, 1, "net", "sysctl", "net.core.default_qdisc", "", "fq");
	assert_true(j.beats);
	assert_int_equal(x->w.v[1].line, 2);

	first = x->w.n;
	tree_write(x->dir, "etc/tmpfiles.d/a.conf", "w /sys/kernel/mm/transparent_hugepage/enabled - - - - always\n"
						  "w~ /sys/kernel/mm/transparent_hugepage/defrag - - - - bmV2ZXI=\n"
						  "d /run/x 0755 - - -\n");
	tree_write(x->dir, "usr/lib/tmpfiles.d/b.conf", "w+ /sys/kernel/mm/transparent_hugepage/enabled - - - - never\n");
	assert_int_equal(writers_tmpfiles(&x->w), 0);
	assert_int_equal(x->w.n, first + 3);
	assert_null(x->w.v[first + 1].value); /* base64: tmpfiles' to decode */
	j = judge(x, first, "thp", "thp", "enabled", "sys/kernel/mm/transparent_hugepage/enabled", "madvise");
	assert_true(j.beats);
	j = judge(x, first + 2, "thp", "thp", "enabled", "sys/kernel/mm/transparent_hugepage/enabled", "madvise");
	assert_int_equal(j.applies, 1);
	assert_false(j.beats);
	assert_contains(j.why, "/etc/tmpfiles.d/a.conf:1 writes that path first");

	first = x->w.n;
	tree_write(x->dir, "etc/sysfs.conf", "mode block/sda/queue/scheduler = 0644\nowner x = root:root\n"
					     "class/block/sda/queue/scheduler = none\n");
	assert_int_equal(writers_sysfs(&x->w), 0);
	assert_int_equal(x->w.n, first + 1);
	j = judge(x, first, "block", "sda", "queue/scheduler", "", "none");
	assert_int_equal(j.applies, 1); /* /sys/class/block/X is /sys/block/X */
	assert_true(j.beats);
}

/* ---- one file by its many paths (real.c) ---- */

#define VDA "sys/devices/pci0000:00/0000:00:05.0/virtio1/block/vda"

/* A disk as the kernel links it: sys/block/X and sys/class/block/X lead to
 * its directory below sys/devices, whose subsystem names its class; the
 * virtio device above it is on a bus. */
static void mk_linked_disk(struct wfx *x)
{
	tree_write(x->dir, VDA "/queue/max_sectors_kb", "1280\n");
	tree_write(x->dir, VDA "/queue/nr_requests", "256\n");
	tree_symlink(x->dir, VDA "/subsystem", "../../../../../../class/block");
	tree_symlink(x->dir, "sys/devices/pci0000:00/0000:00:05.0/virtio1/subsystem", "../../../../bus/virtio");
	tree_symlink(x->dir, "sys/class/block/vda", "../../devices/pci0000:00/0000:00:05.0/virtio1/block/vda");
	tree_symlink(x->dir, "sys/block/vda", "../devices/pci0000:00/0000:00:05.0/virtio1/block/vda");
	tree_symlink(x->dir, "sys/bus/virtio/devices/virtio1", "../../../devices/pci0000:00/0000:00:05.0/virtio1");
	tree_write(x->dir, "sys/devices/virtual/block/vdb/queue/max_sectors_kb", "1280\n");
	tree_symlink(x->dir, "sys/block/vdb", "../devices/virtual/block/vdb");
}

static void test_real_files(void **state)
{
	static const char *const paths[] = { "sys/block/vda/queue/max_sectors_kb", "sys/class/block/vda/queue/max_sectors_kb",
					     VDA "/queue/max_sectors_kb" };
	/* the entries that name vda's file: by sysfs.conf's line numbers */
	static const int names[] = { 1, 2, 3, 4, 5, 8 };
	struct wfx *x = *state;
	struct wjudge j;

	mk_linked_disk(x);
	tree_write(x->dir, "etc/sysfs.conf",
		   "block/vda/queue/max_sectors_kb = 512\n"
		   "devices/pci0000:00/0000:00:05.0/virtio1/block/vda/queue/max_sectors_kb = 256\n"
		   "class/block/vd[a]/queue/max_sectors_kb = 128\n"
		   "devices/*/*/virtio1/block/vda/queue/max_sectors_kb = 64\n"
		   "bus/virtio/devices/virtio*/block/vda/queue/max_sectors_kb = 32\n"
		   "block/vdb/queue/max_sectors_kb = 1\n"
		   "devices/pci0000:00/0000:00:05.0/virtio1/block/vda/queue/nr_requests = 2\n"
		   "bus/virtio/devices/virtio1/block/vda/queue/max_sectors_kb = 16\n"
		   "devices/*/*/virtio1/block/vdb/queue/max_sectors_kb = 8\n");
	wload(x, writers_sysfs);
	assert_int_equal(x->w.n, 9);
	for (size_t p = 0; p < ARRAY_SIZE(paths); p++)
		for (size_t i = 0; i < x->w.n; i++) {
			bool want = false;

			for (size_t k = 0; k < ARRAY_SIZE(names); k++)
				want = want || names[k] == x->w.v[i].line;
			j = judge(x, i, "sysfs", "s", paths[p] + 4, paths[p], "100");
			if (j.applies != want)
				fail_msg("sysfs.conf:%d against /%s: applies %d", x->w.v[i].line, paths[p], j.applies);
		}
	/* a [block] item's file: the same, through sys/block/TARGET */
	assert_int_equal(judge(x, 1, "block", "vda", "queue/max_sectors_kb", "", "100").applies, 1);
	assert_int_equal(judge(x, 1, "block", "vdb", "queue/max_sectors_kb", "", "100").applies, 0);
	/* the run's cache gives the same verdicts, each file opened once */
	writers_cache_init(&x->w);
	x->it = (struct item){ .domain = "sysfs", .target = (char *)"s", .setting = (char *)"x",
			       .path = (char *)VDA "/queue/max_sectors_kb" };
	writers_cache_item(&x->w, &x->it);
	for (size_t i = 0; i < x->w.n; i++) {
		j = (struct wjudge){ 0 };
		x->w.v[i].judge(&x->w.v[i], &x->w, &x->it, &j);
		assert_int_equal(j.applies, x->w.v[i].line <= 5 || x->w.v[i].line == 8);
	}
}

/* udev knows a disk by its name: a [sysfs] item below /sys/devices is seen
 * through the disk's class link. */
static void test_real_udev(void **state)
{
	struct wfx *x = *state;
	struct item it = { .domain = "sysfs", .target = (char *)"s", .setting = (char *)"x",
			   .path = (char *)VDA "/queue/max_sectors_kb", .desired = (char *)"100" };
	struct item view, ksm = { .domain = "sysfs", .path = (char *)"sys/kernel/mm/ksm/run" };
	char buf[PATH_MAX];
	const struct item *as;
	struct wjudge j = { 0 };

	mk_linked_disk(x);
	tree_write(x->dir, "etc/udev/rules.d/60-m.rules",
		   "ACTION==\"add\", SUBSYSTEM==\"block\", KERNEL==\"vda\", ATTR{queue/max_sectors_kb}=\"99\"\n");
	wload(x, writers_udev);
	assert_int_equal(x->w.n, 1);
	as = writers_item_view(&x->w, &it, &view, buf, sizeof(buf));
	assert_ptr_equal(as, &view);
	assert_string_equal(as->path, "sys/class/block/vda/queue/max_sectors_kb");
	x->w.v[0].judge(&x->w.v[0], &x->w, as, &j);
	assert_int_equal(j.applies, 1);
	assert_ptr_equal(writers_item_view(&x->w, &ksm, &view, buf, sizeof(buf)), &ksm);
	it.path = (char *)"sys/block/vda/queue/max_sectors_kb"; /* named already */
	assert_ptr_equal(writers_item_view(&x->w, &it, &view, buf, sizeof(buf)), &it);
}

/* ---- networkd ---- */

static void test_networkd(void **state)
{
	struct wfx *x = *state;
	struct wjudge j;

	tree_write(x->dir, "etc/systemd/network/10-a.network", "[Match]\nName=eth*\n[FairQueueing]\nParent=root\n");
	tree_write(x->dir, "run/systemd/network/20-b.network",
		   "[Match]\nName=!eth1 *\nDriver=virtio_net\n[CAKE]\n[FairQueueingControlledDelay]\nParent=ingress\n");
	wload(x, writers_networkd);
	/* 10-a: [FairQueueing] + its file; 20-b: [CAKE] + its file (ingress is not the root) */
	assert_int_equal(x->w.n, 4);
	assert_string_equal(x->w.v[0].value, "fq");
	j = judge(x, 0, "net", "eth0", "qdisc", "", "fq");
	assert_int_equal(j.applies, 1);
	assert_true(j.beats);
	j = judge(x, 2, "net", "eth0", "qdisc", "", "fq");
	assert_int_equal(j.applies, 2); /* Driver= is not evaluated */
	assert_false(j.beats);          /* 10-a matches eth0 first */
	j = judge(x, 2, "net", "ens3", "qdisc", "", "fq");
	assert_true(j.beats);
	j = judge(x, 2, "net", "eth1", "qdisc", "", "fq");
	assert_int_equal(j.applies, 0);
	j = judge(x, 1, "net", "eth0", "qdisc", "", "fq");
	assert_int_equal(j.applies, 0); /* a file's own [Match] entry writes nothing */
}

/* ---- helpers ---- */

static void test_helpers(void **state)
{
	char *s = NULL;

	wset(&s, "a\xff" "b\xc3\xa9\x01");
	assert_string_equal(s, "a?b\xc3\xa9?");
	free(s);
	assert_true(writers_names_match("sd*,!sda", "sdb", ","));
	assert_false(writers_names_match("sd*,!sda", "sda", ","));
	assert_false(writers_names_match("sd*", "vda", ","));
	assert_true(writers_names_match("!sda", "vda", ","));
	assert_true(writers_names_match(NULL, "vda", ","));
	assert_true(writers_path_match("/sys/block/vd*/queue/scheduler", "sys/block/vda/queue/scheduler"));
	assert_false(writers_path_match("/sys/block/*", "sys/block/vda/queue/scheduler"));
	assert_true(writers_path_match("/sys/class/block/vd*/bdi/read_ahead_kb", "sys/block/vda/queue/read_ahead_kb"));
}

/* Sections as written or stripped, comments and lines without = passed
 * over, key and value stripped, the line of each. */
static void test_next_ini(void **state)
{
	char text[] = "a=0\n[ Match ]\n# x=1\n; y=2\n\n  Name = eth0  \nno equals\n[Link]x\nMTU=9000";
	struct wini ini = { .p = text }, tini;
	char *k, *v, copy[sizeof(text)];

	memcpy(copy, text, sizeof(text));
	assert_true(writers_next_ini(&ini, &k, &v));
	assert_string_equal(k, "a");
	assert_string_equal(v, "0");
	assert_string_equal(ini.sect, "");
	assert_true(writers_next_ini(&ini, &k, &v));
	assert_null(k);
	assert_null(v);
	assert_string_equal(ini.sect, " Match ");
	assert_int_equal(ini.line, 2);
	assert_true(writers_next_ini(&ini, &k, &v));
	assert_string_equal(k, "Name");
	assert_string_equal(v, "eth0");
	assert_int_equal(ini.line, 6);
	assert_true(writers_next_ini(&ini, &k, &v));
	assert_null(k);
	assert_string_equal(ini.sect, "Link");
	assert_true(writers_next_ini(&ini, &k, &v));
	assert_string_equal(k, "MTU");
	assert_string_equal(v, "9000");
	assert_int_equal(ini.line, 9);
	assert_false(writers_next_ini(&ini, &k, &v));
	assert_false(writers_next_ini(&ini, &k, &v));
	tini = (struct wini){ .p = copy, .strip_sect = true };
	assert_true(writers_next_ini(&tini, &k, &v));
	assert_true(writers_next_ini(&tini, &k, &v));
	assert_string_equal(tini.sect, "Match");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_udev_pairs),
	WX(test_udev_rules),
	WX(test_tuned_profiles),
	WX(test_tuned_enabled),
	WX(test_files),
	WX(test_real_files),
	WX(test_real_udev),
	WX(test_networkd),
	cmocka_unit_test(test_helpers),
	cmocka_unit_test(test_next_ini),
};

UNIT_MAIN("writers", tests)
