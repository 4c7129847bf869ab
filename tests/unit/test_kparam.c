// SPDX-License-Identifier: LGPL-2.1-or-later
/* kparam.c: the kernel command line, split the way the kernel splits it. */
#include "unit.h"
#include "base/kparam.h"

/* Asserts key is present with value want (NULL: asserts it is absent). */
static void expect_get(const char *cmdline, const char *key, const char *want)
{
	char val[256] = "untouched";
	int r = kparam_get(cmdline, key, val, sizeof(val));

	if (!want) {
		if (r != 0)
			fail_msg("'%s' found in '%s' (value '%s')", key, cmdline, val);
		return;
	}
	if (r != 1)
		fail_msg("'%s' not found in '%s'", key, cmdline);
	assert_string_equal(val, want);
}

static void test_plain_and_bare(void **state)
{
	const char *cl = "BOOT_IMAGE=/vmlinuz root=UUID=1234-abcd ro quiet splash\n";

	expect_get(cl, "root", "UUID=1234-abcd");
	expect_get(cl, "BOOT_IMAGE", "/vmlinuz");
	expect_get(cl, "ro", "");
	expect_get(cl, "quiet", "");
	expect_get(cl, "splash", "");
	expect_get(cl, "roo", NULL);
	expect_get(cl, "r", NULL);
	expect_get(cl, "UUID", NULL);
	expect_get(cl, "", NULL);
	expect_get("", "quiet", NULL);
	expect_get(NULL, "quiet", NULL);
	assert_true(kparam_has(cl, "quiet"));
	assert_true(kparam_has(cl, "root"));
	assert_false(kparam_has(cl, "loud"));
}

static void test_quotes(void **state)
{
	expect_get("foo=\"a b\" bar", "foo", "a b");
	expect_get("foo=\"a b\" bar", "bar", "");
	expect_get("foo=\"a b\" bar", "b", NULL);
	expect_get("\"foo=x y\" z=1", "foo", "x y");
	expect_get("\"foo=x y\" z=1", "z", "1");
	expect_get("\"quoted\" z=1", "quoted", "");
	expect_get("dyndbg=\"file foo.c +p\" quiet", "dyndbg", "file foo.c +p");
	expect_get("dyndbg=\"file foo.c +p\" quiet", "quiet", "");
	expect_get("foo=\"\" bar=1", "foo", "");
	expect_get("foo=\"\" bar=1", "bar", "1");
	/* A quote may open mid-word; the space inside does not split. */
	expect_get("foo=a\"b c\"d e=1", "foo", "a\"b c\"d");
	expect_get("foo=a\"b c\"d e=1", "e", "1");
	expect_get("foo=a\"b c\"d e=1", "c", NULL);
}

/*
 * Regression (fixed): src/base/kparam.c next_arg() strips a trailing '"' from every value, but
 * the kernel's next_arg() (lib/cmdline.c) strips it only when the value (or
 * the whole argument) began with a quote. For `foo=a"b c"` the kernel's
 * value is `a"b c"`; kparam_get() returns `a"b c`.
 */
static void test_quote_mid_value_kept(void **state)
{
	expect_get("foo=a\"b c\" e=1", "foo", "a\"b c\"");
}

static void test_dash_underscore(void **state)
{
	expect_get("rd.foo-bar=1", "rd.foo_bar", "1");
	expect_get("rd.foo_bar=2", "rd.foo-bar", "2");
	expect_get("transparent-hugepage=never", "transparent_hugepage", "never");
	expect_get("transparent_hugepage=never", "transparent-hugepage", "never");
	/* Only '-' and '_' compare equal, and only in keys. */
	expect_get("rd.foo.bar=1", "rd.foo_bar", NULL);
	expect_get("a=x-y", "a", "x-y");
}

static void test_repeated_last_wins(void **state)
{
	expect_get("x=1 x=2", "x", "2");
	expect_get("x=1 y=0 x=3 quiet", "x", "3");
	expect_get("x=1 x", "x", "");
	expect_get("x x=4", "x", "4");
	expect_get("x-y=1 x_y=2", "x_y", "2");
}

static void test_double_dash_ends(void **state)
{
	const char *cl = "root=/dev/vda1 ro -- earlytune=0 single";

	expect_get(cl, "root", "/dev/vda1");
	expect_get(cl, "ro", "");
	expect_get(cl, "earlytune", NULL);
	expect_get(cl, "single", NULL);
	expect_get(cl, "--", NULL);
	assert_false(kparam_disabled(cl));
	/* "--x" or "--=1" is an ordinary argument, not the end marker. */
	expect_get("--x a=1", "a", "1");
	expect_get("--=1 a=2", "a", "2");
}

/* Regression (defect 15 of issue 8): the kernel's isspace() counts 0xA0 as
 * white space (lib/ctype.c); earlytune=0 after one was missed.
 * Also guarded by tests/fuzz/regress/kparam/nbsp*. */
static void test_nbsp_separates(void **state)
{
	expect_get("quiet\xa0" "earlytune=0", "earlytune", "0");
	expect_get("quiet\xa0" "earlytune=0", "quiet", "");
	expect_get("a=1\xa0\xa0" "b=2\xa0", "a", "1");
	expect_get("a=1\xa0\xa0" "b=2\xa0", "b", "2");
	expect_get("a=\"x\xa0y\"", "a", "x\xa0y");
	assert_true(kparam_disabled("quiet\xa0" "earlytune=0"));
	assert_true(kparam_disabled("\xa0rd.earlytune=0\xa0"));
}

