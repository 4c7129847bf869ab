/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rtnetlink, only what earlytune needs, over base/netlink.h: the link and
 * qdisc messages built and parsed (rtnl.c); the qdisc parameters
 * TCA_OPTIONS carries (qdisc.c). Only net/, measure/ (sock_diag) and their
 * tests include it. */
#pragma once

#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/netlink.h"

#define NL_MSG_MAX 512          /* one qdisc request */
#define NL_OPTS_MAX 256          /* TCA_OPTIONS kept from a dump */
#define NL_TXQ_MAX 0xffff        /* mq numbers its children in 16 bits */

struct nl_link {
	int ifindex;
	char name[16];
	unsigned short type;  /* ARPHRD_* */
	unsigned flags;       /* IFF_* */
	unsigned num_tx;      /* IFLA_NUM_TX_QUEUES */
};

struct nl_qdisc {
	int ifindex;
	uint32_t handle, parent;
	char kind[32];
	unsigned char opts[NL_OPTS_MAX]; /* TCA_OPTIONS payload */
	size_t optlen;
};

/* A parameter of a qdisc, already validated: TCA_OPTIONS encodes it. */
struct qparam {
	const char *name;
	unsigned long long value;
};

/* Builders and parsers: pure functions over buffers, unit-tested. */
int nl_put_qdisc(struct nl_batch *b, uint32_t seq, int ifindex, uint32_t parent, uint32_t handle,
		 const char *kind, const struct qparam *params, size_t nparams);
int nl_put_qdisc_del(struct nl_batch *b, uint32_t seq, int ifindex, uint32_t handle);
int nl_put_get(struct nl_batch *b, uint32_t seq, uint16_t type, int ifindex, const char *name, uint32_t parent);
/* No room for one more request: its bytes, or the answers' budget NL_BATCH_REQS. */
bool nl_batch_full(const struct nl_batch *b);
int nl_parse_link(const struct nlmsghdr *h, struct nl_link *l);
int nl_parse_qdisc(const struct nlmsghdr *h, struct nl_qdisc *q);
int qparam_encode(const char *kind, const struct qparam *p, size_t n, unsigned char *out, size_t size);
int qparam_parse(const char *kind, const char *name, const char *value, unsigned long long *out,
		 char *why, size_t size);
int qparam_get(const char *kind, const unsigned char *opts, size_t len, const char *name,
	       unsigned long long *value);
bool qparam_known(const char *kind, const char *name);
unsigned long long qparam_stored(const char *kind, const char *name, unsigned long long v);
const char *qparam_names(const char *kind);
void qparam_format(const char *kind, const char *name, unsigned long long v, char *out, size_t size);

/* rtnl.c: a dump calls fn for every message of the given type. */
int nl_dump(struct nl *nl, uint16_t type, int (*fn)(const struct nlmsghdr *h, void *data), void *data);
