// SPDX-License-Identifier: LGPL-2.1-or-later
/* Facts about the kernel of the root being looked at: its release, its
 * command line, whether it has modules, whether it runs under a hypervisor. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/kernel.h"
#include "base/root.h"

/* "6.1.0-27-cloud-amd64" → 6.1; strtoul, not sscanf: every udev run does
 * this, and sscanf's machinery is a page of code no other part of it uses. */
static void parse_version(struct kernel *k)
{
	char *dot;
	unsigned long a = strtoul(k->release, &dot, 10), b;

	if (dot == k->release || *dot != '.' || !isdigit((unsigned char)dot[1]))
		return;
	b = strtoul(dot + 1, NULL, 10);
	if (a <= UINT_MAX && b <= UINT_MAX)
		k->version = KV((unsigned)a, (unsigned)b);
}

/* A failed read that is not ENOENT is remembered (the first one, its file
 * in k->unreadable, its -errno in *err): it is an error of the command,
 * never "absent". Returns r. */
static int probe_err(struct kernel *k, int *err, int r, const char *rel)
{
	if (r < 0 && r != -ENOENT && !*err) {
		k->unreadable = rel;
		*err = r;
	}
	return r;
}

/* proc/sys/kernel/osrelease, or the third word of proc/version in captured
 * trees that only kept that file; a failure counts only when neither gives
 * the release. */
static void read_release(struct kernel *k, const struct root *r, int *err)
{
	char buf[512], rel[128];
	int rr = root_read(r, "proc/sys/kernel/osrelease", k->release, sizeof(k->release)), rv;

	k->from = "proc";
	if (rr > 0)
		return;
	rv = root_read(r, "proc/version", buf, sizeof(buf));
	if (rv > 0 && sscanf(buf, "Linux version %127s", rel) == 1) {
		snprintf(k->release, sizeof(k->release), "%s", rel);
		return;
	}
	k->from = NULL;
	probe_err(k, err, rr, "proc/sys/kernel/osrelease");
	probe_err(k, err, rv, "proc/version");
	snprintf(k->release, sizeof(k->release), "unknown");
}

/* Absent module support is a fact only where the tree has the file's
 * directory (proc/, lib/modules/RELEASE); without it nothing was read. */
static void no_modules(struct kernel *k, const struct root *r, const char *rel)
{
	char miss[PATH_MAX];

	k->modules_unknown = root_missing(r, rel, miss, sizeof(miss)) == 0 && strcmp(miss, rel);
	if (k->modules_unknown)
		snprintf(k->no_modules, sizeof(k->no_modules), "no /%s in this tree", miss);
	else
		snprintf(k->no_modules, sizeof(k->no_modules), "no /%s", rel);
}

/* proc/ without modules: a kernel without module support has neither
 * proc/modules nor the sysctl kernel.modprobe, so the fact needs
 * proc/sys/kernel in the tree without modprobe; a capture that kept
 * modprobe, or no proc/sys/kernel at all, only lacks the list. */
static void no_proc_modules(struct kernel *k, const struct root *r)
{
	int sys = root_access(r, "proc/sys/kernel"), probe = root_access(r, "proc/sys/kernel/modprobe");

	no_modules(k, r, "proc/modules");
	if (k->modules_unknown)
		return;
	if (sys > 0 && probe == 0) {
		snprintf(k->no_modules, sizeof(k->no_modules), "no /proc/modules nor /proc/sys/kernel/modprobe");
		return;
	}
	k->modules_unknown = true;
	snprintf(k->no_modules, sizeof(k->no_modules), probe > 0 ? "no /proc/modules in this tree" :
		 "no /proc/modules nor /proc/sys/kernel in this tree");
}

/* Returns the first read that failed for another reason than ENOENT
 * (k->unreadable names its file): the command cannot trust what it knows
 * about this kernel — an unread command line may hold earlytune=0. */
int kernel_probe(struct kernel *k, const struct root *r)
{
	char *cl = NULL;
	int m, err = 0;

	k->hv_probed = false;
	k->unreadable = NULL;
	read_release(k, r, &err);
	parse_version(k);
	if (probe_err(k, &err, root_read_file(r, "proc/cmdline", &cl, 1 << 16), "proc/cmdline") >= 0)
		k->cmdline = cl;
	m = probe_err(k, &err, root_access(r, "proc/modules"), "proc/modules");
	k->modules = m > 0;
	if (m == 0)
		no_proc_modules(k, r);
	return err;
}

/* --kernel VERSION: module questions are about that release's tree, not the
 * running kernel's /sys/module. */
