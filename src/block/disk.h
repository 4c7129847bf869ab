/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The block domain's own: its settings and classes, a disk being planned
 * and the compiled [block] sections. Only block/ and its unit tests include
 * it. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "block/block.h"
#include "engine/item.h"

/* ---- config.c: the settings, classes and schedulers [block] knows ---- */
struct block_setting {
	const char *key;
	const char *attr;
	int rank; /* 0 scheduler, 1 nr_requests, 2 iosched, 3 other, 4 read-ahead last */
	long long min, max;
};

/* The index of each class's name in block_classes. */
enum block_class {
	BC_VIRTUAL,
	BC_NVME,
	BC_SSD,
	BC_HDD,
	BC_STACKED,
	BC_LOOP,
	BC_ZRAM,
	BC_REMOVABLE,
	BC_RAID,
	BC_UNKNOWN,
	BC_OTHER,
};

extern const char *const block_classes[];
extern const char *const block_schedulers[];
extern const struct block_setting block_settings[];
/* Their places the plan asks for by name. */
enum { BS_SCHEDULER = 0, BS_NR_REQUESTS = 1 };

const struct block_setting *block_setting_find(const char *key);
int block_parse_range(const char *value, long long *lo, long long *hi);

/* ---- stack.c ---- */
int block_bottom_disks(const struct root *r, const char *dir, char ***names, size_t *n);
/* The disk of partition NAME, by the link at rel (slaves/NAME or
 * sys/class/block/NAME); in captured trees where that link is a copied
 * directory or absent, by sys/class/block/NAME, then by the disk whose name
 * prefixes NAME and that holds NAME/partition. 0, -ENOENT, or -errno. */
int block_partition_disk(const struct root *r, const char *rel, char *disk, size_t size);
int block_stack_ready(const struct root *r, const char *dir, const char *name, char *why, size_t size);

/* ---- probe.c: libblkid tags of a disk and its partitions ---- */
int probe_disk_tags(const struct root *r, const char *sysdir, const char *disk, char ***tags, size_t *n);

/* An attribute read open for apply's write (attr.c): fd, the bytes read. */
struct held {
	bool held;
	int fd;
	size_t len;
};

static inline const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* A disk being planned. Its scalars come first and its texts after them:
 * disk_init zeroes the first part and empties each text, never the 10 KB
 * of buffers, which zeroed cost a disk more than all its planning. A field
 * added among the texts must be set by disk_init. */
struct disk {
	const char *name;
	const char *dir; /* sys/block/NAME, or where a captured tree without sys/block keeps it */
	size_t dirlen;
	const struct rdir *block; /* sys/block, where its link is read */
	enum block_class cls;
	bool path_read;
	char **tags; /* "fstype=ext4", "uuid=…" from libblkid, read on demand */
	size_t ntags;
	bool probed;
	bool bio; /* no I/O scheduler: blk-mq attributes do not apply to it */
	char **slaves; /* stacked: the whole disks at the bottom, sorted */
	enum block_class *scls; /* their classes */
	size_t nslaves;
	int sched_r;     /* queue/scheduler's read: -ENOENT none, another -errno unreadable */
	struct held sched_fd; /* the file it was read through, for apply's write */
	int rot_r;       /* queue/rotational's read, once rot_read */
	bool rot_read;
	int hwq;           /* hardware queues (mq/ entries), -1 unknown, once hwq_read */
	bool hwq_read;
	size_t headlen;
	/* ---- texts: disk_init makes each empty ---- */
	char why[256];
	char head[288]; /* "CLASS disk (WHY)", every item's reason's start, once classified */
	char driver[64];
	char err[320]; /* a read that failed (not ENOENT) while classifying or matching */
	char notready[96]; /* stacked: why it is not ready yet, "" when it is */
	char sched[256]; /* queue/scheduler as read once by block_plan_disk */
	char sched_active[64]; /* its active choice, "" when it marks none */
	char rot[16];    /* queue/rotational, read once on demand */
	char mpath_head[32]; /* a hidden NVMe multipath path node: its head ("nvme1n1") */
	/* Last, the large ones: the part a run writes stays on a page or two of
	 * stack, path (read for NVMe and SCSI disks only) above it untouched. */
	struct rdir at;  /* dir, held open while the disk is classified and planned */
	char path[PATH_MAX]; /* the device path: where sys/block/NAME points, dir itself when found under
			      * sys/devices, "" unknown; read by disk_link (NVMe and SCSI disks when
			      * classified) */
};

/* d as a disk of dir (NULL: none) named by its last component, its link
 * read in block: nothing read or held yet. */
static inline void disk_init(struct disk *d, const char *dir, const struct rdir *block)
{
	memset(d, 0, offsetof(struct disk, why));
	d->dir = dir;
	d->dirlen = dir ? strlen(dir) : 0;
	d->name = dir ? base_of(dir) : NULL;
	d->block = block;
	*d->why = *d->head = *d->driver = *d->err = *d->notready = '\0';
	*d->sched = *d->sched_active = *d->rot = *d->mpath_head = *d->path = '\0';
	d->at.root = NULL; /* at's path too is set by rdir_open or rdir_unheld */
	d->at.fd = -1;
	d->at.held = false;
	*d->at.path = '\0';
}

