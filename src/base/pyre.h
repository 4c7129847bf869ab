/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pyre.c: whether Python's re.search(pattern, text, re.MULTILINE) finds a
 * match, for the patterns other programs' configuration files hold (TuneD's
 * uname_regex, cpuinfo_regex, cpuinfo_check). Anyone may include it: it
 * knows nothing of earlytune.
 */
#pragma once

/* 1: found, 0: not found, -EINVAL: the pattern is not Python's or uses
 * what this subset has not: groups with flags or look-arounds ("(?" other
 * than "(?:"), backreferences, possessive quantifiers, escapes of letters
 * other than d D w W s S b B A Z n t r f v x, bytes above 127 in a
 * bracket. Its classes are ASCII's, '.' is one byte (not one character)
 * and matches anything but a newline. Time is linear in the text (a Pike
 * machine: no backtracking); -ENOMEM when memory runs out. */
int pyre_search(const char *pattern, const char *text);
