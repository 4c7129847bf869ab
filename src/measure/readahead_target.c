// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * measure readahead: the device (a whole disk of sys/block), the read-ahead
 * it has, the candidate (--candidate, else what the configuration's block
 * plan sets for it: the profile's cap, its range clamped, exactly as apply
 * would write it), where the touches fall (a scratch file on a filesystem
 * of the disk, else the device itself, read-only) and the bounds.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/log.h"
#include "block/block.h"
#include "engine/item.h"
#include "measure/measure.h"
#include "measure/readahead.h"

#define DEFAULT_MAX_BYTES (1ULL << 30)
#define DEVICE_REGION (16ULL << 30) /* the touches of a device mapping fall in its first 16 GiB */
#define SCRATCH_MIN (4ULL << 20)    /* a scratch file is a quarter of --max-bytes, whole MiB */

static int read_u(const struct root *r, const char *dev, const char *attr, unsigned long long *v)
{
	char rel[128];
	int e = pathf(rel, sizeof(rel), "sys/block/%s/%s", dev, attr);

	return e ? e : root_read_u64(r, rel, v);
}

/* The plan's read_ahead_kb for the disk, as apply would write it. */
static int candidate_of_plan(struct ctx *c, struct mr_target *t)
{
	struct plan p = { 0 };
	char *devs[1] = { t->dev };
	char **saved = c->devices;
	size_t nsaved = c->ndevices;
	int r;

	c->devices = devs, c->ndevices = 1, c->read_only = true;
	r = block_plan(c, &p);
	c->devices = saved, c->ndevices = nsaved;
	for (size_t i = 0; r >= 0 && i < p.n; i++) {
		const struct item *it = &p.v[i];
		unsigned long long v;

		if (strcmp(it->target, t->dev) || strcmp(it->setting, "queue/read_ahead_kb") || !it->desired ||
		    parse_u64(it->desired, &v) < 0 || (it->action != ACT_CHANGE && it->action != ACT_KEEP))
			continue;
		t->cand_kb = (unsigned)v;
		snprintf(t->cand_from, sizeof(t->cand_from), "the configuration's read_ahead_kb for %s%s%s%s", t->dev,
			 it->source ? " (" : "", it->source ? it->source : "", it->source ? ")" : "");
		r = 1;
		break;
	}
	plan_free(&p);
	return r;
}

static int candidate(struct ctx *c, const struct measure_opts *o, struct mr_target *t)
{
	int r;

	if (o->candidate >= 0) {
		t->cand_kb = (unsigned)o->candidate;
		snprintf(t->cand_from, sizeof(t->cand_from), "--candidate");
		return 0;
	}
	r = candidate_of_plan(c, t);
	if (r < 0) {
		log_msg(LOG_ERR, "measure readahead: cannot plan %s: %s", t->dev, strerror(-r));
		return r;
	}
	if (r == 0) {
		log_msg(LOG_ERR, "measure readahead: the configuration sets no read_ahead_kb for %s (see earlytune plan "
			"--device %s); give one with --candidate KB", t->dev, t->dev);
		return -ENOENT;
	}
	return 0;
}

/* mountinfo's octal escapes (\040 for a space) undone, in place. */
static void unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = 0;
}

/* Whether MAJ:MIN is the disk or one of its partitions: its sys/dev/block
 * link ends in /DEV or passes through /DEV/. */
static bool of_disk(const struct root *r, const char *devno, const char *dev, char *name, size_t size)
{
	char rel[64], link[PATH_MAX], tail[40];
	const char *base;

	if (pathf(rel, sizeof(rel), "sys/dev/block/%s", devno) < 0 || root_readlink(r, rel, link, sizeof(link)) < 0)
		return false;
	base = strrchr(link, '/');
	snprintf(tail, sizeof(tail), "/%s/", dev);
	if (!base || (strcmp(base + 1, dev) && !strstr(link, tail)))
		return false;
	snprintf(name, size, "%s", base + 1);
	return true;
}

/* A read-write mount of a filesystem on the disk: its mount point, root-relative. */
static void find_mount(const struct root *r, struct mr_target *t)
{
	char *text = NULL, *save = NULL;

	if (root_read_file(r, "proc/self/mountinfo", &text, 1 << 22) < 0)
		return;
	for (char *line = strtok_r(text, "\n", &save); line && !*t->mount; line = strtok_r(NULL, "\n", &save)) {
		char devno[32], mnt[256], opts[256];

		if (sscanf(line, "%*s %*s %31s %*s %255s %255s", devno, mnt, opts) != 3 ||
		    !of_disk(r, devno, t->dev, t->fs_dev, sizeof(t->fs_dev)))
			continue;
		if (!strncmp(opts, "ro", 2) && (!opts[2] || opts[2] == ','))
			continue;
		unescape(mnt);
		snprintf(t->mount, sizeof(t->mount), "%s", mnt[1] ? mnt + 1 : ".");
	}
	free(text);
}

/* The serial match.serial compares (device/serial, else the disk's own
 * serial: block/match.c's order), "" when it has none. */
void mr_serial(const struct root *r, const char *dev, char *out, size_t size)
{
	static const char *const attrs[] = { "device/serial", "serial" };
	char rel[128];

	for (size_t i = 0; i < ARRAY_SIZE(attrs); i++)
		if (pathf(rel, sizeof(rel), "sys/block/%s/%s", dev, attrs[i]) == 0 && root_read(r, rel, out, size) > 0)
			return;
	*out = '\0';
}

/* The default --max-bytes is held to half the memory available, so that a
 * round's reads stay cached; one given beyond it is kept, and said: a round
 * as large as a workload's own, whose eviction the model then counts. */
