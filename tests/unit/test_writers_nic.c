// SPDX-License-Identifier: LGPL-2.1-or-later
/* The other writers of the NIC settings ([net "NAME"], domain nic): udev's
 * .link files, NetworkManager, TuneD [net], udev RUN ethtool, on fake trees. */
#include "writers_fx.h"

/* The entry of the reader that writes setting, and its verdict for iface. */
static struct wjudge judge(struct wfx *x, const char *iface, const char *setting, const char *path, size_t *which)
{
	struct wjudge j = { 0 };

	x->it = (struct item){ .domain = "nic", .target = (char *)iface, .setting = (char *)setting,
			       .path = (char *)path, .desired = "on" };
	*which = x->w.n;
	for (size_t i = 0; i < x->w.n; i++) {
		struct wjudge k = { 0 };

		x->w.v[i].judge(&x->w.v[i], &x->w, &x->it, &k);
		if (k.applies) {
			*which = i;
			return k;
		}
	}
	return j;
}

/* An interface: its class link (virtual or a PCI device), name_assign_type,
 * address, driver. */
static void iface(struct wfx *x, const char *name, bool virt, const char *assign, const char *driver)
{
	char rel[256], target[256];

	snprintf(target, sizeof(target), "/sys/devices/%s/net/%s", virt ? "virtual" : "pci0000:00/0000:00:03.0", name);
	snprintf(rel, sizeof(rel), "%s/name_assign_type", target + 1);
	tree_write(x->dir, rel, assign);
	snprintf(rel, sizeof(rel), "%s/address", target + 1);
	tree_write(x->dir, rel, "52:54:00:12:34:56\n");
	snprintf(rel, sizeof(rel), "sys/class/net/%s", name);
	tree_symlink(x->dir, rel, target);
	if (driver) {
		snprintf(rel, sizeof(rel), "%s/device/driver", target + 1);
		snprintf(target, sizeof(target), "/sys/bus/virtio/drivers/%s", driver);
		tree_symlink(x->dir, rel, target);
	}
}

static void test_names(void **state)
{
	assert_string_equal(nic_feature("gro"), "rx-gro");
	assert_string_equal(nic_feature("generic-receive-offload"), "rx-gro");
	assert_string_equal(nic_feature("rx-gro-hw"), "rx-gro-hw");
	assert_true(nic_key_match("offload.tcp-segmentation-offload", "offload.tx-tcp6-segmentation"));
	assert_true(nic_key_match("offload.tx-checksum-ipv4", "offload.tx-checksum-*"));
	assert_true(nic_key_match("offload.gro", "offload.rx-gro"));
	assert_false(nic_key_match("offload.rx-gro-hw", "offload.rx-gro"));
	/* ethtool's ufo is UFO, gone since 4.14: not USO */
	assert_string_equal(nic_feature("udp-fragmentation-offload"), "tx-udp-fragmentation");
	assert_false(nic_key_match("offload.tx-udp-segmentation", "offload.ufo"));
	assert_false(nic_key_match("offload.tx-udp-segmentation", "offload.tx-udp-fragmentation"));
	assert_true(nic_key_match("queues/rx-3/rps_cpus", "queues/rx-*/rps_cpus"));
	assert_false(nic_key_match("queues/tx-3/xps_cpus", "queues/rx-*/rps_cpus"));
	assert_string_equal(nic_bool("True"), "on");
	assert_string_equal(nic_bool("no"), "off");
	assert_null(nic_bool("maybe"));
}

