/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * earlytune's private header: the types every domain shares.
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

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define _cleanup_(f) __attribute__((cleanup(f)))
#define _printf_(a, b) __attribute__((format(printf, a, b)))

/* ---- util.c ---- */
char *strip(char *s);
bool streq_ptr(const char *a, const char *b);
int parse_u64(const char *s, unsigned long long *out);
int parse_s64(const char *s, long long *out);
bool valid_name(const char *s);
char *xasprintf(const char *fmt, ...) _printf_(1, 2);
long long now_ns(int clock); /* clock_gettime(clock) in ns */
void freep(void *p);
void closep(int *fd);
void fclosep(FILE **f);
#define FNV_OFFSET 14695981039346656037ULL
#define FNV_PRIME 1099511628211ULL
uint64_t fnv1a(uint64_t h, const char *s, size_t len);

/* A growable string; printing into it never fails silently: on ENOMEM the
 * buffer is marked and callers check sb->oom once at the end. */
struct strbuf {
	char *s;
	size_t len, cap;
	bool oom;
};
void sb_printf(struct strbuf *sb, const char *fmt, ...) _printf_(2, 3);
void sb_put(struct strbuf *sb, const char *s, size_t n);
void sb_wrap(struct strbuf *sb, const char *text, int indent, int columns);
void sb_json_str(struct strbuf *sb, const char *s);
void sb_free(struct strbuf *sb);

/* Words of a space-separated list, one at a time; no limit on their count. */
size_t next_word(const char **p, char *buf, size_t size);
#define WORD_MAX 256
bool word_listed(const char *list, const char *word);

/* ---- log.c ---- */
enum { LOG_ERR = 3, LOG_WARN = 4, LOG_NOTICE = 5, LOG_INFO = 6, LOG_DEBUG = 7 };
struct root;
void log_setup_boot(const struct root *r);
void log_set_verbose(bool verbose);
bool log_boot_mode(void);
void log_capture_errors(bool on);
size_t log_captured(size_t i, const char **msg); /* the count; *msg the i-th error line */
void log_msg(int prio, const char *fmt, ...) _printf_(2, 3);

/* ---- root.c: every path below /sys /proc /etc /run /dev /lib goes through here ---- */
struct root {
	int fd;
	char *dir;     /* as given, for messages */
	bool is_host;  /* the running system's "/": only then may we touch the kernel directly */
};
int root_open(struct root *r, const char *dir);
void root_close(struct root *r);
/* Outside the host root every operation resolves inside it: openat2
 * RESOLVE_IN_ROOT (retried on EAGAIN), or on kernels without it a
 * component-by-component walk with the same rules; never a plain openat. */
int root_openat(const struct root *r, const char *rel, int flags, int mode);
int root_readlink(const struct root *r, const char *rel, char *buf, size_t size);
bool root_exists(const struct root *r, const char *rel);
int root_access(const struct root *r, const char *rel); /* 1, 0 (absent) or -errno */
int root_missing(const struct root *r, const char *rel, char *miss, size_t size);
int root_match(const struct root *r, const char *dir, const char *pattern,
	       void (*fn)(const char *rel, void *data), void *data); /* count, or -errno */
int root_list(const struct root *r, const char *dir, const char *pattern,
	      void (*fn)(const char *rel, void *data), void *data); /* root_match; absent: -ENOENT */
int root_mkdir_p(const struct root *r, const char *rel, int mode);
int root_parent(const struct root *r, const char *rel, char *last, size_t size);
int root_unlink(const struct root *r, const char *rel, int flags);
int root_rename(const struct root *r, const char *from, const char *to);
extern bool root_no_openat2; /* tests: use the resolver of kernels without openat2 */

/* ---- fileio.c: reading and writing through the root ---- */
int pathf(char *buf, size_t size, const char *fmt, ...) _printf_(3, 4); /* 0 or -ENAMETOOLONG */
int root_read(const struct root *r, const char *rel, char *buf, size_t size); /* length, trimmed */
int root_read_u64(const struct root *r, const char *rel, unsigned long long *v);
int root_read_file(const struct root *r, const char *rel, char **out, size_t max);
int root_write(const struct root *r, const char *rel, const char *value); /* one write() */
int root_write_readback(const struct root *r, const char *rel, const char *value, char *buf, size_t size,
			int *got);
