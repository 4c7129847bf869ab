// SPDX-License-Identifier: LGPL-2.1-or-later
/* sysfs/: [sysfs "NAME"] key checks (confinement to /sys, the files other
 * domains write), glob expansion and the plan on fake trees. */
#include <sys/stat.h>

#include "unit.h"
#include "base/netif.h"
#include "engine/item.h"
#include "engine/state.h"
#include "sysfs/internal.h"

static void expect_key(const char *key, const char *value, bool ok, const char *msg)
{
	char why[512] = "";
	int r = sysfs_check_key(key, value, why, sizeof(why));

	if (ok && r != 0)
		fail_msg("[sysfs] %s = '%s' rejected: %s", key, value, why);
	if (!ok && r != -EINVAL)
		fail_msg("[sysfs] %s = '%s' accepted (r=%d)", key, value, r);
	if (msg)
		assert_contains(why, msg);
}

static void test_check_paths(void **state)
{
	expect_key("path", "/sys/kernel/mm/ksm/run", true, NULL);
	expect_key("path", "/sys/module/zswap/parameters/enabled /sys/kernel/mm/ksm/pages_to_scan", true, NULL);
	expect_key("path", "/sys/block/sd*/device/timeout", true, NULL);
	expect_key("path", "", true, NULL);
	expect_key("path", "/proc/sys/vm/swappiness", false, "sysctls are set in /etc/sysctl.d/*.conf");
	expect_key("path", "/proc/sys", false, "[sysfs] writes below /sys only");
	expect_key("path", "/etc/shadow", false, "not below /sys");
	expect_key("path", "sys/kernel/mm/ksm/run", false, "absolute paths starting with /sys/");
	expect_key("path", "/sys", false, "not below /sys");
	expect_key("path", "/sys/", false, "not below /sys");
	expect_key("path", "/sys/../etc/shadow", false, "'..' component");
	expect_key("path", "/sys/kernel/./mm", false, "'.' or '..' component");
	expect_key("path", "/sys/kernel//mm", false, "an empty");
	expect_key("path", "/sys/kernel/mm/ksm/", false, "an empty");
	expect_key("path", "/sys/kernel/mm/ksm/run /etc/x", false, "'/etc/x': not below /sys");
	expect_key("path", "/sys/block/sd[a/queue/x", false, "no ']' closes");
}

static void test_check_claimed(void **state)
{
	expect_key("path", "/sys/block/sda/queue/scheduler", false, "earlytune sets it with [block] scheduler");
	expect_key("path", "/sys/block/*/queue/read_ahead_kb", false, "[block] read_ahead_kb; set it there");
	expect_key("path", "/sys/class/block/vd*/queue/nr_requests", false, "[block] nr_requests");
	expect_key("path", "/sys/devices/virtual/block/dm-0/queue/wbt_lat_usec", false, "[block] wbt_lat_usec");
	expect_key("path", "/sys/class/bdi/8:0/read_ahead_kb", false, "[block] read_ahead_kb");
	expect_key("path", "/sys/kernel/mm/transparent_hugepage/enabled", false, "[thp] enabled");
	expect_key("path", "/sys/kernel/mm/transparent_hugepage/khugepaged/pages_to_scan", false,
		   "[thp] khugepaged.pages_to_scan");
	expect_key("path", "/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled", false, "[thp] size.64kB.enabled");
	expect_key("path", "/sys/kernel/debug/sched/base_slice_ns", false, "[sched] base_slice_ns");
	expect_key("path", "/sys/class/net/eth0/queues/rx-0/rps_cpus", false, "[net \"NAME\"] rps_cpus");
	expect_key("path", "/sys/class/net/*/queues/*/xps_cpus", false, "[net \"NAME\"] xps_cpus");
	expect_key("path", "/sys/devices/pci0000:00/0000:00:03.0/virtio0/net/eth0/queues/rx-3/rps_flow_cnt", false,
		   "[net \"NAME\"] rps_flow_cnt");
	expect_key("path", "/sys/class/net/eth0/tx_queue_len", false, "[net \"NAME\"] txqueuelen; set it there");
	/* What no domain writes stays open: a queue attribute without a key,
	 * THP's read-only size, a debugfs file of no knob. */
	expect_key("path", "/sys/block/sda/queue/max_sectors_kb", true, NULL);
	expect_key("path", "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", true, NULL);
	expect_key("path", "/sys/kernel/debug/sched/verbose", true, NULL);
	expect_key("path", "/sys/class/net/eth0/queues/tx-0/byte_queue_limits/limit_max", true, NULL);
}

