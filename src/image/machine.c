// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * `plan --root IMAGE`: an unbooted image has no /sys and no /proc of its
 * kernel, yet that kernel's build configuration (/boot/config-VER) and
 * modules.builtin say what its first boot will find: transparent huge
 * pages and their defaults, the congestion control and default qdisc it
 * starts with, the I/O schedulers built in (others are modules the tree
 * holds). Those files are written here, as the kernel lays them out, into
 * a directory of our own that the root reads sys/ and proc/ from; with
 * --machine, the target machine's DMI, CPUs, disks and NICs too
 * (machine_dev.c). The plan itself is unchanged: it reads what the first
 * boot will read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/kconfig.h"
#include "base/log.h"
#include "image/image.h"
#include "image/machine.h"

/* The kernel's word on sym: its configuration's, else modules.builtin's
 * (ko: the module's path below kernel/): 'y', 'm' or 'n'; 0 unknown. */
static int has(const char *cfg, const char *builtin, const char *sym, const char *ko)
{
	if (cfg)
		return kconfig_value(cfg, sym);
	if (builtin && ko)
		return strstr(builtin, ko) ? 'y' : 'n';
	return 0;
}

/* THP as the kernel shows it before anyone wrote to it: its build-time
 * default for enabled (TRANSPARENT_HUGEPAGE_ALWAYS/MADVISE/NEVER), madvise
 * for defrag, never for shmem; mTHP sizes (6.8+, 4 KiB pages) inherit at
 * the PMD size and are off below it (mm/huge_memory.c). */
static int thp_files(const struct root *b, const char *cfg, unsigned version)
{
	static const char *const modes[] = { "always", "madvise", "never" };
	static const char *const syms[] = { "CONFIG_TRANSPARENT_HUGEPAGE_ALWAYS", "CONFIG_TRANSPARENT_HUGEPAGE_MADVISE",
					    "CONFIG_TRANSPARENT_HUGEPAGE_NEVER" };
	const char *d = "sys/kernel/mm/transparent_hugepage";
	char enabled[64] = "", rel[PATH_MAX];
	int r = root_mkdir_p(b, "sys/kernel/mm", 0755);

	if (r < 0 || kconfig_value(cfg, "CONFIG_TRANSPARENT_HUGEPAGE") != 'y')
		return r;
	for (size_t i = 0; i < ARRAY_SIZE(modes); i++)
		snprintf(enabled + strlen(enabled), sizeof(enabled) - strlen(enabled), "%s%s%s%s", i ? " " : "",
			 kconfig_value(cfg, syms[i]) == 'y' ? "[" : "", modes[i], kconfig_value(cfg, syms[i]) == 'y' ? "]" : "");
	snprintf(rel, sizeof(rel), "%s/enabled", d);
	if ((r = boot_put(b, rel, "%s\n", enabled)) < 0 ||
	    (r = boot_put(b, "sys/kernel/mm/transparent_hugepage/defrag", "always defer defer+madvise [madvise] never\n")) < 0 ||
	    (r = boot_put(b, "sys/kernel/mm/transparent_hugepage/shmem_enabled", "always within_size advise [never] deny force\n")) < 0 ||
	    (r = boot_put(b, "sys/kernel/mm/transparent_hugepage/use_zero_page", "1\n")) < 0 ||
	    (r = boot_put(b, "sys/kernel/mm/transparent_hugepage/khugepaged/defrag", "1\n")) < 0 ||
	    (r = boot_put(b, "sys/kernel/mm/transparent_hugepage/khugepaged/pages_to_scan", "4096\n")) < 0 ||
	    (r = boot_put(b, "sys/kernel/mm/transparent_hugepage/khugepaged/max_ptes_none", "511\n")) < 0)
		return r;
	if (version < KV(6, 8) || kconfig_value(cfg, "CONFIG_ARM64_16K_PAGES") == 'y' ||
	    kconfig_value(cfg, "CONFIG_ARM64_64K_PAGES") == 'y' || kconfig_value(cfg, "CONFIG_PPC_64K_PAGES") == 'y')
		return 0;
	for (unsigned kb = 16; kb <= 2048 && r == 0; kb *= 2) {
		snprintf(rel, sizeof(rel), "%s/hugepages-%ukB/enabled", d, kb);
		r = boot_put(b, rel, "%s\n", kb == 2048 ? "always [inherit] madvise never" : "always inherit madvise [never]");
	}
	return r;
}

