// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A described machine laid out as sysfs lays it out (Documentation/ABI,
 * drivers/base/core.c): each PCI function under sys/devices/pci0000:00, a
 * virtio device below its function (virtioN, bound to virtio_blk,
 * virtio_net or virtio_scsi), an NVMe namespace below its controller, a
 * SCSI disk below its host, target and H:C:T:L, a NIC's net/NAME below its
 * device; sys/block, sys/class/block and sys/class/net link to them as
 * the kernel's links do (relative, within sys). What the image's kernel
 * decides is taken from it: the schedulers a queue lists and the one it
 * starts with (block/elevator.c: mq-deadline, when built in, for a queue
 * with one hardware queue, else none; "[none]" first when none is active),
 * nr_requests (twice the tag depth, at most 256, under a scheduler; the
 * depth without one).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image/machine.h"

int boot_put(const struct root *b, const char *rel, const char *fmt, ...)
{
	char dir[PATH_MAX], *text = NULL;
	const char *slash = strrchr(rel, '/');
	va_list ap;
	int fd, r = 0;

	if (slash && snprintf(dir, sizeof(dir), "%.*s", (int)(slash - rel), rel) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	if (slash && (r = root_mkdir_p(b, dir, 0755)) < 0)
		return r;
	va_start(ap, fmt);
	r = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	fd = root_openat(b, rel, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
	r = fd < 0 ? fd : write_full(fd, text, strlen(text));
	if (fd >= 0)
		close(fd);
	free(text);
	return r < 0 ? r : 0;
}

int boot_link(const struct root *b, const char *rel, const char *target)
{
	char last[NAME_MAX + 1], dir[PATH_MAX];
	const char *slash = strrchr(rel, '/');
	int dfd, r;

	if (slash && snprintf(dir, sizeof(dir), "%.*s", (int)(slash - rel), rel) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	if (slash && (r = root_mkdir_p(b, dir, 0755)) < 0)
		return r;
	dfd = root_parent(b, rel, last, sizeof(last));
	if (dfd < 0)
		return dfd;
	r = symlinkat(target, dfd, last) < 0 && errno != EEXIST ? -errno : 0;
	close(dfd);
	return r;
}

struct layout {
	const struct root *b;
	const struct machine *m;
	const struct bootkernel *k;
	unsigned slot, virtio, hosts, ifindex;
	char hostdrv[8][32], hostdev[8][256]; /* a SCSI host per driver */
	unsigned luns[8];
};

/* A link at rel (below sys/) to target (a path below sys/), relative as
 * sysfs makes them. */
static int sys_link(const struct root *b, const char *rel, const char *target)
{
	char t[PATH_MAX] = "";
	size_t len = 0;

	for (const char *p = strchr(rel, '/') + 1; (p = strchr(p, '/')); p++)
		len += (size_t)snprintf(t + len, sizeof(t) - len, "../");
	if (snprintf(t + len, sizeof(t) - len, "%s", target) >= (int)(sizeof(t) - len))
		return -ENAMETOOLONG;
	return boot_link(b, rel, t);
}

/* A bus's driver, as the link names it: bus/BUS/drivers/NAME. */
static int bound(const struct root *b, const char *dev, const char *bus, const char *driver)
{
	char rel[PATH_MAX], target[160];
	int r = pathf(rel, sizeof(rel), "sys/%s/driver", dev);

	if (r == 0)
		r = pathf(target, sizeof(target), "bus/%s/drivers/%s", bus, driver);
	return r < 0 ? r : sys_link(b, rel, target);
}

/* A PCI function of vendor:device bound to driver: its path below sys/. */
static int pci_function(struct layout *l, const char *ids, const char *driver, char *dev, size_t size)
{
	char vendor[8] = "", device[8] = "", rel[PATH_MAX];
	int r;

	sscanf(ids, "%4[0-9a-fA-F]:%4[0-9a-fA-F]", vendor, device);
	snprintf(dev, size, "devices/pci0000:00/0000:00:%02x.0", l->slot++);
	if ((r = pathf(rel, sizeof(rel), "sys/%s/vendor", dev)) < 0 || (r = boot_put(l->b, rel, "0x%s\n", vendor)) < 0 ||
	    (r = pathf(rel, sizeof(rel), "sys/%s/device", dev)) < 0 || (r = boot_put(l->b, rel, "0x%s\n", device)) < 0)
		return r;
	return bound(l->b, dev, "pci", driver);
}

/* virtio: a PCI function (Red Hat's 1af4:ID, virtio-pci) and virtioN below it. */
static int virtio_device(struct layout *l, const char *id, const char *driver, char *dev, size_t size)
{
	char fn[PATH_MAX];
	int r = pci_function(l, id, "virtio-pci", fn, sizeof(fn));

	if (r == 0 && snprintf(dev, size, "%s/virtio%u", fn, l->virtio++) >= (int)size)
		r = -ENAMETOOLONG;
	return r < 0 ? r : bound(l->b, dev, "virtio", driver);
}

static void sched_list(const struct layout *l, const struct mdisk *d, char *out, size_t size)
{
	bool deadline = d->queues == 1 && strstr(l->k->scheds, "mq-deadline");
	const char *s = l->k->scheds;
	char w[32];
	int n;

	snprintf(out, size, "%s", deadline ? "" : "[none]");
	while (sscanf(s, "%31s%n", w, &n) == 1) {
		bool cur = deadline && !strcmp(w, "mq-deadline");

		snprintf(out + strlen(out), size - strlen(out), "%s%s%s%s", *out ? " " : "", cur ? "[" : "", w,
			 cur ? "]" : "");
		s += n;
	}
	if (deadline)
		snprintf(out + strlen(out), size - strlen(out), " none");
}

static int queue_files(const struct layout *l, const struct mdisk *d, const char *disk)
{
	char rel[PATH_MAX], list[128], v[6][24];
	bool elv;
	int r = 0;

	sched_list(l, d, list, sizeof(list));
	elv = strncmp(list, "[none]", 6) != 0;
	snprintf(v[0], sizeof(v[0]), "%u", elv ? (d->depth < 128 ? d->depth : 128) * 2 : d->depth);
	snprintf(v[1], sizeof(v[1]), "%u", d->read_ahead_kb);
	snprintf(v[2], sizeof(v[2]), "%u", d->rotational);
	snprintf(v[3], sizeof(v[3]), "%u", d->rotational ? 75000 : 2000);
	snprintf(v[4], sizeof(v[4]), "%llu", d->size);
	const char *const files[][2] = {
		{ "queue/scheduler", list }, { "queue/nr_requests", v[0] }, { "queue/read_ahead_kb", v[1] },
		{ "queue/rotational", v[2] }, { "queue/wbt_lat_usec", v[3] }, { "size", v[4] },
		{ "queue/rq_affinity", "1" }, { "queue/add_random", "0" }, { "queue/io_timeout", "30000" },
		{ "queue/nomerges", "0" }, { "queue/max_sectors_kb", "1280" }, { "removable", "0" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(files) && r == 0; i++)
		if ((r = pathf(rel, sizeof(rel), "sys/%s/%s", disk, files[i][0])) == 0)
			r = boot_put(l->b, rel, "%s\n", files[i][1]);
	for (unsigned q = 0; q < d->queues && r == 0; q++)
		if ((r = pathf(rel, sizeof(rel), "sys/%s/mq/%u/nr_tags", disk, q)) == 0)
			r = boot_put(l->b, rel, "%u\n", d->depth);
	return r;
}

/* sys/block/NAME and sys/class/block/NAME to the disk at dev. */
static int block_links(const struct root *b, const char *name, const char *dev)
{
	char rel[PATH_MAX];
	int r = pathf(rel, sizeof(rel), "sys/block/%s", name);

	if (r == 0)
		r = sys_link(b, rel, dev);
	if (r == 0)
		r = pathf(rel, sizeof(rel), "sys/class/block/%s", name);
	return r < 0 ? r : sys_link(b, rel, dev);
}

static int dev_link(const struct root *b, const char *dev, const char *name, const char *target)
{
	char rel[PATH_MAX];
	int r = pathf(rel, sizeof(rel), "sys/%s/%s", dev, name);

	return r < 0 ? r : boot_link(b, rel, target);
}

/* virtio-blk: …/virtioN/block/vdX, its device link ../../../virtioN. */
static int virtio_disk(struct layout *l, const struct mdisk *d, char *disk, size_t size)
{
	char dev[PATH_MAX], up[64];
	int r = virtio_device(l, *d->pci ? d->pci : "1af4:1001", "virtio_blk", dev, sizeof(dev));

	if (r == 0 && snprintf(disk, size, "%s/block/%s", dev, d->name) >= (int)size)
		r = -ENAMETOOLONG;
	snprintf(up, sizeof(up), "../../../%s", strrchr(dev, '/') + 1);
	return r < 0 ? r : dev_link(l->b, disk, "device", up);
}

/* NVMe: …/FUNCTION/nvme/nvmeK/nvmeKnN under its controller (model,
 * transport, queue_count: the I/O queues and the admin queue). */
static int nvme_disk(struct layout *l, const struct mdisk *d, char *disk, size_t size)
{
	char fn[PATH_MAX], ctrl[PATH_MAX], name[32], rel[PATH_MAX], up[64];
	int r = pci_function(l, *d->pci ? d->pci : "1b36:0010", "nvme", fn, sizeof(fn));

	snprintf(name, sizeof(name), "%.*s", (int)strcspn(d->name + 4, "n") + 4, d->name);
	if (r == 0 && (snprintf(ctrl, sizeof(ctrl), "%s/nvme/%s", fn, name) >= (int)sizeof(ctrl) ||
		       snprintf(disk, size, "%s/%s", ctrl, d->name) >= (int)size))
		r = -ENAMETOOLONG;
	snprintf(up, sizeof(up), "../../../%s", strrchr(fn, '/') + 1);
	if (r == 0 && (r = dev_link(l->b, ctrl, "device", up)) == 0 && (r = pathf(rel, sizeof(rel), "sys/%s/model", ctrl)) == 0)
		r = boot_put(l->b, rel, "%-40s\n", d->model);
	if (r == 0 && (r = pathf(rel, sizeof(rel), "sys/%s/transport", ctrl)) == 0)
		r = boot_put(l->b, rel, "pcie\n");
	if (r == 0 && (r = pathf(rel, sizeof(rel), "sys/%s/queue_count", ctrl)) == 0)
		r = boot_put(l->b, rel, "%u\n", d->queues + 1);
	if (r == 0 && (r = pathf(rel, sizeof(rel), "sys/class/nvme/%s", name)) == 0)
		r = sys_link(l->b, rel, ctrl);
	if (r == 0 && (r = pathf(rel, sizeof(rel), "sys/%s/hidden", disk)) == 0)
		r = boot_put(l->b, rel, "0\n");
	snprintf(up, sizeof(up), "../../%s", name);
	return r < 0 ? r : dev_link(l->b, disk, "device", up);
}

/* The SCSI host of a driver: one per driver, numbered in order; its parent
 * is the description's, or a virtio_scsi function's virtioN. */
static int scsi_host(struct layout *l, const struct mdisk *d, unsigned *no)
{
	char parent[PATH_MAX], rel[PATH_MAX], sh[PATH_MAX];
	unsigned h;
	int r = 0;

	for (h = 0; h < l->hosts && strcmp(l->hostdrv[h], d->host); h++)
		;
	*no = h;
	if (h < l->hosts)
		return 0;
	if (h == ARRAY_SIZE(l->hostdrv))
		return -E2BIG;
	if (*d->parent)
		snprintf(parent, sizeof(parent), "devices/%s", d->parent);
	else if (!strcmp(d->host, "virtio_scsi"))
		r = virtio_device(l, *d->pci ? d->pci : "1af4:1004", "virtio_scsi", parent, sizeof(parent));
	else
		r = pci_function(l, *d->pci ? d->pci : "1000:0030", d->host, parent, sizeof(parent));
	if (r == 0 && snprintf(l->hostdev[h], sizeof(l->hostdev[h]), "%s/host%u", parent, h) >= (int)sizeof(l->hostdev[h]))
		r = -ENAMETOOLONG;
	if (r < 0)
		return r;
	snprintf(l->hostdrv[h], sizeof(l->hostdrv[h]), "%s", d->host);
	l->hosts++;
	if ((r = pathf(sh, sizeof(sh), "%s/scsi_host/host%u", l->hostdev[h], h)) < 0 ||
	    (r = pathf(rel, sizeof(rel), "sys/%s/proc_name", sh)) < 0 || (r = boot_put(l->b, rel, "%s\n", d->host)) < 0 ||
	    (r = pathf(rel, sizeof(rel), "sys/class/scsi_host/host%u", h)) < 0)
		return r;
	return sys_link(l->b, rel, sh);
}

/* SCSI: …/hostH/targetH:0:T/H:0:T:0/block/sdX, vendor and model padded as
 * the kernel pads INQUIRY's fields, the sd driver bound to the device. */
static int scsi_disk(struct layout *l, const struct mdisk *d, char *disk, size_t size)
{
	char sdev[PATH_MAX], hctl[32], rel[PATH_MAX], up[64];
	unsigned h;
	int r = scsi_host(l, d, &h);

	if (r < 0)
		return r;
	snprintf(hctl, sizeof(hctl), "%u:0:%u:0", h, l->luns[h]++);
	if (snprintf(sdev, sizeof(sdev), "%s/target%.*s/%s", l->hostdev[h], (int)(strrchr(hctl, ':') - hctl), hctl,
		     hctl) >= (int)sizeof(sdev) ||
	    snprintf(disk, size, "%s/block/%s", sdev, d->name) >= (int)size)
		return -ENAMETOOLONG;
	if ((r = pathf(rel, sizeof(rel), "sys/%s/vendor", sdev)) < 0 || (r = boot_put(l->b, rel, "%-8s\n", d->vendor)) < 0 ||
	    (r = pathf(rel, sizeof(rel), "sys/%s/model", sdev)) < 0 || (r = boot_put(l->b, rel, "%-16s\n", d->model)) < 0 ||
	    (r = bound(l->b, sdev, "scsi", "sd")) < 0)
		return r;
	snprintf(up, sizeof(up), "../../../%s", hctl);
	return dev_link(l->b, disk, "device", up);
}

/* The depth of a queue's tags where the description gives none: virtio-blk's
 * virtqueue (256), the NVMe driver's io_queue_depth less one (1023), a
 * SCSI host's can_queue (virtio_scsi's 128). */
static unsigned default_depth(const struct mdisk *d)
{
	return d->depth ? d->depth : !strcmp(d->bus, "virtio") ? 256 : !strcmp(d->bus, "nvme") ? 1023 : 128;
}

static int disk(struct layout *l, const struct mdisk *md)
{
	struct mdisk d = *md;
	char dev[PATH_MAX];
	int r;

	d.depth = default_depth(md);
	if (!strcmp(d.bus, "virtio"))
		r = virtio_disk(l, &d, dev, sizeof(dev));
	else if (!strcmp(d.bus, "nvme"))
		r = nvme_disk(l, &d, dev, sizeof(dev));
	else
		r = scsi_disk(l, &d, dev, sizeof(dev));
	if (r == 0)
		r = queue_files(l, &d, dev);
	return r < 0 ? r : block_links(l->b, d.name, dev);
}

static int nic_files(struct layout *l, const char *name, const char *net, unsigned type, unsigned queues)
{
	char rel[PATH_MAX];
	unsigned ifindex = l->ifindex++;
	int r = pathf(rel, sizeof(rel), "sys/%s/ifindex", net);

	if (r == 0 && (r = boot_put(l->b, rel, "%u\n", ifindex)) == 0 && (r = pathf(rel, sizeof(rel), "sys/%s/type", net)) == 0)
		r = boot_put(l->b, rel, "%u\n", type);
	if (r == 0 && (r = pathf(rel, sizeof(rel), "sys/%s/uevent", net)) == 0)
		r = boot_put(l->b, rel, "INTERFACE=%s\nIFINDEX=%u\n", name, ifindex);
	for (unsigned q = 0; q < queues && r == 0; q++)
		if ((r = pathf(rel, sizeof(rel), "sys/%s/queues/tx-%u/tx_timeout", net, q)) == 0 &&
		    (r = boot_put(l->b, rel, "0\n")) == 0 && (r = pathf(rel, sizeof(rel), "sys/%s/queues/rx-%u/rps_cpus", net, q)) == 0)
			r = boot_put(l->b, rel, "0\n");
	if (r == 0)
		r = pathf(rel, sizeof(rel), "sys/class/net/%s", name);
	return r < 0 ? r : sys_link(l->b, rel, net);
}

/* A NIC below its device: virtio_net's virtioN, Hyper-V's VMBus device
 * (hv_netvsc: the description's parent), else its PCI function. */
static int nic(struct layout *l, const struct mnic *n)
{
	char dev[PATH_MAX], net[PATH_MAX], up[64];
	int r = 0;

	if (!strcmp(n->driver, "virtio_net"))
		r = virtio_device(l, *n->pci ? n->pci : "1af4:1000", "virtio_net", dev, sizeof(dev));
	else if (*n->parent && snprintf(dev, sizeof(dev), "devices/%s", n->parent) < (int)sizeof(dev))
		r = bound(l->b, dev, "vmbus", n->driver);
	else
		r = pci_function(l, *n->pci ? n->pci : "8086:100e", n->driver, dev, sizeof(dev));
	if (r == 0 && snprintf(net, sizeof(net), "%s/net/%s", dev, n->name) >= (int)sizeof(net))
		r = -ENAMETOOLONG;
	snprintf(up, sizeof(up), "../../../%s", strrchr(dev, '/') + 1);
	if (r == 0)
		r = dev_link(l->b, net, "device", up);
	return r < 0 ? r : nic_files(l, n->name, net, 1, n->queues);
}

/* A machine booted from a device tree (arm64 without UEFI): its root's
 * compatible property as the kernel shows it, each entry NUL-terminated,
 * where /proc/device-tree leads. */
static int devicetree(const struct root *b, const char *words)
{
	char buf[sizeof(((struct machine *)0)->compatible) + 1];
	size_t n = 0;
	int fd, r;

	for (const char *w = words + strspn(words, " "); *w; w += strspn(w, " ")) {
		size_t len = strcspn(w, " ");

		memcpy(buf + n, w, len);
		n += len;
		buf[n++] = '\0';
		w += len;
	}
	if ((r = boot_put(b, "proc/device-tree/compatible", "%s", "")) < 0)
		return r;
	fd = root_openat(b, "proc/device-tree/compatible", O_WRONLY | O_TRUNC | O_NOFOLLOW, 0);
	r = fd < 0 ? fd : write_full(fd, buf, n);
	if (fd >= 0)
		close(fd);
	return r < 0 ? r : 0;
}

/* DMI, the CPUs (x86: the hypervisor flag CPUID sets; arm64 has none),
 * the command line, the device tree. */
static int platform(const struct layout *l)
{
	const struct machine *m = l->m;
	bool arm = !strcmp(m->arch, "arm64");
	char cpus[8192] = "";
	int r = 0;

	for (unsigned i = 0; i < m->cpus && strlen(cpus) < sizeof(cpus) - 256; i++)
		snprintf(cpus + strlen(cpus), sizeof(cpus) - strlen(cpus),
			 arm ? "processor\t: %u\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics cpuid\n\n"
			     : "processor\t: %u\nvendor_id\t: GenuineIntel\nflags\t\t: fpu vme de pse tsc msr pae mce cx8 apic%s\n\n",
			 i, m->hypervisor ? " hypervisor" : "");
	const char *const files[][2] = {
		{ "sys/class/dmi/id/sys_vendor", m->sys_vendor }, { "sys/class/dmi/id/product_name", m->product_name },
		{ "sys/class/dmi/id/bios_vendor", m->bios_vendor }, { "proc/cmdline", m->cmdline },
	};

	for (size_t i = 0; i < ARRAY_SIZE(files) && r == 0; i++)
		if (*files[i][1])
			r = boot_put(l->b, files[i][0], "%s\n", files[i][1]);
	if (r == 0)
		r = boot_put(l->b, "proc/cpuinfo", "%s", cpus);
	if (r == 0 && *m->compatible)
		r = devicetree(l->b, m->compatible);
	return r == 0 ? boot_put(l->b, "sys/devices/system/cpu/online", "0-%u\n", m->cpus ? m->cpus - 1 : 0) : r;
}

int machine_render(const struct root *b, const struct machine *m, const struct bootkernel *k)
{
	struct layout l = { .b = b, .m = m, .k = k, .slot = 3, .ifindex = 2 };
	int r = platform(&l);

	for (size_t i = 0; i < m->ndisks && r == 0; i++)
		r = disk(&l, &m->disk[i]);
	if (r == 0)
		r = root_mkdir_p(b, "sys/devices/virtual/net", 0755);
	l.ifindex = 1;
	if (r == 0)
		r = nic_files(&l, "lo", "devices/virtual/net/lo", 772, 1);
	for (size_t i = 0; i < m->nnics && r == 0; i++)
		r = nic(&l, &m->nic[i]);
	return r;
}
