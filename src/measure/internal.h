/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * measure/'s own parts, for the folder and its tests: the connections read
 * over sock_diag (diag.c), the host's TCP settings and memory (host.c), what
 * the samples mean (interp.c: pure, fed recorded samples by the unit
 * tests), and the output (report.c).
 */
#pragma once

#include <linux/netlink.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/root.h"

#define MT_ADDR_MAX (INET6_ADDRSTRLEN + 8) /* "[addr]:port" */

/* One connection as one sock_diag answer showed it. tcp_info is the uapi
 * header's layout, zero past info_len: an older kernel sends a shorter one,
 * and a field it does not cover is absent, not zero (mt_has). */
struct mt_sample {
	uint64_t cookie;
	int family;
	unsigned char saddr[16], daddr[16];
	uint16_t sport, dport;
	char src[MT_ADDR_MAX], dst[MT_ADDR_MAX];
	long long t_us;        /* when it was read (CLOCK_MONOTONIC) */
	struct tcp_info ti;
	size_t info_len;       /* bytes of ti the kernel sent */
	char cc[16];           /* INET_DIAG_CONG, "" when not sent */
	uint32_t sndbuf, rcvbuf; /* INET_DIAG_SKMEMINFO: sk_sndbuf, sk_rcvbuf */
	uint32_t queued;         /* sk_wmem_queued: what the send buffer holds, sent or not */
	bool have_mem, have_queued;
};

/* Whether s's tcp_info covers field f. */
#define mt_has(s, f) \
	((s)->info_len >= offsetof(struct tcp_info, f) + sizeof(((struct tcp_info *)0)->f))

/* A connection over the window: its first and last samples and what the
 * ones between add. */
struct mt_flow {
	struct mt_sample first, last;
	unsigned n;                 /* samples */
	unsigned app_limited;       /* samples whose last rate sample the application limited */
	unsigned buf_held;          /* of those, the ones whose send buffer was at least half full */
	uint64_t sum_unacked;       /* segments, over the samples */
	uint64_t sum_queued;        /* bytes, over the samples that said it */
	unsigned n_queued;
	uint64_t link_Bps;          /* the largest delivery rate not limited by the application; 0: none */
};

/* The host's side: per network namespace sysctls and the global TCP memory. */
struct mt_host {
	unsigned long long wmem[3], rmem[3], tcp_mem[3]; /* tcp_mem in pages */
	unsigned long long mem_pages;  /* /proc/net/sockstat: TCP ... mem N */
	bool have_wmem, have_rmem, have_tcp_mem, have_mem;
	unsigned long long page;       /* bytes per page */
	char cc[16];                   /* net.ipv4.tcp_congestion_control */
	/* bbr as net_module_available answers for tcp_bbr: 1 offered now
	 * (tcp_available_congestion_control lists it), 2 a module the kernel
	 * loads when the sysctl names it, 0 not in this kernel, 3 unknown;
	 * bbr_why says why for 0 and 3. */
	int bbr;
	char bbr_why[384];
};

enum mt_limit { MT_IDLE, MT_UNKNOWN, MT_SNDBUF, MT_RWND, MT_CWND, MT_APP };

/* The one change a measurement asks for: a sysctl and its value, on this
 * host or on the peer; what --apply writes as a sysctl.d file of its own
 * with the measurement as its reason. */
struct mt_change {
	const char *sysctl;   /* NULL: no change */
	char value[64];
	bool on_peer;         /* the setting is the other host's */
	uint64_t pred_bps;    /* predicted throughput, bit/s; 0: no prediction */
	uint64_t pred_inflight; /* bytes */
	uint64_t flow_pages;  /* cost: what one such flow may hold */
	uint64_t flows;       /* such flows before tcp_mem's pressure threshold */
	bool have_cost;
	bool pred_floor;      /* pred_bps is a lower bound (the best rate seen before the change) */
	const char *lacking;  /* no change: the value the limit asks for, which this kernel lacks */
};

struct mt_verdict {
	enum mt_limit limit;
	unsigned share[4];      /* permille of the window: send buffer, receive window, cwnd, application */
	uint64_t rate_bps;      /* bytes acked over the window */
	uint64_t delivery_bps;  /* the kernel's last delivery-rate sample */
	uint64_t link_bps;      /* mt_flow.link_Bps in bits; 0: unknown */
	uint32_t min_rtt_us;
	uint64_t bdp;           /* bytes: the link (else the delivery rate) × min RTT */
	uint64_t cwnd_bytes, inflight, notsent; /* inflight: unacked × mss, mean over the samples */
	uint64_t queued;        /* sk_wmem_queued, mean over the samples; 0: unknown */
	uint32_t retrans, segs; /* over the window */
	struct mt_change change;
	char why[768];          /* the limit in words, or why nothing is suggested */
};

/* tcp.c: the connections a measurement looks at (--peer, --port) */
struct mt_filter {
	unsigned char addr[16];
	int family;       /* 0: no --peer */
	unsigned port;    /* 0: any */
};
int mt_filter_init(struct mt_filter *f, const char *peer, unsigned port); /* -EINVAL: peer is no address */
/* Whether f selects s: its port, and its peer by address (an IPv4 one
 * also as an IPv6 socket's IPv4-mapped peer, and the other way). */
bool mt_filter_match(const struct mt_filter *f, const struct mt_sample *s);

/* diag.c */
int mt_parse_diag(const struct nlmsghdr *h, struct mt_sample *s);
struct mt_set {
	struct mt_sample *v;
	size_t n, cap;
	long long t_us;
};
int mt_on_diag(const struct nlmsghdr *h, void *data); /* nl_dump_req's callback: appends to a mt_set */
struct nl;
int mt_dump(struct nl *nl, struct mt_set *set); /* both families over nl; 0 or -errno */
int mt_read(struct mt_set *set); /* mt_dump over a socket of its own */

/* host.c */
void mt_host_read(const struct root *r, struct mt_host *h);
struct ctx;
void mt_host_bbr(struct ctx *c, struct mt_host *h); /* h->bbr where the list lacks it: the module and the kernel asked */

/* interp.c */
void mt_flow_add(struct mt_flow *f, const struct mt_sample *s);
void mt_interpret(const struct mt_flow *f, const struct mt_host *h, struct mt_verdict *v);
const char *mt_limit_name(enum mt_limit l);