static void test_link(void **state)
{
	struct wfx *x = *state;
	struct wjudge j;
	size_t i;

	iface(x, "ens3", false, "4\n", "virtio_net");
	iface(x, "eth1", false, "1\n", "e1000");
	tree_write(x->dir, "etc/systemd/network/10-virtio.link",
		   "[Match]\nDriver=virtio_net\n[Link]\nNamePolicy=path\nCombinedChannels=4\n"
		   "GenericReceiveOffload=no\nRxBufferSize=1024\nRxCoalesceSec=50us\nTransmitQueueLength=5000\n"
		   "ReceivePacketSteeringCPUMask=all\n");
	tree_write(x->dir, "usr/lib/systemd/network/99-default.link", "[Match]\nOriginalName=*\n[Link]\nNamePolicy=kernel\n");
	tree_write(x->dir, "etc/systemd/network/99-zz.link", "[Match]\nOriginalName=*\n[Link]\nTxChannels=2\n");
	tree_write(x->dir, "etc/systemd/network/50-nomatch.link", "[Link]\nTxChannels=3\n");
	wload(x, writers_link);
	/* renamed (NET_NAME_RENAMED): applied again at the move event, after earlytune */
	j = judge(x, "ens3", "channels.combined", "", &i);
	assert_int_equal(j.applies, 1);
	assert_true(j.beats);
	assert_contains(j.why, "renamed");
	assert_string_equal(x->w.v[i].value, "4");
	assert_string_equal(x->w.v[i].tool, "udev .link");
	j = judge(x, "ens3", "offload.generic-receive-offload", "", &i);
	assert_string_equal(x->w.v[i].value, "off");
	j = judge(x, "ens3", "coalesce.rx_usecs", "", &i);
	assert_string_equal(x->w.v[i].value, "50");
	/* the interface's files by their path, whatever the item calls them */
	j = judge(x, "ens3", "txqueuelen", "sys/class/net/ens3/tx_queue_len", &i);
	assert_int_equal(j.applies, 1);
	assert_string_equal(x->w.v[i].value, "5000");
	j = judge(x, "ens3", "rps_cpus", "sys/class/net/ens3/queues/rx-1/rps_cpus", &i);
	assert_int_equal(j.applies, 1);
	j = judge(x, "ens3", "xps_cpus", "sys/class/net/ens3/queues/tx-1/xps_cpus", &i);
	assert_int_equal(j.applies, 0);
	j = judge(x, "ens3", "tx_queue_len", "sys/class/net/eth1/tx_queue_len", &i); /* eth1's file */
	assert_int_equal(j.applies, 0);
	/* a [sysfs] item of the same file */
	x->it = (struct item){ .domain = "sysfs", .target = "class/net/ens3/tx_queue_len", .setting = "-",
			       .path = "sys/class/net/ens3/tx_queue_len", .desired = "1000" };
	for (i = 0, j.applies = 0; i < x->w.n && !j.applies; i++)
		x->w.v[i].judge(&x->w.v[i], &x->w, &x->it, &j);
	assert_int_equal(j.applies, 1);
	assert_string_equal(x->w.v[i - 1].what, "TransmitQueueLength=5000");
	/* an ethtool item, its path a record's */
	j = judge(x, "ens3", "channels.combined", "ethtool/netns/4026531840/ifindex/2/channels.combined", &i);
	assert_int_equal(j.applies, 1);
	/* not its driver */
	j = judge(x, "eth1", "channels.combined", "", &i);
	assert_int_equal(j.applies, 0);
	/* 99-zz sorts after 99-default, which matches every interface first */
	j = judge(x, "eth1", "channels.tx", "", &i);
	assert_int_equal(j.applies, 1);
	assert_false(j.beats);
	assert_contains(j.why, "only the first .link file");
	/* a file without [Match] is ignored, as udev ignores it */
	for (i = 0; i < x->w.n; i++)
		assert_true(strcmp(x->w.v[i].file, "/etc/systemd/network/50-nomatch.link"));
}

