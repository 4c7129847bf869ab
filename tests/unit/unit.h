// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Shared helpers of the unit tests: temporary trees (mkdtemp, never the
 * machine's own /sys or /etc), stderr capture, a fake kernel behind the kmod
 * seam and a per-test fixture that frees everything even when a test fails.
 * Everything is static inline: each test_*.c is one translation unit.
 */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "earlytune.h"
#include "base/kmod.h"
#include "base/log.h"
#include "engine/item.h"
#include "engine/state.h"

/* ---- temporary trees ------------------------------------------------------ */

static inline void tree_new(char *dir, size_t size)
{
	const char *tmp = getenv("TMPDIR");

	assert_true((size_t)snprintf(dir, size, "%s/earlytune-unit.XXXXXX",
				     tmp && *tmp ? tmp : "/tmp") < size);
	assert_non_null(mkdtemp(dir));
}

static inline void tree_path(char *out, size_t size, const char *dir, const char *rel)
{
	assert_true((size_t)snprintf(out, size, "%s/%s", dir, rel) < size);
}

/* mkdir -p DIR/REL */
static inline void tree_mkdir(const char *dir, const char *rel)
{
	char path[PATH_MAX];

	tree_path(path, sizeof(path), dir, rel);
	for (char *p = path + strlen(dir) + 1;; p++) {
		char saved = *p;

		if (saved != '/' && saved != '\0')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			fail_msg("mkdir %s: %s", path, strerror(errno));
		*p = saved;
		if (!saved)
			return;
	}
}

static inline void tree_parent(const char *dir, const char *rel)
{
	char parent[PATH_MAX];
	char *slash;

	assert_true((size_t)snprintf(parent, sizeof(parent), "%s", rel) < sizeof(parent));
	slash = strrchr(parent, '/');
	if (slash) {
		*slash = '\0';
		tree_mkdir(dir, parent);
	}
}

/* Writes DIR/REL (creating its parents) with exactly len bytes of content
 * (device-tree strings hold NULs). */
static inline void tree_write_n(const char *dir, const char *rel, const char *content, size_t len)
{
	char path[PATH_MAX];
	int fd;

	tree_parent(dir, rel);
	tree_path(path, sizeof(path), dir, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
}

static inline void tree_write(const char *dir, const char *rel, const char *content)
{
	tree_write_n(dir, rel, content, strlen(content));
}

static inline void tree_symlink(const char *dir, const char *rel, const char *target)
{
	char path[PATH_MAX];

	tree_parent(dir, rel);
	tree_path(path, sizeof(path), dir, rel);
	assert_int_equal(symlink(target, path), 0);
}

/* The whole content of DIR/REL, malloc'ed, or NULL when it cannot be read. */
static inline char *tree_read(const char *dir, const char *rel)
{
	char path[PATH_MAX], *buf = NULL;
	size_t len = 0;
	FILE *f;

	tree_path(path, sizeof(path), dir, rel);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	if (getdelim(&buf, &len, '\0', f) < 0) {
		free(buf);
		buf = strdup("");
	}
	fclose(f);
	return buf;
}

static inline int tree_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path) < 0 ? -1 : 0;
}

