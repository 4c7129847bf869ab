// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * CPU masks as the kernel prints them in rps_cpus and xps_cpus: hex, in
 * comma-separated groups of 32 bits, as wide as the kernel's nr_cpu_ids
 * ("00000000,0000000f"). Two masks are the same CPUs whatever their
 * leading zeros, commas or width; a mask is written back in the layout of
 * the file's own value, which the kernel always takes (a wider one it
 * refuses with EOVERFLOW, even of zeros). Pure: fuzzed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nic/internal.h"

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

static void set_nibble(struct nic_mask *m, size_t k, unsigned v)
{
	m->w[k / 8] |= (uint32_t)v << (k % 8 * 4);
}

static unsigned nibble(const struct nic_mask *m, size_t k)
{
	return k / 8 < NIC_MASK_WORDS ? m->w[k / 8] >> (k % 8 * 4) & 0xf : 0;
}

/* Groups of at most 8 hex digits between commas, or one group of any
 * length: the kernel's own form and the plain hex number people write.
 * A bit beyond NIC_MASK_WORDS words (CONFIG_NR_CPUS tops at 8192) is
 * refused, as is anything but hex digits and commas. */
int nic_mask_parse(const char *s, struct nic_mask *m, char *why, size_t size)
{
	size_t len = strlen(s), k = 0, group = 0;
	bool commas = strchr(s, ',') != NULL;

	memset(m, 0, sizeof(*m));
	if (!len || s[0] == ',' || s[len - 1] == ',') {
		snprintf(why, size, "'%s' is not a CPU mask: hex digits in groups of 8 between commas", s);
		return -EINVAL;
	}
	for (size_t i = len; i-- > 0;) {
		int v = hexval(s[i]);

		if (s[i] == ',') {
			if (!group) {
				snprintf(why, size, "'%s' has an empty group between commas", s);
				return -EINVAL;
			}
			k = (k + 7) / 8 * 8, group = 0;
			continue;
		}
		if (v < 0) {
			snprintf(why, size, "'%s' is not a CPU mask: '%c' is not a hex digit", s, s[i]);
			return -EINVAL;
		}
		if (commas && ++group > 8) {
			snprintf(why, size, "'%s' has a group of more than 8 hex digits (32 CPUs) between commas", s);
			return -EINVAL;
		}
		if (v && k / 8 >= NIC_MASK_WORDS) {
			snprintf(why, size, "'%s' names a CPU past %d, the most Linux has", s, NIC_MASK_WORDS * 32 - 1);
			return -ERANGE;
		}
		if (v)
			set_nibble(m, k, (unsigned)v);
		k++;
	}
	return 0;
}

bool nic_mask_equal(const struct nic_mask *a, const struct nic_mask *b)
{
	return !memcmp(a->w, b->w, sizeof(a->w));
}

/* The highest CPU of m, or -1 when it has none. */
int nic_mask_last(const struct nic_mask *m)
{
	for (int i = NIC_MASK_WORDS; i-- > 0;)
		for (int b = 32; m->w[i] && b-- > 0;)
			if (m->w[i] >> b & 1)
				return i * 32 + b;
	return -1;
}

/* The first CPU of a that b lacks, or -1. */
int nic_mask_outside(const struct nic_mask *a, const struct nic_mask *b)
{
	struct nic_mask d;

	for (int i = 0; i < NIC_MASK_WORDS; i++)
		d.w[i] = a->w[i] & ~b->w[i];
	for (int i = 0; i < NIC_MASK_WORDS; i++)
		for (int bit = 0; d.w[i] && bit < 32; bit++)
			if (d.w[i] >> bit & 1)
				return i * 32 + bit;
	return -1;
}

/* m in the layout of the kernel's value like (its width, its commas):
 * -ERANGE when m has a CPU past that width. */
int nic_mask_format(const struct nic_mask *m, const char *like, char *out, size_t size)
{
	size_t len = strlen(like), digits = 0;

	for (size_t i = 0; i < len; i++)
		digits += like[i] != ',';
	if (!digits || len >= size || nic_mask_last(m) >= (int)(digits * 4))
		return -ERANGE;
	out[len] = '\0';
	for (size_t i = len, k = 0; i-- > 0;)
		out[i] = like[i] == ',' ? ',' : "0123456789abcdef"[nibble(m, k++)];
	return 0;
}

/* The shortest form of m the kernel takes: groups of 32 CPUs between
 * commas, the first without its leading zeros ("f", "1,00000000"; "0"
 * for none). -ERANGE when out is too small. */
int nic_mask_hex(const struct nic_mask *m, char *out, size_t size)
{
	int last = nic_mask_last(m), groups = last < 0 ? 1 : last / 32 + 1;
	size_t n = 0;

	for (int g = groups; g-- > 0;) {
		int k = snprintf(out + n, size - n, g + 1 == groups ? "%s%x" : "%s%08x", n ? "," : "", m->w[g]);

		if (k < 0 || (size_t)k >= size - n)
			return -ERANGE;
		n += (size_t)k;
	}
	return 0;
}

int nic_mask_count(const struct nic_mask *m)
{
	int n = 0;

	for (size_t i = 0; i < NIC_MASK_WORDS; i++)
		n += __builtin_popcount(m->w[i]);
	return n;
}

/* A CPU list as sys/devices/system/cpu/online prints it ("0-3,8,10-11"). */
int nic_mask_from_list(const char *s, struct nic_mask *m)
{
	memset(m, 0, sizeof(*m));
	return nic_mask_add_list(s, m);
}

int nic_mask_add_list(const char *s, struct nic_mask *m)
{
	while (*s) {
		unsigned a = 0, b;
		int n = 0;

		if (sscanf(s, "%u%n", &a, &n) != 1 || *s == '-' || *s == '+')
			return -EINVAL;
		s += n, b = a;
		if (*s == '-' && (sscanf(s + 1, "%u%n", &b, &n) != 1 || s[1] == '-' || s[1] == '+'))
			return -EINVAL;
		if (*s == '-')
			s += 1 + n;
		if (b < a || b >= NIC_MASK_WORDS * 32)
			return -ERANGE;
		for (unsigned c = a; c <= b; c++)
			m->w[c / 32] |= 1u << (c % 32);
		if (*s && *s != ',' && *s != '\n')
			return -EINVAL;
		s += !!*s;
	}
	return 0;
}

uint32_t nic_pow2_above(uint32_t n)
{
	uint32_t p = 1;

	if (!n)
		return 0;
	while (p < n && p < 0x80000000u)
		p <<= 1;
	return p;
}
