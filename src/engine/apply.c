// SPDX-License-Identifier: LGPL-2.1-or-later
/* apply: originals recorded first, then each item written and read back.
 * Files the engine writes itself; other kinds of item (a module insert, a
 * qdisc) go to their domain's hooks. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/kmod.h"
#include "base/kparam.h"
#include "base/log.h"
#include "engine/runlog.h"
#include "engine/session.h"
#include "engine/sysctl.h"

/* After a scheduler switch the kernel reset nr_requests and replaced the
 * iosched/ directory: decide again from what is there now. A value that
 * cannot be read is a failure: what is not read cannot be recorded, and
 * nothing is written without its original on disk. */
static bool recheck(struct ctx *c, struct item *it, struct session *s)
{
	char raw[256];
	int r = root_read(&c->root, it->path, raw, sizeof(raw));

	if (r < 0) {
		item_fail(it, r, r == -ENOENT ? "%s is missing after the scheduler switch"
					      : "cannot read %s after the scheduler switch", it->setting);
		return false;
	}
	if (item_compare_value(it, raw) == 0) {
		it->action = ACT_KEEP;
		return false;
	}
	it->action = ACT_CHANGE;
	if (!it->current) {
		item_set(&it->current, raw);
		r = session_record(s, it, raw);
		if (r >= 0)
			r = session_commit(s);
		if (r < 0) {
			item_fail(it, r, "cannot record the original of %s", it->setting);
			return false;
		}
	}
	return true;
}

static void execute(struct ctx *c, struct item *it, struct session *s)
{
	char raw[256];
	int r, got;

	if (it->recheck && !recheck(c, it, s))
		return;
	if (it->module) {
		r = mods_load(c->mods, it->module, NULL);
		if (r < 0) {
			item_fail(it, r, "cannot load module %s", it->module);
			return;
		}
	}
	if (it->held && !it->recheck) {
		it->held = false; /* closed by the write */
		r = fd_write_readback(it->fd, it->fdlen, it->desired, raw, sizeof(raw), &got);
	} else {
		r = root_write_readback(&c->root, it->path, it->desired, raw, sizeof(raw), &got);
	}
	if (r < 0) {
		item_fail(it, r, "writing %s", it->desired);
		return;
	}
	if (got < 0) {
		item_fail(it, got, "reading back %s", it->setting);
		return;
	}
	if (item_compare_value(it, raw)) {
		it->result = RES_FAILED;
		item_setf(&it->error, "the kernel did not keep the value: wrote '%s', reads back '%s' (ignored, or rounded to whole pages or jiffies: configure a value it can store)",
			  it->desired, raw);
		return;
	}
	it->result = RES_APPLIED;
}

static bool wants_write(const struct item *it)
{
	return it->action == ACT_CHANGE || (it->recheck && it->action == ACT_KEEP);
}

static bool recorded(const struct item *it)
{
	const struct domain *d = domain_find(it->domain);

	return wants_write(it) && it->current && !(d && d->irreversible);
}

/* Originals go to disk before the first write; if they cannot, nothing is written. */
static int record_originals(struct session *s, struct plan *p)
{
	int r = 0;

	for (size_t i = 0; i < p->n && r >= 0; i++)
		if (recorded(&p->v[i]))
			r = session_record(s, &p->v[i], p->v[i].current);
	return r < 0 ? r : session_commit(s);
}

/* A file the engine writes; another kind its domain does, a batch domain all
 * of the plan's items at the first one's turn. */
static void write_item(struct ctx *c, struct plan *p, struct item *it, struct session *s,
		       unsigned *batched)
{
	const struct domain *d = it->kind == ITEM_FILE ? NULL : domain_find(it->domain);

	progress();
	if (!d) {
		execute(c, it, s);
	} else if (!d->apply_batch) {
		d->apply(c, it);
	} else if (!(*batched & d->bit)) {
		*batched |= d->bit;
		d->apply_batch(c, p);
	}
}

static bool reshaping(const struct item *it)
{
	const struct domain *d = domain_find(it->domain);

	return wants_write(it) && d && d->reshapes && d->reshapes(it->setting);
}

/* An item of first written before the plan was made again, in place of
 * the same item of p (or after its items, if p has none: replan made room). */
static void transplant(struct plan *p, struct item *done)
{
	struct item *it = NULL, tmp;

	for (size_t j = 0; j < p->n && !it; j++)
		if (!strcmp(p->v[j].domain, done->domain) && !strcmp(p->v[j].path, done->path))
			it = &p->v[j];
	if (!it)
		it = &p->v[p->n++], *it = (struct item){ 0 };
	tmp = *it, *it = *done, *done = tmp;
}

/* p planned again, the n written items of first moved into it. When that
 * cannot be, p is first again: what was written stays in the table, the
 * state and the run log, and the rest fails with the cause. */
static int replan(struct ctx *c, struct plan *p, struct plan *first, size_t n)
{
	int r;

	*p = (struct plan){ 0 };
	r = build_plan(c, p, true);
	/* Room for all of them first, so that none is lost halfway. */
	if (r >= 0)
		r = array_grow(&p->v, &p->cap, p->n + n - 1, sizeof(*p->v), 64);
	if (r < 0) {
		plan_free(p);
		*p = *first;
		return r;
	}
	for (size_t i = 0; i < first->n; i++)
		if (reshaping(&first->v[i]))
			transplant(p, &first->v[i]);
	plan_free(first);
	return 0;
}

