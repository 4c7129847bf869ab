// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The net domain's plan: the sysctls (sysctl.c), and the root qdisc of
 * each selected interface. A multiqueue device gets an mq root with one
 * configured child per TX queue; a single-queue device gets the configured
 * qdisc as root. Only kernel-created roots (handle 0) and our own are
 * replaced, unless [net] force = yes. Netlink reaches only the running
 * kernel: under another --root, interfaces come from the tree and their
 * qdisc items are skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/kmod.h"
#include "base/log.h"
#include "engine/session.h"
#include "net/internal.h"



int net_rank(const char *setting)
{
	return !strcmp(setting, "qdisc") ? 1 : 0;
}


/* ---- configuration --------------------------------------------------------- */

void net_load_conf(struct ctx *c, struct netconf *nc)
{
	const struct cfg_entry *f = config_get(&c->cfg, "net", NULL, "force");

	*nc = (struct netconf){ 0 };
	nc->qdisc_entry = config_get(&c->cfg, "net", NULL, "qdisc");
	nc->kind = nc->qdisc_entry ? nc->qdisc_entry->value : NULL;
	nc->interfaces = config_get(&c->cfg, "net", NULL, "interfaces");
	nc->force = f && !strcmp(f->value, "yes");
	nc->netns = net_netns(&c->root);
	if (nc->interfaces) {
		char w[WORD_MAX];
		const char *s = nc->interfaces->value;

		while (next_word(&s, w, sizeof(w)))
			nc->positive_globs |= w[0] != '!';
	}
	for (size_t i = 0; i < c->cfg.n && nc->nparams < MAX_PARAMS; i++) {
		const struct cfg_entry *e = &c->cfg.v[i], *eff;
		bool seen = false;

		if (strcmp(e->section, "net") || strncmp(e->key, "qdisc.", 6))
			continue;
		for (size_t k = 0; k < nc->nparams && !seen; k++)
			seen = !strcmp(nc->params[k].name, e->key + 6);
		eff = seen ? NULL : config_get(&c->cfg, "net", NULL, e->key);
		if (eff)
			nc->params[nc->nparams++] = (struct qparam){ eff->key + 6, 0 };
	}
}

/* Values are checked against the kind only now: the kind may come from
 * another file than the parameters. */
int net_check_params(struct ctx *c, struct netconf *nc, char *why, size_t size)
{
	for (size_t i = 0; i < nc->nparams; i++) {
		char key[64];
		const struct cfg_entry *e;

		snprintf(key, sizeof(key), "qdisc.%s", nc->params[i].name);
		e = config_get(&c->cfg, "net", NULL, key);
		if (qparam_parse(nc->kind, nc->params[i].name, e->value, &nc->params[i].value, why, size) < 0)
			return -EINVAL;
	}
	return 0;
}

/* "mq fq flow_limit=200 maxrate=1gbit": the kind (under mq on a multiqueue
 * device) and each configured parameter, in the form net_describe_params
 * gives the kernel's; a value that does not parse as written. */
void net_desired(struct ctx *c, struct item *it, const struct netconf *nc, bool mq)
{
	char d[512], key[64], val[64], why[256];
	size_t len = (size_t)snprintf(d, sizeof(d), mq ? "mq %s" : "%s", nc->kind);

	for (size_t i = 0; i < nc->nparams && len + 1 < sizeof(d); i++) {
		const struct cfg_entry *e;
		unsigned long long v;

		snprintf(key, sizeof(key), "qdisc.%s", nc->params[i].name);
		e = config_get(&c->cfg, "net", NULL, key);
		if (qparam_parse(nc->kind, nc->params[i].name, e->value, &v, why, sizeof(why)) == 0)
			qparam_format(nc->kind, nc->params[i].name, v, val, sizeof(val));
		else
			snprintf(val, sizeof(val), "%s", e->value);
		snprintf(d + len, sizeof(d) - len, " %s=%s", nc->params[i].name, val);
		len += strlen(d + len);
	}
	item_set(&it->desired, d);
}

/* ---- interfaces -------------------------------------------------------------- */

static bool wanted(struct ctx *c, const char *name, int ifindex)
{
	if (c->ifindex && c->ifindex != ifindex)
		return false;
	return !c->iface || !strcmp(c->iface, name);
}

