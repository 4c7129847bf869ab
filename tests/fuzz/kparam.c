// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kernel command-line lexer (src/base/kparam.c). Properties: outside double
 * quotes, no key or value kparam_each() yields holds a byte the kernel's
 * isspace() splits on (lib/ctype.c: \t \n \v \f \r, space and 0xA0);
 * kparam_get() finds every key kparam_each() yields, with the value of its
 * last occurrence, and kparam_has_param() agrees; kparam_disabled() is true
 * exactly when the last earlytune= or rd.earlytune= is a "false" word.
 */
#include <errno.h>
#include <strings.h>

#include "fuzz.h"
#include "base/kparam.h"

#define MAX_CHECKED 8 /* keys checked against kparam_get(): the check is quadratic */

struct args {
	char **key, **val;
	size_t n, cap;
	bool quotes;
};

static bool kernel_space(unsigned char c)
{
	return (c >= '\t' && c <= '\r') || c == ' ' || c == 0xa0;
}

static bool has_kernel_space(const char *s)
{
	for (; *s; s++)
		if (kernel_space((unsigned char)*s))
			return true;
	return false;
}

static int collect(const char *key, const char *val, void *data)
{
	struct args *a = data;

	fuzz_assert(key, "kparam_each gave a NULL key");
	if (!a->quotes) {
		fuzz_assert(!has_kernel_space(key), "key '%s' holds kernel white space", key);
		fuzz_assert(!val || !has_kernel_space(val), "value '%s' holds kernel white space", val);
	}
	fuzz_assert(!strchr(key, '='), "key '%s' holds '='", key);
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 16;
		a->key = realloc(a->key, a->cap * sizeof(*a->key));
		a->val = realloc(a->val, a->cap * sizeof(*a->val));
		if (!a->key || !a->val)
			abort();
	}
	a->key[a->n] = strdup(key);
	a->val[a->n] = val ? strdup(val) : NULL;
	if (!a->key[a->n] || (val && !a->val[a->n]))
		abort();
	a->n++;
	return 0;
}

static bool is_false(const char *v)
{
	return !strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "false") ||
	       !strcasecmp(v, "off") || !strcasecmp(v, "n");
}

/* The value of the last occurrence of key i among the collected ones. */
static const char *last_value(const struct args *a, size_t i)
{
	size_t last = i;

	for (size_t j = i + 1; j < a->n; j++)
		if (kparam_key_eq(a->key[j], a->key[i]))
			last = j;
	return a->val[last] ? a->val[last] : "";
}

static void check_get(const char *cl, const struct args *a, char *buf, size_t size)
{
	for (size_t i = 0; i < a->n && i < MAX_CHECKED; i++) {
		const char *want = last_value(a, i);
		char *param;

		/* kparam_each() cuts keys at 255 and values at 1023 bytes. */
		if (strlen(a->key[i]) >= 255 || strlen(want) >= 1023)
			continue;
		fuzz_assert(kparam_get(cl, a->key[i], buf, size) == 1, "key '%s' not found", a->key[i]);
		fuzz_assert(!strcmp(buf, want), "key '%s': kparam_get '%s', kparam_each '%s'",
			    a->key[i], buf, want);
		param = xasprintf("%s=%s", a->key[i], want);
		if (!param)
			abort();
		fuzz_assert(kparam_has_param(cl, param), "kparam_has_param('%s') false", param);
		free(param);
	}
}

static void check_disabled(const char *cl, char *buf, size_t size)
{
	bool off = (kparam_get(cl, "earlytune", buf, size) && is_false(buf)) ||
		   (kparam_get(cl, "rd.earlytune", buf, size) && is_false(buf));

	fuzz_assert(kparam_disabled(cl) == off, "kparam_disabled says %d, kparam_get %d",
		    kparam_disabled(cl), off);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *cl = fuzz_cstr(data, size), *buf = malloc(size + 1);
	struct args a = { .quotes = strchr(cl, '"') != NULL };

	if (!buf)
		abort();
	fuzz_assert(kparam_each(cl, collect, &a) == 0, "kparam_each failed");
	check_get(cl, &a, buf, size + 1);
	check_disabled(cl, buf, size + 1);
	for (size_t i = 0; i < a.n; i++) {
		free(a.key[i]);
		free(a.val[i]);
	}
	free(a.key);
	free(a.val);
	free(buf);
	free(cl);
	return 0;
}
