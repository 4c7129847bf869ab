// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The sock_diag reply parser (src/measure/diag.c): the dumps of mt_dump()
 * (IPv4, sequence 1, then IPv6, sequence 2) through net/'s receive loop,
 * and mt_parse_diag() on single messages; what it keeps then through the
 * interpretation (interp.c), each sample after the first against the one
 * before it. Input: datagrams, each a 16-bit little-endian length and its
 * bytes (nlwrap.h), from the kernel to port FUZZ_PID.
 */
#include <linux/inet_diag.h>
#include <linux/sock_diag.h>

#include "fuzz.h"
#include "nlwrap.h"
#include "measure/internal.h"

static void check_sample(const struct mt_sample *s)
{
	static const struct tcp_info zero;

	fuzz_assert(memchr(s->src, '\0', sizeof(s->src)) && memchr(s->dst, '\0', sizeof(s->dst)), "address");
	fuzz_assert(memchr(s->cc, '\0', sizeof(s->cc)), "congestion control");
	fuzz_assert(s->info_len <= sizeof(s->ti), "info_len %zu", s->info_len);
	/* What the kernel did not send reads as zero, never as old bytes. */
	fuzz_assert(!memcmp((const char *)&s->ti + s->info_len, (const char *)&zero + s->info_len,
			    sizeof(s->ti) - s->info_len), "tcp_info past %zu", s->info_len);
}

static void interpret(const struct mt_set *set)
{
	struct mt_host h = { .wmem = { 4096, 16384, 4194304 }, .rmem = { 4096, 131072, 6291456 },
			     .tcp_mem = { 46000, 62000, 93000 }, .mem_pages = 500, .have_wmem = true,
			     .have_rmem = true, .have_tcp_mem = true, .have_mem = true, .page = 4096 };

	for (size_t i = 1; i < set->n; i++) {
		struct mt_sample a = set->v[i - 1], b = set->v[i];
		struct mt_flow f = { 0 };
		struct mt_verdict v;
		unsigned sum = 0;

		b.t_us = a.t_us + 1 + (b.ti.tcpi_rto & 0xffffff);
		mt_flow_add(&f, &a);
		mt_flow_add(&f, &b);
		mt_interpret(&f, &h, &v);
		for (int k = 0; k < 4; k++)
			sum += v.share[k];
		fuzz_assert(sum <= 1000, "shares %u", sum);
		fuzz_assert(memchr(v.why, '\0', sizeof(v.why)) && *v.why, "why");
		fuzz_assert(v.limit <= MT_APP, "limit %d", v.limit);
		fuzz_assert(!v.change.sysctl || *v.change.value, "a change without a value");
	}
}

static void parse_one(const struct nlmsghdr *m)
{
	struct mt_sample s;

	if (mt_parse_diag(m, &s) == 0)
		check_sample(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nl nl = { .fd = -1, .seq = 0, .pid = FUZZ_PID };
	struct mt_set set = { 0 };

	in = data;
	in_left = size;
	mt_dump(&nl, &set);
	unpoison();
	for (size_t i = 0; i < set.n; i++)
		check_sample(&set.v[i]);
	interpret(&set);
	free(set.v);
	each_message(data, size, parse_one);
	return 0;
}
