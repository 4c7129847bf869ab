// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reading a disk's attributes, for class.c and scsi.c above it: a failed
 * read recorded (never taken for absence), identity attributes, the device
 * path's parts, queue/rotational read once.
 */
#include <errno.h>
#include <string.h>

#include "block/disk.h"

/* What a disk is or matches cannot rest on a read that failed: the first
 * such failure makes the disk an error item instead of a guess. */
void disk_fail(struct disk *d, int err, const char *what)
{
	if (err < 0 && err != -ENOENT && !*d->err)
		snprintf(d->err, sizeof(d->err), "cannot read %s: %s", what, strerror(-err));
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
		r = root_read(&c->root, rel, out, size);
	disk_fail(d, r, rel);
}

/* The component of the device path that starts with p ("virtio2"), or NULL. */
const char *path_part(const struct disk *d, const char *p, char *out, size_t size)
{
	const char *s = d->path;

	while ((s = strchr(s, '/'))) {
		s++;
		if (prefix(s, p)) {
			snprintf(out, size, "%.*s", (int)strcspn(s, "/"), s);
			return out;
		}
	}
	return NULL;
}

/* queue/rotational (its path in rel), read once: block_classify_scsi and
 * wbt_default both need it. */
int disk_rotational(struct ctx *c, struct disk *d, char *rel, size_t size)
{
	int r = pathf(rel, size, "%s/queue/rotational", d->dir);

	if (d->rot_read)
		return d->rot_r;
	d->rot_read = true;
	d->rot_r = r < 0 ? r : root_read(&c->root, rel, d->rot, sizeof(d->rot));
	if (d->rot_r < 0)
		*d->rot = '\0';
	return d->rot_r;
}
