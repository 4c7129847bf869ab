// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The net domain: the congestion-control and default-qdisc sysctls (files,
 * like every other item), and the root qdisc of each selected interface over
 * rtnetlink. A multiqueue device gets an mq root with one configured child
 * per TX queue; a single-queue device gets the configured qdisc as root.
 * Only kernel-created roots (handle 0) and our own are replaced, unless
 * [net] force = yes. Netlink reaches only the running kernel: under another
 * --root, interfaces come from the tree and their qdisc items are skipped.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <net/if_arp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "earlytune.h"
#include "netlink.h"

/* Roots earlytune creates carry these handles, so it knows its own without
 * a record: e7e7: for mq, e7e8:/e7e9: alternately for a single root (a new
 * handle makes the kernel create and graft, whatever the kind before). */
#define MQ_HANDLE 0xe7e70000u
#define ROOT_A 0xe7e80000u
#define ROOT_B 0xe7e90000u

static bool own_handle(uint32_t h)
{
	return h == MQ_HANDLE || h == ROOT_A || h == ROOT_B;
}
#define MAX_PARAMS 16

/* Kinds every kernel has (sch_generic, sch_fifo, sch_mq are not modules). */
static const char *const core_kinds[] = { "pfifo", "bfifo", "pfifo_head_drop", "pfifo_fast",
					  "mq", "noqueue", NULL };

struct qdiscs {
	struct nl_qdisc *v;
	size_t n, cap;
};

struct links {
	struct nl_link *v;
	size_t n, cap;
};

struct netconf {
	const char *kind;
	struct qparam params[MAX_PARAMS];
	size_t nparams;
	const struct cfg_entry *qdisc_entry, *interfaces;
	bool force;
	bool positive_globs; /* interfaces = names some: the default selection is unused */
};

int net_rank(const char *setting)
{
	return !strcmp(setting, "qdisc") ? 1 : 0;
}

bool qdisc_is_core(const char *kind)
{
	for (const char *const *k = core_kinds; *k; k++)
		if (!strcmp(*k, kind))
			return true;
	return false;
}

/* ---- dumps --------------------------------------------------------------- */

