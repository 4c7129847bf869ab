// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The initramfs domain: one item, the image of the kernel the root runs (or
 * --kernel names), which plan shows and verify fails when it carries
 * another earlytune binary or configuration than the root. Nothing to
 * apply: rebuilding an image is the distribution tool's job, named in the
 * reason.
 */
#include <errno.h>
#include <string.h>

#include "engine/item.h"
#include "image/image.h"
#include "image/initrd.h"

static const char *const state_names[] = {
	[INITRD_NONE] = "none", [INITRD_UNREADABLE] = "unreadable", [INITRD_WITHOUT] = "without earlytune",
	[INITRD_STALE] = "stale", [INITRD_CURRENT] = "current",
};

int initramfs_plan(struct ctx *c, struct plan *p)
{
	struct initrd_report rep;
	struct item *it;
	int r;

	r = initrd_check(&c->root, c->kernel.release, &rep);
	if (r == 0 && rep.state == INITRD_NONE)
		return 0; /* no image (a microVM, a container): nothing to check */
	it = plan_add(p, "initramfs", c->kernel.release, "earlytune", rep.image);
	if (!it)
		return -ENOMEM;
	if (r < 0) {
		it->action = ACT_ERROR;
		item_setf(&it->error, "cannot compare the initramfs with the root: %s", strerror(-r));
		return 0;
	}
	item_set(&it->current, state_names[rep.state]);
	item_set(&it->desired, state_names[INITRD_CURRENT]);
	it->action = rep.state == INITRD_CURRENT ? ACT_KEEP : ACT_SKIP;
	it->foreign = rep.state == INITRD_STALE || rep.state == INITRD_WITHOUT;
	if (it->foreign)
		item_setf(&it->reason, "%s: rebuild it (%s)", rep.detail, rep.rebuild);
	else
		item_set(&it->reason, rep.detail);
	return 0;
}
