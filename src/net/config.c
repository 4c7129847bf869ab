// SPDX-License-Identifier: LGPL-2.1-or-later
/* The net domain's row: the check of [net] keys (a bad line is reported
 * with the rest of the configuration, before anything is written), and what
 * revert and the records need to know of interfaces and qdiscs. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "net/internal.h"

static const char net_keys[] = "congestion_control qdisc interfaces force rps_sock_flow_entries";

/* 0 for a key of [net] (unset by an empty value), else why not. */
static int net_known_key(const char *key, char *why, size_t size)
{
	char buf[96];

	if (word_listed(net_keys, key) || !strncmp(key, "qdisc.", 6))
		return 0;
	snprintf(why, size, "unknown key '%s' in [net]%sallowed: congestion_control qdisc qdisc.PARAM interfaces force rps_sock_flow_entries",
		 key, did_you_mean(key, net_keys, buf, sizeof(buf)));
	return -EINVAL;
}

/* Mainline's congestion controls (net/ipv4/tcp_*.c, 5.4 → 6.18). */
static const char cc_names[] = "reno cubic bbr bic cdg dctcp highspeed htcp hybla illinois lp nv "
			       "scalable vegas veno westwood yeah";
/* The kernel's qdisc kinds (net/sched/sch_*.c); of them, the ones a root
 * or net.core.default_qdisc can take without parameters or classes: the
 * others fail to attach, or attach and send nothing. */
static const char qdisc_settable[] = "fq fq_codel fq_pie cake codel pie sfq pfifo bfifo "
				     "pfifo_head_drop pfifo_fast";
static const char qdisc_other[] = "atm cbq cbs choke clsact drr dsmark dualpi2 etf ets gred hfsc hhf "
				  "htb ingress mq mqprio multiq netem noqueue plug prio qfq red sfb "
				  "skbprio taprio tbf teql";

static int check_cc(const char *value, char *why, size_t size)
{
	char buf[96];

	if (word_listed(cc_names, value))
		return 0;
	snprintf(why, size, "[net] congestion_control = '%s' is not a congestion control of Linux%sknown: %s",
		 value, did_you_mean(value, cc_names, buf, sizeof(buf)), cc_names);
	return -EINVAL;
}

static int check_qdisc(const char *value, char *why, size_t size)
{
	char buf[96];

	if (word_listed(qdisc_settable, value))
		return 0;
	if (word_listed(qdisc_other, value))
		snprintf(why, size, "[net] qdisc = '%s' needs parameters or classes earlytune does not set; "
				    "it sets: %s", value, qdisc_settable);
	else
		snprintf(why, size, "[net] qdisc = '%s' is not a qdisc of Linux%sit sets: %s", value,
			 did_you_mean(value, qdisc_settable, buf, sizeof(buf)), qdisc_settable);
	return -EINVAL;
}

static int check_globs(const char *value, char *why, size_t size)
{
	char w[WORD_MAX];

	while (next_word(&value, w, sizeof(w)))
		if (cfg_glob_check("[net] interfaces", w[0] == '!' && w[1] ? w + 1 : w, why, size) < 0)
			return -EINVAL;
	return 0;
}

/* A value some kind with that parameter takes; net_check_conf checks it
 * against the kind in force, and says a name no kind has with the kind. */
static int check_param(const char *name, const char *value, char *why, size_t size)
{
	static const char *const kinds[] = { "fq", "fq_codel", "pfifo", "bfifo", "pfifo_head_drop" };
	unsigned long long v;
	int r = 0;

	if (!*value || !qparam_known(NULL, name))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		if (qparam_known(kinds[i], name) && (r = qparam_parse(kinds[i], name, value, &v, why, size)) == 0)
			return 0;
	return r;
}

