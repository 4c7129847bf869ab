// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * measure tcp's output: per busy connection its limit and the window's
 * shares, the rates, the RTT and the bandwidth-delay product, what is in
 * flight, then the one change (or why none), its prediction and its cost.
 * Idle connections and those seen once are counted, not shown.
 */
#include <string.h>

#include "engine/engine.h"
#include "measure/report.h"

static const char *const share_names[4] = { "send buffer", "receive window", "congestion window", "application" };
static const char *const share_keys[4] = { "send_buffer", "receive_window", "congestion_window", "application" };

static bool shown(const struct mt_flow *f, const struct mt_verdict *v)
{
	return f->n >= 2 && v->limit != MT_IDLE;
}

void mt_rate(char *out, size_t size, uint64_t bps)
{
	if (bps >= 1000000)
		snprintf(out, size, "%.1f Mbit/s", (double)bps / 1e6);
	else
		snprintf(out, size, "%.1f kbit/s", (double)bps / 1e3);
}

void mt_bytes(char *out, size_t size, uint64_t b)
{
	if (b >= 1 << 20)
		snprintf(out, size, "%.1f MiB", (double)b / (1 << 20));
	else if (b >= 1 << 10)
		snprintf(out, size, "%.1f KiB", (double)b / (1 << 10));
	else
		snprintf(out, size, "%llu B", (unsigned long long)b);
}

static void text_change(const struct mt_report *rep, const struct mt_verdict *v)
{
	const struct mt_change *c = &v->change;
	char r[32], b[32];

	if (!c->sysctl) {
		printf("  change:     none%s%s%s\n", c->lacking ? " (" : "", c->lacking ? c->lacking : "",
		       c->lacking ? ": not available here)" : "");
		return;
	}
	printf("  change:     %s = %s (%s)\n", c->sysctl, c->value, c->on_peer ? "on the receiving host" : "this host");
	mt_rate(r, sizeof(r), c->pred_bps);
	mt_bytes(b, sizeof(b), c->pred_inflight);
	if (c->pred_bps)
		printf("  prediction: %s%s, %s in flight\n", c->pred_floor ? "at least " : "", r, b);
	else
		printf("  prediction: none (no RTT measured)\n");
	if (c->have_cost)
		printf("  cost:       %llu pages a flow; %llu such flows before tcp_mem's pressure threshold (%llu "
		       "pages; TCP holds %llu)\n", (unsigned long long)c->flow_pages, (unsigned long long)c->flows,
		       rep->host.tcp_mem[1], rep->host.mem_pages);
	else if (c->flow_pages)
		printf("  cost:       %llu pages a flow%s\n", (unsigned long long)c->flow_pages,
		       c->on_peer ? " on the receiving host (its tcp_mem and sockstat are there)"
				  : "; tcp_mem or sockstat unreadable: no count of such flows");
	else
		printf("  cost:       no memory\n");
}

static void text_flow(const struct mt_report *rep, const struct mt_flow *f, const struct mt_verdict *v)
{
	char r1[32], r2[32], r3[32], b1[32], b2[32], b3[32], b4[32], b5[32];

	printf("%s -> %s (%s)\n", f->last.src, f->last.dst, f->last.cc[0] ? f->last.cc : "?");
	printf("  limit:      %s", mt_limit_name(v->limit));
	for (int i = 0; i < 4 && v->limit != MT_UNKNOWN; i++)
		printf("%s%s %u.%u%%", i ? ", " : " (", share_names[i], v->share[i] / 10, v->share[i] % 10);
	printf("%s\n", v->limit != MT_UNKNOWN ? ")" : "");
	mt_rate(r1, sizeof(r1), v->rate_bps);
	mt_rate(r2, sizeof(r2), v->delivery_bps);
	mt_rate(r3, sizeof(r3), v->link_bps);
	printf("  throughput: %s acked; delivery rate %s; link %s\n", r1, r2, v->link_bps ? r3 : "unknown");
	mt_bytes(b1, sizeof(b1), v->bdp);
	printf("  min RTT:    %.3f ms; BDP %s (at the %s)\n", v->min_rtt_us / 1e3, b1,
	       v->link_bps ? "link's rate" : "delivery rate");
	mt_bytes(b1, sizeof(b1), v->cwnd_bytes);
	mt_bytes(b2, sizeof(b2), v->inflight);
	mt_bytes(b3, sizeof(b3), v->notsent);
	mt_bytes(b4, sizeof(b4), f->last.sndbuf);
	mt_bytes(b5, sizeof(b5), v->queued);
	printf("  window:     cwnd x mss %s; in flight %s; not sent %s; send buffer %s (%s queued); %u retransmits in "
	       "%u segments\n", b1, b2, b3, b4, f->n_queued ? b5 : "?", v->retrans, v->segs);
	printf("  why:        %s\n", v->why);
	text_change(rep, v);
}

