/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Netlink's generic layer, for any protocol (netlink.c): the socket and its
 * replaceable transport, attributes, dumps, batches of requests and their
 * ACKs with the kernel's extended-ack message. rtnetlink's messages are
 * net/netlink.h's, ethtool's generic netlink ones nic/'s. */
#pragma once

#include <linux/netlink.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NL_BATCH_MAX (32 * 1024) /* bytes of requests per sendmsg */
#define NL_BATCH_REQS 100        /* flush before this many: their errors must fit the receive buffer */
#define NL_FAKE_PID 4242         /* our port id behind a fake transport */

struct nl {
	int fd;
	uint32_t seq;
	uint32_t pid;
};

struct nl_batch {
	char buf[NL_BATCH_MAX];
	size_t len;
	uint32_t first_seq;
	unsigned count;
};

struct nl_result {
	int err;             /* 0 or -errno, per request */
	bool acked;          /* the kernel answered this request */
	char msg[160];       /* the kernel's extended-ack message, if any */
	int bad;             /* the first error fn gave for an answer before the ACK */
};

/* The socket's transport, replaceable by unit tests (a fake kernel). send and
 * recv return a byte count or -errno; recv sets *from to the sender's port id. */
struct nl_ops {
	int (*send)(void *data, const void *buf, size_t len);
	int (*recv)(void *data, void *buf, size_t size, uint32_t *from);
	void *data;
	int (*open)(void *data); /* optional: what nl_open returns (0 or -errno) */
};

int nl_open(struct nl *nl); /* NETLINK_ROUTE */
int nl_open_proto(struct nl *nl, int proto);
void nl_close(struct nl *nl);
void nl_set_ops(const struct nl_ops *ops); /* NULL: the real socket again */

/* Reply walking, safe against any byte sequence: the message at *off in
 * buf[0, len) if its header and its whole length fit, else NULL; *off then
 * moves past it (aligned, never past len). */
const struct nlmsghdr *nl_next_msg(const void *buf, size_t len, size_t *off);

/* The reply parsers, over one received buffer (fuzzing entry points).
 * nl_dump_reply: the messages of dump seq for port pid go to fn; returns 1
 * when the dump is complete (NLMSG_DONE, or an error: *status is then the
 * first error of fn, the kernel's or -EBADMSG), 0 when more is to come.
 * nl_ack_reply: the ACKs of requests [first_seq, first_seq + count) go to
 * res[] (each once); returns how many new ACKs it found. */
int nl_dump_reply(const void *buf, size_t len, uint32_t pid, uint32_t seq,
		  int (*fn)(const struct nlmsghdr *h, void *data), void *data, int *status);
unsigned nl_ack_reply(const void *buf, size_t len, uint32_t pid, uint32_t first_seq, unsigned count,
		      struct nl_result *res);
/* The same for get requests: their answers before the ACK go to fn (a
 * message fn refuses makes the request's err, unless the ACK has one). */
unsigned nl_get_reply(const void *buf, size_t len, uint32_t pid, uint32_t first_seq, unsigned count,
		      struct nl_result *res, int (*fn)(const struct nlmsghdr *h, void *data), void *data);

/* Attributes: nla_put appends one to h if the message stays within max bytes
 * (NULL if not); nla_next walks buf[0, len) as nl_next_msg walks messages. */
struct nlattr *nla_put(struct nlmsghdr *h, size_t max, uint16_t type, const void *data, size_t len);
const struct nlattr *nla_next(const void *buf, size_t len, size_t *off);
void nla_strcpy(char *dst, size_t size, const struct nlattr *a);

#define for_each_nla(a, start, len, off) \
	for (size_t off = 0; ((a) = nla_next((start), (len), &off));)

static inline const void *nla_data(const struct nlattr *a)
{
	return (const char *)a + NLA_HDRLEN;
}

static inline size_t nla_len(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

int nl_parse_error(const struct nlmsghdr *h, struct nl_result *res);

/* The same for a request of the caller's (its type, length and payload set;
 * the flags and sequence number are set here): sock_diag's, say. */
int nl_dump_req(struct nl *nl, struct nlmsghdr *req, int (*fn)(const struct nlmsghdr *h, void *data), void *data);
/* Sends a batch in one sendmsg, the last request alone asking for an ACK,
 * and gives each request its result in res[]: its own error, or done when
 * the last one's ACK came without one; the transport's error when that ACK
 * never came. The batch is emptied, whatever happened. */
int nl_send_batch(struct nl *nl, struct nl_batch *b, struct nl_result *res);
/* The same for a batch of nl_put_get requests: their answers go to fn. */
int nl_send_gets(struct nl *nl, struct nl_batch *b, struct nl_result *res,
		 int (*fn)(const struct nlmsghdr *h, void *data), void *data);
/* A request's start at the batch's end: its header set, its fixed part
 * (fixed bytes after the header) zeroed; NULL when fewer than max bytes
 * are left. nl_batch_add counts it in the batch once built (0). */
struct nlmsghdr *nl_batch_msg(struct nl_batch *b, size_t max, uint16_t type, uint16_t flags, uint32_t seq,
			      size_t fixed);
int nl_batch_add(struct nl_batch *b, const struct nlmsghdr *h);
/* A batch that cannot be sent: every request gets err, and it is emptied. */
void nl_batch_fail(struct nl_batch *b, struct nl_result *res, int err);
