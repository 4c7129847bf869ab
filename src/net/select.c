// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Which interfaces get a root qdisc, and why the others do not. By default
 * a physical device (a `device` link), Ethernet, with a queue; `[net]
 * interfaces` globs name others or exclude some. An interface left alone
 * is said so, naming the rule that excluded it and what the interface is
 * (loopback, bridge, bond, VLAN, IPoIB…).
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <net/if_arp.h>
#include <string.h>
#include <unistd.h>

#include "net/internal.h"

/* What sysfs calls an interface: DEVTYPE= of its uevent (the kernel's
 * device_type name), or the directory its driver adds. */
static const struct {
	const char *devtype, *dir, *what;
} kinds[] = {
	{ "bridge", "bridge", "a bridge" },
	{ "bond", "bonding", "a bond" },
	{ "vlan", NULL, "a VLAN" },
	{ "team", NULL, "a team" },
	{ "macsec", NULL, "a MACsec interface" },
	{ "wireguard", NULL, "a WireGuard tunnel" },
	{ "wlan", NULL, "a wireless interface" },
	{ "wwan", NULL, "a WWAN interface" },
	{ NULL, "tun_flags", "a TUN/TAP device" },
};

/* The DEVTYPE= of name's uevent into out ("" when none). Only a word for
 * the reason: a uevent that cannot be read leaves it "", deciding nothing. */
static void iface_devtype(struct ctx *c, const char *name, char *out, size_t size)
{
	char rel[PATH_MAX], buf[512];
	const char *d;

	*out = '\0';
	if (pathf(rel, sizeof(rel), "sys/class/net/%s/uevent", name) < 0 ||
	    root_read(&c->root, rel, buf, sizeof(buf)) < 0)
		return;
	d = !strncmp(buf, "DEVTYPE=", 8) ? buf : strstr(buf, "\nDEVTYPE=");
	if (d)
		snprintf(out, size, "%.*s", (int)strcspn(d + (*d == '\n') + 8, "\n"), d + (*d == '\n') + 8);
}

static bool iface_has(struct ctx *c, const char *name, const char *entry)
{
	char rel[PATH_MAX];

	return pathf(rel, sizeof(rel), "sys/class/net/%s/%s", name, entry) == 0 && root_exists(&c->root, rel);
}

/* What the interface is, as far as sysfs tells: "" when it does not. */
static const char *iface_what(struct ctx *c, const char *name, unsigned type)
{
	char dt[32];

	if (type == ARPHRD_LOOPBACK)
		return "the loopback interface";
	if (type == ARPHRD_INFINIBAND)
		return "IPoIB (InfiniBand)";
	iface_devtype(c, name, dt, sizeof(dt));
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		if ((kinds[i].devtype && !strcmp(dt, kinds[i].devtype)) ||
		    (kinds[i].dir && iface_has(c, name, kinds[i].dir)))
			return kinds[i].what;
	if (type == 65534) /* ARPHRD_NONE: no link layer */
		return "a tunnel without a link layer";
	return "";
}

/* The default: a real device (a `device` link), Ethernet, and not a
 * no-queue device (its root would read noqueue). kind: the root qdisc's,
 * NULL when unknown (a --root tree). */
static bool default_selected(struct ctx *c, const char *name, unsigned type, const char *kind, char *why,
			     size_t size)
{
	const char *what = iface_what(c, name, type);
	char rel[PATH_MAX], is[NAME_MAX + 64];

	snprintf(is, sizeof(is), "%s is%s%s%s", name, *what ? " " : "", what, *what ? "," : "");
	if (pathf(rel, sizeof(rel), "sys/class/net/%s/device", name) < 0)
		snprintf(why, size, "sys/class/net/%s/device: %s", name, strerror(ENAMETOOLONG));
	else if (!root_exists(&c->root, rel))
		snprintf(why, size, "%s not a physical device (no sys/class/net/%s/device): the default selection "
			 "takes physical devices only; name it in [net] interfaces to tune it", is, name);
	else if (type != ARPHRD_ETHER)
		snprintf(why, size, "%s not Ethernet (type %u): the default selection takes Ethernet devices only; "
			 "name it in [net] interfaces to tune it", is, type);
	else if (kind && !strcmp(kind, "noqueue"))
		snprintf(why, size, "%s a no-queue device (root noqueue): the default selection leaves those alone; "
			 "name it in [net] interfaces to tune it", is);
	else
		return true;
	return false;
}

bool net_selected(struct ctx *c, const struct netconf *nc, const char *name, unsigned type, const char *kind,
		  char *why, size_t size)
{
	const char *globs = nc->interfaces ? nc->interfaces->value : "", *s = globs;
	char w[WORD_MAX];
	bool in = false;

	while (next_word(&s, w, sizeof(w))) {
		if (w[0] == '!' && fnmatch(w + 1, name, 0) == 0) {
			snprintf(why, size, "%s is excluded by '%s' in [net] interfaces", name, w);
			return false;
		}
		in = in || (w[0] != '!' && fnmatch(w, name, 0) == 0);
	}
	if (!nc->positive_globs)
		return default_selected(c, name, type, kind, why, size);
	if (!in)
		snprintf(why, size, "[net] interfaces = %s does not name %s", globs, name);
	return in;
}

/* An entry of sys/class/net that is not a directory (bonding_masters, a
 * file of every host with the bonding module) is not an interface. */
bool net_is_iface_entry(struct ctx *c, const char *name)
{
	char rel[PATH_MAX];
	int fd = pathf(rel, sizeof(rel), "sys/class/net/%s", name);

	if (fd == 0)
		fd = root_openat(&c->root, rel, O_RDONLY | O_DIRECTORY, 0);
	if (fd >= 0)
		close(fd);
	return fd != -ENOTDIR;
}
