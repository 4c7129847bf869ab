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
#define CC_AVAILABLE "proc/sys/net/ipv4/tcp_available_congestion_control"

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

/* A message the parser refuses fails the dump: what it held is unknown,
 * and an interface or qdisc missing from the list would read as absent. */
static int add_qdisc(const struct nlmsghdr *h, void *data)
{
	struct qdiscs *qs = data;
	int r;

	if (grow((void **)&qs->v, &qs->cap, qs->n, sizeof(*qs->v)) < 0)
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

	if (grow((void **)&ls->v, &ls->cap, ls->n, sizeof(*ls->v)) < 0)
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

static const struct nl_qdisc *root_of(const struct qdiscs *qs, int ifindex)
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
	const struct nl_qdisc *root = root_of(&qs, ifindex);
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

static void describe(const struct qdiscs *qs, int ifindex, char *out, size_t size)
{
	net_describe(qs->v, qs->n, ifindex, out, size);
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

/* Why a sysctl file is absent, said from the nearest part of proc/sys the
 * tree has: a fact of the kernel only where the file's parent is there; a
 * tree without proc/sys (a capture) leaves it unknown. 0, or -errno when a
 * lookup fails (an error of the item, not absence). */
static int sysctl_absent(struct ctx *c, const char *path, char *why, size_t size)
{
	static const char net[] = "proc/sys/net";
	bool qdisc = strstr(path, "default_qdisc") != NULL;
	const char *what = qdisc ? "net.core.default_qdisc" : "TCP/IP sysctls";
	char miss[PATH_MAX];
	int r = root_missing(&c->root, path, miss, sizeof(miss)), ns;

	if (r < 0)
		return r;
	if (r > 0 || strncmp(miss, net, strlen(net)))
		snprintf(why, size, "no /%s in this tree: whether the kernel has %s is unknown", r ? path : miss, what);
	else if (!strcmp(miss, net))
		snprintf(why, size, "no /%s here: the kernel has no network sysctls", net);
	else if (!qdisc)
		snprintf(why, size, "no /%s here: the kernel has no %s", miss,
			 strcmp(miss, path) ? "TCP/IP sysctls" : "TCP congestion control sysctl");
	else if (strcmp(miss, path))
		snprintf(why, size, "no /%s in this tree: whether the kernel has %s is unknown", miss, what);
	else if ((ns = root_access(&c->root, "proc/sys/net/core/somaxconn")) < 0)
		return ns;
	else if (ns)
		snprintf(why, size, "no /%s here: it exists only in the initial network namespace", path);
	else
		snprintf(why, size, "no /%s nor /proc/sys/net/core/somaxconn in this tree: whether this is another network namespace is unknown", path);
	return 0;
}

/* available: 1 the kernel offers the value now, 0 not (yet), -errno when
 * that cannot be read (an error of the item, not "not available"). */
static void plan_sysctl(struct ctx *c, struct plan *p, const char *name, const char *path,
			const struct cfg_entry *e, const char *module, int available)
{
	struct item *it = plan_add(p, "net", "sysctl", name, path);
	char cur[128], why[512] = "";
	int r;

	if (!it)
		return;
	item_from_entry(it, e);
	item_set(&it->desired, e->value);
	r = root_read(&c->root, path, cur, sizeof(cur));
	if (r == -ENOENT && (r = sysctl_absent(c, path, why, sizeof(why))) == 0) {
		it->action = ACT_SKIP;
		it->unmet = !strstr(name, "default_qdisc"); /* another netns: not applicable */
		item_set(&it->reason, why);
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
	if (available < 0) {
		it->action = ACT_ERROR;
		item_setf(&it->error, "cannot read /%s: %s", CC_AVAILABLE, strerror(-available));
		return;
	}
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

/* Does the kernel offer a congestion control now (loaded or built in)? A
 * tree without the file offers none. */
static int cc_offered(struct ctx *c, const char *name)
{
	char avail[512];
	int r = root_read(&c->root, CC_AVAILABLE, avail, sizeof(avail));

	if (r == -ENOENT)
		return 0;
	return r < 0 ? r : word_listed(avail, name);
}

bool net_cc_available(struct ctx *c, const char *name)
{
	return cc_offered(c, name) > 0;
}

static void plan_sysctls(struct ctx *c, struct plan *p, const struct netconf *nc)
{
	const struct cfg_entry *cc = config_get(&c->cfg, "net", NULL, "congestion_control");
	char module[64];

	if (cc) {
		snprintf(module, sizeof(module), "tcp_%s", cc->value);
		plan_sysctl(c, p, "net.ipv4.tcp_congestion_control", "proc/sys/net/ipv4/tcp_congestion_control",
			    cc, module, cc_offered(c, cc->value));
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

/* rs: earlytune's records, or NULL when they cannot be read (rs_err). */
static void plan_iface(struct ctx *c, struct plan *p, const struct netconf *nc, const struct nl_link *l,
		       const struct qdiscs *qs, const char *param_error, const struct records *rs, int rs_err)
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

static int dump_qdiscs(struct nl *nl, struct qdiscs *qs)
{
	int r = dump(nl, RTM_GETQDISC, add_qdisc, qs, &qs->n);

	if (r >= 0)
		index_qdiscs(qs);
	return r;
}

static int dump_all(struct nl *nl, struct links *ls, struct qdiscs *qs)
{
	int r = nl_open(nl);

	if (r >= 0)
		r = dump(nl, RTM_GETLINK, add_link, ls, &ls->n);
	if (r >= 0)
		r = dump_qdiscs(nl, qs);
	return r;
}

/* An attribute of a tree's interface as a number: 0 when absent, -errno
 * when it cannot be read. */
static int iface_attr(struct ctx *c, const char *name, const char *attr, int *value)
{
	char rel[PATH_MAX], buf[32];
	int r;

	snprintf(rel, sizeof(rel), "sys/class/net/%s/%s", name, attr);
	r = root_read(&c->root, rel, buf, sizeof(buf));
	if (r > 0)
		*value = atoi(buf);
	return r == -ENOENT ? 0 : r;
}

static void tree_iface(struct ctx *c, struct plan *p, const struct netconf *nc, const char *name)
{
	int type = 0, ifindex = 0, rt = iface_attr(c, name, "type", &type),
	    ri = iface_attr(c, name, "ifindex", &ifindex);
	char why[256];
	struct item *it;

	if (rt >= 0 && ri >= 0 &&
	    (!wanted(c, name, ifindex) ||
	     !glob_selected(nc->interfaces ? nc->interfaces->value : "", name,
			    default_selected(c, name, (unsigned)type, NULL, why, sizeof(why)))))
		return;
	if ((rt < 0 || ri < 0) && c->iface && strcmp(c->iface, name))
		return;
	it = iface_item(p, name, ifindex, nc);
	if (!it)
		return;
	item_set(&it->desired, nc->kind);
	if (rt < 0 || ri < 0) {
		/* Unreadable is not "not Ethernet": whether it is selected is unknown. */
		it->action = ACT_ERROR;
		item_setf(&it->error, "cannot read sys/class/net/%s/%s: %s", name, rt < 0 ? "type" : "ifindex",
			  strerror(-(rt < 0 ? rt : ri)));
		return;
	}
	it->action = ACT_SKIP;
	item_setf(&it->reason, "netlink reaches only the running kernel, not --root %s", c->root.dir);
}

/* Interfaces of a tree that is not the running system: listed, never touched. */
static void plan_tree_ifaces(struct ctx *c, struct plan *p, const struct netconf *nc)
{
	int fd = root_openat(&c->root, "sys/class/net", O_RDONLY | O_DIRECTORY, 0);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!dir && fd >= 0)
		close(fd);
	if (fd < 0 && fd != -ENOENT) {
		struct item *it = plan_add(p, "net", "sys/class/net", "qdisc", "-");

		if (it) {
			it->action = ACT_ERROR;
			item_setf(&it->error, "cannot list sys/class/net: %s", strerror(-fd));
		}
	}
	while (dir && (de = readdir(dir)))
		if (de->d_name[0] != '.')
			tree_iface(c, p, nc, de->d_name);
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
	int r, rs_err = 0;

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
		rs_err = state_load(&rs, &c->root);
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
				   c->records ? c->records : rs_err < 0 ? NULL : &rs, rs_err);
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
		mods_available(c->mods, module, why, sizeof(why));
		item_setf(&it->error, "%s not available: %s", module, *why ? why : "not in the kernel");
		return;
	}
	item_setf(&it->error, "RTM_NEWQDISC: %s%s%s", strerror(-res->err), *res->msg ? ": " : "", res->msg);
}

/* Requests go out in batches within their budget (NL_BATCH_REQS ACKs, the
 * batch's bytes), an interface's split over as many as it needs; res[k] is
 * the answer to the k-th request sent. */
struct sender {
	struct nl nl;
	struct nl_batch *b;
	struct nl_result *res;
	size_t nres; /* answers collected: the index of the batch's first request */
};

static void flush(struct sender *s)
{
	size_t n = s->b->count;

	/* A failed round (no ACKs, ENOBUFS) marks only its own requests; a
	 * fresh socket leaves its stale ACKs and its state behind. */
	if (nl_send_batch(&s->nl, s->b, s->res + s->nres) < 0) {
		nl_close(&s->nl);
		nl_open(&s->nl);
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
			flush(s);
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

/* Every item gets its own result: a refused request, a failed round or a
 * dump that cannot be read back fail that item, never another. */
static void apply_results(struct ctx *c, struct plan *p, const struct netconf *nc, struct sender *s,
			  const size_t *first, const size_t *count, int r)
{
	struct qdiscs qs = { 0 };
	int d = r < 0 ? r : dump_qdiscs(&s->nl, &qs);

	for (size_t i = 0; i < p->n; i++) {
		struct item *it = &p->v[i];
		const struct nl_result *e;
		char now[128];

		if (!to_apply(it))
			continue;
		if (!it->error && (e = first_error(s->res + first[i], count[i])))
			explain(c, it, nc, e);
		if (!it->error && d < 0)
			item_setf(&it->error, "cannot read the qdiscs back over rtnetlink: %s", strerror(-d));
		if (!it->error) {
			describe(&qs, it->ifindex, now, sizeof(now));
			if (!holds(nc, &qs, it->ifindex, it->ntx))
				item_setf(&it->error, "the kernel did not keep it: reads back '%s'", now);
		}
		it->result = it->error ? RES_FAILED : RES_APPLIED;
	}
	free(qs.v);
}

/* All qdisc items of the plan in as few sendmsg calls as their budget allows,
 * one ACK each; then one dump to read every result back. */
int net_apply_qdiscs(struct ctx *c, struct plan *p)
{
	struct netconf nc;
	struct sender s = { .nl.fd = -1, .b = calloc(1, sizeof(*s.b)) };
	size_t *first = calloc(p->n + 1, sizeof(*first)), *count = calloc(p->n + 1, sizeof(*count));
	size_t nreq = 0;
	char why[256];
	int r;

	load_netconf(c, &nc);
	r = !s.b || !first || !count ? -ENOMEM : check_params(c, &nc, why, sizeof(why));
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
		flush(&s);
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

/* ---- revert ------------------------------------------------------------------ */

/* What to do with one record: -1 nothing (the kernel's root already, or the
 * interface is gone), 0 hand our root back, or an error set on the item. */
static int revert_one(struct item *it, const struct qdiscs *qs, const struct links *ls,
		      const struct nl_qdisc **root)
{
	char cur[128];
	bool present = false;

	it->ifindex = record_ifindex(it->setting, it->path);
	if (!it->ifindex) {
		item_setf(&it->error, "record '%s' names no interface index", it->path);
		return -EINVAL;
	}
	for (size_t k = 0; k < ls->n && !present; k++)
		present = ls->v[k].ifindex == it->ifindex;
	*root = root_of(qs, it->ifindex);
	describe(qs, it->ifindex, cur, sizeof(cur));
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
	const struct nl_qdisc *root = root_of(qs, it->ifindex);
	char now[128], want[64];

	describe(qs, it->ifindex, now, sizeof(now));
	snprintf(want, sizeof(want), "%s", value);
	want[strcspn(want, " ")] = '\0';
	if (root && root->handle != 0)
		item_setf(&it->error, "root is still '%s' %x: after handing it back", now, root->handle >> 16);
	else if (strncmp(now, want, strlen(want)))
		item_setf(&it->reason, "the kernel's default is now %s (recorded %s: the device changed state since)",
			  now, value);
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
		d = dump_all(&s.nl, &ls, &qs);
	for (size_t i = 0; r >= 0 && i < n; i++) {
		const struct nl_qdisc *root = NULL;

		slot[i] = -1;
		if (d < 0 || revert_one(items[i], &qs, &ls, &root) < 0)
			continue;
		if (nl_batch_full(s.b))
			flush(&s);
		slot[i] = (long)(s.nres + s.b->count);
		if (nl_put_qdisc_del(s.b, ++s.nl.seq, items[i]->ifindex, root->handle) < 0)
			slot[i] = -1;
	}
	if (r >= 0 && d >= 0) {
		flush(&s);
		qs.n = 0;
		d = dump_qdiscs(&s.nl, &qs);
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
