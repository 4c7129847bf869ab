// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What the kernel has: its links and qdiscs dumped over rtnetlink (sorted by
 * interface, so each costs a binary search), or one interface's asked for
 * one by one (a udev run must not cost more on a host with more
 * interfaces); described as "mq fq", and whether they hold what [net]
 * asks for; an interface's index from sysfs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/netif.h"
#include "net/internal.h"

/* Kinds every kernel has (sch_generic, sch_fifo, sch_mq are not modules). */
static const char *const core_kinds[] = { "pfifo", "bfifo", "pfifo_head_drop", "pfifo_fast",
					  "mq", "noqueue", NULL };

bool qdisc_is_core(const char *kind)
{
	for (const char *const *k = core_kinds; *k; k++)
		if (!strcmp(*k, kind))
			return true;
	return false;
}

/* A message the parser refuses fails the dump: what it held is unknown,
 * and an interface or qdisc missing from the list would read as absent. */
static int add_qdisc(const struct nlmsghdr *h, void *data)
{
	struct qdiscs *qs = data;
	int r;

	if (array_grow(&qs->v, &qs->cap, qs->n, sizeof(*qs->v), 64) < 0)
		return -ENOMEM;
	r = nl_parse_qdisc(h, &qs->v[qs->n]);
	if (r >= 0)
		qs->n++;
	return r;
}

static int add_link(const struct nlmsghdr *h, void *data)
{
	struct links *ls = data;
	int r;

	if (array_grow(&ls->v, &ls->cap, ls->n, sizeof(*ls->v), 64) < 0)
		return -ENOMEM;
	r = nl_parse_link(h, &ls->v[ls->n]);
	if (r >= 0)
		ls->n++;
	return r;
}

static int cmp_ifindex(const void *a, const void *b)
{
	const struct nl_qdisc *x = a, *y = b;

	return (x->ifindex > y->ifindex) - (x->ifindex < y->ifindex);
}

/* Sorted by interface once, so each interface costs a binary search. */
static void index_qdiscs(struct qdiscs *qs)
{
	if (qs->n)
		qsort(qs->v, qs->n, sizeof(*qs->v), cmp_ifindex);
}

/* The qdiscs of one interface: [*lo, *hi). */
static void qrange(const struct qdiscs *qs, int ifindex, size_t *lo, size_t *hi)
{
	size_t a = 0, b = qs->n;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (qs->v[m].ifindex < ifindex)
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	for (b = a; b < qs->n && qs->v[b].ifindex == ifindex; b++)
		;
	*hi = b;
}

const struct nl_qdisc *net_root_of(const struct qdiscs *qs, int ifindex)
{
	size_t lo, hi;

	qrange(qs, ifindex, &lo, &hi);
	for (size_t i = lo; i < hi; i++)
		if (qs->v[i].parent == TC_H_ROOT)
			return &qs->v[i];
	return NULL;
}

/* Is kind one of the comma-separated words of list? */
static bool comma_listed(const char *list, const char *kind)
{
	size_t n = strlen(kind);

	for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, kind, n) && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

/* "fq", "mq fq", "mq fq,pfifo_fast", or "noop" for a device never brought up.
 * The children's list is only what this call wrote: out may hold anything. */
void net_describe(const struct nl_qdisc *v, size_t n, int ifindex, char *out, size_t size)
{
	const struct qdiscs qs = { (struct nl_qdisc *)v, n, n };
	const struct nl_qdisc *root = net_root_of(&qs, ifindex);
	size_t len, lo, hi, start;

	if (!size)
		return;
	snprintf(out, size, "%s", root ? root->kind : "noop");
	if (!root || strcmp(root->kind, "mq"))
		return;
	len = strlen(out);
	start = len + 1;
	qrange(&qs, ifindex, &lo, &hi);
	for (size_t i = lo; i < hi && len + 1 < size; i++) {
		const struct nl_qdisc *q = &v[i];

		if (q->parent == TC_H_ROOT || (uint32_t)TC_H_MAJ(q->parent) != root->handle ||
		    (len > start && comma_listed(out + start, q->kind)))
			continue;
		snprintf(out + len, size - len, "%s%s", len > start ? "," : " ", q->kind);
		len += strlen(out + len);
	}
}