/* Why the items after a failed replan are not written: the first written. */
static void replan_failed(const struct plan *p, char *why, size_t size)
{
	for (size_t i = 0; i < p->n; i++)
		if (reshaping(&p->v[i])) {
			fmt(why, size, "cannot plan again after %s %s was written", p->v[i].target, p->v[i].setting);
			return;
		}
}

/* Items that recreate a device's queues (a change of channels) are written
 * first, their originals recorded before, and the plan is made again: the
 * items about queues (RPS, XPS, a qdisc per TX queue) are then about the
 * queues there are, at the same event. */
/* Where apply stopped, for the items it did not write. */
enum stop { STOP_RECORD, STOP_LIST, STOP_REPLAN };

static int reshape(struct ctx *c, struct plan *p, struct session *s, unsigned *batched, enum stop *stop)
{
	struct plan first = *p;
	size_t n = 0;
	int r = 0;

	for (size_t i = 0; i < first.n && r >= 0; i++)
		if (reshaping(&first.v[i]) && ++n && recorded(&first.v[i]))
			r = session_record(s, &first.v[i], first.v[i].current);
	if (!n || r < 0 || (r = session_commit(s)) < 0)
		return r;
	for (size_t i = 0; i < first.n; i++)
		if (reshaping(&first.v[i]))
			write_item(c, &first, &first.v[i], s, batched);
	r = replan(c, p, &first, n);
	if (r < 0)
		*stop = STOP_REPLAN;
	return r;
}

/* The words are made only for an item not written: a PATH_MAX buffer on
 * apply's frame lay under every call of the run, pages of stack a udev run
 * touched for nothing. */
static __attribute__((noinline)) void not_written(const struct ctx *c, const struct plan *p, struct item *it, int r,
						  enum stop stop)
{
	char why[PATH_MAX + 128];

	fmt(why, sizeof(why), "cannot record originals in %s/run/earlytune", c->root.is_host ? "" : c->root.dir);
	if (stop == STOP_LIST)
		fmt(why, sizeof(why), "cannot list devices");
	else if (stop == STOP_REPLAN)
		replan_failed(p, why, sizeof(why));
	item_fail(it, r, "not written: %s", why);
}

/* The guard is not an item: a boot goes on without it, and systemd-sysctl
 * then leaves the distribution's defaults, which verify reports. */
static void guard_failed(const struct ctx *c, int err)
{
	log_msg(LOG_WARN, "cannot write the sysctl guard %s/" SYSCTL_GUARD_PATH ": %s",
		c->root.is_host ? "" : c->root.dir, strerror(-err));
}

/* Under the state lock, before the plan reads what systemd-sysctl will do. */
static int write_guard(struct ctx *c)
{
	int r = sysctl_guard_scope(c) ? sysctl_write_guard(&c->root, &c->cfg) : 0;

	if (r < 0)
		guard_failed(c, r);
	return r;
}

static int apply_plan(struct ctx *c, struct plan *p, int *guard)
{
	struct session s;
	unsigned batched = 0;
	enum stop stop = STOP_RECORD;
	int r = session_open(&s, c, SESSION_SCOPED);

	if (r >= 0)
		r = session_forget_stale(&s);
	if (r >= 0)
		*guard = write_guard(c);
	if (r >= 0 && (r = build_plan(c, p, true)) < 0)
		stop = STOP_LIST;
	if (r >= 0)
		r = reshape(c, p, &s, &batched, &stop);
	if (r >= 0)
		r = record_originals(&s, p);
	for (size_t i = 0; i < p->n; i++) {
		if (!wants_write(&p->v[i]) || (p->v[i].result && reshaping(&p->v[i])))
			continue;
		if (r < 0)
			not_written(c, p, &p->v[i], r, stop);
		else
			write_item(c, p, &p->v[i], &s, &batched);
	}
	runlog_append(c, p, r, &s.rs);
	session_close(&s);
	return r;
}

int cmd_apply(struct ctx *c)
{
	struct plan p = { 0 };
	int r, guard = 0;

	if (kparam_disabled(c->kernel.cmdline)) {
		r = sysctl_write_guard(&c->root, NULL);
		log_msg(LOG_NOTICE, "earlytune=0 on the kernel command line: applying nothing%s",
			r < 0 ? "" : "; sysctl guard masked for this boot");
		if (r < 0)
			guard_failed(c, r);
		if (c->json)
			print_json(c, &p, "apply", false);
		runlog_append(c, NULL, 0, NULL);
		return 0;
	}
	r = apply_plan(c, &p, &guard);
	if (r < 0 && !p.n)
		log_msg(LOG_ERR, "cannot apply: %s/run/earlytune: %s", c->root.is_host ? "" : c->root.dir,
			strerror(-r));
	report(c, &p, "apply", true);
	r = r < 0 || guard < 0 ? 1 : exit_code(&p);
	plan_free(&p);
	return r;
}