static void test_link_order(void **state)
{
	struct wfx *x = *state;
	struct wjudge j;
	size_t i;

	iface(x, "eth0", false, "1\n", "virtio_net");
	tree_write(x->dir, "etc/systemd/network/10-a.link", "[Match]\nOriginalName=eth*\n[Link]\nTxChannels=2\n");
	wload(x, writers_link);
	j = judge(x, "eth0", "channels.tx", "", &i);
	assert_int_equal(j.applies, 1);
	assert_false(j.beats);
	assert_contains(j.why, "before earlytune's RUN");
	j = judge(x, "veth0", "channels.tx", "", &i); /* no such interface: cannot tell */
	assert_int_equal(j.applies, 2);
	/* Driver= of a virtual interface: udev asks ethtool, which a tree does
	 * not show; a device/driver link is read. */
	iface(x, "veth1", true, "3\n", NULL);
	iface(x, "eth1", false, "1\n", "e1000");
	iface(x, "eth2", false, "1\n", "virtio_net");
	tree_write(x->dir, "etc/systemd/network/05-drv.link", "[Match]\nDriver=veth virtio_*\n[Link]\nRxChannels=2\n");
	writers_ctx_free(&x->w);
	x->w = (struct wctx){ .r = &x->r };
	wload(x, writers_link);
	assert_int_equal(judge(x, "veth1", "channels.rx", "", &i).applies, 2);
	assert_int_equal(judge(x, "eth2", "channels.rx", "", &i).applies, 1);
	assert_int_equal(judge(x, "eth1", "channels.rx", "", &i).applies, 0);
}

static void test_nm(void **state)
{
	struct wfx *x = *state;
	struct wjudge j;
	size_t i;

	iface(x, "ens3", false, "4\n", "virtio_net");
	tree_write(x->dir, "etc/NetworkManager/system-connections/a.nmconnection",
		   "[connection]\nid=a\ninterface-name=ens3\n[ethtool]\nfeature-gro=false\nfeature-tso=true\n"
		   "ring-rx=4096\ncoalesce-rx-usecs=64\ncoalesce-adaptive-rx=1\nchannels-combined=2\n");
	tree_write(x->dir, "etc/NetworkManager/system-connections/b.nmconnection",
		   "[connection]\nautoconnect=false\n[ethernet]\nmac-address=52:54:00:12:34:56\n[ethtool]\nring-tx=512\n");
	wload(x, writers_nm);
	j = judge(x, "ens3", "offload.rx-gro", "", &i);
	assert_int_equal(j.applies, 1);
	assert_true(j.beats);
	assert_string_equal(x->w.v[i].value, "off");
	assert_string_equal(x->w.v[i].what, "[ethtool] feature-gro=false");
	assert_int_equal(x->w.v[i].line, 5);
	j = judge(x, "ens3", "offload.tx-tcp6-segmentation", "", &i);
	assert_int_equal(j.applies, 1);
	j = judge(x, "ens3", "rings.rx", "", &i);
	assert_string_equal(x->w.v[i].value, "4096");
	j = judge(x, "ens3", "coalesce.adaptive_rx", "", &i);
	assert_string_equal(x->w.v[i].value, "on");
	j = judge(x, "ens3", "channels.combined", "", &i);
	assert_int_equal(j.applies, 1);
	j = judge(x, "eth9", "channels.combined", "", &i);
	assert_int_equal(j.applies, 0);
	/* by MAC address, not connected automatically: may apply */
	j = judge(x, "ens3", "rings.tx", "", &i);
	assert_int_equal(j.applies, 2);
	assert_contains(j.why, "autoconnect=false");
}

/* One connection profile setting GRO, alone in the tree: whether it applies
 * to iface. */
static int nm_applies(struct wfx *x, const char *head, const char *iface)
{
	char text[512];
	size_t i;

	snprintf(text, sizeof(text), "%s[ethtool]\nfeature-gro=false\n", head);
	tree_write(x->dir, "etc/NetworkManager/system-connections/m.nmconnection", text);
	writers_ctx_free(&x->w);
	x->w = (struct wctx){ .r = x->r.fd < 0 ? NULL : &x->r };
	wload(x, writers_nm);
	assert_int_equal(x->w.n, 1);
	return judge(x, iface, "offload.rx-gro", "", &i).applies;
}

/* NetworkManager's interface names (nm-settings(5), match.interface-name):
 * [connection]'s is one exact name; [match]'s a list, '|' optional (a
 * bare pattern too), '&' mandatory, '!' inverts (bare: mandatory), all
 * mandatory ones and one optional one must hold; and both keys, and the
 * MAC address, must accept the interface. */