/* rs: the records, for an earlier version's of this interface, or NULL. */
static struct item *iface_item(struct plan *p, const char *name, int ifindex, const struct netconf *nc,
			       struct records *rs)
{
	char path[80];
	struct item *it;

	net_qdisc_path(rs, nc->netns, ifindex, path, sizeof(path));
	it = plan_add(p, "net", name, "qdisc", path);
	if (!it)
		return NULL;
	it->kind = ITEM_QDISC;
	it->rank = 1;
	it->ifindex = ifindex;
	if (nc->qdisc_entry)
		item_from_entry(it, nc->qdisc_entry);
	return it;
}

/* An interface left alone: a skip saying why (which rule excluded it, or
 * that no qdisc is configured: a run about one interface says so). true
 * when that is the interface's item. */
static bool left_alone(struct ctx *c, struct plan *p, const struct netconf *nc, const char *name, int ifindex,
		       unsigned type, const char *kind)
{
	char why[512];
	struct item *it;

	if (nc->kind && net_selected(c, nc, name, type, kind, why, sizeof(why)))
		return false;
	if (!nc->kind)
		snprintf(why, sizeof(why), "no [net] qdisc is configured, so nothing applies to %s", name);
	it = iface_item(p, name, ifindex, nc, NULL);
	if (it) {
		it->action = ACT_SKIP;
		item_set(&it->reason, why);
	}
	return true;
}

static bool iface_module(struct ctx *c, struct item *it, const struct netconf *nc);
static void iface_owner(struct item *it, const struct netconf *nc, const struct nl_qdisc *root, unsigned ntx,
			struct records *rs, int rs_err);

/* rs: earlytune's records, or NULL when they cannot be read (rs_err). */
static void plan_iface(struct ctx *c, struct plan *p, const struct netconf *nc, const struct nl_link *l,
		       const struct qdiscs *qs, const char *param_error, struct records *rs, int rs_err)
{
	const struct nl_qdisc *root = net_root_of(qs, l->ifindex);
	char cur[512];
	struct item *it;

	if (left_alone(c, p, nc, l->name, l->ifindex, l->type, root ? root->kind : NULL))
		return;
	it = iface_item(p, l->name, l->ifindex, nc, rs);
	if (!it)
		return;
	log_msg(LOG_DEBUG, "%s: selected (ifindex %d, %u TX queues)", l->name, l->ifindex, l->num_tx);
	it->ntx = l->num_tx;
	net_describe_qs(qs, l->ifindex, cur, sizeof(cur));
	net_describe_params(nc, qs, l->ifindex, cur, sizeof(cur));
	item_set(&it->current, cur);
	net_desired(c, it, nc, l->num_tx > 1);
	if (param_error) {
		it->action = ACT_ERROR;
		item_set(&it->error, param_error);
		return;
	}
	if (net_holds(nc, qs, l->ifindex, l->num_tx))
		return; /* keep */
	if (iface_module(c, it, nc))
		iface_owner(it, nc, root, l->num_tx, rs, rs_err);
}

/* A kind that is not built in needs its module: false when it cannot be
 * had (the item is then an unmet skip) or the tree does not show whether
 * it can (an unknown one). */
static bool iface_module(struct ctx *c, struct item *it, const struct netconf *nc)
{
	char module[64], why[256];
	int a;

	if (qdisc_is_core(nc->kind))
		return true;
	snprintf(module, sizeof(module), "sch_%s", nc->kind);
	a = net_module_available(c, module, why, sizeof(why));
	if (a == 3)
		item_unknown(it, "%s", why);
	if (a == 0) {
		it->action = ACT_SKIP;
		it->unmet = true;
		item_setf(&it->reason, "%s not available: %s", module, why);
	}
	if (a == 0 || a == 3)
		return false;
	if (a == 2)
		item_set(&it->module, module);
	return true;
}

/* Whose root is there decides: the kernel's (handle 0) and ours are
 * replaced, someone else's only with [net] force = yes. */
