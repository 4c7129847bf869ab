// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The rows of the item table. A skip that many devices share (an image with
 * snaps has 10–20 loop devices, each skipped for the same reason) is one
 * row for all of them: the same domain, setting, values, source and reason
 * once each device's own name is taken out of it, and names of one kind
 * (a common prefix: two modules are not a group). The row's target is
 * "loopN", which also stands for the name in the reason; the note first
 * says which ("loop0..loop19 (20)", or each name when the numbers have
 * gaps). --verbose and --json show every item.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/internal.h"

static bool collapsible(const struct item *it)
{
	return it->action == ACT_SKIP && !it->error && !it->nwriters && it->result == RES_NONE;
}

/* a and b are equal once each one's own target is taken out of it. */
static bool same_but_name(const char *a, const char *ta, const char *b, const char *tb)
{
	size_t la = strlen(ta), lb = strlen(tb);

	if (!a || !b)
		return a == b;
	while (*a || *b) {
		if (la && lb && !strncmp(a, ta, la) && !strncmp(b, tb, lb)) {
			a += la;
			b += lb;
			continue;
		}
		if (*a != *b)
			return false;
		a++;
		b++;
	}
	return true;
}

/* Names of one kind start alike, and not with a digit. */
static bool one_kind(const char *a, const char *b)
{
	return *a && *a == *b && !isdigit((unsigned char)*a);
}

static bool alike(const struct item *x, const struct item *y)
{
	return collapsible(x) && collapsible(y) && !strcmp(x->domain, y->domain) && strcmp(x->target, y->target) &&
	       one_kind(x->target, y->target) &&
	       streq_ptr(x->setting, y->setting) && streq_ptr(x->current, y->current) &&
	       streq_ptr(x->desired, y->desired) && streq_ptr(x->source, y->source) && streq_ptr(x->cls, y->cls) &&
	       x->unmet == y->unmet && x->unknown == y->unknown && x->foreign == y->foreign &&
	       same_but_name(x->reason, x->target, y->reason, y->target);
}

/* The names' common prefix without trailing digits ("loop" of loop1 and
 * loop10); its length. */
static size_t name_prefix(const struct plan *p, const size_t *members, size_t n)
{
	const char *first = p->v[members[0]].target;
	size_t len = strlen(first);

	for (size_t i = 1; i < n; i++) {
		const char *t = p->v[members[i]].target;
		size_t k = 0;

		while (k < len && t[k] == first[k])
			k++;
		len = k;
	}
	while (len && isdigit((unsigned char)first[len - 1]))
		len--;
	return len;
}

/* Whether every name is prefix + a number and the numbers, distinct, leave
 * no gap: "loop0..loop19" then says it all. */
static bool contiguous(const struct plan *p, const size_t *members, size_t n, size_t plen, size_t *lo_i,
		       size_t *hi_i)
{
	unsigned long lo = ~0UL, hi = 0;

	for (size_t i = 0; i < n; i++) {
		const char *t = p->v[members[i]].target + plen;
		char *end;
		unsigned long v;

		if (!isdigit((unsigned char)*t) || (*t == '0' && t[1]))
			return false;
		v = strtoul(t, &end, 10);
		if (*end || v > 1000000)
			return false;
		if (v < lo)
			lo = v, *lo_i = members[i];
		if (v >= hi)
			hi = v, *hi_i = members[i];
	}
	return hi - lo + 1 == n;
}

/* reason with each occurrence of name replaced by what. */
static char *replace_name(const char *reason, const char *name, const char *what)
{
	struct strbuf sb = { 0 };
	size_t len = strlen(name);

	for (const char *s = reason; *s;) {
		if (len && !strncmp(s, name, len)) {
			sb_printf(&sb, "%s", what);
			s += len;
		} else {
			sb_put(&sb, s++, 1);
		}
	}
	if (sb.oom || !sb.s) {
		sb_free(&sb);
		return strdup("");
	}
	return sb.s;
}

