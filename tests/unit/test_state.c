// SPDX-License-Identifier: LGPL-2.1-or-later
/* state.c: originals recorded in ROOT/run/earlytune (originals, disks/, links/). */
#include <signal.h>
#include <sys/file.h>
#include <sys/time.h>
#include <time.h>

#include "unit.h"
#include "engine/domain.h"
#include "engine/session.h"
#include "net/net.h"

#define ORIGINALS "run/earlytune/originals"

static struct item mkitem(const char *domain, const char *target, const char *setting,
			  const char *path)
{
	return (struct item){ .domain = domain, .target = (char *)target,
			      .setting = (char *)setting, .path = (char *)path };
}

static int add(struct records *rs, const char *target, const char *setting, const char *value)
{
	char path[256];
	struct item it;

	snprintf(path, sizeof(path), "sys/block/%s/%s", target, setting);
	it = mkitem("block", target, setting, path);
	return state_add(rs, &it, it.path, value, "");
}

static const char *value_of(struct records *rs, const char *path)
{
	const struct record *x = state_find(rs, path);

	return x ? x->value : NULL;
}

static void open_root(struct fx *f)
{
	assert_int_equal(root_open(&f->c.root, f->dir), 0);
}

static bool exists(struct fx *f, const char *rel)
{
	char path[PATH_MAX];

	tree_path(path, sizeof(path), f->dir, rel);
	return access(path, F_OK) == 0;
}

static void assert_file(struct fx *f, const char *rel, const char *want)
{
	free(f->text);
	f->text = tree_read(f->dir, rel);
	assert_string_equal(f->text, want);
}

static void test_add_never_overwrites(void **state)
{
	struct fx *f = *state;
	struct records *rs = &f->rs;

	assert_int_equal(add(rs, "vda", "queue/scheduler", "mq-deadline"), 0);
	assert_int_equal(add(rs, "vda", "queue/read_ahead_kb", "4096"), 0);
	assert_int_equal(add(rs, "vda", "queue/scheduler", "none"), 0);
	assert_int_equal(rs->n, 2);
	assert_string_equal(value_of(rs, "sys/block/vda/queue/scheduler"), "mq-deadline");
	assert_string_equal(value_of(rs, "sys/block/vda/queue/read_ahead_kb"), "4096");
	assert_null(state_find(rs, "sys/block/vdb/queue/scheduler"));
	assert_null(state_find(rs, "sys/block/vda/queue"));
}

static void test_add_rejects(void **state)
{
	struct fx *f = *state;
	struct records *rs = &f->rs;
	struct item it;

	assert_int_equal(add(rs, "vda", "queue/scheduler", "a\tb"), -EINVAL);
	assert_int_equal(add(rs, "vda", "queue/scheduler", "a\nb"), -EINVAL);
	assert_int_equal(add(rs, "vda", "queue/scheduler", NULL), -EINVAL);
	assert_int_equal(add(rs, "vd\ta", "queue/scheduler", "none"), -EINVAL);
	assert_int_equal(add(rs, "vda", "queue/sched\nuler", "none"), -EINVAL);
	it = mkitem("thp", "thp", "enabled", "sys/kernel/mm/transparent_hugepage/enab\tled");
	assert_int_equal(state_add(rs, &it, it.path, "always", ""), -EINVAL);
	assert_int_equal(rs->n, 0);
	/* A rejected value does not block a later valid one. */
	assert_int_equal(add(rs, "vda", "queue/scheduler", "none"), 0);
	assert_int_equal(rs->n, 1);
}

static void test_round_trip(void **state)
{
	/* each in its file: the global one, then each disk's */
	static const char *const want[] = {
		"thp\tthp\tenabled\tsys/kernel/mm/transparent_hugepage/enabled\talways\t\n",
		"block\tvda\tqueue/scheduler\tsys/block/vda/queue/scheduler\tmq-deadline\t\n"
		"block\tvda\tqueue/read_ahead_kb\tsys/block/vda/queue/read_ahead_kb\t4096\t\n",
		"block\tnvme0n1\tqueue/iosched/fifo_batch\tsys/block/nvme0n1/queue/iosched/fifo_batch\t\tdiskseq:7\n",
		"block\tsda\tqueue/wbt_lat_usec\tsys/block/sda/queue/wbt_lat_usec\tword and  spaces\t\n",
	};
	struct fx *f = *state;
	struct records back = { .lock_fd = -1 };
	struct item it = mkitem("thp", "thp", "enabled", "sys/kernel/mm/transparent_hugepage/enabled");

	open_root(f);
	assert_int_equal(state_lock(&f->rs, &f->c.root), 0);
	assert_true(f->rs.lock_fd >= 0);
	assert_int_equal(add(&f->rs, "vda", "queue/scheduler", "mq-deadline"), 0);
	assert_int_equal(add(&f->rs, "vda", "queue/read_ahead_kb", "4096"), 0);
	assert_int_equal(state_add(&f->rs, &it, it.path, "always", ""), 0);
	it = mkitem("block", "nvme0n1", "queue/iosched/fifo_batch", "sys/block/nvme0n1/queue/iosched/fifo_batch");
	assert_int_equal(state_add(&f->rs, &it, it.path, "", "diskseq:7"), 0);
	assert_int_equal(add(&f->rs, "sda", "queue/wbt_lat_usec", "word and  spaces"), 0);
	assert_int_equal(state_save(&f->rs, &f->c.root), 0);
	assert_file(f, ORIGINALS, want[0]);
	assert_file(f, "run/earlytune/disks/vda", want[1]);
	assert_file(f, "run/earlytune/disks/nvme0n1", want[2]);
	assert_file(f, "run/earlytune/disks/sda", want[3]);
	assert_false(root_exists(&f->c.root, "run/earlytune/.originals.tmp"));

	assert_int_equal(state_load(&back, &f->c.root), 0);
	assert_int_equal(back.n, f->rs.n);
	for (size_t i = 0; i < back.n; i++) {
		const struct record *x = state_find(&f->rs, back.v[i].path);

		assert_non_null(x);
		assert_string_equal(back.v[i].domain, x->domain);
		assert_string_equal(back.v[i].target, x->target);
		assert_string_equal(back.v[i].setting, x->setting);
		assert_string_equal(back.v[i].value, x->value);
		assert_string_equal(back.v[i].identity, x->identity);
	}
	assert_string_equal(value_of(&back, "sys/kernel/mm/transparent_hugepage/enabled"), "always");
	assert_string_equal(value_of(&back, "sys/block/nvme0n1/queue/iosched/fifo_batch"), "");
	state_free(&back);
}

