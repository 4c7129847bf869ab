// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The CPU mask parsers of rps_cpus and xps_cpus (src/nic/mask.c). Input:
 * the text of a mask, or of a CPU list (sys/devices/system/cpu/online).
 * Properties: a parser returns 0, -EINVAL or -ERANGE; a mask parsed is
 * the same CPUs once formatted in the kernel's widest layout and parsed
 * again, and in the narrowest layout that holds its last CPU (one past it
 * is refused), and in its shortest form (nic_mask_hex: no leading zero);
 * a CPU list's mask is within the list's own bounds, the same CPUs once
 * added to an empty mask, and added to itself it stays the same.
 */
#include "fuzz.h"
#include "nic/internal.h"

/* The layout of a kernel of 32 * groups CPUs: "00000000,…,00000000". */
static void layout(char *like, size_t groups)
{
	for (size_t g = 0; g < groups; g++)
		memcpy(like + 9 * g, g + 1 < groups ? "00000000," : "00000000", g + 1 < groups ? 9 : 8);
	like[9 * groups - 1] = '\0';
}

static void round_trip(const struct nic_mask *m, size_t groups)
{
	static char like[NIC_MASK_CHARS], out[NIC_MASK_CHARS], why[192];
	struct nic_mask back;
	int r;

	layout(like, groups);
	r = nic_mask_format(m, like, out, sizeof(out));
	if (nic_mask_last(m) >= (int)groups * 32) {
		fuzz_assert(r == -ERANGE, "CPU %d formatted into %zu groups", nic_mask_last(m), groups);
		return;
	}
	fuzz_assert(r == 0, "format into %zu groups: %d", groups, r);
	fuzz_assert(strlen(out) == strlen(like), "'%s' is not as wide as '%s'", out, like);
	fuzz_assert(nic_mask_parse(out, &back, why, sizeof(why)) == 0, "'%s' does not parse: %s", out, why);
	fuzz_assert(nic_mask_equal(m, &back), "'%s' is other CPUs", out);
}

static void shortest(const struct nic_mask *m)
{
	static char out[NIC_MASK_CHARS], why[192];
	static struct nic_mask back;

	fuzz_assert(nic_mask_hex(m, out, sizeof(out)) == 0, "no room for the shortest form");
	fuzz_assert(out[0] != '0' || !out[1], "'%s' has a leading zero", out);
	fuzz_assert(nic_mask_parse(out, &back, why, sizeof(why)) == 0, "'%s' does not parse: %s", out, why);
	fuzz_assert(nic_mask_equal(m, &back), "'%s' is other CPUs", out);
}

static void check_mask(const char *s)
{
	static struct nic_mask m;
	char why[192];
	int r = nic_mask_parse(s, &m, why, sizeof(why)), last;

	fuzz_assert(r == 0 || r == -EINVAL || r == -ERANGE, "nic_mask_parse returned %d", r);
	if (r < 0)
		return;
	last = nic_mask_last(&m);
	fuzz_assert(last < NIC_MASK_WORDS * 32, "CPU %d kept", last);
	round_trip(&m, NIC_MASK_WORDS);
	if (last >= 0) {
		round_trip(&m, (size_t)last / 32 + 1);
		if (last / 32)
			round_trip(&m, (size_t)last / 32);
	}
	fuzz_assert(nic_mask_outside(&m, &m) == -1, "a mask has a CPU of its own outside it");
	shortest(&m);
}

static void check_list(const char *s)
{
	static struct nic_mask m, again;
	int r = nic_mask_from_list(s, &m);

	fuzz_assert(r == 0 || r == -EINVAL || r == -ERANGE, "nic_mask_from_list returned %d", r);
	if (r)
		return;
	fuzz_assert(nic_mask_last(&m) < NIC_MASK_WORDS * 32, "CPU %d kept", nic_mask_last(&m));
	memset(&again, 0, sizeof(again));
	fuzz_assert(nic_mask_add_list(s, &again) == 0 && nic_mask_equal(&m, &again), "added: other CPUs");
	fuzz_assert(nic_mask_add_list(s, &again) == 0 && nic_mask_equal(&m, &again), "added twice: other CPUs");
	shortest(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);

	check_mask(s);
	check_list(s);
	free(s);
	return 0;
}
