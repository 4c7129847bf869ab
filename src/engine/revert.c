// SPDX-License-Identifier: LGPL-2.1-or-later
/* revert: the recorded originals go back, in apply's order (a batch
 * domain orders its own), then are forgotten; forget: udev's remove drops
 * a device's records. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "engine/runlog.h"
#include "engine/session.h"
#include "engine/sysctl.h"

/* A record of a domain this earlytune does not know (a newer version wrote
 * it) is shown as an error and kept, whenever the whole system is reverted. */
static bool selected(const struct ctx *c, const struct domain *d, const struct record *x,
		     int iface_ifindex)
{
	if (!d)
		return c->only == domains_all() && !c->ndevices && !c->ifindex && !c->iface;
	return (c->only & d->bit) && session_owns(c, d, x) && session_in_scope(c, d, x, iface_ifindex);
}

/* The index --iface has now, from the domain that knows interfaces, or 0. */
static int iface_now(const struct ctx *c)
{
	for (size_t i = 0; c->iface && i < ndomains; i++)
		if (domains[i].iface_index)
			return domains[i].iface_index(&c->root, c->iface);
	return 0;
}

/* A selected record: its index in the records, its domain, and whether it
 * goes back in its domain's batch. */
struct pick {
	size_t i;
	const struct domain *d;
	bool batch;
};

/* Same order as apply: scheduler first (it resets nr_requests), read-ahead
 * last (6.11+ re-raises it when other queue attributes are written), the
 * default qdisc before the interfaces that take it. */
static const struct records *sorting; /* the records cmp_pick's picks index */
static int cmp_pick(const void *a, const void *b)
{
	const struct pick *p = a, *q = b;
	const struct record *x = &sorting->v[p->i], *y = &sorting->v[q->i];
	int d = strcmp(x->domain, y->domain);

	if (!d && p->d && p->d->rank)
		d = p->d->rank(x->setting) - p->d->rank(y->setting);
	if (!d)
		d = strverscmp(x->target, y->target);
	return d ? d : (p->i > q->i) - (p->i < q->i);
}

static size_t pick_records(const struct ctx *c, const struct records *rs, struct pick *v)
{
	int iface_ifindex = iface_now(c);
	size_t n = 0;

	for (size_t i = 0; i < rs->n; i++) {
		const struct domain *d = domain_find(rs->v[i].domain);

		if (selected(c, d, &rs->v[i], iface_ifindex))
			v[n++] = (struct pick){ .i = i, .d = d };
	}
	sorting = rs;
	if (n)
		qsort(v, n, sizeof(*v), cmp_pick);
	return n;
}

static bool restore(struct ctx *c, const struct domain *d, const struct record *x, const char *file,
		    struct item *it)
{
	char raw[256];
	int got, r = root_read(&c->root, file, raw, sizeof(raw));
	const char *gone = r == -ENOENT && d->gone ? d->gone(x->setting) : NULL;

	it->selector = r > 0 && strchr(raw, '[');
	if (gone) {
		it->action = ACT_SKIP;
		item_set(&it->reason, gone);
		return true;
	}
	if (r >= 0) {
		char active[128];

		item_set(&it->current, it->selector ? selector_current(raw, active, sizeof(active)) : raw);
		if (item_compare_value(it, raw) == 0) {
			it->action = ACT_KEEP;
			return true;
		}
	}
	it->action = ACT_CHANGE;
	r = root_write_readback(&c->root, file, x->value, raw, sizeof(raw), &got);
	if (r >= 0)
		r = got;
	if (r < 0) {
		item_fail(it, r, "restoring '%s'", x->value);
		return false;
	}
	it->selector = it->selector || strchr(raw, '[');
	if (item_compare_value(it, raw)) {
		it->result = RES_FAILED;
		item_setf(&it->error, "kernel ignored the write: wrote '%s', reads back '%s'", x->value, raw);
		return false;
	}
	it->result = RES_APPLIED;
	return true;
}