int net_check_key(const char *key, const char *value, char *why, size_t size)
{
	char buf[96];

	if (!*value && strncmp(key, "qdisc.", 6))
		return net_known_key(key, why, size);
	if (!strcmp(key, "congestion_control"))
		return check_cc(value, why, size);
	if (!strcmp(key, "qdisc"))
		return check_qdisc(value, why, size);
	if (!strcmp(key, "force")) {
		if (!strcmp(value, "yes") || !strcmp(value, "no"))
			return 0;
		snprintf(why, size, "[net] force = '%s'%sallowed: yes no", value,
			 did_you_mean(value, "yes no", buf, sizeof(buf)));
		return -EINVAL;
	}
	if (!strcmp(key, "interfaces"))
		return check_globs(value, why, size);
	if (!strcmp(key, "rps_sock_flow_entries")) {
		unsigned long long v;

		/* The kernel refuses more than 2^29 (an overflow of its table). */
		if (parse_u64(value, &v) == 0 && v <= 1u << 29)
			return 0;
		snprintf(why, size, "[net] rps_sock_flow_entries = '%s'; allowed: a whole number of flows (0 to "
			 "536870912; the kernel keeps the power of two at or above it)", value);
		return -EINVAL;
	}
	if (!strncmp(key, "qdisc.", 6))
		return check_param(key + 6, value, why, size);
	return net_known_key(key, why, size);
}

/* qdisc.PARAM against the kind that is in force once every file is read
 * (the kind may come from another file): each wrong one on its own line. */
void net_check_conf(struct config *c)
{
	const struct cfg_entry *qe = config_get(c, "net", NULL, "qdisc");
	_cleanup_(freep) char *where = qe ? config_source(qe) : NULL;
	char why[384], buf[96], kind[64];
	/* config_reject moves the entries: the kind is copied, not pointed at. */
	const char *q = qe ? kind : NULL;

	snprintf(kind, sizeof(kind), "%s", qe ? qe->value : "");
	for (size_t i = 0; i < c->n;) {
		const struct cfg_entry *e = &c->v[i];
		const char *name = e->key + 6, *known;
		unsigned long long v;

		if (strcmp(e->section, "net") || strncmp(e->key, "qdisc.", 6) || !*e->value)
			i++;
		else if (!q)
			config_reject(c, i, "[net] %s is set but no [net] qdisc is: a parameter needs its qdisc",
				      e->key);
		else if (!qparam_known(q, name) && (known = qparam_names(q)))
			config_reject(c, i, "qdisc %s (%s) has no parameter '%s'%searlytune sets%s%s of %s",
				      q, where ? where : "?", name, did_you_mean(name, known, buf, sizeof(buf)),
				      *known ? " " : " no parameters", known, q);
		else if (qparam_parse(q, name, e->value, &v, why, sizeof(why)) < 0)
			config_reject(c, i, "%s", why);
		else
			i++;
	}
}

/* Revert: the qdisc records go back to the kernel in one batch. */
bool net_batched(const char *setting)
{
	return !strcmp(setting, "qdisc");
}

int net_revert_batch(struct ctx *c, struct item **items, const char **values, size_t n)
{
	int r = net_revert_qdiscs(c, items, values, n);

	if (r != -EXDEV)
		return r;
	for (size_t k = 0; k < n; k++) {
		item_setf(&items[k]->error, "netlink reaches only the running kernel, not --root %s", c->root.dir);
		items[k]->result = RES_FAILED;
	}
	return 0;
}

/* The index interface name has now, or 0 (none by that name, or unreadable:
 * revert then matches no record by index). */
int net_iface_index(const struct root *r, const char *name)
{
	int i = net_ifindex_of(r, name);

	return i > 0 ? i : 0;
}

/* The sysctls [net] sets, for the guard that keeps them past
 * systemd-sysctl (the row's sysctls hook). */
void net_sysctls(const struct config *cfg,
		 void (*emit)(const char *key, const struct cfg_entry *e, bool optional, void *data), void *data)
{
	const struct cfg_entry *q = config_get(cfg, "net", NULL, "qdisc");
	const struct cfg_entry *cc = config_get(cfg, "net", NULL, "congestion_control");
	const struct cfg_entry *flows = config_get(cfg, "net", NULL, "rps_sock_flow_entries");

	if (q)
		emit("net.core.default_qdisc", q, false, data);
	if (cc)
		emit("net.ipv4.tcp_congestion_control", cc, false, data);
	if (flows && *flows->value)
		emit("net.core.rps_sock_flow_entries", flows, false, data);
}
