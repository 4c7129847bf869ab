// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * systemd-sysctl runs after earlytune in the real root and re-applies every
 * sysctl.d file: systemd's own 50-default.conf sets default_qdisc back to
 * fq_codel. apply writes a guard that sorts after it into /run/sysctl.d at
 * every boot, and plan looks for any file that would still win, so verify
 * can name it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched.h"
#include "engine/item.h"
#include "engine/sysctl.h"

/* systemd's order; lib/ for split-/usr images (merged ones link it). */
static const char *const sysctl_dirs[] = { "etc/sysctl.d", "run/sysctl.d", "usr/local/lib/sysctl.d",
					   "usr/lib/sysctl.d", "lib/sysctl.d" };

/* "net/core/default_qdisc" and "net.core.default_qdisc" are one key. */
static bool same_key(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (*a != *b && !((*a == '.' || *a == '/') && (*b == '.' || *b == '/')))
			return false;
	return *a == *b;
}

/* Every assignment of one file, with its line. */
static int scan(const struct root *r, const char *rel, const struct sysctl_visit *v)
{
	_cleanup_(freep) char *buf = NULL;
	char *p, *line;
	int n = 0, rr = root_read_file(r, rel, &buf, 1 << 20);

	if (rr < 0)
		return rr;
	for (p = buf; (line = p); n++) {
		char *s, *eq;

		p = strchr(line, '\n');
		if (p)
			*p++ = '\0';
		s = strip(line);
		if (*s == '#' || *s == ';' || !(eq = strchr(s, '=')))
			continue;
		*eq = '\0';
		if (*s == '-') /* "-key = value": ignore failures; still an assignment */
			s++;
		v->fn(rel, n + 1, strip(s), strip(eq + 1), v->data);
	}
	return 0;
}

/* Every assignment systemd-sysctl makes, in its order (files by name, the
 * first directory's file of a name masking the others). A file that cannot
 * be read goes to v->error (absent ones are not said). */
int sysctl_each(const struct root *r, const struct sysctl_visit *v)
{
	char **files = NULL;
	size_t n = 0;
	int rr = conf_files(r, sysctl_dirs, ARRAY_SIZE(sysctl_dirs), &files, &n);

	for (size_t i = 0; i < n; i++) {
		int e = rr < 0 || conf_masked(r, files[i]) ? 0 : scan(r, files[i], v);

		if (e < 0 && e != -ENOENT && v->error)
			v->error(files[i], e, v->data);
		free(files[i]);
	}
	free(files);
	return rr;
}

struct final {
	const char *key;
	char *value, *file;
	size_t vsize, fsize;
};

static void keep_last(const char *rel, int line, const char *key, const char *value, void *data)
{
	struct final *f = data;

	if (!same_key(key, f->key))
		return;
	snprintf(f->value, f->vsize, "%s", value);
	snprintf(f->file, f->fsize, "/%s", rel);
}

/* The value systemd-sysctl would leave for key, and the file it comes from.
 * Returns 1 when some file sets it, 0 when none does. */
int sysctl_final(const struct root *r, const char *key, char *value, size_t vsize, char *file,
		 size_t fsize)
{
	struct final f = { key, value, file, vsize, fsize };
	struct sysctl_visit v = { keep_last, NULL, &f };
	int rr;

	*file = '\0';
	rr = sysctl_each(r, &v);
	if (rr < 0)
		return rr;
	return *file ? 1 : 0;
}

/* Why the file that systemd-sysctl applies last for key is not the guard
 * apply writes to /run/sysctl.d, or why the guard is stale. */
