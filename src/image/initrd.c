// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Does the initramfs of a kernel carry the root's earlytune? The image
 * holds what the hooks copied the day it was built (the binary, the
 * configuration, masks as empty files); a configuration changed since goes
 * unused until the boot leaves the initramfs, and nothing else says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/pe.h"
#include "base/root.h"
#include "cmdline/cmdline.h"
#include "image/initrd.h"

/* Where the hooks find the binary they copy, at the same path, into the
 * image: make install's SBINDIR, /usr/sbin or /usr/local/sbin. */
static const char *const binaries[] = { "usr/sbin/earlytune", "usr/local/sbin/earlytune" };
#define MAX_BINARY (32u << 20)
#define MAX_CONF (1u << 20)
#define MAX_WANTS 128

static const char *const conf_dirs[] = { "usr/lib/earlytune.d", "run/earlytune.d", "etc/earlytune.d" };

/* A file of the root the image should carry with the same bytes. */
struct want {
	char rel[PATH_MAX];
	char *data; /* "" for a mask (empty, or a link to /dev/null) */
	size_t len;
	bool seen, same;
};

struct cmp {
	struct want v[MAX_WANTS];
	size_t n;
	int err;
	struct want *cur; /* the entry being read, or NULL */
	size_t pos;
	bool diff, link, binary;
	const char *bin; /* the root's binary, one of binaries[] */
	char target[64];  /* a symbolic link's target, as far as it fits */
	char extra[PATH_MAX]; /* the first file of ours the root does not have */
};

static void add_want(struct cmp *m, const struct root *r, const char *rel, size_t max)
{
	struct want *w;
	char link[64];
	int n;

	if (m->n == MAX_WANTS) {
		m->err = -E2BIG;
		return;
	}
	w = &m->v[m->n];
	*w = (struct want){ 0 };
	snprintf(w->rel, sizeof(w->rel), "%s", rel);
	n = root_readlink(r, rel, link, sizeof(link));
	if (n >= 0 && !strcmp(link, "/dev/null"))
		n = (w->data = strdup("")) ? 0 : -ENOMEM;
	else
		n = root_read_file(r, rel, &w->data, max);
	if (n == -ENOENT)
		return;
	if (n < 0) {
		m->err = m->err ? m->err : n;
		return;
	}
	w->len = (size_t)n;
	m->n++;
}

struct load {
	struct cmp *m;
	const struct root *r;
};

static void add_conf(const char *rel, void *data)
{
	struct load *l = data;

	add_want(l->m, l->r, rel, MAX_CONF);
}

/* What the hooks copy: the binary, /etc/earlytune.conf, every *.conf of the
 * drop-in directories (not merged: each is copied). */
static int load_root(struct cmp *m, const struct root *r)
{
	struct load l = { m, r };
	int n;

	m->bin = binaries[0];
	for (size_t i = 0; i < ARRAY_SIZE(binaries); i++)
		if (root_access(r, binaries[i]) == 1) {
			m->bin = binaries[i];
			break;
		}
	add_want(m, r, m->bin, MAX_BINARY);
	add_want(m, r, "etc/earlytune.conf", MAX_CONF);
	for (size_t i = 0; i < ARRAY_SIZE(conf_dirs) && !m->err; i++)
		if ((n = root_match(r, conf_dirs[i], "*.conf", add_conf, &l)) < 0)
			m->err = n;
	return m->err;
}

static bool ours(const struct cmp *m, const char *name)
{
	const char *slash = strrchr(name, '/'), *dot = strrchr(name, '.');

	if (!strcmp(name, m->bin) || !strcmp(name, "etc/earlytune.conf"))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(conf_dirs); i++) {
		size_t l = strlen(conf_dirs[i]);

		if (!strncmp(name, conf_dirs[i], l) && name[l] == '/' && slash == name + l && dot &&
		    !strcmp(dot, ".conf") && dot > slash + 1)
			return true;
	}
	return false;
}

static struct want *find_want(struct cmp *m, const char *name)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->v[i].rel, name))
			return &m->v[i];
	return NULL;
}

/* A later entry of the same name replaces an earlier one, as when the
 * kernel unpacks it. */