static void test_nm_names(void **state)
{
	struct wfx *x = *state;

	iface(x, "eth0", false, "4\n", "virtio_net");
	iface(x, "eth1", false, "4\n", "virtio_net");
	iface(x, "ens3", false, "4\n", "virtio_net");
	/* plain: [connection] interface-name is a name, not a glob */
	assert_int_equal(nm_applies(x, "[connection]\ninterface-name=eth0\n", "eth0"), 1);
	assert_int_equal(nm_applies(x, "[connection]\ninterface-name=eth0\n", "eth1"), 0);
	assert_int_equal(nm_applies(x, "[connection]\ninterface-name=eth*\n", "eth0"), 0);
	/* globs, optional by default; '&' mandatory ones all hold */
	assert_int_equal(nm_applies(x, "[match]\ninterface-name=eth*;ens3\n", "ens3"), 1);
	assert_int_equal(nm_applies(x, "[match]\ninterface-name=&eth*;&*0\n", "eth0"), 1);
	assert_int_equal(nm_applies(x, "[match]\ninterface-name=&eth*;&*0\n", "eth1"), 0);
	assert_int_equal(nm_applies(x, "[match]\ninterface-name=&eth*;&*0\n", "ens3"), 0);
	/* '!' excludes: bare and after '&' mandatory, after '|' optional */
	assert_int_equal(nm_applies(x, "[match]\ninterface-name=!eth0\n", "eth0"), 0);
	assert_int_equal(nm_applies(x, "[match]\ninterface-name=!eth0\n", "eth1"), 1);
	assert_int_equal(nm_applies(x, "[match]\ninterface-name=&!eth1\n", "eth0"), 1);
	assert_int_equal(nm_applies(x, "[match]\ninterface-name=eth*;&!eth1\n", "eth1"), 0);
	assert_int_equal(nm_applies(x, "[match]\ninterface-name=eth0;|!eth*\n", "ens3"), 1);
	assert_int_equal(nm_applies(x, "[match]\ninterface-name=eth0;|!eth*\n", "eth1"), 0);
	/* '|' optional: one of them, besides the mandatory ones; '~' is no
	 * marker there, a character of the pattern */
	assert_int_equal(nm_applies(x, "[match]\ninterface-name=|eth0;|ens3;&eth*\n", "eth0"), 1);
	assert_int_equal(nm_applies(x, "[match]\ninterface-name=|eth0;|ens3;&eth*\n", "ens3"), 0);
	assert_int_equal(nm_applies(x, "[match]\ninterface-name=|eth0;|ens3;&eth*\n", "eth1"), 0);
	assert_int_equal(nm_applies(x, "[match]\ninterface-name=~eth0\n", "eth0"), 0);
	/* both keys: where both agree, in either order */
	assert_int_equal(nm_applies(x, "[connection]\ninterface-name=eth0\n[match]\ninterface-name=eth*\n", "eth0"), 1);
	assert_int_equal(nm_applies(x, "[connection]\ninterface-name=eth0\n[match]\ninterface-name=eth*\n", "eth1"), 0);
	assert_int_equal(nm_applies(x, "[match]\ninterface-name=ens3\n[connection]\ninterface-name=eth0\n", "ens3"), 0);
	assert_int_equal(nm_applies(x, "[match]\ninterface-name=ens3\n[connection]\ninterface-name=eth0\n", "eth0"), 0);
	/* and the address: a name that fits on another card's profile does not apply */
	assert_int_equal(nm_applies(x, "[connection]\ninterface-name=eth0\n[ethernet]\nmac-address=52:54:00:12:34:56\n",
				    "eth0"), 1);
	assert_int_equal(nm_applies(x, "[connection]\ninterface-name=eth0\n[ethernet]\nmac-address=02:00:00:00:00:01\n",
				    "eth0"), 0);
}

/* The copy of this one string fails, as under memory exhaustion; every
 * other strdup of the program is made. */
static const char *strdup_fails;

char *strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *copy = strdup_fails && !strcmp(s, strdup_fails) ? NULL : malloc(n);

	return copy ? memcpy(copy, s, n) : NULL;
}

