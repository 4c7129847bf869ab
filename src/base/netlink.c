// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Netlink's generic layer in the manner of libmnl, for any protocol (the
 * link and qdisc messages are net/rtnl.c's, ethtool's nic/'s): attributes appended with bounds checks, an ACK
 * asked for a batch's last request (failures are told whatever the flags),
 * fresh sequence numbers, replies checked for our port id and sequence, errors turned into -errno with the kernel's
 * extended-ack message, and a receive timeout so nothing can hang a boot.
 * Parsers take a message and its length and trust nothing in it.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "base/netlink.h"

#define NL_RECV_TIMEOUT_S 2
#define NL_RECV_BUF (64 * 1024)

/* The transport: the real socket unless a unit test installed a fake. */
static const struct nl_ops *ops;

void nl_set_ops(const struct nl_ops *o)
{
	ops = o;
}

int nl_open(struct nl *nl)
{
	return nl_open_proto(nl, NETLINK_ROUTE);
}

int nl_open_proto(struct nl *nl, int proto)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = NL_RECV_TIMEOUT_S };
	socklen_t salen = sizeof(sa);
	int one = 1, rcvbuf = 1 << 20;

	nl->seq = (uint32_t)time(NULL);
	if (ops) {
		nl->fd = -1;
		nl->pid = NL_FAKE_PID;
		return ops->open ? ops->open(ops->data) : 0;
	}
	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto);
	if (nl->fd < 0)
		return -errno;
	/* Extended ACKs carry the kernel's reason; CAP_ACK keeps ACKs short. */
	setsockopt(nl->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(nl->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	/* Room for a batch's ACKs (the kernel caps it at rmem_max). */
	setsockopt(nl->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (setsockopt(nl->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    bind(nl->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    getsockname(nl->fd, (struct sockaddr *)&sa, &salen) < 0) {
		int r = -errno;

		nl_close(nl);
		return r;
	}
	nl->pid = sa.nl_pid;
	return 0;
}

void nl_close(struct nl *nl)
{
	if (nl->fd >= 0)
		close(nl->fd);
	nl->fd = -1;
}

/* ---- attributes ---------------------------------------------------------- */

struct nlattr *nla_put(struct nlmsghdr *h, size_t max, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)h + NLMSG_ALIGN(h->nlmsg_len));
	size_t total = NLA_HDRLEN + len;

	if (NLMSG_ALIGN(h->nlmsg_len) + NLA_ALIGN(total) > max || total > UINT16_MAX)
		return NULL;
	a->nla_type = type;
	a->nla_len = (uint16_t)total;
	if (len)
		memcpy((char *)a + NLA_HDRLEN, data, len);
	memset((char *)a + total, 0, NLA_ALIGN(total) - total);
	h->nlmsg_len = (uint32_t)(NLMSG_ALIGN(h->nlmsg_len) + NLA_ALIGN(total));
	return a;
}

/* ---- parsing ------------------------------------------------------------- */

/* Lengths come from the peer: each is checked against what is left before
 * anything behind it is read, and offsets never pass the end (an unaligned
 * last message or attribute ends the walk instead of wrapping a count). */
const struct nlmsghdr *nl_next_msg(const void *buf, size_t len, size_t *off)
{
	const struct nlmsghdr *h;
	size_t rest, step;

	if (*off >= len || len - *off < sizeof(*h))
		return NULL;
	rest = len - *off;
	h = (const struct nlmsghdr *)((const char *)buf + *off);
	if (h->nlmsg_len < sizeof(*h) || h->nlmsg_len > rest)
		return NULL;
	step = NLMSG_ALIGN((size_t)h->nlmsg_len);
	*off += step < rest ? step : rest;
	return h;
}

/* The same for the attributes in buf[0, len). */
const struct nlattr *nla_next(const void *buf, size_t len, size_t *off)
{
	const struct nlattr *a;
	size_t rest, step;

	if (*off >= len || len - *off < NLA_HDRLEN)
		return NULL;
	rest = len - *off;
	a = (const struct nlattr *)((const char *)buf + *off);
	if (a->nla_len < NLA_HDRLEN || a->nla_len > rest)
		return NULL;
	step = NLA_ALIGN((size_t)a->nla_len);
	*off += step < rest ? step : rest;
	return a;
}

void nla_strcpy(char *dst, size_t size, const struct nlattr *a)
{
	size_t n = nla_len(a);

	n = strnlen(nla_data(a), n);
	if (n >= size)
		n = size - 1;
	memcpy(dst, nla_data(a), n);
	dst[n] = '\0';
}

/* An NLMSG_ERROR: 0 for an ACK, -errno with the extended-ack text otherwise.
 * Returns -EBADMSG when the message is not a well-formed error. */
int nl_parse_error(const struct nlmsghdr *h, struct nl_result *res)
{
	const struct nlmsgerr *e = NLMSG_DATA(h);
	size_t off, len = h->nlmsg_len;
	const struct nlattr *a;

	res->msg[0] = '\0';
	if (h->nlmsg_type != NLMSG_ERROR || len < NLMSG_LENGTH(sizeof(*e)))
		return -EBADMSG;
	/* Only -4095..0 is an errno: anything else would not negate or print. */
	res->err = e->error > 0 || e->error < -4095 ? -EPROTO : e->error;
	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return 0;
	/* Without NETLINK_CAP_ACK the request's payload sits before the TLVs. */
	off = NLMSG_LENGTH(sizeof(*e));
	if (!(h->nlmsg_flags & NLM_F_CAPPED)) {
		size_t inner = NLMSG_ALIGN((size_t)e->msg.nlmsg_len);

		if (inner < sizeof(struct nlmsghdr) || inner > len)
			return 0;
		off += inner - sizeof(struct nlmsghdr);
	}
	if (off >= len)
		return 0;
	for_each_nla(a, (const char *)h + off, len - off, o)
		if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG)
			nla_strcpy(res->msg, sizeof(res->msg), a);
	return 0;
}

/* The error a dump ends with: NLMSG_DONE carries one (-EMSGSIZE, -ENOBUFS, …
 * when the kernel gave up midway), NLMSG_ERROR is one. */
static int dump_end(const struct nlmsghdr *h)
{
	struct nl_result res;
	int e = 0;

	if (h->nlmsg_type == NLMSG_ERROR)
		return nl_parse_error(h, &res) < 0 ? -EBADMSG : res.err;
	if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(e)))
		memcpy(&e, NLMSG_DATA(h), sizeof(e));
	return e > 0 || e < -4095 ? -EPROTO : e;
}

