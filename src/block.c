// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The block domain: whole disks of ROOT/sys/block, classified, matched
 * against [block] sections, planned in the order the kernel needs:
 * scheduler (module first) → nr_requests, iosched → other → read-ahead last.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "earlytune.h"
#include "block.h"

struct disk {
	const char *name;
	const char *dir; /* sys/block/NAME, or where a captured tree without sys/block keeps it */
	enum block_class cls;
	char why[256];
	char driver[64];
	char path[PATH_MAX]; /* the device path: where sys/block/NAME points, dir itself when found under
			      * sys/devices, "" unknown */
	char **tags; /* "fstype=ext4", "uuid=…" from libblkid, read on demand */
	size_t ntags;
	bool probed;
	bool bio; /* no I/O scheduler: blk-mq attributes do not apply to it */
	char err[320]; /* a read that failed (not ENOENT) while classifying or matching */
	char **slaves; /* stacked: the whole disks at the bottom, sorted */
	enum block_class *scls; /* their classes */
	size_t nslaves;
	char notready[96]; /* stacked: why it is not ready yet, "" when it is */
	char sched[256]; /* queue/scheduler as read once by plan_disk */
	int sched_r;     /* that read's result: -ENOENT none, another -errno unreadable */
	char rot[16];    /* queue/rotational, read once on demand */
	int rot_r;       /* that read's result, once rot_read */
	bool rot_read;
};

static const char *cls_name(const struct disk *d)
{
	return block_classes[d->cls];
}

/* The scheduler a disk has after the plan: the one iosched.KEY tunes. */
struct sched_after {
	char name[64];  /* "" when no section sets a scheduler */
	bool switching; /* the plan selects it */
	bool missing;   /* the configured one will not be active (unmet, error) */
};

/* ---- classification ---------------------------------------------------- */

/* What a disk is or matches cannot rest on a read that failed: the first
 * such failure makes the disk an error item instead of a guess. */