static void iface_owner(struct item *it, const struct netconf *nc, const struct nl_qdisc *root, unsigned ntx,
			struct records *rs, int rs_err)
{
	if (root && root->handle == MQ_HANDLE && ntx > 1)
		it->qhandle = MQ_HANDLE; /* our mq: only its children change */
	else if (ntx <= 1)
		it->qhandle = root && root->handle == ROOT_A ? ROOT_B : ROOT_A;
	if (root && root->handle != 0 && !own_handle(root->handle) && !nc->force && !rs) {
		/* Whether it was ours before decides skip or drift: unknown. */
		it->action = ACT_ERROR;
		item_setf(&it->error, "root qdisc %s %x: is someone else's, and earlytune's records cannot be read: %s",
			  root->kind, root->handle >> 16, strerror(-rs_err));
		return;
	}
	if (root && root->handle != 0 && !own_handle(root->handle) && !nc->force) {
		it->action = ACT_SKIP;
		/* Drift only where it was ours before: a record says so. */
		it->foreign = state_find(rs, it->path) != NULL;
		item_setf(&it->reason, "root qdisc %s %x: was set by someone else; [net] force = yes replaces it",
			  root->kind, root->handle >> 16);
		return;
	}
	it->action = ACT_CHANGE;
}

/* The ARPHRD_* type of a tree's interface: 0 when absent or not a number,
 * -errno when it cannot be read. */
static int iface_type(struct ctx *c, const char *name, unsigned *type)
{
	char rel[PATH_MAX];
	unsigned long long v;
	int r = pathf(rel, sizeof(rel), "sys/class/net/%s/type", name);

	if (r == 0)
		r = root_read_u64(&c->root, rel, &v);
	if (r == 0 && v <= UINT_MAX)
		*type = (unsigned)v;
	return r == -ENOENT || r == -EINVAL ? 0 : r;
}

/* sys/class/net/NAME/queues/tx-*: the interface's TX queues. */
static int tx_queues(struct ctx *c, const char *name)
{
	char rel[PATH_MAX];

	return pathf(rel, sizeof(rel), "sys/class/net/%s/queues", name) < 0 ? 0 : root_match(&c->root, rel, "tx-*", NULL, NULL);
}

static void tree_iface(struct ctx *c, struct plan *p, const struct netconf *nc, const char *name)
{
	unsigned type = 0;
	int rt = iface_type(c, name, &type), ri = net_ifindex_of(&c->root, name);
	int ifindex = ri > 0 ? ri : 0;
	struct item *it;

	if (rt >= 0 && ri >= 0 ? !wanted(c, name, ifindex) : c->iface && strcmp(c->iface, name))
		return;
	if (rt >= 0 && ri >= 0 && left_alone(c, p, nc, name, ifindex, type, NULL))
		return;
	it = iface_item(p, name, ifindex, nc, NULL);
	if (!it)
		return;
	if (nc->kind)
		net_desired(c, it, nc, false);
	if (rt < 0 || ri < 0) {
		/* Unreadable is not "not Ethernet": whether it is selected is unknown. */
		it->action = ACT_ERROR;
		item_setf(&it->error, "cannot read sys/class/net/%s/%s: %s", name, rt < 0 ? "type" : "ifindex",
			  strerror(-(rt < 0 ? rt : ri)));
		return;
	}
	it->action = ACT_SKIP;
	if (c->root.boot)
		item_setf(&it->reason, "an image's first boot: set through netlink when %s is up (%d TX queue%s), "
			  "not known before", name, tx_queues(c, name), tx_queues(c, name) == 1 ? "" : "s");
	else
		item_setf(&it->reason, "netlink reaches only the running kernel, not --root %s", c->root.dir);
}

/* A run about one interface that names none is an error, as a --device
 * that names no disk. */
static void unknown_iface(struct ctx *c, struct plan *p)
{
	char name[32], where[PATH_MAX + 32] = "";
	struct item *it;

	snprintf(name, sizeof(name), "%s", c->iface ? c->iface : "?");
	it = plan_add(p, "net", name, "qdisc", "-");
	if (!it)
		return;
	it->action = ACT_ERROR;
	if (!c->root.is_host)
		snprintf(where, sizeof(where), " in %s/sys/class/net", c->root.dir);
	if (c->iface)
		item_setf(&it->error, "no interface named '%s'%s", c->iface, where);
	else
		item_setf(&it->error, "no interface with index %d%s", c->ifindex, where);
}

struct names {
	char **v;
	size_t n, cap;
	int err;
};