/* The congestion controls registered at boot: reno, then those built in. */
static void cc_builtin(const char *cfg, char *out, size_t size)
{
	static const char *const cc[] = { "bic", "cubic", "westwood", "htcp", "hstcp", "hybla", "vegas", "nv",
					  "scalable", "lp", "veno", "yeah", "illinois", "dctcp", "cdg", "bbr" };
	char sym[64];

	snprintf(out, size, "reno");
	for (size_t i = 0; i < ARRAY_SIZE(cc); i++) {
		snprintf(sym, sizeof(sym), "CONFIG_TCP_CONG_%s", cc[i]);
		for (char *p = sym; *p; p++)
			*p = *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p;
		if (kconfig_value(cfg, sym) == 'y')
			snprintf(out + strlen(out), size - strlen(out), " %s", cc[i]);
	}
}

/* The network sysctls the first boot starts from: the configured defaults
 * (DEFAULT_TCP_CONG; DEFAULT_NET_SCH since 5.0, pfifo_fast before it). */
static int net_files(const struct root *b, const char *cfg)
{
	char cong[32] = "cubic", qdisc[32] = "pfifo_fast", avail[256];
	int r;

	if (kconfig_value(cfg, "CONFIG_NET") != 'y' || kconfig_value(cfg, "CONFIG_INET") != 'y')
		return root_mkdir_p(b, "proc/sys", 0755);
	kconfig_string(cfg, "CONFIG_DEFAULT_TCP_CONG", cong, sizeof(cong));
	kconfig_string(cfg, "CONFIG_DEFAULT_NET_SCH", qdisc, sizeof(qdisc));
	cc_builtin(cfg, avail, sizeof(avail));
	if ((r = boot_put(b, "proc/sys/net/core/default_qdisc", "%s\n", qdisc)) < 0 ||
	    (r = boot_put(b, "proc/sys/net/core/somaxconn", "4096\n")) < 0 ||
	    (r = boot_put(b, "proc/sys/net/ipv4/tcp_congestion_control", "%s\n", cong)) < 0)
		return r;
	return boot_put(b, "proc/sys/net/ipv4/tcp_available_congestion_control", "%s\n", avail);
}

/* The elevators built in, in the order the kernel registers them. */
static void scheds_builtin(const char *cfg, const char *builtin, struct bootkernel *k)
{
	static const struct {
		const char *name, *sym, *ko;
	} e[] = { { "mq-deadline", "CONFIG_MQ_IOSCHED_DEADLINE", "block/mq-deadline.ko" },
		  { "kyber", "CONFIG_MQ_IOSCHED_KYBER", "block/kyber-iosched.ko" },
		  { "bfq", "CONFIG_IOSCHED_BFQ", "block/bfq.ko" } };

	for (size_t i = 0; i < ARRAY_SIZE(e); i++)
		if (has(cfg, builtin, e[i].sym, e[i].ko) == 'y')
			snprintf(k->scheds + strlen(k->scheds), sizeof(k->scheds) - strlen(k->scheds), "%s%s",
				 *k->scheds ? " " : "", e[i].name);
}

static int kernel_files(const struct root *b, struct ctx *c, const char *cfg, bool modules)
{
	int r = boot_put(b, "proc/sys/kernel/osrelease", "%s\n", c->kernel.release);

	if (r == 0 && modules)
		r = boot_put(b, "proc/sys/kernel/modprobe", "/sbin/modprobe\n");
	if (r == 0 && modules)
		r = boot_put(b, "proc/modules", "%s", "");
	if (r == 0 && cfg)
		r = thp_files(b, cfg, c->kernel.version);
	if (r == 0 && cfg)
		r = net_files(b, cfg);
	return r;
}

/* An unbooted image: its kernel was picked from what it installs (or
 * named), and no /proc or /sys of a running kernel is there. */
static bool unbooted(struct ctx *c)
{
	static const char *const running[] = { "proc/sys/kernel/osrelease", "proc/version", "sys/kernel",
					       "sys/block", "sys/class" };

	if (!c->kernel.from || !strcmp(c->kernel.from, "proc") || !strcmp(c->kernel.release, "unknown"))
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(running); i++)
		if (root_access(&c->root, running[i]) != 0)
			return false;
	return true;
}

