/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

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

const struct block_setting *block_setting_find(const char *key);
int block_parse_range(const char *value, long long *lo, long long *hi);

struct root;
int block_bottom_disks(const struct root *r, const char *dir, char ***names, size_t *n);
/* The disk of partition NAME, by the link at rel (slaves/NAME or
 * sys/class/block/NAME); in captured trees where that link is a copied
 * directory or absent, by sys/class/block/NAME, then by the disk whose name
 * prefixes NAME and that holds NAME/partition. 0, -ENOENT, or -errno. */
int block_partition_disk(const struct root *r, const char *rel, char *disk, size_t size);
int block_stack_ready(const struct root *r, const char *dir, const char *name, char *why, size_t size);

/* The module that provides a blk-mq scheduler, or NULL (none is built in). */
const char *block_sched_module(const char *sched);
