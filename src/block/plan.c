// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The items of one disk, in the order the kernel needs: scheduler (module
 * first) → nr_requests, iosched → other → read-ahead last; a disk no
 * section tunes gets one line saying why.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "block/disk.h"

/* ---- items --------------------------------------------------------------- */

/* An item of d (its reason set by the caller); a path that does not fit
 * is an error item, and NULL. */
struct item *block_item(struct plan *p, const struct disk *d, const char *attr, int rank, const struct cfg_entry *e)
{
	char path[PATH_MAX];
	int r = disk_path(d, attr, path, sizeof(path));
	struct item *it = plan_add(p, "block", d->name, attr, r < 0 ? d->dir : path);

	if (!it)
		return NULL;
	if (r < 0) {
		it->action = ACT_ERROR;
		item_setf(&it->error, "%s/%s: %s", d->dir, attr, strerror(-r));
		return NULL;
	}
	it->rank = rank;
	it->cls = cls_name(d);
	if (e)
		item_source(it, e);
	return it;
}

/* The reason of an item of d: its head "CLASS disk (WHY)", ": " and the
 * entry's reason when it has one, then " " and clause when given. Made on
 * the stack: the items share what they repeat (item_set_shared). stpcpy, not
 * mempcpy: gcc -Os inlines the latter as a byte-wise rep movsb. */
static void disk_reason(struct item *it, const struct disk *d, const struct cfg_entry *e, const char *clause)
{
	const char *er = e ? e->reason : NULL;
	size_t n = d->headlen + (er ? strlen(er) : 0) + (clause ? strlen(clause) : 0);
	char small[512];
	_cleanup_(freep) char *big = n + 4 > sizeof(small) ? malloc(n + 4) : NULL;
	char *s = big ? big : small, *o = s;

	if (n + 4 > sizeof(small) && !big)
		return;
	o = stpcpy(o, d->head);
	if (er)
		o = stpcpy(stpcpy(o, ": "), er);
	if (clause)
		stpcpy(stpcpy(o, " "), clause);
	item_set_shared(&it->reason, s);
}

/* The desired value and the reason of a value item, set together. */
static void value_set(struct item *it, const struct disk *d, const struct cfg_entry *e, const char *want,
		      const char *clause)
{
	item_set(&it->desired, want);
	disk_reason(it, d, e, clause);
}

static void plan_scheduler(struct ctx *c, struct plan *p, struct disk *d, const struct cfg_entry *e,
			   struct sched_after *sa)
{
	struct item *it = block_item(p, d, "queue/scheduler", 0, e);

	if (!it)
		return;
	disk_reason(it, d, e, NULL);
	sa->switching = block_sched_item(c, it, d, e);
	held_give(&d->sched_fd, it);
	str_copy(sa->name, sizeof(sa->name), dash_or(it->desired));
	sa->missing = it->action == ACT_ERROR || (it->action == ACT_SKIP && it->unmet);
}

static void plan_absent(struct item *it, const struct disk *d, const struct sched_after *sa)
{
	it->action = ACT_SKIP;
	it->unmet = !d->bio;
	if (!strcmp(it->setting, "queue/read_ahead_kb"))
		/* the block layer gives every queue one: blk-mq, bio-based, dm, md */
		item_setf(&it->reason, "this tree has no queue/read_ahead_kb for %s, which every block queue has "
			  "(blk-mq or bio-based, dm and md too): the file is missing, not the setting", d->name);
	else if (d->bio)
		item_setf(&it->reason, "a bio-based queue (no I/O scheduler) has no %s", it->setting);
	else if (it->rank == 2)
		item_setf(&it->reason, "the active scheduler %s has no tunable %s", sa->name, it->setting);
	else
		item_setf(&it->reason, "kernel has no %s for this queue", it->setting);
}

/* wbt_lat_usec = -1 asks for the kernel default, which is what reads back
 * after writing -1: 2 ms for a non-rotational queue, 75 ms for a rotational
 * one (wbt_default_latency_nsec(), unchanged since writeback throttling came
 * in 4.10). Writing that number sets the same latency as writing -1, so the
 * item wants the number: plan, apply and verify compare exactly. */
static int wbt_default(struct ctx *c, struct item *it, struct disk *d, const char **want, char *clause,
		       size_t size)
{
	char rel[PATH_MAX];
	int r = disk_rotational(c, d, rel, sizeof(rel));
	bool rot;

	if (r < 0) {
		item_error(it, r, rel);
		return r;
	}
	rot = strcmp(d->rot, "0");
	*want = rot ? "75000" : "2000";
	fmt(clause, size, "[-1: the kernel default for a %srotational queue]", rot ? "" : "non-");
	return 0;
}

/* A read-ahead range as every disk asks it of the same entry: its bounds
 * and its clause parsed and formatted once, the last clamped value's text
 * kept (most disks clamp to the same). */
struct range {
	char value[64];
	long long lo, hi;
	int r; /* block_parse_range's; 1: nothing kept */
	char clause[160];
	long long to;
	char want[32]; /* to's text, "" none yet */
};