static void disk_fail(struct disk *d, int err, const char *what)
{
	if (err < 0 && err != -ENOENT && !*d->err)
		snprintf(d->err, sizeof(d->err), "cannot read %s: %s", what, strerror(-err));
}

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static bool prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static void read_driver(struct ctx *c, struct disk *d)
{
	char rel[PATH_MAX], link[PATH_MAX];
	const char *const tries[] = { "device/driver", "device/device/driver" };

	for (size_t i = 0; i < ARRAY_SIZE(tries); i++) {
		int r;

		snprintf(rel, sizeof(rel), "%s/%s", d->dir, tries[i]);
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

	snprintf(rel, sizeof(rel), "%s/%s", d->dir, attr);
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
	snprintf(rel, sizeof(rel), "%s/%s", d->dir, attr);
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
		snprintf(rel, sizeof(rel), "sys/class/scsi_host/%s/proc_name", host);
		disk_fail(d, root_read(&c->root, rel, id->host_driver, sizeof(id->host_driver)), rel);
	}
	id->channel = -1;
	snprintf(rel, sizeof(rel), "%s/device", d->dir);
	if (root_readlink(&c->root, rel, link, sizeof(link)) > 0 &&
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
static int read_rotational(struct ctx *c, struct disk *d, char *rel, size_t size)
{
	snprintf(rel, size, "%s/queue/rotational", d->dir);
	if (d->rot_read)
		return d->rot_r;
	d->rot_read = true;
	d->rot_r = root_read(&c->root, rel, d->rot, sizeof(d->rot));
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
	r = read_rotational(c, d, rel, sizeof(rel));
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
		snprintf(d->path, sizeof(d->path), "%s", d->dir);
	else if (r <= 0)
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

/* ---- matching ------------------------------------------------------------ */

static void read_ident(struct ctx *c, struct disk *d, const char *what, char *out, size_t size)
{
	char rel[PATH_MAX];
	int r;

	*out = '\0';
	if (!strcmp(what, "class")) {
		snprintf(out, size, "%s", cls_name(d));
		return;
	}
	if (!strcmp(what, "name")) {
		snprintf(out, size, "%s", d->name);
		return;
	}
	if (!strcmp(what, "driver")) {
		snprintf(out, size, "%s", d->driver);
		return;
	}
	/* SCSI and NVMe keep identity under device/, virtio-blk keeps serial on the disk. */
	snprintf(rel, sizeof(rel), "%s/device/%s", d->dir, what);
	r = root_read(&c->root, rel, out, size);
	if (r > 0)
		return;
	disk_fail(d, r, rel);
	snprintf(rel, sizeof(rel), "%s/%s", d->dir, what);
	disk_fail(d, root_read(&c->root, rel, out, size), rel);
}

/* ---- stacked devices ---------------------------------------------------- */

/* A stacked disk's bottom disks, their classes, its readiness and its reason:
 * "dm-0 (vg0-root) on vda (virtual)". */
static void stack_resolve(struct ctx *c, struct disk *d)
{
	char rel[PATH_MAX], dm[128] = "", uuid[160] = "";
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
	snprintf(rel, sizeof(rel), "%s/dm/name", d->dir);
	disk_fail(d, root_read(&c->root, rel, dm, sizeof(dm)), rel);
	/* multipathd names its maps' uuids "mpath-WWID": its slaves are paths to one LUN */
	snprintf(rel, sizeof(rel), "%s/dm/uuid", d->dir);
	disk_fail(d, root_read(&c->root, rel, uuid, sizeof(uuid)), rel);
	mp = prefix(uuid, "mpath-");
	len = (size_t)snprintf(d->why, sizeof(d->why), "%s%s%s%s%s %s", d->name, *dm ? " (" : "",
			       mp ? "multipath " : "", dm, *dm ? ")" : "",
			       !d->nslaves ? "with no slaves" : mp ? "on paths" : "on");
	for (size_t i = 0; d->scls && i < d->nslaves; i++) {
		char dir[PATH_MAX];
		struct disk s = { .name = d->slaves[i], .dir = dir };

		snprintf(dir, sizeof(dir), "sys/block/%s", s.name);
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

/* Every disk underneath must match one of the patterns: an LV on a virtual
 * disk and an SSD is on neither, so no section for one class tunes it. */
static bool match_slaves(const struct disk *d, const char *value)
{
	char w[WORD_MAX];

	if (!d->nslaves || !d->scls)
		return false;
	for (size_t i = 0; i < d->nslaves; i++) {
		const char *p = value;
		bool any = false;

		while (!any && next_word(&p, w, sizeof(w)))
			any = fnmatch(w, block_classes[d->scls[i]], 0) == 0;
		if (!any)
			return false;
	}
	return true;
}

static bool is_blkid_key(const char *what)
{
	return !strcmp(what, "fstype") || !strcmp(what, "uuid") || !strcmp(what, "label") ||
	       !strcmp(what, "partuuid");
}

static bool match_blkid(struct ctx *c, struct disk *d, const char *what, const char *pattern)
{
	size_t wl = strlen(what);

	if (!d->probed) {
		int r = probe_disk_tags(&c->root, d->dir, d->name, &d->tags, &d->ntags);
		char dev[PATH_MAX];

		d->probed = true;
		snprintf(dev, sizeof(dev), "dev/%s (libblkid)", d->name);
		disk_fail(d, r, dev);
	}
	for (size_t i = 0; i < d->ntags; i++)
		if (!strncmp(d->tags[i], what, wl) && d->tags[i][wl] == '=' &&
		    fnmatch(pattern, d->tags[i] + wl + 1, 0) == 0)
			return true;
	return false;
}

static bool match_one(struct ctx *c, struct disk *d, const char *what, const char *value)
{
	char w[WORD_MAX], ident[256];

	if (!strcmp(what, "slave_class"))
		return match_slaves(d, value);
	if (!is_blkid_key(what))
		read_ident(c, d, what, ident, sizeof(ident));
	while (next_word(&value, w, sizeof(w)))
		if (is_blkid_key(what) ? match_blkid(c, d, what, w) : fnmatch(w, ident, 0) == 0)
			return true;
	return false;
}

/* The [block] sections compiled once per run: for every section and every
 * distinct key, the effective assignment. A disk then costs no config scans. */
struct bconf {
	const char **sections; /* [0] is the unnamed [block] */
	size_t ns;
	const char **keys;
	size_t nk;
	const struct cfg_entry **eff; /* eff[i * nk + k] */
};

static size_t index_of(const char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (streq_ptr(v[i], s))
			return i;
	return n;
}

static void bconf_free(struct bconf *bc)
{
	if (!bc)
		return;
	free(bc->sections);
	free(bc->keys);
	free(bc->eff);
	free(bc);
}

static struct bconf *bconf_new(const struct config *cfg)
{
	struct bconf *bc = calloc(1, sizeof(*bc));

	/* At most cfg->n distinct sections and keys (+1 for [block]). */
	if (!bc || !(bc->sections = calloc(cfg->n + 1, sizeof(char *))) ||
	    !(bc->keys = calloc(cfg->n + 1, sizeof(char *)))) {
		bconf_free(bc);
		return NULL;
	}
	bc->ns = 1;
	for (size_t i = 0; i < cfg->n; i++) {
		const struct cfg_entry *e = &cfg->v[i];

		if (strcmp(e->section, "block"))
			continue;
		if (e->name && index_of(bc->sections, bc->ns, e->name) == bc->ns)
			bc->sections[bc->ns++] = e->name;
		if (index_of(bc->keys, bc->nk, e->key) == bc->nk)
			bc->keys[bc->nk++] = e->key;
	}
	bc->eff = calloc(bc->ns * bc->nk + 1, sizeof(*bc->eff));
	if (!bc->eff) {
		bconf_free(bc);
		return NULL;
	}
	for (size_t i = 0; i < bc->ns; i++)
		for (size_t k = 0; k < bc->nk; k++)
			bc->eff[i * bc->nk + k] = config_get(cfg, "block", bc->sections[i], bc->keys[k]);
	return bc;
}

/* The first match.KEY of section i that d fails, NULL when d matches it. */
static const struct cfg_entry *section_miss(struct ctx *c, struct disk *d, const struct bconf *bc, size_t i)
{
	for (size_t k = 0; k < bc->nk; k++) {
		const struct cfg_entry *e = bc->eff[i * bc->nk + k];

		if (e && !strncmp(e->key, "match.", 6) && !match_one(c, d, e->key + 6, e->value))
			return e;
	}
	return NULL;
}

/* The unnamed [block] exists only when the configuration sets a key in it. */
static bool section_empty(const struct bconf *bc, size_t i)
{
	for (size_t k = 0; k < bc->nk; k++)
		if (bc->eff[i * bc->nk + k])
			return false;
	return true;
}

static const char *section_name(const struct bconf *bc, size_t i)
{
	return bc->sections[i] ? bc->sections[i] : "[block]";
}

/* The last matching section that sets key k wins. */
static const struct cfg_entry *lookup(const struct bconf *bc, const struct cfg_entry *const *miss, size_t k)
{
	const struct cfg_entry *best = NULL;

	for (size_t i = 0; k < bc->nk && i < bc->ns; i++)
		if (!miss[i] && bc->eff[i * bc->nk + k])
			best = bc->eff[i * bc->nk + k];
	return best;
}

/* ---- items --------------------------------------------------------------- */

static struct item *new_item(struct plan *p, const struct disk *d, const char *attr,
			     const struct cfg_entry *e)
{
	char path[PATH_MAX];
	struct item *it;

	snprintf(path, sizeof(path), "%s/%s", d->dir, attr);
	it = plan_add(p, "block", d->name, attr, path);
	if (!it)
		return NULL;
	it->rank = block_rank(attr);
	it->cls = cls_name(d);
	if (e)
		item_from_entry(it, e);
	if (it->reason)
		item_setf(&it->reason, "%s disk (%s): %s", cls_name(d), d->why, e->reason);
	else
		item_setf(&it->reason, "%s disk (%s)", cls_name(d), d->why);
	return it;
}

static const char *dash_or(const char *s)
{
	return s && *s ? s : "-";
}

static void item_skip(struct item *it, const char *why)
{
	it->action = ACT_SKIP;
	item_set(&it->reason, why);
}

static void item_error(struct item *it, int err, const char *what)
{
	it->action = ACT_ERROR;
	item_setf(&it->error, "cannot read %s: %s", what, strerror(-err));
}

static const char *sched_module(const char *s)
{
	if (!strcmp(s, "mq-deadline"))
		return "mq-deadline";
	if (!strcmp(s, "kyber"))
		return "kyber-iosched";
	if (!strcmp(s, "bfq"))
		return "bfq";
	return NULL;
}

/* The first preference the queue offers, or whose module can be loaded. */
static bool legacy_list(const char *raw)
{
	static const char *const old[] = { "noop", "deadline", "cfq", "anticipatory" };

	for (size_t i = 0; i < ARRAY_SIZE(old); i++)
		if (selector_offers(raw, old[i]))
			return true;
	return false;
}

static void choose_scheduler(struct ctx *c, struct item *it, const char *raw, const char *pref)
{
	char w[WORD_MAX], why[512] = "";
	const char *p = pref;
	bool legacy = legacy_list(raw);

	while (next_word(&p, w, sizeof(w))) {
		const char *mod = sched_module(w);
		char one[256] = "";

		if (selector_offers(raw, w)) {
			item_set(&it->desired, w);
			return;
		}
		if (legacy)
			continue; /* no module makes a single-queue device offer a blk-mq scheduler */
		switch (mod ? mods_available(c->mods, mod, one, sizeof(one)) : 0) {
		case 2:
			item_set(&it->desired, w);
			item_set(&it->module, mod);
			return;
		case 0:
		case 3:
			if (*one)
				snprintf(why + strlen(why), sizeof(why) - strlen(why), "; %s", one);
			break;
		default: /* in the kernel, yet this queue does not offer it */
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
				 "; %s is loaded but this queue does not offer it", w);
		}
	}
	if (legacy && c->kernel.version && c->kernel.version < KV(5, 0))
		snprintf(why + strlen(why), sizeof(why) - strlen(why),
			 "; Linux %s drives this queue with the legacy single-queue block layer (gone in 5.0): blk-mq schedulers need a blk-mq queue (scsi_mod.use_blk_mq=1 before 5.0)",
			 c->kernel.release);
	else if (legacy)
		snprintf(why + strlen(why), sizeof(why) - strlen(why),
			 "; these are the legacy single-queue block layer's schedulers (a kernel before 5.0): no blk-mq scheduler can be selected on this queue, whatever modules exist");
	it->action = ACT_SKIP;
	it->unmet = true;
	item_setf(&it->reason, "none of '%s' is available: the queue offers '%s'%s", pref, raw, why);
}

/* Why a disk has no queue/scheduler file, for what it is. */
static const char *bio_what(const struct disk *d)
{
	if (d->cls == BC_STACKED)
		return "a dm/md device is bio-based: no I/O scheduler (the disks beneath it schedule)";
	if (d->cls == BC_ZRAM)
		return "zram is bio-based: no I/O scheduler";
	if (strstr(d->path, "nvme-subsystem"))
		return "an NVMe multipath head is bio-based: its path nodes (nvmeXcYnZ) schedule";
	if (d->cls == BC_LOOP)
		return "this loop device is bio-based (loop uses blk-mq since Linux 4.4)";
	return "no such file for this disk (see its class and reason): the kernel exposes no I/O scheduler for it, or the tree lacks the file";
}

/* The scheduler item from the queue/scheduler plan_disk read: true when the
 * plan switches. */
static bool scheduler_item(struct ctx *c, struct item *it, const struct disk *d, const struct cfg_entry *e)
{
	const char *raw = d->sched;
	char active[64];
	int r = d->sched_r;

	it->selector = true;
	if (r == -ENOENT) {
		item_skip(it, NULL);
		item_setf(&it->reason, "no queue/scheduler: %s", bio_what(d));
		return false;
	}
	if (r < 0) {
		item_error(it, r, it->path);
		return false;
	}
	if (selector_active(raw, active, sizeof(active)) < 0) {
		it->action = ACT_ERROR;
		item_setf(&it->error, "cannot parse queue/scheduler '%s'", raw);
		return false;
	}
	item_set(&it->current, active);
	if (!strchr(raw, '[') && !strcmp(active, "none")) {
		/* ≤6.4 bio-based queues print a bare "none" and accept writes silently. */
		item_skip(it, "queue/scheduler reads a bare 'none': a bio-based queue without an I/O scheduler");
		return false;
	}
	choose_scheduler(c, it, raw, e->value);
	if (it->action == ACT_SKIP)
		return false;
	it->action = strcmp(active, it->desired) ? ACT_CHANGE : ACT_KEEP;
	if (it->action == ACT_KEEP)
		item_set(&it->module, NULL);
	return it->action == ACT_CHANGE;
}

static void plan_scheduler(struct ctx *c, struct plan *p, const struct disk *d, const struct cfg_entry *e,
			   struct sched_after *sa)
{
	struct item *it = new_item(p, d, "queue/scheduler", e);

	if (!it)
		return;
	sa->switching = scheduler_item(c, it, d, e);
	snprintf(sa->name, sizeof(sa->name), "%s", dash_or(it->desired));
	sa->missing = it->action == ACT_ERROR || (it->action == ACT_SKIP && it->unmet);
}

/* iosched.KEY tunes the scheduler active after the plan, never the one the
 * plan switches away from: true when that decides the item. */
static bool plan_iosched(struct item *it, const struct disk *d, const struct sched_after *sa)
{
	if (d->bio)
		return false; /* the read below says "not applicable" */
	if (sa->missing) {
		it->action = ACT_SKIP;
		it->unmet = true;
		item_setf(&it->reason, "the configured scheduler is not active (see queue/scheduler): %s is not set",
			  it->setting);
		return true;
	}
	if (!sa->switching)
		return false;
	/* The file there now is the old scheduler's: the value that counts
	 * (and the original to record) is read after the switch. */
	it->action = ACT_CHANGE;
	item_setf(&it->reason, "%s [a tunable of %s, read after the switch]", dash_or(it->reason), sa->name);
	return true;
}

static void plan_absent(struct item *it, const struct disk *d, const struct sched_after *sa)
{
	it->action = ACT_SKIP;
	it->unmet = !d->bio;
	if (d->bio)
		item_setf(&it->reason, "a bio-based queue (no I/O scheduler) has no %s", it->setting);
	else if (it->rank == 2)
		item_setf(&it->reason, "the active scheduler %s has no tunable %s", sa->name, it->setting);
	else
		item_setf(&it->reason, "kernel has no %s for this queue", it->setting);
}

/* wbt_lat_usec = -1 asks for the kernel default, which is what reads back
 * after writing -1: 2 ms for a non-rotational queue, 75 ms for a rotational
 * one (wbt_default_latency_nsec(), unchanged since writeback throttling came
 * in 4.10). Writing that number sets the same latency as writing -1, so the
 * item wants the number: plan, apply and verify compare exactly. */
static int wbt_default(struct ctx *c, struct item *it, struct disk *d)
{
	char rel[PATH_MAX];
	int r = read_rotational(c, d, rel, sizeof(rel));

	if (r < 0) {
		item_error(it, r, rel);
		return r;
	}
	item_set(&it->desired, strcmp(d->rot, "0") ? "75000" : "2000");
	item_setf(&it->reason, "%s [-1: the kernel default for a %srotational queue]", dash_or(it->reason),
		  strcmp(d->rot, "0") ? "" : "non-");
	return 0;
}

static void plan_value(struct ctx *c, struct plan *p, struct disk *d, const char *attr,
		       const struct cfg_entry *e, const struct sched_after *sa)
{
	struct item *it = new_item(p, d, attr, e);
	char cur[128];
	long long lo, hi, v;
	int r;

	if (!it)
		return;
	item_set(&it->desired, e->value);
	it->recheck = sa->switching && it->rank <= 2;
	if (it->rank == 2 && plan_iosched(it, d, sa))
		return;
	r = root_read(&c->root, it->path, cur, sizeof(cur));
	if (r == -ENOENT) {
		plan_absent(it, d, sa);
		return;
	}
	if (r < 0) {
		item_error(it, r, it->path);
		return;
	}
	item_set(&it->current, cur);
	if (!strcmp(attr, "queue/wbt_lat_usec") && !strcmp(e->value, "-1") && wbt_default(c, it, d) < 0)
		return;
	if (!strcmp(attr, "queue/read_ahead_kb") && block_parse_range(e->value, &lo, &hi) == 0 &&
	    parse_s64(cur, &v) < 0) {
		/* A range needs a number to clamp: never write the range itself. */
		it->action = ACT_ERROR;
		item_setf(&it->error, "queue/read_ahead_kb reads '%s', not a number", cur);
		return;
	}
	if (!strcmp(attr, "queue/read_ahead_kb") && block_parse_range(e->value, &lo, &hi) == 0) {
		item_setf(&it->desired, "%lld", v < lo ? lo : v > hi ? hi : v);
		item_setf(&it->reason, "%s [range %s: raise below %lld, cap above %lld]",
			  it->reason ? it->reason : "", e->value, lo, hi);
	}
	it->action = item_compare_value(it, cur) ? ACT_CHANGE : ACT_KEEP;
}

static void defer_item(struct item *it, const struct disk *d)
{
	it->action = ACT_SKIP;
	item_setf(&it->reason, "%s disk (%s) is not ready (%s): tuned on the change event when it is", cls_name(d),
		  d->why, d->notready);
}

/* A stacked device that is not ready yet is tuned on the change event udev
 * sends when it is: every item planned for it waits. */
static void stack_defer(const struct plan *p, const struct disk *d, size_t first)
{
	if (!*d->notready)
		return;
	for (size_t i = first; i < p->n; i++)
		if (p->v[i].action == ACT_CHANGE || p->v[i].action == ACT_KEEP)
			defer_item(&p->v[i], d);
}

/* queue/scheduler, read once per disk: whether the queue is bio-based (no
 * file, or on ≤ 6.4 a bare "none"), the scheduler item, the active one. */
static void read_scheduler(struct ctx *c, struct disk *d)
{
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "%s/queue/scheduler", d->dir);
	d->sched_r = root_read(&c->root, rel, d->sched, sizeof(d->sched));
	if (d->sched_r < 0)
		*d->sched = '\0';
	d->bio = d->sched_r == -ENOENT || (d->sched_r >= 0 && !strchr(d->sched, '[') && !strcmp(d->sched, "none"));
}

/* No scheduler configured: iosched.KEY tunes whatever is active. */
static void active_scheduler(const struct disk *d, struct sched_after *sa)
{
	if (d->sched_r < 0 || selector_active(d->sched, sa->name, sizeof(sa->name)) < 0)
		snprintf(sa->name, sizeof(sa->name), "-");
}

/* Why no section tunes d: the sections for other classes together, then
 * each section for its class with the match.KEY that rules d out, or the
 * sections that match and set nothing. */
static void no_section_why(const struct bconf *bc, const struct cfg_entry *const *miss, struct strbuf *sb)
{
	const char *sep = " (sections for other classes: ";
	bool any = false;

	for (size_t i = 0; i < bc->ns; i++)
		if (miss[i] && !strcmp(miss[i]->key, "match.class")) {
			sb_printf(sb, "%s%s", sep, section_name(bc, i));
			sep = ", ";
			any = true;
		}
	sep = any ? "; " : " (";
	for (size_t i = 0; i < bc->ns; i++)
		if (miss[i] && strcmp(miss[i]->key, "match.class")) {
			sb_printf(sb, "%s%s needs %s = %s", sep, section_name(bc, i), miss[i]->key, miss[i]->value);
			sep = "; ";
			any = true;
		}
	for (size_t i = 0; i < bc->ns; i++)
		if (!miss[i] && !section_empty(bc, i)) {
			sb_printf(sb, "%s%s matches it but sets nothing", sep, section_name(bc, i));
			sep = "; ";
			any = true;
		}
	if (any)
		sb_printf(sb, ")");
}

/* A disk that no section tunes gets one line saying what it is and why
 * nothing applies, not silence (udev hands earlytune dm, md, sr and zram
 * devices too). */
static void nothing_applies(struct plan *p, const struct disk *d, const struct bconf *bc,
			    const struct cfg_entry *const *miss)
{
	struct strbuf why = { 0 };
	const char *what = "";
	struct item *it = plan_add(p, "block", d->name, "-", d->dir);

	if (!it)
		return;
	if (d->cls == BC_STACKED)
		what = prefix(d->name, "md") ? "md software RAID, " : "a device-mapper map (LVM, LUKS, multipath), ";
	else if (prefix(d->name, "dm-"))
		what = "a device-mapper node without dm/: not set up yet (udev's change event follows), ";
	else if (d->cls == BC_ZRAM)
		what = "a compressed RAM disk, ";
	else if (d->cls == BC_LOOP)
		what = "a loop device, ";
	else if (prefix(d->name, "sr"))
		what = "an optical drive, ";
	it->cls = cls_name(d);
	item_skip(it, NULL);
	no_section_why(bc, miss, &why);
	item_setf(&it->reason, "%s%s disk (%s): no [block] section matches it, so nothing applies%s", what,
		  cls_name(d), d->why, why.s ? why.s : "");
	sb_free(&why);
}

/* Without any [block] section the block domain is not in use: only a disk
 * asked for by --device gets a line. */
static bool block_in_use(const struct ctx *c, const struct bconf *bc)
{
	return c->ndevices || bc->ns > 1 || !section_empty(bc, 0);
}

static void plan_disk(struct ctx *c, struct plan *p, struct disk *d, const struct bconf *bc)
{
	_cleanup_(freep) const struct cfg_entry **miss = calloc(bc->ns, sizeof(*miss));
	struct sched_after sa = { .name = "" };
	const struct cfg_entry *e;
	size_t first = p->n;

	if (!miss)
		return;

	for (size_t i = 0; i < bc->ns; i++)
		miss[i] = section_miss(c, d, bc, i);
	if (*d->err) {
		struct item *it = plan_add(p, "block", d->name, "-", d->dir);

		if (it) {
			it->action = ACT_ERROR;
			it->cls = cls_name(d);
			item_set(&it->error, d->err);
		}
		return;
	}
	read_scheduler(c, d);
	e = lookup(bc, miss, index_of(bc->keys, bc->nk, "scheduler"));
	if (e)
		plan_scheduler(c, p, d, e, &sa);
	else
		active_scheduler(d, &sa);
	e = lookup(bc, miss, index_of(bc->keys, bc->nk, "nr_requests"));
	if (e)
		plan_value(c, p, d, "queue/nr_requests", e, &sa);
	for (size_t k = 0; k < bc->nk; k++) {
		char attr[128];

		if (strncmp(bc->keys[k], "iosched.", 8) || !(e = lookup(bc, miss, k)))
			continue;
		snprintf(attr, sizeof(attr), "queue/iosched/%s", bc->keys[k] + 8);
		plan_value(c, p, d, attr, e, &sa);
	}
	for (const struct block_setting *s = block_settings; s->key; s++) {
		if (s->rank != 3 && s->rank != 4)
			continue;
		e = lookup(bc, miss, index_of(bc->keys, bc->nk, s->key));
		if (e)
			plan_value(c, p, d, s->attr, e, &sa);
	}
	stack_defer(p, d, first);
	if (p->n == first && block_in_use(c, bc))
		nothing_applies(p, d, bc, miss);
}

/* ---- discovery ----------------------------------------------------------- */

static int cmp_name(const void *a, const void *b)
{
	return strverscmp(base_of(*(char *const *)a), base_of(*(char *const *)b));
}

static int add_dir(char ***v, size_t *cnt, char *dir)
{
	char **nv = dir ? realloc(*v, (*cnt + 1) * sizeof(**v)) : NULL;

	if (!nv) {
		free(dir);
		return -ENOMEM;
	}
	*v = nv;
	nv[(*cnt)++] = dir;
	return 0;
}

/* Trees captured without sys/block (libnvme's test data) still hold the
 * disks under sys/devices: a directory with a queue/ and no partition file.
 * Links are not followed; a disk's own subdirectories are not searched. */
static int walk_devices(struct ctx *c, const char *rel, int depth, char ***v, size_t *cnt)
{
	int fd = root_openat(&c->root, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	int r = 0;

	if (!dir) {
		if (fd >= 0)
			close(fd);
		/* Absent, or a link (not followed): nothing to walk. */
		return fd >= 0 ? -errno : fd == -ENOENT || fd == -ELOOP || fd == -ENOTDIR ? 0 : fd;
	}
	for (errno = 0; r >= 0 && (de = readdir(dir)); errno = 0) {
		char child[PATH_MAX], probe[PATH_MAX + 16];

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(child, sizeof(child), "%s/%s", rel, de->d_name);
		snprintf(probe, sizeof(probe), "%s/queue", child);
		r = root_access(&c->root, probe);
		if (r > 0) {
			snprintf(probe, sizeof(probe), "%s/partition", child);
			r = root_access(&c->root, probe);
			if (r == 0)
				r = add_dir(v, cnt, strdup(child));
		} else if (r == 0 && depth < 12) {
			r = walk_devices(c, child, depth + 1, v, cnt);
		}
	}
	if (r >= 0 && errno)
		r = -errno;
	closedir(dir);
	return r < 0 ? r : 0;
}

/* The sysfs directory of every whole disk: sys/block/NAME normally. */
static int list_disks(struct ctx *c, char ***out, size_t *n)
{
	int fd = root_openat(&c->root, "sys/block", O_RDONLY | O_DIRECTORY, 0);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	char **v = NULL;
	size_t cnt = 0;
	int r = 0;

	if (!dir && fd >= 0)
		close(fd);
	if (!dir && fd != -ENOENT) {
		*out = NULL;
		*n = 0;
		return fd < 0 ? fd : -errno;
	}
	if (!dir)
		r = walk_devices(c, "sys/devices", 0, &v, &cnt);
	for (errno = 0; dir && r >= 0 && (de = readdir(dir)); errno = 0)
		if (de->d_name[0] != '.')
			r = add_dir(&v, &cnt, xasprintf("sys/block/%s", de->d_name));
	if (dir && r >= 0 && errno)
		r = -errno; /* a listing cut short is not "no more disks" */
	if (dir)
		closedir(dir);
	if (cnt)
		qsort(v, cnt, sizeof(*v), cmp_name);
	*out = v;
	*n = cnt;
	return r;
}

/* A --device that is not a whole disk becomes an error item (exit 1), and so
 * does one whose lookup failed (err < 0): an unreadable sys/block entry is
 * not a missing disk, nor is the disk a partition because its
 * sys/class/block link reads. */
static const char *device_dir(struct ctx *c, struct plan *p, const char *name, char **dirs, size_t n, int err)
{
	char rel[PATH_MAX], disk[NAME_MAX + 1];
	struct item *it;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(base_of(dirs[i]), name))
			return dirs[i];
	snprintf(rel, sizeof(rel), "sys/block/%s", name);
	it = plan_add(p, "block", name, "-", rel);
	if (!it)
		return NULL;
	it->action = ACT_ERROR;
	if (err < 0) {
		item_setf(&it->error, "cannot look up '%s' in %s/sys/block: %s", name,
			  c->root.is_host ? "" : c->root.dir, strerror(-err));
		return NULL;
	}
	snprintf(rel, sizeof(rel), "sys/class/block/%s", name);
	if (block_partition_disk(&c->root, rel, disk, sizeof(disk)) == 0) {
		/* Not applicable, not a failure: udev may hand us any block device. */
		item_skip(it, NULL);
		item_setf(&it->reason, "'%s' is a partition of '%s'; earlytune tunes whole disks only", name, disk);
	} else {
		item_setf(&it->error, "'%s' is not a disk in %s/sys/block", name,
			  c->root.is_host ? "" : c->root.dir);
	}
	return NULL;
}

static void disk_free(struct disk *d)
{
	for (size_t i = 0; i < d->ntags; i++)
		free(d->tags[i]);
	free(d->tags);
	for (size_t i = 0; i < d->nslaves; i++)
		free(d->slaves[i]);
	free(d->slaves);
	free(d->scls);
}

/* The disks to plan: each --device (one lookup, not a listing: udev runs
 * this per device; a lookup that fails leaves its error in errs[i]), or
 * every whole disk. */
static int disk_dirs(struct ctx *c, char ***out, size_t *n, int *errs)
{
	char **v = NULL;
	size_t cnt = 0;
	int r = c->ndevices ? root_access(&c->root, "sys/block") : 0;

	if (r < 0) { /* each disk asked for fails with the reason */
		for (size_t i = 0; i < c->ndevices; i++)
			errs[i] = r;
		*out = NULL;
		*n = 0;
		return 0;
	}
	if (!r)
		return list_disks(c, out, n);
	r = 0;
	for (size_t i = 0; i < c->ndevices && r >= 0; i++) {
		char rel[PATH_MAX];
		int rr;

		snprintf(rel, sizeof(rel), "sys/block/%s", c->devices[i]);
		rr = root_access(&c->root, rel);
		if (rr > 0)
			r = add_dir(&v, &cnt, strdup(rel));
		else if (rr < 0)
			errs[i] = rr;
	}
	*out = v;
	*n = cnt;
	return r;
}

int block_plan(struct ctx *c, struct plan *p)
{
	struct bconf *bc = bconf_new(&c->cfg);
	int *errs = calloc(c->ndevices + 1, sizeof(*errs));
	char **dirs = NULL;
	size_t n = 0;
	int r;

	if (!bc || !errs) {
		bconf_free(bc);
		free(errs);
		return -ENOMEM;
	}
	r = disk_dirs(c, &dirs, &n, errs);
	for (size_t i = 0; i < (c->ndevices ? c->ndevices : n); i++) {
		const char *dir = c->ndevices ? device_dir(c, p, c->devices[i], dirs, n, errs[i]) : dirs[i];
		struct disk d = { .dir = dir, .name = dir ? base_of(dir) : NULL };

		if (!dir)
			continue;
		classify(c, &d);
		stack_resolve(c, &d);
		log_msg(LOG_DEBUG, "%s: class %s (%s)", d.name, cls_name(&d), d.why);
		plan_disk(c, p, &d, bc);
		disk_free(&d);
	}
	for (size_t i = 0; i < n; i++)
		free(dirs[i]);
	free(dirs);
	free(errs);
	bconf_free(bc);
	return r;
}
