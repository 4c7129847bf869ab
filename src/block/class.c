// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What a whole disk is: its class (virtual, nvme, ssd, hdd, stacked, …) and
 * the evidence for it (driver, bus, SCSI host, model, the platform's
 * hypervisor), and for a stacked disk the disks it sits on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "block/disk.h"

/* ---- classification ---------------------------------------------------- */

/* A failed read of the link, named by its path: the path is made only here,
 * its PATH_MAX buffer off read_driver's frame (a page of stack a run of
 * one disk touched below it). */
static __attribute__((noinline)) void driver_fail(struct disk *d, const char *try, int r)
{
	char rel[PATH_MAX];

	disk_path(d, try, rel, sizeof(rel));
	disk_fail(d, r, rel);
}

/* The driver's name, the last component of where device/driver (or a
 * SCSI disk's device/device/driver) points. */
static void read_driver(struct disk *d)
{
	static const char *const tries[] = { "device/driver", "device/device/driver" };
	char link[PATH_MAX];

	for (size_t i = 0; i < ARRAY_SIZE(tries); i++) {
		int r = d->dirlen + strlen(tries[i]) + 2 > PATH_MAX ? -ENAMETOOLONG
			: rdir_readlink(&d->at, tries[i], link, sizeof(link));

		if (r > 0) {
			str_copy(d->driver, sizeof(d->driver), base_of(link));
			return;
		}
		if (r != -EINVAL && r != -ENOENT) /* EINVAL: not a link */
			driver_fail(d, tries[i], r);
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
		r = rdir_access(&d->at, attr);
	disk_fail(d, r, rel);
	return r > 0;
}

/* The hardware queues of a blk-mq disk: one mq/N directory each; without
 * mq/, an NVMe controller's queue_count less its admin queue. Read when a
 * reason or a match asks, once: most disks are neither NVMe nor matched by
 * hw_queues, and the two lookups are a tenth of a disk's calls. */
int disk_hw_queues(struct ctx *c, struct disk *d)
{
	char rel[PATH_MAX], v[32];
	unsigned long long n;
	int r = pathf(rel, sizeof(rel), "%s/mq", d->dir);

	if (d->hwq_read)
		return d->hwq;
	d->hwq_read = true;
	d->hwq = -1;
	if (r == 0)
		r = root_match(&c->root, rel, "[0-9]*", NULL, NULL);
	disk_fail(d, r, rel);
	if (r > 0) {
		d->hwq = r;
		return r;
	}
	read_attr(c, d, "device/queue_count", v, sizeof(v));
	if (parse_u64(v, &n) == 0 && n >= 2 && n < 65536)
		d->hwq = (int)n - 1;
	return d->hwq;
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
		fmt(f->rel, sizeof(f->rel), "%s", rel);
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
		fmt(d->mpath_head, sizeof(d->mpath_head), "nvme%un%u", s, ns);
}

/* The hardware-queue count for the reason: none is for more than one. */
static void say_queues(struct ctx *c, struct disk *d)
{
	size_t len = strlen(d->why);

	if (disk_hw_queues(c, d) == 1)
		fmt(d->why + len, sizeof(d->why) - len, ", one hardware queue (only mq/0)");
	else if (d->hwq > 1)
		fmt(d->why + len, sizeof(d->why) - len, ", %d hardware queues", d->hwq);
	else
		fmt(d->why + len, sizeof(d->why) - len, ", hardware queues unknown (no mq/)");
}

/* Cloud volumes and emulated controllers are served by a hypervisor; the
 * nvmet loop transport is the kernel's local test target. */
static void classify_nvme(struct ctx *c, struct disk *d)
{
	char model[64], transport[16];
	unsigned vendor, device;
	const char *served;

	d->cls = BC_NVME;
	disk_link(d);
	nvme_path_node(c, d);
	read_attr(c, d, "device/model", model, sizeof(model));
	read_attr(c, d, "device/transport", transport, sizeof(transport));
	if (!strcmp(transport, "loop")) {
		d->cls = BC_OTHER;
		fmt(d->why, sizeof(d->why), "a kernel test device: NVMe over the nvmet loop transport (kernel name %s)",
			 d->name);
		return;
	}
	nvme_pci_ids(c, d, &vendor, &device);
	served = nvme_served(model, vendor, device);
	if (served && *model)
		fmt(d->why, sizeof(d->why), "%s: NVMe model '%s'", served, model);
	else if (served)
		fmt(d->why, sizeof(d->why), "%s: NVMe controller PCI %04x:%04x", served, vendor, device);
	else if (*model)
		fmt(d->why, sizeof(d->why), "kernel name %s, model '%s'", d->name, model);
	if (served) {
		d->cls = BC_VIRTUAL;
		return;
	}
	if (!strstr(d->path, "nvme-subsystem")) /* a multipath head is bio-based: no hardware queues */
		say_queues(c, d);
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

/* What the kernel name and driver say, the reason of a disk no test below
 * has a better one for. */
static void default_why(struct disk *d)
{
	if (*d->driver)
		fmt(d->why, sizeof(d->why), "kernel name %s, driver %s", d->name, d->driver);
	else
		fmt(d->why, sizeof(d->why), "kernel name %s", d->name);
}

static bool is_virtual(const struct disk *d)
{
	const char *n = d->name, *drv = d->driver;

	return prefix(n, "nbd") || prefix(n, "rbd") || !strcmp(drv, "virtio_blk") || !strcmp(drv, "vbd") ||
	       ((prefix(n, "vd") || prefix(n, "xvd")) && !*drv);
}

/* A virtual disk's reason: its driver ("driver virtio_blk"), else its name. */
static void virtual_why(struct disk *d)
{
	d->cls = BC_VIRTUAL;
	if (*d->driver)
		stpcpy(stpcpy(d->why, "driver "), d->driver); /* 7 + 63 bytes: it fits */
	else
		fmt(d->why, sizeof(d->why), "kernel name %s", d->name);
}

/* rotational alone never decides for a virtual disk: virtio-blk always says
 * 1. Each reason is written once: the default only where no test below
 * writes its own. */
static void classify(struct ctx *c, struct disk *d)
{
	const char *n = d->name;

	if (!d->at.held && rdir_open(&d->at, &c->root, d->dir) < 0)
		rdir_unheld(&d->at, &c->root, d->dir); /* its reads fail, or find nothing, by path */
	read_driver(d);
	d->cls = BC_OTHER;
	if (is_stacked(c, d)) {
		d->cls = BC_STACKED;
		default_why(d);
	} else if (prefix(n, "nullb")) {
		fmt(d->why, sizeof(d->why), "a kernel test device: null_blk (kernel name %s)", n);
	} else if (prefix(n, "cciss!") || prefix(n, "ida!") || prefix(n, "rd!")) {
		d->cls = BC_RAID;
		fmt(d->why, sizeof(d->why), "hardware RAID volume: kernel name %s (a Smart Array or Mylex logical drive)",
			 n);
	} else if (prefix(n, "mmcblk")) {
		d->cls = BC_REMOVABLE;
		fmt(d->why, sizeof(d->why), "SD/MMC card (kernel name %s)", n);
	} else if (!prefix(n, "loop") && !prefix(n, "zram") && !prefix(n, "nvme") && is_virtual(d)) {
		virtual_why(d);
	} else {
		default_why(d);
		if (prefix(n, "loop"))
			d->cls = BC_LOOP;
		else if (prefix(n, "zram"))
			d->cls = BC_ZRAM;
		else if (prefix(n, "nvme"))
			classify_nvme(c, d);
		else if (!strcmp(d->driver, "sd") || (prefix(n, "sd") && !*d->driver))
			block_classify_scsi(c, d); /* captured trees often lack the driver link */
	}
}

/* ---- stacked devices ---------------------------------------------------- */

/* A stacked disk's bottom disks, their classes, its readiness and its reason:
 * "dm-0 (vg0-root) on vda (virtual)". */
/* Apart from stack_resolve: its 14 KiB frame (a slave's struct disk) is
 * made only for a stacked disk, not below every disk's classification. */
static __attribute__((noinline)) void stack_slaves(struct ctx *c, struct disk *d)
{
	char dm[128], uuid[160]; /* read_attr's: "" when absent */
	size_t len;
	bool mp;
	int r;

	/* Here even ENOENT is a failure: a slave whose disk cannot be found. */
	r = block_bottom_disks(&c->root, d->dir, &d->slaves, &d->nslaves);
	if (r < 0 && !*d->err)
		fmt(d->err, sizeof(d->err), "cannot read %s/slaves: %s", d->dir, strerror(-r));
	d->scls = calloc(d->nslaves + 1, sizeof(*d->scls));
	if (!d->scls && !*d->err)
		fmt(d->err, sizeof(d->err), "cannot classify the slaves: %s", strerror(ENOMEM));
	read_attr(c, d, "dm/name", dm, sizeof(dm));
	/* multipathd names its maps' uuids "mpath-WWID": its slaves are paths to one LUN */
	read_attr(c, d, "dm/uuid", uuid, sizeof(uuid));
	mp = prefix(uuid, "mpath-");
	len = (size_t)fmt(d->why, sizeof(d->why), "%s%s%s%s%s %s", d->name, *dm ? " (" : "",
			       mp ? "multipath " : "", dm, *dm ? ")" : "",
			       !d->nslaves ? "with no slaves" : mp ? "on paths" : "on");
	for (size_t i = 0; d->scls && i < d->nslaves; i++) {
		char dir[PATH_MAX];
		struct disk s;

		if ((r = pathf(dir, sizeof(dir), "sys/block/%s", d->slaves[i])) < 0) {
			disk_fail(d, r, d->slaves[i]);
			continue;
		}
		disk_init(&s, dir, d->block);
		classify(c, &s);
		rdir_close(&s.at);
		d->scls[i] = s.cls;
		if (*s.err && !*d->err)
			fmt(d->err, sizeof(d->err), "slave %s: %s", s.name, s.err);
		if (len < sizeof(d->why))
			len += (size_t)fmt(d->why + len, sizeof(d->why) - len, "%s %s (%s)", i ? "," : "",
						s.name, block_classes[s.cls]);
	}
	r = block_stack_ready(&c->root, d->dir, d->name, d->notready, sizeof(d->notready));
	disk_fail(d, r, "its size or dm/suspended");
}

static void stack_resolve(struct ctx *c, struct disk *d)
{
	if (d->cls == BC_STACKED)
		stack_slaves(c, d);
}

/* What d is, and for a stacked disk what it sits on. */
void block_classify(struct ctx *c, struct disk *d)
{
	classify(c, d);
	stack_resolve(c, d);
	/* class 10 bytes, why 255: it fits */
	d->headlen = (size_t)(stpcpy(stpcpy(stpcpy(stpcpy(d->head, cls_name(d)), " disk ("), d->why), ")") - d->head);
}

void disk_free(struct disk *d)
{
	rdir_close(&d->at);
	held_give(&d->sched_fd, NULL);
	for (size_t i = 0; i < d->ntags; i++)
		free(d->tags[i]);
	free(d->tags);
	for (size_t i = 0; i < d->nslaves; i++)
		free(d->slaves[i]);
	free(d->slaves);
	free(d->scls);
}
