// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The guard: apply writes the sysctls earlytune set into /run/sysctl.d at
 * every boot, sorting after systemd's 50-default.conf, so systemd-sysctl's
 * later run keeps them. It is written from the configuration of the domains
 * that set sysctls (their rows' sysctls hooks), so it sits above them;
 * engine/sysctl.c, which they use, does not.
 */
#include <errno.h>
#include <string.h>

#include "engine/domain.h"
#include "engine/sysctl.h"

/* "-": systemd-sysctl ignores a key the kernel lacks. */
static void guard_line(const char *key, const struct cfg_entry *e, bool optional, void *data)
{
	sb_printf(data, "%s%s = %s\n", optional ? "-" : "", key, e->value);
}

/* The guard: the sysctls earlytune sets that systemd-sysctl would reset. */
static void guard_text(const struct config *cfg, struct strbuf *sb)
{
	sb_printf(sb, "# Written by earlytune at boot from its configuration (`earlytune sysctl-conf`\n"
		      "# prints it). systemd-sysctl runs after earlytune applied these; this file\n"
		      "# sorts after systemd's 50-default.conf so they stay in force.\n");
	domains_sysctls(cfg, guard_line, sb);
}

int sysctl_guard(const struct config *cfg, FILE *out)
{
	struct strbuf sb = { 0 };
	int rr = 0;

	guard_text(cfg, &sb);
	if (sb.oom)
		rr = -ENOMEM;
	else
		fputs(sb.s ? sb.s : "", out);
	sb_free(&sb);
	return rr;
}

/* Written from the configuration read now, before systemd-sysctl, so nothing
 * of an older configuration stays pinned. cfg NULL (earlytune=0): an empty
 * file, which pins nothing and masks any file of that name in /usr/lib.
 * The caller holds the state lock (root_sweep_temps). */
int sysctl_write_guard(const struct root *r, const struct config *cfg)
{
	struct strbuf sb = { 0 };
	int rr;

	root_sweep_temps(r, "run/sysctl.d", SYSCTL_GUARD, NULL);
	if (cfg)
		guard_text(cfg, &sb);
	rr = sb.oom ? -ENOMEM : root_write_new(r, SYSCTL_GUARD_PATH, sb.s ? sb.s : "", sb.len, 0644);
	sb_free(&sb);
	return rr;
}

/* revert: what the guard pins goes back too, should systemd-sysctl run again.
 * The caller holds the state lock. */
int sysctl_remove_guard(const struct root *r)
{
	int rr;

	root_sweep_temps(r, "run/sysctl.d", SYSCTL_GUARD, NULL);
	rr = root_unlink(r, SYSCTL_GUARD_PATH, 0);

	return rr == -ENOENT || rr == -ENOTDIR ? 0 : rr;
}

/* A global run of the net domain (not udev's one device or interface). */
bool sysctl_guard_scope(const struct ctx *c)
{
	unsigned owners = 0;

	for (size_t i = 0; i < ndomains; i++)
		if (domains[i].owns_guard)
			owners |= domains[i].bit;
	return c->only & owners && !c->ndevices && !c->ifindex && !c->iface;
}