/* block_parse_range of value into last, the last answer kept there. */
static int range_of(const char *value, struct range *last)
{
	if (last->r <= 0 && !strcmp(value, last->value))
		return last->r;
	last->r = block_parse_range(value, &last->lo, &last->hi);
	*last->want = '\0';
	if (last->r == 0)
		fmt(last->clause, sizeof(last->clause), "[range %s: raise below %lld, cap above %lld]", value, last->lo,
		    last->hi);
	if (strlen(value) >= sizeof(last->value)) {
		int r = last->r;

		last->r = 1;
		return r;
	}
	strcpy(last->value, value);
	return last->r;
}

/* The value a read-ahead range (parsed in rg) wants of cur (v), clamped into
 * it (to), its text and the clause that says so; -EINVAL: cur is not a
 * number to clamp (never write the range itself). */
static int clamp_range(struct item *it, struct range *rg, const char *cur, long long *v, long long *to)
{
	if (parse_s64(cur, v) < 0) {
		it->action = ACT_ERROR;
		item_setf(&it->error, "queue/read_ahead_kb reads '%s', not a number", cur);
		return -EINVAL;
	}
	*to = *v < rg->lo ? rg->lo : *v > rg->hi ? rg->hi : *v;
	if (!*rg->want || rg->to != *to)
		fmt(rg->want, sizeof(rg->want), "%lld", *to);
	rg->to = *to;
	return 0;
}

/* An attribute that the plan reads now (not after a switch) and that
 * holds. rank 4 is queue/read_ahead_kb's alone. */
static void plan_read(struct ctx *c, struct disk *d, struct item *it, const char *attr, const struct cfg_entry *e,
		      const struct sched_after *sa)
{
	static struct range rg = { .r = 1 };
	char cur[128], clause[160];
	const char *w = e->value, *cl = NULL;
	long long v = 0, to = 0;
	bool clamped = false;
	struct held h;
	int r;

	if (*d->mpath_head && it->rank == 4) {
		item_set(&it->desired, e->value);
		item_setf(&it->reason, "%s is a hidden NVMe multipath path: reads go through its head %s, whose "
			  "read_ahead_kb is the one that counts; here it does nothing", d->name, d->mpath_head);
		it->action = ACT_SKIP;
		return;
	}
	r = disk_read_held(c, d, attr, cur, sizeof(cur), &h);
	if (h.held)
		item_hold_fd(it, h.fd, h.len); /* dropped below unless it changes */
	if (r == -ENOENT) {
		item_set(&it->desired, e->value);
		plan_absent(it, d, sa);
		return;
	}
	if (r >= 0)
		item_set(&it->current, cur);
	if (r >= 0 && it->rank == 3 && !strcmp(e->value, "-1") && !strcmp(attr, "queue/wbt_lat_usec")) {
		r = wbt_default(c, it, d, &w, clause, sizeof(clause));
		cl = clause;
	} else if (r >= 0 && it->rank == 4 && range_of(e->value, &rg) == 0) {
		r = clamp_range(it, &rg, cur, &v, &to);
		w = rg.want, cl = rg.clause;
		clamped = r >= 0;
	}
	if (r < 0) {
		value_set(it, d, e, e->value, NULL);
		if (it->action != ACT_ERROR)
			item_error(it, r, it->path);
		return;
	}
	value_set(it, d, e, w, cl);
	/* A clamped value: what item_compare_value finds, without both parsed again. */
	if (clamped)
		it->action = v != to ? ACT_CHANGE : ACT_KEEP;
	else
		it->action = item_compare_value(it, cur) ? ACT_CHANGE : ACT_KEEP;
	if (it->action != ACT_CHANGE || it->recheck)
		item_drop_fd(it);
}

static void plan_value(struct ctx *c, struct plan *p, struct disk *d, const char *attr, int rank,
		       const struct cfg_entry *e, const struct sched_after *sa)
{
	struct item *it = block_item(p, d, attr, rank, e);

	if (!it)
		return;
	it->recheck = sa->switching && rank <= 2;
	if (rank == 2) {
		value_set(it, d, e, e->value, NULL);
		if (block_plan_iosched(it, d, sa))
			return;
	}
	plan_read(c, d, it, attr, e, sa);
}

static void defer_item(struct item *it, const struct disk *d)
{
	it->action = ACT_SKIP;
	item_setf(&it->reason, "%s disk (%s) is not ready (%s): tuned on the change event when it is", cls_name(d),
		  d->why, d->notready);
}

/* A stacked device that is not ready yet is tuned on the change event udev
 * sends when it is: every item planned for it waits. */
static void stack_defer(const struct plan *p, const struct disk *d, size_t first)
{
	if (!*d->notready)
		return;
	for (size_t i = first; i < p->n; i++)
		if (p->v[i].action == ACT_CHANGE || p->v[i].action == ACT_KEEP)
			defer_item(&p->v[i], d);
}

/* A disk that no section tunes gets one line saying what it is and why
 * nothing applies, not silence (udev hands earlytune dm, md, sr and zram
 * devices too). */
