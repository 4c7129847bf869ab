// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * block/identity.c: a disk's identity read with one listing of its directory
 * is the identity the records already hold, the one the blind reads of every
 * identifier gave (reference() below, kept as it was written), on trees with
 * and without each identifier, as a link and as a directory, and where the
 * listing itself fails.
 */
#include <limits.h>

#include "unit.h"
#include "block/block.h"

/* The identity as every record written before the listing has it: a read
 * of each identifier, whether the disk has it or not. */
static int reference(const struct root *r, const char *dir, char *out, size_t size)
{
	static const char *const ids[] = { "dev", "wwid", "serial", "device/wwid", "device/serial",
					   "dm/uuid", "loop/backing_file" };
	char rel[PATH_MAX], buf[PATH_MAX];
	unsigned long long seq;
	uint64_t h = FNV_OFFSET;
	int rr;

	if (pathf(rel, sizeof(rel), "%s/diskseq", dir) < 0)
		return -ENAMETOOLONG;
	rr = root_read_u64(r, rel, &seq);
	if (rr == 0) {
		snprintf(out, size, "diskseq:%llu", seq);
		return 0;
	}
	if (rr != -ENOENT)
		return rr;
	rr = root_readlink(r, dir, buf, sizeof(buf));
	if (rr == -EINVAL)
		rr = snprintf(buf, sizeof(buf), "%s", dir);
	if (rr < 0)
		return rr;
	h = fnv1a(h, buf, (size_t)rr + 1);
	for (size_t i = 0; i < ARRAY_SIZE(ids); i++) {
		char *deleted;

		if (pathf(rel, sizeof(rel), "%s/%s", dir, ids[i]) < 0)
			return -ENAMETOOLONG;
		rr = root_read(r, rel, buf, sizeof(buf));
		if (rr < 0)
			continue;
		deleted = strstr(buf, " (deleted)");
		if (deleted && !deleted[10])
			*deleted = '\0';
		h = fnv1a(fnv1a(h, ids[i], strlen(ids[i]) + 1), buf, strlen(buf) + 1);
	}
	snprintf(out, size, "dev:%016llx", (unsigned long long)h);
	return 0;
}

/* Both ways for sys/block/NAME; returns the identity's result. */
static int both(struct fx *f, const char *name, char *id, size_t size)
{
	char dir[128], path[160], want[64];
	int r, w;

	snprintf(dir, sizeof(dir), "sys/block/%s", name);
	snprintf(path, sizeof(path), "%s/queue/scheduler", dir);
	w = reference(&f->c.root, dir, want, sizeof(want));
	r = block_identity(&f->c.root, "queue/scheduler", path, id, size);
	if (r != w || (r == 0 && strcmp(id, want)))
		fail_msg("%s: %d %s, recorded as %d %s", name, r, r ? "" : id, w, w ? "" : want);
	return r;
}

/* The identifiers a disk of the tree has: bit i of mask for file i. A
 * device/ link to its parent device, as the kernel lays it out, holds
 * device/wwid and device/serial; dm/ and loop/ are the disk's own. */
static void lay_disk(struct fx *f, const char *base, unsigned mask, bool link)
{
	static const char *const files[] = { "dev", "wwid", "serial", "device/wwid", "device/serial",
					     "dm/uuid", "loop/backing_file" };
	static const char *const values[] = { "8:0\n", "naa.5000c500a1b2c3d4\n", "SER-1\n",
					      "t10.ATA QEMU HARDDISK\n", "0x1234\n",
					      "LVM-abcdef\n", "/img/a (deleted)\n" };
	char dir[256], rel[320], parent[256], up[272];

	snprintf(dir, sizeof(dir), link ? "sys/devices/pci0000:00/host0/target0:0:0/%s/block/%s" : "%s%s",
		 link ? base : "sys/block/", base);
	snprintf(parent, sizeof(parent), "sys/devices/pci0000:00/host0/target0:0:0/%s", base);
	tree_mkdir(f->dir, parent);
	snprintf(rel, sizeof(rel), "%s/queue/scheduler", dir);
	tree_write(f->dir, rel, "[none] mq-deadline\n");
	snprintf(rel, sizeof(rel), "%s/device", dir);
	snprintf(up, sizeof(up), "../../%s", parent + 4);
	if (mask & (3u << 3))
		tree_symlink(f->dir, rel, link ? "../.." : up);
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		if (!(mask & (1u << i)))
			continue;
		if (i == 3 || i == 4)
			snprintf(rel, sizeof(rel), "%s/%s", parent, files[i] + 7);
		else
			snprintf(rel, sizeof(rel), "%s/%s", dir, files[i]);
		tree_write(f->dir, rel, values[i]);
	}
	if (link) {
		snprintf(rel, sizeof(rel), "sys/block/%s", base);
		snprintf(parent, sizeof(parent), "../devices/pci0000:00/host0/target0:0:0/%s/block/%s", base, base);
		tree_symlink(f->dir, rel, parent);
	}
}

