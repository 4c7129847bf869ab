// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * systemd-networkd .network files that set an interface's root qdisc. networkd
 * configures a link once udev is done with it, so after earlytune's run for
 * that interface: its qdisc wins. It applies only the first .network file
 * (by name) whose [Match] fits the link. Match keys other than Name= make
 * the file "may apply"; drop-ins (.network.d) are not read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "writers/internal.h"

enum { N_FILE = 1, N_MAYBE = 2 }; /* N_FILE: the file's [Match], no qdisc of its own */

static const struct {
	const char *section, *kind;
} qdiscs[] = {
	{ "FairQueueing", "fq" },
	{ "FairQueueingControlledDelay", "fq_codel" },
	{ "CAKE", "cake" },
	{ "TokenBucketFilter", "tbf" },
	{ "PFIFO", "pfifo" },
	{ "PFIFOFast", "pfifo_fast" },
	{ "PFIFOHeadDrop", "pfifo_head_drop" },
	{ "BFIFO", "bfifo" },
	{ "ControlledDelay", "codel" },
	{ "DeficitRoundRobinScheduler", "drr" },
	{ "EnhancedTransmissionSelection", "ets" },
	{ "GenericRandomEarlyDetection", "gred" },
	{ "HeavyHitterFilter", "hhf" },
	{ "HierarchyTokenBucket", "htb" },
	{ "NetworkEmulator", "netem" },
	{ "QuickFairQueueing", "qfq" },
	{ "StochasticFairBlue", "sfb" },
	{ "StochasticFairnessQueueing", "sfq" },
	{ "TrivialLinkEqualizer", "teql" },
	{ "FlowQueuePIE", "fq_pie" },
	{ "PIE", "pie" },
};

static bool is_iface(const struct item *it)
{
	return !strcmp(it->domain, "net") && !strcmp(it->setting, "qdisc") && !strchr(it->target, '/') &&
	       strcmp(it->target, "rtnetlink");
}

/* The first file whose [Match] surely fits the interface, if not e's. */
static const struct wentry *first_file(const struct wctx *w, const struct wentry *e, const char *iface)
{
	for (size_t i = 0; i < w->n && w->v[i].seq < e->seq; i++) { /* seq: the order read */
		const struct wentry *f = &w->v[i];

		if (f->tool == e->tool && f->flags & N_FILE && strcmp(f->file, e->file) &&
		    !(f->flags & N_MAYBE) && writers_names_match(f->names, iface, " "))
			return f;
	}
	return NULL;
}

static void judge_networkd(const struct wentry *e, const struct wctx *w, const struct item *it, struct wjudge *j)
{
	const struct wentry *first;

	if (e->flags & N_FILE || !is_iface(it) || !writers_names_match(e->names, it->target, " "))
		return;
	j->applies = e->flags & N_MAYBE ? 2 : 1;
	first = first_file(w, e, it->target);
	j->beats = !first;
	if (first)
		snprintf(j->why, sizeof(j->why), "ignored: networkd uses only the first .network matching %s, %s",
			 it->target, first->file);
	else
		snprintf(j->why, sizeof(j->why), "networkd sets it when it configures %s, after earlytune", it->target);
}

struct nfile {
	struct wctx *w;
	const char *rel;
	char *names; /* [Match] Name= globs, space-separated; NULL: any */
	bool maybe;
	size_t first; /* this file's first entry */
	const char *kind, *section; /* the qdisc section being read, or NULL */
	int line;
	bool not_root;
};

static void end_section(struct nfile *f)
{
	struct wentry *e;

	if (f->kind && !f->not_root && (e = wentry_add(f->w, "networkd", f->rel, f->line, WS_NETWORKD))) {
		wset(&e->key, "qdisc");
		wset(&e->value, f->kind);
		wsetf(&e->what, "[%s]", f->section);
		e->judge = judge_networkd;
	}
	f->kind = NULL;
	f->not_root = false;
}

static void section(struct nfile *f, const char *name, int line)
{
	end_section(f);
	for (size_t i = 0; i < ARRAY_SIZE(qdiscs); i++)
		if (!strcmp(name, qdiscs[i].section)) {
			f->kind = qdiscs[i].kind;
			f->section = qdiscs[i].section;
		}
	f->line = line;
}

static void match_key(struct nfile *f, const char *key, const char *value)
{
	char *names;

	if (strcmp(key, "Name")) {
		f->maybe = true;
		return;
	}
	if (!*value) { /* an empty assignment resets the list */
		wset(&f->names, NULL);
		return;
	}
	names = f->names ? xasprintf("%s %s", f->names, value) : strdup(value);
	wset(&f->names, names);
	free(names);
}

/* The file's [Match] goes on each of its entries, and on one entry of its own. */
static void finish(struct nfile *f)
{
	struct wentry *e;

	end_section(f);
	if ((e = wentry_add(f->w, "networkd", f->rel, 1, WS_NETWORKD))) {
		e->flags = N_FILE;
		e->judge = judge_networkd;
	}
	for (size_t i = f->first; i < f->w->n; i++) {
		wset(&f->w->v[i].names, f->names);
		f->w->v[i].flags |= f->maybe ? N_MAYBE : 0;
	}
	free(f->names);
}

static void network_file(struct wctx *w, const char *rel, char *text)
{
	struct nfile f = { .w = w, .rel = rel, .first = w->n };
	struct wini ini = { .p = text };
	char *k, *v;

	while (writers_next_ini(&ini, &k, &v)) {
		if (!k)
			section(&f, ini.sect, ini.line);
		else if (!strcmp(ini.sect, "Match"))
			match_key(&f, k, v);
		else if (f.kind && !strcmp(k, "Parent") && strcmp(v, "root"))
			f.not_root = true;
	}
	finish(&f);
}

int writers_networkd(struct wctx *w)
{
	static const char *const dirs[] = { "etc/systemd/network", "run/systemd/network",
					    "usr/local/lib/systemd/network", "usr/lib/systemd/network",
					    "lib/systemd/network" };

	return writers_files(w, dirs, ARRAY_SIZE(dirs), "*.network", network_file);
}
