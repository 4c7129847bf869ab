// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ostree and bootc keep kernel arguments in the deployment: earlytune
 * prints the rpm-ostree command that adds them and records nothing.
 */
#include "cmdline/internal.h"

static int ostree_add(struct apply *ap)
{
	const char *w;
	size_t n;

	sb_printf(ap->next_step, "rpm-ostree kargs");
	for (const char *p = ap->params; (w = kcmd_word(&p, &n));)
		sb_printf(ap->next_step, kcmd_needs_quotes(w, n) ? " '--append-if-missing=%.*s'" : " --append-if-missing=%.*s",
			  (int)n, w);
	bl_say(ap->c, "ostree/bootc systems keep kernel arguments in the deployment; run:\n  %s\n", ap->next_step->s);
	return 0;
}

const struct backend backend_ostree = {
	.name = "ostree",
	.probes = { { "run/ostree-booted", NULL }, { "ostree/repo", NULL } },
	.add = ostree_add,
};
