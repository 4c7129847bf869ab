/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * kparam.c: the kernel command line, split the way the kernel splits it.
 * Anyone may include it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

bool kparam_space(char c); /* the kernel's isspace(): with 0xA0 */
int kparam_get(const char *cmdline, const char *key, char *val, size_t size);
bool kparam_has(const char *cmdline, const char *key);
int kparam_each(const char *cmdline, int (*fn)(const char *key, const char *val, void *data), void *data);
bool kparam_key_eq(const char *a, const char *b);
bool kparam_has_param(const char *cmdline, const char *param);

bool kparam_disabled(const char *cmdline);
