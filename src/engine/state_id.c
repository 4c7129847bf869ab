// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Whose an original is: the identity of the disk or interface a record
 * describes ("diskseq:N", "dev:HASH", "ifindex:N"), so that a record of a
 * device that left is never written to the one that took its name.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/net.h"
#include "engine/state.h"

/* The ifindex of a net record about one interface (its path is
 * netlink/ifindex/N), or 0 for a global one (a sysctl). */
int record_ifindex(const char *setting, const char *path)
{
	unsigned long long v;

	if (strcmp(setting, "qdisc") || strncmp(path, "netlink/ifindex/", 16) ||
	    parse_u64(path + 16, &v) < 0 || v == 0 || v > INT_MAX)
		return 0;
	return (int)v;
}

/* The disk directory of a block item: its path without "/SETTING". */
static int disk_dir(const char *path, const char *setting, char *dir, size_t size)
{
	size_t lp = strlen(path), ls = strlen(setting);

	if (lp <= ls + 1 || strcmp(path + lp - ls, setting) || path[lp - ls - 1] != '/' || lp - ls > size)
		return -EINVAL;
	memcpy(dir, path, lp - ls - 1);
	dir[lp - ls - 1] = '\0';
	return 0;
}

/* What identifies a disk. diskseq (Linux 5.15+) is exact: the kernel never
 * hands the same number out twice in a boot and takes a new one whenever a
 * loop device gets another file or a disk another medium. Without it nothing
 * is exact; a hash of what tells two disks of one name apart comes closest:
 * MAJ:MIN, the place in sys/devices the name links to (a new sdX on another
 * port or LUN lives elsewhere) and whatever identifiers the device has (wwid,
 * serial, dm uuid, a loop device's backing file: a re-attached cloud volume
 * or a loop device bound to another file differ there). The identifiers are
 * optional: a read that fails counts as absent, because some exist and fail
 * for every read on devices without that data (SCSI wwid without VPD page
 * 0x83: EINVAL), so the same device hashes the same each time. A disk with
 * none of them that comes back at the same place and number passes for the
 * same one. */
static int disk_identity(const struct root *r, const char *dir, char *out, size_t size)
{
	static const char *const ids[] = { "dev", "wwid", "serial", "device/wwid", "device/serial",
					   "dm/uuid", "loop/backing_file" };
	char rel[PATH_MAX], buf[PATH_MAX];
	unsigned long long seq;
	uint64_t h = FNV_OFFSET;
	int rr;

	if (pathf(rel, sizeof(rel), "%s/diskseq", dir) < 0)
		return -ENAMETOOLONG;
	rr = root_read_u64(r, rel, &seq);
	if (rr == 0) {
		snprintf(out, size, "diskseq:%llu", seq);
		return 0;
	}
	if (rr != -ENOENT)
		return rr;
	rr = root_readlink(r, dir, buf, sizeof(buf)); /* -ENOENT: gone */
	if (rr == -EINVAL) /* a directory of a captured tree: its path is its place */
		rr = snprintf(buf, sizeof(buf), "%s", dir);
	if (rr < 0)
		return rr;
	h = fnv1a(h, buf, (size_t)rr + 1);
	for (size_t i = 0; i < ARRAY_SIZE(ids); i++) {
		char *deleted;

		if (pathf(rel, sizeof(rel), "%s/%s", dir, ids[i]) < 0)
			return -ENAMETOOLONG;
		rr = root_read(r, rel, buf, sizeof(buf));
		if (rr < 0)
			continue;
		/* The backing file deleted since: still the same binding. */
		deleted = strstr(buf, " (deleted)");
		if (deleted && !deleted[10])
			*deleted = '\0';
		h = fnv1a(fnv1a(h, ids[i], strlen(ids[i]) + 1), buf, strlen(buf) + 1);
	}
	snprintf(out, size, "dev:%016llx", (unsigned long long)h);
	return 0;
}

/* The identity of the device an item or record describes, in out: "" for a
 * global one (THP, a sysctl: nothing to check). -ENOENT: the disk is gone. */
int state_identity(const struct root *r, const char *domain, const char *setting, const char *path,
		   char *out, size_t size)
{
	char dir[PATH_MAX];
	int ifindex;

	*out = '\0';
	if (!strcmp(domain, "block"))
		return disk_dir(path, setting, dir, sizeof(dir)) < 0 ? -EINVAL : disk_identity(r, dir, out, size);
	ifindex = !strcmp(domain, "net") ? record_ifindex(setting, path) : 0;
	if (ifindex)
		snprintf(out, size, "ifindex:%d", ifindex);
	return 0;
}

struct ifindex_seen {
	const struct root *r;
	int ifindex, err;
	bool found;
};

static void seen_ifindex(const char *rel, void *data)
{
	struct ifindex_seen *s = data;
	int rr = net_ifindex_of(s->r, strrchr(rel, '/') + 1);

	if (rr > 0 && rr == s->ifindex)
		s->found = true;
	else if (rr < 0 && !s->err)
		s->err = rr;
}

/* 1 when an interface has index ifindex: the one of the record's name,
 * read directly, else any (interfaces are renamed); 0 when none, -errno
 * when that cannot be told. */
static int ifindex_exists(const struct root *r, const char *name, int ifindex)
{
	struct ifindex_seen s = { r, ifindex, 0, false };
	int rr;

	if (ifindex > 0 && net_ifindex_of(r, name) == ifindex)
		return 1;
	rr = root_match(r, "sys/class/net", "*", seen_ifindex, &s);
	if (rr < 0 || (!s.found && s.err))
		return rr < 0 ? rr : s.err;
	return s.found;
}

/* state_identity, asked once per disk and command: the records and items of
 * one disk come together, and the identity of a disk does not change while
 * its queue attributes are written. */
int state_identity_cached(struct records *rs, const struct root *r, const char *domain,
			  const char *target, const char *setting, const char *path, char *out,
			  size_t size)
{
	struct idcache *ic = &rs->idcache;

	if (strcmp(domain, "block"))
		return state_identity(r, domain, setting, path, out, size);
	if (!ic->valid || strcmp(ic->target, target)) {
		ic->valid = strlen(target) < sizeof(ic->target);
		snprintf(ic->target, sizeof(ic->target), "%s", target);
		ic->r = state_identity(r, domain, setting, path, ic->id, sizeof(ic->id));
	}
	snprintf(out, size, "%s", ic->r < 0 ? "" : ic->id);
	return ic->r;
}

/* 1 when record x is stale: its device is gone, or another one carries its
 * name now (why says which); 0 when it is still that device's, or nothing can
 * tell (no identity recorded); -errno when the check itself failed.
 * Interfaces are looked up by index, through every name (they are renamed). */
int state_stale(struct records *rs, const struct root *r, const struct record *x, char *why, size_t size)
{
	char now[64];
	int rr;

	if (!*x->identity)
		return 0;
	if (!strncmp(x->identity, "ifindex:", 8)) {
		int ifindex = record_ifindex(x->setting, x->path);

		rr = ifindex_exists(r, x->target, ifindex);
		if (rr < 0)
			return rr;
		snprintf(why, size, "no interface has ifindex %d any more", ifindex);
		return !rr;
	}
	rr = state_identity_cached(rs, r, x->domain, x->target, x->setting, x->path, now, sizeof(now));
	if (rr == -ENOENT) {
		snprintf(why, size, "%s is gone", x->target);
		return 1;
	}
	if (rr < 0)
		return rr;
	snprintf(why, size, "%s is another device now (%s; the original is of %s)", x->target, now,
		 x->identity);
	return strcmp(now, x->identity) != 0;
}
