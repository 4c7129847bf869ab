// SPDX-License-Identifier: LGPL-2.1-or-later
/* util.c: names, selector files, numbers, words, strbuf, plan values. */
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <lzma.h>

#include "unit.h"

static void test_valid_name_rejects(void **state)
{
	char longname[NAME_MAX + 2];

	assert_false(valid_name(NULL));
	assert_false(valid_name(""));
	assert_false(valid_name("/"));
	assert_false(valid_name("."));
	assert_false(valid_name(".."));
	assert_false(valid_name("a/b"));
	assert_false(valid_name("/vda"));
	assert_false(valid_name("vda/"));
	assert_false(valid_name("x..y"));
	assert_false(valid_name("..vda"));
	assert_false(valid_name("vd\na"));
	assert_false(valid_name("vd\ta"));
	assert_false(valid_name("\x01"));
	assert_false(valid_name("vda\x7f"));
	memset(longname, 'a', NAME_MAX + 1);
	longname[NAME_MAX + 1] = '\0';
	assert_false(valid_name(longname));
}

static void test_valid_name_accepts(void **state)
{
	char longname[NAME_MAX + 1];

	assert_true(valid_name("vda"));
	assert_true(valid_name("nvme0n1"));
	assert_true(valid_name("dm-0"));
	assert_true(valid_name("a.b"));
	assert_true(valid_name("with space"));
	memset(longname, 'a', NAME_MAX);
	longname[NAME_MAX] = '\0';
	assert_true(valid_name(longname));
}

static void expect_active(const char *content, const char *want)
{
	char out[64] = "unchanged";

	assert_int_equal(selector_active(content, out, sizeof(out)), 0);
	assert_string_equal(out, want);
}

static void test_selector_active(void **state)
{
	char out[64], tiny[4];

	expect_active("always [madvise] never", "madvise");
	expect_active("[always] madvise never", "always");
	expect_active("always madvise [never]", "never");
	expect_active("[none] mq-deadline", "none");
	expect_active("mq-deadline kyber [bfq] none", "bfq");
	expect_active("none", "none");
	expect_active("none\n", "none");
	expect_active("mq-deadline", "mq-deadline");
	expect_active("  mq-deadline  ", "mq-deadline");
	expect_active("[none]\n", "none");
	assert_int_equal(selector_active("[none", out, sizeof(out)), -EINVAL);
	assert_int_equal(selector_active("always [madvise never", out, sizeof(out)), -EINVAL);
	assert_int_equal(selector_active("", out, sizeof(out)), -EINVAL);
	assert_int_equal(selector_active("   \n", out, sizeof(out)), -EINVAL);
	/* Two unbracketed words: nothing says which one is active. */
	assert_int_equal(selector_active("none mq-deadline", out, sizeof(out)), -EINVAL);
	/* Too long for the output buffer: an error, never a truncated word. */
	assert_int_equal(selector_active("[madvise] never", tiny, sizeof(tiny)), -EINVAL);
	assert_int_equal(selector_active("madvise", tiny, sizeof(tiny)), -EINVAL);
}

static void test_selector_offers(void **state)
{
	assert_true(selector_offers("always [madvise] never", "always"));
	assert_true(selector_offers("always [madvise] never", "madvise"));
	assert_true(selector_offers("always [madvise] never", "never"));
	assert_false(selector_offers("always [madvise] never", "defer"));
	assert_false(selector_offers("always [madvise] never", "[madvise]"));
	assert_false(selector_offers("always [madvise] never", "madv"));
	assert_true(selector_offers("[none] mq-deadline", "none"));
	assert_true(selector_offers("[none] mq-deadline", "mq-deadline"));
	assert_false(selector_offers("[none] mq-deadline", "bfq"));
	assert_false(selector_offers("[none] mq-deadline", "deadline"));
	assert_true(selector_offers("none", "none"));
	assert_false(selector_offers("none", "mq-deadline"));
	assert_true(selector_offers("mq-deadline", "mq-deadline"));
	assert_false(selector_offers("[none", "none"));
	/* a word is a whole blank-separated run, or one marked in brackets */
	assert_false(selector_offers("nonesuch none-x xnone", "none"));
	assert_true(selector_offers("nonesuch none", "none"));
	assert_false(selector_offers("a b", "a b"));
	assert_true(selector_offers("x [[y]]", "[y]"));
	assert_true(selector_offers("a [] b", ""));
	assert_false(selector_offers("a b", ""));
	assert_false(selector_offers("", "none"));
	assert_true(selector_offers("[none] mq-deadline\n", "mq-deadline"));
}

