// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The initramfs as init/initramfs.c unpacks it: at a 4-aligned offset "0707"
 * starts a newc archive, NULs are padding, anything else starts a compressed
 * stream whose output is archives again; an entry's name and its data each
 * end on a 4-byte boundary. It streams: nothing of the image is kept but the
 * data the sink asks for, and the decompressed total is capped, so a hostile
 * image costs time up to the cap, not memory.
 */
#include <errno.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <unistd.h>
#include <zstd.h>

#include "base/util.h"
#include "image/initrd.h"

#define HDR 110
#define OUTBUF (64u << 10)
#define XZ_MEMLIMIT (128u << 20)

enum cstate { C_GAP, C_HDR, C_NAME, C_PAD, C_DATA };

struct cpio {
	const struct cpio_sink *sink;
	unsigned long long off;    /* bytes of this stream so far: alignment counts from its start */
	unsigned long long *total; /* decompressed bytes of the whole image */
	enum cstate st, next;      /* next: after C_PAD */
	bool want, stop;
	char hdr[HDR];
	char name[PATH_MAX + 1];
	uint32_t have, namesize, size, left;
	unsigned mode;
};

static int hex8(const char *s, uint32_t *v)
{
	uint32_t x = 0;

	for (int i = 0; i < 8; i++) {
		char ch = s[i];
		uint32_t d;

		if (ch >= '0' && ch <= '9')
			d = (uint32_t)(ch - '0');
		else if ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f')
			d = (uint32_t)((ch | 0x20) - 'a' + 10);
		else
			return -EBADMSG;
		x = x << 4 | d;
	}
	*v = x;
	return 0;
}

/* newc: magic, then 13 fields of 8 hex digits (ino, mode, uid, gid, nlink,
 * mtime, filesize, major, minor, rmajor, rminor, namesize, check). */
static int got_header(struct cpio *c)
{
	uint32_t f[13];

	if (memcmp(c->hdr, "070701", 6) && memcmp(c->hdr, "070702", 6))
		return -EBADMSG;
	for (int i = 0; i < 13; i++)
		if (hex8(c->hdr + 6 + 8 * i, &f[i]) < 0)
			return -EBADMSG;
	c->mode = f[1];
	c->size = f[6];
	c->namesize = f[11];
	if (c->namesize == 0 || c->namesize > PATH_MAX)
		return -EBADMSG;
	c->st = C_NAME;
	c->left = c->namesize;
	return 0;
}

static const char *plain_name(const char *n)
{
	for (;;) {
		if (n[0] == '.' && n[1] == '/')
			n += 2;
		else if (n[0] == '/')
			n++;
		else
			return n;
	}
}

/* The name is whole: the end of an archive, or an entry (data after padding). */
static int got_name(struct cpio *c)
{
	if (c->name[c->namesize - 1] != '\0')
		return -EBADMSG;
	c->st = C_PAD;
	if (!strcmp(c->name, "TRAILER!!!")) {
		c->next = C_GAP;
		return 0;
	}
	c->next = C_DATA;
	c->left = c->size;
	c->want = c->sink->begin(c->sink->data, plain_name(c->name), c->mode, c->size);
	return 0;
}

