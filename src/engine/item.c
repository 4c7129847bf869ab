// SPDX-License-Identifier: LGPL-2.1-or-later
/* Plan items: what one setting is, should be, and what happened to it. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "engine/internal.h"
#include "engine/item.h"

/* The items' strings (names, values, reasons, sources, errors) live in one
 * arena as long as the process: an item's string is never freed alone, so
 * items share the ones they repeat (1,000 disks' items hold a few reasons,
 * sources and values) and copying an item copies pointers. A 1,000-disk
 * run made and freed 10,000 strings of malloc, most of its allocations,
 * and touched a page of heap for each 4 KiB of reasons. An item's string is
 * never written in place. */
static struct arena strings;

/* s[0..len) as an item's string. */
static char *item_string(const char *s, size_t len)
{
	char *d = arena_alloc(&strings, len + 1);

	if (d) {
		memcpy(d, s, len);
		d[len] = '\0';
	}
	return d;
}

/* The long strings items repeat (reasons, sources): the last ones made. */
#define SHARED 8
static struct {
	const char *s;
	size_t len;
} shared[SHARED];
static unsigned shared_next;

/* item_string, or one of the last shared strings when equal. */
static char *shared_string(const char *s, size_t len)
{
	char *d;

	for (unsigned i = 0; i < SHARED; i++)
		if (shared[i].len == len && shared[i].s && !memcmp(shared[i].s, s, len))
			return (char *)shared[i].s;
	d = item_string(s, len);
	if (d) {
		shared[shared_next].s = d, shared[shared_next].len = len;
		shared_next = (shared_next + 1) % SHARED;
	}
	return d;
}

void item_set_shared(char **field, const char *value)
{
	*field = value ? shared_string(value, strlen(value)) : NULL;
}

void item_strings_free(void)
{
	arena_free(&strings);
	memset(shared, 0, sizeof(shared));
}

struct item *plan_add(struct plan *p, const char *domain, const char *target,
		      const char *setting, const char *path)
{
	size_t lt = strlen(target) + 1, ls = strlen(setting) + 1, lp = strlen(path) + 1;
	char *names = arena_alloc(&strings, lt + ls + lp);
	struct item *it;

	if (array_grow(&p->v, &p->cap, p->n, sizeof(*p->v), 64) < 0)
		return NULL;
	it = &p->v[p->n++];
	*it = (struct item){ .domain = domain, .action = ACT_KEEP };
	if (!names)
		return NULL;
	it->target = memcpy(names, target, lt);
	it->setting = memcpy(it->target + lt, setting, ls);
	it->path = memcpy(it->setting + ls, path, lp);
	return it;
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
	*field = value ? item_string(value, strlen(value)) : NULL;
}

/* fmt's text, n bytes: in small when it fits, else in *big (malloc'd,
 * the caller's to free). NULL: out of memory or a bad format. */
_printf_(5, 0) static const char *formatted(char *small, size_t size, char **big, size_t *n, const char *fmt,
					    va_list ap)
{
	va_list copy;
	int len;

	va_copy(copy, ap);
	len = fmt_v(small, size, fmt, copy);
	va_end(copy);
	if (len < 0)
		return NULL;
	*n = (size_t)len;
	if (*n < size)
		return small;
	*big = fmt_alloc_v(fmt, ap);
	return *big;
}

/* An item's string formatted, on the stack first. */
_printf_(1, 0) static char *vformat(const char *fmt, va_list ap)
{
	_cleanup_(freep) char *big = NULL;
	char small[256];
	size_t n;
	const char *t = formatted(small, sizeof(small), &big, &n, fmt, ap);

	return t ? item_string(t, n) : NULL;
}

void item_setf(char **field, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	*field = vformat(fmt, ap);
	va_end(ap);
}

/* a, a space and b (a NULL: b alone) as an item's string. */
static char *joined(const char *a, size_t la, const char *b, size_t lb)
{
	char buf[512], *d;
	size_t len = a ? la + 1 + lb : lb;

	d = len < sizeof(buf) ? buf : arena_alloc(&strings, len + 1);
	if (!d)
		return NULL;
	if (a) {
		memcpy(d, a, la);
		d[la] = ' ';
	}
	memcpy(d + (a ? la + 1 : 0), b, lb);
	d[len] = '\0';
	return d == buf ? shared_string(buf, len) : d;
}

/* Adds a clause to the reason, after a space only when there is one: a
 * reason never starts with a space or reads "-". */
void item_add_reason(struct item *it, const char *fmt, ...)
{
	const char *old = it->reason && *it->reason ? it->reason : NULL, *t;
	_cleanup_(freep) char *big = NULL;
	char small[256], *s;
	size_t n;
	va_list ap;

	va_start(ap, fmt);
	t = formatted(small, sizeof(small), &big, &n, fmt, ap);
	va_end(ap);
	s = t ? joined(old, old ? strlen(old) : 0, t, n) : NULL;
	if (s)
		it->reason = s;
}

void item_unknown(struct item *it, const char *fmt, ...)
{
	va_list ap;

	it->action = ACT_SKIP;
	it->unknown = true;
	it->unmet = false;
	va_start(ap, fmt);
	it->reason = vformat(fmt, ap);
	va_end(ap);
}

/* The item failed: its error is the message, then the errno text. */
void item_fail(struct item *it, int err, const char *fmt, ...)
{
	char *msg;
	va_list ap;

	va_start(ap, fmt);
	msg = vformat(fmt, ap);
	va_end(ap);
	it->result = RES_FAILED;
	item_setf(&it->error, "%s: %s", msg ? msg : "failed", strerror(-err));
}

void item_source(struct item *it, const struct cfg_entry *e)
{
	char buf[PATH_MAX + 16];
	int n = config_source_in(e, buf, sizeof(buf));

	if (n >= 0 && (size_t)n < sizeof(buf)) {
		it->source = shared_string(buf, (size_t)n);
	} else {
		_cleanup_(freep) char *src = config_source(e);

		item_set_shared(&it->source, src);
	}
}

void item_from_entry(struct item *it, const struct cfg_entry *e)
{
	item_set(&it->reason, e->reason);
	item_source(it, e);
}

/* Its strings stay in the arena. */
static void item_free(struct item *it)
{
	item_drop_fd(it);
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
	for (size_t i = 0; i < p->n; i++)
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
