// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What earlytune knows of qdisc parameters: their names, units, ranges and
 * how TCA_OPTIONS carries them (nested TCA_FQ_* / TCA_FQ_CODEL_* attributes
 * for fq and fq_codel, struct tc_fifo_qopt for the fifos). Only parameters
 * the configuration sets are sent; the kernel's defaults stand otherwise.
 */
#include <errno.h>
#include <limits.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "net/netlink.h"

enum unit { U_COUNT, U_BOOL, U_RATE, U_USEC, U_NSEC, U_POW2LOG };

struct pdef {
	const char *kind;
	const char *name;
	int attr;        /* TCA_* inside TCA_OPTIONS; -1: the fifo struct */
	enum unit unit;
	int width;       /* bytes on the wire: 4 or 1 */
	unsigned long long min, max; /* what the kernel's change() accepts */
};

static const struct pdef pdefs[] = {
	{ "fq", "limit", TCA_FQ_PLIMIT, U_COUNT, 4, 1, UINT32_MAX },
	{ "fq", "flow_limit", TCA_FQ_FLOW_PLIMIT, U_COUNT, 4, 0, UINT32_MAX },
	{ "fq", "quantum", TCA_FQ_QUANTUM, U_COUNT, 4, 1, 1 << 20 },
	{ "fq", "initial_quantum", TCA_FQ_INITIAL_QUANTUM, U_COUNT, 4, 0, 1 << 20 },
	{ "fq", "maxrate", TCA_FQ_FLOW_MAX_RATE, U_RATE, 4, 0, UINT32_MAX },
	{ "fq", "pacing", TCA_FQ_RATE_ENABLE, U_BOOL, 4, 0, 1 },
	{ "fq", "buckets", TCA_FQ_BUCKETS_LOG, U_POW2LOG, 4, 2, 1 << 18 },
	{ "fq", "orphan_mask", TCA_FQ_ORPHAN_MASK, U_COUNT, 4, 0, UINT32_MAX },
	{ "fq", "low_rate_threshold", TCA_FQ_LOW_RATE_THRESHOLD, U_RATE, 4, 0, UINT32_MAX },
	{ "fq", "ce_threshold", TCA_FQ_CE_THRESHOLD, U_USEC, 4, 0, UINT32_MAX },
	{ "fq", "timer_slack", TCA_FQ_TIMER_SLACK, U_NSEC, 4, 0, UINT32_MAX },
	{ "fq", "horizon", TCA_FQ_HORIZON, U_USEC, 4, 0, UINT32_MAX },
	{ "fq", "horizon_drop", TCA_FQ_HORIZON_DROP, U_BOOL, 1, 0, 1 },
	{ "fq_codel", "limit", TCA_FQ_CODEL_LIMIT, U_COUNT, 4, 1, UINT32_MAX },
	{ "fq_codel", "flows", TCA_FQ_CODEL_FLOWS, U_COUNT, 4, 1, 65536 },
	{ "fq_codel", "quantum", TCA_FQ_CODEL_QUANTUM, U_COUNT, 4, 1, 1 << 20 },
	{ "fq_codel", "target", TCA_FQ_CODEL_TARGET, U_USEC, 4, 0, UINT32_MAX },
	{ "fq_codel", "interval", TCA_FQ_CODEL_INTERVAL, U_USEC, 4, 0, UINT32_MAX },
	{ "fq_codel", "ecn", TCA_FQ_CODEL_ECN, U_BOOL, 4, 0, 1 },
	{ "fq_codel", "ce_threshold", TCA_FQ_CODEL_CE_THRESHOLD, U_USEC, 4, 0, UINT32_MAX },
	{ "fq_codel", "memory_limit", TCA_FQ_CODEL_MEMORY_LIMIT, U_COUNT, 4, 0, UINT32_MAX },
	{ "pfifo", "limit", -1, U_COUNT, 4, 0, UINT32_MAX },
	{ "bfifo", "limit", -1, U_COUNT, 4, 0, UINT32_MAX },
	{ "pfifo_head_drop", "limit", -1, U_COUNT, 4, 0, UINT32_MAX },
};

/* A first letter that differs settles most rows without a strcmp: a run
 * looks parameters up a few times per interface, and pfifo's row is last. */
static const struct pdef *find(const char *kind, const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(pdefs); i++)
		if ((!kind || (pdefs[i].kind[0] == kind[0] && !strcmp(pdefs[i].kind, kind))) &&
		    pdefs[i].name[0] == name[0] && !strcmp(pdefs[i].name, name))
			return &pdefs[i];
	return NULL;
}

