// SPDX-License-Identifier: LGPL-2.1-or-later
/* The items of [sysfs "NAME"] sections: one per file its paths name, each
 * read first. A file earlytune cannot hold to the guarantees of every other
 * item (read it, record it, read it back, restore it) is a skip saying why:
 * write-only, read-only, multi-line, too long, or reached through a link
 * that leads out of /sys. */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/item.h"
#include "sysfs/internal.h"

struct section {
	struct ctx *c;
	struct plan *p;
	const char *name;
	const struct cfg_entry *path, *value;
	char iface[NAME_MAX + 1]; /* the interface of a run about one */
};

static void skip(struct item *it, bool unmet, const char *why)
{
	it->action = ACT_SKIP;
	it->unmet = unmet;
	item_set(&it->reason, why);
}

/* Whether it->path is an attribute earlytune can hold: 0, else -1 with a
 * skip or an error set on the item. */
static int usable(struct ctx *c, struct item *it)
{
	_cleanup_(closep) int fd = -1;
	char key[128];
	struct stat st;
	int r;

	if (sysfs_claimed(it->path, key, sizeof(key))) {
		it->action = ACT_SKIP;
		item_setf(&it->reason, "earlytune sets it with %s (one writer per file): set it there", key);
		return -1;
	}
	r = sysfs_confined(&c->root, it->path);
	if (r == 0) {
		it->action = ACT_ERROR;
		item_set(&it->error, "a link on the way leads out of /sys: refused");
		return -1;
	}
	fd = r < 0 ? r : root_openat(&c->root, it->path, O_PATH, 0);
	if (fd < 0 || fstat(fd, &st) < 0) {
		it->action = ACT_ERROR;
		item_setf(&it->error, "cannot open /%s: %s", it->path, strerror(fd < 0 ? -fd : errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode))
		skip(it, true, "not an attribute file (a directory?): [sysfs] writes files");
	else if (!(st.st_mode & 0444))
		skip(it, true, "write-only: its value cannot be read, so earlytune can neither check nor restore it; not written");
	else if (!(st.st_mode & 0222))
		skip(it, true, "read-only: the kernel takes no value here");
	else
		return 0;
	return -1;
}

/* The value now, as one line: 0, or a skip or an error set on it. */
static int current(struct ctx *c, struct item *it, char *out, size_t size)
{
	_cleanup_(freep) char *raw = NULL;
	char active[128];
	int r = root_read_file(&c->root, it->path, &raw, 4096);
	size_t n = r < 0 ? 0 : strlen(raw);

	if (r < 0) {
		it->action = ACT_ERROR;
		item_setf(&it->error, "cannot read /%s: %s", it->path, strerror(-r));
		return r;
	}
	while (n && (raw[n - 1] == '\n' || raw[n - 1] == ' '))
		raw[--n] = '\0';
	if (strchr(raw, '\n')) {
		skip(it, true, "multi-line: not one value earlytune can compare and restore; not written");
		return -EINVAL;
	}
	if (n > SYSFS_VALUE_MAX || strchr(raw, '\t')) {
		skip(it, true, n > SYSFS_VALUE_MAX ? "holds more than earlytune records (240 bytes); not written"
						   : "holds a tab, which the records cannot keep; not written");
		return -EINVAL;
	}
	it->selector = strchr(raw, '[') && selector_active(raw, active, sizeof(active)) == 0;
	snprintf(out, size, "%s", raw);
	item_set(&it->current, it->selector ? active : raw);
	return 0;
}

/* An earlier item of the plan for the same file, or NULL: two values for
 * one file would undo each other at every apply. */
static const struct item *named_before(const struct plan *p, const struct item *it)
{
	for (const struct item *x = p->v; x < it; x++)
		if (!strcmp(x->domain, "sysfs") && !strcmp(x->path, it->path))
			return x;
	return NULL;
}

static void plan_file(const char *rel, void *data)
{
	struct section *s = data;
	struct item *it = plan_add(s->p, "sysfs", s->name, rel + 4, rel);
	const struct item *first;
	char raw[SYSFS_VALUE_MAX + 1];

	if (!it)
		return;
	item_from_entry(it, s->value->reason ? s->value : s->path);
	item_set(&it->desired, s->value->value);
	if ((first = named_before(s->p, it))) {
		it->action = ACT_ERROR;
		item_setf(&it->error, "[sysfs \"%s\"] names this file already: one writer per file, keep one",
			  first->target);
		return;
	}
	if (usable(s->c, it) < 0 || current(s->c, it, raw, sizeof(raw)) < 0)
		return;
	if (it->selector && !selector_offers(raw, it->desired)) {
		it->action = ACT_SKIP, it->unmet = true;
		item_setf(&it->reason, "this kernel does not offer '%s'; it offers: %s", it->desired, raw);
		return;
	}
	it->action = item_compare_value(it, raw) ? ACT_CHANGE : ACT_KEEP;
}

/* A path that names no file here: a glob that matches none is neutral (no
 * such device on this machine); a plain path the kernel lacks is unmet. */
static void plan_none(struct section *s, const char *rel, int err)
{
	struct item *it = plan_add(s->p, "sysfs", s->name, rel + 4, rel);

	if (!it)
		return;
	item_from_entry(it, s->value->reason ? s->value : s->path);
	item_set(&it->desired, s->value->value);
	if (err < 0) {
		it->action = ACT_ERROR;
		item_setf(&it->error, "cannot look for /%s: %s", rel,
			  err == -E2BIG ? "more than 4096 files match" : strerror(-err));
	} else if (!root_exists(&s->c->root, "sys")) {
		item_unknown(it, "no /sys in this tree: whether the kernel has /%s is unknown", rel);
	} else if (sysfs_has_glob(rel)) {
		skip(it, false, "matches no file here");
	} else {
		skip(it, true, "no such file: this kernel (or its modules and devices) does not have it");
	}
}

static void plan_path(struct section *s, const char *rel)
{
	int r = sysfs_expand(&s->c->root, rel, plan_file, s);

	if (r <= 0)
		plan_none(s, rel, r);
}

/* A run about one device (udev's): only the paths under a device's
 * directory whose glob there matches that device, with its name in place
 * of the glob; nothing else is listed. */
static void plan_device_path(struct section *s, const char *rel)
{
	struct ctx *c = s->c;
	struct sysfs_dev d;
	char glob[NAME_MAX + 1], one[PATH_MAX];
	int kind = sysfs_device_path(rel, &d);

	if (!kind || d.len > NAME_MAX)
		return;
	snprintf(glob, sizeof(glob), "%.*s", (int)d.len, rel + d.at);
	for (size_t i = 0; kind == SYSFS_DISK && i < c->ndevices; i++)
		if (!fnmatch(glob, c->devices[i], 0) &&
		    pathf(one, sizeof(one), "%.*s%s%s", (int)d.at, rel, c->devices[i], rel + d.at + d.len) == 0)
			plan_path(s, one);
	if (kind == SYSFS_IFACE && *s->iface && !fnmatch(glob, s->iface, 0) &&
	    pathf(one, sizeof(one), "%.*s%s%s", (int)d.at, rel, s->iface, rel + d.at + d.len) == 0)
		plan_path(s, one);
}

static void plan_section(struct section *s)
{
	char rel[PATH_MAX];
	const char *p = s->path->value;
	size_t n;

	while (*(p += strspn(p, " \t"))) {
		n = strcspn(p, " \t");
		snprintf(rel, sizeof(rel), "%.*s", (int)n - 1, p + 1);
		p += n;
		if (s->c->ndevices || s->c->ifindex || s->c->iface)
			plan_device_path(s, rel);
		else
			plan_path(s, rel);
	}
}

/* The interface a run is about, by name; "" when it names none. */
static void run_iface(struct ctx *c, char *name, size_t size)
{
	*name = '\0';
	if (c->iface)
		snprintf(name, size, "%s", c->iface);
	else if (c->ifindex && sysfs_iface_name(&c->root, c->ifindex, name, size) < 0)
		*name = '\0';
}

int sysfs_plan(struct ctx *c, struct plan *p)
{
	char iface[NAME_MAX + 1] = "";
	bool named = false;

	for (size_t i = 0; i < c->cfg.n; i++) {
		const struct cfg_entry *e = &c->cfg.v[i];
		struct section s = { .c = c, .p = p, .name = e->name };
		bool seen = false;

		if (strcmp(e->section, "sysfs") || !e->name)
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(c->cfg.v[j].section, "sysfs") && streq_ptr(c->cfg.v[j].name, e->name);
		s.path = seen ? NULL : config_get(&c->cfg, "sysfs", e->name, "path");
		s.value = s.path ? config_get(&c->cfg, "sysfs", e->name, "value") : NULL;
		if (s.value && !named) /* looked up once, and only for a section */
			run_iface(c, iface, sizeof(iface)), named = true;
		snprintf(s.iface, sizeof(s.iface), "%s", iface);
		if (s.value)
			plan_section(&s);
	}
	return 0;
}