void net_describe_qs(const struct qdiscs *qs, int ifindex, char *out, size_t size)
{
	net_describe(qs->v, qs->n, ifindex, out, size);
}

/* " flow_limit=200 maxrate=1gbit": the configured parameters as the
 * interface's first qdisc of the configured kind has them (appended to out);
 * one it does not report is left out. */
void net_describe_params(const struct netconf *nc, const struct qdiscs *qs, int ifindex, char *out, size_t size)
{
	const struct nl_qdisc *root = net_root_of(qs, ifindex), *q = NULL;
	size_t lo, hi, len = strlen(out);

	qrange(qs, ifindex, &lo, &hi);
	for (size_t i = lo; i < hi && !q; i++)
		if (!strcmp(qs->v[i].kind, nc->kind) &&
		    (qs->v[i].parent == TC_H_ROOT || (root && (uint32_t)TC_H_MAJ(qs->v[i].parent) == root->handle)))
			q = &qs->v[i];
	for (size_t i = 0; q && i < nc->nparams && len + 1 < size; i++) {
		unsigned long long v;
		char val[64];

		if (qparam_get(q->kind, q->opts, q->optlen, nc->params[i].name, &v) < 0)
			continue;
		qparam_format(q->kind, nc->params[i].name, v, val, sizeof(val));
		snprintf(out + len, size - len, " %s=%s", nc->params[i].name, val);
		len += strlen(out + len);
	}
}

static bool params_hold(const struct netconf *nc, const struct nl_qdisc *q)
{
	for (size_t i = 0; i < nc->nparams; i++) {
		unsigned long long v;

		if (qparam_get(q->kind, q->opts, q->optlen, nc->params[i].name, &v) < 0 ||
		    v != qparam_stored(q->kind, nc->params[i].name, nc->params[i].value))
			return false;
	}
	return true;
}

/* Does the interface have what the configuration asks for? */
bool net_holds(const struct netconf *nc, const struct qdiscs *qs, int ifindex, unsigned ntx)
{
	const struct nl_qdisc *root = net_root_of(qs, ifindex);
	unsigned children = 0;
	size_t lo, hi;

	if (!root)
		return false;
	if (ntx <= 1)
		return !strcmp(root->kind, nc->kind) && params_hold(nc, root);
	if (strcmp(root->kind, "mq"))
		return false;
	qrange(qs, ifindex, &lo, &hi);
	for (size_t i = lo; i < hi; i++) {
		const struct nl_qdisc *q = &qs->v[i];

		if (q->parent == TC_H_ROOT || (uint32_t)TC_H_MAJ(q->parent) != root->handle)
			continue;
		if (strcmp(q->kind, nc->kind) || !params_hold(nc, q))
			return false;
		children++;
	}
	return children == ntx;
}

/* The index of interface name, from sysfs: > 0; 0 when it has none (no
 * such interface, an entry that is a file such as bonding_masters, or the
 * file holds no index); -errno when it cannot be read. */
int net_ifindex_of(const struct root *r, const char *name)
{
	return netif_index_of(r, name);
}

/* A dump the kernel marks interrupted (the set changed meanwhile) is
 * taken again, a few times: a partial list would read as absent. */
#define DUMP_TRIES 3

static int dump(struct nl *nl, uint16_t type, int (*fn)(const struct nlmsghdr *h, void *data),
		void *data, size_t *n)
{
	int r = -EINTR;

	for (int t = 0; t < DUMP_TRIES && r == -EINTR; t++) {
		*n = 0;
		r = nl_dump(nl, type, fn, data);
	}
	return r;
}

int net_dump_qdiscs(struct nl *nl, struct qdiscs *qs)
{
	int r = dump(nl, RTM_GETQDISC, add_qdisc, qs, &qs->n);

	if (r >= 0)
		index_qdiscs(qs);
	return r;
}

int net_dump_all(struct nl *nl, struct links *ls, struct qdiscs *qs)
{
	int r = nl_open(nl);

	if (r >= 0)
		r = dump(nl, RTM_GETLINK, add_link, ls, &ls->n);
	if (r >= 0)
		r = net_dump_qdiscs(nl, qs);
	return r;
}

/* ---- one interface: get requests, never a dump ------------------------------- */

/* Get requests per sendmsg: every answer and the ACK wait in the receive
 * buffer until read (rmem_default is 208 KiB). */
#define GET_REQS 50

