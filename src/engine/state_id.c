// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Whose an original is, asked of the record's domain: the identity of the
 * disk or interface a record describes, so that a record of a device that
 * left is never written to the one that took its name; the file a record
 * goes in; the paths a record may name. The records know no domain: the
 * table of domains hands them its rows at start (domains.c), as it hands
 * the configuration its sections.
 */
#include <errno.h>
#include <string.h>

#include "engine/domain.h"
#include "engine/state.h"

static const struct domain *table;
static size_t ntable;

void state_register(const struct domain *rows, size_t n)
{
	table = rows, ntable = n;
}

/* Asked a few times for every record, nearly always of the domain asked
 * last: that one is compared first. */
const struct domain *state_domain(const char *name)
{
	static const struct domain *last_table;
	static size_t last;

	if (!name)
		return NULL;
	if (last_table == table && last < ntable && (table[last].name == name || !strcmp(table[last].name, name)))
		return &table[last];
	for (size_t i = 0; i < ntable; i++)
		if (!strcmp(table[i].name, name)) {
			last_table = table, last = i;
			return &table[i];
		}
	return NULL;
}

/* domain NULL: the path alone says (any domain's hook). */
int state_ifindex(const char *domain, const char *path)
{
	const struct domain *d = state_domain(domain);
	int ifindex = 0;

	if (d)
		return d->ifindex ? d->ifindex(path) : 0;
	for (size_t i = 0; !domain && !ifindex && i < ntable; i++)
		if (table[i].ifindex)
			ifindex = table[i].ifindex(path);
	return ifindex;
}

/* Revert writes a record's value to its path: only where apply writes
 * (sysfs attributes, sysctls, and what a domain names its own: a qdisc by
 * ifindex, earlytune's systemd drop-ins). A record of a domain this
 * earlytune does not know (a newer version's) may name what any of its
 * domains may. */
bool state_path_ok(const char *domain, const char *path)
{
	const struct domain *d = state_domain(domain);

	if (strstr(path, ".."))
		return false;
	if (!strncmp(path, "sys/", 4) || !strncmp(path, "proc/sys/", 9))
		return true;
	if (d)
		return d->owns_path && d->owns_path(path);
	for (size_t i = 0; i < ntable; i++)
		if (table[i].owns_path && table[i].owns_path(path))
			return true;
	return false;
}

/* The identity of the device an item or record describes, in out: "" for a
 * global one (THP, a sysctl: nothing to check). -ENOENT: the device is gone. */
int state_identity(const struct root *r, const char *domain, const char *setting, const char *path,
		   char *out, size_t size)
{
	const struct domain *d = state_domain(domain);

	*out = '\0';
	return d && d->identity ? d->identity(r, setting, path, out, size) : 0;
}

/* state_identity, asked once per disk and command: the records and items of
 * one disk come together, and the identity of a disk does not change while
 * its queue attributes are written. */
int state_identity_cached(struct records *rs, const struct root *r, const char *domain,
			  const char *target, const char *setting, const char *path, char *out,
			  size_t size)
{
	const struct domain *d = state_domain(domain);
	struct idcache *ic = &rs->idcache;

	if (!d || !d->disks)
		return state_identity(r, domain, setting, path, out, size);
	if (!ic->valid || strcmp(ic->target, target)) {
		ic->valid = strlen(target) < sizeof(ic->target);
		str_copy(ic->target, sizeof(ic->target), target);
		ic->r = state_identity(r, domain, setting, path, ic->id, sizeof(ic->id));
	}
	str_copy(out, size, ic->r < 0 ? "" : ic->id);
	return ic->r;
}

/* 1 when record x is stale: its device is gone, or another one carries its
 * name now (why says which); 0 when it is still that device's, or nothing can
 * tell (no identity recorded); -errno when the check itself failed. A domain
 * whose devices are renamed (interfaces) looks them up its own way. */
int state_stale(struct records *rs, const struct root *r, const struct record *x, char *why, size_t size)
{
	const struct domain *d = state_domain(x->domain);
	char now[64];
	int rr;

	if (!*x->identity)
		return 0;
	if (d && d->stale)
		return d->stale(r, x, why, size);
	rr = state_identity_cached(rs, r, x->domain, x->target, x->setting, x->path, now, sizeof(now));
	if (rr == -ENOENT) {
		fmt(why, size, "%s is gone", x->target);
		return 1;
	}
	if (rr < 0)
		return rr;
	fmt(why, size, "%s is another device now (%s; the original is of %s)", x->target, now,
		 x->identity);
	return strcmp(now, x->identity) != 0;
}
