// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * [cmdline] keys, checked when the configuration is read: a plain function
 * of the key and value that calls nothing back in the configuration reader.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmdline/cmdline.h"

static bool param_word(const char *w)
{
	if (!*w || *w == '=' || *w == '-')
		return false;
	for (; *w; w++)
		if ((unsigned char)*w <= ' ' || *w == '"' || *w == '\'' || *w == '\\' || *w == '$' || *w == '`')
			return false;
	return true;
}

#define CMDLINE_KEYS "add match.platform match.vendor match.product match.disk"

int cmdline_check_key(const char *key, const char *value, char *why, size_t size)
{
	char w[WORD_MAX];
	size_t len;

	if (!strcmp(key, "match.vendor") || !strcmp(key, "match.product") || !strcmp(key, "match.disk"))
		return 0;
	if (!strcmp(key, "match.platform")) {
		while ((len = next_word(&value, w, sizeof(w))))
			if (platform_check("[cmdline] match.platform", w, why, size) < 0)
				return -EINVAL;
		return 0;
	}
	if (strcmp(key, "add")) {
		char buf[96];

		snprintf(why, size, "unknown key '%s' in [cmdline]%sallowed: " CMDLINE_KEYS, key,
			 did_you_mean(key, CMDLINE_KEYS, buf, sizeof(buf)));
		return -EINVAL;
	}
	while ((len = next_word(&value, w, sizeof(w))))
		if (len >= sizeof(w) || !param_word(w)) {
			snprintf(why, size, "[cmdline] add: '%s' is not a kernel parameter (key or key=value, no quotes, spaces or shell characters)", w);
			return -EINVAL;
		}
	return 0;
}
