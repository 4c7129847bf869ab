// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * etfault MIB — bench/workload.sh's page-fault latency probe, run in the
 * guest. It first fragments free memory the way a long-running host does
 * (fills MemFree with 4 KiB anonymous pages, but for 64 MiB and twice
 * vm.min_free_kbytes, which THP raises: the guest has no swap and must not
 * run out; then frees every other page), then writes one byte per 4 KiB into MIB MiB of fresh
 * anonymous memory without a madvise hint, timing each first write: with THP
 * enabled=always such a write may fault a whole 2 MiB page (and, with
 * defrag, compact for it); with madvise it faults 4 KiB. Prints one line:
 * "mib= total_ms= max_us= p99_us= p50_us= thp_alloc= thp_fallback= compact_stall="
 * (mib: less than MIB if the memory left after fragmenting is short).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define PAGE 4096UL

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* The value of KEY (a line "KEY value") in /proc/meminfo or /proc/vmstat, -1 if absent. */
static long procval(const char *file, const char *key)
{
	char line[256];
	size_t n = strlen(key);
	long v = -1;
	FILE *f = fopen(file, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && (line[n] == ' ' || line[n] == ':')) {
			v = strtol(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static long min_free_kb(void)
{
	long v = -1;
	FILE *f = fopen("/proc/sys/vm/min_free_kbytes", "r");

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v < 0 ? 16 * 1024 : v;
}

/* Fill free memory with 4 KiB pages (never huge: the filler is other programs' memory) and free every other one. */
static int fragment(void)
{
	long free_kb = procval("/proc/meminfo", "MemFree"), keep_kb = 64 * 1024 + 2 * min_free_kb();
	size_t len, off;
	char *p;

	if (free_kb < 0)
		return -1;
	if (free_kb < keep_kb + 64 * 1024)
		return 0;
	len = (size_t)(free_kb - keep_kb) * 1024;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	madvise(p, len, MADV_NOHUGEPAGE);
	for (off = 0; off < len; off += PAGE)
		p[off] = 1;
	for (off = 0; off < len; off += 2 * PAGE)
		madvise(p + off, PAGE, MADV_DONTNEED);
	return 0;
}

int main(int argc, char **argv)
{
	long mib = argc == 2 ? strtol(argv[1], NULL, 10) : 0;
	long a0, f0, c0, room_kb;
	size_t n, i;
	double *lat, t, total = 0;
	char *p;

	if (mib <= 0) {
		fprintf(stderr, "usage: etfault MIB\n");
		return 2;
	}
	if (fragment() < 0) {
		perror("fragment");
		return 1;
	}
	room_kb = procval("/proc/meminfo", "MemFree") - 2 * min_free_kb();
	if (room_kb < mib * 1024)
		mib = room_kb / 1024;
	if (mib <= 0) {
		fprintf(stderr, "etfault: no memory left after fragmenting\n");
		return 1;
	}
	n = (size_t)mib * 1024 * 1024 / PAGE;
	lat = calloc(n, sizeof(*lat));
	p = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!lat || p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	a0 = procval("/proc/vmstat", "thp_fault_alloc");
	f0 = procval("/proc/vmstat", "thp_fault_fallback");
	c0 = procval("/proc/vmstat", "compact_stall");
	for (i = 0; i < n; i++) {
		t = now_us();
		p[i * PAGE] = 1;
		lat[i] = now_us() - t;
		total += lat[i];
	}
	qsort(lat, n, sizeof(*lat), cmp);
	printf("mib=%ld total_ms=%.1f max_us=%.0f p99_us=%.1f p50_us=%.1f thp_alloc=%ld thp_fallback=%ld compact_stall=%ld\n",
	       mib, total / 1e3, lat[n - 1], lat[n * 99 / 100], lat[n / 2],
	       procval("/proc/vmstat", "thp_fault_alloc") - a0, procval("/proc/vmstat", "thp_fault_fallback") - f0,
	       procval("/proc/vmstat", "compact_stall") - c0);
	return 0;
}
