// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The rtnetlink messages earlytune sends and reads, over the generic layer
 * of netlink.c: qdisc replacements and deletions, link and qdisc gets
 * appended to a batch, link and qdisc answers parsed. Builders check every
 * bound against NL_MSG_MAX; parsers trust nothing in a message.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "net/netlink.h"

/* ---- building ------------------------------------------------------------ */

/* One RTM_NEWQDISC, create-or-replace, appended to the batch. */
int nl_put_qdisc(struct nl_batch *b, uint32_t seq, int ifindex, uint32_t parent, uint32_t handle,
		 const char *kind, const struct qparam *params, size_t nparams)
{
	struct nlmsghdr *h = nl_batch_msg(b, NL_MSG_MAX, RTM_NEWQDISC,
					  NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE, seq, sizeof(struct tcmsg));
	unsigned char opts[NL_OPTS_MAX];
	struct tcmsg *tcm;
	int olen;

	if (!h)
		return -ENOBUFS;
	tcm = NLMSG_DATA(h);
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_parent = parent;
	tcm->tcm_handle = handle;
	if (!nla_put(h, NL_MSG_MAX, TCA_KIND, kind, strlen(kind) + 1))
		return -EMSGSIZE;
	olen = qparam_encode(kind, params, nparams, opts, sizeof(opts));
	if (olen < 0)
		return olen;
	if (olen > 0 && !nla_put(h, NL_MSG_MAX, TCA_OPTIONS | (strstr(kind, "fifo") ? 0 : NLA_F_NESTED),
				 opts, (size_t)olen))
		return -EMSGSIZE;
	return nl_batch_add(b, h);
}

/* One RTM_DELQDISC of a root: the kernel then attaches its default again. */
int nl_put_qdisc_del(struct nl_batch *b, uint32_t seq, int ifindex, uint32_t handle)
{
	struct nlmsghdr *h = nl_batch_msg(b, NL_MSG_MAX, RTM_DELQDISC, NLM_F_REQUEST | NLM_F_ACK, seq,
					  sizeof(struct tcmsg));
	struct tcmsg *tcm;

	if (!h)
		return -ENOBUFS;
	tcm = NLMSG_DATA(h);
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_parent = TC_H_ROOT;
	tcm->tcm_handle = handle;
	return nl_batch_add(b, h);
}

/* One get request, no dump: RTM_GETLINK of an index (or of a name when
 * ifindex is 0) without statistics, or RTM_GETQDISC of the qdisc under
 * parent. The kernel sends a qdisc's answer to the asker only under
 * NLM_F_ECHO, and nothing for a built-in root (noop): the ACK ends each. */
int nl_put_get(struct nl_batch *b, uint32_t seq, uint16_t type, int ifindex, const char *name, uint32_t parent)
{
	uint32_t mask = RTEXT_FILTER_SKIP_STATS;
	bool link = type == RTM_GETLINK;
	struct nlmsghdr *h = nl_batch_msg(b, NL_MSG_MAX, type, NLM_F_REQUEST | NLM_F_ACK | (link ? 0 : NLM_F_ECHO), seq,
					  link ? sizeof(struct ifinfomsg) : sizeof(struct tcmsg));

	if (!h)
		return -ENOBUFS;
	if (link) {
		((struct ifinfomsg *)NLMSG_DATA(h))->ifi_index = ifindex;
		if ((!ifindex && (!name || !nla_put(h, NL_MSG_MAX, IFLA_IFNAME, name, strlen(name) + 1))) ||
		    !nla_put(h, NL_MSG_MAX, IFLA_EXT_MASK, &mask, sizeof(mask)))
			return -EINVAL;
	} else {
		((struct tcmsg *)NLMSG_DATA(h))->tcm_ifindex = ifindex;
		((struct tcmsg *)NLMSG_DATA(h))->tcm_parent = parent;
	}
	return nl_batch_add(b, h);
}

bool nl_batch_full(const struct nl_batch *b)
{
	return b->count >= NL_BATCH_REQS || sizeof(b->buf) - b->len < NL_MSG_MAX;
}

