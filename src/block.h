/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

struct block_setting {
	const char *key;
	const char *attr;
	int rank; /* 0 scheduler, 1 nr_requests, 2 iosched, 3 other, 4 read-ahead last */
	long long min, max;
};

extern const char *const block_classes[];
extern const char *const block_schedulers[];
extern const struct block_setting block_settings[];

const struct block_setting *block_setting_find(const char *key);
int block_parse_range(const char *value, long long *lo, long long *hi);

struct root;
int block_bottom_disks(const struct root *r, const char *dir, char ***names, size_t *n);
int block_stack_ready(const struct root *r, const char *dir, const char *name, char *why, size_t size);