static void test_load_drops_bad_lines(void **state)
{
	struct fx *f = *state;

	tree_write(f->dir, ORIGINALS,
		   "block\tvda\tqueue/scheduler\tsys/block/vda/queue/scheduler\tnone\n"
		   "block\tvdb\tqueue/scheduler\tsys/block/vdb/queue/scheduler\n"
		   "block\tvdc\tqueue/scheduler\tsys/block/vdc/queue/scheduler\tnone\tdiskseq:1\textra\n"
		   "\n"
		   "garbage\n"
		   "block\t../etc\tqueue/scheduler\tsys/block/../etc/queue/scheduler\tnone\n"
		   "block\tvdd\tqueue/scheduler\tsys/block/../../etc/shadow\tnone\n"
		   "block\t\tqueue/scheduler\tsys/block/vde/queue/scheduler\tnone\n"
		   "block\tvdf\tqueue/scheduler\tetc/shadow\troot::0:0:::::\n"
		   "net\teth0\tqdisc\tnetlink/ifindex/2\tfq_codel\tifindex:2\n"
		   "net\tsysctl\tdefault_qdisc\tproc/sys/net/core/default_qdisc\tfq_codel\n"
		   "thp\tthp\tdefrag\tsys/kernel/mm/transparent_hugepage/defrag\tmadvise\n"
		   "limits\tnginx.service\tnofile\trun/systemd/system/nginx.service.d/50-earlytune-limits.conf\t-\n"
		   "limits\tx.service\tnofile\trun/systemd/system/x.service.d/override.conf\t-\n"
		   "limits\tx.service\tnofile\trun/systemd/../../etc/50-earlytune-limits.conf\t-\n"
		   "limits\tx.service\tnofile\tetc/systemd/system/x.service.d/50-earlytune-limits.conf\t-\n"
		   "limits\tx.service\tnofile\trun/systemd/50-earlytune-limits.conf.bak\t-\n");
	open_root(f);
	assert_int_equal(state_load(&f->rs, &f->c.root), 0);
	assert_int_equal(f->rs.n, 5);
	/* Of run/systemd/, only earlytune's own drop-ins, which revert removes. */
	assert_non_null(state_find(&f->rs, "run/systemd/system/nginx.service.d/50-earlytune-limits.conf"));
	assert_null(state_find(&f->rs, "run/systemd/system/x.service.d/override.conf"));
	assert_null(state_find(&f->rs, "run/systemd/../../etc/50-earlytune-limits.conf"));
	assert_null(state_find(&f->rs, "etc/systemd/system/x.service.d/50-earlytune-limits.conf"));
	assert_null(state_find(&f->rs, "run/systemd/50-earlytune-limits.conf.bak"));
	assert_string_equal(value_of(&f->rs, "sys/block/vda/queue/scheduler"), "none");
	/* Only where apply writes: a tampered record cannot aim revert elsewhere. */
	assert_null(state_find(&f->rs, "etc/shadow"));
	assert_non_null(state_find(&f->rs, "netlink/ifindex/2"));
	assert_non_null(state_find(&f->rs, "proc/sys/net/core/default_qdisc"));
	assert_string_equal(value_of(&f->rs, "sys/kernel/mm/transparent_hugepage/defrag"), "madvise");
	assert_null(state_find(&f->rs, "sys/block/vdb/queue/scheduler"));
	assert_null(state_find(&f->rs, "sys/block/vdc/queue/scheduler"));
	assert_null(state_find(&f->rs, "sys/block/../../etc/shadow"));
}

static void test_load_missing_and_torn(void **state)
{
	struct fx *f = *state;

	open_root(f);
	assert_int_equal(state_load(&f->rs, &f->c.root), 0);
	assert_int_equal(f->rs.n, 0);
	state_free(&f->rs);
	/* A last line without its newline was cut short: it is not a record. */
	tree_write(f->dir, ORIGINALS,
		   "block\tvda\tqueue/scheduler\tsys/block/vda/queue/scheduler\tnone\n"
		   "block\tvdb\tqueue/scheduler\tsys/block/vdb/queue/scheduler\tmq-dead");
	assert_int_equal(state_load(&f->rs, &f->c.root), 0);
	assert_int_equal(f->rs.n, 1);
	assert_null(state_find(&f->rs, "sys/block/vdb/queue/scheduler"));
}

static void test_save_needs_directory(void **state)
{
	struct fx *f = *state;

	open_root(f);
	assert_int_equal(add(&f->rs, "vda", "queue/scheduler", "none"), 0);
	assert_int_equal(state_save(&f->rs, &f->c.root), -ENOENT);
	assert_false(root_exists(&f->c.root, ORIGINALS));
}

/* Defect 4 of issue 8: a torn last line (a crash mid-append of an earlier
 * version) is dropped on load and the next save rewrites the file whole:
 * the records around it survive, and an old five-field line is read as a
 * record without identity (not checked). */
