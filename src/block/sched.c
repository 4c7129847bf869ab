// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The I/O scheduler of a disk: queue/scheduler read once, the first
 * configured preference the queue offers or a module can give, and what
 * iosched.KEY tunes (the scheduler active after the plan).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/kmod.h"
#include "block/disk.h"

const char *block_sched_module(const char *s)
{
	if (!strcmp(s, "mq-deadline"))
		return "mq-deadline";
	if (!strcmp(s, "kyber"))
		return "kyber-iosched";
	if (!strcmp(s, "bfq"))
		return "bfq";
	return NULL;
}

/* A queue of the legacy single-queue block layer (before 5.0) offers these. */
static bool legacy_list(const char *raw)
{
	static const char *const old[] = { "noop", "deadline", "cfq", "anticipatory" };

	for (size_t i = 0; i < ARRAY_SIZE(old); i++)
		if (selector_offers(raw, old[i]))
			return true;
	return false;
}

/* The legacy block layer's scheduler that does a blk-mq one's job: a
 * profile written for blk-mq still chooses per class on a kernel before
 * 5.0. bfq grew out of cfq; kyber has none. */
static const char *legacy_counterpart(const char *w)
{
	if (!strcmp(w, "none"))
		return "noop";
	if (!strcmp(w, "mq-deadline"))
		return "deadline";
	if (!strcmp(w, "bfq"))
		return "cfq";
	return NULL;
}

/* On a legacy queue: w's counterpart, when the queue offers it. */
static bool legacy_pick(struct item *it, const char *raw, const char *w)
{
	const char *old = legacy_counterpart(w);

	if (!old || !selector_offers(raw, old))
		return false;
	item_set(&it->desired, old);
	item_add_reason(it, "[%s → %s, its counterpart on the legacy single-queue block layer (before 5.0)]", w,
			old);
	return true;
}

/* Why a word of the list is not there: a legacy name on a blk-mq queue. */
static void legacy_why(const char *w, char *why, size_t size)
{
	static const char *const modern[] = { "none", "mq-deadline", "bfq" };

	for (size_t i = 0; i < ARRAY_SIZE(modern); i++)
		if (!strcmp(legacy_counterpart(modern[i]), w))
			fmt(why + strlen(why), size - strlen(why),
				 "; %s is the legacy block layer's (before 5.0): a blk-mq queue has %s", w, modern[i]);
}

/* The first preference the queue offers, or whose module can be loaded
 * (on a legacy queue: the first whose counterpart it offers). Whether the
 * queue is a legacy one is asked only past a preference it does not offer
 * (four scans of its list, for the few disks that get that far). */
static void choose_scheduler(struct ctx *c, struct item *it, const char *raw, const char *pref)
{
	char w[WORD_MAX], why[512];
	const char *p = pref;
	int legacy = -1;
	bool unknown = false;

	*why = '\0'; /* not the whole buffer: most disks take the first word */
	while (next_word(&p, w, sizeof(w))) {
		const char *mod;
		char one[256];

		if (selector_offers(raw, w)) {
			item_set(&it->desired, w);
			return;
		}
		mod = block_sched_module(w);
		*one = '\0';
		legacy = legacy < 0 ? legacy_list(raw) : legacy;
		if (legacy && legacy_pick(it, raw, w))
			return;
		if (legacy)
			continue; /* no module makes a single-queue device offer a blk-mq scheduler */
		legacy_why(w, why, sizeof(why));
		switch (mod ? mods_available(c->mods, mod, one, sizeof(one)) : 0) {
		case 2:
			item_set(&it->desired, w);
			item_set(&it->module, mod);
			return;
		case 3:
			unknown = true;
			/* fall through */
		case 0:
			if (*one)
				fmt(why + strlen(why), sizeof(why) - strlen(why), "; %s", one);
			break;
		default: /* in the kernel, yet this queue does not offer it */
			fmt(why + strlen(why), sizeof(why) - strlen(why),
				 "; %s is loaded but this queue does not offer it", w);
		}
	}
	legacy = legacy < 0 ? legacy_list(raw) : legacy;
	if (legacy && c->kernel.version && c->kernel.version < KV(5, 0))
		fmt(why + strlen(why), sizeof(why) - strlen(why),
			 "; Linux %s drives this queue with the legacy single-queue block layer (gone in 5.0): blk-mq schedulers need a blk-mq queue (scsi_mod.use_blk_mq=1 before 5.0)",
			 c->kernel.release);
	else if (legacy)
		fmt(why + strlen(why), sizeof(why) - strlen(why),
			 "; these are the legacy single-queue block layer's schedulers (a kernel before 5.0): no blk-mq scheduler can be selected on this queue, whatever modules exist");
	/* What the tree does not show is unknown, as in every domain. */
	if (unknown) {
		item_unknown(it, "none of '%s' is offered now, and whether a module could add one is unknown: the queue offers '%s'%s",
			     pref, raw, why);
		return;
	}
	it->action = ACT_SKIP;
	it->unmet = true;
	item_setf(&it->reason, "none of '%s' is available: the queue offers '%s'%s", pref, raw, why);
}

