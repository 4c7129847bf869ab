// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * measure readahead's rounds, run by a child process (readahead.c restores
 * the read-ahead whatever happens to it). Four rounds: random page touches
 * at the current read-ahead and at the candidate, then a sequential read at
 * each. Before each, the read-ahead is set, the file's own read-ahead state
 * told (POSIX_FADV_NORMAL copies the queue's value into it: a file keeps
 * the value it was opened with otherwise), and the region's pages dropped:
 * the mapping unmapped (a mapped page is never dropped) and
 * POSIX_FADV_DONTNEED on the file, which for a block device drops the
 * device's clean cached pages just as for a file. mincore() on a fresh
 * mapping then counts what stayed cached, and after a random round what
 * the page cache kept of it (the model's cap). The device's own counters
 * (sys/block/DEV/stat: reads completed, sectors read) say what it served.
 * Each round stops at its share of --for and of --max-bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "measure/readahead.h"

#define MAX_TOUCHES 2000
#define SEQ_BLOCK (64 << 10) /* what a read asks for: dd bs=64k, as the workload benchmark */
#define CHUNK (1 << 20)

struct probe {
	const struct root *r;
	const struct mr_target *t;
	int fd;
	char stat[128], ra[128];
	uint64_t round_bytes;   /* each round's share of --max-bytes */
	long long round_ns;     /* and of --for */
};

/* stat's reads completed and bytes read (sectors of 512 bytes). */
static int dev_stat(const struct probe *p, uint64_t *reqs, uint64_t *bytes)
{
	unsigned long long f[3];
	char buf[512];
	int n = root_read(p->r, p->stat, buf, sizeof(buf));

	if (n < 0)
		return n;
	if (sscanf(buf, "%llu %llu %llu", &f[0], &f[1], &f[2]) != 3)
		return -EBADMSG;
	*reqs = f[0];
	*bytes = f[2] * 512;
	return 0;
}

static int set_ra(const struct probe *p, unsigned kb, struct mr_round *rd)
{
	unsigned long long got;
	char v[16];
	int e;

	snprintf(v, sizeof(v), "%u", kb);
	e = root_write(p->r, p->ra, v);
	if (!e)
		e = root_read_u64(p->r, p->ra, &got);
	if (e < 0)
		return e;
	rd->ra_kb = (unsigned)got; /* the kernel keeps whole pages */
	e = posix_fadvise(p->fd, 0, 0, POSIX_FADV_NORMAL);
	return -e;
}

/* Pages of the region in the page cache. */
static int resident(const struct probe *p, uint64_t *n)
{
	uint64_t len = p->t->region, page = p->t->page;
	unsigned char *vec = malloc(CHUNK / 4096);
	void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, p->fd, 0);
	int e = 0;

	*n = 0;
	if (map == MAP_FAILED || !vec) {
		e = map == MAP_FAILED ? -errno : -ENOMEM;
		map = map == MAP_FAILED ? NULL : map;
	}
	for (uint64_t off = 0; !e && off < len; off += CHUNK) {
		uint64_t l = len - off < CHUNK ? len - off : CHUNK;

		if (mincore((char *)map + off, l, vec) < 0)
			e = -errno;
		for (uint64_t i = 0; !e && i < (l + page - 1) / page; i++)
			*n += vec[i] & 1;
	}
	if (map)
		munmap(map, len);
	free(vec);
	return e;
}

/* POSIX_FADV_DONTNEED passes over pages still being read: the last
 * round's read-ahead, in flight when it stopped (a whole window, 2,048
 * pages at 8192 KiB, on a loaded machine). Dropped again until none is
 * left, for at most a second; what stays is said in resident. */
