/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pe.c: the sections of a PE image, as systemd-stub finds them in a unified
 * kernel image (.cmdline, .initrd, .uname, .linux). Anyone may include it.
 */
#pragma once

#include <stdint.h>

/* Where a section's bytes are in the file: 1 found (*off, *size), 0 no such
 * section, -EBADMSG not a PE image (or a table past the file), -errno. */
int pe_section(int fd, const char *name, uint64_t *off, uint64_t *size);
/* A small section's text (.cmdline, .uname), NUL padding and trailing
 * white space cut: 1 with *out malloc'ed, 0 none, -EFBIG past max, -errno. */
int pe_section_text(int fd, const char *name, size_t max, char **out);
