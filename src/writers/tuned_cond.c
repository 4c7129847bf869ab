// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What TuneD evaluates before it tunes, evaluated as it does, so that a
 * profile section this machine would not run is not listed as a writer:
 * a section's uname_regex is searched (Python's re.search, re.MULTILINE) in
 * " ".join(os.uname()) (sysname, nodename, release, version, machine) and
 * its cpuinfo_regex in /proc/cpuinfo (tuned/units/manager.py); and the
 * value functions ${f:virt_check:VM:METAL} (virt-what says a hypervisor)
 * and ${f:cpuinfo_check:RE1:S1:…[:FALLBACK]}. The patterns are read as
 * Python reads them (base/pyre.c); one it does not read (flags,
 * look-arounds), or a machine the tree does not show, is unknown: the
 * entry "may apply", never silently dropped. And the
 * daemon's own: whether tuned.service is enabled, and reapply_sysctl.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/pyre.h"
#include "writers/internal.h"

/* 1 when the Python pattern py is found in text, 0 when not, -EINVAL when
 * it uses what pyre does not read. */
int tuned_search(const char *py, const char *text)
{
	int r = pyre_search(py, text);

	return r == -ENOMEM ? -EINVAL : r;
}

/* A tree's machine: the kernel's own word (proc/sys/kernel/arch), else the
 * ELF header of its shell. */
static bool tree_machine(const struct root *r, char *buf, size_t size)
{
	static const char *const elf[] = { "bin/sh", "usr/bin/sh", "sbin/init", "usr/lib/systemd/systemd" };
	static const struct {
		unsigned em;
		const char *name;
	} machines[] = { { 62, "x86_64" }, { 183, "aarch64" }, { 3, "i686" }, { 40, "armv7l" },
			 { 22, "s390x" }, { 21, "ppc64" }, { 243, "riscv64" }, { 258, "loongarch64" } };
	unsigned char h[20];
	bool found = false;

	if (root_read(r, "proc/sys/kernel/arch", buf, size) > 0)
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(elf) && !found; i++) {
		int fd = root_openat(r, elf[i], O_RDONLY, 0);

		found = fd >= 0 && read(fd, h, sizeof(h)) == (ssize_t)sizeof(h) && !memcmp(h, "\177ELF", 4);
		if (fd >= 0)
			close(fd);
	}
	for (size_t i = 0; found && i < ARRAY_SIZE(machines); i++) {
		unsigned em = h[5] == 2 ? (unsigned)h[18] << 8 | h[19] : (unsigned)h[19] << 8 | h[18];

		if (em == machines[i].em) {
			/* ppc64 little-endian is ppc64le in uname */
			snprintf(buf, size, "%s%s", machines[i].name, em == 21 && h[5] == 1 ? "le" : "");
			return true;
		}
	}
	return false;
}

/* " ".join(os.uname()): the running system's, or the tree's from its
 * proc/sys/kernel; NULL with miss set when the release or machine is not
 * there (a nodename or version not there is empty). */
static char *uname_string(const struct wctx *w, char *miss, size_t size)
{
	char os[64] = "Linux", node[256] = "", ver[256] = "", mach[64];
	struct utsname u;

	if (w->r->is_host && uname(&u) == 0)
		return xasprintf("%s %s %s %s %s", u.sysname, u.nodename, u.release, u.version, u.machine);
	if (!w->release || !*w->release || !strcmp(w->release, "unknown")) {
		snprintf(miss, size, "the tree does not show the kernel release");
		return NULL;
	}
	if (!tree_machine(w->r, mach, sizeof(mach))) {
		snprintf(miss, size, "the tree does not show the machine (no proc/sys/kernel/arch, no ELF bin/sh)");
		return NULL;
	}
	root_read(w->r, "proc/sys/kernel/ostype", os, sizeof(os));
	if (root_read(w->r, "proc/sys/kernel/hostname", node, sizeof(node)) <= 0)
		root_read(w->r, "etc/hostname", node, sizeof(node));
	root_read(w->r, "proc/sys/kernel/version", ver, sizeof(ver));
	return xasprintf("%s %s %s %s %s", os, node, w->release, ver, mach);
}

/* The text a condition searches, read once per run. */
static const char *cond_text(struct tcond *tc, const struct wctx *w, bool cpuinfo)
{
	if (cpuinfo && !tc->cpuinfo_read) {
		tc->cpuinfo_read = true;
		if (root_read_file(w->r, "proc/cpuinfo", &tc->cpuinfo, 1 << 20) < 0)
			snprintf(tc->cpuinfo_miss, sizeof(tc->cpuinfo_miss), "no readable /proc/cpuinfo");
	} else if (!cpuinfo && !tc->uname_read) {
		tc->uname_read = true;
		tc->uname = uname_string(w, tc->uname_miss, sizeof(tc->uname_miss));
	}
	return cpuinfo ? tc->cpuinfo : tc->uname;
}