static bool sink_begin(void *data, const char *name, unsigned mode, uint32_t size)
{
	struct cmp *m = data;

	if (!ours(m, name) || S_ISDIR(mode))
		return false;
	if (!strcmp(name, m->bin))
		m->binary = true;
	m->cur = find_want(m, name);
	if (!m->cur) {
		if (!*m->extra)
			snprintf(m->extra, sizeof(m->extra), "%s", name);
		return false;
	}
	m->pos = 0;
	m->link = S_ISLNK(mode);
	m->diff = !m->link && size != m->cur->len;
	*m->target = '\0';
	return true;
}

static void sink_chunk(void *data, const unsigned char *p, size_t n)
{
	struct cmp *m = data;

	if (m->link) {
		if (m->pos + n < sizeof(m->target))
			memcpy(m->target + m->pos, p, n);
		else
			m->diff = true;
	} else if (!m->diff && memcmp(m->cur->data + m->pos, p, n)) {
		m->diff = true;
	}
	m->pos += n;
}

static void sink_end(void *data)
{
	struct cmp *m = data;

	if (m->link && !m->diff) {
		m->target[m->pos] = '\0';
		m->diff = strcmp(m->target, "/dev/null") || m->cur->len;
	}
	m->cur->seen = true;
	m->cur->same = !m->diff;
	m->cur = NULL;
}

static int try_image(const struct root *r, int toolong, char *out)
{
	return toolong ? 0 : root_access(r, out);
}

/* A unified kernel image of kver on the ESP (its .initrd is the image):
 * 2 found, 0 none, -errno. */
static int find_uki(const struct root *r, const char *kver, char *out, size_t size)
{
	struct ukis *u = malloc(sizeof(*u));
	int n = u ? uki_find(r, kver, u) : -ENOMEM;

	if (n > 0)
		snprintf(out, size, "%s", u->rel[0]);
	free(u);
	return n == -E2BIG ? -E2BIG : n < 0 ? n : n > 0 ? 2 : 0;
}

/* The image of kver: Debian's and dracut's names, then kernel-install's
 * (boot/, efi/ or boot/efi/ MACHINE-ID/VER/initrd), then a UKI's .initrd.
 * 1 found, 2 a UKI, 0 none, -errno. */
static int find_image(const struct root *r, const char *kver, char *out, size_t size)
{
	static const char *const esp[] = { "boot", "efi", "boot/efi" };
	char id[64];
	int a;

	if ((a = try_image(r, pathf(out, size, "boot/initrd.img-%s", kver), out)) ||
	    (a = try_image(r, pathf(out, size, "boot/initramfs-%s.img", kver), out)))
		return a;
	if (root_read(r, "etc/machine-id", id, sizeof(id)) > 0 && !strchr(id, '/') && *id != '.')
		for (size_t i = 0; i < ARRAY_SIZE(esp); i++)
			if ((a = try_image(r, pathf(out, size, "%s/%s/%s/initrd", esp[i], id, kver), out)))
				return a;
	return find_uki(r, kver, out, size);
}

static void set_rebuild(const struct root *r, const char *kver, bool uki, struct initrd_report *rep)
{
	bool itools = root_access(r, "usr/sbin/update-initramfs") == 1 ||
		      root_access(r, "sbin/update-initramfs") == 1;

	if (uki)
		snprintf(rep->cmd, sizeof(rep->cmd), "the UKI is rebuilt with it: kernel-install add %s /boot/vmlinuz-%s "
			 "(layout=uki), mkosi with earlytune in its initrd (InitrdPackages=earlytune), or ukify build "
			 "--initrd=", kver, kver);
	else
		snprintf(rep->cmd, sizeof(rep->cmd), itools ? "update-initramfs -u -k %s" : "dracut -f --kver %s", kver);
	rep->rebuild = rep->cmd;
}

static void first_difference(const struct cmp *m, struct initrd_report *rep)
{
	const char *img = rep->shown;

	for (size_t i = 0; i < m->n; i++) {
		const struct want *w = &m->v[i];

		if (w->seen && w->same)
			continue;
		rep->state = INITRD_STALE;
		snprintf(rep->differs, sizeof(rep->differs), "%s", w->rel);
		snprintf(rep->detail, sizeof(rep->detail), w->seen ? "/%s carries another /%s than the root's"
								   : "/%s lacks /%s, which the root has",
			 img, w->rel);
		return;
	}
	if (*m->extra) {
		rep->state = INITRD_STALE;
		snprintf(rep->differs, sizeof(rep->differs), "%s", m->extra);
		snprintf(rep->detail, sizeof(rep->detail), "/%s carries /%s, which the root does not have", img,
			 m->extra);
		return;
	}
	rep->state = INITRD_CURRENT;
	snprintf(rep->detail, sizeof(rep->detail), "/%s carries the root's earlytune and configuration", img);
}

