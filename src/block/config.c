// SPDX-License-Identifier: LGPL-2.1-or-later
/* Validation of [block] keys: what the kernel accepts, said before anything
 * is written, with the allowed values in the message. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "block/disk.h"

const char *const block_classes[] = { "virtual", "nvme", "ssd", "hdd", "stacked",
				      "loop", "zram", "removable", "raid", "unknown", "other", NULL };
_Static_assert(ARRAY_SIZE(block_classes) == BC_OTHER + 2, "enum block_class indexes block_classes");
const char *const block_schedulers[] = { "none", "mq-deadline", "kyber", "bfq", "noop", "deadline", "cfq", NULL };
static const char *const match_keys[] = { "class", "name", "driver", "vendor", "model",
					  "serial", "fstype", "uuid", "label", "partuuid", "slave_class", "hw_queues", NULL };

/* The scheduler and nr_requests first: the plan asks for them by place
 * (BS_SCHEDULER, BS_NR_REQUESTS; test_block checks). */
const struct block_setting block_settings[] = {
	{ "scheduler", "queue/scheduler", 0, 0, 0 },
	{ "nr_requests", "queue/nr_requests", 1, 4, 2048 },
	{ "rq_affinity", "queue/rq_affinity", 3, 0, 2 },
	{ "add_random", "queue/add_random", 3, 0, 1 },
	{ "wbt_lat_usec", "queue/wbt_lat_usec", 3, -1, 1000000000000LL },
	{ "io_timeout", "queue/io_timeout", 3, 1, 4294967295LL },
	{ "read_ahead_kb", "queue/read_ahead_kb", 4, 0, 4294967295LL },
	{ NULL, NULL, 0, 0, 0 },
};

static bool in_list(const char *const *list, const char *w)
{
	for (; *list; list++)
		if (!strcmp(*list, w))
			return true;
	return false;
}

/* blk-mq's, then the legacy block layer's (before 5.0): a configuration for
 * such a kernel names what it offers. */
static int check_scheduler(const char *value, char *why, size_t size)
{
	char w[WORD_MAX];

	while (next_word(&value, w, sizeof(w)))
		if (!in_list(block_schedulers, w)) {
			char buf[96], names[128];

			snprintf(why, size, "unknown scheduler '%s'%sallowed: %s", w,
				 did_you_mean(w, CFG_NAMES(block_schedulers, "", names), buf, sizeof(buf)), names);
			return -EINVAL;
		}
	return 0;
}

int block_parse_range(const char *value, long long *lo, long long *hi)
{
	const char *dots = strstr(value, "..");
	char a[32];
	int r;

	if (!dots)
		return -ENOENT;
	if ((size_t)(dots - value) >= sizeof(a))
		return -EINVAL;
	memcpy(a, value, (size_t)(dots - value));
	a[dots - value] = '\0';
	r = parse_s64(a, lo);
	if (r == 0)
		r = parse_s64(dots + 2, hi);
	return r < 0 ? -EINVAL : 0;
}

/* "128K", "1 MiB": a number with a unit, which the kernel's files never
 * take; the number the key wants instead (read_ahead_kb counts KiB). */
static bool unit_hint(const struct block_setting *s, const char *value, char *why, size_t size)
{
	static const struct {
		const char *unit;
		long long kib;
	} units[] = { { "k", 1 }, { "kb", 1 }, { "kib", 1 }, { "m", 1024 }, { "mb", 1024 }, { "mib", 1024 },
		      { "g", 1048576 }, { "gb", 1048576 }, { "gib", 1048576 } };
	char *end;
	long long v = strtoll(value, &end, 10);
	bool kib = !strcmp(s->key, "read_ahead_kb");

	if (end == value || v < 0)
		return false;
	while (*end == ' ')
		end++;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcasecmp(end, units[i].unit)) {
			if (kib)
				snprintf(why, size, "%s = '%s': a number of KiB, without a unit: write %lld", s->key, value,
					 v * units[i].kib);
			else
				snprintf(why, size, "%s = '%s': a whole number, without a unit", s->key, value);
			return true;
		}
	return false;
}

static int check_number(const struct block_setting *s, const char *value, char *why, size_t size)
{
	long long v, lo, hi;

	if (unit_hint(s, value, why, size))
		return -EINVAL;

	if (!strcmp(s->key, "read_ahead_kb") && block_parse_range(value, &lo, &hi) != -ENOENT) {
		if (block_parse_range(value, &lo, &hi) < 0 || lo < s->min || hi > s->max || lo > hi) {
			snprintf(why, size, "read_ahead_kb range '%s' must be A..B with %lld ≤ A ≤ B ≤ %lld%s",
				 value, s->min, s->max,
				 strpbrk(value, "KkMmGgBi") ? ", numbers of KiB without a unit" : "");
			return -EINVAL;
		}
		return 0;
	}
	if (parse_s64(value, &v) < 0 || v < s->min || v > s->max) {
		snprintf(why, size, "%s = '%s' is out of the kernel's range: a whole number from %lld to %lld%s",
			 s->key, value, s->min, s->max,
			 !strcmp(s->key, "read_ahead_kb") ? ", or a range A..B" : "");
		return -EINVAL;
	}
	return 0;
}

