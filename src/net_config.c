// SPDX-License-Identifier: LGPL-2.1-or-later
/* The net domain's row: the check of [net] keys (a bad line is reported
 * with the rest of the configuration, before anything is written), and what
 * revert and the records need to know of interfaces and qdiscs. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "domain.h"
#include "netlink.h"

static bool one_word(const char *value)
{
	return !strchr(value, ' ') && module_name_valid(value);
}

int net_check_key(const char *key, const char *value, char *why, size_t size)
{
	if (!strcmp(key, "congestion_control") || !strcmp(key, "qdisc")) {
		if (!*value || one_word(value))
			return 0;
		snprintf(why, size, "[net] %s = '%s': expected one name such as bbr or fq", key, value);
		return -EINVAL;
	}
	if (!strcmp(key, "force")) {
		if (!*value || !strcmp(value, "yes") || !strcmp(value, "no"))
			return 0;
		snprintf(why, size, "[net] force = '%s'; allowed: yes no", value);
		return -EINVAL;
	}
	if (!strcmp(key, "interfaces"))
		return 0;
	if (!strncmp(key, "qdisc.", 6)) {
		unsigned long long v;

		return !*value ? 0 : qparam_parse(NULL, key + 6, value, &v, why, size);
	}
	snprintf(why, size, "unknown key '%s' in [net]; allowed: congestion_control qdisc qdisc.PARAM interfaces force", key);
	return -EINVAL;
}

/* Revert: the qdisc records go back to the kernel in one batch. */
bool net_batched(const char *setting)
{
	return !strcmp(setting, "qdisc");
}

int net_revert_batch(struct ctx *c, struct item **items, const char **values, size_t n)
{
	int r = net_revert_qdiscs(c, items, values, n);

	if (r != -EXDEV)
		return r;
	for (size_t k = 0; k < n; k++) {
		item_setf(&items[k]->error, "netlink reaches only the running kernel, not --root %s", c->root.dir);
		items[k]->result = RES_FAILED;
	}
	return 0;
}

/* The index interface name has now, or 0 (none by that name, or unreadable:
 * revert then matches no record by index). */
int net_iface_index(const struct root *r, const char *name)
{
	int i = net_ifindex_of(r, name);

	return i > 0 ? i : 0;
}
