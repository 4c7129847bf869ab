/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The limits domain's own header (limits.c, apply.c, conf.c, units.c; and
 * its unit tests): resource limits of systemd services, written as drop-ins
 * that systemd reads when it loads a unit, checked against /proc/PID/limits
 * of the running one.
 */
#pragma once

#include "engine/item.h"
#include "limits/limits.h"

#define LIMITS_UNIT_DIR "run/systemd/system"
#define LIMITS_MANAGER_DIR "run/systemd/system.conf.d"
#define LIMITS_MANAGER "manager" /* the target of the [limits] default */
#define LIMIT_INFINITY UINT64_MAX

/* One limit a key sets: nofile → LimitNOFILE, "Max open files". */
struct limit_key {
	const char *key, *directive, *proc_name;
	bool bytes; /* takes K M G T P E suffixes (1024-based), as systemd does */
};
extern const struct limit_key limit_keys[];
extern const size_t nlimit_keys;
const struct limit_key *limit_key_find(const char *key);

struct rlim {
	uint64_t soft, hard; /* LIMIT_INFINITY: infinity */
};
/* SOFT[:HARD], each a whole number or "infinity" (with a size suffix for a
 * bytes key); one value sets both. 0, or -EINVAL with why set. */
int limits_parse_value(const struct limit_key *k, const char *value, struct rlim *out, char *why, size_t size);
void limits_format(const struct rlim *l, char *buf, size_t size); /* "4096:8192", "infinity" */
/* A line of /proc/PID/limits ("Max open files  1024  524288  files"). */
int limits_parse_proc(const char *text, const struct limit_key *k, struct rlim *out);

/* units.c: the unit files a glob names, the running processes of a unit. */
#define UNIT_DIRS "etc/systemd/system", "run/systemd/system", "usr/lib/systemd/system", "lib/systemd/system"
struct units {
	char **v;
	size_t n;
};
int units_matching(const struct root *r, const char *glob, struct units *u); /* count or -errno */
void units_free(struct units *u);
int units_add(struct units *u, const char *name); /* once */
/* fn(instance, pid) for each running instance of a unit (of a template:
 * each instance), pid its oldest process: the count, or -errno. */
int unit_running(const struct root *r, const char *unit, int (*fn)(const char *instance, int pid, void *data),
		 void *data);
int limits_pam_line(const struct root *r, const char *item, char *where, size_t size);
int limits_nr_open(const struct root *r, uint64_t *v); /* proc/sys/fs/nr_open */
int limits_dropin_path(const char *target, char *path, size_t size);