struct got {
	struct links *ls;
	struct qdiscs *qs;
};

static int add_answer(const struct nlmsghdr *h, void *data)
{
	struct got *g = data;

	return h->nlmsg_type == RTM_NEWLINK && g->ls ? add_link(h, g->ls) : add_qdisc(h, g->qs);
}

/* Sends the batch; a request answered with absent (the errno the kernel
 * gives when there is no such interface or qdisc) adds nothing, any other
 * error is the round's. */
static int get_round(struct nl *nl, struct nl_batch *b, struct got *g, int absent)
{
	struct nl_result res[GET_REQS];
	unsigned n = b->count;
	int r = nl_send_gets(nl, b, res, add_answer, g);

	for (unsigned i = 0; r >= 0 && i < n; i++)
		if (res[i].err && res[i].err != absent && res[i].err != -ENODEV)
			r = res[i].err;
	return r;
}

/* The qdisc under each parent handle | 1..ntx: an mq's children, by queue. */
static int get_children(struct nl *nl, struct nl_batch *b, int ifindex, uint32_t handle, unsigned ntx,
			struct qdiscs *qs)
{
	struct got g = { NULL, qs };
	int r = 0;

	for (unsigned k = 1; r >= 0 && k <= ntx; k++) {
		r = nl_put_get(b, ++nl->seq, RTM_GETQDISC, ifindex, NULL, TC_H_MAKE(handle, k));
		if (r >= 0 && (b->count == GET_REQS || k == ntx))
			r = get_round(nl, b, &g, -ENOENT);
	}
	b->len = b->count = 0;
	return r;
}

/* The children of the kernel's own mq (handle 0) answer no get: the kernel
 * finds a parent by its handle, and 0 is none. Only the dump lists them. */
static int dump_one(struct nl *nl, int ifindex, struct qdiscs *qs)
{
	struct qdiscs all = { 0 };
	int r = net_dump_qdiscs(nl, &all);

	for (size_t i = 0; r >= 0 && i < all.n; i++)
		if (all.v[i].ifindex == ifindex && all.v[i].parent != TC_H_ROOT) {
			r = array_grow(&qs->v, &qs->cap, qs->n, sizeof(*qs->v), 64);
			if (r >= 0)
				qs->v[qs->n++] = all.v[i];
		}
	free(all.v);
	return r;
}

static int get_qdiscs(struct nl *nl, struct nl_batch *b, int ifindex, unsigned ntx, struct qdiscs *qs)
{
	struct got g = { NULL, qs };
	size_t had = qs->n;
	uint32_t handle;
	int r = nl_put_get(b, ++nl->seq, RTM_GETQDISC, ifindex, NULL, TC_H_ROOT);

	if (r >= 0)
		r = get_round(nl, b, &g, -ENOENT);
	if (r < 0 || qs->n == had || strcmp(qs->v[had].kind, "mq"))
		return r;
	handle = qs->v[had].handle;
	return handle ? get_children(nl, b, ifindex, handle, ntx, qs) : dump_one(nl, ifindex, qs);
}

/* A batch for get requests, not zeroed: 32 KiB of memset would be most
 * of a udev run's instructions. */
static struct nl_batch *get_batch(void)
{
	struct nl_batch *b = malloc(sizeof(*b));

	if (b)
		b->len = b->count = 0;
	return b;
}

int net_get_qdiscs(struct nl *nl, int ifindex, unsigned ntx, struct qdiscs *qs)
{
	struct nl_batch *b = get_batch();
	int r = b ? get_qdiscs(nl, b, ifindex, ntx, qs) : -ENOMEM;

	free(b);
	index_qdiscs(qs);
	return r;
}

int net_get_iface(struct nl *nl, int ifindex, const char *name, struct links *ls, struct qdiscs *qs)
{
	struct nl_batch *b = get_batch();
	struct got g = { ls, qs };
	size_t had = ls->n;
	int r = b ? nl_put_get(b, ++nl->seq, RTM_GETLINK, ifindex, name, 0) : -ENOMEM;

	if (r >= 0)
		r = get_round(nl, b, &g, -ENODEV);
	if (r >= 0 && ls->n > had)
		r = get_qdiscs(nl, b, ls->v[had].ifindex, ls->v[had].num_tx, qs);
	free(b);
	index_qdiscs(qs);
	return r;
}
