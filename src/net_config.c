// SPDX-License-Identifier: LGPL-2.1-or-later
/* Validation of [modules] and [net] keys, so a bad line is reported with the
 * rest of the configuration, before anything is written. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "earlytune.h"
#include "netlink.h"

static bool module_word(const char *w)
{
	if (!*w)
		return false;
	for (; *w; w++)
		if (!((*w >= 'a' && *w <= 'z') || (*w >= '0' && *w <= '9') || *w == '_' || *w == '-'))
			return false;
	return true;
}

static bool all_words(const char *value, bool (*ok)(const char *))
{
	char w[WORD_MAX];
	size_t len;

	while ((len = next_word(&value, w, sizeof(w))))
		if (len >= sizeof(w) || !ok(w))
			return false;
	return true;
}

static bool one_word(const char *value)
{
	return !strchr(value, ' ') && module_word(value);
}

static int check_modules(const char *key, const char *value, char *why, size_t size)
{
	if (!strcmp(key, "load")) {
		if (all_words(value, module_word))
			return 0;
		snprintf(why, size, "[modules] load = '%s': module names are letters, digits, '_' and '-'", value);
		return -EINVAL;
	}
	if (!strncmp(key, "options.", 8) && module_word(key + 8))
		return 0;
	snprintf(why, size, "unknown key '%s' in [modules]; allowed: load options.MODULE", key);
	return -EINVAL;
}

int net_check_key(const char *section, const char *key, const char *value, char *why, size_t size)
{
	if (!strcmp(section, "modules"))
		return check_modules(key, value, why, size);
	if (!strcmp(key, "congestion_control") || !strcmp(key, "qdisc")) {
		if (!*value || one_word(value))
			return 0;
		snprintf(why, size, "[net] %s = '%s': expected one name such as bbr or fq", key, value);
		return -EINVAL;
	}
	if (!strcmp(key, "force")) {
		if (!*value || !strcmp(value, "yes") || !strcmp(value, "no"))
			return 0;
		snprintf(why, size, "[net] force = '%s'; allowed: yes no", value);
		return -EINVAL;
	}
	if (!strcmp(key, "interfaces"))
		return 0;
	if (!strncmp(key, "qdisc.", 6)) {
		unsigned long long v;

		return !*value ? 0 : qparam_parse(NULL, key + 6, value, &v, why, size);
	}
	snprintf(why, size, "unknown key '%s' in [net]; allowed: congestion_control qdisc qdisc.PARAM interfaces force", key);
	return -EINVAL;
}
