// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The initramfs reader (src/image/cpio.c) on crafted newc archives: what a
 * valid image hands over, and that every malformed one is refused (never
 * read past its end, under ASan).
 */
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include "unit.h"
#include "image/initrd.h"

struct seen {
	char names[16][64];
	char data[16][64];
	size_t n;
};

static bool s_begin(void *d, const char *name, unsigned mode, uint32_t size)
{
	struct seen *s = d;

	if (s->n < 16)
		snprintf(s->names[s->n], sizeof(s->names[0]), "%s", name);
	s->n++;
	return true;
}

static void s_chunk(void *d, const unsigned char *p, size_t n)
{
	struct seen *s = d;
	char *out = s->data[(s->n - 1) % 16];
	size_t l = strlen(out);

	if (l + n < 64)
		memcpy(out + l, p, n), out[l + n] = '\0';
}

static void s_end(void *d)
{
}

/* Appends one newc entry to buf at *len (aligned as cpio -H newc does). */
static void entry(unsigned char *buf, size_t *len, const char *name, const char *data, uint32_t namesize_override)
{
	uint32_t ns = namesize_override ? namesize_override : (uint32_t)strlen(name) + 1;
	size_t dl = data ? strlen(data) : 0;

	*len += (size_t)sprintf((char *)buf + *len, "070701%08x%08x%08x%08x%08x%08x%08zx%08x%08x%08x%08x%08x%08x", 1,
				0100644, 0, 0, 1, 0, dl, 0, 0, 0, 0, ns, 0);
	memcpy(buf + *len, name, strlen(name) + 1);
	*len += strlen(name) + 1;
	while (*len % 4)
		buf[(*len)++] = 0;
	if (dl)
		memcpy(buf + *len, data, dl);
	*len += dl;
	while (*len % 4)
		buf[(*len)++] = 0;
}

static size_t archive(unsigned char *buf, size_t len, const char *name, const char *data)
{
	entry(buf, &len, name, data, 0);
	entry(buf, &len, "TRAILER!!!", NULL, 0);
	return len;
}

static int walk(const unsigned char *buf, size_t len, struct seen *s, const char **comp)
{
	struct cpio_sink sink = { s_begin, s_chunk, s_end, s };

	memset(s, 0, sizeof(*s));
	return initrd_walk(buf, len, &sink, comp);
}

static void test_one_archive(void **state)
{
	static unsigned char buf[4096];
	struct seen s;
	size_t len = archive(buf, 0, "./usr/sbin/earlytune", "ELF");

	assert_int_equal(walk(buf, len, &s, NULL), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.names[0], "usr/sbin/earlytune");
	assert_string_equal(s.data[0], "ELF");
}

static void test_many_archives_and_padding(void **state)
{
	static unsigned char buf[8192];
	struct seen s;
	size_t len = 0;

	for (int i = 0; i < 5; i++) {
		char name[32];

		snprintf(name, sizeof(name), "f%d", i);
		len = archive(buf, len, name, "x");
		memset(buf + len, 0, 512);
		len += 512;
	}
	assert_int_equal(walk(buf, len, &s, NULL), 0);
	assert_int_equal(s.n, 5);
	assert_string_equal(s.names[4], "f4");
}

/* The early-microcode archive, then a gzip stream of the main archive. */
static void test_microcode_prefix_then_gzip(void **state)
{
	static unsigned char buf[8192], main_ar[2048];
	size_t len = archive(buf, 0, "kernel/x86/microcode/GenuineIntel.bin", "ucode");
	size_t ml = archive(main_ar, 0, "etc/earlytune.conf", "[thp]\n");
	z_stream z = { 0 };
	struct seen s;

	assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = main_ar;
	z.avail_in = (uInt)ml;
	z.next_out = buf + len;
	z.avail_out = (uInt)(sizeof(buf) - len);
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	len += z.total_out;
	deflateEnd(&z);
	assert_int_equal(walk(buf, len, &s, NULL), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.names[1], "etc/earlytune.conf");
	assert_string_equal(s.data[1], "[thp]\n");
	/* cut inside the gzip stream: refused */
	assert_int_equal(walk(buf, len - 12, &s, NULL), -EBADMSG);
}

static size_t pack(const char *kind, const unsigned char *in, size_t len, unsigned char *out, size_t cap)
{
	size_t n = 0;

	if (!strcmp(kind, "gzip")) {
		z_stream z = { 0 };

		assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
		z.next_in = (unsigned char *)in;
		z.avail_in = (uInt)len;
		z.next_out = out;
		z.avail_out = (uInt)cap;
		assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
		n = z.total_out;
		deflateEnd(&z);
	} else if (!strcmp(kind, "xz")) {
		assert_int_equal(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC32, NULL, in, len, out, &n, cap), LZMA_OK);
	} else {
		n = ZSTD_compress(out, cap, in, len, 3);
		assert_false(ZSTD_isError(n));
	}
	return n;
}

/* After a compressed stream the image goes on (NUL padding, then another
 * archive as it is), with each of the three decompressors. */
