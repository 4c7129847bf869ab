/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The NIC tests' look-up of an item of eth0: the plan has it, with this
 * action (the reason or error in the message when not), current and
 * desired (NULL: either). */
#pragma once

#include "unit.h"

static inline const struct item *want(const struct plan *p, const char *setting, enum action a, const char *cur,
				      const char *desired)
{
	const struct item *it = find_item(p, "eth0", setting);

	assert_non_null(it);
	assert_string_equal(it->domain, "nic");
	if (it->action != a)
		fail_msg("%s: action %d, want %d (%s%s)", setting, it->action, a, it->reason ? it->reason : "",
			 it->error ? it->error : "");
	if (cur)
		assert_string_equal(it->current, cur);
	if (desired)
		assert_string_equal(it->desired, desired);
	return it;
}