static int drop(const struct probe *p, struct mr_round *rd)
{
	const struct timespec wait = { .tv_nsec = 20 * 1000 * 1000 };
	int e = 0;

	for (int i = 0; i < 50 && !e; i++) {
		if (i)
			nanosleep(&wait, NULL);
		e = posix_fadvise(p->fd, 0, 0, POSIX_FADV_DONTNEED);
		e = e ? -e : resident(p, &rd->resident);
		if (!e && !rd->resident)
			break;
	}
	return e;
}

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Random touches, the same sequence in every round, up to max of them. */
static int random_round(const struct probe *p, struct mr_round *rd, uint64_t max)
{
	const struct mr_target *t = p->t;
	uint64_t seed = 0x9e3779b97f4a7c15ULL, npages = t->region / t->page, r0, b0, r1 = 0, b1 = 0, n = 0;
	uint64_t window = (uint64_t)rd->ra_kb * 1024 + t->page;
	volatile const char *map = mmap(NULL, t->region, PROT_READ, MAP_SHARED, p->fd, 0);
	long long t0 = now_ns(CLOCK_MONOTONIC);
	int e;

	if (map == MAP_FAILED)
		return -errno;
	e = dev_stat(p, &r0, &b0);
	while (!e && n < max) {
		(void)map[next(&seed) % npages * t->page];
		n++;
		e = dev_stat(p, &r1, &b1);
		if (now_ns(CLOCK_MONOTONIC) - t0 >= p->round_ns || b1 - b0 + window > p->round_bytes)
			break;
	}
	rd->ns = now_ns(CLOCK_MONOTONIC) - t0;
	munmap((void *)map, t->region);
	if (e < 0)
		return e;
	rd->touches = n, rd->dev_reqs = r1 - r0, rd->dev_bytes = b1 - b0, rd->done = true;
	/* what the page cache kept of it: less than it read when pages were evicted within the round */
	return resident(p, &rd->cached);
}

static int seq_round(const struct probe *p, struct mr_round *rd)
{
	uint64_t len = p->t->region < p->round_bytes ? p->t->region : p->round_bytes, off = 0, r0, b0, r1, b1;
	char *buf = malloc(SEQ_BLOCK);
	long long t0;
	int e = buf ? dev_stat(p, &r0, &b0) : -ENOMEM;

	t0 = now_ns(CLOCK_MONOTONIC);
	while (!e && off < len && now_ns(CLOCK_MONOTONIC) - t0 < p->round_ns) {
		ssize_t n = pread(p->fd, buf, len - off < SEQ_BLOCK ? len - off : SEQ_BLOCK, (off_t)off);

		if (n <= 0)
			e = n < 0 ? -errno : -EIO;
		else
			off += (uint64_t)n;
	}
	rd->ns = now_ns(CLOCK_MONOTONIC) - t0;
	free(buf);
	if (!e)
		e = dev_stat(p, &r1, &b1);
	if (e < 0)
		return e;
	rd->bytes = off, rd->dev_reqs = r1 - r0, rd->dev_bytes = b1 - b0, rd->done = true;
	return 0;
}

/* The scratch file's bytes, written and on the device before any round. */
static int fill(const struct probe *p)
{
	char *buf = malloc(CHUNK);
	int e = buf ? 0 : -ENOMEM;

	for (uint64_t off = 0; !e && off < p->t->region; off += CHUNK) {
		for (size_t i = 0; i < CHUNK; i += 8)
			memcpy(buf + i, &off, 8);
		e = write_full(p->fd, buf, CHUNK);
	}
	free(buf);
	if (!e && fdatasync(p->fd) < 0)
		e = -errno;
	return e;
}

static int rounds(const struct probe *p, struct mr_rounds *m)
{
	const unsigned ra[2] = { p->t->ra_kb, p->t->cand_kb };
	const char *step = "set the read-ahead";
	int e = 0;

	uint64_t touches = p->t->touches ? p->t->touches : MAX_TOUCHES;

	for (int i = 0; i < 4 && !e; i += p->t->one ? 2 : 1) {
		struct mr_round *rd = i < 2 ? &m->rnd[i] : &m->seq[i - 2];

		step = "set the read-ahead";
		e = set_ra(p, ra[i % 2], rd);
		if (!e)
			step = "drop the region's cached pages", e = drop(p, rd);
		if (!e)
			step = "read the device", e = i < 2 ? random_round(p, rd, i ? m->rnd[0].touches : touches)
							     : seq_round(p, rd);
	}
	if (e)
		snprintf(m->what, sizeof(m->what), "%s", step);
	return e;
}

int mr_probe(const struct root *r, const struct mr_target *t, int fd, struct mr_rounds *m)
{
	struct probe p = { .r = r, .t = t, .fd = fd };
	int e;

	/* --verify's two rounds keep the shares of the measurement's four:
	 * the same rounds */
	p.round_bytes = t->max_bytes / 4;
	p.round_ns = (long long)t->seconds * 1000000000LL / 4;
	if (pathf(p.stat, sizeof(p.stat), "sys/block/%s/stat", t->dev) < 0 ||
	    pathf(p.ra, sizeof(p.ra), "sys/block/%s/queue/read_ahead_kb", t->dev) < 0)
		return -ENAMETOOLONG;
	if (*t->mount && (e = fill(&p)) < 0) {
		snprintf(m->what, sizeof(m->what), "write the scratch file");
		return m->err = e;
	}
	e = rounds(&p, m);
	return m->err = e;
}
