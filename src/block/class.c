// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What a whole disk is: its class (virtual, nvme, ssd, hdd, stacked, …) and
 * the evidence for it (driver, bus, SCSI host, model, the platform's
 * hypervisor), and for a stacked disk the disks it sits on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "block/disk.h"

/* ---- classification ---------------------------------------------------- */

/* What a disk is or matches cannot rest on a read that failed: the first
 * such failure makes the disk an error item instead of a guess. */
void disk_fail(struct disk *d, int err, const char *what)
{
	if (err < 0 && err != -ENOENT && !*d->err)
		snprintf(d->err, sizeof(d->err), "cannot read %s: %s", what, strerror(-err));
}

static void read_driver(struct ctx *c, struct disk *d)
{
	char rel[PATH_MAX], link[PATH_MAX];
	const char *const tries[] = { "device/driver", "device/device/driver" };

	for (size_t i = 0; i < ARRAY_SIZE(tries); i++) {
		int r;

		r = pathf(rel, sizeof(rel), "%s/%s", d->dir, tries[i]);
		if (r == 0)
			r = root_readlink(&c->root, rel, link, sizeof(link));
		if (r > 0) {
			snprintf(d->driver, sizeof(d->driver), "%s", base_of(link));
			return;
		}
		if (r != -EINVAL) /* EINVAL: not a link */
			disk_fail(d, r, rel);
	}
}

/* A lookup that fails for another reason than absence makes the disk an
 * error, not a disk without that attribute. */
static bool has_attr(struct ctx *c, struct disk *d, const char *attr)
{
	char rel[PATH_MAX];
	int r;

	r = pathf(rel, sizeof(rel), "%s/%s", d->dir, attr);
	if (r == 0)
		r = root_access(&c->root, rel);
	disk_fail(d, r, rel);
	return r > 0;
}

/* An identity attribute (device/model…), "" when absent; trailing blanks
 * (SCSI pads vendor and model) are gone. */
static void read_attr(struct ctx *c, struct disk *d, const char *attr, char *out, size_t size)
{
	char rel[PATH_MAX];
	int r;

	*out = '\0';
	r = pathf(rel, sizeof(rel), "%s/%s", d->dir, attr);
	if (r == 0)
		r = root_read(&c->root, rel, out, size);
	disk_fail(d, r, rel);
}

/* The component of the device path that starts with p ("virtio2"), or NULL. */
static const char *path_part(const struct disk *d, const char *p, char *out, size_t size)
{
	const char *s = d->path;

	while ((s = strchr(s, '/'))) {
		s++;
		if (prefix(s, p)) {
			snprintf(out, size, "%.*s", (int)strcspn(s, "/"), s);
			return out;
		}
	}
	return NULL;
}

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
	char ch[32] = "channel unknown";

	if (id->channel >= 0)
		snprintf(ch, sizeof(ch), "channel %d", id->channel);
	if (drv > 0)
		snprintf(d->why, sizeof(d->why), "sd, hardware RAID volume: %s, %s", id->host_from, ch);
	else if (raid_model(id))
		snprintf(d->why, sizeof(d->why), "sd, hardware RAID volume: vendor '%s', model '%s'%s%s%s", id->vendor,
			 id->model, *id->host_driver ? " (" : "", id->host_driver, *id->host_driver ? ")" : "");
	else if (drv < 0)
		snprintf(passed, size, "a physical disk passed through by %s (%s)", id->host_driver, ch);
	return drv > 0 || raid_model(id) ? 1 : drv;
}

/* queue/rotational (its path in rel), read once: classify_scsi and
 * wbt_default both need it. */
int disk_rotational(struct ctx *c, struct disk *d, char *rel, size_t size)
{
	int r = pathf(rel, size, "%s/queue/rotational", d->dir);

	if (d->rot_read)
		return d->rot_r;
	d->rot_read = true;
	d->rot_r = r < 0 ? r : root_read(&c->root, rel, d->rot, sizeof(d->rot));
	if (d->rot_r < 0)
		*d->rot = '\0';
	return d->rot_r;
}