static void test_check_values(void **state)
{
	char big[300];

	expect_key("value", "1", true, NULL);
	expect_key("value", "0-3,8", true, NULL);
	expect_key("value", "", true, NULL);
	expect_key("value", "[madvise] never", false, "takes the one word it selects: value = madvise");
	expect_key("value", "a\tb", false, "a tab");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	expect_key("value", big, false, "earlytune writes values of up to 240");
	expect_key("vaule", "1", false, "did you mean 'value'?");
	expect_key("paths", "/sys/x", false, "allowed: path value");
}

static void plan(struct fx *f, const char *conf)
{
	fx_ctx(f, conf, NULL);
	f->c.only = DOM_SYSFS;
	assert_int_equal(sysfs_plan(&f->c, &f->p), 0);
}

static const struct item *item(struct fx *f, const char *target, const char *setting)
{
	const struct item *it = find_item(&f->p, target, setting);

	if (!it)
		fail_msg("no sysfs item %s %s among %zu", target, setting, f->p.n);
	return it;
}

#define KSM "sys/kernel/mm/ksm/"

static void test_plan_files(void **state)
{
	struct fx *f = *state;
	const struct item *it;

	tree_write(f->dir, KSM "run", "0\n");
	tree_write(f->dir, KSM "pages_to_scan", "100\n");
	tree_write(f->dir, "sys/module/zswap/parameters/enabled", "N\n");
	plan(f, "[sysfs \"ksm\"]\npath = /sys/kernel/mm/ksm/run /sys/kernel/mm/ksm/pages_to_scan\n"
		"# merge the guests' identical pages\nvalue = 100\n"
		"[sysfs \"zswap\"]\npath = /sys/module/zswap/parameters/enabled\nvalue = Y\n");
	assert_int_equal(f->p.n, 3);
	it = item(f, "ksm", "kernel/mm/ksm/run");
	assert_string_equal(it->path, KSM "run");
	assert_string_equal(it->current, "0");
	assert_string_equal(it->desired, "100");
	assert_int_equal(it->action, ACT_CHANGE);
	assert_string_equal(it->reason, "merge the guests' identical pages");
	assert_int_equal(item(f, "ksm", "kernel/mm/ksm/pages_to_scan")->action, ACT_KEEP);
	it = item(f, "zswap", "module/zswap/parameters/enabled");
	assert_string_equal(it->current, "N");
	assert_int_equal(it->action, ACT_CHANGE);
	assert_int_equal(it->kind, ITEM_FILE);
}

static void test_plan_kinds(void **state)
{
	struct fx *f = *state;
	char path[PATH_MAX];

	tree_write(f->dir, KSM "multi", "a\nb\n");
	tree_write(f->dir, KSM "wo", "\n");
	tree_path(path, sizeof(path), f->dir, KSM "wo");
	assert_int_equal(chmod(path, 0200), 0);
	tree_write(f->dir, KSM "ro", "4096\n");
	tree_path(path, sizeof(path), f->dir, KSM "ro");
	assert_int_equal(chmod(path, 0444), 0);
	tree_mkdir(f->dir, KSM "dir");
	plan(f, "[sysfs \"k\"]\npath = /sys/kernel/mm/ksm/multi /sys/kernel/mm/ksm/wo /sys/kernel/mm/ksm/ro "
		"/sys/kernel/mm/ksm/dir /sys/kernel/mm/ksm/none /sys/kernel/mm/nothing*/x\nvalue = 1\n");
	assert_contains(item(f, "k", "kernel/mm/ksm/multi")->reason, "multi-line");
	assert_contains(item(f, "k", "kernel/mm/ksm/wo")->reason, "write-only");
	assert_contains(item(f, "k", "kernel/mm/ksm/ro")->reason, "read-only");
	assert_contains(item(f, "k", "kernel/mm/ksm/dir")->reason, "not an attribute file");
	assert_contains(item(f, "k", "kernel/mm/ksm/none")->reason, "no such file");
	assert_true(item(f, "k", "kernel/mm/ksm/none")->unmet);
	assert_contains(item(f, "k", "kernel/mm/nothing*/x")->reason, "matches no file here");
	assert_false(item(f, "k", "kernel/mm/nothing*/x")->unmet);
	for (size_t i = 0; i < f->p.n; i++)
		assert_int_equal(f->p.v[i].action, ACT_SKIP);
}

