// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The bootloader backends of `earlytune cmdline apply/remove`: one table,
 * looked up by name (--backend, the record) or by the files each leaves.
 */
#include <errno.h>
#include <string.h>

#include "base/log.h"
#include "cmdline/internal.h"

/* Detection takes the first whose files exist: an ostree system has BLS
 * entries too, and a BLS system /etc/default/grub. */
static const struct backend *const backends[] = {
	&backend_ostree, &backend_bls, &backend_grub, &backend_kinstall, &backend_uki,
};

const struct backend *backend_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(backends); i++)
		if (!strcmp(backends[i]->name, name))
			return backends[i];
	return NULL;
}

void backend_names(struct strbuf *sb)
{
	for (size_t i = 0; i < ARRAY_SIZE(backends); i++)
		sb_printf(sb, "%s%s", i ? " " : "", backends[i]->name);
}

/* 1 when the probe's path exists (or holds a file matching its pattern),
 * 0 when not, -errno when that cannot be told. */
static int probe_hit(const struct root *r, const struct probe *p)
{
	int n;

	if (!p->pattern)
		return root_access(r, p->path);
	n = root_match(r, p->path, p->pattern, NULL, NULL);
	return n < 0 ? n : n > 0;
}

/* 0 with *out set (or NULL when nothing is found), -errno when a path that
 * decides it cannot be examined: unreadable is not "no such bootloader". */
int backend_detect(const struct root *r, const struct backend **out)
{
	*out = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(backends); i++) {
		const struct backend *b = backends[i];

		for (size_t k = 0; k < ARRAY_SIZE(b->probes) && b->probes[k].path; k++) {
			int hit = probe_hit(r, &b->probes[k]);

			if (hit < 0) {
				log_msg(LOG_ERR, "cannot examine %s/%s: %s: name the bootloader with --backend",
					r->is_host ? "" : r->dir, b->probes[k].path, strerror(-hit));
				return hit;
			}
			if (hit) {
				*out = b;
				return 0;
			}
		}
	}
	return 0;
}
