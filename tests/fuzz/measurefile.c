// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The files measure tcp --apply and measure readahead --apply write, read
 * back by --verify and status (src/measure/verify.c,
 * src/measure/readahead_verify.c): each parser on any text, the verdict on
 * it against a fixed measurement after, and the check recorded into it.
 * Input: the file's bytes, read as both. Properties: the parser returns 0 or -EBADMSG and
 * leaves every string terminated; a file it takes gets a verdict in range
 * with its words; the file with a check recorded still parses, to the
 * same setting, value, before, prediction and selection, with exactly that
 * check as its newest, whatever checks the input already had; the
 * readahead file's numbers are finite and not negative.
 */
#include <math.h>

#include "fuzz.h"
#include "measure/report.h"
#include "measure/readahead_verify.h"
#include "measure/verify.h"

#define TERMINATED(a) (memchr((a), '\0', sizeof(a)) != NULL)

static void same_file(const struct mt_applied *a, const struct mt_applied *b)
{
	fuzz_assert(!strcmp(a->setting, b->setting) && !strcmp(a->value, b->value), "setting '%s = %s' -> '%s = %s'",
		    a->setting, a->value, b->setting, b->value);
	fuzz_assert(a->before_bps == b->before_bps && a->before_inflight == b->before_inflight, "before changed");
	fuzz_assert(a->pred_bps == b->pred_bps && a->pred_inflight == b->pred_inflight &&
		    a->pred_floor == b->pred_floor, "prediction changed");
	fuzz_assert(a->seconds == b->seconds && a->port == b->port && !strcmp(a->peer, b->peer), "selection changed");
	fuzz_assert(!strcmp(a->was, b->was), "was '%s' -> '%s'", a->was, b->was);
}

static void record(const char *text, const struct mt_applied *a, const struct mt_check *k,
		   const struct mt_verdict *after)
{
	struct strbuf sb = { 0 };
	struct mt_applied back;
	const char *p;
	int lines = 0;

	mt_record_check(&sb, text, k, after, "h", 1764892800);
	fuzz_assert(!sb.oom && sb.s, "no text");
	fuzz_assert(mt_applied_parse(sb.s, &back) == 0, "the file with its check no longer parses");
	same_file(a, &back);
	fuzz_assert(back.outcome == k->outcome && back.after_bps == after->rate_bps &&
		    back.after_inflight == after->inflight, "the check read back is not the one recorded");
	fuzz_assert(!strcmp(back.checked, "2025-12-05T00:00:00Z"), "date '%s'", back.checked);
	for (p = sb.s; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		lines += !strncmp(p, "# Verified: ", 12);
	fuzz_assert(lines == 1, "%d check lines", lines);
	sb_free(&sb);
}

static bool ra_numbers(const struct mr_applied *a)
{
	const double v[] = { a->before_amp, a->before_seq, a->pred_amp, a->k, a->pred_seq, a->after_amp, a->after_seq };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (!isfinite(v[i]) || v[i] < 0)
			return false;
	return true;
}

static void ra_same_file(const struct mr_applied *a, const struct mr_applied *b)
{
	fuzz_assert(!strcmp(a->dev, b->dev) && a->value_kb == b->value_kb, "setting '%s %u' -> '%s %u'", a->dev,
		    a->value_kb, b->dev, b->value_kb);
	fuzz_assert(a->before_kb == b->before_kb && a->before_amp == b->before_amp && a->before_seq == b->before_seq,
		    "before changed");
	fuzz_assert(a->pred_amp == b->pred_amp && a->k == b->k && a->pred_seq == b->pred_seq &&
		    a->touches == b->touches, "prediction changed");
	fuzz_assert(a->seconds == b->seconds && a->max_bytes == b->max_bytes, "selection changed");
}

static void ra_record(const char *text, const struct mr_applied *a, const struct mr_check *k)
{
	struct strbuf sb = { 0 };
	struct mr_applied back;
	const char *p;
	int lines = 0;

	mr_record_check(&sb, text, k, "h", 1764892800);
	fuzz_assert(!sb.oom && sb.s, "no text");
	fuzz_assert(mr_applied_parse(sb.s, &back) == 0, "the readahead file with its check no longer parses");
	ra_same_file(a, &back);
	fuzz_assert(back.outcome == k->outcome && fabs(back.after_amp - k->amp) < 0.051 &&
		    fabs(back.after_seq - k->seq) < 0.051, "the readahead check read back is not the one recorded");
	fuzz_assert(!strcmp(back.checked, "2025-12-05T00:00:00Z"), "date '%s'", back.checked);
	for (p = sb.s; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		lines += !strncmp(p, "# Verified: ", 12);
	fuzz_assert(lines == 1, "%d check lines", lines);
	sb_free(&sb);
}

/* The same bytes as measure readahead's file, judged against a round of
 * 31 touches at 1 MiB and 64 KiB each, 204.8 MiB/s sequential. */
static void readahead_file(const char *text, size_t size)
{
	const struct mr_round r = { .ra_kb = 1024, .touches = 31, .dev_bytes = 31 * (1088 << 10), .ns = 1000000000LL,
				    .done = true };
	const struct mr_round s = { .ra_kb = 1024, .bytes = 256 << 20, .ns = 1250000000LL, .done = true };
	struct mr_applied a;
	struct mr_check k;
	int rc = mr_applied_parse(text, &a);

	fuzz_assert(rc == 0 || rc == -EBADMSG, "readahead parse returned %d", rc);
	fuzz_assert(TERMINATED(a.dev) && TERMINATED(a.checked), "a readahead string not terminated");
	fuzz_assert(a.outcome <= MO_UNVERIFIED && ra_numbers(&a), "a readahead number out of range");
	if (rc < 0)
		return;
	mr_judge(&a, &r, &s, 16ULL << 30, 4096, size % 3 != 0, a.value_kb, &k);
	fuzz_assert(k.outcome <= MO_UNVERIFIED && *k.why && TERMINATED(k.why), "readahead verdict");
	fuzz_assert(k.outcome == MO_UNVERIFIED || (a.pred_amp > 0 && a.k > 0), "a verdict without a prediction");
	if (k.outcome != MO_UNVERIFIED)
		ra_record(text, &a, &k);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	struct mt_verdict after = { .limit = size % 2 ? MT_CWND : MT_SNDBUF, .rate_bps = 869000000,
				    .inflight = 10860000 };
	struct mt_applied a;
	struct mt_check k;
	int r = mt_applied_parse(text, &a);

	fuzz_assert(r == 0 || r == -EBADMSG, "parse returned %d", r);
	fuzz_assert(TERMINATED(a.setting) && TERMINATED(a.value) && TERMINATED(a.was) && TERMINATED(a.peer) &&
		    TERMINATED(a.checked), "a string not terminated");
	fuzz_assert(a.outcome <= MO_UNVERIFIED, "outcome %d", a.outcome);
	if (r == 0) {
		mt_judge(&a, &after, size % 3 != 0, a.value, &k);
		fuzz_assert(k.outcome <= MO_UNVERIFIED && *k.why && TERMINATED(k.why), "verdict");
		fuzz_assert(k.outcome == MO_UNVERIFIED || a.pred_bps, "a verdict without a prediction");
		if (k.outcome != MO_UNVERIFIED)
			record(text, &a, &k, &after);
	}
	readahead_file(text, size);
	free(text);
	return 0;
}