static void test_save_repairs_torn(void **state)
{
	struct fx *f = *state;
	struct records back = { .lock_fd = -1 };

	tree_write(f->dir, ORIGINALS,
		   "block\tvda\tqueue/scheduler\tsys/block/vda/queue/scheduler\tnone\n"
		   "block\tvdb\tqueue/scheduler\tsys/block/vdb/queue/scheduler\tbfq\tdiskseq:3\n"
		   "block\tvdc\tqueue/sched");
	open_root(f);
	assert_int_equal(state_lock(&f->rs, &f->c.root), 0);
	assert_int_equal(state_load(&f->rs, &f->c.root), 0);
	assert_int_equal(f->rs.n, 2);
	assert_true(f->rs.dirty);
	assert_string_equal(f->rs.v[0].identity, "");
	assert_string_equal(f->rs.v[1].identity, "diskseq:3");
	assert_int_equal(add(&f->rs, "vdd", "queue/scheduler", "kyber"), 0);
	assert_int_equal(state_commit(&f->rs, &f->c.root), 0);
	assert_false(f->rs.dirty);
	/* the disks' records moved to their files (an earlier version's file) */
	assert_file(f, ORIGINALS, "");
	assert_file(f, "run/earlytune/disks/vda", "block\tvda\tqueue/scheduler\tsys/block/vda/queue/scheduler\tnone\t\n");
	assert_file(f, "run/earlytune/disks/vdb",
		    "block\tvdb\tqueue/scheduler\tsys/block/vdb/queue/scheduler\tbfq\tdiskseq:3\n");
	assert_file(f, "run/earlytune/disks/vdd", "block\tvdd\tqueue/scheduler\tsys/block/vdd/queue/scheduler\tkyber\t\n");
	assert_int_equal(state_load(&back, &f->c.root), 0);
	assert_int_equal(back.n, 3);
	assert_false(back.dirty);
	state_free(&back);
}

/* Nothing changed since the load: nothing is written. */
static void test_commit_clean(void **state)
{
	struct fx *f = *state;

	tree_write(f->dir, "run/earlytune/disks/vda", "block\tvda\tqueue/scheduler\tsys/block/vda/queue/scheduler\tnone\t\n");
	tree_write(f->dir, ORIGINALS, "thp\tthp\tenabled\tsys/kernel/mm/transparent_hugepage/enabled\talways\t\n");
	open_root(f);
	assert_int_equal(state_load(&f->rs, &f->c.root), 0);
	assert_int_equal(add(&f->rs, "vda", "queue/scheduler", "other"), 0);
	assert_false(f->rs.dirty);
	tree_write(f->dir, ORIGINALS, "sentinel");
	tree_write(f->dir, "run/earlytune/disks/vda", "sentinel");
	assert_int_equal(state_commit(&f->rs, &f->c.root), 0);
	assert_file(f, ORIGINALS, "sentinel");
	assert_file(f, "run/earlytune/disks/vda", "sentinel");
}

/* Defect 7 (state half): a state file that cannot be read is an error, never
 * "nothing recorded". */
static void test_load_errors(void **state)
{
	struct fx *f = *state;

	tree_mkdir(f->dir, ORIGINALS);
	open_root(f);
	assert_int_equal(state_load(&f->rs, &f->c.root), -EISDIR);
	assert_int_equal(f->rs.n, 0);
}

/* Fresh records each time: their identity cache lives as long as a command. */
static int stale(struct fx *f, const struct record *x, char *why, size_t size)
{
	struct records rs = { .lock_fd = -1 };
	int r = state_stale(&rs, &f->c.root, x, why, size);

	state_free(&rs);
	return r;
}

/* Defect 3: the identity of a disk is its diskseq where the kernel has one,
 * else a hash of what tells disks of one name apart. */
static void test_identity(void **state)
{
	struct fx *f = *state;
	char id[64], id2[64], why[256], path[PATH_MAX];
	struct record x = { "block", "loop0", "queue/read_ahead_kb",
			    "sys/block/loop0/queue/read_ahead_kb", "128", id, 0, false };

	tree_write(f->dir, "sys/devices/virtual/block/loop0/queue/read_ahead_kb", "128\n");
	tree_write(f->dir, "sys/devices/virtual/block/loop0/dev", "7:0\n");
	tree_write(f->dir, "sys/devices/virtual/block/loop0/loop/backing_file", "/img/a (deleted)\n");
	tree_symlink(f->dir, "sys/block/loop0", "../devices/virtual/block/loop0");
	open_root(f);
	assert_int_equal(state_identity(&f->c.root, "block", x.setting, x.path, id, sizeof(id)), 0);
	assert_int_equal(strncmp(id, "dev:", 4), 0);
	assert_int_equal(strlen(id), 20);
	assert_int_equal(stale(f, &x, why, sizeof(why)), 0);
	/* The same file (deleted since): the same binding. */
	tree_write(f->dir, "sys/devices/virtual/block/loop0/loop/backing_file", "/img/a\n");
	assert_int_equal(stale(f, &x, why, sizeof(why)), 0);
	/* Bound to another file: another device. */
	tree_write(f->dir, "sys/devices/virtual/block/loop0/loop/backing_file", "/img/b\n");
	assert_int_equal(stale(f, &x, why, sizeof(why)), 1);
	assert_contains(why, "loop0 is another device now");
	assert_int_equal(state_identity(&f->c.root, "block", x.setting, x.path, id2, sizeof(id2)), 0);
	assert_string_not_equal(id, id2);
	/* diskseq wins where the kernel has it. */
	tree_write(f->dir, "sys/devices/virtual/block/loop0/diskseq", "42\n");
	assert_int_equal(state_identity(&f->c.root, "block", x.setting, x.path, id2, sizeof(id2)), 0);
	assert_string_equal(id2, "diskseq:42");
	x.identity = (char *)"diskseq:42";
	assert_int_equal(stale(f, &x, why, sizeof(why)), 0);
	x.identity = (char *)"diskseq:41";
	assert_int_equal(stale(f, &x, why, sizeof(why)), 1);
	/* A record without identity (an earlier version's) is not checked. */
	x.identity = (char *)"";
	assert_int_equal(stale(f, &x, why, sizeof(why)), 0);
	/* Gone. */
	x.identity = (char *)"diskseq:42";
	x.target = (char *)"loop1";
	x.path = (char *)"sys/block/loop1/queue/read_ahead_kb";
	assert_int_equal(stale(f, &x, why, sizeof(why)), 1);
	assert_contains(why, "loop1 is gone");
	/* An unreadable diskseq is an error, not "another device". */
	x.target = (char *)"loop0";
	x.path = (char *)"sys/block/loop0/queue/read_ahead_kb";
	tree_path(path, sizeof(path), f->dir, "sys/devices/virtual/block/loop0/diskseq");
	assert_int_equal(unlink(path), 0);
	tree_mkdir(f->dir, "sys/devices/virtual/block/loop0/diskseq");
	assert_true(stale(f, &x, why, sizeof(why)) < 0);
	/* Global items have no identity; interfaces their index. */
	assert_int_equal(state_identity(&f->c.root, "thp", "enabled", "sys/kernel/mm/transparent_hugepage/enabled", id, sizeof(id)), 0);
	assert_string_equal(id, "");
	assert_int_equal(state_identity(&f->c.root, "net", "net.core.default_qdisc", "proc/sys/net/core/default_qdisc", id, sizeof(id)), 0);
	assert_string_equal(id, "");
	assert_int_equal(state_identity(&f->c.root, "net", "qdisc", "netlink/ifindex/7", id, sizeof(id)), 0);
	assert_string_equal(id, "ifindex:7");
	/* Asked once per disk within a command. */
	assert_int_equal(rmdir(path), 0);
	tree_write(f->dir, "sys/devices/virtual/block/loop0/diskseq", "43\n");
	assert_int_equal(state_identity_cached(&f->rs, &f->c.root, "block", "loop0", x.setting, x.path, id, sizeof(id)), 0);
	assert_string_equal(id, "diskseq:43");
	tree_write(f->dir, "sys/devices/virtual/block/loop0/diskseq", "44\n");
	assert_int_equal(state_identity_cached(&f->rs, &f->c.root, "block", "loop0", "queue/scheduler",
					       "sys/block/loop0/queue/scheduler", id, sizeof(id)), 0);
	assert_string_equal(id, "diskseq:43");
}

