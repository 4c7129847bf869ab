// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The other writers' line readers (src/writers/udev.c, tuned.c, link.c,
 * nm.c). The input is written as one udev rules file, the active TuneD
 * profile, a .link file and a NetworkManager profile of a scratch tree; the
 * readers run and every entry is judged against a block, a THP, a sysctl
 * and NIC items. Properties: udev_next_pair()
 * always advances and stops; every entry has a file, a line >= 1 and a
 * shown assignment without control bytes or invalid UTF-8; a verdict's
 * applies is 0, 1 or 2 with a reason whenever it applies; a .link's RPS
 * CPUs, when known, are a mask rps_cpus takes.
 */
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "nic/nic.h"
#include "writers/udev.h"

static char dir[] = "/tmp/et-fuzz-writers.XXXXXX";
static struct root root = { .fd = -1 };

static void put(const char *rel, const uint8_t *data, size_t size)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write_full(fd, data, size) < 0)
		abort();
	close(fd);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void cleanup(void)
{
	root_close(&root);
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void setup(void)
{
	static const char *const dirs[] = { "usr", "usr/lib", "usr/lib/udev", "usr/lib/udev/rules.d", "usr/lib/tuned",
					    "usr/lib/tuned/p", "etc", "etc/tuned", "etc/systemd", "etc/systemd/network",
					    "etc/NetworkManager", "etc/NetworkManager/system-connections" };
	char path[PATH_MAX];

	if (root.fd >= 0)
		return;
	if (!mkdtemp(dir))
		abort();
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, dirs[i]);
		if (mkdir(path, 0755) < 0)
			abort();
	}
	put("etc/tuned/active_profile", (const uint8_t *)"p\n", 2);
	if (root_open(&root, dir) < 0)
		abort();
	atexit(cleanup);
}

static void check_pairs(const char *s)
{
	struct udev_pair u;
	const char *p = s;
	int r, n = 0;

	while ((r = udev_next_pair(&p, &u)) > 0) {
		fuzz_assert(p > s && p <= s + strlen(s), "udev_next_pair did not advance inside the line");
		s = p;
		fuzz_assert(++n < 100000, "udev_next_pair does not stop");
	}
	fuzz_assert(r == 0 || r == -EINVAL, "udev_next_pair returned %d", r);
}

static bool clean(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

static void check_entries(struct wctx *w)
{
	static struct nic_mask m;
	static char why[192];
	static const char *const items[][4] = {
		{ "block", "sda", "queue/scheduler", "" },
		{ "block", "vda", "queue/read_ahead_kb", "" },
		{ "thp", "thp", "enabled", "sys/kernel/mm/transparent_hugepage/enabled" },
		{ "net", "sysctl", "net.core.default_qdisc", "proc/sys/net/core/default_qdisc" },
		{ "sysfs", "t", "block/vda/device/timeout", "sys/block/vda/device/timeout" },
		{ "sysfs", "t", "block/vda", "sys/block/vda" },
		{ "nic", "eth0", "offload.rx-gro", "ethtool/netns/1/ifindex/2/offload.rx-gro" },
		{ "nic", "eth0", "channels.combined", "ethtool/ifindex/2/channels.combined" },
		{ "nic", "eth0", "rps_cpus", "sys/class/net/eth0/queues/rx-0/rps_cpus" },
		{ "sysfs", "t", "class/net/eth0/tx_queue_len", "sys/class/net/eth0/tx_queue_len" },
	};

	for (size_t i = 0; i < w->n; i++) {
		const struct wentry *e = &w->v[i];

		fuzz_assert(e->file && e->line >= 1 && e->what && e->judge, "entry %zu incomplete", i);
		fuzz_assert(clean(e->what) && clean(e->value), "entry %zu shows control bytes", i);
		fuzz_assert(strcmp(e->tool, "udev .link") || !e->key || strcmp(e->key, "queues/rx-*/rps_cpus") ||
				    !e->value || nic_mask_parse(e->value, &m, why, sizeof(why)) == 0,
			    "a .link's CPUs '%s' are not a mask: %s", e->value, why);
		for (size_t k = 0; k < ARRAY_SIZE(items); k++) {
			struct item it = { .domain = items[k][0], .target = (char *)items[k][1],
					   .setting = (char *)items[k][2], .path = (char *)items[k][3], .desired = "1" };
			struct wjudge j = { 0 };

			e->judge(e, w, &it, &j);
			fuzz_assert(j.applies >= 0 && j.applies <= 2, "applies %d", j.applies);
			fuzz_assert(!j.applies || *j.why, "entry %zu applies without a reason", i);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	struct wctx w = { 0 };

	setup();
	w.r = &root;
	w.cmdline = "";
	check_pairs(s);
	put("usr/lib/udev/rules.d/60-x.rules", data, size);
	put("usr/lib/tuned/p/tuned.conf", data, size);
	fuzz_assert(writers_udev(&w) == 0 || w.n == 0, "writers_udev failed");
	writers_tuned(&w);
	put("etc/systemd/network/10-x.link", data, size);
	put("etc/NetworkManager/system-connections/x.nmconnection", data, size);
	writers_link(&w);
	writers_nm(&w);
	check_entries(&w);
	writers_ctx_free(&w);
	free(s);
	return 0;
}