int root_write_atomic(const struct root *r, const char *rel, const char *data, size_t len, int mode);
int file_replace_at(int dfd, const char *last, const char *data, size_t len, int mode, bool durable);
int root_write_new(const struct root *r, const char *rel, const char *data, size_t len, int mode);
int root_open_append(const struct root *r, const char *rel); /* fd (O_RDWR | O_APPEND) or -errno */
void root_sweep_temps(const struct root *r, const char *dir, const char *name1, const char *name2);
int write_full(int fd, const void *data, size_t len);

/* ---- kparam.c: the kernel command line, split the way the kernel splits it ---- */
bool kparam_space(char c); /* the kernel's isspace(): with 0xA0 */
int kparam_get(const char *cmdline, const char *key, char *val, size_t size);
bool kparam_has(const char *cmdline, const char *key);
int kparam_each(const char *cmdline, int (*fn)(const char *key, const char *val, void *data), void *data);
bool kparam_key_eq(const char *a, const char *b);
bool kparam_has_param(const char *cmdline, const char *param);

bool kparam_disabled(const char *cmdline);

/* ---- selector files: "always [madvise] never" ---- */
int selector_active(const char *content, char *out, size_t size);
bool selector_offers(const char *content, const char *word);

/* ---- config.c ---- */
struct cfg_entry {
	char *section;
	char *name;   /* [section "name"], or NULL */
	char *key;
	char *value;  /* "" unsets an earlier assignment */
	char *reason; /* the comment lines right above the key, or NULL */
	const char *file;
	int line;
};

struct config {
	struct cfg_entry *v;
	size_t n, cap;
	char **files; /* owned source names the entries point at */
	size_t nfiles;
	char *profile;
	int errors;  /* lines rejected, files skipped */
	int skipped; /* files (or drop-in directories) that could not be read */
};

/* A section of the configuration: its name, whether it also comes as
 * [name "NAME"], and the check of its keys, owned by the domain that reads
 * them (0, or -EINVAL with why set). The reader knows [main]; domains.c
 * registers the others. */
struct cfg_section {
	const char *name;
	bool named;
	int (*check_key)(const char *key, const char *value, char *why, size_t size);
	/* Checks across keys and files, once all are read (config_check); it
	 * drops what it rejects with config_reject. NULL: none. */
	void (*check_conf)(struct config *c);
};
void config_register(const struct cfg_section *const *v, size_t n);
/* config_lex.c: for the checks' messages. did_you_mean returns "; did you
 * mean 'X'? " when a word of list is near word, else "; ". */
bool cfg_closest(const char *word, const char *list, char *best, size_t size);
/* Its result is the text: buf is left unset when no word is near. */
const char *did_you_mean(const char *word, const char *list, char *buf, size_t size)
	__attribute__((warn_unused_result));
int cfg_glob_check(const char *what, const char *glob, char *why, size_t size);

int conf_files(const struct root *r, const char *const *dirs, size_t ndirs, char ***out, size_t *n);
int conf_files_match(const struct root *r, const char *const *dirs, size_t ndirs, const char *pattern, char ***out,
		     size_t *n);
bool conf_masked(const struct root *r, const char *rel);
int config_load(struct config *c, const struct root *r, const char *file,
		const char *profile_override);
int config_parse_text(struct config *c, const char *text, const char *source);
void config_check(struct config *c);
_printf_(3, 4) void config_reject(struct config *c, size_t i, const char *fmt, ...);
int config_use_profile(struct config *c, const char *name);
void config_free(struct config *c);
const struct cfg_entry *config_get(const struct config *c, const char *section,
				   const char *name, const char *key);
void config_print(const struct config *c, FILE *out);
char *config_source(const struct cfg_entry *e);
const char *profile_text(const char *name);
const char *profile_names(void);