/* Why a disk has no queue/scheduler file, for what it is. */
static const char *bio_what(const struct disk *d)
{
	if (d->cls == BC_STACKED)
		return "a dm/md device is bio-based: no I/O scheduler (the disks beneath it schedule)";
	if (d->cls == BC_ZRAM)
		return "zram is bio-based: no I/O scheduler";
	if (strstr(d->path, "nvme-subsystem"))
		return "an NVMe multipath head is bio-based: its path nodes (nvmeXcYnZ) schedule";
	if (d->cls == BC_LOOP)
		return "this loop device is bio-based (loop uses blk-mq since Linux 4.4)";
	return "no such file for this disk (see its class and reason): the kernel exposes no I/O scheduler for it, or the tree lacks the file";
}

/* The scheduler item from the queue/scheduler block_plan_disk read: true when the
 * plan switches. */
bool block_sched_item(struct ctx *c, struct item *it, const struct disk *d, const struct cfg_entry *e)
{
	const char *raw = d->sched, *active = d->sched_active;
	int r = d->sched_r;

	it->selector = true;
	if (r == -ENOENT) {
		item_skip(it, NULL);
		item_setf(&it->reason, "no queue/scheduler: %s", bio_what(d));
		return false;
	}
	if (r < 0) {
		item_error(it, r, it->path);
		return false;
	}
	if (!*active) {
		it->action = ACT_ERROR;
		item_setf(&it->error, "cannot parse queue/scheduler '%s'", raw);
		return false;
	}
	item_set(&it->current, active);
	if (!strchr(raw, '[') && !strcmp(active, "none")) {
		/* ≤6.4 bio-based queues print a bare "none" and accept writes silently. */
		item_skip(it, "queue/scheduler reads a bare 'none': a bio-based queue without an I/O scheduler");
		return false;
	}
	choose_scheduler(c, it, raw, e->value);
	if (it->action == ACT_SKIP)
		return false;
	it->action = strcmp(active, it->desired) ? ACT_CHANGE : ACT_KEEP;
	if (it->action == ACT_KEEP)
		item_set(&it->module, NULL);
	return it->action == ACT_CHANGE;
}


/* iosched.KEY tunes the scheduler active after the plan, never the one the
 * plan switches away from: true when that decides the item. */
bool block_plan_iosched(struct item *it, const struct disk *d, const struct sched_after *sa)
{
	if (d->bio)
		return false; /* the read below says "not applicable" */
	if (sa->missing) {
		it->action = ACT_SKIP;
		it->unmet = true;
		item_setf(&it->reason, "the configured scheduler is not active (see queue/scheduler): %s is not set",
			  it->setting);
		return true;
	}
	if (!sa->switching)
		return false;
	/* The file there now is the old scheduler's: the value that counts
	 * (and the original to record) is read after the switch. */
	it->action = ACT_CHANGE;
	item_add_reason(it, "[a tunable of %s, read after the switch]", sa->name);
	return true;
}

/* queue/scheduler, read once per disk: whether the queue is bio-based (no
 * file, or on ≤ 6.4 a bare "none"), the scheduler item, the active one. */
void disk_read_scheduler(struct ctx *c, struct disk *d)
{
	d->sched_r = d->dirlen + sizeof("/queue/scheduler") > PATH_MAX ? -ENAMETOOLONG
		     : disk_read_held(c, d, "queue/scheduler", d->sched, sizeof(d->sched), &d->sched_fd);
	*d->sched_active = '\0';
	if (d->sched_r < 0)
		*d->sched = '\0';
	else if (selector_active(d->sched, d->sched_active, sizeof(d->sched_active)) < 0)
		*d->sched_active = '\0';
	d->bio = d->sched_r == -ENOENT || (d->sched_r >= 0 && !strchr(d->sched, '[') && !strcmp(d->sched, "none"));
}

/* No scheduler configured: iosched.KEY tunes whatever is active. */
void disk_active_scheduler(const struct disk *d, struct sched_after *sa)
{
	fmt(sa->name, sizeof(sa->name), "%s", d->sched_r < 0 || !*d->sched_active ? "-" : d->sched_active);
}
