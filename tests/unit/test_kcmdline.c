// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kcmdtext.c: the text edits of `earlytune cmdline` (issue 8, defects 5, 7,
 * 8). The property: add then remove gives back the original bytes, over
 * thousands of generated command-line files (blank-only, no trailing
 * newline, tabs, CRLF, 0xA0, quoted values, parameters already present, very
 * long lines, thousands of parameters), and an edit never loses a parameter
 * earlytune did not add.
 */
#include "unit.h"
#include "cmdline/kcmdtext.h"

static void expect_add(const char *old, const char *params, const char *want)
{
	char *out = NULL;

	assert_int_equal(kcmd_add(old, params, &out), 0);
	assert_string_equal(out, want);
	free(out);
}

static void expect_remove(const char *old, const char *params, const char *want)
{
	char *out = NULL;

	assert_int_equal(kcmd_remove(old, params, &out), 0);
	assert_string_equal(out, want);
	free(out);
}

/* The property for one input; returns 0 or a description of what broke. */
static const char *roundtrip(const char *old, const char *params)
{
	char *missing = NULL, *added = NULL, *again = NULL, *back = NULL;
	const char *bad = NULL;
	const char *w;
	size_t n;
	int r;

	if (kcmd_missing(old, params, &missing) < 0)
		return "kcmd_missing failed";
	r = kcmd_add(old, params, &added);
	if (r == -EINVAL) {
		/* Only an old that ends inside a quote is refused, and only when
		 * there is something to add. */
		char *tmp = NULL;

		if (!*missing || kcmd_add(old, "", &tmp) < 0 || strcmp(tmp, old))
			bad = "kcmd_add refused without a reason";
		free(tmp);
		free(missing);
		return bad;
	}
	if (r < 0)
		bad = "kcmd_add failed";
	else if (strlen(added) < strlen(old))
		bad = "add made the text shorter";
	else if (kcmd_kept(old, added, missing) < 0)
		bad = "add lost a parameter it did not add";
	else if (kcmd_add(added, params, &again) < 0 || strcmp(again, added))
		bad = "a second add changed the text";
	else if (kcmd_remove(added, missing, &back) < 0 || strcmp(back, old))
		bad = "remove did not give back the original bytes";
	else if (kcmd_kept(added, back, missing) < 0)
		bad = "remove lost a parameter it did not add";
	for (const char *p = missing; !bad && (w = kcmd_word(&p, &n));) {
		char *word = strndup(w, n);

		if (!kcmd_has(added, word))
			bad = "an added word is not a token of the result";
		free(word);
	}
	free(missing);
	free(added);
	free(again);
	free(back);
	return bad;
}

static void expect_roundtrip(const char *old, const char *params)
{
	const char *bad = roundtrip(old, params);

	if (bad)
		fail_msg("%s: old '%s', params '%s'", bad, old, params);
}

static void test_add_keeps_bytes(void **state)
{
	expect_add("root=UUID=x ro quiet\n", "a=1 b", "root=UUID=x ro quiet a=1 b\n");
	expect_add("root=UUID=x  ro quiet", "a=1", "root=UUID=x  ro quiet a=1");
	expect_add("root=x\r\n", "a", "root=x a\r\n");
	expect_add("root=x \t \n\n", "a", "root=x a \t \n\n");
	expect_add("", "a b", "a b");
	/* Only blanks: the words go in front, each with a blank after it. */
	expect_add("   \n", "a b", "a b    \n");
	expect_add("\n", "a", "a \n");
	/* Present words and repeats are not added twice. */
	expect_add("root=x a\n", "a b b", "root=x a b\n");
	/* A word inside a quoted value is not a parameter of its own. */
	expect_add("foo=\"x a y\"\n", "a", "foo=\"x a y\" a\n");
	/* 0xA0 separates, as the kernel's isspace() says. */
	expect_add("quiet\xa0" "a\n", "a", "quiet\xa0" "a\n");
}

