// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The cloud a root runs on, for [cmdline] rules with match.platform: given
 * (--platform, [main] platform) or guessed from the root's DMI (without it,
 * a cloud's NVMe controllers or the device tree). An image is
 * built on one machine for another: its DMI (usually none) is not the
 * target's, so a guess is said as one, and no DMI is no platform.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "base/root.h"
#include "config/config.h"
#include "config/platform.h"

/* One platform name: 0, or -EINVAL with why (and a near name) set. */
int platform_check(const char *what, const char *value, char *why, size_t size)
{
	char buf[96];

	if (word_listed(PLATFORM_NAMES, value))
		return 0;
	snprintf(why, size, "%s: unknown platform '%s'%splatforms: %s", what, value,
		 did_you_mean(value, PLATFORM_NAMES, buf, sizeof(buf)), PLATFORM_NAMES);
	return -EINVAL;
}

static int dmi_read(const struct root *r, const char *field, char *buf, size_t size, struct platform *p)
{
	char rel[64];
	int rr;

	snprintf(rel, sizeof(rel), "sys/class/dmi/id/%s", field);
	rr = root_read(r, rel, buf, size);
	if (rr == -ENOENT || rr == -ENOTDIR)
		rr = 0;
	if (rr < 0)
		snprintf(p->from, sizeof(p->from), "%s", rel);
	buf[rr > 0 ? rr : 0] = '\0';
	return rr;
}

struct nvme_vendor {
	const struct root *r;
	struct platform *p;
	char ctrl[32];
	int err;
};

/* One controller of sys/class/nvme: its PCI vendor, if a cloud's. */
static void nvme_vendor(const char *rel, void *data)
{
	static const struct {
		const char *id, *name, *who;
	} clouds[] = { { "0x1d0f", "aws", "Amazon" }, { "0x1ae0", "gce", "Google" }, { "0x1414", "azure", "Microsoft" } };
	struct nvme_vendor *v = data;
	char path[PATH_MAX], id[16];
	int rr;

	/* readdir order is the filesystem's: the lowest-numbered controller speaks */
	if (v->err || (v->p->name && strverscmp(strrchr(rel, '/') + 1, v->ctrl) >= 0) ||
	    pathf(path, sizeof(path), "%s/device/vendor", rel) < 0)
		return;
	rr = root_read(v->r, path, id, sizeof(id));
	if (rr < 0 && rr != -ENOENT && rr != -ENOTDIR && rr != -EISDIR) {
		v->err = rr;
		snprintf(v->p->from, sizeof(v->p->from), "%s", path);
		return;
	}
	for (size_t i = 0; rr > 0 && i < ARRAY_SIZE(clouds); i++)
		if (!strcmp(id, clouds[i].id)) {
			v->p->name = clouds[i].name;
			v->p->how = "guessed";
			snprintf(v->p->from, sizeof(v->p->from), "NVMe controller %s: PCI vendor %s (%s)",
				 strrchr(rel, '/') + 1, id, clouds[i].who);
			snprintf(v->ctrl, sizeof(v->ctrl), "%s", strrchr(rel, '/') + 1);
		}
}

/* Without DMI, a cloud's NVMe controllers still name it: Amazon, Google and
 * Microsoft make their PCI vendors' controllers only for their hypervisors. */
static int guess_nvme(struct platform *p, const struct root *r)
{
	struct nvme_vendor v = { .r = r, .p = p };
	int rr = root_match(r, "sys/class/nvme", "nvme*", nvme_vendor, &v);

	if (rr < 0)
		snprintf(p->from, sizeof(p->from), "sys/class/nvme");
	return v.err < 0 ? v.err : rr < 0 ? rr : 0;
}

/* Without DMI, a device tree: an arm64 or RISC-V machine booted without
 * UEFI (a board, QEMU's virt machine given -kernel, many small ARM VPS).
 * A hypervisor node (Xen's "xen,xen") speaks first, then the machine's
 * own compatible strings (QEMU virt: "linux,dummy-virt"); the first entry
 * is the most specific. No cloud of PLATFORM_NAMES boots that way: such a
 * machine is generic. A read that fails for another reason than absence
 * is an error (from names the file), never "unknown". */