/* A file whose match keys cannot be kept is dropped and said: its entries
 * without them would fit every interface. */
static void test_match_enomem(void **state)
{
	struct wfx *x = *state;
	size_t i;

	iface(x, "eth1", false, "4\n", "virtio_net");
	tree_write(x->dir, "etc/systemd/network/10-a.link", "[Match]\nOriginalName=eth0\n[Link]\nTxChannels=2\n");
	tree_write(x->dir, "etc/NetworkManager/system-connections/m.nmconnection",
		   "[connection]\ninterface-name=eth0\n[ethtool]\nfeature-gro=false\n");
	strdup_fails = "OriginalName=eth0\n";
	wload(x, writers_link);
	strdup_fails = "eth0";
	wload(x, writers_nm);
	strdup_fails = NULL;
	assert_int_equal(x->w.n, 0);
	assert_int_equal(judge(x, "eth1", "channels.tx", "", &i).applies, 0);
	assert_int_equal(judge(x, "eth1", "offload.rx-gro", "", &i).applies, 0);
	assert_int_equal(x->w.nerrors, 2);
	assert_contains(x->w.errors[0], "/etc/systemd/network/10-a.link");
	assert_contains(x->w.errors[0], strerror(ENOMEM));
	assert_contains(x->w.errors[1], "/etc/NetworkManager/system-connections/m.nmconnection");
}

static void test_tuned_net(void **state)
{
	struct wfx *x = *state;
	struct wjudge j;
	size_t i;

	iface(x, "ens3", false, "4\n", "virtio_net");
	iface(x, "veth0", true, "3\n", NULL);
	tree_write(x->dir, "etc/tuned/profiles/n/tuned.conf",
		   "[net]\nfeatures=gro off, tso on\ncoalesce=rx-usecs 3 tx-usecs 16\nring=rx 1024\n"
		   "channels=combined 16\ntxqueuelen=5000\n[other]\ntype=net\ndevices=eth*\nring=tx 256\n");
	tree_write(x->dir, "etc/tuned/active_profile", "n\n");
	tree_symlink(x->dir, "etc/systemd/system/multi-user.target.wants/tuned.service",
		     "/usr/lib/systemd/system/tuned.service");
	wload(x, writers_tuned);
	j = judge(x, "ens3", "offload.generic-receive-offload", "", &i);
	assert_int_equal(j.applies, 1);
	assert_true(j.beats);
	assert_string_equal(x->w.v[i].value, "off");
	assert_string_equal(x->w.v[i].what, "[net] features=gro off, tso on");
	j = judge(x, "ens3", "coalesce.tx_usecs", "", &i);
	assert_string_equal(x->w.v[i].value, "16");
	j = judge(x, "ens3", "rings.rx", "", &i);
	assert_string_equal(x->w.v[i].value, "1024");
	j = judge(x, "ens3", "channels.combined", "", &i);
	assert_string_equal(x->w.v[i].value, "16");
	j = judge(x, "ens3", "txqueuelen", "sys/class/net/ens3/tx_queue_len", &i);
	assert_string_equal(x->w.v[i].value, "5000");
	/* TuneD's [net] leaves virtual interfaces alone */
	j = judge(x, "veth0", "rings.rx", "", &i);
	assert_int_equal(j.applies, 1);
	assert_false(j.beats);
	assert_contains(j.why, "/sys/devices/virtual");
	/* devices=eth* */
	j = judge(x, "ens3", "rings.tx", "", &i);
	assert_int_equal(j.applies, 0);
}