/* ---- parsing ------------------------------------------------------------- */

/* The fixed header of a message and what follows it: NULL when h is
 * shorter than the header (h->nlmsg_len bytes are readable). */
static const void *msg_body(const struct nlmsghdr *h, size_t fixed, const char **attrs, size_t *alen)
{
	if (h->nlmsg_len < NLMSG_LENGTH(fixed))
		return NULL;
	*alen = h->nlmsg_len > NLMSG_SPACE(fixed) ? h->nlmsg_len - NLMSG_SPACE(fixed) : 0;
	*attrs = (const char *)h + NLMSG_SPACE(fixed);
	return NLMSG_DATA(h);
}

int nl_parse_link(const struct nlmsghdr *h, struct nl_link *l)
{
	const struct ifinfomsg *ifi;
	const struct nlattr *a;
	bool tx = false;
	const char *p;
	size_t len;

	if (h->nlmsg_type != RTM_NEWLINK || !(ifi = msg_body(h, sizeof(*ifi), &p, &len)))
		return -EBADMSG;
	*l = (struct nl_link){ .ifindex = ifi->ifi_index, .type = ifi->ifi_type, .flags = ifi->ifi_flags, .num_tx = 1 };
	/* The two it needs come in the first half of some forty attributes. */
	for_each_nla(a, p, len, off) {
		if (a->nla_type == IFLA_IFNAME)
			nla_strcpy(l->name, sizeof(l->name), a);
		else if (a->nla_type == IFLA_NUM_TX_QUEUES && nla_len(a) >= sizeof(uint32_t))
			memcpy(&l->num_tx, nla_data(a), sizeof(uint32_t)), tx = true;
		if (tx && l->name[0])
			break;
	}
	/* A queue count mq cannot number would overflow the request count. */
	return l->name[0] && l->num_tx >= 1 && l->num_tx <= NL_TXQ_MAX ? 0 : -EBADMSG;
}

int nl_parse_qdisc(const struct nlmsghdr *h, struct nl_qdisc *q)
{
	const struct tcmsg *t;
	const struct nlattr *a;
	const char *p;
	size_t len;

	if (h->nlmsg_type != RTM_NEWQDISC || !(t = msg_body(h, sizeof(*t), &p, &len)))
		return -EBADMSG;
	*q = (struct nl_qdisc){ .ifindex = t->tcm_ifindex, .handle = t->tcm_handle, .parent = t->tcm_parent };
	for_each_nla(a, p, len, off) {
		if (a->nla_type == TCA_KIND) {
			nla_strcpy(q->kind, sizeof(q->kind), a);
		} else if ((a->nla_type & NLA_TYPE_MASK) == TCA_OPTIONS) {
			q->optlen = nla_len(a) < sizeof(q->opts) ? nla_len(a) : sizeof(q->opts);
			memcpy(q->opts, nla_data(a), q->optlen);
		}
	}
	return q->kind[0] ? 0 : -EBADMSG;
}

int nl_dump(struct nl *nl, uint16_t type, int (*fn)(const struct nlmsghdr *h, void *data), void *data)
{
	/* The header the kernel parses: tcmsg for qdiscs, ifinfomsg for links. */
	struct {
		struct nlmsghdr h;
		struct tcmsg t;
		char attrs[16];
	} req = {
		.h.nlmsg_len = NLMSG_LENGTH(type == RTM_GETQDISC ? sizeof(struct tcmsg)
								 : sizeof(struct ifinfomsg)),
		.h.nlmsg_type = type,
		.t.tcm_family = AF_UNSPEC,
	};
	uint32_t mask = RTEXT_FILTER_SKIP_STATS;

	/* Links without their statistics: a tenth of the bytes to read. */
	if (type == RTM_GETLINK && !nla_put(&req.h, sizeof(req), IFLA_EXT_MASK, &mask, sizeof(mask)))
		return -EMSGSIZE;
	return nl_dump_req(nl, &req.h, fn, data);
}
