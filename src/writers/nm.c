// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * NetworkManager connection profiles (keyfiles, *.nmconnection) whose
 * [ethtool] section sets offloads (feature-*), rings (ring-*), coalescing
 * (coalesce-*) or channels (channels-*). NetworkManager applies them when
 * it activates the connection on the interface, long after udev's run of
 * earlytune: its value wins. The connection's interface is its
 * interface-name ([connection], or [match]'s globs), else its
 * [ethernet] mac-address; a profile naming neither, or not connected
 * automatically, "may apply".
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "writers/internal.h"

enum { M_MANUAL = 1 };

static int mac_of(const struct wctx *w, const char *iface, const char *mac)
{
	char path[PATH_MAX], addr[64];

	if (pathf(path, sizeof(path), "sys/class/net/%s/address", iface) < 0 ||
	    root_read(w->r, path, addr, sizeof(addr)) < 0)
		return 2;
	return !strcasecmp(addr, mac);
}

static void judge_nm(const struct wentry *e, const struct wctx *w, const struct item *it, struct wjudge *j)
{
	char iface[NAME_MAX + 1];
	const char *key;

	if (!nic_item(it, iface, sizeof(iface), &key) || !nic_key_match(key, e->key))
		return;
	if (e->names)
		j->applies = writers_names_match(e->names, iface, " ");
	else if (e->extra)
		j->applies = mac_of(w, iface, e->extra);
	else
		j->applies = 2;
	if (!j->applies)
		return;
	if (e->flags & M_MANUAL)
		j->applies = 2;
	j->beats = true;
	snprintf(j->why, sizeof(j->why), "NetworkManager sets it when it activates the connection%s, after earlytune",
		 e->flags & M_MANUAL ? " (autoconnect=false: when someone activates it)" : "");
}

struct nmfile {
	struct wctx *w;
	const char *rel;
	char *names, *mac;
	bool manual;
	int line;
};

static void nm_param(void *ctx, const char *key, const char *value)
{
	struct nmfile *f = ctx;
	struct wentry *e = wentry_add(f->w, "NetworkManager", f->rel, f->line, WS_NM);

	if (!e)
		return;
	wset(&e->key, key);
	wset(&e->value, value);
	e->judge = judge_nm;
}

/* feature-gro=false: the group's word, then the name and value as ethtool's. */
static void ethtool_key(struct nmfile *f, const char *key, const char *value, int line)
{
	static const struct {
		const char *prefix, *group;
	} groups[] = { { "feature-", "features" }, { "ring-", "ring" }, { "coalesce-", "coalesce" },
		       { "channels-", "channels" } };
	size_t before = f->w->n;

	f->line = line;
	for (size_t i = 0; i < ARRAY_SIZE(groups); i++)
		if (!strncmp(key, groups[i].prefix, strlen(groups[i].prefix))) {
			_cleanup_(freep) char *args = xasprintf("%s %s", key + strlen(groups[i].prefix), value);

			if (args)
				nic_params(groups[i].group, args, false, nm_param, f);
		}
	for (size_t i = before; i < f->w->n; i++)
		wsetf(&f->w->v[i].what, "[ethtool] %s=%s", key, value);
}

static void set_names(struct nmfile *f, const char *value)
{
	char *s = strdup(value);

	for (char *p = s; p && *p; p++)
		*p = *p == ';' || *p == ',' ? ' ' : *p;
	free(f->names);
	f->names = s;
}

static void finish(struct nmfile *f, size_t first)
{
	for (size_t i = first; i < f->w->n; i++) {
		wset(&f->w->v[i].names, f->names && *strip(f->names) ? f->names : NULL);
		wset(&f->w->v[i].extra, f->mac);
		f->w->v[i].flags = f->manual ? M_MANUAL : 0;
	}
	free(f->names);
	free(f->mac);
}

static void nm_file(struct wctx *w, const char *rel, char *text)
{
	struct nmfile f = { .w = w, .rel = rel };
	struct wini ini = { .p = text };
	const char *sect = ini.sect;
	size_t first = w->n;
	char *k, *v;

	while (writers_next_ini(&ini, &k, &v)) {
		if (!k)
			continue;
		if (!strcmp(sect, "ethtool"))
			ethtool_key(&f, k, v, ini.line);
		else if ((!strcmp(sect, "connection") || !strcmp(sect, "match")) && !strcmp(k, "interface-name"))
			set_names(&f, v);
		else if (!strcmp(sect, "connection") && !strcmp(k, "autoconnect"))
			f.manual = nic_bool(v) && !strcmp(nic_bool(v), "off");
		else if (!strcmp(sect, "ethernet") && !strcmp(k, "mac-address"))
			wset(&f.mac, v);
	}
	finish(&f, first);
}

int writers_nm(struct wctx *w)
{
	static const char *const dirs[] = { "etc/NetworkManager/system-connections",
					    "run/NetworkManager/system-connections",
					    "usr/lib/NetworkManager/system-connections" };

	return writers_files(w, dirs, ARRAY_SIZE(dirs), "*.nmconnection", nm_file);
}
