// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unified kernel images embed their command line when they are built:
 * detected, so that apply says what to do, but never edited.
 */
#include <errno.h>

#include "base/log.h"
#include "cmdline/internal.h"

static int uki_add(struct apply *ap)
{
	log_msg(LOG_ERR, "unified kernel images embed their command line when they are built: "
			 "nothing earlytune can edit. Add '%s' to the UKI build (ukify --cmdline, or "
			 "/etc/kernel/cmdline for kernel-install) and rebuild", ap->params);
	return -EOPNOTSUPP;
}

const struct backend backend_uki = {
	.name = "uki",
	.probes = { { "boot/EFI/Linux", "*.efi" }, { "efi/EFI/Linux", "*.efi" } },
	.add = uki_add,
};