/* Whether record x still describes the device there now. A stale one is
 * dropped and the revert says so (a skip, not a failure): its value belongs
 * to a device that left, and another that has its name now has its own. A
 * check that fails keeps the record and fails the item. */
static bool still_its_device(struct ctx *c, struct records *rs, const struct record *x, struct item *it)
{
	char why[256];
	int r = state_stale(rs, &c->root, x, why, sizeof(why));

	if (r < 0)
		item_fail(it, r, "cannot tell whether %s is still the device recorded", x->target);
	else if (r > 0) {
		it->action = ACT_SKIP;
		item_setf(&it->reason, "record dropped, not written: %s", why);
	}
	return r == 0;
}

/* The file record x goes back to: its path, or the one its domain's key
 * names now (the item then shows that file). */
static bool file_of(struct ctx *c, const struct domain *d, const struct record *x, struct item *it, char *file,
		    size_t size)
{
	int r = d->record_file ? d->record_file(&c->root, x, file, size) : 0;

	if (r < 0)
		item_fail(it, r, "cannot find the file of the record %s", x->path);
	else if (r == 0)
		fmt(file, size, "%s", x->path);
	else
		item_set(&it->path, file);
	return r >= 0;
}

/* One record: restored now, stale and dropped, left for its domain's batch,
 * or (unknown domain) an error. done: it may be forgotten. */
static int revert_one(struct ctx *c, struct records *rs, struct plan *p, struct pick *k, bool *done)
{
	const struct record *x = &rs->v[k->i];
	struct item *it = plan_add(p, k->d ? k->d->name : "?", x->target, x->setting, x->path);
	char file[PATH_MAX];

	progress();
	if (!it)
		return -ENOMEM;
	item_set(&it->desired, x->value);
	if (!k->d) {
		it->action = ACT_ERROR;
		item_setf(&it->error, "recorded under domain '%s', which this earlytune does not know: kept, not written",
			  x->domain);
		return 0;
	}
	item_set(&it->reason, "original value recorded before earlytune changed it");
	if (!still_its_device(c, rs, x, it))
		done[k->i] = it->action == ACT_SKIP; /* stale: forgotten, not written */
	else if (k->d->batched && k->d->batched(x->setting))
		k->batch = true; /* handed back below, with the others of its domain */
	else if (file_of(c, k->d, x, it, file, sizeof(file)))
		done[k->i] = restore(c, k->d, x, file, it);
	return 0;
}

/* The batched items of domain d (in the order of v, the plan's) go back
 * together, after the files they may depend on (the default qdisc). */
static int revert_batch(struct ctx *c, const struct domain *d, struct records *rs, struct plan *p,
			const struct pick *v, size_t n, bool *done)
{
	struct item **items = calloc(n + 1, sizeof(*items));
	const char **values = calloc(n + 1, sizeof(*values));
	size_t *which = calloc(n + 1, sizeof(*which)), m = 0;
	int r = !items || !values || !which ? -ENOMEM : 0;

	for (size_t k = 0; r >= 0 && k < n; k++) {
		if (!v[k].batch || v[k].d != d)
			continue;
		items[m] = &p->v[k];
		values[m] = rs->v[v[k].i].value;
		which[m++] = v[k].i;
	}
	if (r >= 0 && m)
		r = d->revert_batch(c, items, values, m);
	for (size_t k = 0; r >= 0 && k < m; k++)
		done[which[k]] = items[k]->result != RES_FAILED;
	free(items);
	free(values);
	free(which);
	return r;
}

static int revert_records(struct ctx *c, struct records *rs, struct plan *p)
{
	struct pick *v = calloc(rs->n + 1, sizeof(*v));
	bool *done = calloc(rs->n + 1, sizeof(*done));
	size_t n = v && done ? pick_records(c, rs, v) : 0;
	int r = v && done ? 0 : -ENOMEM;

	for (size_t k = 0; r >= 0 && k < n; k++)
		r = revert_one(c, rs, p, &v[k], done);
	for (size_t i = 0; r >= 0 && i < ndomains; i++)
		if (domains[i].revert_batch)
			r = revert_batch(c, &domains[i], rs, p, v, n, done);
	if (done)
		state_forget(rs, done);
	free(v);
	free(done);
	return r;
}