/* ---- the kernel we are looking at ---- */
struct kernel {
	char release[128];
	unsigned version; /* KV(major, minor) */
	char *cmdline;
	bool hv_probed;   /* kernel_hypervisor asked once: hypervisor holds the answer */
	int hypervisor;   /* once probed: 0 no, 1 yes, else -errno of the read that failed */
	char hv_why[192];
	bool modules;     /* CONFIG_MODULES: /proc/modules exists */
	char no_modules[PATH_MAX + 64]; /* !modules: the evidence, said as such; */
	bool modules_unknown; /* it is missing from the tree: no fact either way */
	bool other;       /* --kernel named another release than the running one */
	const char *unreadable; /* kernel_probe: the file whose read failed (not ENOENT) */
	/* Where the release came from: "proc" (the tree's /proc), "option"
	 * (--kernel), "image" (the only kernel installed), NULL: unknown. */
	const char *from;
};
#define KV(a, b) ((unsigned)(a) << 8 | (unsigned)(b))
int kernel_probe(struct kernel *k, const struct root *r);
void kernel_target(struct kernel *k, const struct root *r, const char *release);
int kernel_hypervisor(struct kernel *k, const struct root *r);
void kernel_free(struct kernel *k);

/* ---- platform.c: the cloud the [cmdline] rules' match.platform is about ---- */
#define PLATFORM_NAMES "aws gce azure generic"
struct platform {
	bool resolved, said;
	int err;          /* a DMI read failed: from names its file */
	const char *name; /* one of PLATFORM_NAMES, or NULL: unknown */
	const char *how;  /* "given", "guessed" or "unknown" */
	char from[320];   /* --platform, the [main] line, the DMI strings, or why none */
};
int platform_check(const char *what, const char *value, char *why, size_t size);
int platform_resolve(struct platform *p, const struct root *r, const char *option, const char *conf,
		     const char *conf_from);
void platform_say(const struct platform *p);
void json_platform(struct strbuf *sb, const struct platform *p);

/* ---- image.c: the kernels installed in a tree ---- */
struct kernels {
	char **v;
	size_t n;
	int err;
};
int image_kernels(const struct root *r, struct kernels *ks); /* count, or -errno */
void kernels_list(const struct kernels *ks, char *buf, size_t size);
void kernels_free(struct kernels *ks);
int kernel_image(struct kernel *k, const struct root *r, char *buf, size_t size, const char **where);

/* ---- kmod.c: libkmod behind a seam so tests can fake the kernel ---- */
enum mod_state { MOD_ABSENT, MOD_LIVE, MOD_BUILTIN, MOD_COMING };
struct mod_info {
	char path[PATH_MAX];
	bool blacklisted;  /* a modprobe.d blacklist names it */
	bool install_cmd;  /* a modprobe.d install command exists: never run */
};
struct mod_ops {
	int (*state)(void *data, const char *name);                       /* enum mod_state or -errno */
	int (*lookup)(void *data, const char *name, struct mod_info *info); /* 0, -ENOENT */
	int (*insert)(void *data, const char *name, const char *options);  /* 0 or -errno */
	void *data;
};
struct mods;
int mods_new(struct mods **out, const struct root *r, const struct kernel *k);
void mods_free(struct mods *m);
void mods_set_ops(struct mods *m, const struct mod_ops *ops);
/* 1: in the kernel now; 2: can be loaded; 0: neither (why says so);
 * 3: unknown (no module support, no modules.builtin to tell): try it. */
int mods_available(struct mods *m, const char *name, char *why, size_t size);
int mods_state(struct mods *m, const char *name);
int mods_lookup(struct mods *m, const char *name, struct mod_info *info);
int mods_load(struct mods *m, const char *name, const char *options);

/* ---- item.c: plan items ---- */
enum action { ACT_CHANGE, ACT_KEEP, ACT_SKIP, ACT_ERROR };
/* How an item is written: an attribute file, a module insert, a qdisc, a
 * line of a systemd drop-in, a debugfs file (written with debugfs mounted). */
