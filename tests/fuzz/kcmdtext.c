// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The command-line text editors behind GRUB, BLS and kernel-install
 * (src/cmdline/kcmdtext.c). Input: the parameters to add on the first line, the
 * file's old bytes after it. Properties, with m = kcmd_missing(old, params):
 * kcmd_add keeps every byte and parameter of old and never shortens it; a
 * second add changes nothing; kcmd_remove(kcmd_add(old), m) gives back old
 * byte for byte; kcmd_add refuses (EINVAL) only an old that ends inside a
 * quote, and only when there is something to add; the GRUB drop-in body
 * either is built or refused with EINVAL, and quotes what needs quoting.
 */
#include "fuzz.h"
#include "cmdline/kcmdtext.h"

static void roundtrip(const char *old, const char *params)
{
	char *missing = NULL, *added = NULL, *again = NULL, *back = NULL, *same = NULL;
	size_t n;
	int r;

	fuzz_assert(kcmd_missing(old, params, &missing) == 0, "kcmd_missing failed");
	r = kcmd_add(old, params, &added);
	if (r == -EINVAL) {
		fuzz_assert(*missing, "kcmd_add refused with nothing to add");
		fuzz_assert(kcmd_add(old, "", &same) == 0 && !strcmp(same, old),
			    "kcmd_add of nothing changed old");
		free(same);
		free(missing);
		return;
	}
	fuzz_assert(r == 0, "kcmd_add returned %d", r);
	fuzz_assert(strlen(added) >= strlen(old), "add made the text shorter");
	fuzz_assert(kcmd_kept(old, added, missing) == 0, "add lost a parameter it did not add");
	fuzz_assert(kcmd_add(added, params, &again) == 0 && !strcmp(again, added),
		    "a second add changed the text");
	fuzz_assert(kcmd_remove(added, missing, &back) == 0, "kcmd_remove failed");
	fuzz_assert(!strcmp(back, old), "add then remove is not the original: '%s' -> '%s' -> '%s'",
		    old, added, back);
	fuzz_assert(kcmd_kept(added, back, missing) == 0, "remove lost a parameter it did not add");
	for (const char *p = missing, *w; (w = kcmd_word(&p, &n));) {
		char *word = strndup(w, n);

		fuzz_assert(word && kcmd_has(added, word), "added word '%s' is not a token of the result", word);
		free(word);
	}
	free(missing);
	free(added);
	free(again);
	free(back);
}

static void dropin(const char *params)
{
	char *body = NULL;
	int r = grub_dropin_body(params, &body);

	fuzz_assert(r == 0 || r == -EINVAL, "grub_dropin_body returned %d", r);
	fuzz_assert(r < 0 || (body && strstr(body, "GRUB_CMDLINE_LINUX_DEFAULT=")), "no assignment in the body");
	free(body);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_cstr(data, size), *nl = strchr(buf, '\n');
	const char *old = nl ? nl + 1 : "";

	if (nl)
		*nl = '\0';
	roundtrip(old, buf);
	dropin(buf);
	free(buf);
	return 0;
}
