// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A PE image's section table, read from the file: the DOS header points to
 * the PE signature, the COFF header says how many sections and how long the
 * optional header is, then 40 bytes per section. A section's bytes are its
 * file range cut to its virtual size (the rest of the range is alignment);
 * systemd-stub reads the same bytes once loaded. ukify, mkosi and
 * `objcopy --add-section` all write short names (at most 8 bytes) in place.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/pe.h"

#define MAX_SECTIONS 96 /* the PE format's own limit */

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* Exactly n bytes at off: 0, -EBADMSG when the file ends first, -errno. */
static int read_at(int fd, uint64_t off, void *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -EBADMSG;
		got += (size_t)k;
	}
	return 0;
}

/* The section table's place and length: 0, or -EBADMSG / -errno. */
static int table(int fd, uint64_t *at, unsigned *n)
{
	unsigned char dos[64], pe[24];
	int r = read_at(fd, 0, dos, sizeof(dos));

	if (r < 0)
		return r;
	if (dos[0] != 'M' || dos[1] != 'Z')
		return -EBADMSG;
	r = read_at(fd, le32(dos + 0x3c), pe, sizeof(pe));
	if (r < 0)
		return r;
	if (memcmp(pe, "PE\0\0", 4) || le16(pe + 6) > MAX_SECTIONS)
		return -EBADMSG;
	*n = le16(pe + 6);
	*at = (uint64_t)le32(dos + 0x3c) + sizeof(pe) + le16(pe + 20);
	return 0;
}

int pe_section(int fd, const char *name, uint64_t *off, uint64_t *size)
{
	unsigned char s[40];
	size_t len = strlen(name);
	uint64_t at;
	unsigned n;
	struct stat st;
	int r = table(fd, &at, &n);

	if (r < 0)
		return r;
	if (len > 8 || fstat(fd, &st) < 0)
		return len > 8 ? 0 : -errno;
	for (unsigned i = 0; i < n; i++) {
		uint32_t vsize, raw, ptr;

		if ((r = read_at(fd, at + 40ull * i, s, sizeof(s))) < 0)
			return r;
		if (memcmp(s, name, len) || (len < 8 && s[len]))
			continue;
		vsize = le32(s + 8), raw = le32(s + 16), ptr = le32(s + 20);
		*off = ptr;
		*size = vsize && vsize < raw ? vsize : raw;
		return (uint64_t)ptr + *size <= (uint64_t)st.st_size ? 1 : -EBADMSG;
	}
	return 0;
}

int pe_section_text(int fd, const char *name, size_t max, char **out)
{
	uint64_t off, size;
	char *s;
	int r = pe_section(fd, name, &off, &size);

	if (r <= 0)
		return r;
	if (size > max)
		return -EFBIG;
	s = malloc(size + 1);
	if (!s)
		return -ENOMEM;
	r = read_at(fd, off, s, size);
	if (r < 0) {
		free(s);
		return r;
	}
	s[size] = '\0';
	for (size_t l = strlen(s); l && (s[l - 1] == ' ' || s[l - 1] == '\n' || s[l - 1] == '\t'); l--)
		s[l - 1] = '\0';
	*out = s;
	return 1;
}