static inline void tree_remove(const char *dir)
{
	if (*dir)
		nftw(dir, tree_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Runs fn(arg) in a child process, so that a crash or a sanitizer report
 * fails one test instead of killing the whole binary. fn must not use cmocka's
 * assertions; it returns 0 for success. True when the child exited with 0. */
static inline bool survives(int (*fn)(void *), void *arg)
{
	int status = 0;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(fn(arg) == 0 ? 0 : 3);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		print_error("child killed by signal %d\n", WTERMSIG(status));
	else if (WEXITSTATUS(status))
		print_error("child exited with status %d\n", WEXITSTATUS(status));
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* ---- stderr capture (log_msg writes to fd 2) ------------------------------- */

struct capture {
	FILE *file;
	int saved;
};

static inline void capture_begin(struct capture *cap)
{
	fflush(stderr);
	cap->file = tmpfile();
	assert_non_null(cap->file);
	cap->saved = dup(STDERR_FILENO);
	assert_true(cap->saved >= 0);
	assert_true(dup2(fileno(cap->file), STDERR_FILENO) >= 0);
}

/* Restores stderr; returns what was written meanwhile (malloc'ed). */
static inline char *capture_end(struct capture *cap)
{
	char *buf = NULL;
	size_t len = 0;

	fflush(stderr);
	dup2(cap->saved, STDERR_FILENO);
	close(cap->saved);
	rewind(cap->file);
	if (getdelim(&buf, &len, '\0', cap->file) < 0) {
		free(buf);
		buf = strdup("");
	}
	fclose(cap->file);
	assert_non_null(buf);
	return buf;
}

/* ---- a fake kernel behind the kmod seam ------------------------------------ */

struct fake_kmod {
	const char *live, *builtin, *coming; /* space-separated module names */
	const char *found;                    /* names lookup() resolves */
	const char *blacklisted, *install;    /* lookup() flags for these names */
	int insert_ret;
	int nstate, nlookup, ninsert;
	char inserted[256];                   /* names insert() got, space-separated */
};

static inline bool fake_listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p && (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

static inline int fake_state(void *data, const char *name)
{
	struct fake_kmod *k = data;

	k->nstate++;
	if (fake_listed(k->live, name))
		return MOD_LIVE;
	if (fake_listed(k->builtin, name))
		return MOD_BUILTIN;
	if (fake_listed(k->coming, name))
		return MOD_COMING;
	return MOD_ABSENT;
}

static inline int fake_lookup(void *data, const char *name, struct mod_info *info)
{
	struct fake_kmod *k = data;

	k->nlookup++;
	*info = (struct mod_info){ 0 };
	if (!fake_listed(k->found, name))
		return -ENOENT;
	snprintf(info->path, sizeof(info->path), "/lib/modules/fake/%s.ko", name);
	info->blacklisted = fake_listed(k->blacklisted, name);
	info->install_cmd = fake_listed(k->install, name);
	return 0;
}

static inline int fake_insert(void *data, const char *name, const char *options)
{
	struct fake_kmod *k = data;
	size_t len = strlen(k->inserted);

	k->ninsert++;
	snprintf(k->inserted + len, sizeof(k->inserted) - len, "%s%s%s%s", len ? " " : "", name,
		 options ? ":" : "", options ? options : "");
	return k->insert_ret;
}

static inline void fake_kmod_install(struct mods *m, struct fake_kmod *k)
{
	const struct mod_ops ops = { fake_state, fake_lookup, fake_insert, k };

	mods_set_ops(m, &ops);
}

/* ---- the fixture ------------------------------------------------------------ */

struct fx {
	char dir[PATH_MAX];
	struct ctx c;
	struct plan p;
	struct config cfg;
	struct records rs;
	struct fake_kmod fk;
	char *text; /* any malloc'ed string a test wants freed */
};

static inline int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->c.root.fd = -1;
	f->rs.lock_fd = -1;
	tree_new(f->dir, sizeof(f->dir));
	*state = f;
	return 0;
}

static inline int fx_teardown(void **state)
{
	struct fx *f = *state;

	plan_free(&f->p);
	mods_free(f->c.mods);
	config_free(&f->c.cfg);
	kernel_free(&f->c.kernel);
	root_close(&f->c.root);
	config_free(&f->cfg);
	state_free(&f->rs);
	free(f->text);
	tree_remove(f->dir);
	free(f);
	return 0;
}

/* Opens the fixture's tree as a root with conf parsed (0 errors required),
 * then profile (or none) in front, and a fake kernel with no modules found. */
static inline void fx_ctx(struct fx *f, const char *conf, const char *profile)
{
	struct ctx *c = &f->c;

	assert_int_equal(root_open(&c->root, f->dir), 0);
	assert_false(c->root.is_host);
	assert_int_equal(kernel_probe(&c->kernel, &c->root), 0);
	if (conf)
		assert_int_equal(config_parse_text(&c->cfg, conf, "test.conf"), 0);
	assert_int_equal(c->cfg.errors, 0);
	if (profile)
		assert_int_equal(config_use_profile(&c->cfg, profile), 0);
	assert_int_equal(mods_new(&c->mods, &c->root, &c->kernel), 0);
	fake_kmod_install(c->mods, &f->fk);
	c->only = DOM_BLOCK;
}

/* The plan item of target whose setting is setting, or NULL. */
static inline const struct item *find_item(const struct plan *p, const char *target,
					   const char *setting)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].target, target) && !strcmp(p->v[i].setting, setting))
			return &p->v[i];
	return NULL;
}

static inline size_t count_items(const struct plan *p, const char *target)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n; i++)
		n += !strcmp(p->v[i].target, target);
	return n;
}

#define assert_contains(hay, needle)                                                   \
	do {                                                                           \
		const char *_h = (hay), *_n = (needle);                                \
		if (!_h || !strstr(_h, _n))                                            \
			fail_msg("'%s' does not contain '%s'", _h ? _h : "(null)", _n); \
	} while (0)

#define assert_not_contains(hay, needle)                                               \
	do {                                                                           \
		const char *_h = (hay), *_n = (needle);                                \
		if (_h && strstr(_h, _n))                                              \
			fail_msg("'%s' contains '%s'", _h, _n);                         \
	} while (0)

#define FX_TEST(t) cmocka_unit_test_setup_teardown(t, fx_setup, fx_teardown)

/* Unbuffered stdout keeps test output in order with cmocka's stderr lines. */
#define UNIT_MAIN(name, tests)                                                         \
	int main(void)                                                                 \
	{                                                                              \
		setvbuf(stdout, NULL, _IONBF, 0);                                      \
		return cmocka_run_group_tests_name(name, tests, NULL, NULL);           \
	}
