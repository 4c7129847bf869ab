/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * item.c: building a plan's items. Any domain, the engine and the commands
 * may include it.
 */
#pragma once

#include "earlytune.h"

struct item *plan_add(struct plan *p, const char *domain, const char *target,
		      const char *setting, const char *path);
void item_hold_fd(struct item *it, int fd, size_t len); /* fd from fd_hold */
void item_drop_fd(struct item *it);
void item_set(char **field, const char *value);
/* item_set for a long string many items repeat (a reason): shared with them. */
void item_set_shared(char **field, const char *value);
void item_setf(char **field, const char *fmt, ...) _printf_(2, 3);
void item_add_reason(struct item *it, const char *fmt, ...) _printf_(2, 3);
/* A skip because the tree does not show what would decide it: the reason
 * says what is missing ("… is unknown: no /X in this tree"). */
void item_unknown(struct item *it, const char *fmt, ...) _printf_(2, 3);
void item_fail(struct item *it, int err, const char *fmt, ...) _printf_(3, 4);
void item_from_entry(struct item *it, const struct cfg_entry *e);
void item_source(struct item *it, const struct cfg_entry *e); /* its source alone */
void plan_free(struct plan *p);
void item_strings_free(void); /* every item's strings: at the end of the process */
/* Drops (and frees) the items keep says no to, the others keep their order. */
void plan_keep(struct plan *p, bool (*keep)(const struct item *it));
int item_compare_value(const struct item *it, const char *current);