static void test_plan_selector_and_globs(void **state)
{
	struct fx *f = *state;
	const struct item *it;

	tree_write(f->dir, "sys/devices/virtual/block/vdb/queue/scheduler", "[mq-deadline] none\n");
	tree_write(f->dir, "sys/devices/virtual/block/vdb/queue/max_sectors_kb", "1280\n");
	tree_write(f->dir, "sys/devices/virtual/block/vda/queue/max_sectors_kb", "1280\n");
	tree_write(f->dir, "sys/devices/virtual/block/vda10/queue/max_sectors_kb", "1280\n");
	tree_symlink(f->dir, "sys/block/vdb", "../devices/virtual/block/vdb");
	tree_symlink(f->dir, "sys/block/vda", "../devices/virtual/block/vda");
	tree_symlink(f->dir, "sys/block/vda10", "../devices/virtual/block/vda10");
	tree_write(f->dir, "sys/kernel/mm/lru_gen/enabled", "[always] never\n");
	tree_write(f->dir, "sys/kernel/mm/lru_gen/mode", "[always] never\n");
	plan(f, "[sysfs \"q\"]\npath = /sys/block/vd*/queue/*\nvalue = 512\n"
		"[sysfs \"sel\"]\npath = /sys/kernel/mm/lru_gen/enabled\nvalue = never\n"
		"[sysfs \"not-offered\"]\npath = /sys/kernel/mm/lru_gen/mode\nvalue = sometimes\n"
		"[sysfs \"again\"]\npath = /sys/kernel/mm/lru_gen/enabled\nvalue = always\n");
	/* Sorted as versions: vda before vda10; the scheduler is [block]'s. */
	assert_string_equal(f->p.v[0].setting, "block/vda/queue/max_sectors_kb");
	assert_string_equal(f->p.v[1].setting, "block/vda10/queue/max_sectors_kb");
	assert_string_equal(f->p.v[2].setting, "block/vdb/queue/max_sectors_kb");
	it = item(f, "q", "block/vdb/queue/scheduler");
	assert_int_equal(it->action, ACT_SKIP);
	assert_false(it->unmet);
	assert_contains(it->reason, "earlytune sets it with [block] scheduler");
	it = item(f, "sel", "kernel/mm/lru_gen/enabled");
	assert_true(it->selector);
	assert_string_equal(it->current, "always");
	assert_int_equal(it->action, ACT_CHANGE);
	it = item(f, "not-offered", "kernel/mm/lru_gen/mode");
	assert_int_equal(it->action, ACT_SKIP);
	assert_contains(it->reason, "does not offer 'sometimes'; it offers: [always] never");
	/* A file a second section names: one writer per file. */
	it = item(f, "again", "kernel/mm/lru_gen/enabled");
	assert_int_equal(it->action, ACT_ERROR);
	assert_contains(it->error, "[sysfs \"sel\"] names this file already");
}

