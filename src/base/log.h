/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * log.c: where a message goes (stderr, or the kernel log in --boot mode).
 * Anyone may include it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

enum { LOG_ERR = 3, LOG_WARN = 4, LOG_NOTICE = 5, LOG_INFO = 6, LOG_DEBUG = 7 };
struct root;
void log_setup_boot(const struct root *r);
void log_hold(void);    /* hold messages until log_release: where they go is not known yet */
void log_release(void); /* the held messages, to stderr or (after log_setup_boot) the kernel log */
void log_set_verbose(bool verbose);
bool log_boot_mode(void);
void log_capture_errors(bool on);
size_t log_captured(size_t i, const char **msg); /* the count; *msg the i-th error line */
void log_msg(int prio, const char *fmt, ...) _printf_(2, 3);