int nl_dump_reply(const void *buf, size_t len, uint32_t pid, uint32_t seq,
		  int (*fn)(const struct nlmsghdr *h, void *data), void *data, int *status)
{
	const struct nlmsghdr *h;
	size_t off = 0;

	while ((h = nl_next_msg(buf, len, &off))) {
		int r = 0;

		if (h->nlmsg_pid != pid || h->nlmsg_seq != seq)
			continue;
		if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR)
			r = dump_end(h);
		else if (h->nlmsg_flags & NLM_F_DUMP_INTR)
			r = -EINTR; /* the set changed under the dump: it is not the whole */
		else if (*status >= 0)
			r = fn(h, data);
		if (*status >= 0 && r < 0)
			*status = r;
		if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR)
			return 1;
	}
	/* Bytes that are no message: what they held is unknown, not absent. */
	if (off < len) {
		if (*status >= 0)
			*status = -EBADMSG;
		return 1;
	}
	return 0;
}

unsigned nl_get_reply(const void *buf, size_t len, uint32_t pid, uint32_t first_seq, unsigned count,
		      struct nl_result *res, int (*fn)(const struct nlmsghdr *h, void *data), void *data)
{
	const struct nlmsghdr *h;
	size_t off = 0;
	unsigned got = 0;

	while ((h = nl_next_msg(buf, len, &off))) {
		uint32_t i = h->nlmsg_seq - first_seq;
		struct nl_result r = { 0 };

		if (h->nlmsg_pid != pid || i >= count || res[i].acked)
			continue;
		if (h->nlmsg_type != NLMSG_ERROR) {
			/* A get's answer comes before its ACK; one fn refuses fails the request. */
			int e = fn ? fn(h, data) : 0;

			if (e < 0 && !res[i].bad)
				res[i].bad = e;
			continue;
		}
		/* A malformed answer is still the answer: no wait for a timeout. */
		if (nl_parse_error(h, &r) < 0)
			r = (struct nl_result){ .err = -EBADMSG };
		if (!r.err)
			r.err = res[i].bad;
		r.acked = true;
		res[i] = r;
		got++;
	}
	return got;
}

unsigned nl_ack_reply(const void *buf, size_t len, uint32_t pid, uint32_t first_seq, unsigned count,
		      struct nl_result *res)
{
	return nl_get_reply(buf, len, pid, first_seq, count, res, NULL, NULL);
}

/* ---- I/O ------------------------------------------------------------------ */

static int sock_send(const struct nl *nl, const void *buf, size_t len)
{
	if (ops)
		return ops->send(ops->data, buf, len);
	return send(nl->fd, buf, len, 0) < 0 ? -errno : (int)len;
}

