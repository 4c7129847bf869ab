// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The host's side of a TCP measurement, read through the root: the buffer
 * limits (per network namespace), tcp_mem (pages, sized at boot) and what
 * TCP holds now (/proc/net/sockstat), the default congestion control.
 * Anything unreadable is left unknown: what needs it is then not said.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "measure/internal.h"

static bool read_three(const struct root *r, const char *rel, unsigned long long v[3])
{
	char buf[128];

	return root_read(r, rel, buf, sizeof(buf)) >= 0 && sscanf(buf, "%llu %llu %llu", &v[0], &v[1], &v[2]) == 3;
}

/* "TCP: inuse 5 orphan 0 tw 2 alloc 7 mem 3": the pages TCP holds now. */
static bool read_sockstat(const struct root *r, unsigned long long *pages)
{
	char buf[1024];
	const char *p;

	if (root_read(r, "proc/net/sockstat", buf, sizeof(buf)) < 0)
		return false;
	p = strstr(buf, "\nTCP:");
	if (!p && !strncmp(buf, "TCP:", 4))
		p = buf;
	p = p ? strstr(p, " mem ") : NULL;
	return p && sscanf(p, " mem %llu", pages) == 1;
}

void mt_host_read(const struct root *r, struct mt_host *h)
{
	long page = sysconf(_SC_PAGESIZE);

	memset(h, 0, sizeof(*h));
	h->page = page > 0 ? (unsigned long long)page : 4096;
	h->have_wmem = read_three(r, "proc/sys/net/ipv4/tcp_wmem", h->wmem);
	h->have_rmem = read_three(r, "proc/sys/net/ipv4/tcp_rmem", h->rmem);
	h->have_tcp_mem = read_three(r, "proc/sys/net/ipv4/tcp_mem", h->tcp_mem);
	h->have_mem = read_sockstat(r, &h->mem_pages);
	if (root_read(r, "proc/sys/net/ipv4/tcp_congestion_control", h->cc, sizeof(h->cc)) < 0)
		h->cc[0] = '\0';
}
