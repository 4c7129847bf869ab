// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The Python-pattern matcher (src/base/pyre.c). The input is a pattern, a
 * newline, and a text. Properties: the verdict is 1, 0 or -EINVAL; a
 * pattern found stays found inside a group and as one side of '|'; any
 * piece of the text, each punctuation byte escaped, is found in it.
 */
#include <ctype.h>

#include "fuzz.h"
#include "base/pyre.h"

static char *wrap(const char *a, const char *p, const char *b)
{
	size_t n = strlen(a) + strlen(p) + strlen(b) + 1;
	char *s = malloc(n);

	if (!s)
		abort();
	snprintf(s, n, "%s%s%s", a, p, b);
	return s;
}

/* text[from, from + len) as a pattern of literals. */
static char *literal(const char *text, size_t from, size_t len)
{
	char *s = malloc(2 * len + 1), *o = s;

	if (!s)
		abort();
	for (size_t i = from; i < from + len; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c == '\n') {
			*o++ = '\\';
			c = 'n';
		} else if (c < 0x80 && !isalnum(c) && c != ' ') {
			*o++ = '\\';
		}
		*o++ = (char)c;
	}
	*o = '\0';
	return s;
}

/* A bound on the compiled size may refuse the longer pattern: only with
 * a counted repeat, which the bound is for. */
static bool same(int r2, const char *p, int r)
{
	return r2 == r || (r2 == -EINVAL && strchr(p, '{'));
}

static void check_wrapped(const char *p, const char *text, int r)
{
	char *g = wrap("(?:", p, ")"), *alt = wrap("(?:", p, ")|\\Ax\\Ay");

	fuzz_assert(same(pyre_search(g, text), p, r), "/(?:%s)/: not the verdict of /%s/ (%d)", p, p, r);
	fuzz_assert(same(pyre_search(alt, text), p, r), "/%s/: not the verdict of /%s/ (%d)", alt, p, r);
	free(g);
	free(alt);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = fuzz_cstr(data, size), *nl = strchr(in, '\n');
	const char *text = nl ? nl + 1 : "";
	size_t len = strlen(text);
	int r;

	if (nl)
		*nl = '\0';
	r = pyre_search(in, text);
	fuzz_assert(r == 1 || r == 0 || r == -EINVAL, "/%s/: %d", in, r);
	if (r >= 0 && strlen(in) < 60) /* under the 64 groups deep it refuses */
		check_wrapped(in, text, r);
	if (len) {
		size_t from = (unsigned char)in[0] % len, n = len - from < 16 ? len - from : 16;
		char *lit = literal(text, from, n);

		fuzz_assert(pyre_search(lit, text) == 1, "/%s/ not found in its own text", lit);
		free(lit);
	}
	free(in);
	return 0;
}
