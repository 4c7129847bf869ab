// SPDX-License-Identifier: LGPL-2.1-or-later
/* [sysfs "NAME"]: its keys checked when read. A path must stay below /sys
 * (the sysctls have sysctl.d), and a file one of earlytune's domains writes
 * is refused with the key to use instead: one writer per file, or the two
 * would undo each other and both records would claim the original. */
#include <errno.h>
#include <string.h>

#include "sysfs/internal.h"

static sysfs_claim_fn *claimed_by;

void sysfs_set_claims(sysfs_claim_fn *fn)
{
	claimed_by = fn;
}

bool sysfs_claimed(const char *rel, char *key, size_t size)
{
	return claimed_by && claimed_by(rel, key, size);
}

bool sysfs_has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* No "." or ".." component and no empty one: the path says where it is. */
static bool plain_components(const char *path)
{
	for (const char *p = path + 1;;) {
		size_t n = strcspn(p, "/");

		if (!n || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		if (!p[n])
			return true;
		p += n + 1;
	}
}

int sysfs_check_path(const char *path, char *why, size_t size)
{
	char key[128];

	if (!strncmp(path, "/proc/sys/", 10) || !strcmp(path, "/proc/sys")) {
		snprintf(why, size, "[sysfs] path '%s': sysctls are set in /etc/sysctl.d/*.conf (or by earlytune's own "
				    "keys where it has them: [net], [sched]); [sysfs] writes below /sys only", path);
		return -EINVAL;
	}
	if (strncmp(path, "/sys/", 5) || !path[5]) {
		snprintf(why, size, "[sysfs] path '%s': not below /sys; [sysfs] writes sysfs attributes only, "
				    "by absolute paths starting with /sys/", path);
		return -EINVAL;
	}
	if (!plain_components(path)) {
		snprintf(why, size, "[sysfs] path '%s': an empty, '.' or '..' component; write the path as it is below /sys",
			 path);
		return -EINVAL;
	}
	if (strlen(path) >= PATH_MAX / 2) {
		snprintf(why, size, "[sysfs] path '%.64s…': longer than %d bytes", path, PATH_MAX / 2);
		return -EINVAL;
	}
	if (cfg_glob_check("[sysfs] path", path, why, size) < 0)
		return -EINVAL;
	if (sysfs_claimed(path + 1, key, sizeof(key))) {
		snprintf(why, size, "[sysfs] path '%s': earlytune sets it with %s; set it there (one writer per file)",
			 path, key);
		return -EINVAL;
	}
	return 0;
}

static int check_paths(const char *value, char *why, size_t size)
{
	char path[PATH_MAX];
	const char *p = value;
	size_t n;

	while (*(p += strspn(p, " \t"))) {
		n = strcspn(p, " \t");
		snprintf(path, sizeof(path), "%.*s", (int)n, p);
		if (sysfs_check_path(path, why, size) < 0)
			return -EINVAL;
		p += n;
	}
	return 0;
}

static int check_value(const char *value, char *why, size_t size)
{
	size_t n = strlen(value);
	char word[64];

	if (n > SYSFS_VALUE_MAX) {
		snprintf(why, size, "[sysfs] value: %zu bytes; earlytune writes values of up to %d", n, SYSFS_VALUE_MAX);
		return -EINVAL;
	}
	if (strchr(value, '\t')) {
		snprintf(why, size, "[sysfs] value '%s': a tab, which the records cannot keep", value);
		return -EINVAL;
	}
	if (value[0] == '[' && selector_active(value, word, sizeof(word)) == 0) {
		snprintf(why, size, "[sysfs] value '%s': a selector file takes the one word it selects: value = %s",
			 value, word);
		return -EINVAL;
	}
	return 0;
}

int sysfs_check_key(const char *key, const char *value, char *why, size_t size)
{
	char buf[96];

	if (!strcmp(key, "path"))
		return check_paths(value, why, size);
	if (!strcmp(key, "value"))
		return *value ? check_value(value, why, size) : 0;
	snprintf(why, size, "unknown key '%s' in [sysfs]%sallowed: path value", key,
		 did_you_mean(key, "path value", buf, sizeof(buf)));
	return -EINVAL;
}

/* Whether section name has an entry for key, even one that unsets it. */
static bool has_key(const struct config *c, const char *name, const char *key)
{
	for (size_t j = 0; j < c->n; j++)
		if (!strcmp(c->v[j].section, "sysfs") && streq_ptr(c->v[j].name, name) && !strcmp(c->v[j].key, key))
			return true;
	return false;
}

/* A section needs its name (what the table and the records show), and a
 * path with a value: one without the other says nothing to write (a later
 * "value =" switches a section off). A value whose path was rejected when
 * read has its error already, and nothing is written then: said once. */
void sysfs_check_conf(struct config *c)
{
	int before = c->errors;

	for (size_t i = 0; i < c->n;) {
		const struct cfg_entry *e = &c->v[i];
		const char *other = !strcmp(e->key, "path") ? "value" : "path";

		if (strcmp(e->section, "sysfs")) {
			i++;
		} else if (!e->name) {
			config_reject(c, i, "[sysfs] needs a name: [sysfs \"NAME\"] with path = /sys/… and value = …");
		} else if (!has_key(c, e->name, other) && (!strcmp(e->key, "path") || !before)) {
			config_reject(c, i, "[sysfs \"%s\"] has a %s but no %s", e->name, e->key, other);
		} else {
			i++;
		}
	}
}