static void test_udev_ethtool(void **state)
{
	struct wfx *x = *state;
	struct wjudge j;
	size_t i;

	iface(x, "ens3", false, "4\n", "virtio_net");
	tree_write(x->dir, "etc/udev/rules.d/80-nic.rules",
		   "ACTION==\"add\", SUBSYSTEM==\"net\", KERNEL==\"ens*\", RUN+=\"/usr/sbin/ethtool -K $name gro off\", "
		   "RUN+=\"/sbin/ethtool -L %k combined 4\"\n"
		   "SUBSYSTEM==\"net\", ACTION==\"add\", RUN+=\"/sbin/ip link set dev $name txqueuelen 10000\"\n"
		   "ACTION==\"add\", SUBSYSTEM==\"net\", ATTR{queues/rx-0/rps_cpus}=\"f\"\n");
	tree_write(x->dir, "etc/udev/rules.d/60-early.rules",
		   "ACTION==\"add\", SUBSYSTEM==\"net\", RUN+=\"/usr/sbin/ethtool --set-ring $name rx 512\"\n");
	wload(x, writers_udev);
	j = judge(x, "ens3", "offload.rx-gro", "", &i);
	assert_int_equal(j.applies, 1);
	assert_true(j.beats); /* 80- sorts after 70-earlytune.rules */
	assert_string_equal(x->w.v[i].value, "off");
	j = judge(x, "ens3", "channels.combined", "", &i);
	assert_string_equal(x->w.v[i].value, "4");
	j = judge(x, "ens3", "txqueuelen", "sys/class/net/ens3/tx_queue_len", &i);
	assert_string_equal(x->w.v[i].value, "10000");
	j = judge(x, "ens3", "rps_cpus", "sys/class/net/ens3/queues/rx-0/rps_cpus", &i);
	assert_int_equal(j.applies, 1);
	assert_false(j.beats); /* ATTR{} before earlytune's RUN */
	j = judge(x, "ens3", "rings.rx", "", &i);
	assert_int_equal(j.applies, 1);
	assert_false(j.beats); /* 60- runs before earlytune's RUN */
	j = judge(x, "eth0", "offload.rx-gro", "", &i);
	assert_int_equal(j.applies, 0); /* KERNEL=="ens*" */
}

/* The entry of the file named, of the setting's key. */
static const struct wentry *entry_of(const struct wfx *x, const char *file, const char *key)
{
	for (size_t i = 0; i < x->w.n; i++)
		if (!strcmp(x->w.v[i].file, file) && x->w.v[i].key && !strcmp(x->w.v[i].key, key))
			return &x->w.v[i];
	return NULL;
}

/* ReceivePacketSteeringCPUMask= is a CPU list that systemd merges per file:
 * its value as the hex mask rps_cpus takes. */
static void test_link_rps(void **state)
{
	static const char *const files[][3] = {
		{ "10-a.link", "0-1\nReceivePacketSteeringCPUMask=2 3", "f" },
		{ "11-b.link", "all", "ff" },
		{ "12-c.link", "0,2\nReceivePacketSteeringCPUMask=disable", "0" },
		{ "13-d.link", "0-3\nReceivePacketSteeringCPUMask=\nReceivePacketSteeringCPUMask=4", "10" },
		{ "14-e.link", "32 1\nReceivePacketSteeringCPUMask=0-x", "1,00000002" },
		{ "15-f.link", "0-1\nReceivePacketSteeringCPUMask=", NULL },
	};
	struct wfx *x = *state;
	const struct wentry *e;
	char rel[128], text[256];
	struct wjudge j;

	x->it = (struct item){ .domain = "nic", .target = "eth0", .setting = "queues/rx-0/rps_cpus",
			       .path = "sys/class/net/eth0/queues/rx-0/rps_cpus" };
	tree_write(x->dir, "sys/devices/system/cpu/online", "0-7\n");
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(rel, sizeof(rel), "etc/systemd/network/%s", files[i][0]);
		snprintf(text, sizeof(text), "[Match]\nOriginalName=*\n[Link]\nReceivePacketSteeringCPUMask=%s\n",
			 files[i][1]);
		tree_write(x->dir, rel, text);
	}
	wload(x, writers_link);
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(rel, sizeof(rel), "/etc/systemd/network/%s", files[i][0]);
		e = entry_of(x, rel, "queues/rx-*/rps_cpus");
		assert_non_null(e);
		j = (struct wjudge){ 0 };
		e->judge(e, &x->w, &x->it, &j);
		assert_int_equal(j.applies != 0, files[i][2] != NULL); /* reset last: writes nothing */
		if (files[i][2])
			assert_string_equal(e->value, files[i][2]);
	}
	e = entry_of(x, "/etc/systemd/network/10-a.link", "queues/rx-*/rps_cpus");
	assert_string_equal(e->what, "ReceivePacketSteeringCPUMask=2 3 (with line 4's)");
	assert_int_equal(e->line, 5);
}

