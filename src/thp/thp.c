// SPDX-License-Identifier: LGPL-2.1-or-later
/* Transparent huge pages: /sys/kernel/mm/transparent_hugepage and its
 * khugepaged/ and per-size hugepages-<N>kB/ directories. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/kparam.h"
#include "engine/item.h"
#include "thp/thp.h"

#define THP_DIR "sys/kernel/mm/transparent_hugepage"

static const struct {
	const char *key;
	const char *allowed; /* selector words, or NULL for a number */
	long long min, max;
} thp_keys[] = {
	{ "enabled", "always madvise never", 0, 0 },
	{ "defrag", "always defer defer+madvise madvise never", 0, 0 },
	{ "shmem_enabled", "always within_size advise never deny force", 0, 0 },
	{ "use_zero_page", NULL, 0, 1 },
	{ "khugepaged.defrag", NULL, 0, 1 },
	{ "khugepaged.pages_to_scan", NULL, 1, 4294967295LL },
	{ "khugepaged.scan_sleep_millisecs", NULL, 0, 4294967295LL },
	{ "khugepaged.alloc_sleep_millisecs", NULL, 0, 4294967295LL },
	{ "khugepaged.max_ptes_none", NULL, 0, 511 },
	{ "khugepaged.max_ptes_swap", NULL, 0, 511 },
	{ "khugepaged.max_ptes_shared", NULL, 0, 511 },
};

static const char size_allowed[] = "always inherit madvise never";

/* "size.64kB.enabled" → 64, or -EINVAL; sizes are powers of two from 8 kB. */
static int parse_size_key(const char *key, unsigned long long *kb)
{
	char num[24];
	const char *p = key + 5, *end = strstr(p, "kB.enabled");

	if (strncmp(key, "size.", 5) || !end || strcmp(end, "kB.enabled") ||
	    (size_t)(end - p) >= sizeof(num) || end == p)
		return -EINVAL;
	memcpy(num, p, (size_t)(end - p));
	num[end - p] = '\0';
	if (parse_u64(num, kb) < 0 || *kb < 8 || (*kb & (*kb - 1)))
		return -EINVAL;
	return 0;
}

static int check_value(const char *key, const char *allowed, long long min, long long max,
		       const char *value, char *why, size_t size)
{
	long long v;

	if (allowed) {
		if (word_listed(allowed, value))
			return 0;
		char buf[96];

		snprintf(why, size, "[thp] %s = '%s' is not allowed%sallowed: %s", key, value,
			 did_you_mean(value, allowed, buf, sizeof(buf)), allowed);
		return -EINVAL;
	}
	if (parse_s64(value, &v) < 0 || v < min || v > max) {
		snprintf(why, size, "[thp] %s = '%s' is out of the kernel's range: a whole number from %lld to %lld",
			 key, value, min, max);
		return -EINVAL;
	}
	return 0;
}

static void unknown_key(const char *key, char *why, size_t size)
{
	char keys[512] = "override_cmdline", buf[96];

	for (size_t i = 0; i < ARRAY_SIZE(thp_keys); i++)
		snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys), " %s", thp_keys[i].key);
	snprintf(why, size, "unknown key '%s' in [thp]%sallowed: enabled defrag shmem_enabled "
			    "use_zero_page khugepaged.KEY size.NkB.enabled override_cmdline",
		 key, did_you_mean(key, keys, buf, sizeof(buf)));
}

int thp_check_key(const char *key, const char *value, char *why, size_t size)
{
	unsigned long long kb;

	if (!strcmp(key, "override_cmdline")) {
		if (!*value || !strcmp(value, "yes") || !strcmp(value, "no"))
			return 0;
		char buf[96];

		snprintf(why, size, "[thp] override_cmdline = '%s'%sallowed: yes no", value,
			 did_you_mean(value, "yes no", buf, sizeof(buf)));
		return -EINVAL;
	}
	if (!strncmp(key, "size.", 5)) {
		if (parse_size_key(key, &kb) < 0) {
			snprintf(why, size, "malformed key '%s'; expected size.NkB.enabled with N a power of two ≥ 8", key);
			return -EINVAL;
		}
		return *value ? check_value(key, size_allowed, 0, 0, value, why, size) : 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(thp_keys); i++)
		if (!strcmp(thp_keys[i].key, key))
			return *value ? check_value(key, thp_keys[i].allowed, thp_keys[i].min,
						    thp_keys[i].max, value, why, size) : 0;
	unknown_key(key, why, size);
	return -EINVAL;
}

/* Config key → attribute below THP_DIR. */
/* The attribute of e's key under THP_DIR, and its path: 0, or
 * -ENAMETOOLONG with an error item in p. */
static int key_path(struct plan *p, const struct cfg_entry *e, char *attr, size_t asize, char *path,
		    size_t psize)
{
	unsigned long long kb;
	struct item *it;
	int r;

	if (parse_size_key(e->key, &kb) == 0)
		r = pathf(attr, asize, "hugepages-%llukB/enabled", kb);
	else if (!strncmp(e->key, "khugepaged.", 11))
		r = pathf(attr, asize, "khugepaged/%s", e->key + 11);
	else
		r = pathf(attr, asize, "%s", e->key);
	if (r == 0)
		r = pathf(path, psize, THP_DIR "/%s", attr);
	if (r < 0 && (it = plan_add(p, "thp", "thp", e->key, THP_DIR))) {
		it->action = ACT_ERROR;
		item_setf(&it->error, "%s: %s", e->key, strerror(-r));
	}
	return r;
}

