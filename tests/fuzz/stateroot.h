/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The temporary root the state harnesses load and save records in: its
 * run/earlytune made once; clear() empties it before each input, and at
 * exit the root and its directories go.
 */
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/root.h"

static struct root root = { .fd = -1 };
static char dir[] = "/tmp/et-fuzz-state.XXXXXX";

/* Empties run/earlytune (and removes DIRS too): each input starts afresh. */
static void clear(bool dirs)
{
	static const char *const sub[] = { "run/earlytune/disks", "run/earlytune/links" };

	for (size_t i = 0; i < 2; i++) {
		int fd = openat(root.fd, sub[i], O_RDONLY | O_DIRECTORY);
		DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
		struct dirent *de;

		while (d && (de = readdir(d)))
			unlinkat(fd, de->d_name, 0); /* . and .. fail: directories */
		if (d)
			closedir(d);
		if (dirs)
			unlinkat(root.fd, sub[i], AT_REMOVEDIR);
	}
	unlinkat(root.fd, "run/earlytune/originals", 0);
	unlinkat(root.fd, "run/earlytune/records", 0);
}

static void cleanup(void)
{
	clear(true);
	unlinkat(root.fd, "run/earlytune", AT_REMOVEDIR);
	unlinkat(root.fd, "run", AT_REMOVEDIR);
	root_close(&root);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	if (!mkdtemp(dir) || root_open(&root, dir) < 0 || root_mkdir_p(&root, "run/earlytune", 0755) < 0)
		abort();
	atexit(cleanup);
	return 0;
}