static int guess_devicetree(struct platform *p, const struct root *r)
{
	static const char *const files[] = { "proc/device-tree/hypervisor/compatible", "proc/device-tree/compatible" };

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		_cleanup_(freep) char *buf = NULL;
		int rr = root_read_file(r, files[i], &buf, 4096);

		if (rr == -ENOENT || rr == -ENOTDIR)
			continue;
		if (rr < 0) {
			snprintf(p->from, sizeof(p->from), "%s", files[i]);
			return rr;
		}
		if (rr == 0 || !*buf)
			continue;
		p->name = "generic";
		p->how = "guessed";
		snprintf(p->from, sizeof(p->from), "%s '%.200s'", files[i], buf);
		return 0;
	}
	return 0;
}

/* The DMI strings each cloud's virtual firmware writes (GCE: "Google",
 * product "Google Compute Engine"). Hyper-V (Azure's, or one on premises)
 * says "Microsoft Corporation" and "Virtual Machine". */
static int guess(struct platform *p, const struct root *r)
{
	char vendor[128], product[128];
	int rr;

	if ((rr = dmi_read(r, "sys_vendor", vendor, sizeof(vendor), p)) < 0 ||
	    (rr = dmi_read(r, "product_name", product, sizeof(product), p)) < 0)
		return rr;
	p->how = "guessed";
	if (!*vendor && !*product) {
		p->how = "unknown";
		snprintf(p->from, sizeof(p->from), "no DMI in this %s", r->is_host ? "machine" : "image");
		rr = guess_nvme(p, r);
		return rr < 0 || p->name ? rr : guess_devicetree(p, r);
	}
	if (!strncmp(vendor, "Amazon EC2", 10))
		p->name = "aws";
	else if (!strncmp(vendor, "Google", 6))
		p->name = "gce";
	else if (!strcmp(vendor, "Microsoft Corporation") && !strcmp(product, "Virtual Machine"))
		p->name = "azure";
	else
		p->name = "generic";
	if (!strcmp(p->name, "azure"))
		snprintf(p->from, sizeof(p->from), "sys/class/dmi/id/sys_vendor '%s', product_name '%s'", vendor, product);
	else
		snprintf(p->from, sizeof(p->from), "sys/class/dmi/id/sys_vendor '%s'", vendor);
	return 0;
}

/* --platform (option), else [main] platform (conf, from names its line),
 * else the root's DMI, NVMe controllers or device tree. Once; 0, or -errno
 * of a read (p->from names its file). */
int platform_resolve(struct platform *p, const struct root *r, const char *option, const char *conf,
		     const char *conf_from)
{
	if (p->resolved)
		return p->err;
	p->resolved = true;
	p->how = "given";
	if (option) {
		p->name = option;
		snprintf(p->from, sizeof(p->from), "--platform");
	} else if (conf && *conf) {
		p->name = conf;
		snprintf(p->from, sizeof(p->from), "[main] platform (%s)", conf_from ? conf_from : "");
	} else {
		p->err = guess(p, r);
	}
	return p->err;
}

/* What the rules will be matched against, when it was not given. */
void platform_say(const struct platform *p)
{
	if (p->err || !strcmp(p->how, "given"))
		return;
	if (p->name)
		log_msg(LOG_NOTICE, "platform %s, guessed from %s; --platform to say", p->name, p->from);
	else
		log_msg(LOG_NOTICE, "platform unknown (%s): cloud rules not applied; give --platform", p->from);
}

void json_platform(struct strbuf *sb, const struct platform *p)
{
	sb_printf(sb, ",\"platform\":{\"name\":");
	sb_json_str(sb, p->name);
	sb_printf(sb, ",\"how\":");
	sb_json_str(sb, p->how);
	sb_printf(sb, ",\"from\":");
	sb_json_str(sb, p->from);
	sb_printf(sb, "}");
}
