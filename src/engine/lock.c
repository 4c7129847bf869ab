// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The records' lock: udev runs one earlytune per device in parallel, and
 * every access to the records happens under one exclusive flock() of
 * ROOT/run/earlytune/lock. Waiters are bounded (a tuning tool must not hang
 * a boot behind a stuck peer), and a holder shows it is working: it may
 * spend seconds in module loads, netlink waits or a debugfs mount, and a
 * waiter must never give up on a holder that works.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "engine/state.h"

/* A waiter gives up when the lock has shown no sign of work for
 * state_lock_stall_ms (a stuck peer: a working holder beats at least every
 * state_lock_beat_ms while its steps go on), or after state_lock_wait_ms
 * whatever happens (udev kills a RUN program at its 180 s event timeout).
 * A long queue that moves is not a stuck peer: a boot's hundreds of udev
 * runs can queue for tens of seconds on a slow machine. */
unsigned state_lock_stall_ms = 10000, state_lock_wait_ms = 90000, state_lock_beat_ms = 1000;

/* Every holder counts itself in the lock file's size, at its start and at
 * each beat: the waiters' sign of progress. A size, not content: a sparse
 * file takes no page of a full /run (the last page a /run filled mid-apply
 * has is for the originals). */
static off_t lock_gen(int fd)
{
	struct stat st;

	return fstat(fd, &st) < 0 ? 0 : st.st_size;
}

/* The count before it (0: no holder came before). */
static off_t lock_bump(int fd)
{
	off_t gen = lock_gen(fd);

	/* failing, the waiters see no progress and wait out the stall bound */
	(void)!ftruncate(fd, gen + 1);
	return gen;
}

static void on_alarm(int sig)
{
	(void)sig; /* only there to interrupt flock() */
}

/* A blocking flock(), bounded. The kernel queues the waiters and wakes
 * them at each unlock; polling with LOCK_NB instead makes hundreds of
 * udev-started waiters spin and starve the holder. A repeating SIGALRM
 * without SA_RESTART interrupts the wait so the bounds are checked without
 * polling the lock. */
static int lock_wait(int fd)
{
	struct sigaction sa = { .sa_handler = on_alarm }, old_sa;
	struct itimerval tick = { { 0, 100 * 1000 }, { 0, 100 * 1000 } }, old_tick;
	long long now = now_ns(CLOCK_MONOTONIC), deadline = now + state_lock_wait_ms * 1000000LL;
	long long stall = now + state_lock_stall_ms * 1000000LL;
	off_t gen = lock_gen(fd), g;
	int rr = 0;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, &old_sa) < 0)
		return -errno;
	if (setitimer(ITIMER_REAL, &tick, &old_tick) < 0) {
		rr = -errno;
		sigaction(SIGALRM, &old_sa, NULL);
		return rr;
	}
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			rr = -errno;
			break;
		}
		now = now_ns(CLOCK_MONOTONIC);
		g = lock_gen(fd);
		if (g != gen) {
			gen = g;
			stall = now + state_lock_stall_ms * 1000000LL;
		}
		if (now >= stall || now >= deadline) {
			rr = -ETIMEDOUT;
			break;
		}
	}
	setitimer(ITIMER_REAL, &old_tick, NULL);
	sigaction(SIGALRM, &old_sa, NULL);
	return rr;
}

/* The holder's beat: its long steps (each item written, each record
 * restored, a module load, a netlink wait: base's progress()) bump the
 * lock file, at most every state_lock_beat_ms, so a run shorter than that
 * costs no call more. */
static int beat_fd = -1;
static long long beat_last;

static void beat(void)
{
	long long now = now_ns(CLOCK_MONOTONIC_COARSE);

	if (beat_fd >= 0 && now - beat_last >= state_lock_beat_ms * 1000000LL) {
		lock_bump(beat_fd);
		beat_last = now;
	}
}

int state_lock(struct records *rs, const struct root *r)
{
	int fd, rr;
	bool made;

	rs->lock_fd = -1;
	/* The directory exists on every run but a boot's first: made only when
	 * the open says it is missing. */
	fd = root_openat(r, STATE_DIR "/lock", O_RDWR | O_CREAT, 0600);
	made = fd == -ENOENT;
	if (made) {
		rr = root_mkdir_p(r, STATE_DIR, 0755);
		if (rr < 0)
			return rr;
		fd = root_openat(r, STATE_DIR "/lock", O_RDWR | O_CREAT, 0600);
	}
	if (fd < 0)
		return fd;
	rr = flock(fd, LOCK_EX | LOCK_NB) < 0 ? -errno : 0;
	if (rr == -EWOULDBLOCK)
		rr = lock_wait(fd);
	if (rr < 0) {
		close(fd);
		return rr;
	}
	/* Records are written under the lock only, by a holder that counted
	 * itself first: a directory missing before this run, and no holder
	 * since, has none. */
	rs->none = lock_bump(fd) == 0 && made;
	rs->lock_fd = fd;
	beat_fd = fd, beat_last = now_ns(CLOCK_MONOTONIC_COARSE);
	progress_hook(beat);
	return 0;
}

/* Closing the fd releases the flock. */
void state_unlock(struct records *rs)
{
	if (rs->lock_fd < 0)
		return;
	if (beat_fd == rs->lock_fd) {
		progress_hook(NULL);
		beat_fd = -1;
	}
	close(rs->lock_fd);
	rs->lock_fd = -1;
}