/* An interface record is stale when no interface has its index, whatever
 * its name now. */
static void test_stale_iface(void **state)
{
	struct fx *f = *state;
	char why[256];
	struct record x = { "net", "eth0", "qdisc", "netlink/ifindex/7", "mq", (char *)"ifindex:7", 0, false };

	tree_write(f->dir, "sys/class/net/renamed/ifindex", "7\n");
	tree_write(f->dir, "sys/class/net/lo/ifindex", "1\n");
	open_root(f);
	assert_int_equal(stale(f, &x, why, sizeof(why)), 0);
	x.path = (char *)"netlink/ifindex/8";
	x.identity = (char *)"ifindex:8";
	assert_int_equal(stale(f, &x, why, sizeof(why)), 1);
	assert_contains(why, "no interface has ifindex 8");
	/* Its name taken by another interface, its index under a new name. */
	tree_write(f->dir, "sys/class/net/eth0/ifindex", "9\n");
	x.path = (char *)"netlink/ifindex/7";
	x.identity = (char *)"ifindex:7";
	assert_int_equal(stale(f, &x, why, sizeof(why)), 0);
	/* Found under its own name; an unreadable index of another interface
	 * matters only when no interface has the record's. */
	tree_write(f->dir, "sys/class/net/eth0/ifindex", "7\n");
	tree_mkdir(f->dir, "sys/class/net/broken/ifindex");
	assert_int_equal(stale(f, &x, why, sizeof(why)), 0);
	x.path = (char *)"netlink/ifindex/8";
	x.identity = (char *)"ifindex:8";
	assert_int_equal(stale(f, &x, why, sizeof(why)), -EISDIR);
}

/* Interface indexes repeat across network namespaces, which share /run:
 * a record names its namespace (the inode of proc/self/ns/net, through the
 * root), and a record of another is neither in a command's scope nor
 * stale here. One without a namespace (an earlier version's) is this one's. */
static void test_netns_records(void **state)
{
	struct fx *f = *state;
	struct records rs = { .lock_fd = -1 };
	struct record mine = { "net", "a0", "qdisc", "netlink/netns/111/ifindex/9", "noop", (char *)"ifindex:9", 0, false };
	struct record other = mine, old = mine;
	const struct domain *d = state_domain("net");
	struct ctx c = { 0 };
	char why[256], rel[STATE_REL_MAX], path[80];
	struct item it = mkitem("net", "a0", "qdisc", "netlink/ifindex/9");

	other.path = (char *)"netlink/netns/222/ifindex/9";
	old.path = (char *)"netlink/ifindex/9";
	tree_write(f->dir, "sys/class/net/lo/ifindex", "1\n");
	tree_mkdir(f->dir, "proc/self/ns");
	open_root(f);
	assert_int_equal(net_netns(&f->c.root), 0); /* a tree that does not say */
	assert_true(net_elsewhere(&f->c.root, &mine));
	assert_false(net_elsewhere(&f->c.root, &old));
	tree_symlink(f->dir, "proc/self/ns/net", "net:[111]");
	assert_int_equal(net_netns(&f->c.root), 111);
	/* Both forms name interface 9, whose records share links/9. */
	for (const struct record *x = &mine; x; x = x == &mine ? &other : x == &other ? &old : NULL) {
		assert_int_equal(net_record_ifindex(x->path), 9);
		state_file_of("net", x->target, x->path, x->identity, rel);
		assert_string_equal(rel, "run/earlytune/links/9");
	}
	for (const char **p = (const char *[]){ "netlink/netns/0/ifindex/9", "netlink/netns/111/ifindex/",
						"netlink/netns/x/ifindex/9", "netlink/netns/111/9",
						"netlink/netns//ifindex/9", "netlink/netns/111/ifindex/9/", NULL };
	     *p; p++)
		assert_int_equal(net_record_ifindex(*p), 0);
	assert_false(net_elsewhere(&f->c.root, &mine));
	assert_true(net_elsewhere(&f->c.root, &other));
	assert_false(net_elsewhere(&f->c.root, &old));
	/* No interface 9 here: this namespace's records are stale, another's not. */
	assert_int_equal(stale(f, &mine, why, sizeof(why)), 1);
	assert_int_equal(stale(f, &old, why, sizeof(why)), 1);
	assert_int_equal(stale(f, &other, why, sizeof(why)), 0);
	/* Another namespace's is in the scope of --ifindex 9 (its file is
	 * links/9), but not this namespace's to revert or forget. */
	c.root = f->c.root;
	c.ifindex = 9;
	assert_true(session_in_scope(&c, d, &other, 0));
	assert_true(session_owns(&c, d, &mine));
	assert_true(session_owns(&c, d, &old));
	assert_false(session_owns(&c, d, &other));
	/* The path an interface's item takes: this namespace's, or the
	 * earlier form where a record of it is (no second record). */
	net_qdisc_path(&rs, 111, 9, path, sizeof(path));
	assert_string_equal(path, "netlink/netns/111/ifindex/9");
	net_qdisc_path(NULL, 0, 9, path, sizeof(path));
	assert_string_equal(path, "netlink/ifindex/9");
	assert_int_equal(state_add(&rs, &it, it.path, "noop", "ifindex:9"), 0);
	net_qdisc_path(&rs, 111, 9, path, sizeof(path));
	assert_string_equal(path, "netlink/ifindex/9");
	state_free(&rs);
}

