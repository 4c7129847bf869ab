/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The udev rule reader's pieces, for udev.c, its tests and its fuzzer. */
#pragma once

#include "writers/internal.h"

struct udev_pair {
	char key[32];
	char attr[128];
	char op[3];
	char value[512]; /* longer values are cut */
};

/* The events a rule fires on, from its ACTION key (none: every event). */
struct udev_when {
	bool add, change;
};

int udev_next_pair(const char **p, struct udev_pair *u);
/* 1 the rule matches the disk, 0 not, 2 maybe (a key not evaluated here). */
int udev_rule_matches(const struct wctx *w, const char *rule, const char *disk, struct udev_when *when);