static void classify_scsi(struct ctx *c, struct disk *d)
{
	struct scsi_id id;
	char rel[PATH_MAX], what[160] = "physical sd disk";
	int hv, r;

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

/* The hardware queues of a blk-mq disk: one mq/N directory each; without
 * mq/, an NVMe controller's queue_count less its admin queue. */
static void read_hw_queues(struct ctx *c, struct disk *d)
{
	char rel[PATH_MAX], v[32];
	unsigned long long n;
	int r = pathf(rel, sizeof(rel), "%s/mq", d->dir);

	d->hwq = -1;
	if (r == 0)
		r = root_match(&c->root, rel, "[0-9]*", NULL, NULL);
	disk_fail(d, r, rel);
	if (r > 0) {
		d->hwq = r;
		return;
	}
	read_attr(c, d, "device/queue_count", v, sizeof(v));
	if (parse_u64(v, &n) == 0 && n >= 2 && n < 65536)
		d->hwq = (int)n - 1;
}

/* An NVMe disk served by a hypervisor rather than a controller of its own:
 * by model, or by the controller's PCI IDs alone (trees, and firmware, that
 * give no model). Amazon's, Google's and Microsoft's PCI vendors make only
 * such controllers. */
static const char *nvme_served(const char *model, unsigned vendor, unsigned device)
{
	static const struct {
		const char *model;
		unsigned vendor, device; /* device 0: any of the vendor's */
		const char *what;
	} v[] = {
		{ "Amazon Elastic Block Store", 0x1d0f, 0x8061, "EC2 EBS volume" },
		{ "Amazon EC2 NVMe Instance Storage", 0x1d0f, 0xcd01, "EC2 instance storage (Nitro)" },
		{ NULL, 0x1d0f, 0, "EC2 NVMe (Nitro)" },
		{ "nvme_card-pd", 0x1ae0, 0, "GCE Persistent Disk" },
		{ "nvme_card", 0x1ae0, 0x001f, "GCE NVMe" },
		{ "Microsoft NVMe Direct Disk", 0x1414, 0, "Azure NVMe" },
		{ "MSFT NVMe Accelerator", 0x1414, 0, "Azure NVMe" },
		{ "QEMU NVMe Ctrl", 0x1b36, 0x0010, "QEMU NVMe controller" },
		{ "VMware Virtual NVMe Disk", 0x15ad, 0x07f0, "VMware virtual NVMe" },
		{ "ORCL-VBOX-NVME", 0x80ee, 0x4e56, "VirtualBox NVMe" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(v); i++)
		if (v[i].model && *model && prefix(model, v[i].model))
			return v[i].what;
	for (size_t i = 0; i < ARRAY_SIZE(v); i++)
		if (vendor == v[i].vendor && (!v[i].device || device == v[i].device))
			return v[i].what;
	return NULL;
}

struct first_rel {
	char rel[PATH_MAX];
};

static void keep_first(const char *rel, void *data)
{
	struct first_rel *f = data;

	if (!*f->rel)
		snprintf(f->rel, sizeof(f->rel), "%s", rel);
}

/* A PCI ID file below dir, "" when absent; captures that copied a link as
 * a directory hold directories where the kernel has files. */
static void read_id(struct ctx *c, struct disk *d, const char *dir, const char *attr, char *out, size_t size)
{
	char rel[PATH_MAX];
	int r = pathf(rel, sizeof(rel), "%s/%s", dir, attr);

	*out = '\0';
	if (r == 0)
		r = root_read(&c->root, rel, out, size);
	if (r < 0)
		*out = '\0';
	if (r != -EISDIR && r != -ENOTDIR)
		disk_fail(d, r, rel);
}

/* The controller's PCI vendor and device ("1d0f:8061"), "" when it has no
 * PCI device (Apple's platform device, fabrics). A namespace's device is its
 * controller; a multipath head's is the subsystem, whose controllers are
 * its nvmeN links. */
static void nvme_pci_ids(struct ctx *c, struct disk *d, unsigned *vendor, unsigned *device)
{
	char rel[PATH_MAX], v[16], dv[16];
	struct first_rel ctrl = { "" };
	int r;

	*vendor = *device = 0;
	*v = *dv = '\0';
	if (pathf(rel, sizeof(rel), "%s/device", d->dir) < 0)
		return;
	read_id(c, d, rel, "device/vendor", v, sizeof(v));
	read_id(c, d, rel, "device/device", dv, sizeof(dv));
	if (!*v && (r = root_match(&c->root, rel, "nvme[0-9]*", keep_first, &ctrl)) > 0) {
		read_id(c, d, ctrl.rel, "device/vendor", v, sizeof(v));
		read_id(c, d, ctrl.rel, "device/device", dv, sizeof(dv));
	}
	if (*v && *dv) {
		*vendor = (unsigned)strtoul(v, NULL, 16);
		*device = (unsigned)strtoul(dv, NULL, 16);
	}
}

/* A hidden multipath path node nvme<subsys>c<ctrl>n<ns> reads ahead through
 * its head nvme<subsys>n<ns>: the kernel names both so. */
static void nvme_path_node(struct ctx *c, struct disk *d)
{
	unsigned s, ctl, ns;
	char tail, hidden[8];

	*d->mpath_head = '\0';
	if (sscanf(d->name, "nvme%uc%un%u%c", &s, &ctl, &ns, &tail) != 3)
		return;
	read_attr(c, d, "hidden", hidden, sizeof(hidden));
	if (strcmp(hidden, "0"))
		snprintf(d->mpath_head, sizeof(d->mpath_head), "nvme%un%u", s, ns);
}

/* The hardware-queue count for the reason: none is for more than one. */
static void say_queues(struct disk *d)
{
	size_t len = strlen(d->why);

	if (d->hwq == 1)
		snprintf(d->why + len, sizeof(d->why) - len, ", one hardware queue (only mq/0)");
	else if (d->hwq > 1)
		snprintf(d->why + len, sizeof(d->why) - len, ", %d hardware queues", d->hwq);
	else
		snprintf(d->why + len, sizeof(d->why) - len, ", hardware queues unknown (no mq/)");
}

/* Cloud volumes and emulated controllers are served by a hypervisor; the
 * nvmet loop transport is the kernel's local test target. */
static void classify_nvme(struct ctx *c, struct disk *d)
{
	char model[64], transport[16];
	unsigned vendor, device;
	const char *served;

	d->cls = BC_NVME;
	nvme_path_node(c, d);
	read_attr(c, d, "device/model", model, sizeof(model));
	read_attr(c, d, "device/transport", transport, sizeof(transport));
	if (!strcmp(transport, "loop")) {
		d->cls = BC_OTHER;
		snprintf(d->why, sizeof(d->why), "a kernel test device: NVMe over the nvmet loop transport (kernel name %s)",
			 d->name);
		return;
	}
	nvme_pci_ids(c, d, &vendor, &device);
	served = nvme_served(model, vendor, device);
	if (served && *model)
		snprintf(d->why, sizeof(d->why), "%s: NVMe model '%s'", served, model);
	else if (served)
		snprintf(d->why, sizeof(d->why), "%s: NVMe controller PCI %04x:%04x", served, vendor, device);
	else if (*model)
		snprintf(d->why, sizeof(d->why), "kernel name %s, model '%s'", d->name, model);
	if (served) {
		d->cls = BC_VIRTUAL;
		return;
	}
	if (!strstr(d->path, "nvme-subsystem")) /* a multipath head is bio-based: no hardware queues */
		say_queues(d);
}

/* dm-N is device-mapper's whatever its tree holds: dm/ appears with the
 * first table, yet a capture may lack it, and a live map is not "not set up"
 * for that (readiness is size 0 or dm/suspended=1: block_stack_ready). md
 * arrays likewise, by md/ or the kernel's mdN name. */
static bool is_stacked(struct ctx *c, struct disk *d)
{
	const char *n = d->name;
	size_t digits = strspn(n + 2, "0123456789");

	if (prefix(n, "dm-"))
		return n[3] && strspn(n + 3, "0123456789") == strlen(n + 3);
	if (!prefix(n, "md"))
		return false;
	return has_attr(c, d, "md") || (digits && !n[2 + digits]);
}

/* rotational alone never decides for a virtual disk: virtio-blk always says 1. */
static void classify(struct ctx *c, struct disk *d)
{
	const char *n = d->name;
	int r;

	read_driver(c, d);
	r = root_readlink(&c->root, d->dir, d->path, sizeof(d->path));
	if (r == -EINVAL) /* found under sys/devices: the directory is the device path */
		r = pathf(d->path, sizeof(d->path), "%s", d->dir) == 0 ? 1 : r;
	if (r <= 0)
		*d->path = '\0';
	d->cls = BC_OTHER;
	if (*d->driver)
		snprintf(d->why, sizeof(d->why), "kernel name %s, driver %s", n, d->driver);
	else
		snprintf(d->why, sizeof(d->why), "kernel name %s", n);
	read_hw_queues(c, d);
	if (is_stacked(c, d))
		d->cls = BC_STACKED;
	else if (prefix(n, "nullb")) {
		snprintf(d->why, sizeof(d->why), "a kernel test device: null_blk (kernel name %s)", n);
	} else if (prefix(n, "cciss!") || prefix(n, "ida!") || prefix(n, "rd!")) {
		d->cls = BC_RAID;
		snprintf(d->why, sizeof(d->why), "hardware RAID volume: kernel name %s (a Smart Array or Mylex logical drive)",
			 n);
	} else if (prefix(n, "loop"))
		d->cls = BC_LOOP;
	else if (prefix(n, "zram"))
		d->cls = BC_ZRAM;
	else if (prefix(n, "nvme"))
		classify_nvme(c, d);
	else if (prefix(n, "mmcblk")) {
		d->cls = BC_REMOVABLE;
		snprintf(d->why, sizeof(d->why), "SD/MMC card (kernel name %s)", n);
	} else if (prefix(n, "nbd") || prefix(n, "rbd") || !strcmp(d->driver, "virtio_blk") ||
		   !strcmp(d->driver, "vbd") || ((prefix(n, "vd") || prefix(n, "xvd")) && !*d->driver)) {
		d->cls = BC_VIRTUAL;
		snprintf(d->why, sizeof(d->why), "%s%s", *d->driver ? "driver " : "kernel name ",
			 *d->driver ? d->driver : n);
	} else if (!strcmp(d->driver, "sd") || (prefix(n, "sd") && !*d->driver)) {
		classify_scsi(c, d); /* captured trees often lack the driver link */
	}
}

/* ---- stacked devices ---------------------------------------------------- */

/* A stacked disk's bottom disks, their classes, its readiness and its reason:
 * "dm-0 (vg0-root) on vda (virtual)". */
static void stack_resolve(struct ctx *c, struct disk *d)
{
	char dm[128] = "", uuid[160] = "";
	size_t len;
	bool mp;
	int r;

	if (d->cls != BC_STACKED)
		return;
	/* Here even ENOENT is a failure: a slave whose disk cannot be found. */
	r = block_bottom_disks(&c->root, d->dir, &d->slaves, &d->nslaves);
	if (r < 0 && !*d->err)
		snprintf(d->err, sizeof(d->err), "cannot read %s/slaves: %s", d->dir, strerror(-r));
	d->scls = calloc(d->nslaves + 1, sizeof(*d->scls));
	if (!d->scls && !*d->err)
		snprintf(d->err, sizeof(d->err), "cannot classify the slaves: %s", strerror(ENOMEM));
	read_attr(c, d, "dm/name", dm, sizeof(dm));
	/* multipathd names its maps' uuids "mpath-WWID": its slaves are paths to one LUN */
	read_attr(c, d, "dm/uuid", uuid, sizeof(uuid));
	mp = prefix(uuid, "mpath-");
	len = (size_t)snprintf(d->why, sizeof(d->why), "%s%s%s%s%s %s", d->name, *dm ? " (" : "",
			       mp ? "multipath " : "", dm, *dm ? ")" : "",
			       !d->nslaves ? "with no slaves" : mp ? "on paths" : "on");
	for (size_t i = 0; d->scls && i < d->nslaves; i++) {
		char dir[PATH_MAX];
		struct disk s = { .name = d->slaves[i], .dir = dir };

		if ((r = pathf(dir, sizeof(dir), "sys/block/%s", s.name)) < 0) {
			disk_fail(d, r, s.name);
			continue;
		}
		classify(c, &s);
		d->scls[i] = s.cls;
		if (*s.err && !*d->err)
			snprintf(d->err, sizeof(d->err), "slave %s: %s", s.name, s.err);
		if (len < sizeof(d->why))
			len += (size_t)snprintf(d->why + len, sizeof(d->why) - len, "%s %s (%s)", i ? "," : "",
						s.name, block_classes[s.cls]);
	}
	r = block_stack_ready(&c->root, d->dir, d->name, d->notready, sizeof(d->notready));
	disk_fail(d, r, "its size or dm/suspended");
}

/* What d is, and for a stacked disk what it sits on. */
void block_classify(struct ctx *c, struct disk *d)
{
	classify(c, d);
	stack_resolve(c, d);
}

void disk_free(struct disk *d)
{
	for (size_t i = 0; i < d->ntags; i++)
		free(d->tags[i]);
	free(d->tags);
	for (size_t i = 0; i < d->nslaves; i++)
		free(d->slaves[i]);
	free(d->slaves);
	free(d->scls);
}
