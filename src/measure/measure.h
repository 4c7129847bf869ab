/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `earlytune measure`: the host's own counters name what limits it, and a
 * setting is suggested only where one is the limit, with its prediction
 * and its cost. Only commands.c includes it.
 */
#pragma once

#include <stdbool.h>

#include "earlytune.h"

struct measure_opts {
	unsigned seconds;  /* --for: the window (default 10) */
	const char *peer;  /* --peer ADDR: only connections to or from it */
	unsigned port;     /* --port N: only connections with that local or remote port */
	bool apply;        /* --apply: make the one change this host's measurement named */
	bool verify;       /* --verify: the same measurement again, against the prediction applied */
	const char *dev;   /* measure readahead DEV */
	unsigned long long max_bytes; /* --max-bytes N: read at most this (0: the default) */
	long long candidate; /* --candidate KB, -1: the configuration's read_ahead_kb for DEV */
};

/* measure tcp: exit 0 (measured, whatever it found), 1 when the
 * connections could not be read or --apply failed, 2 for a bad --peer.
 * --verify: 0 when every prediction applied held, 1 when one failed or
 * could not be checked. */
int cmd_measure_tcp(struct ctx *c, const struct measure_opts *o);
int cmd_measure_tcp_verify(struct ctx *c, const struct measure_opts *o); /* --verify */

/* measure readahead DEV: exit 0 (measured), 1 when it could not measure,
 * was interrupted (the read-ahead restored) or --apply failed, 2 for a
 * name that is no disk. */
int cmd_measure_readahead(struct ctx *c, const struct measure_opts *o);
/* --verify: 0 when the prediction held (or the change still pays: moved),
 * 1 when it failed, could not be checked or measured, 2 for a name that is
 * no disk. */
int cmd_measure_readahead_verify(struct ctx *c, const struct measure_opts *o);

/* The settings measure tcp --apply and measure readahead --apply changed,
 * with their newest check: the lists of commands.c's measured_sources rows
 * (engine/engine.h). */
struct measured;
int mt_measured(const struct root *r, void (*emit)(const struct measured *m, void *data), void *data);
int mr_measured(const struct root *r, void (*emit)(const struct measured *m, void *data), void *data);