/* Issue 10: a dead run's temporary files were swept on every lock, udev's
 * forget of a device without records included. The rewrite sweeps: it
 * alone needs the lock's "no live writer", and holds it. */
static void test_sweep_on_save(void **state)
{
	struct fx *f = *state;
	char dead[PATH_MAX], keep[PATH_MAX];

	tree_write(f->dir, "run/earlytune/.originals.0badc0de", "x\n");
	tree_write(f->dir, "run/earlytune/.originals.keep", "x\n");
	tree_path(dead, sizeof(dead), f->dir, "run/earlytune/.originals.0badc0de");
	tree_path(keep, sizeof(keep), f->dir, "run/earlytune/.originals.keep");
	open_root(f);
	/* Without the lock a temporary file may be a live writer's. */
	assert_int_equal(add(&f->rs, "vda", "queue/scheduler", "none"), 0);
	assert_int_equal(state_save(&f->rs, &f->c.root), 0);
	assert_int_equal(access(dead, F_OK), 0);
	state_free(&f->rs);
	assert_int_equal(state_lock(&f->rs, &f->c.root), 0);
	assert_int_equal(state_load(&f->rs, &f->c.root), 0);
	assert_int_equal(state_commit(&f->rs, &f->c.root), 0); /* nothing to write */
	assert_int_equal(access(dead, F_OK), 0);
	assert_int_equal(state_save(&f->rs, &f->c.root), 0);
	assert_int_equal(access(dead, F_OK), -1);
	assert_int_equal(access(keep, F_OK), 0);
}

static void test_forget(void **state)
{
	static const char *const disks[] = { "vda", "vdb", "vdc", "vdd", "vde" };
	struct fx *f = *state;
	struct records *rs = &f->rs;
	bool drop[] = { false, true, false, true, true };

	for (size_t i = 0; i < ARRAY_SIZE(disks); i++)
		assert_int_equal(add(rs, disks[i], "queue/scheduler", disks[i]), 0);
	state_forget(rs, drop);
	assert_int_equal(rs->n, 2);
	assert_string_equal(rs->v[0].target, "vda");
	assert_string_equal(rs->v[1].target, "vdc");
	assert_string_equal(value_of(rs, "sys/block/vdc/queue/scheduler"), "vdc");
	assert_null(state_find(rs, "sys/block/vdb/queue/scheduler"));
	assert_null(state_find(rs, "sys/block/vde/queue/scheduler"));
	/* A forgotten path may be recorded again, with its new original. */
	assert_int_equal(add(rs, "vdb", "queue/scheduler", "again"), 0);
	assert_string_equal(value_of(rs, "sys/block/vdb/queue/scheduler"), "again");
	assert_int_equal(rs->n, 3);
}

static void test_many_records(void **state)
{
	struct fx *f = *state;
	struct records *rs = &f->rs;
	char name[32], path[128], value[32];

	for (int i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "vd%d", i);
		snprintf(value, sizeof(value), "%d", i);
		assert_int_equal(add(rs, name, "queue/read_ahead_kb", value), 0);
	}
	for (int i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "vd%d", i);
		assert_int_equal(add(rs, name, "queue/read_ahead_kb", "overwritten?"), 0);
	}
	assert_int_equal(rs->n, 2000);
	for (int i = 0; i < 2000; i += 7) {
		snprintf(path, sizeof(path), "sys/block/vd%d/queue/read_ahead_kb", i);
		snprintf(value, sizeof(value), "%d", i);
		assert_string_equal(value_of(rs, path), value);
	}
	assert_null(state_find(rs, "sys/block/vd2000/queue/read_ahead_kb"));
}

static void test_lock(void **state)
{
	struct fx *f = *state;
	struct stat st;
	char path[PATH_MAX];

	open_root(f);
	assert_int_equal(state_lock(&f->rs, &f->c.root), 0);
	assert_true(f->rs.lock_fd >= 0);
	tree_path(path, sizeof(path), f->dir, "run/earlytune/lock");
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	state_free(&f->rs);
	assert_int_equal(f->rs.lock_fd, -1);
	assert_int_equal(f->rs.n, 0);
	/* Released: it can be taken again. */
	assert_int_equal(state_lock(&f->rs, &f->c.root), 0);
}

/* A child that takes the lock file's flock, says so through the pipe, and
 * keeps it for hold_ms (0: until killed), counting one holder more in the
 * lock file every 100 ms when bump is set (a queue that moves). */
static pid_t holder(struct fx *f, unsigned hold_ms, bool bump)
{
	char path[PATH_MAX], c = 0;
	int p[2];
	pid_t pid;

	tree_path(path, sizeof(path), f->dir, "run/earlytune/lock");
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		int fd = open(path, O_RDWR);

		if (fd < 0 || flock(fd, LOCK_EX) < 0 || write(p[1], &c, 1) != 1)
			_exit(1);
		for (unsigned ms = 0; !hold_ms || ms < hold_ms; ms += 100) {
			struct stat st;

			usleep(100 * 1000);
			if (bump && (fstat(fd, &st) < 0 || ftruncate(fd, st.st_size + 1) < 0))
				_exit(1);
		}
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	return pid;
}

static void assert_alarm_restored(void)
{
	struct itimerval it;
	struct sigaction sa;

	assert_int_equal(getitimer(ITIMER_REAL, &it), 0);
	assert_int_equal(it.it_value.tv_sec + it.it_value.tv_usec + it.it_interval.tv_usec, 0);
	assert_int_equal(sigaction(SIGALRM, NULL, &sa), 0);
	assert_ptr_equal(sa.sa_handler, SIG_DFL);
}

