// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The host's TCP connections over sock_diag (NETLINK_SOCK_DIAG): one dump
 * per address family asking for tcp_info, the congestion control and the
 * socket's memory. The socket layer is net/'s (replies checked for our port
 * id and sequence, a receive timeout); the parser trusts nothing in a reply.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <string.h>
#include <time.h>

#include "base/array.h"
#include "base/util.h"
#include "measure/internal.h"
#include "net/netlink.h"

/* The kernel's TCP states (include/net/tcp_states.h: no uapi header has
 * them, and glibc's netinet/tcp.h clashes with linux/tcp.h's tcp_info). */
#define TCP_ESTABLISHED 1
#define TCP_CLOSE_WAIT 8

static void addr_format(int family, const unsigned char *a, uint16_t port, char *out, size_t size)
{
	char ip[INET6_ADDRSTRLEN] = "?";

	inet_ntop(family, a, ip, sizeof(ip));
	snprintf(out, size, family == AF_INET6 ? "[%s]:%u" : "%s:%u", ip, port);
}

/* The socket's memory, sock_diag's SK_MEMINFO_* array: what of it this
 * kernel sends. */
static void mem_info(const void *data, size_t n, struct mt_sample *s)
{
	uint32_t m[SK_MEMINFO_VARS] = { 0 };

	memcpy(m, data, (n < SK_MEMINFO_VARS ? n : SK_MEMINFO_VARS) * sizeof(*m));
	s->have_mem = n > SK_MEMINFO_SNDBUF; /* after SK_MEMINFO_RCVBUF */
	s->sndbuf = s->have_mem ? m[SK_MEMINFO_SNDBUF] : 0;
	s->rcvbuf = s->have_mem ? m[SK_MEMINFO_RCVBUF] : 0;
	s->have_queued = n > SK_MEMINFO_WMEM_QUEUED;
	s->queued = m[SK_MEMINFO_WMEM_QUEUED];
}

static void parse_attr(const struct nlattr *a, struct mt_sample *s)
{
	size_t len = nla_len(a);

	switch (a->nla_type & NLA_TYPE_MASK) {
	case INET_DIAG_INFO:
		/* Only what the kernel sent: an older one sends a shorter struct. */
		s->info_len = len < sizeof(s->ti) ? len : sizeof(s->ti);
		memset(&s->ti, 0, sizeof(s->ti));
		memcpy(&s->ti, nla_data(a), s->info_len);
		break;
	case INET_DIAG_CONG:
		nla_strcpy(s->cc, sizeof(s->cc), a);
		break;
	case INET_DIAG_SKMEMINFO:
		mem_info(nla_data(a), len / sizeof(uint32_t), s);
		break;
	}
}

int mt_parse_diag(const struct nlmsghdr *h, struct mt_sample *s)
{
	struct inet_diag_msg m;
	size_t off = NLMSG_LENGTH(sizeof(m));
	const struct nlattr *a;

	memset(s, 0, sizeof(*s));
	if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY || h->nlmsg_len < off)
		return -EBADMSG;
	memcpy(&m, NLMSG_DATA(h), sizeof(m));
	if (m.idiag_family != AF_INET && m.idiag_family != AF_INET6)
		return -EAFNOSUPPORT;
	s->family = m.idiag_family;
	memcpy(&s->cookie, m.id.idiag_cookie, sizeof(s->cookie));
	memcpy(s->saddr, m.id.idiag_src, sizeof(s->saddr));
	memcpy(s->daddr, m.id.idiag_dst, sizeof(s->daddr));
	s->sport = ntohs(m.id.idiag_sport);
	s->dport = ntohs(m.id.idiag_dport);
	addr_format(s->family, s->saddr, s->sport, s->src, sizeof(s->src));
	addr_format(s->family, s->daddr, s->dport, s->dst, sizeof(s->dst));
	for_each_nla(a, (const char *)h + off, h->nlmsg_len - off, o)
		parse_attr(a, s);
	return 0;
}

int mt_on_diag(const struct nlmsghdr *h, void *data)
{
	struct mt_set *set = data;
	struct mt_sample s;
	int r = mt_parse_diag(h, &s);

	/* Another family's socket (none is asked for) is no error: skipped. */
	if (r < 0)
		return r == -EAFNOSUPPORT ? 0 : r;
	if (array_grow(&set->v, &set->cap, set->n, sizeof(*set->v), 16) < 0)
		return -ENOMEM;
	s.t_us = set->t_us;
	set->v[set->n++] = s;
	return 0;
}

static int dump_family(struct nl *nl, int family, struct mt_set *set)
{
	struct {
		struct nlmsghdr h;
		struct inet_diag_req_v2 r;
	} req = {
		.h.nlmsg_len = sizeof(req),
		.h.nlmsg_type = SOCK_DIAG_BY_FAMILY,
		.r.sdiag_family = (uint8_t)family,
		.r.sdiag_protocol = IPPROTO_TCP,
		.r.idiag_ext = 1 << (INET_DIAG_INFO - 1) | 1 << (INET_DIAG_CONG - 1) |
			       1 << (INET_DIAG_SKMEMINFO - 1),
		/* Connections that can carry data: established, or the peer done. */
		.r.idiag_states = 1 << TCP_ESTABLISHED | 1 << TCP_CLOSE_WAIT,
	};

	return nl_dump_req(nl, &req.h, mt_on_diag, set);
}

int mt_dump(struct nl *nl, struct mt_set *set)
{
	int r, r6;

	set->t_us = now_ns(CLOCK_MONOTONIC) / 1000;
	r = dump_family(nl, AF_INET, set);
	r6 = dump_family(nl, AF_INET6, set);
	/* A kernel without IPv6 refuses its dump: the IPv4 one stands. */
	return r < 0 ? r : r6 == -EAFNOSUPPORT || r6 == -ENOENT ? 0 : r6;
}

int mt_read(struct mt_set *set)
{
	struct nl nl;
	int r = nl_open_proto(&nl, NETLINK_SOCK_DIAG);

	if (r < 0)
		return r;
	r = mt_dump(&nl, set);
	nl_close(&nl);
	return r;
}