/* Bytes from the kernel, 0 for a message from anyone else, or -errno. */
static int nl_recv(struct nl *nl, char *buf, size_t size)
{
	struct sockaddr_nl sa;
	struct iovec iov = { buf, size };
	struct msghdr m = { .msg_name = &sa, .msg_namelen = sizeof(sa), .msg_iov = &iov, .msg_iovlen = 1 };
	uint32_t from = 0;
	ssize_t n;

	progress();
	if (ops) {
		n = ops->recv(ops->data, buf, size, &from);
		if (n < 0)
			return (int)n;
		return from ? 0 : (int)n;
	}
	n = recvmsg(nl->fd, &m, 0);
	if (n < 0)
		return errno == EAGAIN ? -ETIMEDOUT : -errno;
	if (m.msg_flags & MSG_TRUNC)
		return -EMSGSIZE;
	if (sa.nl_pid != 0) /* only the kernel talks to us */
		return 0;
	return (int)n;
}

int nl_dump_req(struct nl *nl, struct nlmsghdr *req, int (*fn)(const struct nlmsghdr *h, void *data), void *data)
{
	static char buf[NL_RECV_BUF];
	int n, status = 0;

	req->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req->nlmsg_seq = ++nl->seq;
	n = sock_send(nl, req, req->nlmsg_len);
	while (n >= 0) {
		n = nl_recv(nl, buf, sizeof(buf));
		if (n >= 0 && nl_dump_reply(buf, (size_t)n, nl->pid, req->nlmsg_seq, fn, data, &status))
			return status;
	}
	return n;
}

struct nlmsghdr *nl_batch_msg(struct nl_batch *b, size_t max, uint16_t type, uint16_t flags, uint32_t seq,
			      size_t fixed)
{
	struct nlmsghdr *h = (struct nlmsghdr *)(b->buf + b->len);

	if (sizeof(b->buf) - b->len < max)
		return NULL;
	memset(h, 0, NLMSG_SPACE(fixed));
	h->nlmsg_len = NLMSG_LENGTH(fixed);
	h->nlmsg_type = type;
	h->nlmsg_flags = flags;
	h->nlmsg_seq = seq;
	return h;
}

int nl_batch_add(struct nl_batch *b, const struct nlmsghdr *h)
{
	if (!b->count)
		b->first_seq = h->nlmsg_seq;
	b->len += NLMSG_ALIGN(h->nlmsg_len);
	b->count++;
	return 0;
}

/* A batch that cannot be sent: each request fails with err. */
void nl_batch_fail(struct nl_batch *b, struct nl_result *res, int err)
{
	for (unsigned i = 0; i < b->count; i++)
		res[i] = (struct nl_result){ .err = err };
	b->len = 0;
	b->count = 0;
}

int nl_send_batch(struct nl *nl, struct nl_batch *b, struct nl_result *res)
{
	return nl_send_gets(nl, b, res, NULL, NULL);
}

/* Only the batch's last request asks for an ACK. The kernel answers a
 * failed request whatever its flags, handles a batch's requests in order
 * and queues each answer before it takes the next: the last one's ACK
 * comes after every error of the batch, and a request it finds without one
 * succeeded. A batch of a thousand requests is then one receive, not one
 * per request; each failure still comes back under its own sequence. */
static void ack_last_only(struct nl_batch *b)
{
	struct nlmsghdr *h, *last = NULL;
	size_t off = 0;

	while ((h = (struct nlmsghdr *)nl_next_msg(b->buf, b->len, &off))) {
		h->nlmsg_flags &= (uint16_t)~NLM_F_ACK;
		last = h;
	}
	if (last)
		last->nlmsg_flags |= NLM_F_ACK;
}

int nl_send_gets(struct nl *nl, struct nl_batch *b, struct nl_result *res,
		 int (*fn)(const struct nlmsghdr *h, void *data), void *data)
{
	static char buf[NL_RECV_BUF];
	int r = 0;

	for (unsigned i = 0; i < b->count; i++)
		res[i] = (struct nl_result){ .err = -ETIMEDOUT };
	ack_last_only(b);
	if (b->count)
		r = sock_send(nl, b->buf, b->len);
	while (r >= 0 && b->count && !res[b->count - 1].acked) {
		r = nl_recv(nl, buf, sizeof(buf));
		if (r > 0)
			nl_get_reply(buf, (size_t)r, nl->pid, b->first_seq, b->count, res, fn, data);
	}
	/* Past the last ACK, no answer is an answer: done, unless fn refused
	 * what came for it. */
	for (unsigned i = 0; i < b->count; i++)
		if (!res[i].acked)
			res[i] = (struct nl_result){ .err = r < 0 ? r : res[i].bad, .acked = r >= 0 };
	b->len = 0;
	b->count = 0;
	return r < 0 ? r : 0;
}
