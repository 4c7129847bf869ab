// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The qdisc items over rtnetlink: apply sends every interface's requests in
 * as few batches as their budget allows, reads the result back in one dump,
 * and rolls an interface left half-done back to the kernel's own root
 * (revert.c deletes earlytune's roots the same way).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/kmod.h"
#include "engine/state.h"
#include "net/internal.h"

/* ---- apply ------------------------------------------------------------------- */

/* An item's requests: an mq root (unless ours is there) and a child per TX
 * queue, or one root. */
static size_t item_reqs(const struct item *it)
{
	return it->ntx <= 1 ? 1 : (size_t)it->ntx + (it->qhandle != MQ_HANDLE);
}

/* Its k-th request, in that order: the root before the children that name it. */
static int put_req(struct nl_batch *b, struct nl *nl, const struct item *it, const struct netconf *nc,
		   size_t k)
{
	if (it->ntx <= 1)
		return nl_put_qdisc(b, ++nl->seq, it->ifindex, TC_H_ROOT, it->qhandle, nc->kind, nc->params,
				    nc->nparams);
	if (it->qhandle != MQ_HANDLE && k-- == 0)
		return nl_put_qdisc(b, ++nl->seq, it->ifindex, TC_H_ROOT, MQ_HANDLE, "mq", NULL, 0);
	return nl_put_qdisc(b, ++nl->seq, it->ifindex, TC_H_MAKE(MQ_HANDLE, (uint32_t)k + 1), 0, nc->kind,
			    nc->params, nc->nparams);
}

static void explain(struct ctx *c, struct item *it, const struct netconf *nc, const struct nl_result *res)
{
	char why[384] = "";

	if (res->err == -EPERM) {
		item_setf(&it->error, "replacing the root qdisc needs CAP_NET_ADMIN: %s", strerror(-res->err));
		return;
	}
	if ((res->err == -ENOENT || res->err == -EINVAL) && !qdisc_is_core(nc->kind) &&
	    strstr(res->msg, "nknown qdisc")) {
		char module[64];

		snprintf(module, sizeof(module), "sch_%s", nc->kind);
		net_module_available(c, module, why, sizeof(why));
		item_setf(&it->error, "%s not available: %s", module, *why ? why : "not in the kernel");
		return;
	}
	item_setf(&it->error, "RTM_NEWQDISC: %s%s%s", strerror(-res->err), *res->msg ? ": " : "", res->msg);
}

void net_flush(struct sender *s)
{
	size_t n = s->b->count;

	/* A failed round (no ACKs, ENOBUFS) marks only its own requests; a
	 * fresh socket leaves its stale ACKs and its state behind. Without
	 * one, every later request fails with the reason, never EBADF. */
	if (s->lost) {
		nl_batch_fail(s->b, s->res + s->nres, s->lost);
	} else if (nl_send_batch(&s->nl, s->b, s->res + s->nres) < 0) {
		nl_close(&s->nl);
		s->lost = nl_open(&s->nl);
	}
	s->nres += n;
}

static const struct nl_result *first_error(const struct nl_result *res, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (res[k].err)
			return &res[k];
	return NULL;
}

/* Queues one item's requests, sending full batches as it goes; an item whose
 * root was refused stops there (its children would only be refused too).
 * Returns how many of its requests went out or wait in the batch. */
static size_t send_item(struct sender *s, struct item *it, const struct netconf *nc, size_t first)
{
	size_t k, n = item_reqs(it);

	for (k = 0; k < n; k++) {
		int r;

		if (nl_batch_full(s->b)) {
			net_flush(s);
			if (first_error(s->res + first, s->nres - first))
				break;
		}
		r = put_req(s->b, &s->nl, it, nc, k);
		if (r < 0) {
			item_setf(&it->error, "cannot build RTM_NEWQDISC: %s", strerror(-r));
			break;
		}
	}
	return k;
}

static bool to_apply(const struct item *it)
{
	return it->kind == ITEM_QDISC && it->action == ACT_CHANGE && !it->result;
}

/* The module each item needs, before the first request that names it. */
static size_t load_modules(struct ctx *c, struct plan *p)
{
	size_t nreq = 0;

	for (size_t i = 0; i < p->n; i++) {
		struct item *it = &p->v[i];
		int m;

		if (!to_apply(it))
			continue;
		nreq += item_reqs(it);
		if (it->module && (m = mods_load(c->mods, it->module, NULL)) < 0) {
			item_setf(&it->error, "cannot load module %s: %s", it->module, strerror(-m));
			it->result = RES_FAILED;
		}
	}
	return nreq;
}

/* What the applied items' interfaces have now: a run about one interface
 * asks for its qdiscs alone, any other takes the dump. */
static int read_back(struct ctx *c, struct plan *p, struct nl *nl, struct qdiscs *qs)
{
	int r = 0;

	if (!one_iface(c))
		return net_dump_qdiscs(nl, qs);
	for (size_t i = 0; r >= 0 && i < p->n; i++)
		if (to_apply(&p->v[i]))
			r = net_get_qdiscs(nl, p->v[i].ifindex, p->v[i].ntx, qs);
	return r;
}

/* ---- an interface left half-done --------------------------------------------- */

/* An item of several requests (an mq root and its children) that failed
 * after the kernel took one of them, or lost its answer: the interface
 * holds part of it. A single request is taken whole or not at all, and an
 * item whose every request was refused is untouched. */
static bool half_done(const struct item *it, const struct nl_result *res, size_t n)
{
	bool taken = false;

	for (size_t k = 0; k < n && !taken; k++)
		taken = !res[k].acked || !res[k].err;
	return item_reqs(it) > 1 && taken;
}

/* Deletes earlytune's root on each interface left half-done, as revert
 * would: the kernel attaches its own default. slot[i]: the DEL's answer in
 * s->res, or -1 when none went out (no root of ours there to take back). */
static int roll_back_send(struct plan *p, struct sender *s, const bool *undo, const struct qdiscs *qs, long *slot)
{
	size_t n = 0;
	struct nl_result *res;

	for (size_t i = 0; i < p->n; i++)
		n += undo[i];
	if (!(res = realloc(s->res, (s->nres + n + 1) * sizeof(*res))))
		return -ENOMEM;
	s->res = res;
	memset(res + s->nres, 0, (n + 1) * sizeof(*res));
	for (size_t i = 0; i < p->n; i++) {
		const struct nl_qdisc *root = undo[i] ? net_root_of(qs, p->v[i].ifindex) : NULL;

		slot[i] = -1;
		if (!root || !own_handle(root->handle))
			continue;
		if (nl_batch_full(s->b))
			net_flush(s);
		slot[i] = (long)(s->nres + s->b->count);
		if (nl_put_qdisc_del(s->b, ++s->nl.seq, p->v[i].ifindex, root->handle) < 0)
			slot[i] = -1;
	}
	net_flush(s);
	return 0;
}

/* What the interfaces rolled back have now: each alone in a run about one
 * interface, else the dump. */
static int roll_back_read(struct ctx *c, struct plan *p, struct sender *s, const long *slot, struct qdiscs *qs)
{
	int r = s->lost;

	qs->n = 0;
	if (r >= 0 && !one_iface(c))
		return net_dump_qdiscs(&s->nl, qs);
	for (size_t i = 0; r >= 0 && i < p->n; i++)
		if (slot[i] >= 0)
			r = net_get_qdiscs(&s->nl, p->v[i].ifindex, p->v[i].ntx, qs);
	return r;
}

/* What became of an item rolled back: the kernel's own root again (what
 * revert gives it), or why not. */
static void rolled_back(struct item *it, const struct nl_result *e, const struct qdiscs *qs, int d)
{
	const struct nl_qdisc *root = d >= 0 ? net_root_of(qs, it->ifindex) : NULL;
	char now[512] = "", was[600] = "";

	if (d >= 0)
		net_describe_qs(qs, it->ifindex, now, sizeof(now));
	if (!e && d < 0)
		item_setf(&it->error, "%s; not rolled back: %s", it->error, strerror(-d));
	else if (!e)
		item_setf(&it->error, "%s; no root of earlytune's left on it to roll back (now '%s')", it->error, now);
	else if (e->err)
		item_setf(&it->error, "%s; not rolled back: RTM_DELQDISC: %s%s%s: revert hands it back", it->error,
			  strerror(-e->err), *e->msg ? ": " : "", e->msg);
	else if (d < 0)
		item_setf(&it->error, "%s; rolled back, but the qdiscs cannot be read again: %s", it->error, strerror(-d));
	else if (root && root->handle != 0)
		item_setf(&it->error, "%s; not rolled back: root is %s %x: after handing it back", it->error, root->kind,
			  root->handle >> 16);
	else {
		/* The kernel's default follows net.core.default_qdisc, which this
		 * run may have changed, and the device's state. */
		if (it->current && strcmp(now, it->current))
			snprintf(was, sizeof(was), " (it had '%s': the kernel's default follows net.core.default_qdisc)",
				 it->current);
		item_setf(&it->error, "%s; rolled back: the kernel's own root again, now '%s'%s", it->error, now, was);
	}
}

/* Each interface left half-done goes back to the kernel's own root. */
static void roll_back(struct ctx *c, struct plan *p, struct sender *s, const bool *undo, struct qdiscs *qs)
{
	long *slot = calloc(p->n + 1, sizeof(*slot));
	int r = slot ? roll_back_send(p, s, undo, qs, slot) : -ENOMEM, d = r < 0 ? r : roll_back_read(c, p, s, slot, qs);

	for (size_t i = 0; i < p->n; i++)
		if (undo[i])
			rolled_back(&p->v[i], r >= 0 && slot[i] >= 0 ? &s->res[slot[i]] : NULL, qs, r < 0 ? r : d);
	free(slot);
}

/* Every item gets its own result: a refused request, a failed round or a
 * dump that cannot be read back fail that item, never another; an item
 * left half-done is rolled back. */
static void apply_results(struct ctx *c, struct plan *p, const struct netconf *nc, struct sender *s,
			  const size_t *first, const size_t *count, int r)
{
	struct qdiscs qs = { 0 };
	int d = r < 0 ? r : s->lost ? s->lost : read_back(c, p, &s->nl, &qs);
	bool *undo = calloc(p->n + 1, sizeof(*undo)), any = false;

	for (size_t i = 0; i < p->n; i++) {
		struct item *it = &p->v[i];
		const struct nl_result *e;
		char now[512];
		bool half;

		if (!to_apply(it))
			continue;
		e = first_error(s->res + first[i], count[i]);
		half = (it->error || e) && half_done(it, s->res + first[i], count[i]);
		if (!it->error && e)
			explain(c, it, nc, e);
		if (!it->error && d < 0)
			item_setf(&it->error, "cannot read the qdiscs back over rtnetlink: %s", strerror(-d));
		if (!it->error) {
			net_describe_qs(&qs, it->ifindex, now, sizeof(now));
			net_describe_params(nc, &qs, it->ifindex, now, sizeof(now));
			if (!net_holds(nc, &qs, it->ifindex, it->ntx))
				item_setf(&it->error, "the kernel did not keep it: reads back '%s'", now);
		}
		if (half && d < 0)
			item_setf(&it->error, "%s; part of it may be in force: revert hands the interface back", it->error);
		if (half && d >= 0 && undo)
			any = undo[i] = true;
		it->result = it->error ? RES_FAILED : RES_APPLIED;
	}
	if (any)
		roll_back(c, p, s, undo, &qs);
	free(undo);
	free(qs.v);
}

/* All qdisc items of the plan in as few sendmsg calls as their budget allows,
 * an ACK for each batch's last (the kernel tells each failure anyway); then
 * one dump to read every result back. */
int net_apply_qdiscs(struct ctx *c, struct plan *p)
{
	struct netconf nc;
	struct sender s = { .nl.fd = -1, .b = calloc(1, sizeof(*s.b)) };
	size_t *first = calloc(p->n + 1, sizeof(*first)), *count = calloc(p->n + 1, sizeof(*count));
	size_t nreq = 0;
	char why[256];
	int r;

	net_load_conf(c, &nc);
	r = !s.b || !first || !count ? -ENOMEM : net_check_params(c, &nc, why, sizeof(why));
	if (r >= 0)
		r = nl_open(&s.nl);
	/* Modules only once the requests can be sent at all. */
	if (r >= 0)
		nreq = load_modules(c, p);
	if (r >= 0 && !(s.res = calloc(nreq + 1, sizeof(*s.res))))
		r = -ENOMEM;
	for (size_t i = 0; r >= 0 && i < p->n; i++) {
		if (!to_apply(&p->v[i]))
			continue;
		first[i] = s.nres + s.b->count;
		count[i] = send_item(&s, &p->v[i], &nc, first[i]);
	}
	if (r >= 0)
		net_flush(&s);
	if (r < 0)
		for (size_t i = 0; i < p->n; i++)
			if (to_apply(&p->v[i]) && !p->v[i].error)
				item_setf(&p->v[i].error, "%s%s", r == -EINVAL ? "" : "rtnetlink: ",
					  r == -EINVAL ? why : strerror(-r));
	apply_results(c, p, &nc, &s, first, count, r);
	nl_close(&s.nl);
	free(s.res);
	free(first);
	free(count);
	free(s.b);
	return r;
}