/* A link that leads out of /sys: refused, though the root resolves it inside itself. */
static void test_confined(void **state)
{
	struct fx *f = *state;
	const struct item *it;

	tree_write(f->dir, "etc/secret", "x\n");
	tree_write(f->dir, KSM "run", "0\n");
	tree_symlink(f->dir, KSM "abs", "/etc/secret");
	tree_symlink(f->dir, KSM "rel", "../../../../etc/secret");
	tree_symlink(f->dir, "sys/block/vda", "../devices/virtual/block/vda");
	tree_write(f->dir, "sys/devices/virtual/block/vda/device/timeout", "30\n");
	plan(f, "[sysfs \"x\"]\npath = /sys/kernel/mm/ksm/abs /sys/kernel/mm/ksm/rel /sys/kernel/mm/ksm/run "
		"/sys/block/vda/device/timeout\nvalue = 1\n");
	it = item(f, "x", "kernel/mm/ksm/abs");
	assert_int_equal(it->action, ACT_ERROR);
	assert_contains(it->error, "leads out of /sys");
	assert_int_equal(item(f, "x", "kernel/mm/ksm/rel")->action, ACT_ERROR);
	assert_int_equal(item(f, "x", "kernel/mm/ksm/run")->action, ACT_CHANGE);
	assert_int_equal(item(f, "x", "block/vda/device/timeout")->action, ACT_CHANGE);
	assert_int_equal(sysfs_confined(&f->c.root, KSM "abs"), 0);
	assert_int_equal(sysfs_confined(&f->c.root, "sys/block/vda/device/timeout"), 1);
}

static void test_conf_checks(void **state)
{
	struct config c = { 0 };

	config_parse_text(&c, "[sysfs]\npath = /sys/kernel/mm/ksm/run\n"
			      "[sysfs \"a\"]\npath = /sys/kernel/mm/ksm/run\n"
			      "[sysfs \"b\"]\nvalue = 1\n"
			      "[sysfs \"c\"]\npath = /sys/kernel/mm/ksm/run\nvalue = 1\n"
			      "[sysfs \"d\"]\npath = /sys/kernel/mm/ksm/run\nvalue = 1\nvalue =\n", "t.conf");
	config_check(&c);
	/* The unnamed one, a's path without a value, b's value without a
	 * path; d is switched off, not an error. */
	assert_int_equal(c.errors, 3);
	assert_null(config_get(&c, "sysfs", "d", "value"));
	assert_non_null(config_get(&c, "sysfs", "c", "value"));
	assert_null(config_get(&c, "sysfs", "a", "path"));
	config_free(&c);
}


/* Whose a path is: a disk's or an interface's directory, by the name in it
 * (a glob's too); the records of each in that device's file and scope. */
static void test_devices(void **state)
{
	struct record disk = { .path = (char *)"sys/block/vdb/queue/max_sectors_kb", .identity = (char *)"diskseq:9" };
	struct record net = { .path = (char *)"sys/class/net/eth0/tx_queue_len", .identity = (char *)"ifindex:7" };
	struct record ksm = { .path = (char *)"sys/kernel/mm/ksm/run", .identity = (char *)"" };
	struct sysfs_dev d;
	char name[64], rel[STATE_REL_MAX];
	int ifindex;

	assert_int_equal(sysfs_device_path("sys/block/sd*/device/timeout", &d), SYSFS_DISK);
	assert_int_equal(d.at, 10);
	assert_int_equal(d.len, 3);
	assert_int_equal(sysfs_device_path("sys/class/block/vda/queue/x", &d), SYSFS_DISK);
	assert_int_equal(sysfs_device_path("sys/class/net/eth0/mtu", &d), SYSFS_IFACE);
	assert_int_equal(sysfs_device_path("sys/block/vda", &d), 0);
	assert_int_equal(sysfs_device_path("sys/block/vda/", &d), 0);
	assert_int_equal(sysfs_device_path("sys/devices/virtual/block/vda/queue/x", &d), 0);
	sysfs_device_of(&disk, name, sizeof(name), &ifindex);
	assert_string_equal(name, "vdb");
	assert_int_equal(ifindex, 0);
	sysfs_device_of(&net, name, sizeof(name), &ifindex);
	assert_string_equal(name, "");
	assert_int_equal(ifindex, 7);
	sysfs_device_of(&ksm, name, sizeof(name), &ifindex);
	assert_string_equal(name, "");
	assert_int_equal(ifindex, 0);
	state_file_of("sysfs", "maxsect", disk.path, disk.identity, rel);
	assert_string_equal(rel, "run/earlytune/disks/vdb");
	state_file_of("sysfs", "txq", net.path, net.identity, rel);
	assert_string_equal(rel, "run/earlytune/links/7");
	state_file_of("sysfs", "ksm", ksm.path, ksm.identity, rel);
	assert_string_equal(rel, "run/earlytune/originals");
}