static void test_separators(void **state)
{
	expect_get("a=1\tb=2\nc=3\n", "b", "2");
	expect_get("a=1\tb=2\nc=3\n", "c", "3");
	expect_get("   a=1   ", "a", "1");
	expect_get("a==1", "a", "=1");
	expect_get("a=", "a", "");
}

static void test_long_value_truncated(void **state)
{
	struct {
		char val[16];
		char canary[16];
	} buf;
	size_t n = 100000;
	char *cl = malloc(n + 32);

	assert_non_null(cl);
	memcpy(cl, "quiet long=", 11);
	memset(cl + 11, 'v', n);
	strcpy(cl + 11 + n, " after=1");
	memset(&buf, 'C', sizeof(buf));
	assert_int_equal(kparam_get(cl, "long", buf.val, sizeof(buf.val)), 1);
	assert_int_equal(strlen(buf.val), sizeof(buf.val) - 1);
	assert_memory_equal(buf.val, "vvvvvvvvvvvvvvv", sizeof(buf.val));
	for (size_t i = 0; i < sizeof(buf.canary); i++)
		assert_int_equal(buf.canary[i], 'C');
	assert_int_equal(kparam_get(cl, "after", buf.val, sizeof(buf.val)), 1);
	assert_string_equal(buf.val, "1");
	/* size 1 leaves room for the terminator only; NULL/0 only tests presence. */
	memset(buf.val, 'X', sizeof(buf.val));
	assert_int_equal(kparam_get(cl, "long", buf.val, 1), 1);
	assert_string_equal(buf.val, "");
	assert_int_equal(buf.val[1], 'X');
	assert_int_equal(kparam_get(cl, "long", NULL, 0), 1);
	free(cl);
}

static void test_disabled(void **state)
{
	assert_true(kparam_disabled("quiet earlytune=0"));
	assert_true(kparam_disabled("rd.earlytune=0 quiet"));
	assert_true(kparam_disabled("earlytune=no"));
	assert_true(kparam_disabled("earlytune=off"));
	assert_true(kparam_disabled("earlytune=false"));
	assert_true(kparam_disabled("earlytune=N"));
	assert_true(kparam_disabled("rd.earlytune=OFF"));
	assert_true(kparam_disabled("earlytune=1 rd.earlytune=0"));
	assert_true(kparam_disabled("earlytune=\"0\""));
	assert_false(kparam_disabled("earlytune=1"));
	assert_false(kparam_disabled("earlytune=yes"));
	assert_false(kparam_disabled("earlytune"));
	assert_false(kparam_disabled("earlytune=0 earlytune=1"));
	assert_false(kparam_disabled("rd.earlytune=1"));
	assert_false(kparam_disabled("earlytune_x=0 xearlytune=0 rd.earlytunes=0"));
	assert_false(kparam_disabled("earlytune=00"));
	assert_false(kparam_disabled(""));
	assert_false(kparam_disabled(NULL));
	assert_true(kparam_disabled("earlytune=1 earlytune=0\n"));
}

/* The kernel splits on isspace(): \r, \v and \f separate like a space. */
static void test_all_white_space(void **state)
{
	expect_get("a=1\rb=2\vc=3\fd=4", "a", "1");
	expect_get("a=1\rb=2\vc=3\fd=4", "b", "2");
	expect_get("a=1\rb=2\vc=3\fd=4", "c", "3");
	expect_get("a=1\rb=2\vc=3\fd=4", "d", "4");
	expect_get("x=\"1\r2\" y=3", "x", "1\r2");
}

/* Issue 8 defect 15: the kernel's isspace() also takes 0xA0 (lib/ctype.c),
 * and no other byte above 0x7f. */
static void test_kernel_space_a0(void **state)
{
	assert_true(kparam_disabled("quiet\xa0" "earlytune=0"));
	expect_get("a=1\xa0" "b=2", "a", "1");
	expect_get("a=1\xa0" "b=2", "b", "2");
	expect_get("\xa0\xa0" "x=\"1\xa0" "2\"\xa0", "x", "1\xa0" "2");
	expect_get("a=1\x85" "b=2", "a", "1\x85" "b=2");
	expect_get("a=1\x85" "b=2", "b", NULL);
	expect_get("a=1\x1c" "b=2", "b", NULL);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_kernel_space_a0),
	cmocka_unit_test(test_all_white_space),
	cmocka_unit_test(test_plain_and_bare),
	cmocka_unit_test(test_quotes),
	cmocka_unit_test(test_quote_mid_value_kept),
	cmocka_unit_test(test_dash_underscore),
	cmocka_unit_test(test_repeated_last_wins),
	cmocka_unit_test(test_double_dash_ends),
	cmocka_unit_test(test_separators),
	cmocka_unit_test(test_nbsp_separates),
	cmocka_unit_test(test_long_value_truncated),
	cmocka_unit_test(test_disabled),
};

UNIT_MAIN("kparam", tests)