/* A writer's CPUs equal to earlytune's agree, and verify blames a writer by
 * its CPUs, whatever the form it writes them in. */
static void test_rps_agree(void **state)
{
	struct wfx *x = *state;
	struct ctx c = { 0 };
	struct plan p = { 0 };
	struct item *a, *b, *d;
	const struct writer *w = NULL;

	iface(x, "ens3", false, "4\n", "virtio_net");
	tree_write(x->dir, "etc/systemd/network/10-rps.link",
		   "[Match]\nOriginalName=*\n[Link]\nReceivePacketSteeringCPUMask=0-3\n");
	tree_write(x->dir, "etc/udev/rules.d/60-rps.rules",
		   "ACTION==\"add\", SUBSYSTEM==\"net\", ATTR{queues/rx-0/rps_cpus}=\"3\"\n");
	tree_write(x->dir, "etc/tuned/profiles/n/tuned.conf",
		   "[sysfs]\n/sys/class/net/ens3/queues/rx-0/rps_cpus=0000000f\n");
	tree_write(x->dir, "etc/tuned/active_profile", "n\n");
	tree_symlink(x->dir, "etc/systemd/system/multi-user.target.wants/tuned.service",
		     "/usr/lib/systemd/system/tuned.service");
	assert_int_equal(root_open(&c.root, x->dir), 0);
	a = plan_add(&p, "nic", "ens3", "queues/rx-0/rps_cpus", "sys/class/net/ens3/queues/rx-0/rps_cpus");
	item_set(&a->desired, "00000000,0000000f");
	item_set(&a->current, "00000000,00000003");
	b = plan_add(&p, "nic", "ens3", "queues/rx-1/rps_cpus", "sys/class/net/ens3/queues/rx-1/rps_cpus");
	item_set(&b->desired, "00000000,000000ff");
	item_set(&b->current, "0000000f");
	d = plan_add(&p, "nic", "ens3", "queues/rx-2/rps_cpus", "sys/class/net/ens3/queues/rx-2/rps_cpus");
	item_set(&d->desired, "00000000,0000000f");
	item_set(&d->current, "00000000,0000000f");
	a = &p.v[0], b = &p.v[1];
	assert_int_equal(writers_annotate(&c, &p), 0);
	/* rx-0: TuneD's [sysfs] wins over the .link, each with earlytune's CPUs */
	assert_int_equal(a->nwriters, 3);
	for (size_t i = 0; i < a->nwriters; i++)
		if (a->writers[i].wins)
			w = &a->writers[i];
	assert_string_equal(w->tool, "TuneD");
	assert_contains(w->why, "wins, with earlytune's value");
	/* rx-0 holds 3: the udev rule's, not the f of the others */
	w = writers_culprit(a);
	assert_non_null(w);
	assert_string_equal(w->file, "/etc/udev/rules.d/60-rps.rules");
	/* rx-1 holds f, not earlytune's ff: the .link's 0-3 */
	assert_int_equal(b->nwriters, 1);
	assert_null(strstr(b->writers[0].why, "earlytune's value"));
	w = writers_culprit(b);
	assert_non_null(w);
	assert_string_equal(w->what, "ReceivePacketSteeringCPUMask=0-3");
	/* rx-2: the .link's 0-3 wins with earlytune's f */
	assert_int_equal(d->nwriters, 1);
	assert_contains(d->writers[0].why, "wins, with earlytune's value");
	plan_free(&p);
	root_close(&c.root);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_names),
	WX(test_link),
	WX(test_link_order),
	WX(test_nm),
	WX(test_nm_names),
	WX(test_match_enomem),
	WX(test_tuned_net),
	WX(test_udev_ethtool),
	WX(test_link_rps),
	WX(test_rps_agree),
};

UNIT_MAIN("writers_nic", tests)
