/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The writers' own: the entries the readers (tuned.c, udev.c, files.c,
 * networkd.c, link.c, nm.c) make of their sources, and writers.c's helpers for them. Only
 * writers/ and its tests include it.
 */
#pragma once

#include "writers/writers.h"

/* When a writer runs relative to earlytune, earliest first: the order the
 * boot gives them (a later stage overwrites an earlier one). */
enum wstage {
	WS_UDEV_ATTR, /* udev ATTR{} assignments: before any RUN program of the event */
	WS_SYSCTL,    /* systemd-sysctl: ordered against earlytune's guard by file name */
	WS_TMPFILES,  /* systemd-tmpfiles-setup, after earlytune's unit */
	WS_UDEV_RUN,  /* udev RUN programs, in rule order against 70-earlytune.rules */
	WS_LINK,      /* udev's .link files, again at an interface's rename (its move event) */
	WS_SYSFS,     /* sysfsutils' service */
	WS_NETWORKD,  /* networkd, when it configures the link (after udev's run) */
	WS_NM,        /* NetworkManager, when it activates a connection */
	WS_TUNED,     /* tuned.service, after the network */
};

struct wentry;
struct wctx;
struct wcache;

/* What an entry means for one item. applies: 0 no, 1 yes, 2 may (a match
 * key earlytune cannot evaluate); beats: it runs after earlytune's write of
 * that item and so overrides it; why: the order, said for a person. */
struct wjudge {
	int applies;
	bool beats;
	char why[320];
};

struct wentry {
	const char *tool; /* "TuneD", "udev", "sysctl.d", "tmpfiles.d", "sysfsutils", "networkd", "udev .link",
			   * "NetworkManager" */
	char *file;       /* "/etc/..." as shown */
	int line;
	char *what;       /* the assignment as written, for the table */
	char *key;        /* what it writes: a root-relative path glob, a sysctl key, an attribute */
	char *names;      /* device or interface globs, or NULL */
	char *value;      /* the value written, or NULL when only the writer knows it */
	char *extra;      /* the reader's own data (the rule's match keys), or NULL */
	enum wstage stage;
	int seq;          /* order among entries of its stage */
	int flags;        /* the reader's */
	void (*judge)(const struct wentry *e, const struct wctx *w, const struct item *it, struct wjudge *j);
};

/* Everything read for one run. */
struct wctx {
	const struct root *r;
	const char *cmdline; /* the kernel's, for TuneD's THP rule */
	const char *release; /* the kernel's, for TuneD's uname_regex */
	struct kernel *kernel; /* for TuneD's virt_check (the hypervisor, probed once), or NULL */
	struct wentry *v;
	size_t n, cap;
	char **errors; /* files that could not be read: said, never ignored */
	size_t nerrors;
	unsigned loaded; /* the sources read (WSRC_*) */
	struct wcache *cache; /* real.c's: the files resolved this run, or NULL */
};

enum { WSRC_TUNED = 1, WSRC_UDEV = 2, WSRC_SYSCTL = 4, WSRC_TMPFILES = 8, WSRC_SYSFS = 16, WSRC_NETWORKD = 32,
       WSRC_LINK = 64, WSRC_NM = 128 };

#define WRITERS_MAX_FILE (1 << 20) /* larger files are reported, not read */

/* writers.c: the readers' helpers */
struct wentry *wentry_add(struct wctx *w, const char *tool, const char *file, int line, enum wstage stage);
void wentries_drop(struct wctx *w, size_t first); /* the entries from first on: a file's, unusable */
void wset(char **field, const char *s); /* a copy, invalid UTF-8 as '?' */
void wsetf(char **field, const char *fmt, ...) _printf_(2, 3);
void writers_error(struct wctx *w, const char *file, int err);
void writers_errorf(struct wctx *w, const char *fmt, ...) _printf_(2, 3);
int writers_read(struct wctx *w, const char *rel, char **buf); /* 0, or -errno (reported) */
int writers_files(struct wctx *w, const char *const *dirs, size_t ndirs, const char *pattern,
		  void (*fn)(struct wctx *w, const char *rel, char *text));
