// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Debian/Ubuntu GRUB: earlytune's own drop-in in /etc/default/grub.d,
 * which update-grub turns into grub.cfg.
 */
#include <errno.h>
#include <string.h>

#include "cmdline/internal.h"

/* earlytune's own drop-in, appending to
 * GRUB_CMDLINE_LINUX_DEFAULT so what cloud images assign in
 * 50-cloudimg-settings.cfg stays. It carries everything earlytune added,
 * booted or not. A drop-in someone edited is not overwritten. */
static int grub_add(struct apply *ap)
{
	_cleanup_(freep) char *old = NULL, *was = NULL, *more = NULL, *body = NULL;
	int r = bl_read(&ap->c->root, GRUB_DROPIN, &old);

	if (r < 0 && r != -ENOENT)
		return bl_read_error(ap->c, GRUB_DROPIN, r);
	r = grub_dropin_body(ap->prev->params, &was);
	if (r >= 0 && old && strcmp(old, was))
		return bl_edited(GRUB_DROPIN);
	if (r >= 0)
		r = kcmd_missing(ap->prev->params, ap->params, &more);
	if (r >= 0)
		r = added_next(ap->prev, ap->be->name, more, &ap->next);
	if (r >= 0)
		r = grub_dropin_body(ap->next.params, &body);
	if (r < 0)
		return r;
	ap->shown = ap->next.params;
	if (old && !strcmp(old, body))
		return 0;
	return added_write(ap, GRUB_DROPIN, body, old);
}

/* The drop-in is earlytune's own: deleted while it holds exactly what
 * earlytune wrote; an edited one is left to whoever edited it. */
static int grub_remove(struct ctx *c, const struct added *a, bool *changed)
{
	_cleanup_(freep) char *old = NULL, *was = NULL;
	int r = bl_read(&c->root, GRUB_DROPIN, &old);

	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return bl_read_error(c, GRUB_DROPIN, r);
	r = grub_dropin_body(a->params, &was);
	if (r < 0)
		return r;
	if (strcmp(old, was))
		return bl_edited(GRUB_DROPIN);
	r = root_unlink(&c->root, GRUB_DROPIN, 0);
	*changed = r >= 0;
	return r >= 0 || r == -ENOENT ? 0 : bl_change_error("delete", GRUB_DROPIN, r);
}

const struct backend backend_grub = {
	.name = "grub",
	.probes = { { "etc/default/grub", NULL } },
	.add = grub_add,
	.remove = grub_remove,
	.update = "update-grub",
	.updates = "grub.cfg",
};