/* The room doubles: a realloc an interface moved the list every time. */
static void add_name(const char *rel, void *data)
{
	struct names *ns = data;
	size_t cap = ns->n < ns->cap ? ns->cap : ns->cap ? 2 * ns->cap : 8;
	char **nv = ns->err ? NULL : cap == ns->cap ? ns->v : realloc(ns->v, cap * sizeof(*nv));
	char *name = nv ? strdup(strrchr(rel, '/') + 1) : NULL;

	if (nv) {
		ns->v = nv;
		ns->cap = cap;
	}
	if (!name && !ns->err)
		ns->err = -ENOMEM;
	if (name)
		ns->v[ns->n++] = name;
}

static int cmp_name(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* Interfaces of a tree that is not the running system: listed (in name
 * order, as disks are), never touched. */
static void plan_tree_ifaces(struct ctx *c, struct plan *p, const struct netconf *nc)
{
	struct names ns = { 0 };
	int r = root_list(&c->root, "sys/class/net", "*", add_name, &ns);
	size_t before = p->n;

	if (r >= 0 && ns.err)
		r = ns.err;
	if (r < 0 && r != -ENOENT) {
		struct item *it = plan_add(p, "net", "sys/class/net", "qdisc", "-");

		if (it) {
			it->action = ACT_ERROR;
			item_setf(&it->error, "cannot list sys/class/net: %s", strerror(-r));
		}
	}
	if (ns.n)
		qsort(ns.v, ns.n, sizeof(*ns.v), cmp_name);
	for (size_t i = 0; i < ns.n; i++) {
		if (r >= 0 && net_is_iface_entry(c, ns.v[i]))
			tree_iface(c, p, nc, ns.v[i]);
		free(ns.v[i]);
	}
	free(ns.v);
	if (one_iface(c) && p->n == before)
		unknown_iface(c, p);
}

/* A run about one interface asks for it alone: a udev run costs the same
 * on a host with a thousand interfaces. A name no interface can have is
 * none (the kernel would refuse to look it up). */
static int read_ifaces(const struct ctx *c, struct nl *nl, struct links *ls, struct qdiscs *qs)
{
	int r;

	if (!one_iface(c))
		return net_dump_all(nl, ls, qs);
	if (!c->ifindex && strlen(c->iface) >= IFNAMSIZ)
		return 0;
	r = nl_open(nl);
	return r < 0 ? r : net_get_iface(nl, c->ifindex, c->iface, ls, qs);
}

static void plan_ifaces(struct ctx *c, struct plan *p, struct netconf *nc)
{
	struct links ls = { 0 };
	struct qdiscs qs = { 0 };
	struct session peek;
	struct records *rs;
	struct nl nl = { .fd = -1 };
	char why[256], err[320] = "";
	size_t before = p->n;
	int r, rs_err = 0;

	if (!c->root.is_host) {
		plan_tree_ifaces(c, p, nc);
		return;
	}
	if (nc->kind && net_check_params(c, nc, why, sizeof(why)) < 0)
		snprintf(err, sizeof(err), "%s", why);
	r = read_ifaces(c, &nl, &ls, &qs);
	nl_close(&nl);
	/* Which roots were ours: apply holds the records already; plan and
	 * verify read them without the lock. */
	rs = session_records(c, &peek, &rs_err);
	if (r < 0) {
		struct item *it = plan_add(p, "net", "rtnetlink", "qdisc", "-");

		if (it) {
			it->action = ACT_ERROR;
			item_setf(&it->error, "cannot list interfaces and qdiscs over rtnetlink: %s", strerror(-r));
		}
	}
	for (size_t i = 0; r >= 0 && i < ls.n; i++)
		if (wanted(c, ls.v[i].name, ls.v[i].ifindex))
			plan_iface(c, p, nc, &ls.v[i], &qs, *err ? err : NULL,
				   rs, rs_err);
	if (r >= 0 && one_iface(c) && p->n == before)
		unknown_iface(c, p);
	session_close(&peek);
	free(ls.v);
	free(qs.v);
}

int net_plan(struct ctx *c, struct plan *p)
{
	struct netconf nc;

	net_load_conf(c, &nc);
	if (!one_iface(c))
		net_plan_sysctls(c, p, &nc);
	if (nc.kind || one_iface(c))
		plan_ifaces(c, p, &nc);
	return 0;
}
