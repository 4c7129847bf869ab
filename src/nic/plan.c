// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The plan of [net "NAME"]: the interfaces of the run (one at its udev
 * event, --ifindex or --iface; else every one in sys/class/net), the
 * sections each matches (later ones overriding earlier ones, key by key),
 * and an item per key in the table's order: channels first. A group of
 * settings is read once per interface, one request each.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/netif.h"
#include "nic/internal.h"

/* An interface's keys: the last assignment of each by a section it matches. */
struct wants {
	const struct cfg_entry **v;
	size_t n;
};

static bool has_sections(const struct config *cfg)
{
	for (size_t i = 0; i < cfg->n; i++)
		if (!strcmp(cfg->v[i].section, "net") && cfg->v[i].name)
			return true;
	return false;
}

static void want(struct wants *w, const struct cfg_entry *e)
{
	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->v[i]->key, e->key)) {
			w->v[i] = e;
			return;
		}
	w->v[w->n++] = e;
}

/* The entries of the sections ifc matches, each key's last. */
static int gather(struct ctx *c, const struct nic_iface *ifc, struct wants *w)
{
	const char *last = NULL;
	bool match = false;

	w->n = 0;
	w->v = calloc(c->cfg.n + 1, sizeof(*w->v));
	if (!w->v)
		return -ENOMEM;
	for (size_t i = 0; i < c->cfg.n; i++) {
		const struct cfg_entry *e = &c->cfg.v[i];

		if (strcmp(e->section, "net") || !e->name || !strncmp(e->key, "match.", 6))
			continue;
		if (!last || strcmp(last, e->name))
			match = nic_section_matches(c, ifc, e->name);
		last = e->name;
		if (match)
			want(w, e);
	}
	return 0;
}

/* A group the kernel could not give: a driver without it is a neutral
 * skip (a glob over several interfaces names some that lack it). */
static bool group_failed(struct nic_iface *ifc, enum nic_group g, struct item *it)
{
	struct nic_values *v = &ifc->g[g];
	static const char *const what[NG_COUNT] = { "channels", "rings", "features", "coalescing" };

	if (!v->read && !v->err)
		nic_read(ifc, g);
	if (!v->err)
		return false;
	if (v->err == -ENOENT) {
		it->action = ACT_SKIP, it->unmet = true;
		item_setf(&it->reason, "this kernel has no ethtool netlink family (5.6+), which %s needs", what[g]);
	} else if (v->err == -EOPNOTSUPP) {
		it->action = ACT_SKIP;
		item_setf(&it->reason, "%s's driver (%s) has no %s settings", ifc->name,
			  *ifc->driver ? ifc->driver : "none", what[g]);
	} else {
		it->action = ACT_ERROR;
		item_setf(&it->error, "cannot read the %s of %s over ethtool: %s%s%s", what[g], ifc->name,
			  strerror(-v->err), *v->msg ? ": " : "", v->msg);
	}
	return true;
}

/* N, max or cpus as a count the device can take, in *n; false with the
 * item a skip when it cannot. */
static bool count_wanted(struct ctx *c, const struct nic_iface *ifc, const struct nic_key *k, struct item *it,
			 const char *value, uint32_t *n)
{
	const struct nic_values *v = &ifc->g[k->group];
	uint32_t max = v->v[k->max_attr];
	unsigned long long want = max;
	int cpus;

	if (!strcmp(value, "cpus")) {
		cpus = nic_online_cpus(&c->root);
		if (cpus <= 0) {
			item_unknown(it, "the online CPUs are unknown: no sys/devices/system/cpu/online");
			return false;
		}
		want = (unsigned)cpus < max ? (unsigned)cpus : max;
		item_add_reason(it, "cpus: %d online, the device's maximum %u", cpus, max);
	} else if (strcmp(value, "max")) {
		parse_u64(value, &want);
	}
	if (want > max) {
		it->action = ACT_SKIP, it->unmet = true;
		item_setf(&it->reason, "asks %llu, %s's maximum is %u", want, ifc->name, max);
		return false;
	}
	*n = (uint32_t)want;
	return true;
}

static void plan_value(struct ctx *c, struct nic_iface *ifc, const struct nic_key *k, struct item *it,
		       const char *value)
{
	const struct nic_values *v = &ifc->g[k->group];
	uint32_t n = 0;

	if (group_failed(ifc, k->group, it))
		return;
	if (!(v->have & (1ull << k->attr)) || (k->max_attr && !v->v[k->max_attr])) {
		/* The kernel leaves out a kind of channel whose maximum is 0. */
		it->action = ACT_SKIP;
		item_setf(&it->reason, "%s's driver (%s) has no %s", ifc->name, *ifc->driver ? ifc->driver : "none",
			  k->name);
		return;
	}
	if (k->kind == NK_BOOL)
		item_set(&it->current, v->v[k->attr] ? "on" : "off");
	else
		item_setf(&it->current, "%u", v->v[k->attr]);
	if (k->kind == NK_BOOL || k->kind == NK_U32)
		item_set(&it->desired, value);
	else if (count_wanted(c, ifc, k, it, value, &n))
		item_setf(&it->desired, "%u", n);
	else
		return;
	it->action = strcmp(it->current, it->desired) ? ACT_CHANGE : ACT_KEEP;
	if (it->action == ACT_CHANGE && k->group == NG_RINGS && v->v[k->attr] == nic_pow2_above(n)) {
		/* What apply got from a driver that rounds: asking again changes nothing. */
		it->action = ACT_KEEP;
		item_add_reason(it, "%s holds %u: its driver rounds %u up to a power of two", ifc->name,
				v->v[k->attr], n);
	}
}

