// SPDX-License-Identifier: LGPL-2.1-or-later
/* Decompresses stdin to stdout through the streaming API libkmod uses for
 * .ko.zst modules, linked against the small zstd decoder the shipped binary
 * carries: tests prove that configuration decodes what zstd(1) makes. */
#include <stdio.h>
#include <zstd.h>

int main(void)
{
	static char in[1 << 17], out[1 << 17];
	ZSTD_DStream *ds = ZSTD_createDStream();
	size_t n, r = 1;

	if (!ds || ZSTD_isError(ZSTD_initDStream(ds)))
		return 2;
	while ((n = fread(in, 1, sizeof(in), stdin)) > 0) {
		ZSTD_inBuffer ib = { in, n, 0 };

		while (ib.pos < ib.size) {
			ZSTD_outBuffer ob = { out, sizeof(out), 0 };

			r = ZSTD_decompressStream(ds, &ob, &ib);
			if (ZSTD_isError(r)) {
				fprintf(stderr, "zstdcat: %s\n", ZSTD_getErrorName(r));
				return 1;
			}
			fwrite(out, 1, ob.pos, stdout);
		}
	}
	ZSTD_freeDStream(ds);
	return r == 0 ? 0 : 1; /* 0: the last frame is complete */
}