/* Every subset of the seven identifiers, behind a sys/block link and as a
 * captured tree's directory: 256 disks, each the same both ways, and no two
 * of one kind alike. */
static void test_identity_every_subset(void **state)
{
	struct fx *f = *state;
	char name[32], id[64], seen[128][64];

	for (unsigned mask = 0; mask < 128; mask++)
		for (int link = 0; link < 2; link++) {
			snprintf(name, sizeof(name), "%s%u", link ? "sd" : "cap", mask);
			lay_disk(f, name, mask, link);
		}
	assert_int_equal(root_open(&f->c.root, f->dir), 0);
	for (unsigned mask = 0; mask < 128; mask++) {
		snprintf(name, sizeof(name), "sd%u", mask);
		assert_int_equal(both(f, name, id, sizeof(id)), 0);
		assert_int_equal(strncmp(id, "dev:", 4), 0);
		snprintf(seen[mask], sizeof(seen[mask]), "%s", id);
		for (unsigned j = 0; j < mask; j++)
			assert_string_not_equal(seen[j], id);
		snprintf(name, sizeof(name), "cap%u", mask);
		assert_int_equal(both(f, name, id, sizeof(id)), 0);
	}
}

/* What the listing sees but cannot read, and what it cannot list. */
static void test_identity_odd_trees(void **state)
{
	struct fx *f = *state;
	char id[64];

	/* wwid a directory, serial empty, loop/ without backing_file: absent. */
	tree_write(f->dir, "sys/devices/virtual/block/loop0/dev", "7:0\n");
	tree_mkdir(f->dir, "sys/devices/virtual/block/loop0/wwid");
	tree_write(f->dir, "sys/devices/virtual/block/loop0/serial", "");
	tree_mkdir(f->dir, "sys/devices/virtual/block/loop0/loop");
	tree_symlink(f->dir, "sys/block/loop0", "../devices/virtual/block/loop0");
	/* A link to nothing: no listing, every identifier tried; the place alone. */
	tree_symlink(f->dir, "sys/block/loop1", "../devices/virtual/block/loop1");
	/* A link to a file: not a disk's directory, an error either way. */
	tree_write(f->dir, "sys/devices/virtual/block/loop2", "not a directory\n");
	tree_symlink(f->dir, "sys/block/loop2", "../devices/virtual/block/loop2");
	/* diskseq wins over everything else. */
	tree_write(f->dir, "sys/block/vda/diskseq", "9\n");
	tree_write(f->dir, "sys/block/vda/dev", "253:0\n");
	tree_write(f->dir, "sys/block/vda/serial", "abc\n");
	/* A name the listing matches only whole: wwid2, devices, loops. */
	tree_write(f->dir, "sys/block/vdb/dev", "253:16\n");
	tree_write(f->dir, "sys/block/vdb/wwid2", "x\n");
	tree_mkdir(f->dir, "sys/block/vdb/devices");
	tree_write(f->dir, "sys/block/vdb/loops", "y\n");
	assert_int_equal(root_open(&f->c.root, f->dir), 0);
	assert_int_equal(both(f, "loop0", id, sizeof(id)), 0);
	assert_int_equal(both(f, "loop1", id, sizeof(id)), 0);
	assert_int_equal(both(f, "loop2", id, sizeof(id)), -ENOTDIR);
	assert_int_equal(both(f, "vda", id, sizeof(id)), 0);
	assert_string_equal(id, "diskseq:9");
	assert_int_equal(both(f, "vdb", id, sizeof(id)), 0);
	assert_int_equal(both(f, "gone", id, sizeof(id)), -ENOENT);
}

static const struct CMUnitTest tests[] = {
	FX_TEST(test_identity_every_subset),
	FX_TEST(test_identity_odd_trees),
};

UNIT_MAIN("identity", tests)
