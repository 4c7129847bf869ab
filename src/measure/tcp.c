// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * measure tcp: the connections read at the start and the end of the window
 * and three times between (a connection that starts or ends inside it still
 * has two samples), each busy one interpreted (interp.c) and reported
 * (report.c). Passive: it reads counters and changes nothing.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/array.h"
#include "base/log.h"
#include "measure/internal.h"
#include "measure/measure.h"
#include "measure/report.h"

#define ROUNDS 5

int mt_filter_init(struct mt_filter *f, const char *peer, unsigned port)
{
	memset(f, 0, sizeof(*f));
	f->port = port;
	if (!peer)
		return 0;
	if (inet_pton(AF_INET, peer, f->addr) == 1)
		f->family = AF_INET;
	else if (inet_pton(AF_INET6, peer, f->addr) == 1)
		f->family = AF_INET6;
	else
		return -EINVAL;
	return 0;
}

/* An IPv4 peer of an IPv6 socket is ::ffff:a.b.c.d (a server listening on
 * :: takes IPv4 clients so, as iperf3 -s does): the IPv4 address it is. */
static const unsigned char *peer_addr(int family, const unsigned char *a, int *fam)
{
	static const unsigned char mapped[12] = { [10] = 0xff, [11] = 0xff };

	*fam = family;
	if (family != AF_INET6 || memcmp(a, mapped, sizeof(mapped)))
		return a;
	*fam = AF_INET;
	return a + sizeof(mapped);
}

bool mt_filter_match(const struct mt_filter *f, const struct mt_sample *s)
{
	const unsigned char *want, *peer;
	int wf, pf;

	if (f->port && s->sport != f->port && s->dport != f->port)
		return false;
	if (!f->family)
		return true;
	want = peer_addr(f->family, f->addr, &wf);
	peer = peer_addr(s->family, s->daddr, &pf);
	return wf == pf && !memcmp(want, peer, pf == AF_INET ? 4 : 16);
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

static int sample_once(struct mt_report *rep, const struct mt_filter *f)
{
	struct mt_set set = { 0 };
	int r = mt_read(&set);

	for (size_t i = 0; r == 0 && i < set.n; i++) {
		struct mt_flow *fl;

		if (!mt_filter_match(f, &set.v[i]))
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

/* The measurement: the host's side, then the connections f selects over
 * rep->seconds; 0 or -errno after one log line. */
int mt_measure(struct ctx *c, const struct mt_filter *f, struct mt_report *rep)
{
	int e = 0;

	mt_host_read(&c->root, &rep->host);
	mt_host_bbr(c, &rep->host);
	for (int i = 0; i < ROUNDS && e == 0; i++) {
		if (i)
			sleep_us((long long)rep->seconds * 1000000 / (ROUNDS - 1));
		e = sample_once(rep, f);
	}
	if (e < 0)
		log_msg(LOG_ERR, "cannot read the TCP connections (sock_diag): %s", strerror(-e));
	return e;
}

int cmd_measure_tcp(struct ctx *c, const struct measure_opts *o)
{
	struct mt_report rep = { .seconds = o->seconds ? o->seconds : 10 };
	struct mt_filter f;
	int r;

	if (mt_filter_init(&f, o->peer, o->port) < 0) {
		log_msg(LOG_ERR, "--peer: '%s' is not an IPv4 or IPv6 address", o->peer);
		return 2;
	}
	r = mt_measure(c, &f, &rep);
	if (r == 0) {
		size_t changed = SIZE_MAX;

		mt_report(c, &rep);
		r = o->apply ? mt_apply(c, &rep, o, &changed) : 0;
		mt_log_report(c, &rep, o->apply ? "measure tcp --apply" : "measure tcp", changed, r < 0);
	}
	free(rep.flows);
	return r < 0 ? 1 : 0;
}