/* state_lock's result and its wait in ms, while a holder() child keeps the
 * lock (*pid is the child), with the bounds stall_ms and wait_ms. */
static long long timed_lock(struct fx *f, unsigned hold_ms, bool bump, unsigned stall_ms, unsigned wait_ms,
			    pid_t *pid, int *r)
{
	unsigned saved_stall = state_lock_stall_ms, saved_wait = state_lock_wait_ms;
	long long t0;

	if (f->c.root.fd < 0)
		open_root(f);
	assert_int_equal(state_lock(&f->rs, &f->c.root), 0); /* creates the lock file */
	state_free(&f->rs);
	*pid = holder(f, hold_ms, bump);
	state_lock_stall_ms = stall_ms;
	state_lock_wait_ms = wait_ms;
	t0 = now_ns(CLOCK_MONOTONIC);
	*r = state_lock(&f->rs, &f->c.root);
	t0 = (now_ns(CLOCK_MONOTONIC) - t0) / 1000000;
	state_lock_stall_ms = saved_stall;
	state_lock_wait_ms = saved_wait;
	return t0;
}

static void reap(pid_t pid, bool kill_it)
{
	int st;

	if (kill_it)
		kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(kill_it || (WIFEXITED(st) && WEXITSTATUS(st) == 0));
}

/* A held lock is waited for without polling: the waiter gets it as soon as
 * the holder lets go (the kernel wakes it), not at the next poll. */
static void test_lock_waits(void **state)
{
	pid_t pid;
	int r;
	long long ms = timed_lock(*state, 300, false, 10000, 90000, &pid, &r);

	reap(pid, false);
	assert_int_equal(r, 0);
	assert_true(ms >= 250);
	assert_true(ms < 5000);
	assert_alarm_restored();
}

/* A peer that never lets go and shows no progress: the wait ends at the
 * stall bound, with ETIMEDOUT, the lock file closed and the process's alarm
 * as it was. */
static void test_lock_times_out(void **state)
{
	struct fx *f = *state;
	pid_t pid;
	int r;
	long long ms = timed_lock(f, 0, false, 400, 90000, &pid, &r);

	reap(pid, true);
	assert_int_equal(r, -ETIMEDOUT);
	assert_int_equal(f->rs.lock_fd, -1);
	assert_true(ms >= 400);
	assert_true(ms < 5000);
	assert_alarm_restored();
	/* Its holder gone, the lock is free again. */
	assert_int_equal(state_lock(&f->rs, &f->c.root), 0);
}

/* A queue that moves (holders counting themselves in) is waited for past
 * the stall bound; the overall bound still ends a wait that never gets
 * its turn. */
static void test_lock_queue_moves(void **state)
{
	struct fx *f = *state;
	pid_t pid;
	int r;
	long long ms = timed_lock(f, 1200, true, 400, 90000, &pid, &r);

	reap(pid, false);
	assert_int_equal(r, 0);
	assert_true(ms >= 1100);
	state_free(&f->rs);
	ms = timed_lock(f, 0, true, 400, 900, &pid, &r);
	reap(pid, true);
	assert_int_equal(r, -ETIMEDOUT);
	assert_true(ms >= 900);
	assert_true(ms < 5000);
	assert_alarm_restored();
}

/* The records of an earlier version, all in originals: a load of any
 * kind moves them to their files (a scoped one cannot trust the files
 * until then). */
static const char old_file[] =
	"block\tvda\tqueue/scheduler\tsys/block/vda/queue/scheduler\tmq-deadline\tdiskseq:1\n"
	"block\tvdb\tqueue/scheduler\tsys/block/vdb/queue/scheduler\tkyber\tdiskseq:2\n"
	"garbage dropped\n"
	"net\tsysctl\tnet.core.default_qdisc\tproc/sys/net/core/default_qdisc\tfq_codel\t\n"
	"net\teth0\tqdisc\tnetlink/ifindex/3\tfq_codel\tifindex:3\n"
	"block\tvdb0\tqueue/scheduler\tsys/block/vdb0/queue/scheduler\tnone\tdiskseq:3\n"
	"block\tvdb\tqueue/read_ahead_kb\tsys/block/vdb/queue/read_ahead_kb\t8192\tdiskseq:2\n";

static void scoped_setup(struct fx *f, struct ctx *c, char **dev)
{
	tree_write(f->dir, ORIGINALS, old_file);
	open_root(f);
	c->root = f->c.root;
	c->devices = dev, c->ndevices = 1;
}

/* Moves the old file's records to their files, as the first run does. */
static void migrate(struct fx *f, struct ctx *c)
{
	assert_int_equal(state_load_scoped(&f->rs, &f->c.root, c), 0);
	assert_false(f->rs.scoped_load); /* an old file: everything */
	assert_int_equal(f->rs.n, 6);
	assert_int_equal(state_commit(&f->rs, &f->c.root), 0);
	state_free(&f->rs);
	assert_file(f, ORIGINALS, "net\tsysctl\tnet.core.default_qdisc\tproc/sys/net/core/default_qdisc\tfq_codel\t\n");
	assert_file(f, "run/earlytune/links/3", "net\teth0\tqdisc\tnetlink/ifindex/3\tfq_codel\tifindex:3\n");
	assert_file(f, "run/earlytune/disks/vdb0",
		    "block\tvdb0\tqueue/scheduler\tsys/block/vdb0/queue/scheduler\tnone\tdiskseq:3\n");
}