static void test_archive_after_compressed(void **state)
{
	static const char *const kinds[] = { "gzip", "xz", "zstd" };
	static unsigned char buf[8192], main_ar[2048];
	size_t ml = archive(main_ar, 0, "etc/earlytune.d/a.conf", "[net]\n");

	for (size_t k = 0; k < 3; k++) {
		struct seen s;
		size_t len = pack(kinds[k], main_ar, ml, buf, 4096);

		memset(buf + len, 0, 4 - len % 4 + 8); /* to a 4-byte boundary, and beyond */
		len += 4 - len % 4 + 8;
		len = archive(buf, len, "etc/earlytune.conf", "[thp]\n");
		assert_int_equal(walk(buf, len, &s, NULL), 0);
		assert_int_equal(s.n, 2);
		assert_string_equal(s.names[0], "etc/earlytune.d/a.conf");
		assert_string_equal(s.names[1], "etc/earlytune.conf");
		assert_string_equal(s.data[1], "[thp]\n");
	}
}

/* initrd_walk_fd reads in windows: the same entries from a file larger than
 * one (an early archive of 300 KB, then a zstd stream). */
static void test_fd_windows(void **state)
{
	static unsigned char buf[400 << 10], main_ar[2048], big[300001];
	char path[] = "/tmp/earlytune-unit-initrd.XXXXXX";
	struct cpio_sink sink;
	struct seen s = { 0 };
	size_t len = 0, ml = archive(main_ar, 0, "usr/sbin/earlytune", "ELF");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	len = archive(buf, 0, "kernel/x86/microcode/GenuineIntel.bin", (const char *)big);
	len += pack("zstd", main_ar, ml, buf + len, sizeof(buf) - len);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	sink = (struct cpio_sink){ s_begin, s_chunk, s_end, &s };
	assert_int_equal(initrd_walk_fd(fd, &sink, NULL), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.names[1], "usr/sbin/earlytune");
	assert_string_equal(s.data[1], "ELF");
	assert_int_equal(ftruncate(fd, (off_t)len - 5), 0); /* cut inside the zstd frame */
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	memset(&s, 0, sizeof(s));
	assert_int_equal(initrd_walk_fd(fd, &sink, NULL), -EBADMSG);
	close(fd);
}

static void test_malformed(void **state)
{
	static unsigned char buf[4096];
	struct seen s;
	size_t len = archive(buf, 0, "a", "data");
	size_t l2 = 0, first = 0;

	entry(buf, &first, "a", "data", 0);
	/* Every truncation is refused (and never read past), but for a cut
	 * right after the first entry (no trailer, as the kernel accepts) or
	 * inside the trailer's padding. */
	for (size_t cut = 1; cut < len; cut++)
		if (walk(buf, cut, &s, NULL) == 0)
			assert_true(cut == first || cut >= len - 3);
	memcpy(buf, "070703", 6);
	assert_int_equal(walk(buf, len, &s, NULL), -EBADMSG); /* bad magic: no codec either */
	entry(buf, &l2, "a", "x", 0);
	buf[6 + 8 * 11] = 'g'; /* a field that is not hex */
	assert_int_equal(walk(buf, l2, &s, NULL), -EBADMSG);
	l2 = 0;
	entry(buf, &l2, "a", "x", 0);
	memcpy(buf + 6 + 8 * 11, "00000000", 8); /* name size 0 */
	assert_int_equal(walk(buf, l2, &s, NULL), -EBADMSG);
	memcpy(buf + 6 + 8 * 11, "7fffffff", 8); /* name size huge */
	assert_int_equal(walk(buf, l2, &s, NULL), -EBADMSG);
	l2 = 0;
	entry(buf, &l2, "a", "x", 0);
	memcpy(buf + 6 + 8 * 6, "00100000", 8); /* file size past the end */
	assert_int_equal(walk(buf, l2, &s, NULL), -EBADMSG);
	l2 = 0;
	entry(buf, &l2, "abc", NULL, 2); /* name not NUL-terminated at its size */
	assert_int_equal(walk(buf, l2, &s, NULL), -EBADMSG);
}

static void test_unaligned_archive_refused(void **state)
{
	static unsigned char buf[4096];
	struct seen s;
	size_t len;

	buf[0] = 0;
	buf[1] = 0;
	len = archive(buf, 2, "a", "x"); /* starts at offset 2 */
	assert_int_equal(walk(buf, len, &s, NULL), -EBADMSG);
}

static void test_lz4_named(void **state)
{
	static const unsigned char lz4[] = { 0x02, 0x21, 0x4c, 0x18, 1, 2, 3, 4 };
	const char *comp = NULL;
	struct seen s;

	assert_int_equal(walk(lz4, sizeof(lz4), &s, &comp), -EPROTONOSUPPORT);
	assert_string_equal(comp, "lz4");
}

static void test_empty_image(void **state)
{
	struct seen s;

	assert_int_equal(walk((const unsigned char *)"", 0, &s, NULL), 0);
	assert_int_equal(s.n, 0);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_one_archive),
	cmocka_unit_test(test_many_archives_and_padding),
	cmocka_unit_test(test_microcode_prefix_then_gzip),
	cmocka_unit_test(test_archive_after_compressed),
	cmocka_unit_test(test_fd_windows),
	cmocka_unit_test(test_malformed),
	cmocka_unit_test(test_unaligned_archive_refused),
	cmocka_unit_test(test_lz4_named),
	cmocka_unit_test(test_empty_image),
};

UNIT_MAIN("initrd", tests)