static void bounds(const struct root *r, const struct measure_opts *o, struct mr_target *t)
{
	char *text = NULL;
	const char *p;
	unsigned long long avail, half = 0;

	t->max_bytes = o->max_bytes ? o->max_bytes : DEFAULT_MAX_BYTES;
	t->seconds = o->seconds ? o->seconds : 20;
	if (root_read_file(r, "proc/meminfo", &text, 1 << 16) >= 0 && (p = strstr(text, "MemAvailable:")) &&
	    sscanf(p, "MemAvailable: %llu", &avail) == 1)
		half = avail * 1024 / 2;
	free(text);
	if (!half || half >= t->max_bytes)
		return;
	if (o->max_bytes) {
		log_msg(LOG_NOTICE, "measure readahead: --max-bytes is beyond half the memory available (%llu MiB): "
			"pages a round reads may be evicted and read again", half >> 20);
		return;
	}
	log_msg(LOG_NOTICE, "measure readahead: reading at most %llu MiB, half the memory available", half >> 20);
	t->max_bytes = half;
}

int mr_disk_name(const char *dev)
{
	if (!valid_name(dev) || strlen(dev) >= sizeof(((struct mr_target *)0)->dev) || !strcmp(dev, ".") ||
	    !strcmp(dev, "..")) {
		log_msg(LOG_ERR, "measure readahead: '%s' is not a disk name (sys/block/NAME)", dev);
		return -EINVAL;
	}
	return 0;
}

int mr_target_disk(struct ctx *c, const struct measure_opts *o, struct mr_target *t)
{
	unsigned long long sectors, ra;
	char rel[64];
	int e;

	memset(t, 0, sizeof(*t));
	if (mr_disk_name(o->dev) < 0)
		return -EINVAL;
	snprintf(t->dev, sizeof(t->dev), "%s", o->dev);
	if (pathf(rel, sizeof(rel), "sys/block/%s/dev", t->dev) < 0 || root_read(&c->root, rel, t->devno,
										      sizeof(t->devno)) < 0) {
		log_msg(LOG_ERR, "measure readahead: no disk %s: no /sys/block/%s/dev", t->dev, t->dev);
		return -EINVAL;
	}
	e = read_u(&c->root, t->dev, "size", &sectors);
	if (!e)
		e = read_u(&c->root, t->dev, "queue/read_ahead_kb", &ra);
	if (e < 0) {
		log_msg(LOG_ERR, "measure readahead: cannot read %s's size and read-ahead: %s", t->dev, strerror(-e));
		return e;
	}
	t->dev_bytes = sectors * 512, t->ra_kb = (unsigned)ra, t->page = (uint64_t)sysconf(_SC_PAGESIZE);
	bounds(&c->root, o, t);
	find_mount(&c->root, t);
	mr_serial(&c->root, t->dev, t->serial, sizeof(t->serial));
	return 0;
}

int mr_target_init(struct ctx *c, const struct measure_opts *o, struct mr_target *t)
{
	int e = mr_target_disk(c, o, t);

	return e < 0 ? e : candidate(c, o, t);
}

/* The disk's node, read-only, checked to be that disk. */
static int open_device(const struct root *r, struct mr_target *t)
{
	unsigned maj, min;
	struct stat st;
	char rel[64];
	int fd;

	*t->mount = 0;
	t->region = (t->dev_bytes < DEVICE_REGION ? t->dev_bytes : DEVICE_REGION) / t->page * t->page;
	if (pathf(rel, sizeof(rel), "dev/%s", t->dev) < 0 || (fd = root_openat(r, rel, O_RDONLY | O_CLOEXEC, 0)) < 0) {
		log_msg(LOG_ERR, "measure readahead: cannot open /dev/%s read-only", t->dev);
		return -ENOENT;
	}
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) || sscanf(t->devno, "%u:%u", &maj, &min) != 2 ||
	    st.st_rdev != makedev(maj, min)) {
		log_msg(LOG_ERR, "measure readahead: /dev/%s is not the block device %s", t->dev, t->devno);
		close(fd);
		return -ENOTBLK;
	}
	return fd;
}

/* The scratch file: unnamed (O_TMPFILE), so that no exit, not even a
 * SIGKILL, leaves it behind; -ENOSPC where twice its size is not free. */
static int open_scratch(const struct root *r, struct mr_target *t)
{
	int fd = root_openat(r, t->mount, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	struct statvfs sv;

	t->region = t->max_bytes / 4 / (1 << 20) * (1 << 20);
	if (fd < 0)
		return fd;
	if (fstatvfs(fd, &sv) < 0 || (uint64_t)sv.f_bavail * sv.f_frsize < 2 * t->region) {
		close(fd);
		return -ENOSPC;
	}
	return fd;
}

int mr_open(const struct root *r, struct mr_target *t)
{
	bool room = t->max_bytes >= SCRATCH_MIN;
	int fd = *t->mount && room ? open_scratch(r, t) : -ENOENT;

	if (fd >= 0)
		return fd;
	if (*t->mount)
		log_msg(LOG_NOTICE, "measure readahead: no scratch file in /%s (%s): the device itself, read-only",
			t->mount, room ? strerror(-fd) : "--max-bytes under 4 MiB leaves a round less than 1 MiB");
	fd = open_device(r, t);
	if (fd >= 0 && t->region < 64 * t->page) {
		/* fewer pages than touches would overlap: nothing to tell apart */
		log_msg(LOG_ERR, "measure readahead: %s holds %llu bytes, fewer than 64 pages: too small to measure",
			t->dev, (unsigned long long)t->dev_bytes);
		close(fd);
		return -EINVAL;
	}
	return fd;
}
