// SPDX-License-Identifier: LGPL-2.1-or-later
/* root.c: every path relative to one directory, symlinks kept inside it. */
#include <linux/openat2.h>
#include <dirent.h>
#include <sys/stat.h>
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

/* The write and its read-back through one open file: the read-back sees
 * what the write left (a fake attribute: exactly the value written), and
 * each failure is told apart. */
static void test_write_readback(void **state)
{
	struct fx *f = *state;
	struct root *r = open_root(f);
	char buf[64];
	int got = 99;

	tree_write(f->dir, "sys/scheduler", "[mq-deadline] kyber none\n");
	assert_int_equal(root_write_readback(r, "sys/scheduler", "none", buf, sizeof(buf), &got), 0);
	assert_int_equal(got, 4);
	assert_string_equal(buf, "none");
	f->text = tree_read(f->dir, "sys/scheduler");
	assert_string_equal(f->text, "none\n");
	/* A missing attribute: the write fails, and so does the read. */
	got = 99;
	assert_int_equal(root_write_readback(r, "sys/nr_requests", "64", buf, sizeof(buf), &got), -ENOENT);
	assert_int_equal(got, -ENOENT);
	assert_false(root_exists(r, "sys/nr_requests"));
	/* Not a file: refused at the open. */
	tree_write(f->dir, "sys/dir/x", "1\n");
	assert_int_equal(root_write_readback(r, "sys/dir", "1", buf, sizeof(buf), &got), -EISDIR);
}

/* Through a file held open since its value was read: a shorter value
 * leaves nothing of the longer one behind (cut after the write), a longer
 * one is whole, and an old length not known (the read filled its buffer)
 * cuts too. */