static void override_reason(struct item *it, const char *file, const char *key, const char *value)
{
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;

	if (!strcmp(file, "/" SYSCTL_GUARD_PATH))
		item_setf(&it->reason, "%s, earlytune's guard, sets %s = %s: written from an older "
				       "configuration; the next boot rewrites it (earlytune apply does now)",
			  file, key, value);
	else if (!strcmp(base, SYSCTL_GUARD))
		item_setf(&it->reason, "%s sets %s = %s and shadows earlytune's guard, which apply writes at "
				       "every boot to /" SYSCTL_GUARD_PATH ": remove %s", file, key, value, file);
	else if (strcmp(base, SYSCTL_GUARD) > 0)
		item_setf(&it->reason, "%s sets %s = %s and wins: it sorts after earlytune's guard " SYSCTL_GUARD
				       ", which cannot override it; edit that file or mask it (ln -s /dev/null "
				       "/etc/sysctl.d/%s)", file, key, value, base);
	else
		item_setf(&it->reason, "%s sets %s = %s and systemd-sysctl applies it after earlytune: "
				       "earlytune's guard /" SYSCTL_GUARD_PATH ", which apply writes at every boot "
				       "and sorts after it, is missing or empty (earlytune=0)", file, key, value);
}

/* A sysctl.d file that systemd-sysctl applies later would undo this item
 * (net's, sched's): name it (verify counts it as drift). */
void sysctl_warn_override(const struct root *r, struct item *it, const char *key, const char *want)
{
	char value[128], file[PATH_MAX];

	if (sysctl_final(r, key, value, sizeof(value), file, sizeof(file)) <= 0 ||
	    !strcmp(value, want))
		return;
	it->foreign = true;
	override_reason(it, file, key, value);
}

/* "-": systemd-sysctl ignores a key the kernel lacks (5.13+ moved these
 * to debugfs). */
static void guard_sched(const char *key, const struct cfg_entry *e, void *data)
{
	sb_printf(data, "-%s = %s\n", key, e->value);
}

/* The guard: the sysctls earlytune sets that systemd-sysctl would reset. */
static void guard_text(const struct config *cfg, struct strbuf *sb)
{
	const struct cfg_entry *cc = config_get(cfg, "net", NULL, "congestion_control");
	const struct cfg_entry *q = config_get(cfg, "net", NULL, "qdisc");

	sb_printf(sb, "# Written by earlytune at boot from its configuration (`earlytune sysctl-conf`\n"
		      "# prints it). systemd-sysctl runs after earlytune applied these; this file\n"
		      "# sorts after systemd's 50-default.conf so they stay in force.\n");
	if (q)
		sb_printf(sb, "net.core.default_qdisc = %s\n", q->value);
	if (cc)
		sb_printf(sb, "net.ipv4.tcp_congestion_control = %s\n", cc->value);
	sched_sysctls(cfg, guard_sched, sb);
}

int sysctl_guard(const struct config *cfg, FILE *out)
{
	struct strbuf sb = { 0 };
	int rr = 0;

	guard_text(cfg, &sb);
	if (sb.oom)
		rr = -ENOMEM;
	else
		fputs(sb.s ? sb.s : "", out);
	sb_free(&sb);
	return rr;
}

/* Written from the configuration read now, before systemd-sysctl, so nothing
 * of an older configuration stays pinned. cfg NULL (earlytune=0): an empty
 * file, which pins nothing and masks any file of that name in /usr/lib.
 * The caller holds the state lock (root_sweep_temps). */
int sysctl_write_guard(const struct root *r, const struct config *cfg)
{
	struct strbuf sb = { 0 };
	int rr;

	root_sweep_temps(r, "run/sysctl.d", SYSCTL_GUARD, NULL);
	if (cfg)
		guard_text(cfg, &sb);
	rr = sb.oom ? -ENOMEM : root_write_new(r, SYSCTL_GUARD_PATH, sb.s ? sb.s : "", sb.len, 0644);
	sb_free(&sb);
	return rr;
}

/* revert: what the guard pins goes back too, should systemd-sysctl run again.
 * The caller holds the state lock. */
int sysctl_remove_guard(const struct root *r)
{
	int rr;

	root_sweep_temps(r, "run/sysctl.d", SYSCTL_GUARD, NULL);
	rr = root_unlink(r, SYSCTL_GUARD_PATH, 0);

	return rr == -ENOENT || rr == -ENOTDIR ? 0 : rr;
}

/* A global run of the net domain (not udev's one device or interface). */
bool sysctl_guard_scope(const struct ctx *c)
{
	return c->only & DOM_NET && !c->ndevices && !c->ifindex && !c->iface;
}
