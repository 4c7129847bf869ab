// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * vsnprintf and vasprintf for the formats nearly every path, record and
 * reason is made of: literal text, %s, %c and plain decimal integers,
 * copied and converted here instead of going through stdio. A run about
 * 1,000 disks formats some 30,000 strings; glibc's vsnprintf sets up a
 * FILE for each, which was a fifth of its instructions. Any other
 * conversion (a flag, a width, a precision, %x, %p, ...) is vsnprintf's.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "base/util.h"

enum size_mod { M_INT, M_LONG, M_LLONG, M_SIZE };

/* The conversion at f (just past '%'): its length modifier in *mod and
 * the conversion character, or 0 when it is not one of ours. */
static char conversion(const char *f, enum size_mod *mod, size_t *skip)
{
	size_t k = 0;

	*mod = M_INT;
	if (f[0] == 'z') {
		*mod = M_SIZE, k = 1;
	} else if (f[0] == 'l' && f[1] == 'l') {
		*mod = M_LLONG, k = 2;
	} else if (f[0] == 'l') {
		*mod = M_LONG, k = 1;
	}
	*skip = k + 1;
	switch (f[k]) {
	case 'd':
	case 'i':
	case 'u':
		return f[k];
	case 's':
	case 'c':
	case '%':
		return k ? 0 : f[k];
	default:
		return 0;
	}
}

/* The decimal digits of v (and a '-' if negative) at the end of buf
 * (24 bytes); returns where they start. */
static const char *decimal(char *buf, unsigned long long v, bool negative)
{
	char *p = buf + 24;

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (negative)
		*--p = '-';
	return p;
}

/* The text of the integer conversion c with modifier mod, taken from ap. */
static const char *integer(char *buf, char c, enum size_mod mod, va_list *ap)
{
	long long s;
	unsigned long long u;

	if (c == 'u') {
		u = mod == M_INT    ? va_arg(*ap, unsigned)
		    : mod == M_LONG ? va_arg(*ap, unsigned long)
		    : mod == M_SIZE ? va_arg(*ap, size_t)
				    : va_arg(*ap, unsigned long long);
		return decimal(buf, u, false);
	}
	s = mod == M_INT    ? va_arg(*ap, int)
	    : mod == M_LONG ? va_arg(*ap, long)
	    : mod == M_SIZE ? (long long)va_arg(*ap, ssize_t)
			    : va_arg(*ap, long long);
	/* The magnitude of LLONG_MIN does not fit a long long: negate unsigned. */
	return decimal(buf, s < 0 ? 0ULL - (unsigned long long)s : (unsigned long long)s, s < 0);
}

/* The text of the conversion at *f (just past '%'), its length in *len
 * and *f moved past it; NULL (nothing taken from ap) when it is not ours.
 * %s first: most conversions are. */
static inline __attribute__((always_inline)) const char *convert(const char **f, size_t *len, char *num,
								  va_list *ap)
{
	const char *c = *f, *s;
	enum size_mod mod;
	size_t skip;
	char k;

	if (c[0] == 's') {
		s = va_arg(*ap, const char *);
		s = s ? s : "(null)";
		*len = strlen(s);
		*f = c + 1;
		return s;
	}
	k = conversion(c, &mod, &skip);
	if (!k || k == 's')
		return NULL;
	*f = c + skip;
	*len = 1;
	if (k == 'c') {
		num[0] = (char)va_arg(*ap, int);
		return num;
	}
	if (k == '%')
		return "%";
	s = integer(num, k, mod, ap);
	*len = (size_t)(num + 24 - s);
	return s;
}

/* n bytes from s to p: a piece is mostly a few bytes, which two
 * overlapping fixed-size copies move in a handful of instructions where
 * libc's copy is a call and its dispatch. memmove, not memcpy, for the
 * rest: -Os inlines a memcpy of unknown length as rep movsb, a step per
 * byte; memmove stays libc's vector copy. */
static inline __attribute__((always_inline)) void copy(char *p, const char *s, size_t n)
{
	uint64_t a, b;
	uint32_t c, d;

	if (n >= 8 && n <= 16) {
		memcpy(&a, s, 8), memcpy(&b, s + n - 8, 8);
		memcpy(p, &a, 8), memcpy(p + n - 8, &b, 8);
	} else if (n >= 4 && n < 8) {
		memcpy(&c, s, 4), memcpy(&d, s + n - 4, 4);
		memcpy(p, &c, 4), memcpy(p + n - 4, &d, 4);
	} else if (n < 4) {
		for (size_t i = 0; i < n; i++)
			p[i] = s[i];
	} else {
		memmove(p, s, n);
	}
}

int fmt_v(char *buf, size_t size, const char *fmt, va_list ap)
{
	/* buf may be NULL with size 0 (a length asked): no offset is ever
	 * applied to it then, not even 0 (undefined, and UBSan says so). */
	char num[24], *p = buf, *end = size ? buf + size - 1 : buf;
	const char *f = fmt, *s;
	size_t n = 0, len, k;
	va_list aq;

	/* One pass: at a conversion not ours, stdio formats it all again from
	 * ap, which the pass (on its copy) has not moved. Each piece (a run of
	 * literal text, a conversion's text) is copied whole. */
	va_copy(aq, ap);
	while (*f) {
		if (*f != '%') {
			s = f;
			f = strchrnul(f, '%');
			len = (size_t)(f - s);
		} else if (f++, !(s = convert(&f, &len, num, &aq))) {
			va_end(aq);
			return vsnprintf(buf, size, fmt, ap);
		}
		k = len < (size_t)(end - p) ? len : (size_t)(end - p);
		if (k) {
			copy(p, s, k);
			p += k;
		}
		n += len;
	}
	va_end(aq);
	if (size)
		*p = '\0';
	return n > INT_MAX ? -1 : (int)n;
}

/* Here, not in util.c: util.c formats with fmt.c, not the other way. */
char *put_bytes(char *p, const char *s, size_t n)
{
	if (n >= 32)
		return (char *)memmove(p, s, n) + n;
	return (char *)mempcpy(p, s, n);
}

void str_copy(char *dst, size_t size, const char *src)
{
	size_t n;

	if (!size)
		return;
	n = strnlen(src, size - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

int fmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = fmt_v(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

char *fmt_alloc_v(const char *fmt, va_list ap)
{
	char small[256], *s;
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = fmt_v(small, sizeof(small), fmt, aq);
	va_end(aq);
	if (n < 0 || !(s = malloc((size_t)n + 1)))
		return NULL;
	if ((size_t)n < sizeof(small))
		put_bytes(s, small, (size_t)n + 1);
	else
		fmt_v(s, (size_t)n + 1, fmt, ap);
	return s;
}
