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

/* What a SCSI disk hangs off: its host's driver (sys/class/scsi_host/hostN/
 * proc_name) and its channel (device → H:C:T:L). */
struct scsi_id {
	char vendor[64], model[64], host_driver[64];
	int channel; /* -1 unknown */
};

static void read_scsi_id(struct ctx *c, struct disk *d, struct scsi_id *id)
{
	char rel[PATH_MAX], host[64], link[PATH_MAX];
	unsigned h, ch, t, l;

	read_attr(c, d, "device/vendor", id->vendor, sizeof(id->vendor));
	read_attr(c, d, "device/model", id->model, sizeof(id->model));
	*id->host_driver = '\0';
	if (path_part(d, "host", host, sizeof(host))) {
		int r = pathf(rel, sizeof(rel), "sys/class/scsi_host/%s/proc_name", host);

		disk_fail(d, r < 0 ? r : root_read(&c->root, rel, id->host_driver, sizeof(id->host_driver)), rel);
	}
	id->channel = -1;
	if (pathf(rel, sizeof(rel), "%s/device", d->dir) == 0 && root_readlink(&c->root, rel, link, sizeof(link)) > 0 &&
	    sscanf(base_of(link), "%u:%u:%u:%u", &h, &ch, &t, &l) == 4)
		id->channel = (int)ch;
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
			snprintf(d->why, sizeof(d->why), "sd, SCSI host driver %s", hosts[i]);
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
		snprintf(d->why, sizeof(d->why), "sd, USB mass storage: SCSI host driver %s", id->host_driver);
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

/* Hardware RAID volumes, by the SCSI host's driver. Controllers that also
 * pass physical disks through put volumes on their own channel:
 * megaraid_sas logical drives on channels 2-3 (physical 0-1), mpt3sas IR
 * volumes on channel 1, aacraid containers on channel 0; hpsa and smartpqi
 * name a volume's model "LOGICAL VOLUME". 1 a volume (d->why says so), 0 not
 * a RAID host, -1 a disk passed through (passed says so). */
static int scsi_raid(struct disk *d, const struct scsi_id *id, char *passed, size_t size)
{
	const char *hd = id->host_driver;
	bool vol;

	if (!strcmp(hd, "megaraid_sas"))
		vol = id->channel >= 2;
	else if (!strcmp(hd, "mpt3sas") || !strcmp(hd, "mpt2sas"))
		vol = id->channel == 1;
	else if (!strcmp(hd, "aacraid"))
		vol = id->channel == 0;
	else if (!strcmp(hd, "hpsa") || !strcmp(hd, "smartpqi"))
		vol = !strcasecmp(id->model, "LOGICAL VOLUME");
	else
		return 0;
	if (vol)
		snprintf(d->why, sizeof(d->why), "sd, hardware RAID volume: SCSI host driver %s, channel %d", hd,
			 id->channel);
	else
		snprintf(passed, size, "a physical disk passed through by %s (channel %d)", hd, id->channel);
	return vol ? 1 : -1;
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

/* EBS and GCE Persistent Disk are network volumes behind an NVMe face. */
static void classify_nvme(struct ctx *c, struct disk *d)
{
	static const struct {
		const char *model, *what;
	} remote[] = { { "Amazon Elastic Block Store", "EC2 EBS volume" },
		       { "nvme_card-pd", "GCE Persistent Disk" } };
	char model[64];

	d->cls = BC_NVME;
	read_attr(c, d, "device/model", model, sizeof(model));
	for (size_t i = 0; i < ARRAY_SIZE(remote); i++)
		if (!strcmp(model, remote[i].model)) {
			d->cls = BC_VIRTUAL;
			snprintf(d->why, sizeof(d->why), "%s: NVMe model '%s'", remote[i].what, model);
			return;
		}
	if (*model)
		snprintf(d->why, sizeof(d->why), "kernel name %s, model '%s'", d->name, model);
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
	if ((prefix(n, "dm-") && has_attr(c, d, "dm")) || (prefix(n, "md") && has_attr(c, d, "md")))
		d->cls = BC_STACKED;
	else if (prefix(n, "loop"))
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
