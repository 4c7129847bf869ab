// SPDX-License-Identifier: LGPL-2.1-or-later
/* The kernel command line, split as the kernel's next_arg() splits it: double
 * quotes group (and may start mid-word), '-' and '_' in keys compare equal,
 * and "--" ends the kernel's parameters (what follows belongs to init). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/kparam.h"

struct arg {
	const char *key, *val;
	size_t klen, vlen;
};

/* The kernel's isspace() (lib/ctype.c): besides \t \n \v \f \r and ' ',
 * its Latin-1 table marks 0xA0 (no-break space) as space; libc's "C"
 * locale does not. */
bool kparam_space(char ch)
{
	unsigned char u = (unsigned char)ch;

	return u == ' ' || (u >= '\t' && u <= '\r') || u == 0xa0;
}

/* Returns the position after the argument, or NULL at the end. */
static const char *next_arg(const char *s, struct arg *a)
{
	bool in_quote = false, quoted = false, strip_end;
	const char *eq = NULL, *p;

	while (kparam_space(*s))
		s++;
	if (!*s)
		return NULL;
	if (*s == '"') {
		s++;
		in_quote = quoted = true;
	}
	for (p = s; *p; p++) {
		if (!in_quote && kparam_space(*p))
			break;
		if (!eq && *p == '=')
			eq = p;
		if (*p == '"')
			in_quote = !in_quote;
	}
	a->key = s;
	a->klen = (size_t)((eq ? eq : p) - s);
	a->val = eq ? eq + 1 : NULL;
	a->vlen = eq ? (size_t)(p - eq - 1) : 0;
	/* Like the kernel: the closing quote goes only when the value or the
	 * whole argument opened with one. */
	strip_end = quoted;
	if (a->val && a->vlen && a->val[0] == '"') {
		a->val++;
		a->vlen--;
		strip_end = true;
	}
	if (strip_end && p > s && p[-1] == '"') {
		if (a->val && a->vlen)
			a->vlen--;
		else if (!a->val && a->klen)
			a->klen--;
	}
	return p;
}

static bool key_eq(const char *k, size_t klen, const char *want)
{
	size_t i;

	if (strlen(want) != klen)
		return false;
	for (i = 0; i < klen; i++) {
		char x = k[i] == '-' ? '_' : k[i], y = want[i] == '-' ? '_' : want[i];

		if (x != y)
			return false;
	}
	return true;
}

/* 1 when found (the last occurrence wins, as for module parameters), 0 when
 * absent; val gets "" for a bare key. */
int kparam_get(const char *cmdline, const char *key, char *val, size_t size)
{
	const char *s = cmdline ? cmdline : "";
	struct arg a;
	int found = 0;

	while ((s = next_arg(s, &a))) {
		if (a.klen == 2 && !a.val && !strncmp(a.key, "--", 2))
			break;
		if (!key_eq(a.key, a.klen, key))
			continue;
		found = 1;
		if (val && size) {
			size_t n = a.vlen < size - 1 ? a.vlen : size - 1;

			memcpy(val, a.val ? a.val : "", n);
			val[n] = '\0';
		}
	}
	return found;
}

/* Calls fn for each kernel parameter (up to "--") with its key and value
 * (NULL for a bare key), both without quotes; stops when fn returns < 0. */
int kparam_each(const char *cmdline, int (*fn)(const char *key, const char *val, void *data), void *data)
{
	const char *s = cmdline ? cmdline : "";
	char key[256], val[1024];
	struct arg a;
	int r;

	while ((s = next_arg(s, &a))) {
		if (a.klen == 2 && !a.val && !strncmp(a.key, "--", 2))
			break;
		snprintf(key, sizeof(key), "%.*s", (int)a.klen, a.key);
		snprintf(val, sizeof(val), "%.*s", (int)a.vlen, a.val ? a.val : "");
		r = fn(key, a.val ? val : NULL, data);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Kernel parameter keys compare with '-' and '_' alike. */
bool kparam_key_eq(const char *a, const char *b)
{
	return key_eq(a, strlen(a), b);
}

/* "key" or "key=value" in force: the last occurrence of key carries value. */
bool kparam_has_param(const char *cmdline, const char *param)
{
	char key[256], val[1024];
	const char *eq = strchr(param, '=');

	snprintf(key, sizeof(key), "%.*s", (int)(eq ? (size_t)(eq - param) : strlen(param)), param);
	if (!kparam_get(cmdline, key, val, sizeof(val)))
		return false;
	return !eq || !strcmp(val, eq + 1);
}

bool kparam_has(const char *cmdline, const char *key)
{
	return kparam_get(cmdline, key, NULL, 0) > 0;
}

static bool is_false(const char *v)
{
	return !strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "false") ||
	       !strcasecmp(v, "off") || !strcasecmp(v, "n");
}

/* earlytune=0 switches everything off; rd.earlytune=0 as well (the initramfs
 * spelling, honoured in the real root too so one switch covers a boot). */
bool kparam_disabled(const char *cmdline)
{
	char v[32];

	if (kparam_get(cmdline, "earlytune", v, sizeof(v)) && is_false(v))
		return true;
	return kparam_get(cmdline, "rd.earlytune", v, sizeof(v)) && is_false(v);
}
