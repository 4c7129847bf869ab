// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kernel's build configuration: what it has built in, as a module or not
 * at all, where modules.builtin cannot tell (a kernel without module support
 * installs none). /proc/config.gz (CONFIG_IKCONFIG_PROC) is gzip, inflated
 * here; /boot/config-RELEASE is text.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/kconfig.h"
#include "base/kernel.h"
#include "base/root.h"

#define KCONFIG_MAX (8u << 20) /* a distribution's config is 300 KB */

static int inflate_all(const unsigned char *in, size_t len, char **out)
{
	z_stream z = { .next_in = (unsigned char *)in, .avail_in = (uInt)len };
	size_t cap = 1 << 20, n = 0;
	char *buf = NULL, *nbuf;
	int zr = Z_OK;

	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return -ENOMEM;
	while (zr == Z_OK && cap <= KCONFIG_MAX && (nbuf = realloc(buf, cap + 1))) {
		buf = nbuf;
		z.next_out = (unsigned char *)buf + n;
		z.avail_out = (uInt)(cap - n);
		zr = inflate(&z, Z_NO_FLUSH);
		n = cap - z.avail_out;
		if (zr == Z_OK && !z.avail_out)
			cap *= 2;
		else if (zr == Z_OK)
			zr = Z_BUF_ERROR; /* input ended before the stream did */
	}
	inflateEnd(&z);
	if (zr != Z_STREAM_END) {
		free(buf);
		return zr == Z_MEM_ERROR ? -ENOMEM : zr == Z_OK ? -EFBIG : -EBADMSG;
	}
	buf[n] = '\0';
	*out = buf;
	return 0;
}

int kconfig_read(const struct root *r, const struct kernel *k, char **text, char *from, size_t size)
{
	char rel[160], *gz = NULL;
	int n;

	snprintf(rel, sizeof(rel), "boot/config-%s", k->release);
	n = root_read_file(r, rel, text, KCONFIG_MAX);
	if (n != -ENOENT && n != -ENOTDIR) {
		snprintf(from, size, "/%s", rel);
		return n < 0 ? n : 0;
	}
	if (k->other)
		return -ENOENT;
	n = root_read_file(r, "proc/config.gz", &gz, KCONFIG_MAX);
	if (n == -ENOTDIR)
		n = -ENOENT;
	if (n >= 0) {
		n = inflate_all((const unsigned char *)gz, (size_t)n, text);
		free(gz);
	}
	snprintf(from, size, "/proc/config.gz");
	return n < 0 ? n : 0;
}

int kconfig_value(const char *text, const char *sym)
{
	size_t n = strlen(sym);

	for (const char *p = text; p && (p = strstr(p, sym)); p += n) {
		if ((p != text && p[-1] != '\n') || p[n] != '=')
			continue;
		if ((p[n + 1] == 'y' || p[n + 1] == 'm') && (p[n + 2] == '\n' || !p[n + 2]))
			return p[n + 1];
	}
	return 'n';
}

/* A string symbol's value (CONFIG_DEFAULT_TCP_CONG="cubic"): 0 with it
 * in buf, -ENOENT when the file does not set it. */
int kconfig_string(const char *text, const char *sym, char *buf, size_t size)
{
	size_t n = strlen(sym);

	for (const char *p = text; p && (p = strstr(p, sym)); p += n) {
		const char *v = p + n + 2, *end;

		if ((p != text && p[-1] != '\n') || p[n] != '=' || p[n + 1] != '"' || !(end = strchr(v, '"')))
			continue;
		snprintf(buf, size, "%.*s", (int)(end - v), v);
		return 0;
	}
	return -ENOENT;
}