/* An empty table would say nothing: say why there is nothing. */
static void nothing_to_revert(const struct ctx *c)
{
	char buf[32];
	const char *what = scope_name(c, c->ndevices == 1, buf, sizeof(buf));

	printf("revert: nothing to revert%s%s: no originals recorded in %s/run/earlytune (earlytune changed nothing "
	       "here since boot, or it was reverted)\n", what ? " for " : "", what ? what : "",
	       c->root.is_host ? "" : c->root.dir);
}

int cmd_revert(struct ctx *c)
{
	struct session s;
	struct plan p = { 0 };
	int r = session_open(&s, c, SESSION_ALL), g = 0;

	if (r >= 0)
		r = revert_records(c, &s.rs, &p);
	if (r >= 0 && sysctl_guard_scope(c) && (g = sysctl_remove_guard(&c->root)) < 0)
		log_msg(LOG_ERR, "cannot remove the sysctl guard %s/" SYSCTL_GUARD_PATH ": %s",
			c->root.is_host ? "" : c->root.dir, strerror(-g));
	if (r >= 0) /* about one device: its override only */
		r = s.rs.whole ? state_save(&s.rs, &c->root) : session_commit(&s);
	if (r < 0)
		log_msg(LOG_ERR, "cannot revert: %s/run/earlytune: %s", c->root.is_host ? "" : c->root.dir,
			strerror(-r));
	runlog_add(c, "revert", &p, r, &s.rs);
	session_close(&s);
	if (!p.n && r >= 0 && !c->json && !c->boot)
		nothing_to_revert(c);
	else
		report(c, &p, "revert", true);
	r = r < 0 || g < 0 ? 1 : exit_code(&p);
	plan_free(&p);
	return r;
}

/* udev's remove: the records of a disk or interface that left go with it, so
 * that a device which takes its name later records its own originals. The
 * cheap path: no configuration, no plan, no sysfs (the device is gone).
 * --diskseq keeps the records of a newer disk of that name. */
static bool forgettable(const struct ctx *c, const struct record *x)
{
	const struct domain *d = domain_find(x->domain);
	unsigned long long seq;

	if (!session_owns(c, d, x) || !session_in_scope(c, d, x, 0))
		return false;
	return !c->diskseq || strncmp(x->identity, "diskseq:", 8) ||
	       (parse_u64(x->identity + 8, &seq) == 0 && seq == c->diskseq);
}

int cmd_forget(struct ctx *c)
{
	struct session s;
	bool *drop = NULL;
	char buf[32];
	const char *what = scope_name(c, true, buf, sizeof(buf));
	size_t n = 0;
	int r;

	if (!what) {
		log_msg(LOG_ERR, "forget: name the device (--device NAME) or interface (--ifindex N, --iface NAME)");
		return 2;
	}
	r = session_open(&s, c, SESSION_SCOPED);
	if (r >= 0 && !(drop = calloc(s.rs.n + 1, sizeof(*drop))))
		r = -ENOMEM;
	for (size_t i = 0; r >= 0 && i < s.rs.n; i++)
		n += drop[i] = forgettable(c, &s.rs.v[i]);
	if (r >= 0) {
		state_forget(&s.rs, drop);
		r = session_commit(&s);
	}
	if (r < 0)
		log_msg(LOG_ERR, "cannot forget: %s/run/earlytune: %s", c->root.is_host ? "" : c->root.dir,
			strerror(-r));
	else if (n || !c->boot)
		log_msg(LOG_NOTICE, "forget %s: %zu record%s dropped", what, n, n == 1 ? "" : "s");
	if (r >= 0 && c->json)
		forget_json(c, what, n);
	free(drop);
	session_close(&s);
	return r < 0 ? 1 : 0;
}
