/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The commands (commands.c): one table that main.c runs a command from and
 * --help and --list-commands print, so that the man page test and the shell
 * completion, which read --list-commands, see what the binary has. Only
 * main.c includes it.
 */
#pragma once

#include <stdio.h>

#include "earlytune.h"

enum { EXIT_OK = 0, EXIT_DRIFT = 1, EXIT_USAGE = 2 };

/* What the options said, beyond what the context holds. */
struct args {
	const char *root, *config, *profile, *command, *sub, *kernel, *backend, *machine;
	unsigned only;
	unsigned last; /* status --last N */
	unsigned measure_for, port; /* measure: --for SECONDS, --port N */
	const char *peer;           /* measure: --peer ADDR */
	const char *max_bytes, *candidate; /* measure readahead: --max-bytes, --candidate (commands.c parses) */
	const char *operand;        /* the command's argument (measure readahead DEV) */
	bool apply, verify;         /* measure: --apply, --verify */
	bool only_set, check, update, wide, changes, failed;
};

struct command {
	const char *name;  /* "cmdline apply": a subcommand of cmdline */
	const char *usage; /* --help: its arguments, on the name's line; NULL: none */
	bool needs_config; /* the kernel probed, the configuration and libkmod loaded */
	int (*fn)(struct ctx *c, const struct args *a);
	const char *help;  /* --help: its lines, '\n' between them */
};

/* The command name (sub NULL), or its subcommand sub; NULL when there is none. */
const struct command *command_find(const char *name, const char *sub);
bool command_has_subs(const char *name);
/* The command (and its subcommand, and the argument it needs: its usage's
 * first word in capitals, "DEV") at argv[optind], after the options; 0 or
 * -EINVAL (said). */
int command_parse(int argc, char **argv, struct args *a);
/* The commands (prefix NULL), or the subcommands of prefix, joined by sep. */
void command_names(char *buf, size_t size, const char *prefix, const char *sep);
void commands_help(FILE *out);
void commands_list(FILE *out);
/* The commands that list the settings they measured, for ctx.measured. */
const struct measured_source *commands_measured(size_t *n);