static void nothing_applies(struct plan *p, const struct disk *d, const struct bconf *bc,
			    const struct cfg_entry *const *miss)
{
	struct strbuf why = { 0 };
	const char *what = "";
	char wait[160];
	struct item *it = plan_add(p, "block", d->name, "-", d->dir);

	if (!it)
		return;
	fmt(wait, sizeof(wait), "%s that is not ready (%s), ",
		 prefix(d->name, "md") ? "md software RAID" : "a device-mapper map", d->notready);
	if (d->cls == BC_STACKED && *d->notready)
		what = wait;
	else if (d->cls == BC_STACKED)
		what = prefix(d->name, "md") ? "md software RAID, " : "a device-mapper map (LVM, LUKS, multipath), ";
	else if (d->cls == BC_ZRAM)
		what = "a compressed RAM disk, ";
	else if (d->cls == BC_LOOP)
		what = "a loop device, ";
	else if (prefix(d->name, "sr"))
		what = "an optical drive, ";
	it->cls = cls_name(d);
	item_skip(it, NULL);
	bconf_why_none(bc, miss, &why);
	item_setf(&it->reason, "%s%s disk (%s): no [block] section matches it, so nothing applies%s", what,
		  cls_name(d), d->why, why.s ? why.s : "");
	sb_free(&why);
}

static void too_long(struct plan *p, const struct disk *d, const struct cfg_entry *e)
{
	struct item *it = plan_add(p, "block", d->name, "-", d->dir);

	if (!it)
		return;
	it->action = ACT_ERROR;
	it->cls = cls_name(d);
	item_setf(&it->error, "%s: %s", e->key, strerror(ENAMETOOLONG));
}

/* What the sections say of a disk: the match.KEY that rules each out
 * (miss[i], NULL when it matches) and those that match, in order (hit).
 * A configuration's few sections need no allocation per disk. */
struct verdict {
	const struct cfg_entry *few[16];
	size_t fewhit[16];
	const struct cfg_entry **miss;
	size_t *hit, nhit;
	void *heap; /* miss and hit of a configuration with more sections */
};

static int judge(struct ctx *c, struct disk *d, const struct bconf *bc, struct verdict *v)
{
	v->heap = NULL;
	v->miss = v->few, v->hit = v->fewhit;
	if (bc->ns > ARRAY_SIZE(v->few)) {
		v->heap = calloc(bc->ns, sizeof(*v->miss) + sizeof(*v->hit));
		if (!v->heap)
			return -ENOMEM;
		v->miss = v->heap, v->hit = (size_t *)(v->miss + bc->ns);
	}
	v->nhit = bconf_judge(c, d, bc, v->miss, v->hit);
	return 0;
}

static void plan_disk(struct ctx *c, struct plan *p, struct disk *d, const struct bconf *bc, const struct verdict *v)
{
	struct sched_after sa;
	const struct cfg_entry *e;
	size_t first = p->n;

	*sa.name = '\0'; /* not all 64 bytes zeroed */
	sa.switching = sa.missing = false;
	disk_read_scheduler(c, d);
	e = bconf_lookup(bc, v->hit, v->nhit, bconf_setting_key(bc, &block_settings[BS_SCHEDULER]));
	if (e)
		plan_scheduler(c, p, d, e, &sa);
	else
		disk_active_scheduler(d, &sa);
	e = bconf_lookup(bc, v->hit, v->nhit, bconf_setting_key(bc, &block_settings[BS_NR_REQUESTS]));
	if (e)
		plan_value(c, p, d, "queue/nr_requests", 1, e, &sa);
	for (size_t j = 0; j < bc->niok; j++) {
		size_t k = bc->iok[j];
		char attr[PATH_MAX];

		if (!(e = bconf_lookup(bc, v->hit, v->nhit, k)))
			continue;
		if (pathf(attr, sizeof(attr), "queue/iosched/%s", bc->keys[k] + 8) < 0)
			too_long(p, d, e);
		else
			plan_value(c, p, d, attr, 2, e, &sa);
	}
	for (const struct block_setting *s = block_settings; s->key; s++) {
		if (s->rank != 3 && s->rank != 4)
			continue;
		e = bconf_lookup(bc, v->hit, v->nhit, bconf_setting_key(bc, s));
		if (e)
			plan_value(c, p, d, s->attr, s->rank, e, &sa);
	}
	stack_defer(p, d, first);
	if (p->n == first && bconf_in_use(c, bc))
		nothing_applies(p, d, bc, v->miss);
}

void block_plan_disk(struct ctx *c, struct plan *p, struct disk *d, const struct bconf *bc)
{
	struct verdict v;

	if (judge(c, d, bc, &v) < 0)
		return;
	if (*d->err) {
		struct item *it = plan_add(p, "block", d->name, "-", d->dir);

		if (it) {
			it->action = ACT_ERROR;
			it->cls = cls_name(d);
			item_set(&it->error, d->err);
		}
	} else {
		plan_disk(c, p, d, bc, &v);
	}
	free(v.heap);
}
