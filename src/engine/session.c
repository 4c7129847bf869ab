// SPDX-License-Identifier: LGPL-2.1-or-later
/* A command's session over the records (session.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "engine/domain.h"
#include "engine/session.h"

int session_open(struct session *s, struct ctx *c, enum session_load load)
{
	int r;

	*s = (struct session){ .rs = { .lock_fd = -1 }, .c = c };
	r = state_lock(&s->rs, &c->root);
	if (r >= 0)
		r = load == SESSION_SCOPED ? state_load_scoped(&s->rs, &c->root, c) : state_load(&s->rs, &c->root);
	/* A run about everything keeps every record in the one file. */
	s->rs.whole = !c->ndevices && !c->ifindex && !c->iface;
	if (r >= 0)
		c->session = s;
	return r;
}

void session_close(struct session *s)
{
	if (s->c && s->c->session == s)
		s->c->session = NULL;
	state_free(&s->rs);
}

struct records *session_records(struct ctx *c, struct session *peek, int *err)
{
	*peek = (struct session){ .rs = { .lock_fd = -1 }, .c = c };
	*err = 0;
	if (c->session)
		return &c->session->rs;
	*err = state_load(&peek->rs, &c->root);
	return *err < 0 ? NULL : &peek->rs;
}

bool session_in_scope(const struct ctx *c, const struct domain *d, const struct record *x, int iface_ifindex)
{
	int ifindex = d && d->ifindex ? d->ifindex(x->path) : 0;
	char disk[NAME_MAX + 1] = "";

	if (!c->ndevices && !c->ifindex && !c->iface)
		return true;
	if (d && d->device_of)
		d->device_of(x, disk, sizeof(disk), &ifindex);
	for (size_t i = 0; d && i < c->ndevices; i++)
		if ((d->disks && !strcmp(x->target, c->devices[i])) || !strcmp(disk, c->devices[i]))
			return true;
	return ifindex && ((c->ifindex && ifindex == c->ifindex) ||
			   (c->iface && (ifindex == iface_ifindex || !strcmp(x->target, c->iface))));
}

bool session_owns(const struct ctx *c, const struct domain *d, const struct record *x)
{
	return !(d && d->elsewhere && d->elsewhere(&c->root, x));
}

/* A record of a disk that is gone, or whose name another disk has now (a new
 * sdX, dm-N, loopN, a re-attached volume), is not this disk's original: it is
 * forgotten, and the disk records its own. Only the disks this run is about;
 * a record whose check fails stays (recording that disk then fails too). */
int session_forget_stale(struct session *s)
{
	struct records *rs = &s->rs;
	bool *drop = calloc(rs->n + 1, sizeof(*drop));
	char why[256];

	if (!drop)
		return -ENOMEM;
	for (size_t i = 0; i < rs->n; i++) {
		const struct record *x = &rs->v[i];
		const struct domain *d = state_domain(x->domain);

		if (d && (d->disks || d->device_of) && (s->c->only & d->bit) && session_owns(s->c, d, x) &&
		    session_in_scope(s->c, d, x, 0) && state_stale(rs, &s->c->root, x, why, sizeof(why)) == 1) {
			log_msg(LOG_DEBUG, "forgetting the original of %s: %s", x->path, why);
			drop[i] = true;
		}
	}
	state_forget(rs, drop);
	free(drop);
	return 0;
}

/* A record under the item's own path (an earlier version's, before its
 * domain kept it under a key) stays the only original of that file. */
int session_record(struct session *s, const struct item *it, const char *original)
{
	const struct domain *d = state_domain(it->domain);
	char id[64], key[PATH_MAX];
	const char *path = it->path;
	int r = state_identity_cached(&s->rs, &s->c->root, it->domain, it->target, it->setting, it->path, id,
				      sizeof(id));

	if (r < 0)
		return r;
	if (d && d->record_path && !state_find_as(&s->rs, it, it->path, id) &&
	    d->record_path(&s->c->root, it, key, sizeof(key)) > 0)
		path = key;
	return state_add(&s->rs, it, path, original, id);
}