static bool is_selector(const char *key)
{
	return !strcmp(key, "enabled") || !strcmp(key, "defrag") || !strcmp(key, "shmem_enabled") ||
	       !strncmp(key, "size.", 5);
}

/* 0, -ENOENT when the kernel has no THP (sys/kernel/mm without it), -ENODATA
 * when the tree lacks sys/kernel/mm too (`miss` names what: unknown, not
 * "no THP"), or why the directory cannot be looked at (an error of the item). */
static int thp_dir_state(struct ctx *c, char *miss, size_t size)
{
	int fd = root_openat(&c->root, THP_DIR, O_PATH | O_DIRECTORY, 0), r;

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (fd != -ENOENT)
		return fd;
	r = root_missing(&c->root, THP_DIR, miss, size);
	return r < 0 ? r : r ? 0 : strcmp(miss, THP_DIR) ? -ENODATA : -ENOENT;
}

/* A kernel without the knob cannot give what the configuration asks:
 * unmet (verify drift); a tree that does not show it, unknown. The
 * command line's choice is neither (see plan_key). false: the item says
 * which, or why the directory cannot be looked at. */
static bool thp_there(struct ctx *c, struct item *it)
{
	char miss[PATH_MAX];
	int r = thp_dir_state(c, miss, sizeof(miss));

	if (r == -ENODATA) {
		item_unknown(it, "no /%s in this tree: whether the kernel has transparent huge pages is unknown", miss);
	} else if (r == -ENOENT) {
		it->action = ACT_SKIP;
		it->unmet = true;
		item_set(&it->reason, "kernel has no transparent huge pages (no /" THP_DIR ")");
	} else if (r < 0) {
		it->action = ACT_ERROR;
		item_setf(&it->error, "cannot open /" THP_DIR ": %s", strerror(-r));
	}
	return r == 0;
}

static void plan_key(struct ctx *c, struct plan *p, const struct cfg_entry *e)
{
	char attr[96], path[PATH_MAX], raw[256], active[64], v[64];
	const struct cfg_entry *o = config_get(&c->cfg, "thp", NULL, "override_cmdline");
	bool override = o && !strcmp(o->value, "yes");
	struct item *it;
	int r;

	if (key_path(p, e, attr, sizeof(attr), path, sizeof(path)) < 0)
		return;
	it = plan_add(p, "thp", "thp", attr, path);
	if (!it)
		return;
	item_from_entry(it, e);
	item_set(&it->desired, e->value);
	it->selector = is_selector(e->key);
	if (!thp_there(c, it))
		return;
	r = root_read_selector(&c->root, path, raw, sizeof(raw), active, sizeof(active));
	if (r == -ENOENT) {
		it->action = ACT_SKIP;
		it->unmet = true;
		item_setf(&it->reason, "kernel has no %s (multi-size THP needs Linux 6.8+; sizes follow the CPU's page-table levels)", attr);
		return;
	}
	if (r < 0 || (it->selector && !*active)) {
		it->action = ACT_ERROR;
		item_setf(&it->error, "cannot read %s: %s", attr, r < 0 ? strerror(-r) : "no active choice");
		return;
	}
	item_set(&it->current, it->selector ? active : raw);
	if (!strcmp(e->key, "enabled") && !override &&
	    kparam_get(c->kernel.cmdline, "transparent_hugepage", v, sizeof(v))) {
		/* Neutral: the configuration itself yields to the command line
		 * unless override_cmdline = yes, so this boot does not ask for it. */
		it->action = ACT_SKIP;
		item_setf(&it->reason, "set on the kernel command line (transparent_hugepage=%s); [thp] override_cmdline = yes overrides it", v);
		return;
	}
	/* A choice the kernel lacks (defer+madvise before 4.11) is unmet; a file without
	 * brackets (a fake tree after a write) lists none: the read-back decides. */
	if (it->selector && strchr(raw, '[') && !selector_offers(raw, e->value)) {
		it->action = ACT_SKIP, it->unmet = true;
		item_setf(&it->reason, "this kernel does not offer %s '%s'; it offers: %s", attr, e->value, raw);
		return;
	}
	it->action = item_compare_value(it, raw) ? ACT_CHANGE : ACT_KEEP;
}

int thp_plan(struct ctx *c, struct plan *p)
{
	for (size_t i = 0; i < c->cfg.n; i++) {
		const struct cfg_entry *e = &c->cfg.v[i], *eff;
		bool seen = false;

		if (strcmp(e->section, "thp") || !strcmp(e->key, "override_cmdline"))
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(c->cfg.v[j].section, "thp") && !strcmp(c->cfg.v[j].key, e->key);
		eff = seen ? NULL : config_get(&c->cfg, "thp", NULL, e->key);
		if (eff)
			plan_key(c, p, eff);
	}
	return 0;
}

/* The [thp] key of a file below THP_DIR (path may be a glob of one): those
 * of the table, a size's enabled; not the read-only ones (hpage_pmd_size). */
bool thp_claims(const char *path, char *key, size_t size)
{
	const char *attr = path + sizeof(THP_DIR);
	char name[96], why[256];
	unsigned long long kb;

	if (strncmp(path, THP_DIR "/", sizeof(THP_DIR)))
		return false;
	if (!strncmp(attr, "khugepaged/", 11))
		snprintf(name, sizeof(name), "khugepaged.%s", attr + 11);
	else if (sscanf(attr, "hugepages-%llukB/enabled", &kb) == 1)
		snprintf(name, sizeof(name), "size.%llukB.enabled", kb);
	else
		snprintf(name, sizeof(name), "%s", attr);
	if (thp_check_key(name, "", why, sizeof(why)) < 0)
		return false;
	snprintf(key, size, "[thp] %s", name);
	return true;
}