static int boot_dir(struct root *b, bool needed)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = xasprintf("%s/earlytune-boot.XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp");
	int r;

	if (!dir)
		return -ENOMEM;
	r = mkdtemp(dir) ? root_open(b, dir) : -errno;
	if (r == 0)
		b->owned = true;
	else
		log_msg(needed ? LOG_ERR : LOG_WARN, "cannot make a directory for the image's first boot (%s): %s%s", dir,
			strerror(-r), needed ? "" : "; planned without it (give TMPDIR)");
	free(dir);
	return r;
}

/* The view, written: 0, or -errno said. cfg and builtin may be NULL. */
static int boot_render(struct ctx *c, struct root *b, const char *cfg, const char *builtin, const struct machine *m)
{
	struct bootkernel k = { .version = c->kernel.version };
	int r;

	scheds_builtin(cfg, builtin, &k);
	r = kernel_files(b, c, cfg, c->kernel.modules);
	if (r == 0 && m)
		r = machine_render(b, m, &k);
	if (r < 0)
		log_msg(m ? LOG_ERR : LOG_WARN, "cannot write the image's first boot into %s: %s", b->dir, strerror(-r));
	if (r == 0 && m && *m->cmdline) {
		free(c->kernel.cmdline);
		c->kernel.cmdline = strdup(m->cmdline);
		r = c->kernel.cmdline ? 0 : -ENOMEM;
	}
	return r;
}

static void boot_said(const struct ctx *c, const char *from, const struct machine *m)
{
	if (c->json)
		return;
	if (m)
		log_msg(LOG_NOTICE, "first boot of this image on the machine %s: kernel %s as %s describe it", m->file,
			c->kernel.release, from);
	else
		log_msg(LOG_NOTICE, "first boot of this image: kernel %s as %s describe it; no disks or interfaces (give --machine)",
			c->kernel.release, from);
}

static int boot_view(struct ctx *c, const struct machine *m)
{
	char rel[PATH_MAX], from[256] = "", cfgfrom[192];
	_cleanup_(freep) char *cfg = NULL, *builtin = NULL;
	struct root *b;
	int r = kconfig_read(&c->root, &c->kernel, &cfg, cfgfrom, sizeof(cfgfrom));

	if (r < 0 && r != -ENOENT)
		log_msg(LOG_WARN, "cannot read the configuration of kernel %s: %s", c->kernel.release, strerror(-r));
	if (r == 0)
		snprintf(from, sizeof(from), "%s", cfgfrom);
	if (pathf(rel, sizeof(rel), "lib/modules/%s/modules.builtin", c->kernel.release) == 0 &&
	    root_read_file(&c->root, rel, &builtin, 1 << 22) >= 0)
		snprintf(from + strlen(from), sizeof(from) - strlen(from), "%s/%s", *from ? " and " : "", rel);
	if (!*from) {
		log_msg(m ? LOG_ERR : LOG_NOTICE, "kernel %s: no /boot/config-%s nor modules.builtin in this image: its first boot is unknown",
			c->kernel.release, c->kernel.release);
		return m ? -ENOENT : 0;
	}
	if (!(b = calloc(1, sizeof(*b))))
		return -ENOMEM;
	if ((r = boot_dir(b, m)) == 0 && (r = boot_render(c, b, cfg, builtin, m)) == 0) {
		c->root.boot = b;
		boot_said(c, from, m);
		return 0;
	}
	root_close(b);
	free(b);
	return m ? r : 0; /* the plan as the tree alone shows it */
}

int machine_setup(struct ctx *c, const char *command, const char *file)
{
	_cleanup_(freep) struct machine *m = NULL;

	if (file && strcmp(command, "plan")) {
		log_msg(LOG_ERR, "--machine: only with plan (earlytune plan --root IMAGE --machine FILE)");
		return -EINVAL;
	}
	if (strcmp(command, "plan"))
		return 0;
	if (!unbooted(c)) {
		if (file)
			log_msg(LOG_ERR, "--machine: %s is not an unbooted image (its /proc or /sys is there): the plan reads the machine it runs on",
				c->root.dir);
		return file ? -EINVAL : 0;
	}
	if (file && (!(m = calloc(1, sizeof(*m))) || machine_load(m, file) < 0))
		return -EINVAL;
	return boot_view(c, m) < 0 ? -EINVAL : 0;
}
