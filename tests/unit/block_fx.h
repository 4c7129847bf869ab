// SPDX-License-Identifier: LGPL-2.1-or-later
/* Fake disks and plan assertions shared by the block domain's unit tests. */
#pragma once

#include "unit.h"
#include "block/block.h"

static void expect_key(const char *key, const char *value, bool ok, const char *msg)
{
	char why[384] = "";
	int r = block_check_key(key, value, why, sizeof(why));

	if (ok && r != 0)
		fail_msg("[block] %s = '%s' rejected: %s", key, value, why);
	if (!ok && r != -EINVAL)
		fail_msg("[block] %s = '%s' accepted (r=%d)", key, value, r);
	if (msg)
		assert_contains(why, msg);
}

/* ---- fake trees ---------------------------------------------------------------------- */

#define VIRTIO "../../../../bus/virtio/drivers/virtio_blk"
#define SD "../../../../../../bus/scsi/drivers/sd"
#define CPUINFO "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu vme de pse tsc msr"
#define CPUINFO_VM CPUINFO " hypervisor lahf_lm\n\nprocessor\t: 1\n"
#define CPUINFO_METAL CPUINFO " lahf_lm\n\nprocessor\t: 1\nflags\t\t: fpu vme\n"

static void attr(struct fx *f, const char *disk, const char *name, const char *value)
{
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "sys/block/%s/%s", disk, name);
	tree_write(f->dir, rel, value);
}

/* A disk: scheduler, read_ahead_kb, rotational and a driver link (NULL: none). */
static void disk(struct fx *f, const char *name, const char *sched, const char *ra,
		 const char *rot, const char *driver)
{
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "sys/block/%s/queue", name);
	tree_mkdir(f->dir, rel);
	if (sched)
		attr(f, name, "queue/scheduler", sched);
	if (ra)
		attr(f, name, "queue/read_ahead_kb", ra);
	if (rot)
		attr(f, name, "queue/rotational", rot);
	if (driver) {
		snprintf(rel, sizeof(rel), "sys/block/%s/device/driver", name);
		tree_symlink(f->dir, rel, driver);
	}
}

static void plan(struct fx *f)
{
	assert_int_equal(block_plan(&f->c, &f->p), 0);
}

static const struct item *item(struct fx *f, const char *disk, const char *setting)
{
	const struct item *it = find_item(&f->p, disk, setting);

	if (!it)
		fail_msg("no item %s %s among %zu", disk, setting, f->p.n);
	return it;
}

/* A disk no section tunes: exactly one line, a skip saying so. */
static void expect_untouched(struct fx *f, const char *disk)
{
	const struct item *it = item(f, disk, "-");

	assert_int_equal(count_items(&f->p, disk), 1);
	assert_int_equal(it->action, ACT_SKIP);
	assert_contains(it->reason, "no [block] section matches it, so nothing applies");
}

static void expect(const struct item *it, const char *current, const char *desired, enum action a)
{
	static const char *const names[] = { "change", "keep", "skip", "error" };

	if (!streq_ptr(it->current, current) || !streq_ptr(it->desired, desired) || it->action != a)
		fail_msg("%s %s: current '%s' desired '%s' %s; expected '%s' '%s' %s (reason: %s; error: %s)",
			 it->target, it->setting, it->current ? it->current : "(null)",
			 it->desired ? it->desired : "(null)", names[it->action],
			 current ? current : "(null)", desired ? desired : "(null)", names[a],
			 it->reason ? it->reason : "-", it->error ? it->error : "-");
}
