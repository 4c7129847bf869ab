/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A domain is one row of the table in src/domains.c. The command line
 * (--only, --help), the configuration reader (its section and key check),
 * the plan, apply, revert and the records know a domain only through its
 * row: a new domain is its own folder plus one row. For the engine's files
 * and main.c; each domain declares the functions of its row in its own
 * header (block/block.h, net/net.h, ...), which src/domains.c includes.
 */
#pragma once

#include "earlytune.h"

struct record;

struct domain {
	const char *name;  /* --only, the DOMAIN column, the records' first field */
	unsigned bit;      /* DOM_*: its bit in ctx.only */
	struct cfg_section section; /* the configuration section it reads (name NULL: none) */
	int (*plan)(struct ctx *c, struct plan *p);

	/* apply: items the engine does not write as files (kind other than
	 * ITEM_FILE) go to the domain, one at a time or, with apply_batch, all
	 * of the plan's at once at the first one's turn. */
	void (*apply)(struct ctx *c, struct item *it);
	int (*apply_batch)(struct ctx *c, struct plan *p);
	bool irreversible; /* revert undoes none of it: no originals are recorded */
	/* A setting whose change recreates a device's queues: apply writes
	 * those first, then plans again (later items are about queues). */
	bool (*reshapes)(const char *setting);
	bool report_only;  /* plan and verify report on it; apply has nothing to write */

	/* revert */
	int (*rank)(const char *setting);         /* order inside a target, apply's; NULL: 0 */
	const char *(*gone)(const char *setting); /* why a recorded attribute gone since is
						   * not a failure, or NULL */
	bool (*batched)(const char *setting);     /* that record goes back through revert_batch */
	int (*revert_batch)(struct ctx *c, struct item **items, const char **values, size_t n);

	/* The records a command about one disk or interface touches. */
	bool disks; /* targets are disks (--device): apply first drops the records
		     * of a disk that is gone or another disk now */
	int (*ifindex)(const char *path); /* a record's interface, or 0 */
	int (*iface_index)(const struct root *r, const char *name); /* --iface's index now, or 0 */

	/* Whose a record is: the identity of its device ("" none; -ENOENT: the
	 * device is gone); stale, a lookup of its own instead of comparing
	 * identities (interfaces are renamed); the paths beyond sys/ and
	 * proc/sys/ its records may name. */
	int (*identity)(const struct root *r, const char *setting, const char *path, char *out, size_t size);
	int (*stale)(const struct root *r, const struct record *x, char *why, size_t size);
	bool (*owns_path)(const char *path);
	/* A record of another instance of its devices sharing these files (an
	 * interface of another network namespace: indexes repeat across
	 * them): no command here reverts it, forgets it or judges it stale. */
	bool (*elsewhere)(const struct root *r, const struct record *x);
	/* A file whose record is kept under a key of the domain's rather than
	 * the file's path (an interface's attribute, by namespace and index:
	 * the path names the interface, and names repeat across namespaces):
	 * record_path the key of an item's record (1; 0: its path), and
	 * record_file the file a record of such a key goes back to (1; 0: the
	 * record's path is the file; -errno). */
	int (*record_path)(const struct root *r, const struct item *it, char *out, size_t size);
	int (*record_file)(const struct root *r, const struct record *x, char *out, size_t size);
	/* For a domain whose items are global or a device's: the disk a
	 * record is about (its name in disk) or the interface (its index in
	 * *ifindex), both empty for a global one. Its plan then runs at a
	 * device's event too (--device, --ifindex, --iface) and keeps to it;
	 * the record is in that device's scope and forgotten with it. */
	void (*device_of)(const struct record *x, char *disk, size_t size, int *ifindex);

	/* The sysctls its configuration sets, for the guard that keeps them
	 * past systemd-sysctl: emit(key, entry, data) for each. */
	void (*sysctls)(const struct config *cfg,
			void (*emit)(const char *key, const struct cfg_entry *e, bool optional, void *data),
			void *data);
	bool owns_guard; /* a run about it writes the guard, and its revert removes it */

	/* Whether it writes the sysfs file at path ("sys/…", or a glob of such
	 * paths): key then names its key for it ("[block] scheduler"), which
	 * [sysfs] sections point to instead of writing the file too. */
	bool (*claims)(const char *path, char *key, size_t size);
};

/* ---- src/domains.c: the table ---- */
extern const struct domain domains[];
extern const size_t ndomains;
const struct domain *domain_find(const char *name); /* NULL: no such domain */
unsigned domains_all(void);
/* The domains a command is about without --only: those of disks with
 * --device, of interfaces with --ifindex or --iface, else all. */
unsigned domains_implied(const struct ctx *c);
/* Every row's sysctls, in the table's order. */
void domains_sysctls(const struct config *cfg,
		     void (*emit)(const char *key, const struct cfg_entry *e, bool optional, void *data), void *data);
