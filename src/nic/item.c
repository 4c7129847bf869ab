// SPDX-License-Identifier: LGPL-2.1-or-later
/* The NIC's items: one per interface and setting (its record path by
 * index), and which settings recreate the interface's queues. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "nic/internal.h"

/* The interface's item of setting: an alias and a kernel name may both
 * set a feature, the later line winning (entries come in the
 * configuration's order), as for one key. */
struct item *nic_add_item(struct ctx *c, struct plan *p, const struct nic_iface *ifc, const char *setting,
			  const struct cfg_entry *e)
{
	char path[PATH_MAX];
	struct item *it = NULL;

	nic_record_path(ifc->netns, ifc->ifindex, setting, path, sizeof(path));
	for (size_t i = p->n; !it && i-- > 0;)
		if (!strcmp(p->v[i].domain, "nic") && !strcmp(p->v[i].path, path))
			it = &p->v[i];
	if (it) {
		it->action = ACT_CHANGE, it->unmet = it->unknown = false;
		item_set(&it->current, NULL), item_set(&it->error, NULL), item_set(&it->reason, NULL);
	} else {
		it = plan_add(p, "nic", ifc->name, setting, path);
	}
	if (!it)
		return NULL;
	item_from_entry(it, e);
	it->kind = ITEM_ETHTOOL;
	it->ifindex = ifc->ifindex;
	return it;
}

/* A change of channels recreates the interface's queues. */
bool nic_reshapes(const char *setting)
{
	return !strncmp(setting, "channels.", 9);
}
