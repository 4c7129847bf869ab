// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What the parts of `earlytune cmdline` share: whole text files read and
 * written through the root (every write is root_write_atomic), the one log
 * line of each failure, the first error of a walk, argv-only process runs
 * and the human lines --json replaces.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "cmdline/internal.h"

/* Command lines are a few KiB at most (COMMAND_LINE_SIZE); a file beyond
 * this is an error, never taken as absent or cut. */
#define FILE_MAX (1 << 20)

/* The first failure decides the command: it is reported, and nothing is
 * suggested or written on the strength of a partial view. rel may be NULL
 * (a failure of no one file: ENOMEM). */
void first_err_set(struct first_err *f, const char *rel, int r)
{
	if (f->err)
		return;
	f->err = r;
	f->path = rel ? strdup(rel) : NULL;
}

/* A whole text file: 0 with *out, -ENOENT when absent, else -errno (EFBIG
 * beyond FILE_MAX, EILSEQ for a NUL byte, which no editor here may cut at). */
int bl_read(const struct root *r, const char *rel, char **out)
{
	int n = root_read_file(r, rel, out, FILE_MAX);

	if (n == -ENOTDIR)
		return -ENOENT;
	if (n < 0)
		return n;
	if (strlen(*out) != (size_t)n) {
		free(*out);
		*out = NULL;
		return -EILSEQ;
	}
	return 0;
}

/* rel still holds old (NULL: still absent); a failed read says no. */
bool bl_still(const struct root *r, const char *rel, const char *old)
{
	_cleanup_(freep) char *now = NULL;
	int rr = bl_read(r, rel, &now);

	return old ? rr >= 0 && !strcmp(now, old) : rr == -ENOENT;
}

int bl_change_error(const char *what, const char *rel, int r)
{
	log_msg(LOG_ERR, "cannot %s /%s: %s", what, rel, strerror(-r));
	return r;
}

/* Someone else's edit of a file of earlytune's own is theirs to undo. */
int bl_edited(const char *rel)
{
	log_msg(LOG_ERR, "/%s was changed since earlytune wrote it: left alone; restore or delete it", rel);
	return -EEXIST;
}

int bl_read_error(const struct ctx *c, const char *rel, int r)
{
	log_msg(LOG_ERR, "cannot read %s/%s: %s; nothing changed", c->root.is_host ? "" : c->root.dir, rel,
		r == -EFBIG ? "larger than 1 MiB" : r == -EILSEQ ? "holds a NUL byte" :
		r == -EINVAL ? "not what earlytune wrote" : strerror(-r));
	return r;
}

/* fork/exec by argv, never a shell; the fds in keep are inherited. */
int bl_run(char *const argv[], const int *keep, size_t nkeep)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		for (size_t i = 0; i < nkeep; i++)
			if (fcntl(keep[i], F_SETFD, 0) < 0)
				_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
		return -ENOENT;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -EIO;
}

/* Human lines; with --json the same facts go into one object instead. */
_printf_(2, 3) void bl_say(const struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->json)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}
