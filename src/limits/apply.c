// SPDX-License-Identifier: LGPL-2.1-or-later
/* Writing and removing the limits drop-ins: one file per unit (and one for
 * the manager), holding every limit the configuration gives it, replaced
 * whole (root_write_atomic) or removed when it gives none. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "limits/internal.h"

static bool ours(const struct item *it, const char *path)
{
	return !strcmp(it->domain, "limits") && it->kind == ITEM_DROPIN && !strcmp(it->path, path);
}

/* The drop-in's text from the plan's items of its path; empty: none left. */
static void dropin_text(const struct plan *p, const char *path, struct strbuf *sb)
{
	bool manager = !strncmp(path, LIMITS_MANAGER_DIR "/", sizeof(LIMITS_MANAGER_DIR));

	for (size_t i = 0; i < p->n; i++) {
		const struct item *it = &p->v[i];

		if (!ours(it, path) || !it->desired || !strcmp(it->desired, "unset"))
			continue;
		if (!sb->len)
			sb_printf(sb, "# Written by earlytune from its [limits] configuration (earlytune.conf(5));\n"
				      "# earlytune rewrites it at every boot and `earlytune revert` removes it.\n%s\n",
				  manager ? "[Manager]" : "[Service]");
		sb_printf(sb, "%s=%s\n", it->setting, it->desired);
	}
}

/* The empty UNIT.d directory earlytune made goes with its last file. */
static void remove_dir(const struct root *r, const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (!slash || strncmp(path, LIMITS_UNIT_DIR "/", sizeof(LIMITS_UNIT_DIR)))
		return;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	(void)root_unlink(r, dir, AT_REMOVEDIR); /* not empty: another drop-in stays */
}

static int write_dropin(struct ctx *c, struct plan *p, const char *path)
{
	struct strbuf sb = { 0 };
	char dir[PATH_MAX];
	int r;

	dropin_text(p, path, &sb);
	if (sb.oom) {
		sb_free(&sb);
		return -ENOMEM;
	}
	if (!sb.len) {
		r = root_unlink(&c->root, path, 0);
		if (r == 0 || r == -ENOENT)
			remove_dir(&c->root, path);
		return r == -ENOENT ? 0 : r;
	}
	snprintf(dir, sizeof(dir), "%.*s", (int)(strrchr(path, '/') - path), path);
	r = root_mkdir_p(&c->root, dir, 0755);
	if (r >= 0)
		r = root_write_atomic(&c->root, path, sb.s, sb.len, 0644);
	sb_free(&sb);
	return r;
}

/* Each drop-in with a change, once, at the first of its items. */
int limits_apply(struct ctx *c, struct plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		struct item *it = &p->v[i];
		bool first = true;
		int r;

		if (strcmp(it->domain, "limits") || it->kind != ITEM_DROPIN || it->action != ACT_CHANGE)
			continue;
		for (size_t j = 0; j < i && first; j++)
			first = !(ours(&p->v[j], it->path) && p->v[j].action == ACT_CHANGE);
		if (!first)
			continue;
		r = write_dropin(c, p, it->path);
		for (size_t j = i; j < p->n; j++) {
			if (!ours(&p->v[j], it->path) || p->v[j].action != ACT_CHANGE)
				continue;
			if (r < 0)
				item_fail(&p->v[j], r, "writing /%s", it->path);
			else
				p->v[j].result = RES_APPLIED;
		}
	}
	return 0;
}

bool limits_batched(const char *setting)
{
	return true;
}

/* Revert: what earlytune wrote is removed; there was nothing before it
 * (the name is earlytune's own). */
int limits_revert(struct ctx *c, struct item **items, const char **values, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		struct item *it = items[k];
		const char *base = strrchr(it->path, '/');
		/* Only a file of earlytune's own name: a record is no licence to
		 * remove another. */
		int r = base && !strcmp(base + 1, LIMITS_DROPIN) ? root_unlink(&c->root, it->path, 0) : -EPERM;

		item_set(&it->desired, "unset");
		if (r == -ENOENT) {
			it->action = ACT_SKIP;
			item_set(&it->reason, "earlytune's drop-in is gone already");
			continue;
		}
		item_set(&it->current, "earlytune's drop-in");
		it->action = ACT_CHANGE;
		if (r < 0) {
			item_fail(it, r, "removing /%s", it->path);
			continue;
		}
		remove_dir(&c->root, it->path);
		it->result = RES_APPLIED;
		item_setf(&it->reason, "removed: systemd forgets it at the next daemon-reload%s%s%s",
			  strcmp(it->target, LIMITS_MANAGER) ? "; restart " : "",
			  strcmp(it->target, LIMITS_MANAGER) ? it->target : "",
			  strcmp(it->target, LIMITS_MANAGER) ? " to give it its own limits again" : "");
	}
	return 0;
}

/* A record may name earlytune's own drop-ins under run/systemd/ (revert
 * removes them), and no other file there. */
bool limits_owns_path(const char *path)
{
	static const char dropin[] = "/" LIMITS_DROPIN;
	size_t n = strlen(path);

	return !strncmp(path, "run/systemd/", 12) && n > sizeof(dropin) &&
	       !strcmp(path + n - sizeof(dropin) + 1, dropin);
}
