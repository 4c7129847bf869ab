/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel's side of a netlink socket for the harnesses of netlink
 * replies (netlink.c, sockdiag.c), linked with -Wl,--wrap=send,--wrap=recvmsg:
 * requests go nowhere, and each recvmsg() returns the next datagram of the
 * input (a 16-bit little-endian length and its bytes, from port 0), the rest
 * of the receive buffer poisoned so ASan reports any read past what was
 * "received". The harness sets in and in_left, and calls unpoison() when done;
 * each_message() then gives it each message of the input alone.
 */
#pragma once

#include <errno.h>
#include <sanitizer/asan_interface.h>
#include <sys/socket.h>

#include "net/netlink.h"

#define FUZZ_PID 4242
#define FUZZ_SEQ 100

static const uint8_t *in;
static size_t in_left;
static void *poisoned;
static size_t poisoned_len;

static void unpoison(void)
{
	if (poisoned)
		ASAN_UNPOISON_MEMORY_REGION(poisoned, poisoned_len);
	poisoned = NULL;
}

ssize_t __wrap_send(int fd, const void *buf, size_t len, int flags);
ssize_t __wrap_send(int fd, const void *buf, size_t len, int flags)
{
	return (ssize_t)len;
}

ssize_t __wrap_recvmsg(int fd, struct msghdr *m, int flags);
ssize_t __wrap_recvmsg(int fd, struct msghdr *m, int flags)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK }; /* from the kernel: port 0 */
	size_t len, room = m->msg_iov[0].iov_len;
	char *buf = m->msg_iov[0].iov_base;

	unpoison();
	if (in_left < 2) {
		errno = EAGAIN; /* what the receive timeout gives */
		return -1;
	}
	len = in[0] | (size_t)in[1] << 8;
	in += 2;
	in_left -= 2;
	if (len > in_left)
		len = in_left;
	m->msg_flags = len > room ? MSG_TRUNC : 0;
	memcpy(buf, in, len < room ? len : room);
	in += len;
	in_left -= len;
	if (m->msg_name && m->msg_namelen >= sizeof(sa))
		memcpy(m->msg_name, &sa, sizeof(sa));
	if (len < room) {
		poisoned = buf + len;
		poisoned_len = room - len;
		ASAN_POISON_MEMORY_REGION(poisoned, poisoned_len);
	}
	return (ssize_t)(len < room ? len : room);
}

/* fn on each datagram of p[0, left) that starts with a whole message, the
 * message alone in a heap block of exactly its length. */
__attribute__((unused)) static void each_message(const uint8_t *p, size_t left, void (*fn)(const struct nlmsghdr *m))
{
	while (left >= 2) {
		size_t len = p[0] | (size_t)p[1] << 8;
		struct nlmsghdr h;

		p += 2;
		left -= 2;
		if (len > left)
			len = left;
		memcpy(&h, p, len < sizeof(h) ? len : sizeof(h));
		if (len >= sizeof(h) && h.nlmsg_len >= sizeof(h) && h.nlmsg_len <= len) {
			struct nlmsghdr *m = malloc(h.nlmsg_len);

			if (!m)
				abort();
			memcpy(m, p, h.nlmsg_len);
			fn(m);
			free(m);
		}
		p += len;
		left -= len;
	}
}
