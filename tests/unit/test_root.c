// SPDX-License-Identifier: LGPL-2.1-or-later
/* root.c: every path relative to one directory, symlinks kept inside it. */
#include <linux/openat2.h>
#include <sys/syscall.h>

#include "unit.h"

static struct root *open_root(struct fx *f)
{
	assert_int_equal(root_open(&f->c.root, f->dir), 0);
	return &f->c.root;
}

static bool have_openat2(void)
{
	struct open_how how = { .flags = O_RDONLY, .resolve = RESOLVE_IN_ROOT };
	long fd = syscall(SYS_openat2, AT_FDCWD, ".", &how, sizeof(how));

	if (fd >= 0)
		close((int)fd);
	return fd >= 0 || errno != ENOSYS;
}

static void test_open(void **state)
{
	struct fx *f = *state;
	struct root r = { .fd = -1 };
	char path[PATH_MAX];

	assert_int_equal(root_open(&r, f->dir), 0);
	assert_true(r.fd >= 0);
	assert_string_equal(r.dir, f->dir);
	assert_false(r.is_host);
	root_close(&r);
	assert_int_equal(r.fd, -1);
	assert_null(r.dir);
	root_close(&r);
	tree_path(path, sizeof(path), f->dir, "missing");
	assert_int_equal(root_open(&r, path), -ENOENT);
	tree_write(f->dir, "file", "x");
	tree_path(path, sizeof(path), f->dir, "file");
	assert_int_equal(root_open(&r, path), -ENOTDIR);
	/* The running system's own root is recognised (nothing below it is read). */
	assert_int_equal(root_open(&r, "/"), 0);
	assert_true(r.is_host);
	root_close(&r);
}

static void test_read(void **state)
{
	struct fx *f = *state;
	struct root *r = open_root(f);
	char buf[16];

	tree_write(f->dir, "sys/a", "[none] mq-deadline \t\n\n");
	assert_int_equal(root_read(r, "sys/a", buf, sizeof(buf)), 15);
	assert_string_equal(buf, "[none] mq-deadl");
	tree_write(f->dir, "sys/b", "128\n");
	assert_int_equal(root_read(r, "sys/b", buf, sizeof(buf)), 3);
	assert_string_equal(buf, "128");
	assert_int_equal(root_read(r, "/sys/b", buf, sizeof(buf)), 3);
	assert_int_equal(root_read(r, "///sys//b", buf, sizeof(buf)), 3);
	tree_write(f->dir, "sys/empty", "");
	assert_int_equal(root_read(r, "sys/empty", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	tree_write(f->dir, "sys/ws", " \n");
	assert_int_equal(root_read(r, "sys/ws", buf, sizeof(buf)), 0);
	assert_int_equal(root_read(r, "sys/missing", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(root_read(r, "sys", buf, sizeof(buf)), -EISDIR);
}

static void test_write(void **state)
{
	struct fx *f = *state;
	struct root *r = open_root(f);

	tree_write(f->dir, "sys/read_ahead_kb", "4096\n");
	assert_int_equal(root_write(r, "sys/read_ahead_kb", "128"), 0);
	f->text = tree_read(f->dir, "sys/read_ahead_kb");
	assert_string_equal(f->text, "128\n");
	/* A missing attribute stays missing. */
	assert_int_equal(root_write(r, "sys/nr_requests", "64"), -ENOENT);
	assert_false(root_exists(r, "sys/nr_requests"));
	assert_int_equal(root_write(r, "nodir/x", "1"), -ENOENT);
}

static void test_read_file(void **state)
{
	struct fx *f = *state;
	struct root *r = open_root(f);
	char *big = malloc(20001), *out = NULL;

	assert_non_null(big);
	memset(big, 'a', 20000);
	big[20000] = '\0';
	tree_write(f->dir, "proc/cpuinfo", big);
	free(big);
	assert_int_equal(root_read_file(r, "proc/cpuinfo", &out, 1 << 20), 20000);
	f->text = out;
	assert_int_equal(strlen(out), 20000);
	assert_int_equal(out[19999], 'a');
	out = NULL;
	assert_int_equal(root_read_file(r, "proc/cpuinfo", &out, 20000), -EFBIG);
	assert_null(out);
	assert_int_equal(root_read_file(r, "proc/cpuinfo", &out, 4096), -EFBIG);
	assert_int_equal(root_read_file(r, "proc/missing", &out, 4096), -ENOENT);
	tree_write(f->dir, "proc/empty", "");
	assert_int_equal(root_read_file(r, "proc/empty", &out, 4096), 0);
	assert_non_null(out);
	assert_string_equal(out, "");
	free(out);
}

static void test_links_and_dirs(void **state)
{
	struct fx *f = *state;
	struct root *r = open_root(f);
	char buf[64], small[4];

	tree_symlink(f->dir, "sys/block/vda/device/driver", "../../../bus/virtio/drivers/virtio_blk");
	assert_int_equal(root_readlink(r, "sys/block/vda/device/driver", buf, sizeof(buf)), 38);
	assert_string_equal(buf, "../../../bus/virtio/drivers/virtio_blk");
	assert_int_equal(root_readlink(r, "sys/block/vda/device/driver", small, sizeof(small)), 3);
	assert_string_equal(small, "../");
	assert_int_equal(root_readlink(r, "sys/block/vda", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(root_readlink(r, "sys/none", buf, sizeof(buf)), -ENOENT);
	assert_true(root_exists(r, "sys/block/vda"));
	assert_true(root_exists(r, ""));
	assert_false(root_exists(r, "sys/block/vdb"));
	/* A dangling link does not exist. */
	assert_false(root_exists(r, "sys/block/vda/device/driver"));
	assert_int_equal(root_mkdir_p(r, "run/earlytune/a/b", 0755), 0);
	assert_int_equal(root_mkdir_p(r, "/run/earlytune/a/b/", 0755), 0);
	assert_true(root_exists(r, "run/earlytune/a/b"));
	tree_write(f->dir, "run/file", "x");
	assert_int_equal(root_mkdir_p(r, "run/file/sub", 0755), -ENOTDIR);
}

static void test_symlinks_stay_inside(void **state)
{
	struct fx *f = *state;
	struct root *r;
	char buf[64];

	if (!have_openat2())
		skip();
	r = open_root(f);
	tree_write(f->dir, "data/file", "inside\n");
	tree_symlink(f->dir, "etc/abs", "/data/file");
	tree_symlink(f->dir, "etc/up", "../../../../../../../../../data/file");
	tree_symlink(f->dir, "etc/escape", "../../../../../../../../../earlytune-unit-nonexistent");
	assert_int_equal(root_read(r, "etc/abs", buf, sizeof(buf)), 6);
	assert_string_equal(buf, "inside");
	assert_int_equal(root_read(r, "etc/up", buf, sizeof(buf)), 6);
	assert_string_equal(buf, "inside");
	assert_int_equal(root_read(r, "etc/escape", buf, sizeof(buf)), -ENOENT);
	assert_true(root_exists(r, "etc/abs"));
}

static const struct CMUnitTest tests[] = {
	FX_TEST(test_open),
	FX_TEST(test_read),
	FX_TEST(test_write),
	FX_TEST(test_read_file),
	FX_TEST(test_links_and_dirs),
	FX_TEST(test_symlinks_stay_inside),
};

UNIT_MAIN("root", tests)