static void test_fd_write_readback(void **state)
{
	struct fx *f = *state;
	struct root *r = open_root(f);
	struct { const char *old, *value; size_t oldlen; } cases[] = {
		{ "[mq-deadline] kyber none\n", "none", 25 },
		{ "8\n", "1024", 2 },
		{ "4096\n", "1024", 5 },
		{ "[mq-deadline] kyber none\n", "kyber", (size_t)-1 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char buf[64], want[64];
		int got = 99, fd;

		tree_write(f->dir, "sys/attr", cases[i].old);
		fd = root_openat(r, "sys/attr", O_RDWR, 0);
		assert_true(fd >= 0 && fd_hold());
		assert_int_equal(fd_write_readback(fd, cases[i].oldlen, cases[i].value, buf, sizeof(buf), &got), 0);
		assert_int_equal(got, (int)strlen(cases[i].value));
		assert_string_equal(buf, cases[i].value);
		free(f->text);
		f->text = tree_read(f->dir, "sys/attr");
		snprintf(want, sizeof(want), "%s\n", cases[i].value);
		assert_string_equal(f->text, want);
	}
	/* A value longer than the line kept on the stack is written whole too. */
	{
		char value[300], buf[512];
		int got = 99, fd;

		memset(value, 'v', sizeof(value) - 1);
		value[sizeof(value) - 1] = '\0';
		tree_write(f->dir, "sys/attr", "short\n");
		fd = root_openat(r, "sys/attr", O_RDWR, 0);
		assert_true(fd >= 0 && fd_hold());
		assert_int_equal(fd_write_readback(fd, 6, value, buf, sizeof(buf), &got), 0);
		assert_string_equal(buf, value);
		assert_int_equal(root_write_readback(r, "sys/attr", value, buf, sizeof(buf), &got), 0);
		assert_int_equal(got, (int)strlen(value));
		free(f->text);
		f->text = tree_read(f->dir, "sys/attr");
		assert_int_equal(strlen(f->text), sizeof(value));
	}
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
	/* A target that does not fit is an error, never a cut value; one that
	 * fills the buffer to its terminator is whole. */
	assert_int_equal(root_readlink(r, "sys/block/vda/device/driver", small, sizeof(small)), -ENAMETOOLONG);
	tree_symlink(f->dir, "sys/three", "abc");
	assert_int_equal(root_readlink(r, "sys/three", small, sizeof(small)), 3);
	assert_string_equal(small, "abc");
	tree_symlink(f->dir, "sys/four", "abcd");
	assert_int_equal(root_readlink(r, "sys/four", small, sizeof(small)), -ENAMETOOLONG);
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

/* A link below a held directory reads the same through a directory that
 * is a link leaving it (sysfs: device -> ../../../virtio2) as through a
 * real one, on the host's path (one readlinkat) as below another root. */
static void test_rdir_readlink(void **state)
{
	struct fx *f = *state;
	struct root *r = open_root(f);
	bool host = r->is_host;

	tree_symlink(f->dir, "sys/devices/virtio2/driver", "../../bus/virtio/drivers/virtio_blk");
	tree_symlink(f->dir, "sys/devices/virtio2/block/vda/device", "../../../virtio2");
	tree_symlink(f->dir, "sys/devices/virtio3/block/vdb/device/driver", "../../x/virtio_blk");
	tree_symlink(f->dir, "sys/block/vda", "../devices/virtio2/block/vda");
	for (int pass = 0; pass < 2; pass++) {
		struct rdir a, b;
		char buf[64];

		r->is_host = pass;
		assert_int_equal(rdir_open(&a, r, "sys/block/vda"), 0);
		assert_int_equal(rdir_readlink(&a, "device/driver", buf, sizeof(buf)), 35);
		assert_string_equal(buf, "../../bus/virtio/drivers/virtio_blk");
		assert_int_equal(rdir_readlink(&a, "device/none", buf, sizeof(buf)), -ENOENT);
		assert_int_equal(rdir_readlink(&a, "device/block", buf, sizeof(buf)), -EINVAL);
		assert_int_equal(rdir_open(&b, r, "sys/devices/virtio3/block/vdb"), 0);
		assert_int_equal(rdir_readlink(&b, "device/driver", buf, sizeof(buf)), 18);
		assert_string_equal(buf, "../../x/virtio_blk");
		rdir_close(&a);
		rdir_close(&b);
	}
	r->is_host = host;
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

/* An outside directory the image's absolute symlinks point at by name: a
 * write that escaped --root would land there. */
static void outside_dir(char *out, size_t size, const struct fx *f)
{
	snprintf(out, size, "%s.outside", f->dir);
	tree_remove(out);
	assert_int_equal(mkdir(out, 0755), 0);
}

static bool outside_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool empty = true;

	assert_non_null(d);
	while ((de = readdir(d)))
		empty = empty && (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."));
	closedir(d);
	return empty;
}

/* Defect 1 of issue 8: mkdirat, readlinkat, renameat, unlinkat and the
 * atomic write followed an image's absolute symlinks onto the host. */
static void check_no_escape(struct fx *f)
{
	struct root *r = open_root(f);
	char out[PATH_MAX + 16], buf[64], path[PATH_MAX + 64];

	outside_dir(out, sizeof(out), f);
	tree_symlink(f->dir, "run", out);              /* run -> /abs/host/dir */
	tree_symlink(f->dir, "var/lib", out);
	tree_symlink(f->dir, "etc/default/grub.d", out);
	tree_symlink(f->dir, "etc/up", "../../../../../../../..");
	/* Dangling inside the image, as they would be in a chroot. */
	assert_int_equal(root_mkdir_p(r, "run/earlytune", 0755), -ENOENT);
	assert_int_equal(root_write_atomic(r, "var/lib/x", "x\n", 2, 0644), -ENOENT);
	assert_true(outside_empty(out));
	tree_mkdir(f->dir, out + 1);
	assert_int_equal(root_mkdir_p(r, "run/earlytune", 0755), 0);
	assert_int_equal(root_mkdir_p(r, "var/lib/earlytune", 0755), 0);
	assert_int_equal(root_write_atomic(r, "etc/default/grub.d/99-earlytune.cfg", "x\n", 2, 0644), 0);
	assert_int_equal(root_write_atomic(r, "etc/up/escaped", "y\n", 2, 0644), 0);
	assert_true(outside_empty(out));
	/* They resolved inside the root, as the kernel resolves them there. */
	assert_true(root_exists(r, "run/earlytune"));
	snprintf(path, sizeof(path), "%s%s/earlytune", f->dir, out);
	assert_int_equal(access(path, F_OK), 0);
	tree_path(path, sizeof(path), f->dir, "escaped");
	assert_int_equal(access(path, F_OK), 0);
	snprintf(path, sizeof(path), "%s/99-earlytune.cfg", out + 1);
	f->text = tree_read(f->dir, path);
	assert_string_equal(f->text, "x\n");
	/* Renames and unlinks of names below such links stay inside too. */
	tree_write(out, "victim", "host\n");
	assert_int_equal(root_rename(r, "run/earlytune", "run/victim"), 0);
	assert_int_equal(root_unlink(r, "run/victim", AT_REMOVEDIR), 0);
	assert_int_equal(root_unlink(r, "run/victim", 0), -ENOENT);
	assert_int_equal(root_readlink(r, "run/victim", buf, sizeof(buf)), -ENOENT);
	free(f->text);
	f->text = tree_read(out, "victim");
	assert_string_equal(f->text, "host\n");
	tree_remove(out);
}

static void test_no_escape(void **state)
{
	if (!have_openat2())
		skip();
	check_no_escape(*state);
}

/* Kernels before 5.6 have no openat2: the walk must confine the same way. */
static void test_no_escape_without_openat2(void **state)
{
	root_no_openat2 = true;
	check_no_escape(*state);
	root_no_openat2 = false;
}

static void test_walk_resolves_like_the_kernel(void **state)
{
	struct fx *f = *state;
	struct root *r = open_root(f);
	char buf[64];
	int fd;

	root_no_openat2 = true;
	tree_write(f->dir, "data/file", "inside\n");
	tree_symlink(f->dir, "etc/abs", "/data/file");
	tree_symlink(f->dir, "etc/up", "../../../../../../../../../data/file");
	tree_symlink(f->dir, "etc/dir", "/data");
	tree_symlink(f->dir, "etc/loop", "loop");
	tree_symlink(f->dir, "etc/dangling", "/data/new");
	tree_symlink(f->dir, "sys/block/vda", "../devices/virtio0/block/vda");
	tree_write(f->dir, "sys/devices/virtio0/block/vda/queue/read_ahead_kb", "128\n");
	assert_int_equal(root_read(r, "etc/abs", buf, sizeof(buf)), 6);
	assert_string_equal(buf, "inside");
	assert_int_equal(root_read(r, "etc/up", buf, sizeof(buf)), 6);
	assert_int_equal(root_read(r, "etc/dir/file", buf, sizeof(buf)), 6);
	assert_int_equal(root_read(r, "etc/dir/../data/./file", buf, sizeof(buf)), 6);
	assert_int_equal(root_read(r, "/../../etc/dir//file", buf, sizeof(buf)), 6);
	assert_int_equal(root_read(r, "sys/block/vda/queue/read_ahead_kb", buf, sizeof(buf)), 3);
	assert_int_equal(root_read(r, "etc/loop", buf, sizeof(buf)), -ELOOP);
	assert_int_equal(root_read(r, "etc/abs/x", buf, sizeof(buf)), -ENOTDIR);
	assert_int_equal(root_read(r, "etc/missing", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(root_write(r, "sys/block/vda/queue/read_ahead_kb", "4096"), 0);
	f->text = tree_read(f->dir, "sys/devices/virtio0/block/vda/queue/read_ahead_kb");
	assert_string_equal(f->text, "4096\n");
	/* O_CREAT through a dangling absolute link creates its target inside. */
	fd = root_openat(r, "etc/dangling", O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_true(root_exists(r, "data/new"));
	/* O_PATH of a link follows it; with O_NOFOLLOW it is the link. */
	assert_true(root_exists(r, "etc/dir"));
	assert_false(root_exists(r, "etc/loop"));
	fd = root_openat(r, "etc/loop", O_PATH | O_NOFOLLOW, 0);
	assert_true(fd >= 0);
	close(fd);
	assert_true(root_exists(r, ""));
	assert_int_equal(root_readlink(r, "sys/block/vda", buf, sizeof(buf)), 28);
	root_no_openat2 = false;
}

static void test_write_atomic(void **state)
{
	struct fx *f = *state;
	struct root *r = open_root(f);
	char path[PATH_MAX];
	struct stat st;
	DIR *d;
	struct dirent *de;

	tree_write(f->dir, "etc/kernel/cmdline", "root=/dev/vda1\n");
	tree_path(path, sizeof(path), f->dir, "etc/kernel/cmdline");
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(chown(path, 1234, 4321), 0);
	assert_int_equal(root_write_atomic(r, "etc/kernel/cmdline", "root=/dev/vda1 quiet\n", 21, 0644), 0);
	f->text = tree_read(f->dir, "etc/kernel/cmdline");
	assert_string_equal(f->text, "root=/dev/vda1 quiet\n");
	/* Mode and owner of the file it replaced are kept. */
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_uid, 1234);
	assert_int_equal(st.st_gid, 4321);
	/* A new file gets the mode asked for, whatever the umask. */
	mode_t old = umask(077);
	assert_int_equal(root_write_atomic(r, "etc/kernel/new", "", 0, 0644), 0);
	umask(old);
	tree_path(path, sizeof(path), f->dir, "etc/kernel/new");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(st.st_size, 0);
	/* A stale temporary file of a crashed run is neither reused nor in the way. */
	tree_write(f->dir, "etc/kernel/.cmdline.tmp", "stale");
	assert_int_equal(root_write_atomic(r, "etc/kernel/cmdline", "a\n", 2, 0644), 0);
	/* Symlinks and directories are refused, not replaced. */
	tree_symlink(f->dir, "etc/kernel/link", "cmdline");
	assert_int_equal(root_write_atomic(r, "etc/kernel/link", "b\n", 2, 0644), -ELOOP);
	assert_int_equal(root_write_atomic(r, "etc/kernel", "b\n", 2, 0644), -EISDIR);
	assert_int_equal(root_write_atomic(r, "nodir/x", "b\n", 2, 0644), -ENOENT);
	assert_int_equal(root_write_atomic(r, "", "b\n", 2, 0644), -EINVAL);
	/* No temporary file is left behind, on success or failure. */
	tree_path(path, sizeof(path), f->dir, "etc/kernel");
	d = opendir(path);
	assert_non_null(d);
	while ((de = readdir(d)))
		if (de->d_name[0] == '.' && strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			assert_string_equal(de->d_name, ".cmdline.tmp");
	closedir(d);
}

/* The run log's append (issue 14): writes land at the end whatever the
 * offset, the file stays readable, and only a regular file inside the root
 * is opened, as for root_write_atomic. */
static void test_open_append(void **state)
{
	struct fx *f = *state;
	struct root *r = open_root(f);
	char buf[8] = "";
	int fd;

	tree_write(f->dir, "run/log", "V\n");
	fd = root_open_append(r, "run/log", NULL);
	assert_true(fd >= 0);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(write_full(fd, "R\n", 2), 0);
	assert_int_equal(pread(fd, buf, sizeof(buf) - 1, 0), 4);
	assert_string_equal(buf, "V\nR\n");
	close(fd);
	f->text = tree_read(f->dir, "run/log");
	assert_string_equal(f->text, "V\nR\n");
	assert_int_equal(root_open_append(r, "run/missing", NULL), -ENOENT);
	assert_int_equal(root_open_append(r, "run", NULL), -EISDIR);
	tree_symlink(f->dir, "run/link", "log");
	assert_int_equal(root_open_append(r, "run/link", NULL), -ELOOP);
	/* A directory link that leads out of the root leads to the root's own. */
	tree_symlink(f->dir, "var", "/run");
	fd = root_open_append(r, "var/log", NULL);
	assert_true(fd >= 0);
	assert_int_equal(write_full(fd, "X\n", 2), 0);
	close(fd);
	free(f->text);
	f->text = tree_read(f->dir, "run/log");
	assert_string_equal(f->text, "V\nR\nX\n");
}

static void test_append_known(void **state)
{
	struct fx *f = *state;
	struct root *r = open_root(f);

	tree_write(f->dir, "run/keep", ""); /* run/ there */
	assert_int_equal(root_append_known(r, "run/new", "a\n", 2, -1, 0600), 0);
	assert_int_equal(root_append_known(r, "run/new", "b\n", 2, -1, 0600), -EEXIST);
	assert_int_equal(root_append_known(r, "run/new", "c\n", 2, 2, 0600), 0);
	f->text = tree_read(f->dir, "run/new");
	assert_string_equal(f->text, "a\nc\n");
	assert_int_equal(root_append_known(r, "run/gone", "d\n", 2, 0, 0600), -ENOENT);
	assert_int_equal(root_append_known(r, "run/none/new", "d\n", 2, -1, 0600), -ENOENT);
	tree_symlink(f->dir, "run/link", "new");
	assert_int_equal(root_append_known(r, "run/link", "e\n", 2, 4, 0600), -ELOOP);
	assert_int_equal(root_append_known(r, "run/link", "e\n", 2, -1, 0600), -EEXIST);
}

static void test_write_full_reports_the_error(void **state)
{
	int fd = open("/dev/full", O_WRONLY);

	(void)state;
	if (fd < 0)
		skip();
	assert_int_equal(write_full(fd, "abc", 3), -ENOSPC);
	close(fd);
}

static void test_access_and_match_errors(void **state)
{
	struct fx *f = *state;
	struct root *r = open_root(f);

	tree_write(f->dir, "sys/block/vda/x", "");
	tree_write(f->dir, "file", "");
	assert_int_equal(root_access(r, "sys/block/vda"), 1);
	assert_int_equal(root_access(r, "sys/block/vdb"), 0);
	assert_int_equal(root_access(r, "file/sub"), 0);
	assert_int_equal(root_match(r, "sys/block", "vd*", NULL, NULL), 1);
	assert_int_equal(root_match(r, "sys/none", "vd*", NULL, NULL), 0);
	/* A directory that cannot be read is an error, not "no match". */
	tree_symlink(f->dir, "sys/loop", "loop");
	assert_int_equal(root_match(r, "sys/loop", "*", NULL, NULL), -ELOOP);
	assert_int_equal(root_access(r, "sys/loop"), -ELOOP);
}

/* Issue 9: what a tree lacks is its shortest missing part. */
static void test_missing(void **state)
{
	struct fx *f = *state;
	struct root *r = open_root(f);
	char miss[64];

	tree_write(f->dir, "proc/sys/x", "");
	tree_symlink(f->dir, "sys/loop", "loop");
	assert_int_equal(root_missing(r, "proc/sys/x", miss, sizeof(miss)), 1);
	assert_int_equal(root_missing(r, "proc/sys/net/ipv4/y", miss, sizeof(miss)), 0);
	assert_string_equal(miss, "proc/sys/net");
	assert_int_equal(root_missing(r, "/etc/z", miss, sizeof(miss)), 0);
	assert_string_equal(miss, "etc");
	assert_int_equal(root_missing(r, "sys/loop/z", miss, sizeof(miss)), -ELOOP);
}

static void test_rename_unlink(void **state)
{
	struct fx *f = *state;
	struct root *r = open_root(f);

	tree_write(f->dir, "run/a", "1");
	assert_int_equal(root_rename(r, "run/a", "run/b"), 0);
	assert_false(root_exists(r, "run/a"));
	assert_true(root_exists(r, "run/b"));
	assert_int_equal(root_unlink(r, "run/b", 0), 0);
	assert_int_equal(root_unlink(r, "run/b", 0), -ENOENT);
	assert_int_equal(root_unlink(r, "run", AT_REMOVEDIR), 0);
	assert_int_equal(root_unlink(r, "..", 0), -EINVAL);
	assert_int_equal(root_unlink(r, "/", 0), -EINVAL);
}

/* A killed rewrite's temporary file of a name over 200 bytes keeps the
 * first 200 (create_temp): swept by that name all the same. */
static void test_sweep_long_names(void **state)
{
	struct fx *f = *state;
	struct root *r = open_root(f);
	char name[251], temp[NAME_MAX + 1];

	memset(name, 'd', sizeof(name) - 1), name[sizeof(name) - 1] = '\0';
	snprintf(temp, sizeof(temp), "run/t/.%.200s.0123abcd", name);
	tree_write(f->dir, temp, "x");
	root_sweep_temps(r, "run/t", name, NULL);
	assert_false(root_exists(r, temp));
}

/* A path's real name below the root: links resolved inside it, an
 * absolute one from the root, never the host's. */
static void test_realpath(void **state)
{
	static const struct {
		int r;
		const char *rel, *want;
	} cases[] = {
		{ 0, "sys/block/vda/queue/x", "sys/devices/virtual/block/vda/queue/x" },
		{ 0, "/sys/class/block/vda/queue/../queue/x", "sys/devices/virtual/block/vda/queue/x" },
		{ 0, "", "." },
		{ -ENOENT, "sys/block/vdb/queue/x", NULL },
		{ -ENOENT, "sys/up/passwd", NULL }, /* the tree's /etc has none */
	};
	struct fx *f = *state;
	struct root *r = open_root(f);
	char out[PATH_MAX];

	tree_write(f->dir, "sys/devices/virtual/block/vda/queue/x", "1\n");
	tree_symlink(f->dir, "sys/block/vda", "../devices/virtual/block/vda");
	tree_symlink(f->dir, "sys/class/block/vda", "/sys/block/vda");
	tree_symlink(f->dir, "sys/up", "../../../../../../../etc");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(root_realpath(r, cases[i].rel, out, sizeof(out)), cases[i].r);
		if (cases[i].want)
			assert_string_equal(out, cases[i].want);
	}
}

static const struct CMUnitTest tests[] = {
	FX_TEST(test_open),
	FX_TEST(test_read),
	FX_TEST(test_write),
	FX_TEST(test_write_readback),
	FX_TEST(test_fd_write_readback),
	FX_TEST(test_read_file),
	FX_TEST(test_links_and_dirs),
	FX_TEST(test_rdir_readlink),
	FX_TEST(test_symlinks_stay_inside),
	FX_TEST(test_no_escape),
	FX_TEST(test_no_escape_without_openat2),
	FX_TEST(test_walk_resolves_like_the_kernel),
	FX_TEST(test_write_atomic),
	FX_TEST(test_open_append),
	FX_TEST(test_append_known),
	FX_TEST(test_write_full_reports_the_error),
	FX_TEST(test_access_and_match_errors),
	FX_TEST(test_missing),
	FX_TEST(test_rename_unlink),
	FX_TEST(test_sweep_long_names),
	FX_TEST(test_realpath),
};

UNIT_MAIN("root", tests)