/* A section's condition (uname_regex or cpuinfo_regex, which = "uname" or
 * "cpuinfo"): 1 this machine meets it, 0 not, -1 unknown (why says). */
int tuned_condition(struct tcond *tc, const struct wctx *w, const char *which, const char *py, char *why,
		    size_t size)
{
	bool cpu = !strcmp(which, "cpuinfo");
	const char *text = cond_text(tc, w, cpu);
	int r;

	if (!text) {
		snprintf(why, size, "%s_regex=%s not judged: %s", which, py, cpu ? tc->cpuinfo_miss : tc->uname_miss);
		return -1;
	}
	r = tuned_search(py, text);
	if (r < 0)
		snprintf(why, size, "%s_regex=%s not judged: a pattern earlytune does not read (flags, look-arounds, backreferences)", which, py);
	return r < 0 ? -1 : r;
}

/* The ':'-separated arguments of a ${f:NAME:…} call ('\:' keeps a colon);
 * the count, at most max. */
static size_t split_args(char *s, char **argv, size_t max)
{
	size_t n = 0;
	char *out = s;

	argv[n++] = out;
	for (char *p = s; *p; p++) {
		if (*p == '\\' && p[1] == ':') {
			*out++ = *++p;
		} else if (*p == ':' && n < max) {
			*out++ = '\0';
			argv[n++] = out;
		} else {
			*out++ = *p;
		}
	}
	*out = '\0';
	return n;
}

/* ${f:virt_check:…} and ${f:cpuinfo_check:…} (call is what is between
 * "${f:" and "}"): their value, or NULL when only TuneD can tell. */
char *tuned_function(struct tcond *tc, struct wctx *w, const char *call)
{
	_cleanup_(freep) char *copy = strdup(call);
	char *argv[64];
	size_t n = copy ? split_args(copy, argv, ARRAY_SIZE(argv)) : 0;
	const char *cpu;
	int hv;

	if (n == 3 && !strcmp(argv[0], "virt_check") && w->kernel) {
		hv = kernel_hypervisor(w->kernel, w->r);
		return hv < 0 ? NULL : strdup(hv ? argv[1] : argv[2]);
	}
	if (n < 3 || strcmp(argv[0], "cpuinfo_check") || !(cpu = cond_text(tc, w, true)))
		return NULL;
	for (size_t i = 1; i + 1 < n; i += 2) {
		int r = tuned_search(argv[i], cpu);

		if (r < 0)
			return NULL;
		if (r)
			return strdup(argv[i + 1]);
	}
	return strdup((n - 1) % 2 ? argv[n - 1] : "");
}

/* tuned-main.conf's booleans. */
static bool enabled_word(const char *v, bool dflt)
{
	if (!v)
		return dflt;
	return !strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcasecmp(v, "on");
}

/* tuned-main.conf: reapply_sysctl (default on). */
bool tuned_reapply_sysctl(struct wctx *w)
{
	_cleanup_(freep) char *text = NULL;
	char *p;
	int n = 0;
	bool on = true;

	if (writers_read(w, "etc/tuned/tuned-main.conf", &text) < 0)
		return on;
	p = text;
	for (char *line; (line = writers_next_line(&p, &n));) {
		char *s = strip(line), *eq = strchr(s, '=');

		if (*s != '#' && eq) {
			*eq = '\0';
			if (!strcmp(strip(s), "reapply_sysctl"))
				on = enabled_word(strip(eq + 1), true);
		}
	}
	return on;
}

/* The unit's link in multi-user.target.wants (its target need not be in
 * the tree): 1, 0, or -errno (said). */
int tuned_service_enabled(struct wctx *w)
{
	static const char rel[] = "etc/systemd/system/multi-user.target.wants/tuned.service";
	char target[PATH_MAX];
	int on = root_readlink(w->r, rel, target, sizeof(target));

	if (on == -EINVAL || on == -ENOENT || on == -ENOTDIR)
		on = root_access(w->r, rel);
	if (on < 0 && on != -ENOENT)
		writers_error(w, rel, on);
	return on > 0;
}

void tuned_cond_free(struct tcond *tc)
{
	free(tc->uname);
	free(tc->cpuinfo);
	*tc = (struct tcond){ 0 };
}
