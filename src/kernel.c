// SPDX-License-Identifier: LGPL-2.1-or-later
/* Facts about the kernel of the root being looked at: its release, its
 * command line, whether it has modules, whether it runs under a hypervisor. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "earlytune.h"

static void parse_version(struct kernel *k)
{
	unsigned a = 0, b = 0;

	if (sscanf(k->release, "%u.%u", &a, &b) == 2)
		k->version = KV(a, b);
}

/* proc/sys/kernel/osrelease, or the third word of proc/version in captured
 * trees that only kept that file. */
static int read_release(struct kernel *k, const struct root *r)
{
	char buf[512], rel[128];

	if (root_read(r, "proc/sys/kernel/osrelease", k->release, sizeof(k->release)) > 0)
		return 0;
	if (root_read(r, "proc/version", buf, sizeof(buf)) > 0 &&
	    sscanf(buf, "Linux version %127s", rel) == 1) {
		snprintf(k->release, sizeof(k->release), "%s", rel);
		return 0;
	}
	snprintf(k->release, sizeof(k->release), "unknown");
	return -ENOENT;
}

int kernel_probe(struct kernel *k, const struct root *r)
{
	char *cl = NULL;

	k->hypervisor = -1;
	read_release(k, r);
	parse_version(k);
	if (root_read_file(r, "proc/cmdline", &cl, 1 << 16) >= 0)
		k->cmdline = cl;
	k->modules = root_exists(r, "proc/modules");
	return 0;
}

/* --kernel VERSION: module questions are about that release's tree, not the
 * running kernel's /sys/module. */
void kernel_target(struct kernel *k, const struct root *r, const char *release)
{
	char rel[PATH_MAX];

	if (!strcmp(release, k->release))
		return;
	snprintf(k->release, sizeof(k->release), "%s", release);
	k->version = 0;
	parse_version(k);
	k->other = true;
	snprintf(rel, sizeof(rel), "lib/modules/%s/modules.dep", release);
	k->modules = root_exists(r, rel);
	snprintf(rel, sizeof(rel), "lib/modules/%s/modules.dep.bin", release);
	k->modules = k->modules || root_exists(r, rel);
}

void kernel_free(struct kernel *k)
{
	free(k->cmdline);
	k->cmdline = NULL;
}

static const char *const hv_vendors[] = {
	"QEMU", "KVM", "Xen", "Microsoft Corporation", "VMware, Inc.", "innotek GmbH",
	"Amazon EC2", "Google", "DigitalOcean", "Hetzner", "OpenStack Foundation",
	"Parallels", "Bochs", "Scaleway", "Linode", "Vultr", "Oracle Corporation",
};

static bool cpuinfo_flag(const struct root *r, bool *has_cpuinfo)
{
	_cleanup_(freep) char *buf = NULL;
	char *line;

	*has_cpuinfo = false;
	if (root_read_file(r, "proc/cpuinfo", &buf, 1 << 24) < 0)
		return false;
	*has_cpuinfo = true;
	/* The flags of the first CPU are enough. */
	line = strstr(buf, "\nflags");
	if (!line)
		return false;
	char *end = strchr(line + 1, '\n');
	if (end)
		*end = '\0';
	return strstr(line, " hypervisor") != NULL;
}

/* Probed lazily: only SCSI/ATA disks need it, and /proc/cpuinfo is not free on
 * large machines. */
bool kernel_hypervisor(struct kernel *k, const struct root *r)
{
	char buf[128];
	bool has_cpuinfo;

	if (k->hypervisor >= 0)
		return k->hypervisor;
	k->hypervisor = 1;
	if (root_read(r, "sys/hypervisor/type", buf, sizeof(buf)) > 0) {
		snprintf(k->hv_why, sizeof(k->hv_why), "hypervisor %s (sys/hypervisor/type)", buf);
		return true;
	}
	if (cpuinfo_flag(r, &has_cpuinfo)) {
		snprintf(k->hv_why, sizeof(k->hv_why), "hypervisor flag in /proc/cpuinfo");
		return true;
	}
	/* DMI only decides when cpuinfo is missing (captured trees): bare-metal
	 * cloud instances carry their cloud's vendor string too. */
	if (!has_cpuinfo && root_read(r, "sys/class/dmi/id/sys_vendor", buf, sizeof(buf)) > 0)
		for (size_t i = 0; i < ARRAY_SIZE(hv_vendors); i++)
			if (!strncmp(buf, hv_vendors[i], strlen(hv_vendors[i]))) {
				snprintf(k->hv_why, sizeof(k->hv_why), "DMI vendor '%s'", buf);
				return true;
			}
	k->hypervisor = 0;
	return false;
}
