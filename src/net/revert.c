// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Revert of the qdisc items: deleting earlytune's root hands an interface
 * back to the kernel, which attaches its default — the state apply found.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "net/internal.h"

/* What to do with one record: -1 nothing (the kernel's root already, or the
 * interface is gone), 0 hand our root back, or an error set on the item. */
static int revert_one(struct item *it, const struct qdiscs *qs, const struct links *ls,
		      const struct nl_qdisc **root)
{
	char cur[128];
	bool present = false;

	it->ifindex = net_record_ifindex(it->path);
	if (!it->ifindex) {
		item_setf(&it->error, "record '%s' names no interface index", it->path);
		return -EINVAL;
	}
	for (size_t k = 0; k < ls->n && !present; k++)
		present = ls->v[k].ifindex == it->ifindex;
	*root = net_root_of(qs, it->ifindex);
	net_describe_qs(qs, it->ifindex, cur, sizeof(cur));
	item_set(&it->current, present ? cur : "gone");
	if (!present || !*root || (*root)->handle == 0)
		return -1; /* nothing of ours left on it */
	if (!own_handle((*root)->handle)) {
		/* Someone replaced ours since: theirs stays. */
		it->action = ACT_SKIP;
		item_setf(&it->reason, "root is now %s %x:, not earlytune's: left alone", (*root)->kind,
			  (*root)->handle >> 16);
		return -1;
	}
	return 0;
}

/* After handing back: success is the kernel's own root again; which one it
 * picks depends on the device being up (noop while down). */
static void revert_check(struct item *it, const struct qdiscs *qs, const char *value)
{
	const struct nl_qdisc *root = net_root_of(qs, it->ifindex);
	char now[128], want[64];

	net_describe_qs(qs, it->ifindex, now, sizeof(now));
	snprintf(want, sizeof(want), "%s", value);
	want[strcspn(want, " ")] = '\0';
	if (root && root->handle != 0)
		item_setf(&it->error, "root is still '%s' %x: after handing it back", now, root->handle >> 16);
	else if (strncmp(now, want, strlen(want)))
		item_setf(&it->reason, "the kernel's default is now %s (recorded %s: the device changed state since)",
			  now, value);
}

/* The links and qdiscs of the records' interfaces: a run about one
 * interface asks for each alone, any other takes the dumps. */
static int read_records(struct ctx *c, struct nl *nl, struct item **items, size_t n, struct links *ls,
			struct qdiscs *qs)
{
	int r;

	if (!one_iface(c))
		return net_dump_all(nl, ls, qs);
	r = nl_open(nl);
	for (size_t i = 0; r >= 0 && i < n; i++) {
		int ifindex = net_record_ifindex(items[i]->path);
		bool seen = false;

		for (size_t k = 0; k < ls->n && !seen; k++)
			seen = ls->v[k].ifindex == ifindex;
		if (ifindex && !seen)
			r = net_get_iface(nl, ifindex, NULL, ls, qs);
	}
	return r;
}

/* After handing back, the qdiscs again: the links stay as read. */
static int reread_records(struct ctx *c, struct nl *nl, const struct links *ls, struct qdiscs *qs)
{
	int r = 0;

	if (!one_iface(c))
		return net_dump_qdiscs(nl, qs);
	for (size_t k = 0; r >= 0 && k < ls->n; k++)
		r = net_get_qdiscs(nl, ls->v[k].ifindex, ls->v[k].num_tx, qs);
	return r;
}

/* Deleting our root hands the device back to the kernel, which attaches its
 * default (handle 0, the default qdisc, mq on multiqueue) — the state we found.
 * Each item gets its own result; only -ENOMEM and -EXDEV (not the running
 * system) fail them all. */
int net_revert_qdiscs(struct ctx *c, struct item **items, const char **values, size_t n)
{
	struct sender s = { .nl.fd = -1, .b = calloc(1, sizeof(*s.b)), .res = calloc(n + 1, sizeof(*s.res)) };
	struct qdiscs qs = { 0 };
	struct links ls = { 0 };
	long *slot = calloc(n + 1, sizeof(*slot));
	int r = !s.b || !s.res || !slot ? -ENOMEM : 0, d = 0;

	if (r >= 0 && !c->root.is_host)
		r = -EXDEV;
	if (r >= 0)
		d = read_records(c, &s.nl, items, n, &ls, &qs);
	for (size_t i = 0; r >= 0 && i < n; i++) {
		const struct nl_qdisc *root = NULL;

		slot[i] = -1;
		if (d < 0 || revert_one(items[i], &qs, &ls, &root) < 0)
			continue;
		if (nl_batch_full(s.b))
			net_flush(&s);
		slot[i] = (long)(s.nres + s.b->count);
		if (nl_put_qdisc_del(s.b, ++s.nl.seq, items[i]->ifindex, root->handle) < 0)
			slot[i] = -1;
	}
	if (r >= 0 && d >= 0) {
		net_flush(&s);
		qs.n = 0;
		d = s.lost ? s.lost : reread_records(c, &s.nl, &ls, &qs);
	}
	for (size_t i = 0; r >= 0 && i < n; i++) {
		struct item *it = items[i];
		const struct nl_result *e = slot[i] >= 0 ? &s.res[slot[i]] : NULL;

		if (it->action == ACT_SKIP)
			continue;
		if (it->error)
			; /* the record itself */
		else if (d < 0)
			item_setf(&it->error, "cannot list the qdiscs over rtnetlink: %s", strerror(-d));
		else if (e && e->err)
			item_setf(&it->error, "RTM_DELQDISC: %s%s%s", strerror(-e->err), *e->msg ? ": " : "", e->msg);
		else if (e)
			revert_check(it, &qs, values[i]);
		it->action = e || it->error ? ACT_CHANGE : ACT_KEEP;
		it->result = it->error ? RES_FAILED : e ? RES_APPLIED : RES_NONE;
	}
	nl_close(&s.nl);
	free(qs.v);
	free(ls.v);
	free(s.b);
	free(s.res);
	free(slot);
	return r;
}