static void verdict(const struct cmp *m, const char *comp, int wr, struct initrd_report *rep)
{
	const char *img = rep->shown;

	if (wr == -EPROTONOSUPPORT) {
		rep->state = INITRD_UNREADABLE;
		snprintf(rep->detail, sizeof(rep->detail), "/%s is %s-compressed, which earlytune does not read: "
			 "look inside with lsinitramfs (initramfs-tools) or lsinitrd (dracut)", img, comp);
	} else if (wr < 0) {
		rep->state = INITRD_UNREADABLE;
		snprintf(rep->detail, sizeof(rep->detail), "/%s cannot be read as an initramfs: %s", img,
			 wr == -EFBIG ? "it unpacks to more than 2 GiB" : "not newc cpio archives, or corrupt ones");
	} else if (!m->binary) {
		rep->state = INITRD_WITHOUT;
		snprintf(rep->differs, sizeof(rep->differs), "%s", m->bin);
		snprintf(rep->detail, sizeof(rep->detail), "/%s carries no earlytune: its settings wait for the "
			 "real root", img);
	} else {
		first_difference(m, rep);
	}
}

static int compare(const struct root *r, int fd, uint64_t off, uint64_t len, struct initrd_report *rep)
{
	struct cmp *m = calloc(1, sizeof(*m));
	struct cpio_sink sink = { sink_begin, sink_chunk, sink_end, m };
	const char *comp = NULL;
	int n;

	if (!m)
		return -ENOMEM;
	n = load_root(m, r);
	if (n >= 0) {
		n = initrd_walk_part(fd, off, len, &sink, &comp);
		if (n == -EBADMSG || n == -EFBIG || n == -EPROTONOSUPPORT || n >= 0) {
			verdict(m, comp, n, rep);
			n = 0;
		}
	}
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].data);
	free(m);
	return n;
}

/* A UKI's initramfs is its .initrd section: 1 with its place, 0 when it has
 * none or is no PE image (said in rep), -errno. */
static int uki_initrd(int fd, struct initrd_report *rep, uint64_t *off, uint64_t *len)
{
	int n = pe_section(fd, ".initrd", off, len);

	if (n == 0)
		snprintf(rep->detail, sizeof(rep->detail), "/%s is a UKI without an .initrd section", rep->image);
	if (n == -EBADMSG) {
		rep->state = INITRD_UNREADABLE;
		snprintf(rep->detail, sizeof(rep->detail), "/%s cannot be read as a UKI: a PE section table past "
			 "its end", rep->image);
	}
	return n == -EBADMSG ? 0 : n;
}

int initrd_check(const struct root *r, const char *kver, struct initrd_report *rep)
{
	_cleanup_(closep) int fd = -1;
	uint64_t off = 0, len = UINT64_MAX;
	struct stat st;
	int n;

	*rep = (struct initrd_report){ .state = INITRD_NONE };
	if (!kver || !*kver || strchr(kver, '/') || *kver == '.')
		kver = "";
	set_rebuild(r, *kver ? kver : "VER", false, rep);
	n = *kver ? find_image(r, kver, rep->image, sizeof(rep->image)) : 0;
	if (n <= 0) {
		*rep->image = '\0';
		snprintf(rep->detail, sizeof(rep->detail), "no initramfs for kernel %s", *kver ? kver : "(unknown)");
		return n;
	}
	set_rebuild(r, kver, n == 2, rep);
	snprintf(rep->shown, sizeof(rep->shown), n == 2 ? "%s (its .initrd)" : "%s", rep->image);
	fd = root_openat(r, rep->image, O_RDONLY, 0);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size > INITRD_MAX_IMAGE) {
		rep->state = INITRD_UNREADABLE;
		snprintf(rep->detail, sizeof(rep->detail), S_ISREG(st.st_mode) ? "/%s is larger than %u MiB"
					   : "/%s is not a regular file", rep->image, INITRD_MAX_IMAGE >> 20);
		return 0;
	}
	if (n == 2 && (n = uki_initrd(fd, rep, &off, &len)) <= 0)
		return n;
	return compare(r, fd, off, len, rep);
}
