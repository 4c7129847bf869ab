// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * select.c and the interfaces of a --root tree (iface.c): what is an
 * interface in sys/class/net, which are selected, and the skip line of each
 * one left alone, naming the rule that excluded it.
 */
#include <net/if_arp.h>

#include "unit.h"
#include "net/internal.h"

static const char fq_conf[] = "[net]\nqdisc = fq\n";

/* An interface as sysfs lays it out: sys/class/net/NAME a link to its
 * directory under sys/devices/virtual/net; driver "" for no device link;
 * devtype "" for a uevent without DEVTYPE=. */
static void iface(struct fx *f, const char *name, int ifindex, unsigned type, const char *driver,
		  const char *devtype)
{
	char rel[PATH_MAX], link[PATH_MAX], v[128];

	snprintf(rel, sizeof(rel), "sys/devices/virtual/net/%s/ifindex", name);
	snprintf(v, sizeof(v), "%d\n", ifindex);
	tree_write(f->dir, rel, v);
	snprintf(rel, sizeof(rel), "sys/devices/virtual/net/%s/type", name);
	snprintf(v, sizeof(v), "%u\n", type);
	tree_write(f->dir, rel, v);
	snprintf(rel, sizeof(rel), "sys/devices/virtual/net/%s/uevent", name);
	snprintf(v, sizeof(v), "%s%s%sINTERFACE=%s\nIFINDEX=%d\n", *devtype ? "DEVTYPE=" : "", devtype,
		 *devtype ? "\n" : "", name, ifindex);
	tree_write(f->dir, rel, v);
	if (*driver) {
		snprintf(rel, sizeof(rel), "sys/devices/virtual/net/%s/device/driver", name);
		snprintf(link, sizeof(link), "../../../../../bus/drivers/%s", driver);
		tree_symlink(f->dir, rel, link);
	}
	snprintf(rel, sizeof(rel), "sys/class/net/%s", name);
	snprintf(link, sizeof(link), "../../devices/virtual/net/%s", name);
	tree_symlink(f->dir, rel, link);
}

/* A bonding host's tree: eth0 selected; lo, a bridge, a bond (known by its
 * bonding/ directory alone), a VLAN, IPoIB, a veth, a NIC whose tree lacks
 * the device link; and bonding_masters, a file. */
static void bonding_host(struct fx *f)
{
	tree_write(f->dir, "proc/sys/kernel/osrelease", "6.1.0-unit\n");
	iface(f, "lo", 1, ARPHRD_LOOPBACK, "", "");
	iface(f, "eth0", 2, ARPHRD_ETHER, "ixgbe", "");
	iface(f, "br0", 3, ARPHRD_ETHER, "", "bridge");
	iface(f, "bond0", 4, ARPHRD_ETHER, "", "");
	tree_mkdir(f->dir, "sys/devices/virtual/net/bond0/bonding");
	iface(f, "bond0.100", 5, ARPHRD_ETHER, "", "vlan");
	iface(f, "ib0", 6, ARPHRD_INFINIBAND, "mlx5_core", "");
	iface(f, "veth1", 7, ARPHRD_ETHER, "", "");
	iface(f, "eth1", 8, ARPHRD_ETHER, "", "");
	tree_write(f->dir, "sys/class/net/bonding_masters", "bond0\n");
}

static const struct item *qdisc_of(struct fx *f, const char *name)
{
	const struct item *it = find_item(&f->p, name, "qdisc");

	if (!it)
		fail_msg("no qdisc item for %s among %zu", name, f->p.n);
	return it;
}

static void expect_left_alone(struct fx *f, const char *name, const char *why)
{
	const struct item *it = qdisc_of(f, name);

	assert_int_equal(it->action, ACT_SKIP);
	assert_false(it->unmet);
	assert_contains(it->reason, why);
}

/* Every interface the default leaves alone has its line and its rule;
 * bonding_masters is none, and plan does not fail on it. */
static void test_left_alone_each_said(void **state)
{
	struct fx *f = *state;

	bonding_host(f);
	fx_ctx(f, fq_conf, NULL);
	assert_int_equal(net_plan(&f->c, &f->p), 0);
	assert_null(find_item(&f->p, "bonding_masters", "qdisc"));
	for (size_t i = 0; i < f->p.n; i++)
		assert_int_not_equal(f->p.v[i].action, ACT_ERROR);
	assert_contains(qdisc_of(f, "eth0")->reason, "netlink reaches only the running kernel");
	expect_left_alone(f, "lo", "lo is the loopback interface, not a physical device (no sys/class/net/lo/device)");
	expect_left_alone(f, "br0", "br0 is a bridge, not a physical device");
	expect_left_alone(f, "bond0", "bond0 is a bond, not a physical device");
	expect_left_alone(f, "bond0.100", "bond0.100 is a VLAN, not a physical device");
	expect_left_alone(f, "ib0", "ib0 is IPoIB (InfiniBand), not Ethernet (type 32): the default selection "
				    "takes Ethernet devices only");
	expect_left_alone(f, "veth1", "veth1 is not a physical device (no sys/class/net/veth1/device)");
	expect_left_alone(f, "eth1", "name it in [net] interfaces to tune it");
	/* the default_qdisc sysctl, then 8 interfaces in name order (as disks are) */
	assert_int_equal(f->p.n, 9);
	assert_string_equal(f->p.v[1].target, "bond0");
	assert_string_equal(f->p.v[2].target, "bond0.100");
	assert_string_equal(f->p.v[8].target, "veth1");
}