bool qparam_known(const char *kind, const char *name)
{
	return find(kind, name) != NULL;
}

/* The parameter names of a kind, from the table (into a static buffer). */
const char *qparam_names(const char *kind)
{
	static char names[512];
	size_t len = 0;

	names[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(pdefs); i++)
		if (!strcmp(pdefs[i].kind, kind) && len < sizeof(names))
			len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", len ? " " : "",
						pdefs[i].name);
	return names;
}

static int suffix(const char *end, const char *const *names, const unsigned long long *mult,
		  size_t n, unsigned long long *m)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(end, names[i])) {
			*m = mult[i];
			return 0;
		}
	return -EINVAL;
}

/* Rates as tc writes them: bit/s by default, or with bit/kbit/mbit/gbit;
 * the kernel wants bytes per second. Times: µs by default, or us/ms/s. */
static int parse_unit(enum unit u, const char *s, unsigned long long *out)
{
	static const char *const rate_n[] = { "", "bit", "kbit", "mbit", "gbit" };
	static const unsigned long long rate_m[] = { 1, 1, 1000, 1000000, 1000000000ULL };
	static const char *const time_n[] = { "", "us", "ms", "s" };
	static const unsigned long long time_m[] = { 1, 1, 1000, 1000000 };
	unsigned long long v, m = 1;
	char *end;

	if (u == U_BOOL && (!strcmp(s, "yes") || !strcmp(s, "no"))) {
		*out = !strcmp(s, "yes");
		return 0;
	}
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -ERANGE;
	if (u == U_RATE && suffix(end, rate_n, rate_m, ARRAY_SIZE(rate_n), &m) < 0)
		return -EINVAL;
	if ((u == U_USEC || u == U_NSEC) && suffix(end, time_n, time_m, ARRAY_SIZE(time_n), &m) < 0)
		return -EINVAL;
	if (u != U_RATE && u != U_USEC && u != U_NSEC && *end)
		return -EINVAL;
	if (u == U_NSEC)
		m *= 1000;
	if (m && v > ULLONG_MAX / m)
		return -ERANGE;
	*out = u == U_RATE ? v * m / 8 : v * m;
	return 0;
}

/* Checks a "qdisc.NAME = VALUE" of any kind earlytune knows; the kind itself
 * is checked against the name at plan time. */
int qparam_parse(const char *kind, const char *name, const char *value, unsigned long long *out,
		 char *why, size_t size)
{
	const struct pdef *d = find(kind, name);

	if (!d) {
		if (kind)
			snprintf(why, size, "qdisc %s has no parameter '%s' earlytune can set; it knows: %s",
				 kind, name, *qparam_names(kind) ? qparam_names(kind) : "none");
		else
			snprintf(why, size, "unknown qdisc parameter '%s'; earlytune sets parameters of fq, fq_codel, pfifo, bfifo", name);
		return -EINVAL;
	}
	if (parse_unit(d->unit, value, out) < 0 || *out < d->min || *out > d->max ||
	    (d->unit == U_POW2LOG && (*out == 0 || (*out & (*out - 1))))) {
		snprintf(why, size, "qdisc.%s = '%s': expected %s from %llu to %llu", name, value,
			 d->unit == U_BOOL ? "yes or no" :
			 d->unit == U_RATE ? "a rate in bit/s (suffixes bit kbit mbit gbit)" :
			 d->unit == U_USEC ? "a time in µs (suffixes us ms s)" :
			 d->unit == U_NSEC ? "a time in µs (suffixes us ms s)" :
			 d->unit == U_POW2LOG ? "a power of two" : "a whole number",
			 d->min, d->max);
		return -EINVAL;
	}
	return 0;
}

static unsigned ilog2(unsigned long long v)
{
	unsigned r = 0;

	while (v >>= 1)
		r++;
	return r;
}

static unsigned long long wire_value(const struct pdef *d, unsigned long long v)
{
	return d->unit == U_POW2LOG ? ilog2(v) : v;
}

