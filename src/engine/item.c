// SPDX-License-Identifier: LGPL-2.1-or-later
/* Plan items: what one setting is, should be, and what happened to it. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "engine/internal.h"
#include "engine/item.h"

struct item *plan_add(struct plan *p, const char *domain, const char *target,
		      const char *setting, const char *path)
{
	size_t lt = strlen(target) + 1, ls = strlen(setting) + 1, lp = strlen(path) + 1;
	struct item *it;

	if (array_grow(&p->v, &p->cap, p->n, sizeof(*p->v), 64) < 0)
		return NULL;
	it = &p->v[p->n];
	*it = (struct item){ .domain = domain, .action = ACT_KEEP };
	/* The three in one allocation: a 1,000-disk plan made and freed
	 * 4,000 fewer. */
	it->names = malloc(lt + ls + lp);
	p->n++;
	if (!it->names)
		return NULL;
	it->names_len = lt + ls + lp;
	it->target = memcpy(it->names, target, lt);
	it->setting = memcpy(it->target + lt, setting, ls);
	it->path = memcpy(it->setting + ls, path, lp);
	return it;
}

/* Whether s is in the item's names (not replaced since plan_add). */
static bool in_names(const struct item *it, const char *s)
{
	uintptr_t at = (uintptr_t)s, start = (uintptr_t)it->names;

	return it->names && at >= start && at - start < it->names_len;
}

void item_set_name(struct item *it, char **field, const char *value)
{
	char *copy = value ? strdup(value) : NULL;

	if (!in_names(it, *field))
		free(*field);
	*field = copy;
}

/* The file the plan read current through, kept for apply's write. */
void item_hold_fd(struct item *it, int fd, size_t len)
{
	item_drop_fd(it);
	it->held = true, it->fd = fd, it->fdlen = len;
}

void item_drop_fd(struct item *it)
{
	if (it->held)
		fd_release(it->fd);
	it->held = false;
}

void item_set(char **field, const char *value)
{
	char *copy = value ? strdup(value) : NULL;

	free(*field);
	*field = copy;
}

/* vasprintf, NULL when out of memory. */
_printf_(1, 0) static char *vformat(const char *fmt, va_list ap)
{
	return fmt_alloc_v(fmt, ap);
}

void item_setf(char **field, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vformat(fmt, ap);
	va_end(ap);
	free(*field);
	*field = s;
}

/* Adds a clause to the reason, after a space only when there is one: a
 * reason never starts with a space or reads "-". Appended in place: a
 * clause for each of 1,000 disks formatted apart and then with the reason
 * was two allocations and two copies more each. */