static const char *class_list(void)
{
	static char list[128];

	if (!*list)
		for (const char *const *c = block_classes; *c; c++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", *list ? " " : "", *c);
	return list;
}

static int check_match(const char *what, const char *value, char *why, size_t size)
{
	char w[WORD_MAX], name[32];
	const char *p = value;
	size_t len;

	if (!in_list(match_keys, what)) {
		char buf[96], names[256], allowed[320];

		snprintf(why, size, "unknown match key 'match.%s'%sallowed: %s", what,
			 did_you_mean(what, CFG_NAMES(match_keys, "", names), buf, sizeof(buf)),
			 CFG_NAMES(match_keys, "match.", allowed));
		return -EINVAL;
	}
	while ((len = next_word(&p, w, sizeof(w)))) {
		bool ok = strcmp(what, "class") && strcmp(what, "slave_class");

		if (len >= sizeof(w)) {
			snprintf(why, size, "match.%s pattern longer than %d bytes", what, WORD_MAX - 1);
			return -EINVAL;
		}
		snprintf(name, sizeof(name), "match.%s", what);
		if (cfg_glob_check(name, w, why, size) < 0)
			return -EINVAL;
		for (const char *const *c = block_classes; *c && !ok; c++)
			ok = fnmatch(w, *c, 0) == 0;
		if (!ok) {
			char buf[96];

			snprintf(why, size, "match.%s '%s' matches no class%sclasses: %s", what, w,
				 did_you_mean(w, class_list(), buf, sizeof(buf)), class_list());
			return -EINVAL;
		}
	}
	return 0;
}

static int check_iosched(const char *tunable, const char *value, char *why, size_t size)
{
	long long v;

	for (const char *p = tunable; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_')) {
			snprintf(why, size, "iosched tunable name '%s' must be lower-case letters, digits and '_'",
				 tunable);
			return -EINVAL;
		}
	if (!*tunable || parse_s64(value, &v) < 0) {
		snprintf(why, size, "iosched.%s = '%s': expected a whole number", tunable, value);
		return -EINVAL;
	}
	return 0;
}

const struct block_setting *block_setting_find(const char *key)
{
	for (const struct block_setting *s = block_settings; s->key; s++)
		if (!strcmp(s->key, key))
			return s;
	return NULL;
}

int block_check_key(const char *key, const char *value, char *why, size_t size)
{
	const struct block_setting *s;

	if (!strncmp(key, "match.", 6))
		return check_match(key + 6, value, why, size);
	if (!strncmp(key, "iosched.", 8))
		return *value ? check_iosched(key + 8, value, why, size) : 0;
	s = block_setting_find(key);
	if (!s) {
		char buf[96], names[256];

		snprintf(why, size, "unknown key '%s' in [block]%sallowed: %s iosched.NAME match.*", key,
			 did_you_mean(key, CFG_NAMES(block_settings, "", names), buf, sizeof(buf)), names);
		return -EINVAL;
	}
	if (!*value)
		return 0;
	if (!strcmp(key, "scheduler"))
		return check_scheduler(value, why, size);
	return check_number(s, value, why, size);
}

int block_rank(const char *setting)
{
	if (!strncmp(setting, "queue/iosched/", 14))
		return 2;
	for (const struct block_setting *s = block_settings; s->key; s++)
		if (!strcmp(s->attr, setting))
			return s->rank;
	return 3;
}

/* Revert: an iosched/ tunable left with the scheduler that had it. */
const char *block_gone(const char *setting)
{
	return !strncmp(setting, "queue/iosched/", 14) ? "tunable went away with the scheduler that had it"
						       : NULL;
}

/* The [block] key of a queue attribute of any disk (path may be a glob of
 * one): below sys/block, sys/class/block or a device's block/ directory,
 * and the read-ahead of its bdi. */
bool block_claims(const char *path, char *key, size_t size)
{
	char pat[96];

	for (const struct block_setting *s = block_settings; s->key; s++) {
		snprintf(pat, sizeof(pat), "sys/*block/*/%s", s->attr);
		if (!fnmatch(pat, path, 0)) {
			snprintf(key, size, "[block] %s", s->key);
			return true;
		}
	}
	if (fnmatch("sys/*bdi/*/read_ahead_kb", path, 0))
		return false;
	snprintf(key, size, "[block] read_ahead_kb");
	return true;
}
