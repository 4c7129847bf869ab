// SPDX-License-Identifier: LGPL-2.1-or-later
/* One place that decides where a message goes: stderr normally, the kernel log
 * in --boot mode (the only log an initramfs or a udev RUN program has). */
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "earlytune.h"

static int kmsg_fd = -1;
static bool verbose;

void log_setup_boot(int fd)
{
	kmsg_fd = fd;
}

void log_set_verbose(bool v)
{
	verbose = v;
}

bool log_boot_mode(void)
{
	return kmsg_fd >= 0;
}

void log_msg(int prio, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n, off;

	if (prio >= LOG_DEBUG && !verbose)
		return;
	off = kmsg_fd >= 0 ? snprintf(line, sizeof(line), "<%d>earlytune: ", prio)
			   : snprintf(line, sizeof(line), "earlytune: ");
	va_start(ap, fmt);
	n = vsnprintf(line + off, sizeof(line) - (size_t)off - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	n = (int)strlen(line);
	line[n++] = '\n';
	/* /dev/kmsg takes one record per write(); a failed log write must not
	 * become an error of its own. */
	if (kmsg_fd >= 0 && write(kmsg_fd, line, (size_t)n) == n)
		return;
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}
