// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reading a disk's attributes, for class.c and scsi.c above it: a failed
 * read recorded (never taken for absence), identity attributes, the device
 * path's parts, queue/rotational read once.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <string.h>

#include "block/disk.h"

/* What a disk is or matches cannot rest on a read that failed: the first
 * such failure makes the disk an error item instead of a guess. */
void disk_fail(struct disk *d, int err, const char *what)
{
	if (err < 0 && err != -ENOENT && !*d->err)
		fmt(d->err, sizeof(d->err), "cannot read %s: %s", what, strerror(-err));
}

/* An identity attribute (device/model…), "" when absent; trailing blanks
 * (SCSI pads vendor and model) are gone. */
void read_attr(struct ctx *c, struct disk *d, const char *attr, char *out, size_t size)
{
	char rel[PATH_MAX];
	int r;

	*out = '\0';
	r = pathf(rel, sizeof(rel), "%s/%s", d->dir, attr);
	if (r == 0)
		r = rdir_read(&d->at, attr, out, size);
	disk_fail(d, r, rel);
}

/* The component of the device path that starts with p ("virtio2"), or NULL. */
const char *path_part(const struct disk *d, const char *p, char *out, size_t size)
{
	const char *s = d->path;

	while ((s = strchr(s, '/'))) {
		s++;
		if (prefix(s, p)) {
			fmt(out, size, "%.*s", (int)strcspn(s, "/"), s);
			return out;
		}
	}
	return NULL;
}

/* d->path: where sys/block/NAME links to, read in sys/block held open (no
 * walk to it per disk); a disk found under sys/devices is its own place; ""
 * unknown. Read once, when asked: only NVMe and SCSI disks classify by it,
 * and the identity of a disk without diskseq hashes it. */
const char *disk_link(struct disk *d)
{
	int r;

	if (d->path_read)
		return d->path;
	d->path_read = true;
	if (d->block && !strncmp(d->dir, "sys/block/", 10) && !strcmp(d->dir + 10, d->name))
		r = rdir_readlink(d->block, d->name, d->path, sizeof(d->path));
	else
		r = root_readlink(d->at.root, d->dir, d->path, sizeof(d->path));
	if (r == -EINVAL) /* found under sys/devices: the directory is the device path */
		r = pathf(d->path, sizeof(d->path), "%s", d->dir) == 0 ? 1 : r;
	if (r <= 0)
		*d->path = '\0';
	return d->path;
}

/* queue/rotational (its path in rel), read once: block_classify_scsi and
 * wbt_default both need it. */
int disk_rotational(struct ctx *c, struct disk *d, char *rel, size_t size)
{
	int r = pathf(rel, size, "%s/queue/rotational", d->dir);

	if (d->rot_read)
		return d->rot_r;
	d->rot_read = true;
	d->rot_r = r < 0 ? r : rdir_read(&d->at, "queue/rotational", d->rot, sizeof(d->rot));
	if (d->rot_r < 0)
		*d->rot = '\0';
	return d->rot_r;
}

/* An attribute apply may write: in apply's plan read through a file opened
 * for that write (h, which the item takes when it changes: the write needs
 * no second open and walk), else read only. An open for writing that fails
 * for another reason than absence (a read-only tree, the file limit) is
 * the read only one, as if never tried. */
int disk_read_held(struct ctx *c, struct disk *d, const char *attr, char *buf, size_t size, struct held *h)
{
	ssize_t n;
	int fd;

	h->held = false;
	if (!c->applying || !fd_hold())
		return rdir_read(&d->at, attr, buf, size);
	fd = rdir_openat(&d->at, attr, O_RDWR, 0);
	if (fd < 0) {
		fd_release(-1);
		return fd == -ENOENT ? fd : rdir_read(&d->at, attr, buf, size);
	}
	n = read(fd, buf, size - 1);
	if (n < 0) {
		n = -errno;
		fd_release(fd);
		return (int)n;
	}
	*h = (struct held){ true, fd, (size_t)n + 1 >= size ? (size_t)-1 : (size_t)n };
	return root_trimmed(buf, n);
}

/* The file to the item that writes it, or closed when it writes nothing. */
void held_give(struct held *h, struct item *it)
{
	if (h->held && it && it->action == ACT_CHANGE && !it->recheck)
		item_hold_fd(it, h->fd, h->len);
	else if (h->held)
		fd_release(h->fd);
	h->held = false;
}