static void test_parse_numbers(void **state)
{
	unsigned long long u;
	long long s;

	assert_int_equal(parse_u64("0", &u), 0);
	assert_true(u == 0);
	assert_int_equal(parse_u64("18446744073709551615", &u), 0);
	assert_true(u == 18446744073709551615ULL);
	assert_int_equal(parse_u64("18446744073709551616", &u), -ERANGE);
	assert_int_equal(parse_u64("-1", &u), -EINVAL);
	assert_int_equal(parse_u64(" 1", &u), -EINVAL);
	assert_int_equal(parse_u64("1 ", &u), -EINVAL);
	assert_int_equal(parse_u64("12kB", &u), -EINVAL);
	assert_int_equal(parse_u64("", &u), -EINVAL);
	assert_int_equal(parse_u64(NULL, &u), -EINVAL);

	assert_int_equal(parse_s64("-1", &s), 0);
	assert_true(s == -1);
	assert_int_equal(parse_s64("4294967296", &s), 0);
	assert_true(s == 4294967296LL);
	assert_int_equal(parse_s64("9223372036854775808", &s), -ERANGE);
	assert_int_equal(parse_s64("-", &s), -EINVAL);
	assert_int_equal(parse_s64("+1", &s), -EINVAL);
	assert_int_equal(parse_s64("1.5", &s), -EINVAL);
	assert_int_equal(parse_s64("", &s), -EINVAL);
	assert_int_equal(parse_s64(NULL, &s), -EINVAL);
	/* Around the 18 digits converted without strtoll, the same answers. */
	assert_int_equal(parse_s64("-0", &s), 0);
	assert_true(s == 0);
	assert_int_equal(parse_s64("999999999999999999", &s), 0);
	assert_true(s == 999999999999999999LL);
	assert_int_equal(parse_s64("-999999999999999999", &s), 0);
	assert_true(s == -999999999999999999LL);
	assert_int_equal(parse_s64("9223372036854775807", &s), 0);
	assert_true(s == 9223372036854775807LL);
	assert_int_equal(parse_s64("-9223372036854775808", &s), 0);
	assert_true(s == -9223372036854775807LL - 1);
	assert_int_equal(parse_s64("-9223372036854775809", &s), -ERANGE);
	assert_int_equal(parse_s64("0001024", &s), 0);
	assert_true(s == 1024);
	assert_int_equal(parse_s64("12kB", &s), -EINVAL);
	assert_int_equal(parse_s64("1 ", &s), -EINVAL);
	assert_int_equal(parse_s64("--1", &s), -EINVAL);
}

static void test_strip_and_words(void **state)
{
	char a[] = " \t value  \r\n", b[] = "   ";
	const char *c = "  none   mq-deadline\tbfq\n kyber ", *d = "abcdefghij k";
	char w[8];

	assert_string_equal(strip(a), "value");
	assert_string_equal(strip(b), "");
	assert_int_equal(next_word(&c, w, sizeof(w)), 4);
	assert_string_equal(w, "none");
	assert_int_equal(next_word(&c, w, sizeof(w)), 11); /* did not fit: length says so */
	assert_string_equal(w, "mq-dead");
	assert_int_equal(next_word(&c, w, sizeof(w)), 3);
	assert_string_equal(w, "bfq");
	assert_int_equal(next_word(&c, w, sizeof(w)), 5);
	assert_string_equal(w, "kyber");
	assert_int_equal(next_word(&c, w, sizeof(w)), 0);
	assert_int_equal(next_word(&d, w, sizeof(w)), 10);
	assert_int_equal(next_word(&d, w, sizeof(w)), 1);
	assert_string_equal(w, "k");
	assert_true(streq_ptr(NULL, NULL));
	assert_false(streq_ptr("a", NULL));
	assert_false(streq_ptr(NULL, "a"));
	assert_true(streq_ptr("a", "a"));
	assert_false(streq_ptr("a", "b"));
}

static void test_strbuf(void **state)
{
	struct strbuf sb = { 0 };
	char big[3000];

	sb_printf(&sb, "%s=%d", "n", 42);
	sb_printf(&sb, ",");
	sb_json_str(&sb, "q\"b\\n\nt\t\x01\x7f");
	sb_printf(&sb, ",");
	sb_json_str(&sb, NULL);
	assert_false(sb.oom);
	assert_string_equal(sb.s, "n=42,\"q\\\"b\\\\n\\nt\\t\\u0001\\u007f\",null");
	assert_int_equal(sb.len, strlen(sb.s));
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	sb_printf(&sb, "%s", big);
	assert_int_equal(sb.len, strlen(sb.s));
	assert_true(sb.cap > sb.len);
	sb_free(&sb);
	assert_null(sb.s);
	assert_int_equal(sb.len, 0);
}

