// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * apply and revert of the NIC's items: one ethtool set each, then its
 * group read back. A driver that rounds (rings to a power of two) is
 * reported with what it kept; one that keeps another value than asked
 * fails the item with both.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/netif.h"
#include "nic/internal.h"

/* The value as the kernel has it now, after a write. */
static int read_back(struct nic_iface *ifc, const struct nic_key *k, const char *feature, char *out, size_t size)
{
	const struct nic_values *v = &ifc->g[k->group];
	const struct nic_feature *f;
	int r = nic_read(ifc, k->group);

	if (r < 0)
		return r;
	if (feature) {
		f = nic_feature_of(ifc->feat, feature);
		if (!f)
			return -ENOENT;
		snprintf(out, size, "%s", f->active ? "on" : "off");
	} else if (!(v->have & (1ull << k->attr))) {
		return -ENOENT;
	} else if (k->kind == NK_BOOL) {
		snprintf(out, size, "%s", v->v[k->attr] ? "on" : "off");
	} else {
		snprintf(out, size, "%u", v->v[k->attr]);
	}
	return 0;
}

/* Writes value to the setting of it (its target the interface's name now)
 * and reads it back: 0, or the item failed. */
static int write_one(struct item *it, int ifindex, const char *value)
{
	const struct nic_key *k = nic_setting_key(it->setting);
	struct nic_iface ifc = { .ifindex = ifindex };
	const char *feature = k && k->group == NG_FEATURES ? it->setting + strlen(k->name) : NULL;
	unsigned long long n = 0;
	char msg[160], now[32];
	int r;

	snprintf(ifc.name, sizeof(ifc.name), "%s", it->target);
	if (!k || (!feature && k->kind != NK_BOOL && parse_u64(value, &n) < 0) || n > UINT32_MAX) {
		item_fail(it, -EINVAL, "cannot write '%s' to %s", value, it->setting);
		return -EINVAL;
	}
	if (feature || k->kind == NK_BOOL)
		n = !strcmp(value, "on");
	r = nic_write(&ifc, k, feature, (uint32_t)n, msg, sizeof(msg));
	if (r < 0)
		item_fail(it, r, "ethtool %s = %s on %s%s%s", it->setting, value, it->target, *msg ? ": " : "", msg);
	else if ((r = read_back(&ifc, k, feature, now, sizeof(now))) < 0)
		item_fail(it, r, "reading back %s of %s", it->setting, it->target);
	else if (strcmp(now, value) && k->group == NG_RINGS)
		item_setf(&it->reason, "the driver rounded %s to %s: %s is in force", value, now, now);
	else if (strcmp(now, value)) {
		r = -EIO;
		it->result = RES_FAILED;
		item_setf(&it->error, "the driver did not keep the value: wrote %s, reads back %s", value, now);
	}
	free(ifc.feat);
	if (r >= 0)
		it->result = RES_APPLIED;
	return r;
}

void nic_apply(struct ctx *c, struct item *it)
{
	const struct nic_key *k = nic_setting_key(it->setting);

	if (k && k->file)
		nic_file_apply(c, it, k);
	else
		write_one(it, it->ifindex, it->desired);
}

/* A record's value back, when the interface has another now. */
static void restore(struct item *it, int ifindex, const char *value)
{
	const struct nic_key *k = nic_setting_key(it->setting);
	struct nic_iface ifc = { .ifindex = ifindex };
	const char *feature = k && k->group == NG_FEATURES ? it->setting + strlen(k->name) : NULL;
	char now[32];

	snprintf(ifc.name, sizeof(ifc.name), "%s", it->target);
	if (k && read_back(&ifc, k, feature, now, sizeof(now)) == 0) {
		item_set(&it->current, now);
		it->action = strcmp(now, value) ? ACT_CHANGE : ACT_KEEP;
	}
	free(ifc.feat);
	if (it->action != ACT_KEEP)
		write_one(it, ifindex, value);
}

/* Every setting goes back through the row's batch: a record's interface
 * is its index's now, whatever its name (a file's too). */
bool nic_batched(const char *setting)
{
	return nic_setting_key(setting) != NULL;
}

/* Each record back to its interface, found by index (renamed since or
 * not); one gone since has nothing to restore. Last written, first back:
 * the channels go back after the queues' files, because a driver derives
 * some of those anew at a change of channels (virtio_net its XPS masks:
 * 1 2 4 8 on 4 queues of 4 CPUs, 3 c on 2), and those derived at apply's
 * change are the originals recorded after it. */
int nic_revert_batch(struct ctx *c, struct item **items, const char **values, size_t n)
{
	for (size_t i = n; i-- > 0;) {
		struct item *it = items[i];
		int ifindex = nic_record_ifindex(it->path);
		char name[IF_NAMESIZE + 1];
		const struct nic_key *k;

		if (!ifindex || netif_name(&c->root, ifindex, name, sizeof(name)) < 0) {
			it->action = ACT_SKIP;
			item_set(&it->reason, "the interface is gone: nothing to restore");
			continue;
		}
		item_set(&it->target, name);
		it->kind = ITEM_ETHTOOL;
		k = nic_setting_key(it->setting);
		if (k && k->file)
			nic_file_restore(c, it, k, values[i]);
		else
			restore(it, ifindex, values[i]);
	}
	return 0;
}
