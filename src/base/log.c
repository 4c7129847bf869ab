// SPDX-License-Identifier: LGPL-2.1-or-later
/* One place that decides where a message goes: stderr normally, the kernel log
 * in --boot mode (the only log an initramfs or a udev RUN program has). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/root.h"

/*
 * With printk.devkmsg=ratelimit (the default) each open /dev/kmsg carries its
 * own ratelimit state: DEFAULT_RATELIMIT_BURST (10) writes per 5 s, and every
 * write beyond that is dropped while write() still returns its length
 * (devkmsg_write). A fresh open every KMSG_BURST lines gives every line,
 * summary included, a fresh budget.
 */
#define KMSG_BURST 10

static const struct root *kmsg_root;
static int kmsg_fd = -1;
static unsigned kmsg_lines;
static bool verbose;

/* --json: the error lines, for the object main prints when a command fails
 * before it could print its own. */
#define CAPTURE_MAX 16
static char captured[CAPTURE_MAX][512];
static size_t ncaptured;
static bool capture;

/* Messages before the caller knows where they go: --boot is an option like
 * any other, and the kernel log is the one below --root, so an argument
 * error is held until the options have all been read (log_release). */
#define HOLD_MAX 16
static struct {
	int prio;
	char msg[512];
} held[HOLD_MAX];
static size_t nheld;
static bool holding;

static int kmsg_open(void)
{
	return root_openat(kmsg_root, "dev/kmsg", O_WRONLY | O_APPEND | O_NOCTTY, 0);
}

void log_setup_boot(const struct root *r)
{
	kmsg_root = r;
	kmsg_fd = kmsg_open();
	kmsg_lines = 0;
}

void log_set_verbose(bool v)
{
	verbose = v;
}

void log_capture_errors(bool on)
{
	capture = on;
}

size_t log_captured(size_t i, const char **msg)
{
	if (i < ncaptured && i < CAPTURE_MAX)
		*msg = captured[i];
	return ncaptured < CAPTURE_MAX ? ncaptured : CAPTURE_MAX;
}

bool log_boot_mode(void)
{
	return kmsg_fd >= 0;
}

/* If no new descriptor can be had, the old one still takes what the
 * ratelimit lets through. */
static void kmsg_budget(void)
{
	int fd;

	if (kmsg_lines < KMSG_BURST)
		return;
	fd = kmsg_open();
	if (fd < 0)
		return;
	close(kmsg_fd);
	kmsg_fd = fd;
	kmsg_lines = 0;
}

static void emit(int prio, const char *msg)
{
	char line[1024];
	int n;

	if (holding && nheld < HOLD_MAX) {
		held[nheld].prio = prio;
		snprintf(held[nheld++].msg, sizeof(held[0].msg), "%s", msg);
		return;
	}
	n = kmsg_fd >= 0 ? snprintf(line, sizeof(line) - 1, "<%d>earlytune: %s", prio, msg)
			 : snprintf(line, sizeof(line) - 1, "earlytune: %s", msg);
	if (n < 0)
		return;
	n = (int)strlen(line);
	line[n++] = '\n';
	/* /dev/kmsg takes one record per write(); a failed log write must not
	 * become an error of its own. */
	if (kmsg_fd >= 0) {
		kmsg_budget();
		kmsg_lines++;
		if (write(kmsg_fd, line, (size_t)n) == n)
			return;
	}
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}

void log_hold(void)
{
	holding = true;
}

void log_release(void)
{
	holding = false;
	for (size_t i = 0; i < nheld; i++)
		emit(held[i].prio, held[i].msg);
	nheld = 0;
}

/* A refusal that ends the message ("…: Permission denied") is, when we
 * are not root, almost always that: the hint says so beside the file the
 * message names. */
static void not_root_hint(char *msg, size_t size)
{
	static const int errs[] = { EACCES, EPERM };
	size_t len = strlen(msg);

	/* geteuid() only for such a message: a call less on every line. */
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		/* strerror's words without its gettext lookup (a page of code
		 * each line): earlytune never sets a locale, so they are the same. */
		const char *e = strerrordesc_np(errs[i]);
		size_t el = strlen(e);

		if (len >= el && !strcmp(msg + len - el, e) && geteuid() != 0) {
			snprintf(msg + len, size - len, " (not running as root: run earlytune as root)");
			return;
		}
	}
}

void log_msg(int prio, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (prio >= LOG_DEBUG && !verbose)
		return;
	va_start(ap, fmt);
	if (vsnprintf(msg, sizeof(msg), fmt, ap) < 0)
		msg[0] = '\0';
	va_end(ap);
	not_root_hint(msg, sizeof(msg));
	if (capture && prio <= LOG_ERR && ncaptured < CAPTURE_MAX)
		snprintf(captured[ncaptured++], sizeof(captured[0]), "%s", msg);
	emit(prio, msg);
}
