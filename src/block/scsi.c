// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What a SCSI disk is (class.c asks): a kernel test device, a virtual disk,
 * removable, a hardware RAID volume or a disk passed through by a RAID HBA,
 * else spinning or solid-state; the evidence read from its host's driver
 * (every place sysfs keeps it), its channel, vendor and model.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "block/disk.h"

/* What a SCSI disk hangs off: its host's driver and its channel (device →
 * H:C:T:L). */
struct scsi_id {
	char vendor[64], model[64], host_driver[64];
	char host_from[192]; /* host_driver and where it was read, for the reason */
	int channel;         /* -1 unknown */
};

/* The device path relative to the root ("sys/devices/…/host0/…"): sys/block
 * links are relative to sys/block, a disk found under sys/devices is its own
 * path. Components are collapsed against ".." textually: sysfs device paths
 * are real directories. */
static int dev_path_rel(const struct disk *d, char *out, size_t size)
{
	char buf[PATH_MAX * 2], *parts[256], *save = NULL;
	size_t n = 0, len = 0;

	if (!*d->path)
		return -ENOENT;
	if (prefix(d->path, "sys/") || *d->path == '/') /* found under sys/devices, or an absolute link */
		snprintf(buf, sizeof(buf), "%s", d->path + (*d->path == '/'));
	else
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)(base_of(d->dir) - d->dir), d->dir, d->path);
	for (char *t = strtok_r(buf, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
		if (!strcmp(t, ".."))
			n -= n > 0;
		else if (n == ARRAY_SIZE(parts))
			return -ENAMETOOLONG;
		else if (strcmp(t, "."))
			parts[n++] = t;
	}
	*out = '\0';
	for (size_t i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(out + len, size - len, "%s%s", i ? "/" : "", parts[i]);
	return len < size ? 0 : -ENAMETOOLONG;
}

/* hostN's directory on the device path (the parent is the HBA), or -ENOENT. */
static int host_dir(const struct disk *d, const char *host, char *out, size_t size)
{
	char want[72];
	char *s;
	int r = dev_path_rel(d, out, size);

	if (r < 0)
		return r;
	snprintf(want, sizeof(want), "/%s/", host);
	s = strstr(out, want);
	if (!s)
		return -ENOENT;
	s[strlen(want) - 1] = '\0';
	return 0;
}

/* A driver name read from rel (a proc_name file, or a driver link when link). */
static bool host_driver_from(struct ctx *c, struct disk *d, struct scsi_id *id, const char *rel, bool link,
			     const char *what, const char *of)
{
	char buf[PATH_MAX];
	int r = link ? root_readlink(&c->root, rel, buf, sizeof(buf)) : root_read(&c->root, rel, buf, sizeof(buf));

	if (r == -EINVAL && link)
		return false; /* a captured tree copied the link as a directory */
	disk_fail(d, r, rel);
	if (r <= 0 || !*(link ? base_of(buf) : buf))
		return false;
	snprintf(id->host_driver, sizeof(id->host_driver), "%s", link ? base_of(buf) : buf);
	snprintf(id->host_from, sizeof(id->host_from), "%s %s%s%s%s", what, id->host_driver, of ? " (of " : "",
		 of ? of : "", of ? ")" : "");
	return true;
}

/* The host's driver from every place sysfs keeps it: sys/class/scsi_host/
 * hostN/proc_name, the same attribute under the disk's own device path
 * (…/hostN/scsi_host/hostN/proc_name: trees without the class link), and
 * the driver bound to the HBA itself (the device above hostN: a PCI RAID
 * controller, a USB interface, virtioN). */
static void read_host_driver(struct ctx *c, struct disk *d, struct scsi_id *id, const char *host)
{
	char rel[PATH_MAX], dir[PATH_MAX];

	if (pathf(rel, sizeof(rel), "sys/class/scsi_host/%s/proc_name", host) == 0 &&
	    host_driver_from(c, d, id, rel, false, "SCSI host driver", NULL))
		return;
	if (host_dir(d, host, dir, sizeof(dir)) < 0)
		return;
	if (pathf(rel, sizeof(rel), "%s/scsi_host/%s/proc_name", dir, host) == 0 &&
	    host_driver_from(c, d, id, rel, false, "SCSI host driver", NULL))
		return;
	*strrchr(dir, '/') = '\0'; /* dev_path_rel gave sys/devices/…/hostN */
	if (pathf(rel, sizeof(rel), "%s/driver", dir) == 0)
		host_driver_from(c, d, id, rel, true, "HBA driver", base_of(dir));
}

/* The channel of a SCSI address H:C:T:L, or -1. */
static int hctl_channel(const char *hctl)
{
	unsigned h, ch, t, l;

	return sscanf(hctl, "%u:%u:%u:%u", &h, &ch, &t, &l) == 4 ? (int)ch : -1;
}

static void read_scsi_id(struct ctx *c, struct disk *d, struct scsi_id *id)
{
	char rel[PATH_MAX], host[64], link[PATH_MAX];
	const char *s;

	read_attr(c, d, "device/vendor", id->vendor, sizeof(id->vendor));
	read_attr(c, d, "device/model", id->model, sizeof(id->model));
	*id->host_driver = '\0';
	*id->host_from = '\0';
	if (path_part(d, "host", host, sizeof(host)))
		read_host_driver(c, d, id, host);
	id->channel = -1;
	if (pathf(rel, sizeof(rel), "%s/device", d->dir) == 0 && root_readlink(&c->root, rel, link, sizeof(link)) > 0)
		id->channel = hctl_channel(base_of(link));
	if (id->channel < 0 && (s = strstr(d->path, "/block/"))) { /* …/H:C:T:L/block/NAME */
		snprintf(link, sizeof(link), "%.*s", (int)(s - d->path), d->path);
		id->channel = hctl_channel(base_of(link));
	}
}

/* Devices of the kernel's own test drivers: scsi_debug (its adapters hang
 * off the pseudo_0 root device, vendor "Linux", model "scsi_debug") and the
 * target's tcm_loop fabric (a local LIO backstore seen as a SCSI disk).
 * Nothing about them is a real disk's: they are left alone. */
static bool scsi_test(struct disk *d, const struct scsi_id *id)
{
	char part[64];

	if (!strcmp(id->host_driver, "scsi_debug") || !strcmp(id->host_driver, "tcm_loopback"))
		snprintf(d->why, sizeof(d->why), "sd, a kernel test device: %s", id->host_from);
	else if (path_part(d, "pseudo_", part, sizeof(part)) || path_part(d, "tcm_loop_", part, sizeof(part)))
		snprintf(d->why, sizeof(d->why), "sd, a kernel test device: the device path runs through %s (%s)", part,
			 prefix(part, "pseudo_") ? "scsi_debug" : "tcm_loop");
	else if (!strcmp(id->vendor, "Linux") && !strcmp(id->model, "scsi_debug"))
		snprintf(d->why, sizeof(d->why), "sd, a kernel test device: vendor 'Linux', model 'scsi_debug'");
	else
		return false;
	return true;
}

/* The disk's own bus or model says it is virtual: outranks the platform. */
static bool scsi_virtual(struct disk *d, const struct scsi_id *id)
{
	static const struct {
		const char *vendor, *model, *what;
	} models[] = {
		{ "QEMU", "", "QEMU disk" },         { "", "QEMU HARDDISK", "QEMU disk" },
		{ "Msft", "Virtual Disk", "Hyper-V disk" }, { "VMware", "", "VMware disk" },
		{ "", "VMware Virtual S", "VMware disk" }, { "Google", "PersistentDisk", "GCE Persistent Disk" },
		{ "VBOX", "", "VirtualBox disk" },   { "Xen", "", "Xen disk" },
	};
	static const char *const hosts[] = { "virtio_scsi", "storvsc", "vmw_pvscsi", "xen-pvscsi", "xen-scsifront" };
	char part[64];

	if (path_part(d, "virtio", part, sizeof(part))) {
		snprintf(d->why, sizeof(d->why), "sd, virtio-scsi: the device path runs through %s", part);
		return true;
	}
	if (path_part(d, "VMBUS", part, sizeof(part)) || path_part(d, "vmbus", part, sizeof(part))) {
		snprintf(d->why, sizeof(d->why), "sd, Hyper-V storvsc: the device path runs through %s", part);
		return true;
	}
	for (size_t i = 0; i < ARRAY_SIZE(hosts); i++)
		if (!strcmp(id->host_driver, hosts[i])) {
			snprintf(d->why, sizeof(d->why), "sd, %s", id->host_from);
			return true;
		}
	for (size_t i = 0; i < ARRAY_SIZE(models); i++)
		if (prefix(id->vendor, models[i].vendor) && prefix(id->model, models[i].model) &&
		    (*models[i].vendor || *models[i].model)) {
			snprintf(d->why, sizeof(d->why), "sd, %s: vendor '%s', model '%s'", models[i].what, id->vendor,
				 id->model);
			return true;
		}
	return false;
}

/* USB mass storage, or a disk the kernel marks removable. */
static bool scsi_removable(struct ctx *c, struct disk *d, const struct scsi_id *id)
{
	char part[64], rm[8];

	if (!strcmp(id->host_driver, "usb-storage") || !strcmp(id->host_driver, "uas")) {
		snprintf(d->why, sizeof(d->why), "sd, USB mass storage: %s", id->host_from);
		return true;
	}
	if (path_part(d, "usb", part, sizeof(part))) {
		snprintf(d->why, sizeof(d->why), "sd, USB mass storage: the device path runs through %s", part);
		return true;
	}
	read_attr(c, d, "removable", rm, sizeof(rm));
	if (!strcmp(rm, "1")) {
		snprintf(d->why, sizeof(d->why), "sd, removable=1");
		return true;
	}
	return false;
}

/* What a RAID HBA's driver says of a disk behind it. Controllers that also
 * pass physical disks through put volumes on their own channel:
 * megaraid_sas logical drives on channels 2-3 (physical 0-1), mpt3sas IR
 * volumes on channel 1, aacraid containers on channel 0; hpsa and smartpqi
 * name a volume's model "LOGICAL VOLUME". The others (megaraid_mbox, 3ware,
 * Areca, ServeRAID ips, HighPoint) export only their units. 1 a volume, 0
 * not a RAID HBA's driver, -1 a physical disk passed through; a channel
 * that cannot be read is no evidence of a pass-through. */
static int raid_driver_says(const struct scsi_id *id)
{
	static const char *const units_only[] = { "megaraid", "3w-9xxx", "3w-sas", "3w-xxxx", "arcmsr", "ips", "hptiop" };
	const char *hd = id->host_driver;
	int want;

	if (!strcmp(hd, "megaraid_sas"))
		want = 2;
	else if (!strcmp(hd, "mpt3sas") || !strcmp(hd, "mpt2sas"))
		want = 1;
	else if (!strcmp(hd, "aacraid"))
		want = 0;
	else if (!strcmp(hd, "hpsa") || !strcmp(hd, "smartpqi"))
		return !strcasecmp(id->model, "LOGICAL VOLUME") ? 1 : -1;
	else {
		for (size_t i = 0; i < ARRAY_SIZE(units_only); i++)
			if (!strcmp(hd, units_only[i]))
				return 1;
		return 0;
	}
	if (id->channel < 0)
		return 1;
	return (want == 2 ? id->channel >= 2 : id->channel == want) ? 1 : -1;
}

/* A RAID controller's volume names itself so: Dell "PERC H730P Mini", LSI/
 * Broadcom "MR9361-8i" and "MegaRAID", HPE "LOGICAL VOLUME" (Smart Array),
 * IBM/Lenovo "ServeRAID M5210" and "RAID 930-8i", Fujitsu "PRAID EP420i";
 * a physical disk passed through keeps its own vendor and model. */
static bool raid_model(const struct scsi_id *id)
{
	static const char *const words[] = { "PERC", "RAID", "Smart Array", "LOGICAL VOLUME" };
	static const char *const lsi[] = { "LSI", "AVAGO", "BROADCOM" };

	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (strstr(id->model, words[i]) || strstr(id->vendor, words[i]) ||
		    (i > 1 && strcasestr(id->model, words[i])))
			return true;
	for (size_t i = 0; i < ARRAY_SIZE(lsi); i++)
		if (!strcmp(id->vendor, lsi[i]) && (prefix(id->model, "MR9") || prefix(id->model, "SMC3")))
			return true;
	return false;
}

/* Hardware RAID volumes: by the HBA's driver (from whichever source
 * read_host_driver found it) and by the volume's own vendor and model. A
 * volume spans spindles behind the controller's cache: never bfq. 1 a
 * volume (d->why says so), 0 no RAID HBA, -1 a disk passed through (passed
 * says so). */
static int scsi_raid(struct disk *d, const struct scsi_id *id, char *passed, size_t size)
{
	int drv = raid_driver_says(id);
	bool model = drv <= 0 && raid_model(id);
	char ch[32] = "channel unknown";

	if (id->channel >= 0)
		snprintf(ch, sizeof(ch), "channel %d", id->channel);
	if (drv > 0)
		snprintf(d->why, sizeof(d->why), "sd, hardware RAID volume: %s, %s", id->host_from, ch);
	else if (model)
		snprintf(d->why, sizeof(d->why), "sd, hardware RAID volume: vendor '%s', model '%s'%s%s%s", id->vendor,
			 id->model, *id->host_driver ? " (" : "", id->host_driver, *id->host_driver ? ")" : "");
	else if (drv < 0)
		snprintf(passed, size, "a physical disk passed through by %s (%s)", id->host_driver, ch);
	return drv > 0 || model ? 1 : drv;
}

void block_classify_scsi(struct ctx *c, struct disk *d)
{
	struct scsi_id id;
	char rel[PATH_MAX], what[160] = "physical sd disk";
	int hv, r;

	disk_link(d);
	read_scsi_id(c, d, &id);
	if (scsi_test(d, &id)) {
		d->cls = BC_OTHER;
		return;
	}
	if (scsi_virtual(d, &id)) {
		d->cls = BC_VIRTUAL;
		return;
	}
	if (scsi_removable(c, d, &id)) {
		d->cls = BC_REMOVABLE;
		return;
	}
	if (scsi_raid(d, &id, what, sizeof(what)) > 0) {
		d->cls = BC_RAID;
		return;
	}
	hv = kernel_hypervisor(&c->kernel, &c->root);
	if (hv < 0) {
		if (!*d->err)
			snprintf(d->err, sizeof(d->err), "cannot tell whether this is a VM: %s", c->kernel.hv_why);
		return;
	}
	if (hv) {
		d->cls = BC_VIRTUAL;
		snprintf(d->why, sizeof(d->why), "sd in a VM, %s", c->kernel.hv_why);
		return;
	}
	r = disk_rotational(c, d, rel, sizeof(rel));
	disk_fail(d, r, rel);
	d->cls = !strcmp(d->rot, "1") ? BC_HDD : !strcmp(d->rot, "0") ? BC_SSD : BC_UNKNOWN;
	if (r == -ENOENT)
		snprintf(d->why, sizeof(d->why), "%s, no queue/rotational: spinning or solid-state is unknown", what);
	else if (d->cls == BC_UNKNOWN)
		snprintf(d->why, sizeof(d->why), "%s, queue/rotational reads '%s', neither 0 nor 1", what, d->rot);
	else
		snprintf(d->why, sizeof(d->why), "%s, rotational=%s", what, d->rot);
}
