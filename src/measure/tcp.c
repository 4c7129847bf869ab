// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * measure tcp: the connections read at the start and the end of the window
 * and three times between (a connection that starts or ends inside it still
 * has two samples), each busy one interpreted (interp.c) and reported
 * (report.c). Passive: it reads counters and changes nothing.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/array.h"
#include "base/log.h"
#include "measure/internal.h"
#include "measure/measure.h"
#include "measure/report.h"

#define ROUNDS 5

struct filter {
	unsigned char addr[16];
	int family;       /* 0: no --peer */
	unsigned port;
};

static int filter_init(struct filter *f, const struct measure_opts *o)
{
	memset(f, 0, sizeof(*f));
	f->port = o->port;
	if (!o->peer)
		return 0;
	if (inet_pton(AF_INET, o->peer, f->addr) == 1)
		f->family = AF_INET;
	else if (inet_pton(AF_INET6, o->peer, f->addr) == 1)
		f->family = AF_INET6;
	else
		return -EINVAL;
	return 0;
}

static bool filter_match(const struct filter *f, const struct mt_sample *s)
{
	size_t alen = s->family == AF_INET ? 4 : 16;

	if (f->port && s->sport != f->port && s->dport != f->port)
		return false;
	return !f->family || (f->family == s->family && !memcmp(f->addr, s->daddr, alen));
}

static struct mt_flow *flow_of(struct mt_report *rep, uint64_t cookie)
{
	for (size_t i = 0; i < rep->nflows; i++)
		if (rep->flows[i].first.cookie == cookie)
			return &rep->flows[i];
	if (array_grow(&rep->flows, &rep->cap, rep->nflows, sizeof(*rep->flows), 16) < 0)
		return NULL;
	memset(&rep->flows[rep->nflows], 0, sizeof(*rep->flows));
	return &rep->flows[rep->nflows++];
}

static int sample_once(struct mt_report *rep, const struct filter *f)
{
	struct mt_set set = { 0 };
	int r = mt_read(&set);

	for (size_t i = 0; r == 0 && i < set.n; i++) {
		struct mt_flow *fl;

		if (!filter_match(f, &set.v[i]))
			continue;
		fl = flow_of(rep, set.v[i].cookie);
		if (!fl)
			r = -ENOMEM;
		else
			mt_flow_add(fl, &set.v[i]);
	}
	free(set.v);
	return r;
}

static void sleep_us(long long us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = us % 1000000 * 1000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int cmd_measure_tcp(struct ctx *c, const struct measure_opts *o)
{
	struct mt_report rep = { .seconds = o->seconds ? o->seconds : 10 };
	struct filter f;
	int r = 0;

	if (filter_init(&f, o) < 0) {
		log_msg(LOG_ERR, "--peer: '%s' is not an IPv4 or IPv6 address", o->peer);
		return 2;
	}
	mt_host_read(&c->root, &rep.host);
	for (int i = 0; i < ROUNDS && r == 0; i++) {
		if (i)
			sleep_us((long long)rep.seconds * 1000000 / (ROUNDS - 1));
		r = sample_once(&rep, &f);
	}
	if (r < 0) {
		log_msg(LOG_ERR, "cannot read the TCP connections (sock_diag): %s", strerror(-r));
		free(rep.flows);
		return 1;
	}
	mt_report(c, &rep);
	r = o->apply ? mt_apply(c, &rep) : 0;
	free(rep.flows);
	return r < 0 ? 1 : 0;
}