static void test_add_refuses_open_quote(void **state)
{
	char *out = NULL;

	assert_int_equal(kcmd_add("root=x foo=\"abc\n", "a", &out), -EINVAL);
	assert_null(out);
	assert_int_equal(kcmd_add("root=x foo=\"abc\n", "", &out), 0);
	assert_string_equal(out, "root=x foo=\"abc\n");
	free(out);
	out = NULL;
	assert_int_equal(kcmd_add("root=x\n", "a=\"b", &out), -EINVAL);
}

static void test_remove_exact(void **state)
{
	expect_remove("root=x ro a=1 b\n", "a=1 b", "root=x ro\n");
	expect_remove("a b    \n", "a b", "   \n");
	expect_remove("a b", "b a", "");
	/* The last occurrence goes: ours were appended. */
	expect_remove("a root=x a\n", "a", "a root=x\n");
	/* Not there (someone took it out): nothing else changes. */
	expect_remove("root=x  ro\tquiet\n", "a", "root=x  ro\tquiet\n");
	/* Not a token of its own: left alone. */
	expect_remove("foo=\"x a\" xa ax\n", "a", "foo=\"x a\" xa ax\n");
}

static void test_kept_detects_loss(void **state)
{
	assert_int_equal(kcmd_kept("root=x ro", "root=x ro a", "a"), 0);
	assert_int_equal(kcmd_kept("root=x ro", "root=x a", "a"), -EPROTO);
	assert_int_equal(kcmd_kept("root=x ro", "ro root=x", ""), -EPROTO);
	assert_int_equal(kcmd_kept("root=x ro", "root=x ro b", "a"), -EPROTO);
	assert_int_equal(kcmd_kept("rd.luks.uuid=1 root=x", "root=x", ""), -EPROTO);
}

static void test_base(void **state)
{
	char *out = NULL;

	assert_int_equal(kcmd_base("BOOT_IMAGE=/vmlinuz initrd=\\i.img root=UUID=x ro  quiet\n", &out), 0);
	assert_string_equal(out, "root=UUID=x ro quiet\n");
	free(out);
	assert_int_equal(kcmd_base("", &out), 0);
	assert_string_equal(out, "\n");
	free(out);
}

static void test_grub_body(void **state)
{
	char *out = NULL;
	char *many = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&many, &len);

	assert_int_equal(grub_dropin_body("a=1 thp_anon=64K:madvise;2M:always", &out), 0);
	assert_contains(out, "}a=1 \\\"thp_anon=64K:madvise;2M:always\\\"\"\n");
	free(out);
	assert_int_equal(grub_dropin_body("a=\"b\"", &out), -EINVAL);
	assert_int_equal(grub_dropin_body("a=$(reboot)", &out), -EINVAL);
	/* Far beyond the 2,047 bytes that once cut parameters mid-word. */
	assert_non_null(f);
	for (int i = 0; i < 300; i++)
		fprintf(f, "%sparam%03d.value=%040d", i ? " " : "", i, i);
	fclose(f);
	assert_int_equal(grub_dropin_body(many, &out), 0);
	assert_contains(out, many);
	free(out);
	free(many);
}

/* ---- generated inputs -------------------------------------------------------- */

static unsigned long long rng = 0x9e3779b97f4a7c15ull;