void item_add_reason(struct item *it, const char *fmt, ...)
{
	size_t old = it->reason && *it->reason ? strlen(it->reason) + 1 : 0;
	char small[256], *s;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = fmt_v(small, sizeof(small), fmt, ap);
	va_end(ap);
	s = n < 0 ? NULL : realloc(old ? it->reason : NULL, old + (size_t)n + 1);
	if (!s)
		return;
	if ((size_t)n < sizeof(small)) {
		memcpy(s + old, small, (size_t)n + 1);
	} else {
		va_start(ap, fmt);
		fmt_v(s + old, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	if (old)
		s[old - 1] = ' ';
	else
		free(it->reason); /* an empty one */
	it->reason = s;
}

void item_unknown(struct item *it, const char *fmt, ...)
{
	va_list ap;

	it->action = ACT_SKIP;
	it->unknown = true;
	it->unmet = false;
	free(it->reason);
	va_start(ap, fmt);
	it->reason = vformat(fmt, ap);
	va_end(ap);
}

/* The item failed: its error is the message, then the errno text. */
void item_fail(struct item *it, int err, const char *fmt, ...)
{
	_cleanup_(freep) char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	msg = vformat(fmt, ap);
	va_end(ap);
	it->result = RES_FAILED;
	item_setf(&it->error, "%s: %s", msg ? msg : "failed", strerror(-err));
}

void item_source(struct item *it, const struct cfg_entry *e)
{
	free(it->source);
	it->source = config_source(e);
}

void item_from_entry(struct item *it, const struct cfg_entry *e)
{
	item_set(&it->reason, e->reason);
	item_source(it, e);
}

static void item_free(struct item *it)
{
	item_drop_fd(it);
	if (!in_names(it, it->target))
		free(it->target);
	if (!in_names(it, it->setting))
		free(it->setting);
	if (!in_names(it, it->path))
		free(it->path);
	free(it->names);
	free(it->current);
	free(it->desired);
	free(it->module);
	free(it->error);
	free(it->reason);
	free(it->source);
	free(it->options);
	for (size_t i = 0; i < it->nwriters; i++) {
		free(it->writers[i].file);
		free(it->writers[i].what);
		free(it->writers[i].value);
		free(it->writers[i].why);
	}
	free(it->writers);
}

void plan_keep(struct plan *p, bool (*keep)(const struct item *it))
{
	size_t n = 0;

	for (size_t i = 0; i < p->n; i++) {
		if (keep(&p->v[i]))
			p->v[n++] = p->v[i];
		else
			item_free(&p->v[i]);
	}
	p->n = n;
}

void plan_free(struct plan *p)
{
	/* Last made, first freed: freed in the order they were made, the
	 * items' chunks waited in malloc's bins to be merged later (1,000
	 * disks: 0.6 M instructions more of malloc_consolidate and
	 * unlink_chunk, as callgrind counts them). */
	for (size_t i = p->n; i-- > 0;)
		item_free(&p->v[i]);
	free(p->v);
	*p = (struct plan){ 0 };
}

/* 0 when an attribute's content means the item's desired value: selector
 * files compare their active choice, numbers compare as numbers. */
int item_compare_value(const struct item *it, const char *current)
{
	char active[128];
	long long a, b;

	if (!current || !it->desired)
		return -1;
	if (it->selector) {
		if (selector_active(current, active, sizeof(active)) < 0)
			return -1;
		return strcmp(active, it->desired);
	}
	if (parse_s64(current, &a) == 0 && parse_s64(it->desired, &b) == 0)
		return a == b ? 0 : 1;
	return strcmp(current, it->desired);
}

static const char *const action_names[] = { "change", "keep", "skip", "error" };
static const char *const result_names[] = { NULL, "applied", "failed" };

const char *action_name(enum action a)
{
	return action_names[a];
}

const char *result_name(enum result r)
{
	return result_names[r];
}

/* What a reader sees for a value that is not there. */
const char *dash(const char *s)
{
	return s && *s ? s : "-";
}

static const char *const verdict_names[] = { "holds", "drifted", "unmet", "not_applicable", "unknown", "not_applied" };

const char *verdict_name(enum verdict v)
{
	return verdict_names[v];
}

/* verify's verdict on an item, which plan, its JSON and the metrics share. */
enum verdict item_verdict(const struct item *it)
{
	if (it->action == ACT_CHANGE || it->action == ACT_ERROR || it->foreign)
		return V_DRIFTED;
	if (it->action == ACT_SKIP && it->unknown)
		return V_UNKNOWN;
	if (it->action == ACT_SKIP)
		return it->unmet ? V_UNMET : V_NA;
	/* In place, and still not possible here (a nofile above fs.nr_open). */
	if (it->unmet)
		return V_UNMET;
	return V_HOLDS;
}

/* The verdict in its plan: where earlytune has not applied, a value it
 * would change was never its to keep (an unreadable one is still an error,
 * another writer's value that will not stay still drift). */
enum verdict plan_verdict(const struct plan *p, const struct item *it)
{
	enum verdict v = item_verdict(it);

	return p->unapplied && v == V_DRIFTED && it->action == ACT_CHANGE ? V_NOT_APPLIED : v;
}
