// SPDX-License-Identifier: LGPL-2.1-or-later
/* The writers' unit tests' fixture: a scratch tree, its root and the readers'
 * context, freed after each test. */
#pragma once

#include "unit.h"
#include "writers/internal.h"
#include "writers/writers.h"

struct wfx {
	char dir[PATH_MAX];
	struct root r;
	struct wctx w;
	struct item it;
};

static int wfx_setup(void **state)
{
	struct wfx *x = calloc(1, sizeof(*x));

	if (!x)
		return -1;
	tree_new(x->dir, sizeof(x->dir));
	x->r.fd = -1;
	*state = x;
	return 0;
}

static int wfx_teardown(void **state)
{
	struct wfx *x = *state;

	writers_ctx_free(&x->w);
	root_close(&x->r);
	tree_remove(x->dir);
	free(x);
	return 0;
}

/* One reader on the tree, opened on the first; readers after it add to the
 * same context, as writers.c runs them. */
static void wload(struct wfx *x, int (*reader)(struct wctx *w))
{
	if (x->r.fd < 0) {
		assert_int_equal(root_open(&x->r, x->dir), 0);
		x->w.r = &x->r;
	}
	assert_int_equal(reader(&x->w), 0);
}

#define WX(t) cmocka_unit_test_setup_teardown(t, wfx_setup, wfx_teardown)
