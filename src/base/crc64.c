// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * liblzma's lzma_crc64(), defined here so that the static link does not
 * take liblzma's own: on x86-64 its object carries a constructor that asks
 * CPUID whether CLMUL is there, at every start of the binary — and CPUID
 * traps to the hypervisor in a VM. That one question was 16 µs of each
 * udev run (perf, 1,500 runs of a one-device apply), for a check that
 * modules and initramfs images never use: the kernel's xz is --check=crc32.
 * An .xz with the default CRC64 check still decodes, through this.
 */
#include <lzma.h>

/* CRC-64/XZ: ECMA-182's polynomial, reflected. */
#define CRC64_POLY 0xc96c5795d7870f42ULL

static uint64_t crc64_table[256];

static void crc64_init(void)
{
	for (unsigned int b = 0; b < 256; b++) {
		uint64_t r = b;

		for (int k = 0; k < 8; k++)
			r = (r >> 1) ^ (r & 1 ? CRC64_POLY : 0);
		crc64_table[b] = r;
	}
}

uint64_t lzma_crc64(const uint8_t *buf, size_t size, uint64_t crc)
{
	if (!crc64_table[1])
		crc64_init();
	crc = ~crc;
	for (size_t i = 0; i < size; i++)
		crc = crc64_table[(crc ^ buf[i]) & 0xff] ^ (crc >> 8);
	return ~crc;
}