char *writers_next_line(char **p, int *lineno);
struct wini {
	char *p;	 /* what is left of the buffer */
	int line;	 /* of what writers_next_ini returned */
	char sect[64];	 /* the section it is in */
	bool strip_sect; /* TuneD reads "[ main ]" as [main] */
};
bool writers_next_ini(struct wini *ini, char **key, char **value);
bool writers_path_match(const char *glob, const char *path);
bool writers_names_match(const char *globs, const char *name, const char *seps);

/* the readers */
int writers_tuned(struct wctx *w);
int writers_udev(struct wctx *w);
int writers_sysctl(struct wctx *w);
int writers_tmpfiles(struct wctx *w);
int writers_sysfs(struct wctx *w);
int writers_networkd(struct wctx *w);
int writers_link(struct wctx *w);
int writers_nm(struct wctx *w);

/* nic.c: the NIC settings as the other writers spell them. */
typedef void (*nic_param_fn)(void *ctx, const char *key, const char *value);
bool nic_item(const struct item *it, char *iface, size_t size, const char **key);
bool nic_key_match(const char *item, const char *entry);
const char *nic_feature(const char *name);
const char *nic_bool(const char *v);
bool nic_same_cpus(const struct item *it, const char *a, const char *b);
int nic_params(const char *groupword, const char *args, bool dev, nic_param_fn fn, void *ctx);
bool nic_ethtool_call(const char *prog, char *word, size_t size, const char **args);
/* link.c: whether the interface's name was given by userspace (udev's
 * rename): 1, 0, or -errno (cannot tell). */
int nic_renamed(const struct wctx *w, const char *iface);
bool nic_virtual(const struct wctx *w, const char *iface);

/* The item's sysfs or procfs path for path-matched writers, root-relative
 * ("sys/block/sda/queue/scheduler", "proc/sys/net/core/default_qdisc"),
 * or "" when it has none. */
void writers_item_path(const struct item *it, char *buf, size_t size);

/* real.c: whether an entry's path (e->key) names the file at path, by the
 * path or by the real file found through the root; the cache of one run
 * (annotate's item: each file looked for once); a [sysfs] item below
 * /sys/devices as the writers that know disks and interfaces by name see
 * it (its path through the device's class link, in buf), else it. */
bool writers_file_match(const struct wctx *w, const struct wentry *e, const char *path);
void writers_cache_init(struct wctx *w);
void writers_cache_item(const struct wctx *w, const struct item *it);
void writers_cache_free(struct wctx *w);
const struct item *writers_item_view(const struct wctx *w, const struct item *it, struct item *view, char *buf,
				     size_t size);

void writers_ctx_free(struct wctx *w);

/* TuneD's entries (tuned.c) and their verdict (tuned_judge.c). */
enum { T_RAISE = 1, T_OFF = 2, T_REAPPLY = 4, T_COMPUTED = 8, T_CMDLINE = 16, T_MAYBE = 32, T_NET = 64 };
void judge_tuned(const struct wentry *e, const struct wctx *w, const struct item *it, struct wjudge *j);

/* tuned_cond.c: what TuneD evaluates before it tunes. */
struct tcond {
	char *uname, *cpuinfo; /* the texts searched, read once; NULL: not known */
	bool uname_read, cpuinfo_read;
	char uname_miss[128], cpuinfo_miss[64];
};
int tuned_search(const char *py, const char *text); /* 1, 0, or -EINVAL: no POSIX form */
int tuned_condition(struct tcond *tc, const struct wctx *w, const char *which, const char *py, char *why,
		    size_t size);
char *tuned_function(struct tcond *tc, struct wctx *w, const char *call);
void tuned_cond_free(struct tcond *tc);
bool tuned_reapply_sysctl(struct wctx *w);  /* tuned-main.conf: reapply_sysctl (default on) */
int tuned_service_enabled(struct wctx *w); /* 1, 0, or -errno (said) */
