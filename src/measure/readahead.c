// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * measure readahead DEV: read amplification of random mmap reads and
 * sequential throughput at the read-ahead the disk has and at the
 * candidate, the model's prediction and the cost. The rounds run in a
 * child; this process restores the read-ahead when the child ends, however
 * it ends: done, failed, killed, or stopped because this process got
 * SIGINT, SIGTERM or SIGHUP (the child killed: it holds nothing that
 * outlives it, its scratch file has no name; then the read-ahead restored,
 * then the signal's own exit). Only a SIGKILL of this process
 * leaves the child's value (the child dies with it: PR_SET_PDEATHSIG).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "measure/measure.h"
#include "measure/readahead.h"

static const int caught[] = { SIGINT, SIGTERM, SIGHUP };
static volatile sig_atomic_t got_signal;
static volatile pid_t worker;

static void on_signal(int sig)
{
	got_signal = sig;
	if (worker > 0)
		kill(worker, SIGKILL);
}

/* The read-ahead the disk had, written back and read back. */
static int restore(const struct root *r, const struct mr_target *t)
{
	unsigned long long got = 0;
	char rel[128], v[16];
	int e = pathf(rel, sizeof(rel), "sys/block/%s/queue/read_ahead_kb", t->dev);

	snprintf(v, sizeof(v), "%u", t->ra_kb);
	if (!e)
		e = root_write(r, rel, v);
	if (!e)
		e = root_read_u64(r, rel, &got);
	if (!e && got != t->ra_kb)
		e = -EIO;
	if (e < 0)
		log_msg(LOG_ERR, "measure readahead: cannot restore %s's read-ahead to %u KiB: %s", t->dev, t->ra_kb,
			strerror(-e));
	return e;
}

static void child(const struct root *r, const struct mr_target *t, int fd, struct mr_rounds *m)
{
	for (size_t i = 0; i < ARRAY_SIZE(caught); i++)
		signal(caught[i], SIG_DFL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(1);
	_exit(mr_probe(r, t, fd, m) < 0 ? 1 : 0);
}

/* The rounds in a child; the read-ahead restored after. 0, or -errno
 * (said), or -EINTR when a signal stopped it (got_signal: which). */
static int run_rounds(const struct root *r, const struct mr_target *t, int fd, struct mr_rounds *m)
{
	struct sigaction sa = { .sa_handler = on_signal }, old[ARRAY_SIZE(caught)];
	int st = 0, e = 0, fork_err;
	bool quit;
	pid_t pid;

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(caught); i++)
		sigaction(caught[i], &sa, &old[i]);
	fflush(NULL);
	pid = fork();
	fork_err = errno; /* before the restore's calls */
	if (pid == 0)
		child(r, t, fd, m);
	worker = pid;
	if (pid > 0 && got_signal)
		kill(pid, SIGKILL);
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	worker = 0;
	e = restore(r, t);
	for (size_t i = 0; i < ARRAY_SIZE(caught); i++)
		sigaction(caught[i], &old[i], NULL);
	/* A child that ended without saying why measured nothing either. */
	quit = pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) && !m->err;
	if (pid < 0)
		log_msg(LOG_ERR, "measure readahead: cannot start the measurement: %s", strerror(fork_err));
	else if (got_signal || WIFSIGNALED(st))
		log_msg(LOG_ERR, "measure readahead: stopped by signal %d; %s's read-ahead %s %u KiB",
			got_signal ? (int)got_signal : WTERMSIG(st), t->dev, e ? "NOT restored to" : "restored to",
			t->ra_kb);
	else if (m->err)
		log_msg(LOG_ERR, "measure readahead: cannot %s: %s", m->what, strerror(-m->err));
	else if (quit)
		log_msg(LOG_ERR, "measure readahead: the measurement's process ended with status %d before it "
			"measured", WEXITSTATUS(st));
	if (pid < 0 || got_signal || WIFSIGNALED(st) || m->err || quit)
		return got_signal ? -EINTR : -EIO;
	return e;
}

/* The rounds write into a shared mapping: they run in a child. */
int mr_run(struct ctx *c, struct mr_target *t, struct mr_rounds *out)
{
	struct mr_rounds *m = mmap(NULL, sizeof(*m), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int fd = mr_open(&c->root, t), e;

	if (fd < 0 || m == MAP_FAILED) {
		if (fd >= 0)
			close(fd);
		if (m != MAP_FAILED)
			munmap(m, sizeof(*m));
		return -EIO;
	}
	memset(m, 0, sizeof(*m));
	e = run_rounds(&c->root, t, fd, m);
	close(fd);
	*out = *m;
	munmap(m, sizeof(*m));
	return e;
}

static int measure(struct ctx *c, const struct measure_opts *o, struct mr_target *t)
{
	struct mr_rounds m;
	struct mr_verdict v;
	int e = mr_run(c, t, &m);

	if (!e) {
		mr_interpret(t, &m, &v);
		mr_report(c, t, &m, &v);
		e = o->apply ? mr_apply(c, t, &v) : 0;
		mr_log_report(c, t, &v, o->apply ? "measure readahead --apply" : "measure readahead",
			      e < 0 ? "failed" : o->apply && v.suggest ? "changed" : "measured");
	}
	return e;
}

int mr_exit(int e)
{
	if (e == -EINTR) {
		int sig = got_signal;

		signal(sig, SIG_DFL);
		raise(sig);
	}
	return e < 0 ? 1 : 0;
}

int cmd_measure_readahead(struct ctx *c, const struct measure_opts *o)
{
	struct mr_target t;
	int e = mr_target_init(c, o, &t);

	if (e == -EINVAL)
		return 2;
	if (e < 0)
		return 1;
	return mr_exit(measure(c, o, &t));
}