static int grow(void **v, size_t *cap, size_t n, size_t size)
{
	void *nv;

	if (n < *cap)
		return 0;
	nv = realloc(*v, (*cap ? *cap * 2 : 64) * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = *cap ? *cap * 2 : 64;
	return 0;
}

static int add_qdisc(const struct nlmsghdr *h, void *data)
{
	struct qdiscs *qs = data;

	if (h->nlmsg_type != RTM_NEWQDISC)
		return 0;
	if (grow((void **)&qs->v, &qs->cap, qs->n, sizeof(*qs->v)) < 0)
		return -ENOMEM;
	if (nl_parse_qdisc(h, &qs->v[qs->n]) == 0)
		qs->n++;
	return 0;
}

static int add_link(const struct nlmsghdr *h, void *data)
{
	struct links *ls = data;

	if (h->nlmsg_type != RTM_NEWLINK)
		return 0;
	if (grow((void **)&ls->v, &ls->cap, ls->n, sizeof(*ls->v)) < 0)
		return -ENOMEM;
	if (nl_parse_link(h, &ls->v[ls->n]) == 0)
		ls->n++;
	return 0;
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

static const struct nl_qdisc *root_of(const struct qdiscs *qs, int ifindex)
{
	size_t lo, hi;

	qrange(qs, ifindex, &lo, &hi);
	for (size_t i = lo; i < hi; i++)
		if (qs->v[i].parent == TC_H_ROOT)
			return &qs->v[i];
	return NULL;
}

/* "fq", "mq fq", "mq fq,pfifo_fast", or "noop" for a device never brought up. */
static void describe(const struct qdiscs *qs, int ifindex, char *out, size_t size)
{
	const struct nl_qdisc *root = root_of(qs, ifindex);
	size_t len, lo, hi;

	if (!root) {
		snprintf(out, size, "noop");
		return;
	}
	snprintf(out, size, "%s", root->kind);
	if (strcmp(root->kind, "mq"))
		return;
	qrange(qs, ifindex, &lo, &hi);
	for (size_t i = lo; i < hi; i++) {
		const struct nl_qdisc *q = &qs->v[i];
		char needle[40];

		if (q->parent == TC_H_ROOT || (uint32_t)TC_H_MAJ(q->parent) != root->handle)
			continue;
		snprintf(needle, sizeof(needle), "%s", q->kind);
		len = strlen(out);
		if (!strstr(out + 3, needle))
			snprintf(out + len, size - len, "%s%s", out[2] ? "," : " ", q->kind);
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
static bool holds(const struct netconf *nc, const struct qdiscs *qs, int ifindex, unsigned ntx)
{
	const struct nl_qdisc *root = root_of(qs, ifindex);
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

/* ---- configuration --------------------------------------------------------- */

static int load_netconf(struct ctx *c, struct netconf *nc)
{
	const struct cfg_entry *f = config_get(&c->cfg, "net", NULL, "force");

	*nc = (struct netconf){ 0 };
	nc->qdisc_entry = config_get(&c->cfg, "net", NULL, "qdisc");
	nc->kind = nc->qdisc_entry ? nc->qdisc_entry->value : NULL;
	nc->interfaces = config_get(&c->cfg, "net", NULL, "interfaces");
	nc->force = f && !strcmp(f->value, "yes");
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
	return 0;
}

/* Values are checked against the kind only now: the kind may come from
 * another file than the parameters. */
static int check_params(struct ctx *c, struct netconf *nc, char *why, size_t size)
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

/* ---- sysctls ----------------------------------------------------------------- */

/* A sysctl.d file that systemd-sysctl applies later would undo this item:
 * name it (verify counts it as drift). */
static void warn_override(struct ctx *c, struct item *it, const char *key, const char *want)
{
	char value[128], file[PATH_MAX];

	if (sysctl_final(&c->root, key, value, sizeof(value), file, sizeof(file)) <= 0 ||
	    !strcmp(value, want))
		return;
	it->foreign = true;
	item_setf(&it->reason, "%s sets %s = %s and systemd-sysctl applies it after earlytune: "
			       "install the guard (earlytune sysctl-conf > /etc/sysctl.d/" SYSCTL_GUARD ") or change that file",
		  file, key, value);
}

static void plan_sysctl(struct ctx *c, struct plan *p, const char *name, const char *path,
			const struct cfg_entry *e, const char *module, bool available)
{
	struct item *it = plan_add(p, "net", "sysctl", name, path);
	char cur[128], why[512] = "";
	int r;

	if (!it)
		return;
	item_from_entry(it, e);
	item_set(&it->desired, e->value);
	r = root_read(&c->root, path, cur, sizeof(cur));
	if (r == -ENOENT) {
		it->action = ACT_SKIP;
		it->unmet = !strstr(name, "default_qdisc"); /* another netns: not applicable */
		item_setf(&it->reason, "no /%s here: %s", path,
			  strstr(name, "default_qdisc") ? "it exists only in the initial network namespace"
							: "the kernel has no TCP/IP sysctls");
		return;
	}
	if (r < 0) {
		it->action = ACT_ERROR;
		item_setf(&it->error, "cannot read /%s: %s", path, strerror(-r));
		return;
	}
	item_set(&it->current, cur);
	warn_override(c, it, name, e->value);
	if (!strcmp(cur, e->value))
		return; /* keep */
	if (!available) {
		int a = mods_available(c->mods, module, why, sizeof(why));

		if (a == 0) {
			it->action = ACT_SKIP;
			it->unmet = true;
			item_setf(&it->reason, "%s not available: %s", e->value, why);
			return;
		}
		if (a == 2)
			item_set(&it->module, module);
		if (a == 3)
			item_setf(&it->reason, "%s [%s]", it->reason ? it->reason : "", why);
	}
	it->action = ACT_CHANGE;
}

/* A congestion control the kernel offers now (loaded or built in). */
bool net_cc_available(struct ctx *c, const char *name)
{
	char avail[512];

	return root_read(&c->root, "proc/sys/net/ipv4/tcp_available_congestion_control", avail,
			 sizeof(avail)) > 0 &&
	       word_listed(avail, name);
}

static void plan_sysctls(struct ctx *c, struct plan *p, const struct netconf *nc)
{
	const struct cfg_entry *cc = config_get(&c->cfg, "net", NULL, "congestion_control");
	char module[64];

	if (cc) {
		snprintf(module, sizeof(module), "tcp_%s", cc->value);
		plan_sysctl(c, p, "net.ipv4.tcp_congestion_control", "proc/sys/net/ipv4/tcp_congestion_control",
			    cc, module, net_cc_available(c, cc->value));
	}
	if (nc->kind) {
		snprintf(module, sizeof(module), "sch_%s", nc->kind);
		plan_sysctl(c, p, "net.core.default_qdisc", "proc/sys/net/core/default_qdisc", nc->qdisc_entry,
			    module, qdisc_is_core(nc->kind));
	}
}

/* ---- interfaces -------------------------------------------------------------- */

static bool glob_selected(const char *globs, const char *name, bool dflt)
{
	char w[WORD_MAX];
	bool any_positive = false, in = false;
	const char *s;

	for (s = globs; next_word(&s, w, sizeof(w));) {
		if (w[0] == '!' && fnmatch(w + 1, name, 0) == 0)
			return false;
		if (w[0] != '!') {
			any_positive = true;
			in = in || fnmatch(w, name, 0) == 0;
		}
	}
	return any_positive ? in : dflt;
}

/* The default: a real device (a `device` link), Ethernet, and not a
 * no-queue device (its root would read noqueue). */
static bool default_selected(struct ctx *c, const char *name, unsigned type, const char *kind,
			     char *why, size_t size)
{
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "sys/class/net/%s/device", name);
	if (!root_exists(&c->root, rel))
		snprintf(why, size, "%s is not a physical device (no sys/class/net/%s/device); select it with [net] interfaces", name, name);
	else if (type != ARPHRD_ETHER)
		snprintf(why, size, "%s is not Ethernet (type %u)", name, type);
	else if (kind && !strcmp(kind, "noqueue"))
		snprintf(why, size, "%s is a no-queue device (root noqueue)", name);
	else
		return true;
	return false;
}

static bool wanted(struct ctx *c, const char *name, int ifindex)
{
	if (c->ifindex && c->ifindex != ifindex)
		return false;
	return !c->iface || !strcmp(c->iface, name);
}

static struct item *iface_item(struct plan *p, const char *name, int ifindex, const struct netconf *nc)
{
	char path[64];
	struct item *it;

	snprintf(path, sizeof(path), "netlink/ifindex/%d", ifindex);
	it = plan_add(p, "net", name, "qdisc", path);
	if (!it)
		return NULL;
	it->kind = ITEM_QDISC;
	it->rank = 1;
	it->ifindex = ifindex;
	item_from_entry(it, nc->qdisc_entry);
	return it;
}

static void plan_iface(struct ctx *c, struct plan *p, const struct netconf *nc, const struct nl_link *l,
		       const struct qdiscs *qs, const char *param_error, const struct records *rs)
{
	const struct nl_qdisc *root = root_of(qs, l->ifindex);
	char cur[128], why[256];
	struct item *it;
	bool dflt;

	dflt = nc->positive_globs || default_selected(c, l->name, l->type, root ? root->kind : NULL,
							  why, sizeof(why));
	if (!glob_selected(nc->interfaces ? nc->interfaces->value : "", l->name, dflt)) {
		if (!c->ifindex && !c->iface)
			return;
		it = iface_item(p, l->name, l->ifindex, nc);
		if (it) {
			it->action = ACT_SKIP;
			item_set(&it->reason, nc->interfaces ? "not selected by [net] interfaces" : why);
		}
		return;
	}
	it = iface_item(p, l->name, l->ifindex, nc);
	if (!it)
		return;
	log_msg(LOG_DEBUG, "%s: selected (ifindex %d, %u TX queues)", l->name, l->ifindex, l->num_tx);
	it->ntx = l->num_tx;
	describe(qs, l->ifindex, cur, sizeof(cur));
	item_set(&it->current, cur);
	item_setf(&it->desired, l->num_tx > 1 ? "mq %s" : "%s", nc->kind);
	if (param_error) {
		it->action = ACT_ERROR;
		item_set(&it->error, param_error);
		return;
	}
	if (holds(nc, qs, l->ifindex, l->num_tx))
		return; /* keep */
	if (!qdisc_is_core(nc->kind)) {
		char module[64];
		int a;

		snprintf(module, sizeof(module), "sch_%s", nc->kind);
		a = mods_available(c->mods, module, why, sizeof(why));
		if (a == 0) {
			it->action = ACT_SKIP;
			it->unmet = true;
			item_setf(&it->reason, "%s not available: %s", module, why);
			return;
		}
		if (a == 2)
			item_set(&it->module, module);
	}
	if (root && root->handle == MQ_HANDLE && l->num_tx > 1)
		it->qhandle = MQ_HANDLE; /* our mq: only its children change */
	else if (l->num_tx <= 1)
		it->qhandle = root && root->handle == ROOT_A ? ROOT_B : ROOT_A;
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

static int dump_qdiscs(struct nl *nl, struct qdiscs *qs)
{
	int r = nl_dump(nl, RTM_GETQDISC, add_qdisc, qs);

	if (r >= 0)
		index_qdiscs(qs);
	return r;
}

static int dump_all(struct nl *nl, struct links *ls, struct qdiscs *qs)
{
	int r = nl_open(nl);

	if (r >= 0)
		r = nl_dump(nl, RTM_GETLINK, add_link, ls);
	if (r >= 0)
		r = dump_qdiscs(nl, qs);
	return r;
}

/* Interfaces of a tree that is not the running system: listed, never touched. */
static void plan_tree_ifaces(struct ctx *c, struct plan *p, const struct netconf *nc)
{
	int fd = root_openat(&c->root, "sys/class/net", O_RDONLY | O_DIRECTORY, 0);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!dir && fd >= 0)
		close(fd);
	while (dir && (de = readdir(dir))) {
		char rel[PATH_MAX], buf[32], why[256];
		unsigned type = 0;
		int ifindex = 0;
		struct item *it;

		if (de->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "sys/class/net/%s/type", de->d_name);
		if (root_read(&c->root, rel, buf, sizeof(buf)) > 0)
			type = (unsigned)atoi(buf);
		snprintf(rel, sizeof(rel), "sys/class/net/%s/ifindex", de->d_name);
		if (root_read(&c->root, rel, buf, sizeof(buf)) > 0)
			ifindex = atoi(buf);
		if (!wanted(c, de->d_name, ifindex) ||
		    !glob_selected(nc->interfaces ? nc->interfaces->value : "", de->d_name,
				   default_selected(c, de->d_name, type, NULL, why, sizeof(why))))
			continue;
		it = iface_item(p, de->d_name, ifindex, nc);
		if (!it)
			break;
		item_set(&it->desired, nc->kind);
		it->action = ACT_SKIP;
		item_setf(&it->reason, "netlink reaches only the running kernel, not --root %s", c->root.dir);
	}
	if (dir)
		closedir(dir);
}

static void unknown_iface(struct ctx *c, struct plan *p)
{
	char name[32];
	struct item *it;

	snprintf(name, sizeof(name), "%s", c->iface ? c->iface : "?");
	it = plan_add(p, "net", name, "qdisc", "-");
	if (!it)
		return;
	it->action = ACT_ERROR;
	if (c->iface)
		item_setf(&it->error, "no interface named '%s'", c->iface);
	else
		item_setf(&it->error, "no interface with index %d", c->ifindex);
}

static void plan_ifaces(struct ctx *c, struct plan *p, struct netconf *nc)
{
	struct links ls = { 0 };
	struct qdiscs qs = { 0 };
	struct records rs = { .lock_fd = -1 };
	struct nl nl = { .fd = -1 };
	char why[256], err[320] = "";
	size_t before = p->n;
	int r;

	if (!c->root.is_host) {
		plan_tree_ifaces(c, p, nc);
		return;
	}
	if (check_params(c, nc, why, sizeof(why)) < 0)
		snprintf(err, sizeof(err), "%s", why);
	r = dump_all(&nl, &ls, &qs);
	nl_close(&nl);
	/* Which roots were ours: apply holds the records already; plan and
	 * verify read them without the lock. */
	if (!c->records)
		state_load(&rs, &c->root);
	if (r < 0) {
		struct item *it = plan_add(p, "net", "rtnetlink", "qdisc", "-");

		if (it) {
			it->action = ACT_ERROR;
			item_setf(&it->error, "cannot list interfaces and qdiscs over rtnetlink: %s", strerror(-r));
		}
	}
	for (size_t i = 0; r >= 0 && i < ls.n; i++)
		if (wanted(c, ls.v[i].name, ls.v[i].ifindex))
			plan_iface(c, p, nc, &ls.v[i], &qs, *err ? err : NULL, c->records ? c->records : &rs);
	if (r >= 0 && (c->ifindex || c->iface) && p->n == before)
		unknown_iface(c, p);
	state_free(&rs);
	free(ls.v);
	free(qs.v);
}

int net_plan(struct ctx *c, struct plan *p)
{
	struct netconf nc;

	load_netconf(c, &nc);
	if (!c->ifindex && !c->iface)
		plan_sysctls(c, p, &nc);
	if (nc.kind)
		plan_ifaces(c, p, &nc);
	return 0;
}

/* ---- apply ------------------------------------------------------------------- */

/* One item's requests: an mq root and a child per TX queue, or one root. */
static int put_item(struct nl_batch *b, struct nl *nl, const struct item *it, const struct netconf *nc,
		    unsigned *first, unsigned *count)
{
	int r = 0;

	*first = b->count;
	if (it->ntx <= 1)
		r = nl_put_qdisc(b, ++nl->seq, it->ifindex, TC_H_ROOT, it->qhandle, nc->kind, nc->params,
				 nc->nparams);
	else if (it->qhandle != MQ_HANDLE)
		r = nl_put_qdisc(b, ++nl->seq, it->ifindex, TC_H_ROOT, MQ_HANDLE, "mq", NULL, 0);
	for (unsigned q = 0; r >= 0 && it->ntx > 1 && q < it->ntx; q++)
		r = nl_put_qdisc(b, ++nl->seq, it->ifindex, TC_H_MAKE(MQ_HANDLE, q + 1), 0, nc->kind,
				 nc->params, nc->nparams);
	*count = b->count - *first;
	return r;
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
		mods_available(c->mods, module, why, sizeof(why));
		item_setf(&it->error, "%s not available: %s", module, *why ? why : "not in the kernel");
		return;
	}
	item_setf(&it->error, "RTM_NEWQDISC: %s%s%s", strerror(-res->err), *res->msg ? ": " : "", res->msg);
}

static int send_and_collect(struct nl *nl, struct nl_batch *b, struct nl_result *res, size_t *nres)
{
	int r = nl_send_batch(nl, b, res + *nres);

	*nres += b->count;
	b->len = 0;
	b->count = 0;
	return r;
}

/* All qdisc items of the plan in as few sendmsg calls as fit, one ACK each;
 * then one dump to read every result back. */
int net_apply_qdiscs(struct ctx *c, struct plan *p)
{
	struct netconf nc;
	struct nl nl = { .fd = -1 };
	struct nl_batch *b = calloc(1, sizeof(*b));
	struct nl_result *res = NULL;
	unsigned *first = calloc(p->n + 1, sizeof(*first)), *count = calloc(p->n + 1, sizeof(*count));
	size_t nreq = 0, nres = 0;
	struct qdiscs qs = { 0 };
	struct links ls = { 0 };
	int r;

	char why[256];

	load_netconf(c, &nc);
	r = !b || !first || !count ? -ENOMEM : check_params(c, &nc, why, sizeof(why));
	if (r >= 0)
		r = nl_open(&nl);
	for (size_t i = 0; r >= 0 && i < p->n; i++) {
		struct item *it = &p->v[i];
		int m;

		if (it->kind != ITEM_QDISC || it->action != ACT_CHANGE || it->result)
			continue;
		nreq += it->ntx + 1;
		/* sch_KIND before the first request that names it. */
		if (it->module && (m = mods_load(c->mods, it->module, NULL)) < 0) {
			item_setf(&it->error, "cannot load module %s: %s", it->module, strerror(-m));
			it->result = RES_FAILED;
		}
	}
	if (r >= 0 && !(res = calloc(nreq + 1, sizeof(*res))))
		r = -ENOMEM;
	for (size_t i = 0; r >= 0 && i < p->n; i++) {
		struct item *it = &p->v[i];

		if (it->kind != ITEM_QDISC || it->action != ACT_CHANGE || it->result)
			continue;
		if (b->count && (b->len + (it->ntx + 1) * NL_MSG_MAX > sizeof(b->buf) ||
				 b->count + it->ntx + 1 > NL_BATCH_REQS))
			r = send_and_collect(&nl, b, res, &nres);
		if (r >= 0) {
			r = put_item(b, &nl, it, &nc, &first[i], &count[i]);
			first[i] += (unsigned)nres;
		}
	}
	if (r >= 0)
		r = send_and_collect(&nl, b, res, &nres);
	if (r >= 0)
		r = dump_qdiscs(&nl, &qs) < 0 ? -EIO : 0;
	for (size_t i = 0; i < p->n; i++) {
		struct item *it = &p->v[i];
		char now[128];

		if (it->kind != ITEM_QDISC || it->action != ACT_CHANGE || it->result)
			continue;
		for (unsigned k = 0; r >= 0 && k < count[i] && !it->error; k++)
			if (res[first[i] + k].err)
				explain(c, it, &nc, &res[first[i] + k]);
		if (r < 0 && !it->error)
			item_setf(&it->error, "rtnetlink: %s", strerror(-r));
		describe(&qs, it->ifindex, now, sizeof(now));
		if (!it->error && !holds(&nc, &qs, it->ifindex, it->ntx))
			item_setf(&it->error, "the kernel did not keep it: reads back '%s'", now);
		it->result = it->error ? RES_FAILED : RES_APPLIED;
	}
	nl_close(&nl);
	free(ls.v);
	free(qs.v);
	free(res);
	free(first);
	free(count);
	free(b);
	return r;
}

/* ---- revert ------------------------------------------------------------------ */

/* Deleting our root hands the device back to the kernel, which attaches its
 * default (handle 0, the default qdisc, mq on multiqueue) — the state we found. */
int net_revert_qdiscs(struct ctx *c, struct item **items, const char **values, size_t n)
{
	struct nl nl = { .fd = -1 };
	struct qdiscs qs = { 0 };
	struct links ls = { 0 };
	struct nl_batch *b = calloc(1, sizeof(*b));
	struct nl_result *res = calloc(n + 1, sizeof(*res));
	int *slot = calloc(n + 1, sizeof(*slot));
	size_t nres = 0;
	int r = !b || !res || !slot ? -ENOMEM : 0;

	if (r >= 0 && !c->root.is_host)
		r = -EXDEV;
	if (r >= 0)
		r = dump_all(&nl, &ls, &qs);
	for (size_t i = 0; r >= 0 && i < n; i++) {
		const struct nl_qdisc *root;

		if (sscanf(items[i]->path, "netlink/ifindex/%d", &items[i]->ifindex) != 1)
			items[i]->ifindex = 0;
		root = root_of(&qs, items[i]->ifindex);
		char cur[128];

		describe(&qs, items[i]->ifindex, cur, sizeof(cur));
		item_set(&items[i]->current, cur);
		slot[i] = -1;
		if (!root || root->handle == 0)
			continue; /* already the kernel's */
		if (!own_handle(root->handle)) {
			/* Someone replaced ours since: theirs stays. */
			items[i]->action = ACT_SKIP;
			item_setf(&items[i]->reason, "root is now %s %x:, not earlytune's: left alone",
				  root->kind, root->handle >> 16);
			continue;
		}
		if (b->count >= NL_BATCH_REQS)
			r = send_and_collect(&nl, b, res, &nres);
		slot[i] = (int)(nres + b->count);
		if (r >= 0)
			r = nl_put_qdisc_del(b, ++nl.seq, items[i]->ifindex, root->handle);
	}
	if (r >= 0)
		r = send_and_collect(&nl, b, res, &nres);
	free(qs.v);
	qs = (struct qdiscs){ 0 };
	free(ls.v);
	ls = (struct links){ 0 };
	if (r >= 0)
		r = dump_qdiscs(&nl, &qs);
	for (size_t i = 0; i < n; i++) {
		struct item *it = items[i];
		char now[128], want[64];

		if (it->action == ACT_SKIP)
			continue;
		if (r < 0) {
			item_setf(&it->error, "rtnetlink: %s", strerror(-r));
		} else if (slot[i] >= 0 && res[slot[i]].err) {
			item_setf(&it->error, "RTM_DELQDISC: %s%s%s", strerror(-res[slot[i]].err),
				  *res[slot[i]].msg ? ": " : "", res[slot[i]].msg);
		} else {
			const struct nl_qdisc *root = root_of(&qs, it->ifindex);

			/* Success is the kernel's own root again; which one it picks
			 * depends on the device being up (noop while down). */
			describe(&qs, it->ifindex, now, sizeof(now));
			snprintf(want, sizeof(want), "%s", values[i]);
			want[strcspn(want, " ")] = '\0';
			if (root && root->handle != 0)
				item_setf(&it->error, "root is still '%s' %x: after handing it back", now, root->handle >> 16);
			else if (strncmp(now, want, strlen(want)))
				item_setf(&it->reason, "the kernel's default is now %s (recorded %s: the device changed state since)",
					  now, values[i]);
		}
		it->action = slot[i] >= 0 ? ACT_CHANGE : ACT_KEEP;
		it->result = it->error ? RES_FAILED : slot[i] >= 0 ? RES_APPLIED : RES_NONE;
	}
	nl_close(&nl);
	free(qs.v);
	free(b);
	free(res);
	free(slot);
	return r;
}
