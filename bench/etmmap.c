// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * etmmap DEVICE TOUCHES — bench/workload.sh's random-read probe, run in the
 * guest: TOUCHES random 4 KiB page touches through a read-only mmap of a
 * block device, without a madvise hint (as most programs), so every fault
 * reads the device's read_ahead_kb around the page. Prints one line:
 * "touches=N secs=S per_s=R".
 */
#include <fcntl.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	uint64_t size, pages, seed;
	volatile const unsigned char *map;
	unsigned long touches, i, sum = 0;
	double t0, secs;
	int fd;

	if (argc != 3 || (touches = strtoul(argv[2], NULL, 10)) == 0) {
		fprintf(stderr, "usage: etmmap DEVICE TOUCHES\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size) < 0 || size < 4096) {
		perror(argv[1]);
		return 1;
	}
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	pages = size / 4096;
	/* A different page set per run: the runs must not hit each other's cache. */
	seed = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid();
	t0 = now();
	for (i = 0; i < touches; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		sum += map[((seed >> 17) % pages) * 4096];
	}
	secs = now() - t0;
	printf("touches=%lu secs=%.3f per_s=%.1f sum=%lu\n", touches, secs, touches / secs, sum);
	return 0;
}
