// SPDX-License-Identifier: LGPL-2.1-or-later
/* [net "NAME"] sections against an interface: match.name, match.driver
 * (the name of its device/driver link; a virtual device's as ethtool -i
 * gives it), match.class (virtual: a device of
 * devices/virtual, such as veth or a bridge; physical: any other), globs,
 * several values = any, every match key of a section; and what the plan
 * needs to know of an interface (its name, driver, the online CPUs). */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "nic/internal.h"

static bool any_glob(const char *value, const char *s)
{
	char w[WORD_MAX];

	while (next_word(&value, w, sizeof(w)))
		if (fnmatch(w, s, 0) == 0)
			return true;
	return false;
}

static const char *iface_class(const struct root *r, const char *name)
{
	char rel[PATH_MAX], link[PATH_MAX];

	snprintf(rel, sizeof(rel), "sys/class/net/%s", name);
	if (root_readlink(r, rel, link, sizeof(link)) < 0)
		return "";
	return strstr(link, "/devices/virtual/") ? "virtual" : "physical";
}

bool nic_section_matches(struct ctx *c, const struct nic_iface *ifc, const char *name)
{
	for (size_t i = 0; i < c->cfg.n; i++) {
		const struct cfg_entry *e = &c->cfg.v[i];
		const char *what = e->key + 6, *s;

		if (strcmp(e->section, "net") || !e->name || strcmp(e->name, name) || strncmp(e->key, "match.", 6) ||
		    !*e->value || config_get(&c->cfg, "net", name, e->key) != e)
			continue;
		s = !strcmp(what, "name") ? ifc->name : !strcmp(what, "driver") ? ifc->driver
										: iface_class(&c->root, ifc->name);
		if (!any_glob(e->value, s))
			return false;
	}
	return true;
}

void nic_driver(const struct root *r, const char *name, char *out, size_t size)
{
	char rel[PATH_MAX], link[PATH_MAX];
	const char *slash;

	*out = '\0';
	snprintf(rel, sizeof(rel), "sys/class/net/%s/device/driver", name);
	if (root_readlink(r, rel, link, sizeof(link)) < 0) {
		if (r->is_host)
			nic_ioctl_driver(name, out, size);
		return;
	}
	slash = strrchr(link, '/');
	snprintf(out, size, "%s", slash ? slash + 1 : link);
}

void nic_iface_driver(const struct root *r, struct nic_iface *ifc)
{
	nic_driver(r, ifc->name, ifc->driver, sizeof(ifc->driver));
}

/* The online CPUs as a mask, their list in list: -ENOENT when the tree
 * does not say. */
int nic_online_mask(const struct root *r, struct nic_mask *m, char *list, size_t size)
{
	int n = root_read(r, "sys/devices/system/cpu/online", list, size);

	if (n <= 0)
		return n < 0 ? n : -ENOENT;
	return nic_mask_from_list(list, m);
}

/* How many CPUs are online, read as the masks read the list (0: unknown). */
int nic_online_cpus(const struct root *r)
{
	struct nic_mask m;
	char list[1024];

	return nic_online_mask(r, &m, list, sizeof(list)) < 0 ? 0 : nic_mask_count(&m);
}
