/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * earlytune's core types: the items of a plan and the context of a command,
 * which every layer above base/ shares; every file outside base/ and config/
 * may include it. With it come the headers of the types the context holds
 * (base/util.h, base/root.h, base/kernel.h, config/config.h,
 * config/platform.h); each folder's own header says what else it exports.
 *
 * Functions return 0 (or a count) on success and -errno on failure, and an
 * error becomes a log line once, where it is handled: in the commands (main.c,
 * the engine's cmd_* in plan.c, apply.c and revert.c, cmd_modules, cmdline/'s
 * commands), and in the configuration reader, which names each bad line and
 * unreadable file where it finds it. Elsewhere only debug lines (what was
 * chosen, what was cleaned up).
 */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/util.h"
#include "base/root.h"
#include "base/kernel.h"
#include "config/config.h"
#include "config/platform.h"

/* ---- plan items (engine/item.c) ---- */
enum action { ACT_CHANGE, ACT_KEEP, ACT_SKIP, ACT_ERROR };
/* How an item is written: an attribute file, a module insert, a qdisc, a
 * line of a systemd drop-in, a debugfs file (written with debugfs mounted),
 * an ethtool setting. */
enum item_kind { ITEM_FILE, ITEM_MODULE, ITEM_QDISC, ITEM_DROPIN, ITEM_DEBUGFS, ITEM_ETHTOOL };
enum result { RES_NONE, RES_APPLIED, RES_FAILED };

/* Another configuration writing an item's value (writers/). */
struct writer {
	char *file;
	int line;
	const char *tool;  /* static: "TuneD", "udev", ... */
	char *what;        /* the line as written */
	char *value;       /* NULL: only the writer knows (a TuneD function, a program) */
	char *why;         /* which one wins and why */
	bool wins;
};

struct item {
	const char *domain;  /* static string */
	char *target;        /* its strings: item.c's, shared, never written in place */
	char *setting;       /* sysfs-relative attribute, e.g. queue/read_ahead_kb */
	char *path;          /* relative to the root */
	char *current;
	char *desired;
	char *module;        /* to load before writing, or NULL */
	char *error;
	char *reason;
	char *source;
	enum action action;
	enum result result;
	int rank;            /* order inside a target */
	const char *cls;     /* block items: the disk's class (a static string), else NULL */
	bool selector;       /* value is a bracketed choice list */
	bool recheck;        /* an earlier write of this target may change current */
	bool foreign;        /* skipped because another writer owns it: drift for verify */
	bool unmet;          /* ACT_SKIP of a setting the configuration wants but this kernel
			      * cannot give (no module, scheduler, knob): drift for verify.
			      * A skip without it does not apply here (a partition, a
			      * bio-based queue, another network namespace): neutral. */
	bool unknown;        /* ACT_SKIP where the tree does not show whether this kernel can
			      * give it (a capture without proc/, sys/kernel/mm or the
			      * kernel's module data): verify's own verdict, never unmet. */
	enum item_kind kind;
	char *options;       /* ITEM_MODULE: module parameters */
	int ifindex;         /* ITEM_QDISC: the interface, */
	unsigned ntx;        /* its TX queues, */
	unsigned qhandle;    /* and the handle of an mq root we may reuse */
	struct writer *writers; /* plan, verify: the other writers of its value */
	size_t nwriters;
	bool held;           /* fd: the file current was read through, open for the write */
	int fd;
	size_t fdlen;        /* the bytes that read returned */
};

struct plan {
	struct item *v;
	size_t n, cap;
	bool writers; /* the items' writers were looked for (plan, verify) */
	bool unapplied; /* verify: earlytune has not applied here since boot (never
			 * ran, or reverted): a value not yet set is not drift */
};

/* ---- the context of one command ---- */
struct session;
struct mods;

struct measured_source;

struct ctx {
	struct root root;
	struct config cfg;
	struct kernel kernel;
	struct mods *mods;
	unsigned only;       /* domain bits */
	char **devices;
	size_t ndevices;
	struct session *session; /* the records the command holds locked, or NULL */
	int ifindex;         /* --ifindex, or 0 */
	const char *iface;   /* --iface, or NULL */
	unsigned long long diskseq; /* forget --diskseq: only records of that disk, or 0 */
	bool boot, json, verbose;
	int columns;         /* the table's width; 0: --wide, full lines; -1: table_columns(),
	                      * asked by what prints one (a udev run asks no terminal) */
	const char *prometheus; /* verify --prometheus FILE: absolute, inside the root */
	long long t0_ns; /* start, for the --boot summary */
	const char *platform_opt; /* --platform, or NULL */
	struct platform platform; /* resolved by the first [cmdline] rule that asks */
	bool image;          /* verify --image: check the tree as an image */
	bool read_only;      /* plan: read what is there, mount nothing (debugfs) */
	bool applying;       /* the plan is apply's: what it will write may be read open for writing */
	const struct measured_source *measured; /* the commands that list the settings they
						 * measured (commands.c), for status and metrics */
	size_t nmeasured;
};

/* A domain's bit in ctx.only (its row in src/domains.c names it). */
enum { DOM_BLOCK = 1u << 0, DOM_THP = 1u << 1, DOM_MODULES = 1u << 2, DOM_NET = 1u << 3, DOM_INITRAMFS = 1u << 4,
       DOM_LIMITS = 1u << 5, DOM_SCHED = 1u << 6, DOM_SYSFS = 1u << 7, DOM_NIC = 1u << 8 };
