// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * NetworkManager connection profiles (keyfiles, *.nmconnection) whose
 * [ethtool] section sets offloads (feature-*), rings (ring-*), coalescing
 * (coalesce-*) or channels (channels-*). NetworkManager applies them when
 * it activates the connection on the interface, long after udev's run of
 * earlytune: its value wins. The connection's interface is the one its
 * [connection] interface-name (an exact name), its [match] interface-name
 * (NetworkManager's pattern list, nm-settings(5)) and its [ethernet]
 * mac-address all accept; a profile naming none, or not connected
 * automatically, "may apply".
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "writers/internal.h"

enum { M_MANUAL = 1 };

#define NM_SEPS ";, \t" /* keyfile's list separator, nmcli's, and blanks (no name holds one) */

static int mac_of(const struct wctx *w, const char *iface, const char *mac)
{
	char path[PATH_MAX], addr[64];

	if (pathf(path, sizeof(path), "sys/class/net/%s/address", iface) < 0 ||
	    root_read(w->r, path, addr, sizeof(addr)) < 0)
		return 2;
	return !strcasecmp(addr, mac);
}

/* One element of a [match] interface-name list, as NetworkManager reads it:
 * '|' optional (also a bare pattern), '&' mandatory, '!' after either
 * inverts, a bare "!x" is "&!x"; a backslash then protects the pattern's
 * first character. Whether it holds for name. */
static bool nm_element(const char *el, const char *name, bool *mandatory)
{
	bool inverted = false;

	*mandatory = false;
	if (*el == '&' || *el == '|') {
		*mandatory = *el++ == '&';
		inverted = *el == '!';
		el += inverted;
	} else if (*el == '!') {
		inverted = *mandatory = true;
		el++;
	}
	el += *el == '\\';
	return (fnmatch(el, name, 0) == 0) != inverted;
}

/* Every mandatory element holds, and one optional one if there are any:
 * 1, 0, or 2 (an element too long to read). */
static int nm_names_match(const char *list, const char *name)
{
	bool optional = false, any = false, mandatory, holds;
	char w[WORD_MAX];

	for (const char *s = list; *s;) {
		size_t n = strcspn(s, NM_SEPS);

		if (n >= sizeof(w))
			return 2;
		memcpy(w, s, n);
		w[n] = '\0';
		s += n + (s[n] != '\0');
		if (!n)
			continue;
		holds = nm_element(w, name, &mandatory);
		if (mandatory && !holds)
			return 0;
		any = any || !mandatory;
		optional = optional || (!mandatory && holds);
	}
	return optional || !any;
}

/* Both keys and the address must accept the interface. */
static int nm_applies(const struct wentry *e, const struct wctx *w, const char *iface)
{
	int names = e->names ? nm_names_match(e->names, iface) : 1, mac;

	if (!names || !e->extra)
		return names;
	mac = mac_of(w, iface, e->extra);
	return !mac ? 0 : mac == 2 || names == 2 ? 2 : 1;
}

static void judge_nm(const struct wentry *e, const struct wctx *w, const struct item *it, struct wjudge *j)
{
	char iface[NAME_MAX + 1];
	const char *key;

	if (!nic_item(it, iface, sizeof(iface), &key) || !nic_key_match(key, e->key))
		return;
	j->applies = e->names || e->extra ? nm_applies(e, w, iface) : 2;
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
	char *ifname, *match, *mac; /* [connection] interface-name, [match]'s */
	bool manual;
	int line, err;
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

/* [connection] interface-name is one exact name: in the list as a mandatory
 * element, its glob characters escaped, so that it and [match]'s must both
 * accept the interface. */
static char *names_of(const struct nmfile *f)
{
	_cleanup_(freep) char *name = NULL;
	char *p;

	if (!f->ifname)
		return strdup(f->match);
	if (!(p = name = malloc(2 * strlen(f->ifname) + 3)))
		return NULL;
	*p++ = '&', *p++ = '\\';
	for (const char *s = f->ifname; *s; s++) {
		if (strchr("*?[\\", *s))
			*p++ = '\\';
		*p++ = *s;
	}
	*p = '\0';
	return f->match ? xasprintf("%s;%s", name, f->match) : strdup(name);
}

/* A key's value kept for the file's entries; empty: not set. */
static void keep(struct nmfile *f, char **field, const char *value)
{
	free(*field);
	*field = *value ? strdup(value) : NULL;
	if (*value && !*field)
		f->err = -ENOMEM;
}

/* 0, or -ENOMEM: the file's entries dropped (without its names they would
 * fit every interface). */
static int finish(struct nmfile *f, size_t first)
{
	_cleanup_(freep) char *names = f->ifname || f->match ? names_of(f) : NULL;

	if (!f->err && (f->ifname || f->match) && !names)
		f->err = -ENOMEM;
	for (size_t i = first; i < f->w->n && !f->err; i++) {
		wset(&f->w->v[i].names, names);
		wset(&f->w->v[i].extra, f->mac);
		f->w->v[i].flags = f->manual ? M_MANUAL : 0;
		if ((names && !f->w->v[i].names) || (f->mac && !f->w->v[i].extra))
			f->err = -ENOMEM;
	}
	if (f->err)
		wentries_drop(f->w, first);
	free(f->ifname);
	free(f->match);
	free(f->mac);
	return f->err;
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
		else if (!strcmp(sect, "connection") && !strcmp(k, "interface-name"))
			keep(&f, &f.ifname, v);
		else if (!strcmp(sect, "match") && !strcmp(k, "interface-name"))
			keep(&f, &f.match, v);
		else if (!strcmp(sect, "connection") && !strcmp(k, "autoconnect"))
			f.manual = nic_bool(v) && !strcmp(nic_bool(v), "off");
		else if (!strcmp(sect, "ethernet") && !strcmp(k, "mac-address"))
			keep(&f, &f.mac, v);
	}
	if (finish(&f, first) < 0)
		writers_error(w, rel, -ENOMEM);
}

int writers_nm(struct wctx *w)
{
	static const char *const dirs[] = { "etc/NetworkManager/system-connections",
					    "run/NetworkManager/system-connections",
					    "usr/lib/NetworkManager/system-connections" };

	return writers_files(w, dirs, ARRAY_SIZE(dirs), "*.nmconnection", nm_file);
}
