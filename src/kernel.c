// SPDX-License-Identifier: LGPL-2.1-or-later
/* Facts about the kernel of the root being looked at: its release, its
 * command line, whether it has modules, whether it runs under a hypervisor. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "earlytune.h"

static void parse_version(struct kernel *k)
{
	unsigned a = 0, b = 0;

	if (sscanf(k->release, "%u.%u", &a, &b) == 2)
		k->version = KV(a, b);
}

/* proc/sys/kernel/osrelease, or the third word of proc/version in captured
 * trees that only kept that file. */
/* A failed read that is not ENOENT is remembered (the first one, with its
 * file): it is an error of the command, never "absent". */
static int probe_err(struct kernel *k, int r, const char *rel)
{
	if (r < 0 && r != -ENOENT && !k->unreadable) {
		k->unreadable = rel;
		k->probe_err = r;
	}
	return r;
}

static int read_release(struct kernel *k, const struct root *r)
{
	char buf[512], rel[128];

	if (probe_err(k, root_read(r, "proc/sys/kernel/osrelease", k->release, sizeof(k->release)),
		      "proc/sys/kernel/osrelease") > 0)
		return 0;
	if (probe_err(k, root_read(r, "proc/version", buf, sizeof(buf)), "proc/version") > 0 &&
	    sscanf(buf, "Linux version %127s", rel) == 1) {
		snprintf(k->release, sizeof(k->release), "%s", rel);
		return 0;
	}
	snprintf(k->release, sizeof(k->release), "unknown");
	return -ENOENT;
}

/* 1, 0 when rel does not exist, or -errno. */
static int probe_exists(const struct root *r, const char *rel)
{
	int fd = root_openat(r, rel, O_PATH, 0);

	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	close(fd);
	return 1;
}

/* Returns the first read that failed for another reason than ENOENT
 * (k->unreadable names its file): the command cannot trust what it knows
 * about this kernel — an unread command line may hold earlytune=0. */
int kernel_probe(struct kernel *k, const struct root *r)
{
	char *cl = NULL;
	int m;

	k->hypervisor = -1;
	read_release(k, r);
	parse_version(k);
	if (probe_err(k, root_read_file(r, "proc/cmdline", &cl, 1 << 16), "proc/cmdline") >= 0)
		k->cmdline = cl;
	m = probe_err(k, probe_exists(r, "proc/modules"), "proc/modules");
	k->modules = m > 0;
	return k->probe_err;
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

/* 1 when the first CPU has the hypervisor flag, 0 when not (or no cpuinfo:
 * *has_cpuinfo false), -errno when it cannot be read. */
static int cpuinfo_flag(const struct root *r, bool *has_cpuinfo)
{
	_cleanup_(freep) char *buf = NULL;
	char *line;
	int rr;

	*has_cpuinfo = false;
	rr = root_read_file(r, "proc/cpuinfo", &buf, 1 << 24);
	if (rr < 0)
		return rr == -ENOENT ? 0 : rr;
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

static int hv_unreadable(struct kernel *k, int err, const char *rel)
{
	k->hypervisor = err;
	snprintf(k->hv_why, sizeof(k->hv_why), "cannot read /%s: %s", rel, strerror(-err));
	return err;
}

/* Probed lazily: only SCSI/ATA disks need it, and /proc/cpuinfo is not free on
 * large machines. 1 yes, 0 no; -errno (hv_why says which read failed) when a
 * source that would decide cannot be read: never "not a VM" on a guess. */
int kernel_hypervisor(struct kernel *k, const struct root *r)
{
	char buf[128];
	bool has_cpuinfo;
	int rr;

	if (k->hypervisor != -1)
		return k->hypervisor;
	k->hypervisor = 1;
	rr = root_read(r, "sys/hypervisor/type", buf, sizeof(buf));
	if (rr > 0) {
		snprintf(k->hv_why, sizeof(k->hv_why), "hypervisor %s (sys/hypervisor/type)", buf);
		return 1;
	}
	if (rr < 0 && rr != -ENOENT)
		return hv_unreadable(k, rr, "sys/hypervisor/type");
	rr = cpuinfo_flag(r, &has_cpuinfo);
	if (rr < 0)
		return hv_unreadable(k, rr, "proc/cpuinfo");
	if (rr) {
		snprintf(k->hv_why, sizeof(k->hv_why), "hypervisor flag in /proc/cpuinfo");
		return 1;
	}
	/* DMI only decides when cpuinfo is missing (captured trees): bare-metal
	 * cloud instances carry their cloud's vendor string too. */
	rr = has_cpuinfo ? 0 : root_read(r, "sys/class/dmi/id/sys_vendor", buf, sizeof(buf));
	if (rr < 0 && rr != -ENOENT)
		return hv_unreadable(k, rr, "sys/class/dmi/id/sys_vendor");
	for (size_t i = 0; rr > 0 && i < ARRAY_SIZE(hv_vendors); i++)
		if (!strncmp(buf, hv_vendors[i], strlen(hv_vendors[i]))) {
			snprintf(k->hv_why, sizeof(k->hv_why), "DMI vendor '%s'", buf);
			return 1;
		}
	k->hypervisor = 0;
	return 0;
}
