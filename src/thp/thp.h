/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The thp domain: transparent huge pages and khugepaged. Its entry points,
 * for its row in src/domains.c.
 */
#pragma once

#include <stddef.h>

#include "earlytune.h"

int thp_check_key(const char *key, const char *value, char *why, size_t size);
int thp_plan(struct ctx *c, struct plan *p);
bool thp_claims(const char *path, char *key, size_t size);