enum item_kind { ITEM_FILE, ITEM_MODULE, ITEM_QDISC, ITEM_DROPIN, ITEM_DEBUGFS };
enum result { RES_NONE, RES_APPLIED, RES_FAILED };

/* Another configuration writing an item's value (writers.c). */
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
	char *target;
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
	enum item_kind kind;
	char *options;       /* ITEM_MODULE: module parameters */
	int ifindex;         /* ITEM_QDISC: the interface, */
	unsigned ntx;        /* its TX queues, */
	unsigned qhandle;    /* and the handle of an mq root we may reuse */
	struct writer *writers; /* plan, verify: the other writers of its value */
	size_t nwriters;
};

struct plan {
	struct item *v;
	size_t n, cap;
	bool writers; /* the items' writers were looked for (plan, verify) */
};

struct ctx {
	struct root root;
	struct config cfg;
	struct kernel kernel;
	struct mods *mods;
	unsigned only;       /* domain bits */
	char **devices;
	size_t ndevices;
	struct records *records; /* apply: the originals it holds locked, or NULL */
	int ifindex;         /* --ifindex, or 0 */
	const char *iface;   /* --iface, or NULL */
	unsigned long long diskseq; /* forget --diskseq: only records of that disk, or 0 */
	bool boot, json, verbose;
	int columns;         /* the table's width; 0: --wide, full lines */
	const char *prometheus; /* verify --prometheus FILE: absolute, inside the root */
	long long t0_ns; /* start, for the --boot summary */
	const char *platform_opt; /* --platform, or NULL */
	struct platform platform; /* resolved by the first [cmdline] rule that asks */
	bool image;          /* verify --image: check the tree as an image */
};

/* A domain's bit in ctx.only (its row in domains.c names it). */
enum { DOM_BLOCK = 1u << 0, DOM_THP = 1u << 1, DOM_MODULES = 1u << 2, DOM_NET = 1u << 3, DOM_INITRAMFS = 1u << 4,
       DOM_LIMITS = 1u << 5, DOM_SCHED = 1u << 6 };
/* The file name of the limits domain's drop-ins: the records (state.c)
 * accept a path under run/systemd/ only when it ends in it. */
#define LIMITS_DROPIN "50-earlytune-limits.conf"

/* ---- output.c: every command's JSON object starts with json_head and
 * goes out through json_emit (main prints an error object otherwise) ---- */
void json_head(struct strbuf *sb, const struct ctx *c, const char *command);
void json_field(struct strbuf *sb, const char *name, const char *value);
void json_words(struct strbuf *sb, const char *name, const char *list); /* jsoncmd.c */
void json_emit(struct strbuf *sb);
bool json_emitted(void);

struct item *plan_add(struct plan *p, const char *domain, const char *target,
		      const char *setting, const char *path);
void item_set(char **field, const char *value);
void item_setf(char **field, const char *fmt, ...) _printf_(2, 3);
void item_add_reason(struct item *it, const char *fmt, ...) _printf_(2, 3);
void item_fail(struct item *it, int err, const char *fmt, ...) _printf_(3, 4);
void item_from_entry(struct item *it, const struct cfg_entry *e);
void plan_free(struct plan *p);
int item_compare_value(const struct item *it, const char *current);