static unsigned pick(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static const char *const seps[] = { " ", "  ", "\t", "\n", "\r\n", "\xa0", " \t ", "\v", "\f" };
static const char *const toks[] = {
	"root=UUID=77aa", "ro", "quiet", "rd.luks.uuid=abc", "foo=\"a b c\"", "\"quoted=1\"",
	"x=a\"b c\"d", "transparent_hugepage=madvise", "nvme_core.io_timeout=4294967295", "caf\xc3\xa9=1",
	"a", "b=", "=c", "--", "thp_anon=64K:madvise;2M:always", "k\xc2\xa0v",
};
static const char *const words[] = {
	"transparent_hugepage=madvise", "nvme_core.io_timeout=4294967295", "a", "ro", "nowatchdog",
	"thp_anon=64K:madvise;2M:always", "x.y=1", "caf\xc3\xa9=1", "quiet",
};

/* A file-like text: blanks, tokens, separators, maybe a final newline. */
static void gen_text(FILE *f)
{
	unsigned ntok = pick(4) == 0 ? 0 : pick(12);

	if (pick(3) == 0)
		fputs(seps[pick(ARRAY_SIZE(seps))], f);
	for (unsigned i = 0; i < ntok; i++) {
		if (i)
			fputs(seps[pick(ARRAY_SIZE(seps))], f);
		if (pick(40) == 0) /* a very long token */
			for (unsigned j = 0, n = 3000 + pick(5000); j < n; j++)
				fputc('a' + (int)(j % 26), f);
		else
			fputs(toks[pick(ARRAY_SIZE(toks))], f);
	}
	switch (pick(5)) {
	case 0: break;
	case 1: fputs("\n", f); break;
	case 2: fputs("\r\n", f); break;
	case 3: fputs(" \n", f); break;
	default: fputs(seps[pick(ARRAY_SIZE(seps))], f); break;
	}
}

static void gen_params(FILE *f)
{
	for (unsigned i = 0, n = pick(6); i < n; i++)
		fprintf(f, "%s%s", i ? (pick(2) ? " " : "\t") : "", words[pick(ARRAY_SIZE(words))]);
}

static char *gen(void (*fn)(FILE *))
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	assert_non_null(f);
	fn(f);
	fclose(f);
	return s;
}

static void test_roundtrip_generated(void **state)
{
	for (int i = 0; i < 5000; i++) {
		char *old = gen(gen_text), *params = gen(gen_params);

		expect_roundtrip(old, params);
		free(old);
		free(params);
	}
}

static void test_roundtrip_edges(void **state)
{
	static const char *const olds[] = {
		"", " ", "\n", "   \n", "\t\n", "\r\n", " \r\n", "\xa0", "\xa0\n", "\n\n\n",
		"root=x", "root=x\n", "root=x \n", " root=x", "root=x\r\n", "\"", "a=\"", "a=\"b\" \"",
		"transparent_hugepage=madvise\n", "foo=\"transparent_hugepage=madvise\"\n",
		"transparent_hugepage=madvise transparent_hugepage=madvise\n",
	};

	for (size_t i = 0; i < ARRAY_SIZE(olds); i++) {
		expect_roundtrip(olds[i], "transparent_hugepage=madvise nvme_core.io_timeout=4294967295");
		expect_roundtrip(olds[i], "a a a");
		expect_roundtrip(olds[i], "");
	}
}

/* Thousands of parameters in the file and in the list; a 200 KB line. */
static void test_roundtrip_large(void **state)
{
	char *old = NULL, *params = NULL, *line;
	size_t ol = 0, pl = 0;
	FILE *fo = open_memstream(&old, &ol), *fp = open_memstream(&params, &pl);

	assert_non_null(fo);
	assert_non_null(fp);
	for (int i = 0; i < 1500; i++) {
		fprintf(fo, "%sk%d=v%d", i ? " " : "", i, i);
		fprintf(fp, "%sp%d=%d", i ? " " : "", i, i);
		if (i % 3 == 0) /* a third of them already there */
			fprintf(fp, " k%d=v%d", i, i);
	}
	fputs("\n", fo);
	fclose(fo);
	fclose(fp);
	expect_roundtrip(old, params);
	line = malloc(200001);
	assert_non_null(line);
	memset(line, 'x', 200000);
	line[200000] = '\0';
	line[0] = 'y';
	expect_roundtrip(line, "transparent_hugepage=madvise a yx");
	free(line);
	free(old);
	free(params);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_keeps_bytes),
		cmocka_unit_test(test_add_refuses_open_quote),
		cmocka_unit_test(test_remove_exact),
		cmocka_unit_test(test_kept_detects_loss),
		cmocka_unit_test(test_base),
		cmocka_unit_test(test_grub_body),
		cmocka_unit_test(test_roundtrip_generated),
		cmocka_unit_test(test_roundtrip_edges),
		cmocka_unit_test(test_roundtrip_large),
	};

	setvbuf(stdout, NULL, _IONBF, 0);
	return cmocka_run_group_tests_name("kcmdline", tests, NULL, NULL);
}