/* The row that stands for a group: its target and reason, owned by rows. */
static int group_row(struct rows *r, const struct plan *p, const size_t *members, size_t n, struct item *row)
{
	const struct item *lead = &p->v[members[0]];
	size_t plen = name_prefix(p, members, n), lo = 0, hi = 0;
	bool run = n > 2 && contiguous(p, members, n, plen, &lo, &hi);
	char *target = xasprintf("%.*sN", (int)plen, lead->target), *reason;
	_cleanup_(freep) char *why = lead->reason && target ? replace_name(lead->reason, lead->target, target) : NULL;
	struct strbuf list = { 0 };

	if (run)
		sb_printf(&list, "%s..%s", p->v[lo].target, p->v[hi].target);
	for (size_t i = 0; !run && i < n; i++)
		sb_printf(&list, "%s%s", i ? " " : "", p->v[members[i]].target);
	reason = xasprintf("%s (%zu)%s%s", list.s ? list.s : "", n, why && *why ? ": " : "", why ? why : "");
	sb_free(&list);
	r->owned[r->nowned++] = target;
	r->owned[r->nowned++] = reason;
	if (!target || !reason)
		return -ENOMEM;
	*row = *lead;
	row->target = target;
	row->reason = reason;
	return 0;
}

/* lead[i]: the first item alike to item i (i itself when none before). */
static void find_groups(const struct plan *p, size_t *lead, size_t *count)
{
	size_t *leaders = malloc((p->n + 1) * sizeof(*leaders)), nl = 0;

	for (size_t i = 0; i < p->n; i++) {
		lead[i] = i;
		for (size_t k = 0; leaders && k < nl && lead[i] == i; k++)
			if (alike(&p->v[leaders[k]], &p->v[i]))
				lead[i] = leaders[k];
		count[lead[i]]++;
		if (lead[i] == i && leaders && collapsible(&p->v[i]))
			leaders[nl++] = i;
	}
	free(leaders);
}

static int add_group(struct rows *r, const struct plan *p, const size_t *lead, size_t i, size_t n)
{
	_cleanup_(freep) size_t *members = malloc(n * sizeof(*members));
	size_t m = 0;

	if (!members)
		return -ENOMEM;
	for (size_t j = i; j < p->n && m < n; j++)
		if (lead[j] == i)
			members[m++] = j;
	r->v[r->n++] = &r->groups[r->ngroups];
	return group_row(r, p, members, m, &r->groups[r->ngroups++]);
}

static bool any_collapsible(const struct plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		if (collapsible(&p->v[i]))
			return true;
	return false;
}

/* The rows of p: each item, or with collapse each group of alike skips as
 * one row where the group first stands. A plan without skips (a first
 * apply) has no group: no room is made for them. */
int rows_build(struct rows *r, const struct plan *p, bool collapse)
{
	_cleanup_(freep) size_t *lead = NULL;
	_cleanup_(freep) size_t *count = NULL;
	int rr = 0;

	*r = (struct rows){ 0 };
	collapse = collapse && any_collapsible(p);
	r->v = calloc(p->n + 1, sizeof(*r->v));
	if (!r->v)
		return -ENOMEM;
	if (collapse) {
		/* a group has two members or more */
		lead = calloc(p->n + 1, sizeof(*lead));
		count = calloc(p->n + 1, sizeof(*count));
		r->groups = calloc(p->n / 2 + 1, sizeof(*r->groups));
		r->owned = calloc(p->n + 1, sizeof(*r->owned));
		if (!lead || !count || !r->groups || !r->owned)
			return -ENOMEM;
		find_groups(p, lead, count);
	}
	for (size_t i = 0; i < p->n && rr == 0; i++) {
		if (collapse && lead[i] != i)
			continue;
		if (collapse && count[i] > 1)
			rr = add_group(r, p, lead, i, count[i]);
		else
			r->v[r->n++] = &p->v[i];
	}
	return rr;
}

void rows_free(struct rows *r)
{
	for (size_t i = 0; r->owned && i < r->nowned; i++)
		free(r->owned[i]);
	free(r->owned);
	free(r->groups);
	free(r->v);
	*r = (struct rows){ 0 };
}