/* ---- state.c: originals recorded before the first change ---- */
struct record {
	char *domain, *target, *setting, *path, *value;
	char *identity; /* "diskseq:N", "dev:HASH", "ifindex:N"; "" unchecked (global, old line) */
	size_t file;    /* its file in records.files */
};
struct idcache {
	char target[NAME_MAX + 1], id[64];
	int r;
	bool valid;
};
/* A file of records (state.c): originals, disks/NAME or links/IFINDEX. */
#define STATE_REL_MAX 288
struct state_file {
	char rel[STATE_REL_MAX];
	bool dirty; /* its records changed: state_commit rewrites it */
	bool gave;  /* it had records of another file: written after that one */
};
struct records {
	struct record *v;
	size_t n, cap;
	size_t *slots, nslots; /* open-addressing index by path */
	struct state_file *files; /* the files read (or to be written) */
	size_t nfiles, files_cap;
	size_t *fslots, nfslots; /* their index by rel */
	int lock_fd;
	bool dirty;   /* changed since the load: state_commit saves */
	bool partial; /* a scoped load: only the files of its devices were read */
	bool misplaced; /* a scoped load met a record of a file it did not read */
	const struct root *root; /* where a partial load reads the others */
	struct idcache idcache;  /* the last disk's identity */
};
int state_lock(struct records *rs, const struct root *r); /* -ETIMEDOUT: a stuck peer */
extern unsigned state_lock_stall_ms, state_lock_wait_ms; /* its bounds; the unit tests shorten them */
int state_load(struct records *rs, const struct root *r);
/* Only the records c's --device or --ifindex can need; the rest on demand. */
int state_load_scoped(struct records *rs, const struct root *r, const struct ctx *c);
int state_parse(struct records *rs, char *buf);
int state_save(struct records *rs, const struct root *r);
int state_commit(struct records *rs, const struct root *r);
const struct record *state_find(struct records *rs, const char *path);
int state_add(struct records *rs, const struct item *it, const char *original, const char *identity);
int state_identity(const struct root *r, const char *domain, const char *setting, const char *path,
		   char *out, size_t size);
int state_identity_cached(struct records *rs, const struct root *r, const char *domain,
			  const char *target, const char *setting, const char *path, char *out,
			  size_t size);
int state_stale(struct records *rs, const struct root *r, const struct record *x, char *why, size_t size);
int record_ifindex(const char *setting, const char *path);
void state_forget(struct records *rs, const bool *drop);
void state_free(struct records *rs);

/* ---- sysctl.c: what systemd-sysctl will do after us ---- */
#define SYSCTL_GUARD "60-earlytune.conf"
#define SYSCTL_GUARD_PATH "run/sysctl.d/" SYSCTL_GUARD
struct sysctl_visit {
	void (*fn)(const char *rel, int line, const char *key, const char *value, void *data);
	void (*error)(const char *rel, int err, void *data); /* NULL: not said */
	void *data;
};
int sysctl_each(const struct root *r, const struct sysctl_visit *v);
int sysctl_final(const struct root *r, const char *key, char *value, size_t vsize, char *file,
		 size_t fsize);
int sysctl_guard(const struct config *cfg, FILE *out);
int sysctl_write_guard(const struct root *r, const struct config *cfg); /* cfg NULL: empty */
int sysctl_remove_guard(const struct root *r);
bool sysctl_guard_scope(const struct ctx *c);
/* sched.c: the [sched] keys that are sysctls (≤5.12), for the guard */
void sched_sysctls(const struct config *cfg, void (*fn)(const char *key, const struct cfg_entry *e, void *data),
		   void *data);
void sysctl_warn_override(const struct root *r, struct item *it, const char *key, const char *want);

/* ---- probe.c: libblkid tags of a disk and its partitions ---- */
int probe_disk_tags(const struct root *r, const char *sysdir, const char *disk, char ***tags, size_t *n);

/* ---- the engine's commands: plan.c, apply.c, revert.c ---- */
int cmd_plan(struct ctx *c);
int cmd_apply(struct ctx *c);
int cmd_verify(struct ctx *c);
int cmd_verify_image(struct ctx *c); /* image_verify.c */
int cmd_revert(struct ctx *c);
int cmd_forget(struct ctx *c);
int cmd_modules(struct ctx *c, bool check);

/* ---- cmdline/: kernel command-line suggestions and bootloader integration ---- */
int cmdline_check_key(const char *key, const char *value, char *why, size_t size); /* keys.c */
int cmd_cmdline_suggest(struct ctx *c);
int cmd_cmdline_apply(struct ctx *c, const char *backend, bool update);
int cmd_cmdline_remove(struct ctx *c);
int cmd_cmdline_verify(struct ctx *c);
int cmdline_missing(struct ctx *c, char **missing, char *backend, size_t size);
