/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An image's first boot (machine.c): the sys/ and proc/ its kernel and a
 * target machine will show, written into a directory of our own that the
 * root reads them from. The machine's description (machine_conf.c) and
 * its devices laid out as sysfs does (machine_dev.c). For image/ only.
 */
#pragma once

#include <stddef.h>

#include "earlytune.h"

#define MACHINE_DISKS 32
#define MACHINE_NICS 16

struct mdisk {
	char name[32], bus[16], pci[16], vendor[16], model[48], host[32], parent[160];
	unsigned queues, depth, rotational, read_ahead_kb;
	unsigned long long size;
	int line;
};

struct mnic {
	char name[16], driver[32], pci[16], parent[160];
	unsigned queues;
	int line;
};

struct machine {
	char file[PATH_MAX];
	char sys_vendor[64], product_name[64], bios_vendor[64], arch[16], cmdline[1024];
	char compatible[128]; /* the device tree's root compatible entries, space-separated */
	unsigned cpus, hypervisor;
	struct mdisk disk[MACHINE_DISKS];
	size_t ndisks;
	struct mnic nic[MACHINE_NICS];
	size_t nnics;
};

/* What the image's kernel offers, from its build configuration or
 * modules.builtin: each I/O scheduler built in ("mq-deadline kyber"). */
struct bootkernel {
	char scheds[64];
	unsigned version;
};

/* machine_conf.c: 0, or -EINVAL with each error said (FILE:LINE). */
int machine_load(struct machine *m, const char *file);

/* machine_dev.c: the machine's DMI, CPUs, disks and NICs under b. */
int machine_render(const struct root *b, const struct machine *m, const struct bootkernel *k);

/* machine_dev.c: a file (its directories made) and a link, under b. */
int boot_put(const struct root *b, const char *rel, const char *fmt, ...) _printf_(3, 4);
int boot_link(const struct root *b, const char *rel, const char *target);