void kernel_target(struct kernel *k, const struct root *r, const char *release)
{
	char rel[PATH_MAX], bin[PATH_MAX];

	if (!strcmp(release, k->release))
		return;
	k->from = "option";
	snprintf(k->release, sizeof(k->release), "%s", release);
	k->version = 0;
	parse_version(k);
	k->other = true;
	k->modules_unknown = false;
	if (pathf(rel, sizeof(rel), "lib/modules/%s/modules.dep", release) < 0 ||
	    pathf(bin, sizeof(bin), "lib/modules/%s/modules.dep.bin", release) < 0) {
		k->modules = false;
		snprintf(k->no_modules, sizeof(k->no_modules), "no module tree: %s", strerror(ENAMETOOLONG));
		return;
	}
	k->modules = root_exists(r, rel) || root_exists(r, bin);
	if (!k->modules)
		no_modules(k, r, rel);
}

void kernel_free(struct kernel *k)
{
	free(k->cmdline);
	k->cmdline = NULL;
}

/* DMI strings a hypervisor or a cloud's virtual firmware writes. Bare metal
 * from the same vendors does not match: Microsoft's Surface laptops say
 * "Microsoft Corporation" (only Hyper-V says "Virtual Machine"), Chromebooks
 * say "Google" (only GCE says "Google Compute Engine"), Oracle's servers say
 * "Oracle Corporation" (only VirtualBox says "VirtualBox"). */
static const struct dmi_rule {
	const char *field, *prefix;
} dmi_rules[] = {
	{ "sys_vendor", "QEMU" },          { "sys_vendor", "KVM" },
	{ "sys_vendor", "Xen" },           { "sys_vendor", "VMware" },
	{ "sys_vendor", "innotek GmbH" },  { "sys_vendor", "Amazon EC2" },
	{ "sys_vendor", "DigitalOcean" },  { "sys_vendor", "Hetzner" },
	{ "sys_vendor", "OpenStack" },     { "sys_vendor", "Parallels" },
	{ "sys_vendor", "Bochs" },         { "sys_vendor", "Scaleway" },
	{ "sys_vendor", "Linode" },        { "sys_vendor", "Vultr" },
	{ "product_name", "KVM" },         { "product_name", "VirtualBox" },
	{ "product_name", "Virtual Machine" }, { "product_name", "HVM domU" },
	{ "product_name", "Google Compute Engine" }, { "product_name", "OpenStack" },
	{ "product_name", "vServer" },     { "product_name", "Droplet" },
	{ "product_name", "BHYVE" },       { "product_name", "VMware" },
	{ "bios_vendor", "Amazon EC2" },   { "bios_vendor", "Xen" },
	{ "bios_vendor", "innotek GmbH" }, { "bios_vendor", "Parallels" },
	{ "bios_vendor", "BHYVE" },        { "chassis_vendor", "QEMU" },
	{ "chassis_vendor", "Amazon EC2" }, { "chassis_vendor", "Xen" },
	{ "chassis_vendor", "Bochs" },
};

static const char *const dmi_fields[] = { "sys_vendor", "product_name", "bios_vendor", "chassis_vendor" };

/* 1 when the first CPU has the hypervisor flag, 0 when not (or no cpuinfo:
 * *x86 false), -errno when it cannot be read. *x86: cpuinfo has x86 "flags",
 * so the flag (CPUID) decides; arm64, s390x and ppc64le have no such flag. */
static int cpuinfo_flag(const struct root *r, bool *x86)
{
	_cleanup_(freep) char *buf = NULL;
	char *line, *end;
	int rr;

	*x86 = false;
	rr = root_read_file(r, "proc/cpuinfo", &buf, 1 << 24);
	if (rr < 0)
		return rr == -ENOENT ? 0 : rr;
	/* The flags of the first CPU are enough. */
	line = strstr(buf, "\nflags");
	if (!line)
		return 0;
	*x86 = true;
	end = strchr(line + 1, '\n');
	if (end)
		*end = '\0';
	return strstr(line, " hypervisor") != NULL;
}

static int hv_unreadable(struct kernel *k, int err, const char *rel)
{
	k->hv_probed = true;
	k->hypervisor = err;
	snprintf(k->hv_why, sizeof(k->hv_why), "cannot read /%s: %s", rel, strerror(-err));
	return err;
}

__attribute__((format(printf, 2, 3))) static int hv_yes(struct kernel *k, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(k->hv_why, sizeof(k->hv_why), fmt, ap);
	va_end(ap);
	k->hv_probed = true;
	k->hypervisor = 1;
	return 1;
}

/* A missing file is no evidence: 0; a failed read -errno (hv_why names it). */
static int hv_read(struct kernel *k, const struct root *r, const char *rel, char *buf, size_t size)
{
	int rr = root_read(r, rel, buf, size);

	*buf = rr > 0 ? *buf : '\0';
	if (rr < 0 && rr != -ENOENT)
		return hv_unreadable(k, rr, rel);
	return rr < 0 ? 0 : rr;
}