/* The TCA_OPTIONS payload for these parameters; 0 bytes when none are set. */
int qparam_encode(const char *kind, const struct qparam *p, size_t n, unsigned char *out, size_t size)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		const struct pdef *d = find(kind, p[i].name);
		unsigned long long v;
		uint32_t v32;
		uint8_t v8;
		struct nlattr a;

		if (!d)
			return -EINVAL;
		v = wire_value(d, p[i].value);
		if (d->attr < 0) { /* struct tc_fifo_qopt: the limit is all of it */
			struct tc_fifo_qopt q = { .limit = (uint32_t)v };

			if (size < sizeof(q))
				return -EMSGSIZE;
			memcpy(out, &q, sizeof(q));
			return sizeof(q);
		}
		a.nla_type = (uint16_t)d->attr;
		a.nla_len = (uint16_t)(NLA_HDRLEN + (size_t)d->width);
		if (len + NLA_ALIGN(a.nla_len) > size)
			return -EMSGSIZE;
		memset(out + len, 0, NLA_ALIGN(a.nla_len));
		memcpy(out + len, &a, sizeof(a));
		v32 = (uint32_t)v;
		v8 = (uint8_t)v;
		memcpy(out + len + NLA_HDRLEN, d->width == 1 ? (void *)&v8 : (void *)&v32, (size_t)d->width);
		len += NLA_ALIGN(a.nla_len);
	}
	return (int)len;
}

/* What the kernel will report back for a value: codel keeps its times in
 * units of 1024 ns (CODEL_SHIFT), so 5 ms reads back as 4999 µs. */
unsigned long long qparam_stored(const char *kind, const char *name, unsigned long long v)
{
	const struct pdef *d = find(kind, name);

	if (d && d->unit == U_USEC && !strcmp(kind, "fq_codel"))
		return ((v * 1000) >> 10 << 10) / 1000;
	return v;
}

/* Reads one parameter back from a dumped TCA_OPTIONS payload. */
int qparam_get(const char *kind, const unsigned char *opts, size_t len, const char *name,
	       unsigned long long *value)
{
	const struct pdef *d = find(kind, name);
	size_t off = 0;

	if (!d)
		return -EINVAL;
	if (d->attr < 0) {
		struct tc_fifo_qopt q;

		if (len < sizeof(q))
			return -ENOENT;
		memcpy(&q, opts, sizeof(q));
		*value = q.limit;
		return 0;
	}
	while (off + NLA_HDRLEN <= len) {
		struct nlattr a;

		memcpy(&a, opts + off, sizeof(a));
		if (a.nla_len < NLA_HDRLEN || off + a.nla_len > len)
			return -EBADMSG;
		if ((a.nla_type & NLA_TYPE_MASK) == d->attr && a.nla_len >= NLA_HDRLEN + (size_t)d->width) {
			uint32_t v32 = 0;
			uint8_t v8 = 0;

			memcpy(d->width == 1 ? (void *)&v8 : (void *)&v32, opts + off + NLA_HDRLEN, (size_t)d->width);
			*value = d->width == 1 ? v8 : v32;
			if (d->unit == U_POW2LOG) {
				if (*value > 63 || (1ULL << *value) > d->max)
					return -EBADMSG;
				*value = 1ULL << *value;
			}
			return 0;
		}
		off += NLA_ALIGN(a.nla_len);
	}
	return -ENOENT;
}

/* A value as the configuration can write it, in the largest unit that keeps
 * it exact: "1gbit", "5ms", "yes", "200". */
void qparam_format(const char *kind, const char *name, unsigned long long v, char *out, size_t size)
{
	static const char *const rate_n[] = { "gbit", "mbit", "kbit" };
	static const unsigned long long rate_m[] = { 1000000000ULL, 1000000, 1000 };
	static const char *const time_n[] = { "s", "ms" };
	static const unsigned long long time_m[] = { 1000000, 1000 };
	const struct pdef *d = find(kind, name);
	const char *unit = d && d->unit == U_RATE ? "bit" : d && (d->unit == U_USEC || d->unit == U_NSEC) ? "us" : "";

	if (d && d->unit == U_BOOL) {
		snprintf(out, size, "%s", v ? "yes" : "no");
		return;
	}
	if (d && d->unit == U_RATE)
		v = v <= ULLONG_MAX / 8 ? v * 8 : v;
	if (d && d->unit == U_NSEC && v % 1000) {
		snprintf(out, size, "%lluns", v);
		return;
	}
	if (d && d->unit == U_NSEC)
		v /= 1000;
	for (size_t i = 0; d && d->unit == U_RATE && i < ARRAY_SIZE(rate_n); i++)
		if (v && v % rate_m[i] == 0) {
			snprintf(out, size, "%llu%s", v / rate_m[i], rate_n[i]);
			return;
		}
	for (size_t i = 0; *unit == 'u' && i < ARRAY_SIZE(time_n); i++)
		if (v && v % time_m[i] == 0) {
			snprintf(out, size, "%llu%s", v / time_m[i], time_n[i]);
			return;
		}
	snprintf(out, size, "%llu%s", v, unit);
}