static size_t min_sz(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* What the current state takes of p[0..n): *k bytes. At a gap, a byte that
 * starts no archive sets stop. */
static int step(struct cpio *c, const unsigned char *p, size_t n, size_t *k)
{
	*k = 0;
	switch (c->st) {
	case C_GAP:
		while (*k < n && !p[*k])
			(*k)++;
		if (*k)
			return 0;
		if (p[0] == '0' && c->off % 4 == 0) {
			c->st = C_HDR;
			c->have = 0;
		} else {
			c->stop = true;
		}
		return 0;
	case C_HDR:
		*k = min_sz(n, HDR - c->have);
		memcpy(c->hdr + c->have, p, *k);
		c->have += (uint32_t)*k;
		return c->have == HDR ? got_header(c) : 0;
	case C_NAME:
		*k = min_sz(n, c->left);
		memcpy(c->name + (c->namesize - c->left), p, *k);
		c->left -= (uint32_t)*k;
		return c->left ? 0 : got_name(c);
	case C_PAD:
		while (*k < n && (c->off + *k) % 4)
			(*k)++;
		if ((c->off + *k) % 4 == 0)
			c->st = c->next;
		return 0;
	case C_DATA:
		*k = min_sz(n, c->left);
		if (c->want && *k)
			c->sink->chunk(c->sink->data, p, *k);
		c->left -= (uint32_t)*k;
		if (!c->left) {
			if (c->want)
				c->sink->end(c->sink->data);
			c->want = false;
			c->st = C_PAD;
			c->next = C_GAP;
		}
		return 0;
	}
	return -EBADMSG;
}

/* Feeds p[0..n); *used < n when it stopped at a byte that starts no archive. */
static int cpio_feed(struct cpio *c, const unsigned char *p, size_t n, size_t *used)
{
	size_t i = 0, k;
	int r = 0;

	c->stop = false;
	while (i < n && !c->stop && r >= 0) {
		r = step(c, p + i, n - i, &k);
		i += k;
		c->off += k;
	}
	*used = i;
	return r;
}

/* Between entries (a gap), or past the last entry's data. */
static bool cpio_complete(const struct cpio *c)
{
	return c->st == C_GAP || (c->st == C_PAD && c->next == C_GAP);
}

/* Decompressed output: archives only, and no more than the cap. */
static int emit(struct cpio *c, const unsigned char *p, size_t n)
{
	size_t used;
	int r;

	*c->total += n;
	if (*c->total > INITRD_MAX_OUTPUT)
		return -EFBIG;
	r = cpio_feed(c, p, n, &used);
	return r < 0 ? r : used < n ? -EBADMSG : 0;
}

/* The image, in windows: the whole of a buffer, or a file read by pieces,
 * so that only WINDOW bytes of it are in memory at a time. */
struct src {
	int fd;                  /* -1: p[0..len) is all of it */
	unsigned char *buf;      /* a file's window */
	const unsigned char *p;  /* the window */
	size_t len, pos;         /* bytes in the window; of them, consumed */
	unsigned long long read; /* bytes of the file read */
	unsigned long long left; /* bytes of the file that are the image's (a UKI's .initrd) */
	bool eof;                /* nothing of the image is past the window */
};

#define WINDOW (256u << 10)

/* At least want unconsumed bytes in the window, unless the image ends first. */
static int src_fill(struct src *s, size_t want)
{
	if (s->eof || s->len - s->pos >= want)
		return 0;
	memmove(s->buf, s->buf + s->pos, s->len - s->pos);
	s->len -= s->pos;
	s->pos = 0;
	while (s->len < WINDOW && !s->eof) {
		size_t room = WINDOW - s->len;
		ssize_t n = read(s->fd, s->buf + s->len, s->left < room ? (size_t)s->left : room);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		s->eof = n == 0 || (unsigned long long)n == s->left;
		s->len += (size_t)n;
		s->read += (unsigned long long)n;
		s->left -= (unsigned long long)n;
		if (s->read > INITRD_MAX_IMAGE)
			return -EFBIG;
	}
	return 0;
}

static int run_gzip(struct src *s, struct cpio *c, unsigned char *out)
{
	z_stream z = { 0 };
	int zr = Z_OK, r = 0;

	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return -ENOMEM;
	while (r >= 0 && zr != Z_STREAM_END && (r = src_fill(s, 1)) >= 0) {
		z.next_in = (unsigned char *)s->p + s->pos;
		z.avail_in = (uInt)(s->len - s->pos);
		z.next_out = out;
		z.avail_out = OUTBUF;
		zr = inflate(&z, Z_NO_FLUSH);
		s->pos = s->len - z.avail_in;
		if (zr != Z_OK && zr != Z_STREAM_END)
			r = zr == Z_MEM_ERROR ? -ENOMEM : -EBADMSG; /* Z_BUF_ERROR: truncated */
		else
			r = emit(c, out, OUTBUF - z.avail_out);
	}
	inflateEnd(&z);
	return r;
}

static int run_lzma(struct src *s, struct cpio *c, unsigned char *out, bool alone)
{
	lzma_stream z = LZMA_STREAM_INIT;
	lzma_ret lr = alone ? lzma_alone_decoder(&z, XZ_MEMLIMIT) : lzma_stream_decoder(&z, XZ_MEMLIMIT, 0);
	int r = 0;

	if (lr != LZMA_OK)
		return -ENOMEM;
	while (r >= 0 && lr != LZMA_STREAM_END && (r = src_fill(s, 1)) >= 0) {
		z.next_in = s->p + s->pos;
		z.avail_in = s->len - s->pos;
		z.next_out = out;
		z.avail_out = OUTBUF;
		lr = lzma_code(&z, s->eof ? LZMA_FINISH : LZMA_RUN);
		s->pos = s->len - z.avail_in;
		if (lr != LZMA_OK && lr != LZMA_STREAM_END)
			r = lr == LZMA_MEM_ERROR ? -ENOMEM : lr == LZMA_MEMLIMIT_ERROR ? -EFBIG : -EBADMSG;
		else
			r = emit(c, out, OUTBUF - z.avail_out);
	}
	lzma_end(&z);
	return r;
}

static int run_xz(struct src *s, struct cpio *c, unsigned char *out)
{
	return run_lzma(s, c, out, false);
}

static int run_lzma_alone(struct src *s, struct cpio *c, unsigned char *out)
{
	return run_lzma(s, c, out, true);
}

/* One frame: a frame after it is another compressed stream of the image. */
static int run_zstd(struct src *s, struct cpio *c, unsigned char *out)
{
	ZSTD_DStream *z = ZSTD_createDStream();
	size_t zr = 1;
	int r = 0;

	if (!z)
		return -ENOMEM;
	while (r >= 0 && zr && (r = src_fill(s, 1)) >= 0) {
		ZSTD_inBuffer ib = { s->p, s->len, s->pos };
		ZSTD_outBuffer ob = { out, OUTBUF, 0 };

		zr = ZSTD_decompressStream(z, &ob, &ib);
		s->pos = ib.pos;
		if (ZSTD_isError(zr))
			r = -EBADMSG;
		else
			r = emit(c, out, ob.pos);
		if (r >= 0 && zr && s->eof && s->pos == s->len && ob.pos < OUTBUF)
			r = -EBADMSG; /* truncated */
	}
	ZSTD_freeDStream(z);
	return r;
}

typedef int codec_fn(struct src *s, struct cpio *c, unsigned char *out);
static const struct codec {
	const char *name;
	unsigned char magic[6];
	size_t mlen;
	codec_fn *run; /* NULL: not linked */
} codecs[] = {
	{ "gzip", { 0x1f, 0x8b }, 2, run_gzip },
	{ "gzip", { 0x1f, 0x9e }, 2, run_gzip },
	{ "xz", { 0xfd, '7', 'z', 'X', 'Z', 0 }, 6, run_xz },
	{ "lzma", { 0x5d, 0, 0 }, 3, run_lzma_alone },
	{ "zstd", { 0x28, 0xb5, 0x2f, 0xfd }, 4, run_zstd },
	{ "lz4", { 0x02, 0x21, 0x4c, 0x18 }, 4, NULL },
	{ "bzip2", { 'B', 'Z', 'h' }, 3, NULL },
	{ "lzo", { 0x89, 'L', 'Z', 'O' }, 4, NULL },
};

/* The compressed stream at the window's start: its archives go to the sink. */
static int decompress(struct src *s, const struct cpio_sink *sink, unsigned long long *total, const char **comp)
{
	const unsigned char *in = s->p + s->pos;
	size_t len = s->len - s->pos;
	unsigned long long start = s->read - len; /* where it starts in the image */
	struct cpio *c;
	unsigned char *out;
	int r;

	for (size_t i = 0; i < ARRAY_SIZE(codecs); i++) {
		const struct codec *k = &codecs[i];

		if (len < k->mlen || memcmp(in, k->magic, k->mlen))
			continue;
		*comp = k->name;
		if (!k->run)
			return -EPROTONOSUPPORT;
		c = calloc(1, sizeof(*c));
		out = malloc(OUTBUF);
		r = c && out ? 0 : -ENOMEM;
		if (r == 0) {
			*c = (struct cpio){ .sink = sink, .total = total };
			r = k->run(s, c, out);
		}
		if (r == 0 && (!cpio_complete(c) || s->read - (s->len - s->pos) == start))
			r = -EBADMSG; /* the stream ended inside an entry, or took nothing */
		free(out);
		free(c);
		return r;
	}
	return -EBADMSG;
}

/* The kernel's order: archives and NUL padding as they are, and at any other
 * byte a compressed stream, after which the image goes on. */
static int walk(struct src *s, const struct cpio_sink *sink, const char **comp)
{
	unsigned long long total = 0;
	struct cpio *raw = calloc(1, sizeof(*raw));
	const char *dummy;
	size_t used;
	int r = raw ? 0 : -ENOMEM;

	if (!comp)
		comp = &dummy;
	*comp = NULL;
	if (raw)
		*raw = (struct cpio){ .sink = sink, .total = &total };
	while (r >= 0 && (r = src_fill(s, 8)) >= 0 && s->pos < s->len) {
		raw->off = s->read - (s->len - s->pos);
		r = cpio_feed(raw, s->p + s->pos, s->len - s->pos, &used);
		s->pos += used;
		if (r >= 0 && raw->stop && (r = src_fill(s, 8)) >= 0)
			r = decompress(s, sink, &total, comp);
	}
	if (r >= 0 && !cpio_complete(raw))
		r = -EBADMSG;
	free(raw);
	return r;
}

int initrd_walk(const unsigned char *img, size_t len, const struct cpio_sink *sink, const char **comp)
{
	struct src s = { .fd = -1, .p = img, .len = len, .read = len, .eof = true };

	return walk(&s, sink, comp);
}

static int walk_fd(int fd, unsigned long long len, const struct cpio_sink *sink, const char **comp)
{
	struct src s = { .fd = fd, .buf = malloc(WINDOW), .left = len };
	int r;

	if (!s.buf)
		return -ENOMEM;
	s.p = s.buf;
	r = walk(&s, sink, comp);
	free(s.buf);
	return r;
}

int initrd_walk_fd(int fd, const struct cpio_sink *sink, const char **comp)
{
	return walk_fd(fd, ULLONG_MAX, sink, comp);
}

int initrd_walk_part(int fd, unsigned long long off, unsigned long long len, const struct cpio_sink *sink,
		     const char **comp)
{
	if (lseek(fd, (off_t)off, SEEK_SET) < 0)
		return -errno;
	return walk_fd(fd, len, sink, comp);
}