static void test_item_compare_value(void **state)
{
	struct item it = { .desired = "madvise", .selector = true };

	assert_int_equal(item_compare_value(&it, "always [madvise] never"), 0);
	assert_int_not_equal(item_compare_value(&it, "[always] madvise never"), 0);
	assert_int_not_equal(item_compare_value(&it, "[always"), 0);
	assert_int_not_equal(item_compare_value(&it, NULL), 0);
	it = (struct item){ .desired = "0128" };
	assert_int_equal(item_compare_value(&it, "128"), 0);
	assert_int_not_equal(item_compare_value(&it, "256"), 0);
	it = (struct item){ .desired = "defer+madvise" };
	assert_int_equal(item_compare_value(&it, "defer+madvise"), 0);
	it = (struct item){ .desired = NULL };
	assert_int_not_equal(item_compare_value(&it, "1"), 0);
}

static void test_plan_add_and_free(void **state)
{
	struct plan p = { 0 };
	struct item *it;

	for (int i = 0; i < 100; i++) {
		it = plan_add(&p, "block", "vda", "queue/read_ahead_kb", "sys/block/vda/queue/read_ahead_kb");
		assert_non_null(it);
		item_setf(&it->desired, "%d", i);
	}
	assert_int_equal(p.n, 100);
	assert_int_equal(p.v[0].action, ACT_KEEP);
	assert_string_equal(p.v[99].desired, "99");
	item_set(&p.v[0].desired, NULL);
	assert_null(p.v[0].desired);
	plan_free(&p);
	assert_int_equal(p.n, 0);
	assert_null(p.v);
}

/* A clause joins the reason after one space, and alone makes it when there
 * is none or an empty one; a clause past the stack buffer is formatted in
 * place. */
