/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A session over the records: lock → load (the command's devices, or all)
 * → forget the stale ones → record originals → commit. apply, revert and
 * forget hold one each; a domain's plan asks it what earlytune changed
 * (session_records). For the engine's commands and the domains.
 */
#pragma once

#include "engine/state.h"

struct domain;

struct session {
	struct records rs;
	struct ctx *c;
};
enum session_load { SESSION_SCOPED, SESSION_ALL };

/* Locks and loads; while it is open, c->session is s. */
int session_open(struct session *s, struct ctx *c, enum session_load load);
void session_close(struct session *s);
/* apply: the records of the command's disks whose disk is gone or another. */
int session_forget_stale(struct session *s);
/* The original of it, with the identity of its device: added, not saved. */
int session_record(struct session *s, const struct item *it, const char *original);
static inline int session_commit(struct session *s)
{
	return state_commit(&s->rs, &s->c->root);
}

/* The records as c's command sees them: its session's when it holds one,
 * else read without the lock into *peek (session_close it after). NULL: they
 * cannot be read (*err). */
struct records *session_records(struct ctx *c, struct session *peek, int *err);

/* The disk (--device) or interface (--ifindex, --iface) a record is about
 * is one the command names; without them every record is. d: the record's
 * domain, or NULL; iface_ifindex: the index --iface has now, or 0. */
bool session_in_scope(const struct ctx *c, const struct domain *d, const struct record *x, int iface_ifindex);
/* Whether the record is this system's to revert, forget or judge stale:
 * not one its domain says is elsewhere (another network namespace's
 * interface, in the same file as this namespace's of that index). */
bool session_owns(const struct ctx *c, const struct domain *d, const struct record *x);
