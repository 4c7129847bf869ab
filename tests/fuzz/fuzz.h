/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What every libFuzzer harness shares: the input as a C string, and a
 * property failure that is reported and crashes (libFuzzer then saves the
 * input). tests/run-fuzz closes stderr while fuzzing (the parsers log every
 * rejected line); property messages go to a copy of it taken before that.
 */
#pragma once

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "earlytune.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzz_report_fd = STDERR_FILENO;

__attribute__((constructor)) static void fuzz_keep_stderr(void)
{
	int fd = dup(STDERR_FILENO);

	if (fd >= 0)
		fuzz_report_fd = fd;
}

_printf_(1, 2) __attribute__((noreturn, unused)) static void fuzz_fail(const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	dprintf(fuzz_report_fd, "PROPERTY FAILED: %s\n", msg);
	abort();
}

#define fuzz_assert(cond, ...) \
	do {                           \
		if (!(cond))           \
			fuzz_fail(__VA_ARGS__); \
	} while (0)

/* The input as a NUL-terminated heap copy (a NUL inside ends it early, as
 * it does for the C string the program would see). */
__attribute__((unused)) static char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}