static void test_add_reason(void **state)
{
	struct plan p = { 0 };
	struct item *it = plan_add(&p, "block", "vda", "queue/scheduler", "sys/block/vda/queue/scheduler");
	char big[400];

	(void)state;
	memset(big, 'w', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	item_add_reason(it, "first %d", 1);
	assert_string_equal(it->reason, "first 1");
	item_add_reason(it, "[%s]", "second");
	assert_string_equal(it->reason, "first 1 [second]");
	item_set(&it->reason, "");
	item_add_reason(it, "%s", "alone");
	assert_string_equal(it->reason, "alone");
	item_add_reason(it, "<%s>", big);
	assert_int_equal(strlen(it->reason), strlen("alone <>") + strlen(big));
	assert_memory_equal(it->reason, "alone <w", 8);
	assert_string_equal(it->reason + strlen(it->reason) - 2, "w>");
	plan_free(&p);
}

/* fmt converts literal text, %s, %c, %% and decimal integers itself and
 * leaves the rest to stdio: the same text, truncation and return as
 * snprintf for every size of buffer; fmt_alloc_v past its stack buffer. */
#define SAME(...)                                                                           \
	do {                                                                                \
		char want[600], got[600];                                                   \
		int nw = snprintf(want, sizeof(want), __VA_ARGS__);                         \
		for (size_t sz = 0; sz <= (size_t)nw + 1; sz++) {                           \
			memset(got, 'x', sizeof(got));                                      \
			memset(want, 'x', sizeof(want));                                    \
			assert_int_equal(fmt(sz ? got : NULL, sz, __VA_ARGS__), nw);        \
			snprintf(sz ? want : NULL, sz, __VA_ARGS__);                        \
			assert_memory_equal(got, want, sz + 1 < sizeof(got) ? sz + 1 : sz); \
		}                                                                           \
		_cleanup_(freep) char *a = xasprintf(__VA_ARGS__);                          \
		snprintf(want, sizeof(want), __VA_ARGS__);                                  \
		assert_string_equal(a, want);                                               \
	} while (0)

static void test_fmt(void **state)
{
	const char *volatile nothing = NULL; /* unseen by the format checker */
	char big[400];

	(void)state;
	memset(big, 'w', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	SAME("plain");
	SAME("%s", "");
	SAME("%s/%s", "sys/block", "vda");
	SAME("%s disk (%s): %s", "virtual", "driver virtio_blk", big);
	SAME("%s", nothing);
	SAME("100%% %s%%", "sure");
	SAME("%c|%c", 'a', '\t');
	SAME("%d %d %d %i", 0, -1, INT_MAX, INT_MIN);
	SAME("%u %u", 0u, UINT_MAX);
	SAME("%ld %lu %li", LONG_MIN, ULONG_MAX, 42L);
	SAME("%lld %llu %lli", LLONG_MIN, ULLONG_MAX, LLONG_MAX);
	SAME("%zu %zd %zd", SIZE_MAX, (ssize_t)-5, (ssize_t)7);
	SAME("links/%d", 42);
	SAME("[range %s: raise below %lld, cap above %lld]", "128..1024", 128LL, 1024LL);
	/* Not ours: stdio's. */
	SAME("%5s|%-3d|%03u|%x|%.*s|%%|%s", "ab", 7, 9u, 255u, 2, "abcdef", "end");
	SAME("%.3s %hd %llx", "abcdef", (short)-3, 0x1234ULL);
	/* Ours first, then one that is not: stdio's from the start. */
	SAME("%s and %d, then %5d|%s", "ab", -4, 7, "end");
}

/* pathf copies formats of %s alone and formats the rest: the same text,
 * truncation and verdict as snprintf either way. */
static void test_pathf(void **state)
{
	char buf[8], big[64];

	(void)state;
	assert_int_equal(pathf(buf, sizeof(buf), "%s/%s", "abc", "def"), 0);
	assert_string_equal(buf, "abc/def");
	assert_int_equal(pathf(buf, sizeof(buf), "%s/%s", "abc", "defg"), -ENAMETOOLONG);
	assert_string_equal(buf, "abc/def");
	assert_int_equal(pathf(buf, sizeof(buf), "sys/block/%s", "vda"), -ENAMETOOLONG);
	assert_string_equal(buf, "sys/blo");
	assert_int_equal(pathf(buf, 1, "%s", "x"), -ENAMETOOLONG);
	assert_string_equal(buf, "");
	assert_int_equal(pathf(big, sizeof(big), "sys/block/%s/queue/%s", "vda", "scheduler"), 0);
	assert_string_equal(big, "sys/block/vda/queue/scheduler");
	assert_int_equal(pathf(big, sizeof(big), "links/%d", 42), 0);
	assert_string_equal(big, "links/42");
	assert_int_equal(pathf(big, sizeof(big), "plain"), 0);
	assert_string_equal(big, "plain");
	assert_int_equal(pathf(big, sizeof(big), "%s%%", "a"), 0);
	assert_string_equal(big, "a%");
}

/* CRC-64/XZ's check value, piecewise the same, and a real .xz (xz -C crc64,
 * the CLI's own liblzma) decoded: a wrong stored check is refused. */
static void test_crc64(void **state)
{
	static uint8_t xz[] = {
		0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 0x00, 0x04, 0xe6, 0xd6, 0xb4, 0x46,
		0x02, 0x00, 0x21, 0x01, 0x16, 0x00, 0x00, 0x00, 0x74, 0x2f, 0xe5, 0xa3,
		0x01, 0x00, 0x0f, 0x65, 0x61, 0x72, 0x6c, 0x79, 0x74, 0x75, 0x6e, 0x65,
		0x20, 0x63, 0x72, 0x63, 0x36, 0x34, 0x0a, 0x00, 0x19, 0x6a, 0x65, 0x2d,
		0x60, 0xde, 0xfa, 0xc4, 0x00, 0x01, 0x28, 0x10, 0xe5, 0x0b, 0x6c, 0x60,
		0x1f, 0xb6, 0xf3, 0x7d, 0x01, 0x00, 0x00, 0x00, 0x00, 0x04, 0x59, 0x5a,
	};
	const uint8_t *d = (const uint8_t *)"123456789";
	uint8_t out[64];
	uint64_t limit = UINT64_MAX;
	size_t in_pos = 0, out_pos = 0;

	(void)state;
	assert_true(lzma_crc64(d, 9, 0) == 0x995dc9bbdf1939faULL);
	assert_true(lzma_crc64(d + 4, 5, lzma_crc64(d, 4, 0)) == 0x995dc9bbdf1939faULL);
	assert_true(lzma_crc64(d, 0, 0) == 0);
	assert_int_equal(lzma_stream_buffer_decode(&limit, 0, NULL, xz, &in_pos, sizeof(xz), out, &out_pos,
						   sizeof(out)), LZMA_OK);
	assert_int_equal(out_pos, 16);
	assert_memory_equal(out, "earlytune crc64\n", 16);
	xz[44] ^= 1; /* the block's stored CRC64 */
	in_pos = out_pos = 0;
	assert_int_equal(lzma_stream_buffer_decode(&limit, 0, NULL, xz, &in_pos, sizeof(xz), out, &out_pos,
						   sizeof(out)), LZMA_DATA_ERROR);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_crc64),
	cmocka_unit_test(test_pathf),
	cmocka_unit_test(test_fmt),
	cmocka_unit_test(test_valid_name_rejects),
	cmocka_unit_test(test_valid_name_accepts),
	cmocka_unit_test(test_selector_active),
	cmocka_unit_test(test_selector_offers),
	cmocka_unit_test(test_parse_numbers),
	cmocka_unit_test(test_strip_and_words),
	cmocka_unit_test(test_strbuf),
	cmocka_unit_test(test_item_compare_value),
	cmocka_unit_test(test_plan_add_and_free),
	cmocka_unit_test(test_add_reason),
};

UNIT_MAIN("util", tests)