static void json_change(struct strbuf *sb, const struct mt_verdict *v)
{
	const struct mt_change *c = &v->change;

	if (!c->sysctl) {
		sb_printf(sb, ",\"change\":null");
		return;
	}
	sb_printf(sb, ",\"change\":{\"sysctl\":\"%s\"", c->sysctl);
	json_field(sb, "value", c->value);
	sb_printf(sb, ",\"host\":\"%s\",\"prediction\":{\"throughput_bps\":", c->on_peer ? "peer" : "this");
	sb_printf(sb, c->pred_bps ? "%llu" : "null", (unsigned long long)c->pred_bps);
	sb_printf(sb, ",\"at_least\":%s,\"in_flight_bytes\":%llu},\"cost\":{\"pages_per_flow\":%llu,"
		  "\"flows_before_pressure\":", c->pred_floor ? "true" : "false", (unsigned long long)c->pred_inflight,
		  (unsigned long long)c->flow_pages);
	sb_printf(sb, c->have_cost ? "%llu}}" : "null}}", (unsigned long long)c->flows);
}

static void json_flow(struct strbuf *sb, const struct mt_flow *f, const struct mt_verdict *v, bool first)
{
	sb_printf(sb, "%s{\"src\":", first ? "" : ",");
	sb_json_str(sb, f->last.src);
	json_field(sb, "dst", f->last.dst);
	json_field(sb, "congestion_control", f->last.cc[0] ? f->last.cc : NULL);
	sb_printf(sb, ",\"samples\":%u,\"tcp_info_bytes\":%zu,\"limit\":\"%s\",\"shares\":{", f->n, f->last.info_len,
		  mt_limit_name(v->limit));
	for (int i = 0; i < 4; i++)
		sb_printf(sb, "%s\"%s\":%u.%u", i ? "," : "", share_keys[i], v->share[i] / 10, v->share[i] % 10);
	sb_printf(sb, "},\"throughput_bps\":%llu,\"delivery_rate_bps\":%llu,\"link_bps\":",
		  (unsigned long long)v->rate_bps, (unsigned long long)v->delivery_bps);
	sb_printf(sb, v->link_bps ? "%llu" : "null", (unsigned long long)v->link_bps);
	sb_printf(sb, ",\"min_rtt_us\":%u,\"bdp_bytes\":%llu,\"cwnd_bytes\":%llu,\"in_flight_bytes\":%llu,"
		  "\"notsent_bytes\":%llu,\"sndbuf_bytes\":%u,\"retransmits\":%u,\"segments\":%u", v->min_rtt_us,
		  (unsigned long long)v->bdp, (unsigned long long)v->cwnd_bytes, (unsigned long long)v->inflight,
		  (unsigned long long)v->notsent, f->last.sndbuf, v->retrans, v->segs);
	sb_printf(sb, f->n_queued ? ",\"queued_bytes\":%llu" : ",\"queued_bytes\":null", (unsigned long long)v->queued);
	json_field(sb, "why", v->why);
	json_change(sb, v);
	sb_printf(sb, "}");
}

static void json_three(struct strbuf *sb, const char *name, bool have, const unsigned long long v[3])
{
	sb_printf(sb, ",\"%s\":", name);
	if (have)
		sb_printf(sb, "[%llu,%llu,%llu]", v[0], v[1], v[2]);
	else
		sb_printf(sb, "null");
}

static void json_report(const struct ctx *c, const struct mt_report *rep, size_t quiet)
{
	struct strbuf sb = { 0 };
	bool first = true;

	json_head(&sb, c, "measure tcp");
	sb_printf(&sb, ",\"seconds\":%u,\"host\":{\"congestion_control\":", rep->seconds);
	sb_json_str(&sb, rep->host.cc[0] ? rep->host.cc : NULL);
	json_three(&sb, "tcp_wmem", rep->host.have_wmem, rep->host.wmem);
	json_three(&sb, "tcp_rmem", rep->host.have_rmem, rep->host.rmem);
	json_three(&sb, "tcp_mem", rep->host.have_tcp_mem, rep->host.tcp_mem);
	sb_printf(&sb, rep->host.have_mem ? ",\"tcp_mem_used\":%llu" : ",\"tcp_mem_used\":null", rep->host.mem_pages);
	sb_printf(&sb, ",\"page_bytes\":%llu},\"not_shown\":%zu,\"connections\":[", rep->host.page, quiet);
	for (size_t i = 0; i < rep->nflows; i++) {
		struct mt_verdict v;

		mt_interpret(&rep->flows[i], &rep->host, &v);
		if (shown(&rep->flows[i], &v))
			json_flow(&sb, &rep->flows[i], &v, first), first = false;
	}
	sb_printf(&sb, "]}\n");
	json_emit(&sb);
}

void mt_report(const struct ctx *c, const struct mt_report *rep)
{
	size_t quiet = 0, busy;

	for (size_t i = 0; i < rep->nflows; i++) {
		struct mt_verdict v;

		mt_interpret(&rep->flows[i], &rep->host, &v);
		quiet += !shown(&rep->flows[i], &v);
	}
	if (c->json) {
		json_report(c, rep, quiet);
		return;
	}
	busy = rep->nflows - quiet;
	printf("measure tcp: %u s, %zu busy connection%s, %zu idle or seen once (not shown)\n", rep->seconds, busy,
	       busy == 1 ? "" : "s", quiet);
	for (size_t i = 0; i < rep->nflows; i++) {
		struct mt_verdict v;

		mt_interpret(&rep->flows[i], &rep->host, &v);
		if (shown(&rep->flows[i], &v))
			text_flow(rep, &rep->flows[i], &v);
	}
}