/* The scheduler a disk has after the plan: the one iosched.KEY tunes. */
struct sched_after {
	char name[64];  /* "" when no section sets a scheduler */
	bool switching; /* the plan selects it */
	bool missing;   /* the configured one will not be active (unmet, error) */
};

/* The [block] sections compiled once per run: for every section and every
 * distinct key, the effective assignment. A disk then costs no config scans. */
struct bconf {
	const char **sections; /* [0] is the unnamed [block] */
	size_t ns;
	const char **keys;
	size_t nk;
	const struct cfg_entry **eff; /* eff[i * nk + k] */
	bool *matched;                /* matched[i]: a disk of this run matched section i */
	size_t *mk, nmk;              /* the keys that are match.KEY, in order */
	size_t *iok, niok;            /* those that are iosched.KEY, in order */
	size_t *smk;                  /* smk[i * (nmk + 1)…]: section i's, ended by nk */
	size_t class_k;               /* match.class's, nk when none */
	signed char *by_class;        /* by_class[i * classes + c]: section i's match.class and
				       * class c: 1 matches, -1 not, 0 not asked yet (the
				       * answer is the class's alone) */
	size_t *setk;                 /* setk[j]: the key of block_settings[j] */
};

static inline const char *cls_name(const struct disk *d)
{
	return block_classes[d->cls];
}

/* The path of attr below d into buf: pathf's "%s/%s" of d->dir and attr,
 * by two copies of known lengths. */
static inline int disk_path(const struct disk *d, const char *attr, char *buf, size_t size)
{
	size_t la = strlen(attr);

	if (d->dirlen + la + 2 > size)
		return pathf(buf, size, "%s/%s", d->dir, attr);
	memcpy(buf, d->dir, d->dirlen);
	buf[d->dirlen] = '/';
	memcpy(buf + d->dirlen + 1, attr, la + 1);
	return 0;
}

/* A loop, not strncmp: a disk's name is asked a dozen prefixes, most of
 * them told apart at the first character. Always inlined: gcc -Os calls
 * it otherwise, and the call costs more than the compare. */
__attribute__((always_inline)) static inline bool prefix(const char *s, const char *p)
{
	while (*p)
		if (*s++ != *p++)
			return false;
	return true;
}

static inline const char *dash_or(const char *s)
{
	return s && *s ? s : "-";
}

static inline void item_skip(struct item *it, const char *why)
{
	it->action = ACT_SKIP;
	item_set(&it->reason, why);
}

static inline void item_error(struct item *it, int err, const char *what)
{
	it->action = ACT_ERROR;
	item_setf(&it->error, "cannot read %s: %s", what, strerror(-err));
}

/* ---- class.c ---- */
void disk_fail(struct disk *d, int err, const char *what);
/* attr.c: an identity attribute ("" when absent, a failed read recorded),
 * the device path's component that starts with p. */
void read_attr(struct ctx *c, struct disk *d, const char *attr, char *out, size_t size);
const char *path_part(const struct disk *d, const char *p, char *out, size_t size);
void block_classify_scsi(struct ctx *c, struct disk *d);
int disk_rotational(struct ctx *c, struct disk *d, char *rel, size_t size);
int disk_hw_queues(struct ctx *c, struct disk *d);
const char *disk_link(struct disk *d);
int disk_read_held(struct ctx *c, struct disk *d, const char *attr, char *buf, size_t size, struct held *h);
void held_give(struct held *h, struct item *it);
void block_classify(struct ctx *c, struct disk *d);
void disk_free(struct disk *d);

/* ---- identity.c: the identity of a disk the plan changes, read with it ---- */
void block_identity_reset(void);
void block_identity_note(struct disk *d);

/* ---- match.c ---- */
struct bconf *bconf_new(const struct config *cfg);
void bconf_free(struct bconf *bc);
/* The index in bc->keys of a setting of block_settings (found by
 * bconf_new), bc->nk when no section sets it. */
static inline size_t bconf_setting_key(const struct bconf *bc, const struct block_setting *s)
{
	return bc->setk[s - block_settings];
}
size_t bconf_judge(struct ctx *c, struct disk *d, const struct bconf *bc, const struct cfg_entry **miss, size_t *hit);
const struct cfg_entry *bconf_lookup(const struct bconf *bc, const size_t *hit, size_t nhit, size_t k);
void bconf_why_none(const struct bconf *bc, const struct cfg_entry *const *miss, struct strbuf *sb);
bool bconf_in_use(const struct ctx *c, const struct bconf *bc);
void bconf_unmatched(const struct bconf *bc, struct plan *p);

/* ---- sched.c ---- */
void disk_read_scheduler(struct ctx *c, struct disk *d);
void disk_active_scheduler(const struct disk *d, struct sched_after *sa);
bool block_sched_item(struct ctx *c, struct item *it, const struct disk *d, const struct cfg_entry *e);
bool block_plan_iosched(struct item *it, const struct disk *d, const struct sched_after *sa);

/* ---- order.c ---- */
int block_name_cmp(const char *a, const char *b); /* strverscmp's order */
void block_sort_dirs(char **v, size_t n, bool listed);

/* ---- plan.c ---- */
struct item *block_item(struct plan *p, const struct disk *d, const char *attr, int rank, const struct cfg_entry *e);
void block_plan_disk(struct ctx *c, struct plan *p, struct disk *d, const struct bconf *bc);