/* An interface's record by namespace and index: its key where the tree
 * names its namespace, the file by the index (a rename since), the old
 * path where the tree cannot tell. */
static void test_iface_keys(void **state)
{
	struct fx *f = *state;
	struct plan p = { 0 };
	struct item *it = plan_add(&p, "sysfs", "gft", "class/net/eth0/gro_flush_timeout",
				   "sys/class/net/eth0/gro_flush_timeout");
	struct record x = { .path = (char *)"sysfs/netns/77/ifindex/2/gro_flush_timeout",
			    .setting = (char *)"class/net/eth0/gro_flush_timeout", .identity = (char *)"ifindex:2" };
	struct record other = { .path = (char *)"sysfs/netns/78/ifindex/2/gro_flush_timeout" };
	struct netif_key k;
	char out[PATH_MAX], disk[16], from[PATH_MAX], to[PATH_MAX];
	int ifindex;

	tree_write(f->dir, "sys/class/net/eth0/ifindex", "2\n");
	tree_write(f->dir, "sys/class/net/eth0/gro_flush_timeout", "0\n");
	fx_ctx(f, NULL, NULL);
	assert_int_equal(sysfs_record_path(&f->c.root, it, out, sizeof(out)), 0); /* no proc/: the path */
	tree_symlink(f->dir, "proc/self/ns/net", "net:[77]");
	assert_int_equal(sysfs_record_path(&f->c.root, it, out, sizeof(out)), 1);
	assert_string_equal(out, x.path);
	assert_int_equal(netif_key_parse(out, "sysfs/", 0, &k), 0);
	assert_true(k.netns == 77 && k.ifindex == 2 && !strcmp(k.rest, "gro_flush_timeout"));
	assert_true(sysfs_owns_path(x.path));
	assert_false(sysfs_owns_path("sysfs/netns/77/ifindex/2"));
	assert_false(sysfs_owns_path("sysfs/netns/0/ifindex/2/x"));
	assert_false(sysfs_owns_path("sysfs/netns/77/ifindex/2x/x"));
	assert_false(sysfs_owns_path("etc/shadow"));
	assert_false(sysfs_elsewhere(&f->c.root, &x));
	assert_true(sysfs_elsewhere(&f->c.root, &other));
	sysfs_device_of(&x, disk, sizeof(disk), &ifindex);
	assert_int_equal(ifindex, 2);
	assert_int_equal(sysfs_record_file(&f->c.root, &x, out, sizeof(out)), 1);
	assert_string_equal(out, "sys/class/net/eth0/gro_flush_timeout");
	assert_int_equal(sysfs_identity(&f->c.root, x.setting, x.path, out, sizeof(out)), 0);
	assert_string_equal(out, "ifindex:2");
	tree_path(from, sizeof(from), f->dir, "sys/class/net/eth0");
	tree_path(to, sizeof(to), f->dir, "sys/class/net/wan0");
	assert_int_equal(rename(from, to), 0); /* renamed since */
	assert_int_equal(sysfs_record_file(&f->c.root, &x, out, sizeof(out)), 1);
	assert_string_equal(out, "sys/class/net/wan0/gro_flush_timeout");
	tree_write(f->dir, "sys/class/net/wan0/ifindex", "5\n"); /* gone: another index */
	assert_int_equal(sysfs_identity(&f->c.root, x.setting, x.path, out, sizeof(out)), -ENOENT);
	assert_true(sysfs_record_file(&f->c.root, &x, out, sizeof(out)) < 0);
	plan_free(&p);
}

/* The one reading of interface keys: each form and what each flag turns
 * away, and the builder writing what it reads (cut as snprintf cuts). */
