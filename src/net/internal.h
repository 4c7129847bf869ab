/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The net domain's own: the handles of earlytune's roots, the kernel's
 * links and qdiscs as dumped, and [net] as read once. Only net/ and its
 * tests include it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/item.h"
#include "net/net.h"
#include "net/netlink.h"

/* Roots earlytune creates carry these handles, so it knows its own without
 * a record: e7e7: for mq, e7e8:/e7e9: alternately for a single root (a new
 * handle makes the kernel create and graft, whatever the kind before). */
#define MQ_HANDLE 0xe7e70000u
#define ROOT_A 0xe7e80000u
#define ROOT_B 0xe7e90000u

static inline bool own_handle(uint32_t h)
{
	return h == MQ_HANDLE || h == ROOT_A || h == ROOT_B;
}

/* A run about one interface (--ifindex or --iface, udev's): it asks the
 * kernel for that interface only and leaves the global settings alone. */
static inline bool one_iface(const struct ctx *c)
{
	return c->ifindex || c->iface;
}
#define MAX_PARAMS 16
#define CC_AVAILABLE "proc/sys/net/ipv4/tcp_available_congestion_control"
#define RPS_FLOWS "proc/sys/net/core/rps_sock_flow_entries"

struct qdiscs {
	struct nl_qdisc *v;
	size_t n, cap;
};

struct links {
	struct nl_link *v;
	size_t n, cap;
};

struct netconf {
	const char *kind;
	struct qparam params[MAX_PARAMS];
	size_t nparams;
	const struct cfg_entry *qdisc_entry, *interfaces;
	bool force;
	unsigned long long netns; /* the namespace's inode (net_netns), 0 unknown */
	bool positive_globs; /* interfaces = names some: the default selection is unused */
};

/* dump.c */
/* The "mq pfifo" text of an interface's qdiscs; v sorted by ifindex. */
void net_describe(const struct nl_qdisc *v, size_t n, int ifindex, char *out, size_t size);
const struct nl_qdisc *net_root_of(const struct qdiscs *qs, int ifindex);
void net_describe_qs(const struct qdiscs *qs, int ifindex, char *out, size_t size);
void net_describe_params(const struct netconf *nc, const struct qdiscs *qs, int ifindex, char *out, size_t size);
bool net_holds(const struct netconf *nc, const struct qdiscs *qs, int ifindex, unsigned ntx);
int net_dump_qdiscs(struct nl *nl, struct qdiscs *qs);
int net_dump_all(struct nl *nl, struct links *ls, struct qdiscs *qs);
/* One interface by get requests, appended (nothing when it does not exist):
 * its link by index, or by name when ifindex is 0, and its qdiscs; or only
 * the qdiscs, an mq root's children on queues 1..ntx. Costs the same on a
 * host with any number of interfaces, but for the kernel's own mq root. */
int net_get_iface(struct nl *nl, int ifindex, const char *name, struct links *ls, struct qdiscs *qs);
int net_get_qdiscs(struct nl *nl, int ifindex, unsigned ntx, struct qdiscs *qs);

/* iface.c */
void net_load_conf(struct ctx *c, struct netconf *nc);
int net_check_params(struct ctx *c, struct netconf *nc, char *why, size_t size);
void net_desired(struct ctx *c, struct item *it, const struct netconf *nc, bool mq);

/* select.c */
/* Whether [net] selects interface name (type ARPHRD_*, root qdisc kind or
 * NULL when unknown); when not, why names the rule that excluded it. */
bool net_selected(struct ctx *c, const struct netconf *nc, const char *name, unsigned type, const char *kind,
		  char *why, size_t size);
bool net_is_iface_entry(struct ctx *c, const char *name);

/* sysctl.c */
void net_plan_sysctls(struct ctx *c, struct plan *p, const struct netconf *nc);

/* apply.c */
/* Requests go out in batches within their budget (NL_BATCH_REQS answers, the
 * batch's bytes), an interface's split over as many as it needs; res[k] is
 * the answer to the k-th request sent. */
struct sender {
	struct nl nl;
	struct nl_batch *b;
	struct nl_result *res;
	size_t nres; /* answers collected: the index of the batch's first request */
	int lost;    /* no socket since a reopen failed: its -errno */
};
/* Sends the batch: a failed round marks its own requests and reopens the socket. */
void net_flush(struct sender *s);

/* revert.c */
int net_revert_qdiscs(struct ctx *c, struct item **items, const char **values, size_t n);
