// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Boot Loader Specification entries (Fedora, RHEL): earlytune reads every
 * entry's options line and edits them only through grubby, which keeps
 * the entries and grubenv consistent.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/kparam.h"
#include "base/log.h"
#include "cmdline/internal.h"

/* Under --root no entry may be a symlink: grubby would follow it out of
 * the image (its paths are not confined the way earlytune's opens are). */
static int entries_confined(const struct ctx *c, int dfd)
{
	int fd = dup(dfd);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;
	int r = 0;

	if (!d) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		return r;
	}
	for (errno = 0; (de = readdir(d)); errno = 0) {
		struct stat st;

		if (fnmatch("*.conf", de->d_name, 0) || fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISLNK(st.st_mode))
			continue;
		log_msg(LOG_ERR, "%s/boot/loader/entries/%s is a symbolic link: grubby would follow it out of "
				 "the image", c->root.dir, de->d_name);
		r = -ELOOP;
		break;
	}
	if (!r && errno)
		r = -errno;
	closedir(d);
	return r;
}

/* grubby over BLS entries: by argv, never a shell. Under --root it gets the
 * image's directories as inherited fds opened inside the root
 * (/proc/self/fd/N: an absolute symlink in the image cannot lead it to the
 * host's), the image's grubenv, and --no-etc-grub-update: otherwise
 * --update-kernel=ALL rewrites the host's /etc/default/grub and grubenv. */
struct grubby {
	int dir, env; /* -1 on the host */
};

static void grubby_close(struct grubby *g)
{
	closep(&g->dir);
	closep(&g->env);
}

static int grubby_open_dirs(struct ctx *c, struct grubby *g)
{
	int r;

	*g = (struct grubby){ -1, -1 };
	if (c->root.is_host)
		return 0;
	g->dir = root_openat(&c->root, "boot/loader/entries", O_RDONLY | O_DIRECTORY, 0);
	if (g->dir < 0)
		return g->dir;
	r = entries_confined(c, g->dir);
	if (r < 0)
		return r;
	g->env = root_openat(&c->root, "boot/grub2", O_PATH | O_DIRECTORY, 0);
	if (g->env == -ENOENT)
		g->env = root_openat(&c->root, "boot", O_PATH | O_DIRECTORY, 0);
	return g->env < 0 ? g->env : 0;
}

/* Opens (and checks) what grubby will be given, before anything is written. */
static int grubby_open(struct ctx *c, struct grubby *g)
{
	int r = grubby_open_dirs(c, g);

	if (r < 0 && r != -ELOOP) /* ELOOP: entries_confined said which entry */
		log_msg(LOG_ERR, "grubby: cannot open the image's entries: %s", strerror(-r));
	return r;
}

static int grubby_run(const struct grubby *g, const char *flag, const char *params)
{
	_cleanup_(freep) char *arg = xasprintf("%s=%s", flag, params), *bls = NULL, *env = NULL;
	char *argv[7] = { "grubby", "--update-kernel=ALL", arg };
	int keep[2] = { g->dir, g->env };

	if (!arg)
		return -ENOMEM;
	if (g->dir < 0)
		return bl_run(argv, NULL, 0);
	bls = xasprintf("--bls-directory=/proc/self/fd/%d", g->dir);
	env = xasprintf("--env=/proc/self/fd/%d/grubenv", g->env);
	if (!bls || !env)
		return -ENOMEM;
	argv[3] = bls;
	argv[4] = env;
	argv[5] = "--no-etc-grub-update";
	return bl_run(argv, keep, 2);
}

struct bls_ctx {
	const struct root *r;
	struct strbuf sb;
	struct first_err fail;
};
static void bls_entry(const char *rel, void *data)
{
	struct bls_ctx *bc = data;
	_cleanup_(freep) char *buf = NULL;
	char *line, *save = NULL;
	int r;

	if (bc->fail.err)
		return;
	r = bl_read(bc->r, rel, &buf);
	if (r < 0) {
		first_err_set(&bc->fail, rel, r);
		return;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "options", 7) && (kparam_space(line[7]) || !line[7]))
			sb_printf(&bc->sb, " %s", line + 7);
}

/* The parameters of every BLS entry's options line, joined; an entry that
 * cannot be read fails it (logged here). */
static int bls_options(struct ctx *c, char **out)
{
	struct bls_ctx bc = { .r = &c->root };
	int n = root_match(&c->root, "boot/loader/entries", "*.conf", bls_entry, &bc);

	if (n < 0)
		first_err_set(&bc.fail, NULL, n);
	if (bc.fail.err)
		bl_read_error(c, bc.fail.path ? bc.fail.path : "boot/loader/entries", bc.fail.err);
	else if (bc.sb.oom)
		bc.fail.err = -ENOMEM;
	free(bc.fail.path);
	if (bc.fail.err) {
		sb_free(&bc.sb);
		return bc.fail.err;
	}
	*out = bc.sb.s ? bc.sb.s : strdup("");
	return *out ? 0 : -ENOMEM;
}

static int bls_add(struct apply *ap)
{
	_cleanup_(freep) char *have = NULL, *add = NULL;
	struct grubby g;
	int r = bls_options(ap->c, &have);

	if (r < 0)
		return r;
	r = kcmd_missing(have, ap->params, &add);
	if (r < 0 || !*add)
		return r;
	r = grubby_open(ap->c, &g);
	if (r >= 0)
		r = added_next(ap->prev, ap->be->name, add, &ap->next);
	if (r >= 0 && (r = added_record(ap->c, &ap->next)) >= 0) {
		r = grubby_run(&g, "--args", add);
		if (r < 0) {
			_cleanup_(freep) char *now = NULL, *left = NULL;

			log_msg(LOG_ERR, "grubby --update-kernel=ALL --args='%s' failed: %s", add, strerror(-r));
			added_undo(ap->c, ap->prev, bls_options(ap->c, &now) >= 0 &&
							     kcmd_missing(now, add, &left) >= 0 && !strcmp(left, add));
		}
	}
	grubby_close(&g);
	if (r < 0)
		return r;
	ap->changed = true;
	return 0;
}

static int bls_remove(struct ctx *c, const struct added *a, bool *changed)
{
	struct grubby g;
	int r = grubby_open(c, &g);

	if (r >= 0) {
		r = grubby_run(&g, "--remove-args", a->params);
		if (r < 0)
			log_msg(LOG_ERR, "grubby --update-kernel=ALL --remove-args='%s' failed: %s", a->params, strerror(-r));
	}
	grubby_close(&g);
	return r;
}

const struct backend backend_bls = {
	.name = "bls",
	.probes = { { "boot/loader/entries", "*.conf" } },
	.add = bls_add,
	.remove = bls_remove,
};