static int hv_dmi(struct kernel *k, const struct root *r)
{
	char val[ARRAY_SIZE(dmi_fields)][128], rel[64];
	int rr;

	for (size_t i = 0; i < ARRAY_SIZE(dmi_fields); i++) {
		if ((rr = pathf(rel, sizeof(rel), "sys/class/dmi/id/%s", dmi_fields[i])) < 0 ||
		    (rr = hv_read(k, r, rel, val[i], sizeof(val[i]))) < 0)
			return rr;
	}
	/* EC2 bare-metal instances (m7g.metal) keep the cloud's strings. */
	if (strlen(val[1]) > 6 && !strcmp(val[1] + strlen(val[1]) - 6, ".metal"))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(dmi_rules); i++)
		for (size_t f = 0; f < ARRAY_SIZE(dmi_fields); f++)
			if (!strcmp(dmi_rules[i].field, dmi_fields[f]) &&
			    !strncmp(val[f], dmi_rules[i].prefix, strlen(dmi_rules[i].prefix)))
				return hv_yes(k, "DMI %s '%s'", dmi_fields[f], val[f]);
	return 0;
}

/* Device-tree platforms (arm64, ppc64le): a hypervisor node (Xen, KVM on
 * POWER), or QEMU's machine compatible strings. Entries are NUL-separated. */
static int hv_devicetree(struct kernel *k, const struct root *r)
{
	static const char *const virt[] = { "linux,dummy-virt", "qemu,", "xen,", "linux,kvm" };
	static const char *const files[] = { "proc/device-tree/hypervisor/compatible",
					     "proc/device-tree/compatible" };

	for (size_t f = 0; f < ARRAY_SIZE(files); f++) {
		_cleanup_(freep) char *buf = NULL;
		int rr = root_read_file(r, files[f], &buf, 1 << 16);

		if (rr < 0 && rr != -ENOENT)
			return hv_unreadable(k, rr, files[f]);
		for (int i = 0; i < rr; i += (int)strlen(buf + i) + 1)
			for (size_t v = 0; v < ARRAY_SIZE(virt); v++)
				if (f == 0 || !strncmp(buf + i, virt[v], strlen(virt[v])))
					return hv_yes(k, "device tree /%s '%s'", files[f], buf + i);
	}
	return 0;
}

/* s390x: "VM00 Control Program: KVM/Linux" or "z/VM 7.3.0" under a
 * hypervisor; an LPAR alone has no such line. */
static int hv_sysinfo(struct kernel *k, const struct root *r)
{
	_cleanup_(freep) char *buf = NULL;
	int rr = root_read_file(r, "proc/sysinfo", &buf, 1 << 20);
	char *cp, *end;

	if (rr < 0)
		return rr == -ENOENT ? 0 : hv_unreadable(k, rr, "proc/sysinfo");
	cp = strstr(buf, "Control Program:");
	if (!cp)
		return 0;
	end = strchr(cp, '\n');
	if (end)
		*end = '\0';
	while (end && end > cp && end[-1] == ' ')
		*--end = '\0';
	return hv_yes(k, "s390 /proc/sysinfo '%s'", cp);
}

/* Probed lazily: only SCSI/ATA disks need it, and /proc/cpuinfo is not free on
 * large machines. 1 yes, 0 no; -errno (hv_why says which read failed) when a
 * source that would decide cannot be read: never "not a VM" on a guess.
 * Evidence in order: sys/hypervisor/type, the x86 CPUID flag (which alone
 * decides on x86), DMI, the device tree, s390's proc/sysinfo. */
int kernel_hypervisor(struct kernel *k, const struct root *r)
{
	char buf[128];
	bool x86;
	int rr;

	if (k->hv_probed)
		return k->hypervisor;
	if ((rr = hv_read(k, r, "sys/hypervisor/type", buf, sizeof(buf))) != 0)
		return rr < 0 ? rr : hv_yes(k, "hypervisor %s (%s)", buf, "sys/hypervisor/type");
	rr = cpuinfo_flag(r, &x86);
	if (rr < 0)
		return hv_unreadable(k, rr, "proc/cpuinfo");
	if (rr)
		return hv_yes(k, "hypervisor flag in /proc/cpuinfo");
	/* Bare-metal cloud instances carry their cloud's DMI strings too: on
	 * x86 the CPUID flag, which a hypervisor always sets, decides alone. */
	if (!x86 && ((rr = hv_dmi(k, r)) != 0 || (rr = hv_devicetree(k, r)) != 0 ||
		     (rr = hv_sysinfo(k, r)) != 0))
		return rr;
	k->hv_probed = true;
	k->hypervisor = 0;
	return 0;
}
