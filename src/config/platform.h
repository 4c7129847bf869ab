/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * platform.c: the cloud the [cmdline] rules' match.platform is about, given
 * ([main] platform, --platform) or guessed from the root's DMI (without it,
 * a cloud's NVMe controller or the device tree). Anyone above base/ may
 * include it (earlytune.h does: the context holds one).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct root;
struct strbuf;

#define PLATFORM_NAMES "aws gce azure generic"
struct platform {
	bool resolved, said;
	int err;          /* a read failed: from names its file */
	const char *name; /* one of PLATFORM_NAMES, or NULL: unknown */
	const char *how;  /* "given", "guessed" or "unknown" */
	char from[320];   /* --platform, the [main] line, the DMI strings, or why none */
};
int platform_check(const char *what, const char *value, char *why, size_t size);
int platform_resolve(struct platform *p, const struct root *r, const char *option, const char *conf,
		     const char *conf_from);
void platform_say(const struct platform *p);
void json_platform(struct strbuf *sb, const struct platform *p);
