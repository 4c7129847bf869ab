// SPDX-License-Identifier: LGPL-2.1-or-later
/* pyre.c against Python: each verdict below is what Python 3.11's
 * re.search(pattern, text, re.MULTILINE) says (-EINVAL: re.error, or a
 * pattern pyre refuses: backreferences, flags, look-arounds, possessive
 * quantifiers, a repeat over 1,000). */
#include "unit.h"
#include "base/pyre.h"

static const struct {
	const char *pattern, *text;
	int found;
} cases[] = {
	{ "", "", 1 },
	{ "", "x", 1 },
	{ "a", "cab", 1 },
	{ "a", "xyz", 0 },
	{ "^Linux", "Linux host 6.1.0 #1 SMP x86_64", 1 },
	{ "x86_64$", "Linux host 6.1.0 #1 SMP x86_64", 1 },
	{ "^model name\\s+:.*Intel", "processor\t: 0\nmodel name\t: Intel(R) Xeon(R)\n", 1 },
	{ "^flags\\s*:.*\\bavx512f\\b", "flags\t\t: fpu sse avx512fx\n", 0 },
	{ "^flags\\s*:.*\\bavx512f\\b", "flags\t\t: fpu avx512f sse\n", 1 },
	{ "el[89]", "4.18.0-513.el8.x86_64", 1 },
	{ "el[^89]", "el8", 0 },
	{ "\\d+\\.\\d+\\.\\d+-28-cloud", "6.1.0-28-cloud-amd64", 1 },
	{ "^6\\.(1|12)\\.", "6.12.3", 1 },
	{ "^6\\.(?:1|12)\\.0$", "6.13.0", 0 },
	{ "(?P<v>\\d+)\\.x", "12.x", 1 },
	{ "x86.*?64", "x86_64", 1 },
	{ "a{2,3}b", "aab", 1 },
	{ "a{2,3}b", "ab", 0 },
	{ "a{,2}b", "b", 1 },
	{ "a{}", "a{}", 1 },
	{ "a{x}", "a{x}", 1 },
	{ "[]a]+", "]]", 1 },
	{ "[^]a]", "a]", 0 },
	{ "[a-]", "-", 1 },
	{ "[\\d-]", "-", 1 },
	{ "\\x41", "A", 1 },
	{ "\\.", "a", 0 },
	{ "\\bfoo\\b", "a foo b", 1 },
	{ "\\Bfoo", "a foo", 0 },
	{ "\\B", "", 0 },
	{ "\\Aab", "xab", 0 },
	{ "ab\\Z", "ab\n", 0 },
	{ "ab$", "ab\ncd", 1 },
	{ "^cd", "ab\ncd", 1 },
	{ "a.c", "a\nc", 0 },
	{ "(a|b)*c", "ababx", 0 },
	{ "(a|b)*c", "ababc", 1 },
	{ "(a*)*b", "aaaaaaaaaaaaaab", 1 },
	{ "\\s\\S\\w\\W\\d\\D", " xa.1z", 1 },
	{ "[\\s]", "\x1c", 1 },
	{ "(", "", -EINVAL },
	{ ")", "", -EINVAL },
	{ "a**", "", -EINVAL },
	{ "*a", "", -EINVAL },
	{ "a{3,2}", "", -EINVAL },
	{ "\\", "", -EINVAL },
	{ "[a", "", -EINVAL },
	{ "[b-a]", "", -EINVAL },
	{ "\\q", "", -EINVAL },
	{ "(a)\\1", "", -EINVAL },
	{ "(?i)x", "", -EINVAL },
	{ "x(?=y)", "", -EINVAL },
	{ "a*+", "", -EINVAL },
	{ "^*", "", -EINVAL },
	{ "\\b+", "", -EINVAL },
	{ "a{1001}", "", -EINVAL },
};

static void test_as_python(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int r = pyre_search(cases[i].pattern, cases[i].text);

		if (r != cases[i].found)
			fail_msg("/%s/ in \"%s\": %d, Python says %d", cases[i].pattern, cases[i].text, r,
				 cases[i].found);
	}
}

/* Nested repeats that make a backtracking matcher take 2^n steps take one
 * pass here: 100,000 'a' and no 'b'. */
static void test_linear(void **state)
{
	size_t n = 100000;
	char *text = malloc(n + 1);

	(void)state;
	assert_non_null(text);
	memset(text, 'a', n);
	text[n] = '\0';
	assert_int_equal(pyre_search("(a*)*b", text), 0);
	assert_int_equal(pyre_search("(a|aa)+$", text), 1);
	free(text);
}

/* A repeat copies its atom: the code stays bounded. */
static void test_bounded(void **state)
{
	(void)state;
	assert_int_equal(pyre_search("(((a{1000}){1000}){1000})", "a"), -EINVAL);
	assert_int_equal(pyre_search("((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((a))))))))))))))))))"
				     "))))))))))))))))))))))))))))))))))))))))))))))))",
				     "a"),
			 -EINVAL);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_as_python),
	cmocka_unit_test(test_linear),
	cmocka_unit_test(test_bounded),
};

UNIT_MAIN("pyre", tests)
