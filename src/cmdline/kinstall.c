// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kernel-install's /etc/kernel/cmdline: edited in place, every byte
 * earlytune did not add kept; deleted on remove only while it is what
 * earlytune created.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "cmdline/internal.h"

#define KINSTALL "etc/kernel/cmdline"

/* Without /etc/kernel/cmdline kernel-install takes /usr/lib/kernel/cmdline,
 * else /proc/cmdline: a new file starts from that, or new kernels lose
 * root=. Any read that fails is the end of it. */
static int kinstall_seed(struct ctx *c, char **out)
{
	_cleanup_(freep) char *proc = NULL;
	int r = bl_read(&c->root, "usr/lib/kernel/cmdline", out);

	if (r != -ENOENT)
		return r < 0 ? bl_read_error(c, "usr/lib/kernel/cmdline", r) : 0;
	r = bl_read(&c->root, "proc/cmdline", &proc);
	if (r < 0) {
		log_msg(LOG_ERR, "no /%s to edit, and /proc/cmdline: %s: create /%s first", KINSTALL,
			strerror(-r), KINSTALL);
		return r;
	}
	return kcmd_base(proc, out);
}

/* The assertion before earlytune writes a command line: every parameter it
 * did not add is still there, in order, and an add never shortens it. */
static int edit_checked(const char *old, const char *new, const char *words, bool adding)
{
	if (kcmd_kept(old, new, words) < 0 || (adding && strlen(new) < strlen(old))) {
		log_msg(LOG_ERR, "internal error: editing /%s would lose parameters; nothing changed", KINSTALL);
		return -EPROTO;
	}
	return 0;
}

/* kernel-install: /etc/kernel/cmdline. Edits keep every other byte. */
static int kinstall_add(struct apply *ap)
{
	_cleanup_(freep) char *old = NULL, *add = NULL, *new = NULL;
	bool created = false;
	int r = bl_read(&ap->c->root, KINSTALL, &old);

	if (r == -ENOENT) {
		created = true;
		r = kinstall_seed(ap->c, &old);
		if (r < 0)
			return r;
	} else if (r < 0) {
		return bl_read_error(ap->c, KINSTALL, r);
	}
	r = kcmd_missing(old, ap->params, &add);
	if (r < 0 || !*add)
		return r;
	r = kcmd_add(old, add, &new);
	if (r == -EINVAL)
		log_msg(LOG_ERR, "/%s ends inside a double quote; nothing changed", KINSTALL);
	if (r >= 0)
		r = edit_checked(old, new, add, true);
	if (r >= 0)
		r = added_next(ap->prev, ap->be->name, add, &ap->next);
	if (r < 0)
		return r;
	/* Delete-on-remove stays possible only while the file is ours unchanged. */
	ap->next.created = created || (ap->prev->wrote && !strcmp(old, ap->prev->wrote));
	ap->next.wrote = ap->next.created ? strdup(new) : NULL;
	if (ap->next.created && !ap->next.wrote)
		return -ENOMEM;
	return added_write(ap, KINSTALL, new, created ? NULL : old);
}

/* Takes out exactly the words earlytune added, from whatever the file holds
 * now; deletes it only while it is byte for byte what earlytune created. */
static int kinstall_remove(struct ctx *c, const struct added *a, bool *changed)
{
	_cleanup_(freep) char *old = NULL, *new = NULL;
	int r = bl_read(&c->root, KINSTALL, &old);

	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return bl_read_error(c, KINSTALL, r);
	if (a->wrote && !strcmp(old, a->wrote)) {
		r = root_unlink(&c->root, KINSTALL, 0);
		if (r >= 0)
			root_unlink(&c->root, "etc/kernel", AT_REMOVEDIR); /* only if now empty */
		*changed = r >= 0;
		return r >= 0 || r == -ENOENT ? 0 : bl_change_error("delete", KINSTALL, r);
	}
	r = kcmd_remove(old, a->params, &new);
	if (r < 0)
		return bl_change_error("edit", KINSTALL, r);
	r = edit_checked(old, new, a->params, false);
	if (r < 0 || !strcmp(old, new))
		return r;
	*changed = true;
	r = root_write_new(&c->root, KINSTALL, new, strlen(new), 0644);
	return r < 0 ? bl_change_error("write", KINSTALL, r) : 0;
}

const struct backend backend_kinstall = {
	.name = "kernel-install",
	.probes = { { KINSTALL, NULL } },
	.add = kinstall_add,
	.remove = kinstall_remove,
};
