// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * debugfs for the scheduler's knobs (5.13+). It is not mounted in an
 * initramfs, nor on many systems: earlytune mounts it only when the root is
 * the running system's and nothing is mounted there, and unmounts it when
 * done; plan mounts nothing (it reads what is there). A --root tree is
 * never mounted on: it provides the files. Under
 * kernel lockdown (Secure Boot) every writable debugfs file is EPERM.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "base/log.h"
#include "sched/internal.h"

#define DEBUGFS_MAGIC 0x64626720

/* 1 when debugfs is mounted at SCHED_DEBUGFS, 0 not, -errno. */
static int mounted(const struct root *r)
{
	struct statfs st;
	int fd = root_openat(r, SCHED_DEBUGFS, O_PATH | O_DIRECTORY, 0), rr;

	if (fd < 0)
		return fd;
	rr = fstatfs(fd, &st) < 0 ? -errno : st.f_type == DEBUGFS_MAGIC;
	close(fd);
	return rr;
}

int sched_debugfs_get(const struct root *r, struct sched_mount *m)
{
	int rr;

	if (m->ours || m->err)
		return m->err;
	if (!r->is_host)
		return 0;
	rr = mounted(r);
	if (rr == 0 && m->no_mount)
		rr = -ENODEV;
	else if (rr == 0 && mount("none", "/" SCHED_DEBUGFS, "debugfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		rr = -errno;
	else if (rr == 0) {
		m->ours = true;
		log_msg(LOG_DEBUG, "mounted debugfs on /" SCHED_DEBUGFS " for the scheduler's knobs");
	}
	m->err = rr < 0 ? rr : 0;
	return m->err;
}

void sched_debugfs_put(const struct root *r, struct sched_mount *m)
{
	if (m->ours && umount2("/" SCHED_DEBUGFS, 0) < 0)
		log_msg(LOG_WARN, "cannot unmount debugfs from /" SCHED_DEBUGFS ", which earlytune mounted: %s",
			strerror(errno));
	*m = (struct sched_mount){ 0 };
}

const char *sched_errstr(int err)
{
	return err == -EPERM ? "debugfs is locked down (Secure Boot?)" : strerror(-err);
}

/* One knob written and read back (value is it->desired); the item's result
 * and error set. */
int sched_write(const struct root *r, struct item *it, const char *value)
{
	char raw[64];
	int rr = root_write(r, it->path, value);

	if (rr < 0) {
		it->result = RES_FAILED;
		item_setf(&it->error, "%s: writing '%s' to /%s", sched_errstr(rr), value, it->path);
		return rr;
	}
	rr = root_read(r, it->path, raw, sizeof(raw));
	if (rr < 0) {
		it->result = RES_FAILED;
		item_setf(&it->error, "%s: reading back /%s", sched_errstr(rr), it->path);
		return rr;
	}
	if (item_compare_value(it, raw)) {
		it->result = RES_FAILED;
		item_setf(&it->error, "the kernel did not keep the value: wrote '%s', reads back '%s'", value, raw);
		return -EIO;
	}
	it->result = RES_APPLIED;
	return 0;
}
