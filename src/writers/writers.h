/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Other writers: configurations under the root that write a value earlytune
 * sets (TuneD, udev rules, sysctl.d, tmpfiles.d, sysfsutils, networkd, .link
 * files, NetworkManager). Each source has its reader (tuned.c, udev.c,
 * files.c, networkd.c, link.c, nm.c) that turns
 * its files into entries, read once per plan or verify; writers.c matches
 * them to the items and says which writer wins and why. apply never reads
 * them: they do not change what earlytune writes, only what the plan says
 * about it. For the engine's plan and verify (engine/plan.c).
 */
#pragma once

#include "earlytune.h"

/* plan and verify: fills each item's writers; the files that could not be
 * read go to the log, and their count is returned (the command then exits
 * 1: a writer it could not read may be the one that wins). */
int writers_annotate(struct ctx *c, struct plan *p);
const struct writer *writers_culprit(const struct item *it);
