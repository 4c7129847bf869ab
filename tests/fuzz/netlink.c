// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The netlink reply parsers (src/net/netlink.c, rtnl.c): the receive loops of nl_dump()
 * and nl_send_batch(), and nl_parse_error/link/qdisc() on single messages.
 * Linked with -Wl,--wrap=send,--wrap=recvmsg (nlwrap.h): requests go
 * nowhere, and each recvmsg() returns the next datagram of the input, the
 * rest of the receive buffer poisoned so ASan reports any read past what
 * was "received".
 *
 * Input: byte 0 picks the call (0 link dump, 1 qdisc dump, 2 a batch of
 * 1 + byte 1 % 100 requests); then datagrams, each a 16-bit little-endian
 * length and its bytes. Replies are ours with port id FUZZ_PID; the dump's
 * sequence number is 1, the batch's FUZZ_SEQ, FUZZ_SEQ + 1, ...
 */
#include "fuzz.h"
#include "nlwrap.h"

static int on_link(const struct nlmsghdr *h, void *data)
{
	struct nl_link l;

	if (nl_parse_link(h, &l) == 0)
		fuzz_assert(memchr(l.name, '\0', sizeof(l.name)) && l.name[0], "link name");
	return 0;
}

static int on_qdisc(const struct nlmsghdr *h, void *data)
{
	static const char *const names[] = { "limit", "quantum", "buckets", "horizon_drop", "target" };
	struct nl_qdisc q;

	if (nl_parse_qdisc(h, &q) < 0)
		return 0;
	fuzz_assert(memchr(q.kind, '\0', sizeof(q.kind)) && q.kind[0], "qdisc kind");
	fuzz_assert(q.optlen <= sizeof(q.opts), "optlen %zu", q.optlen);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		unsigned long long v;

		qparam_get(q.kind, q.opts, q.optlen, names[i], &v);
	}
	return 0;
}

static void run_batch(struct nl *nl, unsigned count)
{
	static const struct qparam limit = { "limit", 1000 };
	static struct nl_batch b;
	struct nl_result res[NL_BATCH_REQS];

	b.len = b.count = 0;
	for (unsigned i = 0; i < count; i++)
		if (nl_put_qdisc(&b, FUZZ_SEQ + i, 2, TC_H_ROOT, 0, "fq", &limit, 1) < 0)
			abort();
	fuzz_assert(b.first_seq == FUZZ_SEQ, "first seq");
	nl_send_batch(nl, &b, res);
	for (unsigned i = 0; i < count; i++)
		fuzz_assert(res[i].err <= 0 && memchr(res[i].msg, '\0', sizeof(res[i].msg)),
			    "result %u: err %d", i, res[i].err);
}

/* One message through every parser. */
static void parse_one(const struct nlmsghdr *m)
{
	struct nl_result res;
	struct nl_link l;
	struct nl_qdisc q;

	if (nl_parse_error(m, &res) == 0)
		fuzz_assert(res.err <= 0, "error %d", res.err);
	nl_parse_link(m, &l);
	nl_parse_qdisc(m, &q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nl nl = { .fd = -1, .seq = 0, .pid = FUZZ_PID };

	if (size < 2)
		return 0;
	in = data + 2;
	in_left = size - 2;
	switch (data[0] % 3) {
	case 0:
		nl_dump(&nl, RTM_GETLINK, on_link, NULL);
		break;
	case 1:
		nl_dump(&nl, RTM_GETQDISC, on_qdisc, NULL);
		break;
	default:
		run_batch(&nl, 1 + data[1] % NL_BATCH_REQS);
		break;
	}
	unpoison();
	each_message(data + 2, size - 2, parse_one);
	return 0;
}