static void test_scoped_load(void **state)
{
	struct fx *f = *state;
	struct ctx c = { 0 };
	char *dev = "vdb";

	scoped_setup(f, &c, &dev);
	migrate(f, &c);
	/* vdb's file only: not vdb0's (a name that begins the same) */
	assert_int_equal(state_load_scoped(&f->rs, &f->c.root, &c), 0);
	assert_true(f->rs.scoped_load);
	assert_int_equal(f->rs.n, 2);
	assert_int_equal(f->rs.nfiles, 1);
	assert_string_equal(f->rs.v[0].path, "sys/block/vdb/queue/scheduler");
	assert_string_equal(f->rs.v[1].path, "sys/block/vdb/queue/read_ahead_kb");
	/* a change to vdb rewrites its file, no other */
	tree_write(f->dir, ORIGINALS, "not read\n");
	assert_int_equal(add(&f->rs, "vdb", "queue/nr_requests", "256"), 0);
	assert_true(f->rs.scoped_load);
	assert_int_equal(state_commit(&f->rs, &f->c.root), 0);
	assert_file(f, "run/earlytune/disks/vdb",
		    "block\tvdb\tqueue/scheduler\tsys/block/vdb/queue/scheduler\tkyber\tdiskseq:2\n"
		    "block\tvdb\tqueue/read_ahead_kb\tsys/block/vdb/queue/read_ahead_kb\t8192\tdiskseq:2\n"
		    "block\tvdb\tqueue/nr_requests\tsys/block/vdb/queue/nr_requests\t256\t\n");
	assert_file(f, ORIGINALS, "not read\n");
	state_free(&f->rs);
	/* its records forgotten, its file goes */
	f->rs = (struct records){ .lock_fd = -1 };
	assert_int_equal(state_load_scoped(&f->rs, &f->c.root, &c), 0);
	state_forget(&f->rs, (bool[]){ true, true, true });
	assert_int_equal(state_commit(&f->rs, &f->c.root), 0);
	assert_false(exists(f, "run/earlytune/disks/vdb"));
}

/* A run about everything keeps every record in the one file and folds the
 * overrides in (removing them); a scoped load finds its group through the
 * index; an override wins over the group's lines, an empty one is a
 * tombstone; a one file this version did not write is an error. */
static void test_one_file(void **state)
{
	struct fx *f = *state;
	struct ctx c = { 0 };
	char *dev = "vdb";

	scoped_setup(f, &c, &dev);
	migrate(f, &c);
	assert_int_equal(state_load(&f->rs, &f->c.root), 0);
	f->rs.whole = true;
	assert_int_equal(state_commit(&f->rs, &f->c.root), 0);
	assert_true(exists(f, "run/earlytune/records"));
	assert_false(exists(f, ORIGINALS));
	assert_false(exists(f, "run/earlytune/disks/vdb"));
	assert_false(exists(f, "run/earlytune/links/3"));
	state_free(&f->rs);
	assert_int_equal(state_load_scoped(&f->rs, &f->c.root, &c), 0);
	assert_true(f->rs.scoped_load);
	assert_int_equal(f->rs.n, 2);
	assert_string_equal(value_of(&f->rs, "sys/block/vdb/queue/read_ahead_kb"), "8192");
	state_free(&f->rs);
	tree_write(f->dir, "run/earlytune/disks/vdb", "block\tvdb\tqueue/scheduler\tsys/block/vdb/queue/scheduler\tbfq\t\n");
	assert_int_equal(state_load_scoped(&f->rs, &f->c.root, &c), 0);
	assert_int_equal(f->rs.n, 1);
	assert_string_equal(value_of(&f->rs, "sys/block/vdb/queue/scheduler"), "bfq");
	state_forget(&f->rs, (bool[]){ true });
	assert_int_equal(state_commit(&f->rs, &f->c.root), 0);
	assert_file(f, "run/earlytune/disks/vdb", "");
	state_free(&f->rs);
	assert_int_equal(state_load(&f->rs, &f->c.root), 0);
	assert_int_equal(f->rs.n, 4);
	assert_null(state_find(&f->rs, "sys/block/vdb/queue/read_ahead_kb"));
	state_free(&f->rs);
	tree_write(f->dir, "run/earlytune/records", "earlytune-records\t2\t0\n");
	assert_int_equal(state_load(&f->rs, &f->c.root), -EBADMSG);
}

/* A record outside the scope, asked for or added, makes the run read the
 * other files: never recorded twice, never missed. */
static void test_scoped_unscopes(void **state)
{
	struct fx *f = *state;
	struct ctx c = { 0 };
	char *dev = "vdb";
	struct item it = mkitem("net", "sysctl", "net.core.default_qdisc", "proc/sys/net/core/default_qdisc");
	const struct record *x;

	scoped_setup(f, &c, &dev);
	migrate(f, &c);
	assert_int_equal(state_load_scoped(&f->rs, &f->c.root, &c), 0);
	assert_int_equal(add(&f->rs, "vdb", "queue/scheduler", "none"), 0); /* its own file: stays partial */
	assert_true(f->rs.scoped_load);
	assert_int_equal(state_add(&f->rs, &it, it.path, "fq", ""), 0); /* recorded: the first original stays */
	assert_false(f->rs.scoped_load);
	assert_int_equal(f->rs.n, 6);
	x = state_find(&f->rs, "proc/sys/net/core/default_qdisc");
	assert_non_null(x);
	assert_string_equal(x->value, "fq_codel");
	state_free(&f->rs);

	f->rs = (struct records){ .lock_fd = -1 };
	assert_int_equal(state_load_scoped(&f->rs, &f->c.root, &c), 0);
	x = state_find(&f->rs, "sys/block/vda/queue/scheduler");
	assert_non_null(x);
	assert_string_equal(x->value, "mq-deadline");
	assert_int_equal(f->rs.n, 6);
}

/* A record in a disk's file that is another's (moved by hand) is not
 * trusted by a scoped load: it reads everything, and the record moves. */
static void test_scoped_misplaced(void **state)
{
	struct fx *f = *state;
	struct ctx c = { 0 };
	char *dev = "vdb";

	scoped_setup(f, &c, &dev);
	migrate(f, &c);
	tree_write(f->dir, "run/earlytune/disks/vdb",
		   "block\tvdc\tqueue/scheduler\tsys/block/vdc/queue/scheduler\tbfq\tdiskseq:4\n");
	assert_int_equal(state_load_scoped(&f->rs, &f->c.root, &c), 0);
	assert_false(f->rs.scoped_load);
	assert_int_equal(f->rs.n, 5);
	assert_int_equal(state_commit(&f->rs, &f->c.root), 0);
	assert_false(exists(f, "run/earlytune/disks/vdb"));
	assert_file(f, "run/earlytune/disks/vdc",
		    "block\tvdc\tqueue/scheduler\tsys/block/vdc/queue/scheduler\tbfq\tdiskseq:4\n");
}

