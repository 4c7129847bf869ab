// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Other writers of an item's value, and which one wins. The readers
 * (tuned.c, udev.c, files.c, networkd.c, link.c, nm.c) turn each source into entries
 * once per run, and only the sources the plan's items need; here every
 * entry judges each item: whether it applies, and whether it runs after
 * earlytune's write. Of those that run after, the latest stage (then the
 * latest in its stage) wins; when none does, earlytune's value is the last
 * word.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "writers/internal.h"

/* The sources an item can have writers in. */
static unsigned sources_of(const struct item *it)
{
	unsigned files = WSRC_TMPFILES | WSRC_SYSFS;

	if (!strcmp(it->domain, "block") && strcmp(it->setting, "-"))
		return files | WSRC_TUNED | WSRC_UDEV;
	if (!strcmp(it->domain, "thp"))
		return files | WSRC_TUNED;
	if (!strcmp(it->domain, "net") && !strcmp(it->target, "sysctl"))
		return files | WSRC_TUNED | WSRC_SYSCTL;
	if (!strcmp(it->domain, "sched") && !strcmp(it->target, "sysctl"))
		return files | WSRC_TUNED | WSRC_SYSCTL;
	if (!strcmp(it->domain, "sched") && !strcmp(it->target, "debugfs"))
		return files | WSRC_TUNED;
	if (!strcmp(it->domain, "sysfs")) /* an interface's file: .link files set some */
		return files | WSRC_TUNED | WSRC_UDEV | (strstr(it->path, "/net/") ? WSRC_LINK : 0);
	if (!strcmp(it->domain, "net") && !strcmp(it->setting, "qdisc"))
		return WSRC_NETWORKD;
	if (!strcmp(it->domain, "nic"))
		return files | WSRC_TUNED | WSRC_UDEV | WSRC_LINK | WSRC_NM;
	return 0;
}

static void load(struct wctx *w, unsigned want)
{
	static const struct {
		unsigned bit;
		int (*read)(struct wctx *w);
	} readers[] = {
		{ WSRC_SYSCTL, writers_sysctl }, { WSRC_TMPFILES, writers_tmpfiles }, { WSRC_UDEV, writers_udev },
		{ WSRC_SYSFS, writers_sysfs },   { WSRC_NETWORKD, writers_networkd }, { WSRC_TUNED, writers_tuned },
		{ WSRC_LINK, writers_link },     { WSRC_NM, writers_nm },
	};

	for (size_t i = 0; i < ARRAY_SIZE(readers); i++)
		if (want & readers[i].bit & ~w->loaded) {
			w->loaded |= readers[i].bit;
			if (readers[i].read(w) == -ENOMEM)
				writers_error(w, "(other writers)", -ENOMEM);
		}
}

static bool later(const struct wentry *a, const struct wentry *b)
{
	return !b || a->stage > b->stage || (a->stage == b->stage && a->seq > b->seq);
}

static bool same_value(const struct item *it, const char *value)
{
	long long a, b;

	if (!value || !it->desired)
		return false;
	if (nic_same_cpus(it, value, it->desired))
		return true;
	if (parse_s64(value, &a) == 0 && parse_s64(it->desired, &b) == 0)
		return a == b;
	return !strcmp(value, it->desired);
}

static void add_writer(struct item *it, const struct wentry *e, const struct wjudge *j, const struct wentry *winner)
{
	struct writer *wr = &it->writers[it->nwriters++];
	bool wins = e == winner;

	*wr = (struct writer){ .line = e->line, .tool = e->tool, .wins = wins };
	wset(&wr->file, e->file);
	wset(&wr->what, e->what);
	wset(&wr->value, e->value);
	if (wins)
		wsetf(&wr->why, "%s%s: wins%s", j->applies == 2 ? "may apply: " : "", j->why,
		      same_value(it, e->value) ? ", with earlytune's value" : "");
	else if (j->beats)
		wsetf(&wr->why, "%s%s, overridden by %s:%d", j->applies == 2 ? "may apply: " : "", j->why,
		      winner->file, winner->line);
	else
		wsetf(&wr->why, "%s%s", j->applies == 2 ? "may apply: " : "", j->why);
}

/* One item: the entries that apply, in the order they run; the winner. */
static void annotate(const struct wctx *w, struct item *it)
{
	struct wjudge *j = calloc(w->n ? w->n : 1, sizeof(*j));
	const struct wentry *winner = NULL;
	struct item view;
	char path[PATH_MAX];
	const struct item *as;
	size_t n = 0;

	if (!j)
		return;
	writers_cache_item(w, it);
	as = writers_item_view(w, it, &view, path, sizeof(path));
	for (size_t i = 0; i < w->n; i++) {
		w->v[i].judge(&w->v[i], w, as, &j[i]);
		if (!j[i].applies)
			continue;
		n++;
		if (j[i].beats && later(&w->v[i], winner))
			winner = &w->v[i];
	}
	if (n && (it->writers = calloc(n, sizeof(*it->writers))))
		for (size_t i = 0; i < w->n; i++)
			if (j[i].applies)
				add_writer(it, &w->v[i], &j[i], winner);
	free(j);
}

void writers_ctx_free(struct wctx *w)
{
	wentries_drop(w, 0);
	free(w->v);
	for (size_t i = 0; i < w->nerrors; i++)
		free(w->errors[i]);
	free(w->errors);
	writers_cache_free(w);
}

int writers_annotate(struct ctx *c, struct plan *p)
{
	struct wctx w = { .r = &c->root, .cmdline = c->kernel.cmdline, .release = c->kernel.release,
			  .kernel = &c->kernel };
	unsigned want = 0;
	int n;

	p->writers = true;
	for (size_t i = 0; i < p->n; i++)
		want |= sources_of(&p->v[i]);
	load(&w, want);
	writers_cache_init(&w);
	for (size_t i = 0; i < p->n && w.n; i++)
		if (sources_of(&p->v[i]))
			annotate(&w, &p->v[i]);
	for (size_t i = 0; i < w.nerrors; i++)
		log_msg(LOG_ERR, "other writers: %s", w.errors[i]);
	n = (int)w.nerrors;
	writers_ctx_free(&w);
	return n;
}

/* The writer most likely behind the value verify found: the winner when it
 * wrote that value (or one only it knows), else any writer of that value. */
const struct writer *writers_culprit(const struct item *it)
{
	const struct writer *any = NULL;
	char active[128];
	const char *cur = it->current;

	if (cur && it->selector)
		cur = selector_current(cur, active, sizeof(active));
	for (size_t i = 0; i < it->nwriters; i++) {
		const struct writer *x = &it->writers[i];
		bool same = cur && x->value && (!strcmp(x->value, cur) || (x->value[0] == '>' && !strcmp(x->value + 1, cur)) ||
						nic_same_cpus(it, x->value, cur));

		if (x->wins && (same || !x->value))
			return x;
		if (same && !any)
			any = x;
	}
	return any;
}
