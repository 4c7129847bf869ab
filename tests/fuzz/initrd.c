// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The initramfs reader (src/image/cpio.c). Properties: no crash, no read
 * past the input (ASan); every entry's data arrives in pieces that add up
 * to the size its header announced, between begin() and end(), never
 * interleaved; the result is 0 or one of the documented errors.
 */
#include "fuzz.h"
#include "image/initrd.h"

struct track {
	bool open;
	uint32_t size;
	unsigned long long got;
};

static bool t_begin(void *d, const char *name, unsigned mode, uint32_t size)
{
	struct track *t = d;

	fuzz_assert(!t->open, "begin() inside an entry");
	fuzz_assert(name[0] != '/' && strncmp(name, "./", 2), "a name kept its prefix: %s", name);
	*t = (struct track){ .open = true, .size = size };
	return true;
}

static void t_chunk(void *d, const unsigned char *p, size_t n)
{
	struct track *t = d;

	fuzz_assert(t->open && n > 0, "data outside an entry, or an empty piece");
	t->got += n;
	fuzz_assert(t->got <= t->size, "more data (%llu) than announced (%u)", t->got, t->size);
}

static void t_end(void *d)
{
	struct track *t = d;

	fuzz_assert(t->open && t->got == t->size, "end() after %llu of %u bytes", t->got, t->size);
	t->open = false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct track t = { 0 };
	struct cpio_sink sink = { t_begin, t_chunk, t_end, &t };
	const char *comp = NULL;
	int r = initrd_walk(data, size, &sink, &comp);

	fuzz_assert(r == 0 || r == -EBADMSG || r == -EFBIG || r == -EPROTONOSUPPORT || r == -ENOMEM,
		    "unexpected result %d", r);
	fuzz_assert(r != -EPROTONOSUPPORT || comp, "an unsupported compression without its name");
	fuzz_assert(r != 0 || !t.open, "success inside an entry");
	return 0;
}