static void test_netif_keys(void **state)
{
	static const struct {
		const char *path;
		int flags, rc;
		unsigned long long netns;
		int ifindex;
		const char *rest;
	} cases[] = {
		{ "p/netns/7/ifindex/2/a/b", 0, 0, 7, 2, "a/b" },
		{ "p/netns/7/ifindex/2", 0, 0, 7, 2, "" },
		{ "p/netns/7/ifindex/2/", 0, 0, 7, 2, "" },
		{ "p/netns/7/ifindex/2/a", NETIF_KEY_REST, 0, 7, 2, "a" },
		{ "p/netns/7/ifindex/2/", NETIF_KEY_REST, -EINVAL, 0, 0, "" },
		{ "p/netns/7/ifindex/2", NETIF_KEY_END, 0, 7, 2, "" },
		{ "p/netns/7/ifindex/2/", NETIF_KEY_END, -EINVAL, 0, 0, "" },
		{ "p/netns/7/ifindex/2/a", NETIF_KEY_END, -EINVAL, 0, 0, "" },
		{ "p/ifindex/2/a", 0, -EINVAL, 0, 0, "" },
		{ "p/ifindex/2/a", NETIF_KEY_EARLIER | NETIF_KEY_REST, 0, 0, 2, "a" },
		{ "p/ifindex/2", NETIF_KEY_EARLIER | NETIF_KEY_REST, -EINVAL, 0, 0, "" },
		{ "p/ifindex/2", NETIF_KEY_EARLIER | NETIF_KEY_END, 0, 0, 2, "" },
		{ "p/ifindex/0", NETIF_KEY_EARLIER, -EINVAL, 0, 0, "" },
		{ "p/netns/0/ifindex/2", 0, -EINVAL, 0, 0, "" },
		{ "p/netns/7/ifindex/2147483648", 0, -EINVAL, 0, 0, "" },
		{ "p/netns/7/ifindex/2147483647", 0, 0, 7, 2147483647, "" },
		{ "p/netns/18446744073709551616/ifindex/2", 0, -EINVAL, 0, 0, "" },
		{ "p/netns/7/ifindex/2x", 0, -EINVAL, 0, 0, "" },
		{ "p/netns/7/ifindex/-2", 0, -EINVAL, 0, 0, "" },
		{ "p/netns/+7/ifindex/2", 0, -EINVAL, 0, 0, "" },
		{ "p/netns/7/2", 0, -EINVAL, 0, 0, "" },
		{ "p/netns/7", 0, -EINVAL, 0, 0, "" },
		{ "q/netns/7/ifindex/2", 0, -EINVAL, 0, 0, "" },
		{ "p/", NETIF_KEY_EARLIER, -EINVAL, 0, 0, "" },
	};
	struct netif_key k;
	char out[64];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int rc = netif_key_parse(cases[i].path, "p/", cases[i].flags, &k);

		assert_int_equal(rc, cases[i].rc);
		if (rc == 0)
			assert_true(k.netns == cases[i].netns && k.ifindex == cases[i].ifindex &&
				    !strcmp(k.rest, cases[i].rest));
	}
	assert_int_equal(netif_key_path(out, sizeof(out), "p/", 7, 2, "a/b"), 0);
	assert_string_equal(out, "p/netns/7/ifindex/2/a/b");
	assert_int_equal(netif_key_path(out, sizeof(out), "p/", 0, 2, NULL), 0);
	assert_string_equal(out, "p/ifindex/2");
	assert_int_equal(netif_key_path(out, 12, "p/", 7, 2, "a"), -ENAMETOOLONG);
	assert_string_equal(out, "p/netns/7/i");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_check_paths),
	cmocka_unit_test(test_check_claimed),
	cmocka_unit_test(test_check_values),
	FX_TEST(test_plan_files),
	FX_TEST(test_plan_kinds),
	FX_TEST(test_plan_selector_and_globs),
	FX_TEST(test_confined),
	cmocka_unit_test(test_conf_checks),
	cmocka_unit_test(test_devices),
	cmocka_unit_test(test_netif_keys),
	FX_TEST(test_iface_keys),
};

UNIT_MAIN("sysfs", tests)