static void plan_feature(struct nic_iface *ifc, const char *name, struct item *it, const char *value)
{
	const struct nic_feature *f;

	if (group_failed(ifc, NG_FEATURES, it))
		return;
	f = nic_feature_of(ifc->feat, name);
	item_set(&it->desired, value);
	if (!f) {
		it->action = ACT_SKIP;
		item_setf(&it->reason, "%s has no feature %s", ifc->name, name);
		return;
	}
	item_set(&it->current, f->active ? "on" : "off");
	it->action = strcmp(it->current, value) ? ACT_CHANGE : ACT_KEEP;
	if (it->action == ACT_CHANGE && (!f->hw || f->nochange)) {
		it->action = ACT_SKIP, it->unmet = true;
		item_setf(&it->reason, "%s is fixed %s by %s's driver (%s): ethtool -k shows it [fixed]", name,
			  it->current, ifc->name, *ifc->driver ? ifc->driver : "none");
	}
}

int nic_plan_ethtool(struct ctx *c, struct nic_iface *ifc, const struct nic_key *k, const struct cfg_entry *e,
		     struct plan *p)
{
	const char *one[2], *const *names = NULL;
	char setting[128];

	if (k->group == NG_FEATURES)
		names = nic_feature_expand(e->key + strlen(k->name), one);
	for (size_t i = 0; !names || names[i]; i++) {
		struct item *it;

		snprintf(setting, sizeof(setting), "%s%s", names ? k->name : e->key, names ? names[i] : "");
		it = nic_add_item(c, p, ifc, setting, e);
		if (!it)
			return -ENOMEM;
		if (!c->root.is_host)
			item_unknown(it, "ethtool settings are the running kernel's: a --root tree shows none");
		else if (names)
			plan_feature(ifc, names[i], it, e->value);
		else
			plan_value(c, ifc, k, it, e->value);
		if (!names)
			break;
	}
	return 0;
}

/* The items of one interface, in the order of the key table. */
static int by_place(const void *a, const void *b)
{
	const struct cfg_entry *x = *(const struct cfg_entry *const *)a, *y = *(const struct cfg_entry *const *)b;

	return (x > y) - (x < y);
}

static int plan_iface(struct ctx *c, struct plan *p, struct nic_iface *ifc)
{
	struct wants w;
	int r = gather(c, ifc, &w);

	if (r >= 0)
		qsort(w.v, w.n, sizeof(*w.v), by_place);
	for (const struct nic_key *k = nic_keys; r >= 0 && k->name; k++)
		for (size_t i = 0; r >= 0 && i < w.n; i++)
			if (*w.v[i]->value && nic_key_find(w.v[i]->key) == k)
				r = (k->plan ? k->plan : nic_plan_ethtool)(c, ifc, k, w.v[i], p);
	free(w.v);
	free(ifc->feat);
	ifc->feat = NULL;
	return r;
}

struct names {
	struct ctx *c;
	struct plan *p;
	int err;
};

static void each_iface(const char *rel, void *data)
{
	struct names *ns = data;
	struct nic_iface ifc = { .netns = netif_netns(&ns->c->root) };
	int r;

	snprintf(ifc.name, sizeof(ifc.name), "%s", strrchr(rel, '/') + 1);
	ifc.ifindex = netif_index_of(&ns->c->root, ifc.name);
	if (ifc.ifindex <= 0)
		return;
	nic_iface_driver(&ns->c->root, &ifc);
	r = plan_iface(ns->c, ns->p, &ifc);
	if (r < 0 && !ns->err)
		ns->err = r;
}

/* The one interface of a run about it: by index (udev's), by name. */
static int plan_one(struct ctx *c, struct plan *p)
{
	struct nic_iface ifc = { .ifindex = c->ifindex, .netns = netif_netns(&c->root) };

	if (c->iface) {
		snprintf(ifc.name, sizeof(ifc.name), "%s", c->iface);
		ifc.ifindex = netif_index_of(&c->root, c->iface);
	} else if (netif_name(&c->root, c->ifindex, ifc.name, sizeof(ifc.name)) < 0) {
		ifc.ifindex = 0;
	}
	if (ifc.ifindex <= 0)
		return 0; /* gone already, or never: net's row says so */
	nic_iface_driver(&c->root, &ifc);
	return plan_iface(c, p, &ifc);
}

int nic_plan(struct ctx *c, struct plan *p)
{
	struct names ns = { c, p, 0 };
	int r;

	if (!has_sections(&c->cfg))
		return 0;
	if (c->ifindex || c->iface)
		return plan_one(c, p);
	r = root_match(&c->root, "sys/class/net", "*", each_iface, &ns);
	return r < 0 ? r : ns.err;
}