/* A disk whose name starts with a dot has no file of its own: disks/.NAME
 * would pass for a temporary file, skipped by a full load and removed by a
 * sweep (found by the fuzzer: a scoped save then lost the record). Its
 * records stay in originals, and a run about it reads everything. */
static void test_scoped_dot_name(void **state)
{
	struct fx *f = *state;
	struct ctx c = { 0 };
	char *dev = ".x";

	scoped_setup(f, &c, &dev);
	migrate(f, &c);
	assert_int_equal(state_load_scoped(&f->rs, &f->c.root, &c), 0);
	assert_false(f->rs.scoped_load);
	assert_int_equal(f->rs.n, 6);
	assert_int_equal(add(&f->rs, ".x", "queue/scheduler", "bfq"), 0);
	assert_int_equal(state_commit(&f->rs, &f->c.root), 0);
	state_free(&f->rs);
	assert_false(exists(f, "run/earlytune/disks/.x"));
	assert_file(f, ORIGINALS, "net\tsysctl\tnet.core.default_qdisc\tproc/sys/net/core/default_qdisc\tfq_codel\t\n"
				  "block\t.x\tqueue/scheduler\tsys/block/.x/queue/scheduler\tbfq\t\n");
	f->rs = (struct records){ .lock_fd = -1 };
	assert_int_equal(state_load_scoped(&f->rs, &f->c.root, &c), 0);
	assert_false(f->rs.scoped_load);
	assert_non_null(state_find(&f->rs, "sys/block/.x/queue/scheduler"));
	f->rs.dirty = true;
	assert_int_equal(state_save(&f->rs, &f->c.root), 0);
	state_free(&f->rs);
	f->rs = (struct records){ .lock_fd = -1 };
	assert_int_equal(state_load(&f->rs, &f->c.root), 0);
	assert_int_equal(f->rs.n, 7);
	assert_non_null(state_find(&f->rs, "sys/block/.x/queue/scheduler"));
}

static void test_scoped_ifindex(void **state)
{
	struct fx *f = *state;
	struct ctx c = { 0 };
	char *dev = "vdb";

	scoped_setup(f, &c, &dev);
	migrate(f, &c);
	c.ndevices = 0, c.ifindex = 3;
	assert_int_equal(state_load_scoped(&f->rs, &f->c.root, &c), 0);
	assert_int_equal(f->rs.n, 1);
	assert_string_equal(f->rs.v[0].path, "netlink/ifindex/3");
	state_free(&f->rs);
	/* an interface without records: a lookup of its path stays partial */
	f->rs = (struct records){ .lock_fd = -1 };
	c.ifindex = 4;
	assert_int_equal(state_load_scoped(&f->rs, &f->c.root, &c), 0);
	assert_null(state_find(&f->rs, "netlink/ifindex/4"));
	assert_true(f->rs.scoped_load);
	assert_int_equal(f->rs.n, 0);
	state_free(&f->rs);
	/* --iface (a name) and no device: everything */
	f->rs = (struct records){ .lock_fd = -1 };
	c.ifindex = 0, c.iface = "eth0";
	assert_int_equal(state_load_scoped(&f->rs, &f->c.root, &c), 0);
	assert_int_equal(f->rs.n, 6);
	assert_false(f->rs.scoped_load);
}

/* Interface 3's file holds its records: not 33's nor 30's, and one whose
 * number was written with leading zeros (session_in_scope takes it). */
static void test_scoped_ifindex_exact(void **state)
{
	struct fx *f = *state;
	struct ctx c = { .ifindex = 3 };

	tree_write(f->dir, ORIGINALS,
		   "net\teth33\tqdisc\tnetlink/ifindex/33\tnoop\tifindex:33\n"
		   "net\teth3\tqdisc\tnetlink/ifindex/3\tnoop\tifindex:3\n"
		   "net\teth30\tqdisc\tnetlink/ifindex/30\tnoop\tifindex:30\n"
		   "net\told3\tqdisc\tnetlink/ifindex/003\tnoop\tifindex:3\n"
		   "net\tnetlink/ifindex/3\tqdisc\tnetlink/ifindex/4\tnoop\tifindex:4\n");
	open_root(f);
	c.root = f->c.root;
	assert_int_equal(state_load(&f->rs, &f->c.root), 0); /* an earlier version's file, moved */
	assert_int_equal(state_save(&f->rs, &f->c.root), 0);
	state_free(&f->rs);
	f->rs = (struct records){ .lock_fd = -1 };
	assert_int_equal(state_load_scoped(&f->rs, &f->c.root, &c), 0);
	assert_int_equal(f->rs.n, 2);
	assert_string_equal(f->rs.v[0].target, "eth3");
	assert_string_equal(f->rs.v[1].target, "old3");
}

static const struct CMUnitTest tests[] = {
	FX_TEST(test_add_never_overwrites),
	FX_TEST(test_scoped_ifindex_exact),
	FX_TEST(test_add_rejects),
	FX_TEST(test_round_trip),
	FX_TEST(test_load_drops_bad_lines),
	FX_TEST(test_load_missing_and_torn),
	FX_TEST(test_save_needs_directory),
	FX_TEST(test_save_repairs_torn),
	FX_TEST(test_commit_clean),
	FX_TEST(test_load_errors),
	FX_TEST(test_identity),
	FX_TEST(test_stale_iface),
	FX_TEST(test_netns_records),
	FX_TEST(test_sweep_on_save),
	FX_TEST(test_forget),
	FX_TEST(test_many_records),
	FX_TEST(test_lock),
	FX_TEST(test_lock_waits),
	FX_TEST(test_lock_times_out),
	FX_TEST(test_lock_queue_moves),
	FX_TEST(test_scoped_load),
	FX_TEST(test_one_file),
	FX_TEST(test_scoped_unscopes),
	FX_TEST(test_scoped_misplaced),
	FX_TEST(test_scoped_dot_name),
	FX_TEST(test_scoped_ifindex),
};

UNIT_MAIN("state", tests)
