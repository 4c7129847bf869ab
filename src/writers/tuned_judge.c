// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Whether a TuneD entry (tuned.c) writes an item, and whether it wins:
 * tuned.service starts after the network, long after earlytune, so what it
 * sets wins, unless the service is not enabled, it leaves the value alone
 * (THP on the command line, a raise-only read-ahead already met, virtual
 * interfaces for [net]) or re-applies earlytune's sysctl guard after its
 * own sysctls.
 */
#include <string.h>

#include "writers/internal.h"

/* The entry's device or path against the item's. */
static bool writes(const struct wentry *e, const struct wctx *w, const struct item *it, char *iface, size_t size)
{
	const char *key;
	char path[PATH_MAX];

	if (e->flags & T_NET) /* [net]: devices= (all: none given) */
		return nic_item(it, iface, size, &key) && nic_key_match(key, e->key) &&
		       writers_names_match(e->names, iface, ",");
	if (e->names) /* [disk]: devices= (all: "*") */
		return !strcmp(it->domain, "block") && !strcmp(it->setting, e->key) &&
		       writers_names_match(e->names, it->target, ",");
	writers_item_path(it, path, sizeof(path));
	return *path && writers_file_match(w, e, path);
}

static bool raise_met(const struct wentry *e, const struct item *it, long long *want)
{
	long long v;

	return e->flags & T_RAISE && e->value && it->desired && parse_s64(e->value, &v) == 0 &&
	       parse_s64(it->desired, want) == 0 && *want >= v;
}

void judge_tuned(const struct wentry *e, const struct wctx *w, const struct item *it, struct wjudge *j)
{
	char iface[NAME_MAX + 1] = "";
	long long want;

	if (!writes(e, w, it, iface, sizeof(iface)))
		return;
	j->applies = e->flags & T_MAYBE ? 2 : 1;
	j->beats = !(e->flags & (T_OFF | T_REAPPLY | T_CMDLINE));
	if (e->flags & T_OFF)
		snprintf(j->why, sizeof(j->why), "tuned.service is not enabled: it would win once started");
	else if (e->flags & T_CMDLINE)
		snprintf(j->why, sizeof(j->why), "transparent_hugepage= is on the kernel command line: TuneD "
			 "leaves THP alone");
	else if (e->flags & T_REAPPLY)
		snprintf(j->why, sizeof(j->why), "TuneD then re-applies /etc and /run sysctl.d (reapply_sysctl), "
			 "earlytune's guard among them: earlytune's value stays");
	else if (raise_met(e, it, &want)) {
		j->beats = false;
		snprintf(j->why, sizeof(j->why), "it only raises read-ahead (>), and earlytune's %lld is not below it", want);
	} else if (e->flags & T_NET && nic_virtual(w, iface)) {
		j->beats = false;
		snprintf(j->why, sizeof(j->why), "TuneD's [net] plugin leaves interfaces below /sys/devices/virtual "
			 "alone: earlytune's value stays");
	} else
		snprintf(j->why, sizeof(j->why), "tuned.service runs after earlytune%s%s",
			 e->flags & T_RAISE ? ", raising read-ahead to it" : "",
			 e->flags & T_COMPUTED ? ", the value computed by TuneD" : "");
	if (e->flags & T_MAYBE && e->extra)
		snprintf(j->why + strlen(j->why), sizeof(j->why) - strlen(j->why), " (%s)", e->extra);
}
