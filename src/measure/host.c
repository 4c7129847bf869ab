// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The host's side of a TCP measurement, read through the root: the buffer
 * limits (per network namespace), tcp_mem (pages, sized at boot) and what
 * TCP holds now (/proc/net/sockstat), the default congestion control and
 * whether bbr is there to suggest. Anything unreadable is left unknown:
 * what needs it is then not said.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/kernel.h"
#include "base/kmod.h"
#include "base/util.h"
#include "earlytune.h"
#include "measure/internal.h"
#include "net/net.h"

#define CC_LIST "proc/sys/net/ipv4/tcp_available_congestion_control"

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
	char avail[512];

	memset(h, 0, sizeof(*h));
	h->page = page > 0 ? (unsigned long long)page : 4096;
	h->have_wmem = read_three(r, "proc/sys/net/ipv4/tcp_wmem", h->wmem);
	h->have_rmem = read_three(r, "proc/sys/net/ipv4/tcp_rmem", h->rmem);
	h->have_tcp_mem = read_three(r, "proc/sys/net/ipv4/tcp_mem", h->tcp_mem);
	h->have_mem = read_sockstat(r, &h->mem_pages);
	if (root_read(r, "proc/sys/net/ipv4/tcp_congestion_control", h->cc, sizeof(h->cc)) < 0)
		h->cc[0] = '\0';
	h->bbr = root_read(r, CC_LIST, avail, sizeof(avail)) >= 0 && word_listed(avail, "bbr");
}

/* A bbr the kernel does not offer now may be a module it loads when the
 * sysctl names it (tcp_ca_find_autoload), or absent, when a sysctl.d file
 * that sets it fails at every boot: asked as the net domain asks for its
 * congestion_control, of the module tree and the kernel's configuration.
 * measure tcp probes the kernel only here, where the answer needs it. */
void mt_host_bbr(struct ctx *c, struct mt_host *h)
{
	int e = 0;

	if (h->bbr == 1)
		return;
	/* Once: a second measurement (--verify's files) asks the same. */
	if (!c->mods) {
		e = kernel_probe(&c->kernel, &c->root);
		if (mods_new(&c->mods, &c->root, &c->kernel) < 0)
			e = -ENOMEM;
	}
	if (e < 0) {
		h->bbr = 3;
		snprintf(h->bbr_why, sizeof(h->bbr_why), "the kernel cannot be told: %s%s%s", strerror(-e),
			 c->kernel.unreadable ? " reading /" : "", c->kernel.unreadable ? c->kernel.unreadable : "");
		return;
	}
	h->bbr = net_module_available(c, "tcp_bbr", h->bbr_why, sizeof(h->bbr_why));
}