/* interfaces = globs: the glob that excluded it, or that none names it. */
static void test_left_alone_by_globs(void **state)
{
	struct fx *f = *state;

	bonding_host(f);
	fx_ctx(f, "[net]\nqdisc = fq\ninterfaces = eth* br0 !eth1\n", NULL);
	assert_int_equal(net_plan(&f->c, &f->p), 0);
	assert_contains(qdisc_of(f, "br0")->reason, "netlink reaches only");
	assert_contains(qdisc_of(f, "eth0")->reason, "netlink reaches only");
	expect_left_alone(f, "eth1", "eth1 is excluded by '!eth1' in [net] interfaces");
	expect_left_alone(f, "ib0", "[net] interfaces = eth* br0 !eth1 does not name ib0");
	/* only exclusions: the default selection, with its own reasons */
	plan_free(&f->p);
	config_free(&f->c.cfg);
	assert_int_equal(config_parse_text(&f->c.cfg, "[net]\nqdisc = fq\ninterfaces = !eth0\n", "b.conf"), 0);
	assert_int_equal(net_plan(&f->c, &f->p), 0);
	expect_left_alone(f, "eth0", "eth0 is excluded by '!eth0' in [net] interfaces");
	expect_left_alone(f, "lo", "lo is the loopback interface");
}

/* --iface: the one named, whatever excludes it; a name no interface has,
 * or bonding_masters, is an error, as --device is for a disk. */
static void test_one_iface(void **state)
{
	struct fx *f = *state;
	const struct item *it;

	bonding_host(f);
	fx_ctx(f, fq_conf, NULL);
	f->c.iface = "ib0";
	assert_int_equal(net_plan(&f->c, &f->p), 0);
	assert_int_equal(f->p.n, 1);
	expect_left_alone(f, "ib0", "ib0 is IPoIB");
	for (int i = 0; i < 2; i++) {
		plan_free(&f->p);
		f->c.iface = i ? "bonding_masters" : "ib1";
		assert_int_equal(net_plan(&f->c, &f->p), 0);
		assert_int_equal(f->p.n, 1);
		it = qdisc_of(f, f->c.iface);
		assert_int_equal(it->action, ACT_ERROR);
		assert_contains(it->error, "no interface named '");
		assert_contains(it->error, "/sys/class/net");
	}
	plan_free(&f->p);
	f->c.iface = NULL;
	f->c.ifindex = 99;
	assert_int_equal(net_plan(&f->c, &f->p), 0);
	assert_contains(qdisc_of(f, "?")->error, "no interface with index 99");
}

/* --iface without a [net] qdisc: the interface's line says nothing applies;
 * one that does not exist is still an error. */
static void test_one_iface_nothing_configured(void **state)
{
	struct fx *f = *state;

	bonding_host(f);
	fx_ctx(f, "[net]\ncongestion_control = bbr\n", NULL);
	f->c.iface = "eth0";
	assert_int_equal(net_plan(&f->c, &f->p), 0);
	assert_int_equal(f->p.n, 1);
	expect_left_alone(f, "eth0", "no [net] qdisc is configured, so nothing applies to eth0");
	assert_null(qdisc_of(f, "eth0")->desired);
	plan_free(&f->p);
	f->c.iface = "nosuch";
	assert_int_equal(net_plan(&f->c, &f->p), 0);
	assert_int_equal(qdisc_of(f, "nosuch")->action, ACT_ERROR);
	/* a run about everything lists no interface without a qdisc */
	plan_free(&f->p);
	f->c.iface = NULL;
	assert_int_equal(net_plan(&f->c, &f->p), 0);
	assert_null(find_item(&f->p, "eth0", "qdisc"));
}

/* A file of sys/class/net has no index: not an interface, not an error
 * (records of a departed interface are looked up through every entry). */
static void test_ifindex_of_file(void **state)
{
	struct fx *f = *state;

	bonding_host(f);
	assert_int_equal(root_open(&f->c.root, f->dir), 0);
	assert_int_equal(net_ifindex_of(&f->c.root, "bonding_masters"), 0);
	assert_int_equal(net_ifindex_of(&f->c.root, "ib0"), 6);
	assert_int_equal(net_ifindex_of(&f->c.root, "nosuch"), 0);
	assert_false(net_is_iface_entry(&f->c, "bonding_masters"));
	assert_true(net_is_iface_entry(&f->c, "lo"));
}

static const struct CMUnitTest tests[] = {
	FX_TEST(test_left_alone_each_said),
	FX_TEST(test_left_alone_by_globs),
	FX_TEST(test_one_iface),
	FX_TEST(test_one_iface_nothing_configured),
	FX_TEST(test_ifindex_of_file),
};

UNIT_MAIN("netsel", tests)
