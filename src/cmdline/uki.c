// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unified kernel images embed their command line when they are built:
 * detected, so that apply says what to do, but never edited. verify
 * --image reads them as systemd-stub does: the UKIs of a kernel are the
 * *.efi of EFI/Linux on the ESP (/boot, /efi or /boot/efi, where
 * kernel-install, mkosi and ukify put them), told apart by their .uname
 * section, or without one by the name kernel-install gives them
 * (ENTRY-TOKEN-VER.efi, VER+TRIES.efi with boot counting).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/pe.h"
#include "cmdline/internal.h"

static int uki_add(struct apply *ap)
{
	log_msg(LOG_ERR, "unified kernel images embed their command line when they are built: "
			 "nothing earlytune can edit. Add '%s' to the UKI build (ukify --cmdline, or "
			 "/etc/kernel/cmdline for kernel-install) and rebuild", ap->params);
	return -EOPNOTSUPP;
}

const struct backend backend_uki = {
	.name = "uki",
	.probes = { { "boot/EFI/Linux", "*.efi" }, { "efi/EFI/Linux", "*.efi" } },
	.add = uki_add,
};

static const char *const esp_dirs[] = { "boot/EFI/Linux", "efi/EFI/Linux", "boot/efi/EFI/Linux" };

/* The name says kver: VER followed by ".efi" or by "+" (boot counting). */
static bool named_for(const char *rel, const char *kver)
{
	const char *base = strrchr(rel, '/') + 1;
	size_t l = strlen(kver);

	for (const char *p = strstr(base, kver); p; p = strstr(p + 1, kver))
		if (!strcmp(p + l, ".efi") || p[l] == '+')
			return true;
	return false;
}

static void uki_seen(const char *rel, void *data)
{
	struct ukis *u = data;
	_cleanup_(closep) int fd = -1;
	_cleanup_(freep) char *uname = NULL;
	int r;

	if (u->err)
		return;
	fd = root_openat(u->r, rel, O_RDONLY, 0);
	r = fd < 0 ? fd : pe_section_text(fd, ".uname", 256, &uname);
	if (r == -EBADMSG || r == -EFBIG)
		return; /* not a UKI, whatever its name */
	if (r < 0) {
		u->err = r;
		snprintf(u->rel[0], sizeof(u->rel[0]), "%s", rel);
		return;
	}
	if (r > 0 ? strcmp(uname, u->kver) : !named_for(rel, u->kver))
		return;
	if (u->n == UKI_MAX) {
		u->err = -E2BIG;
		return;
	}
	snprintf(u->rel[u->n++], sizeof(u->rel[0]), "%s", rel);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

int uki_find(const struct root *r, const char *kver, struct ukis *u)
{
	*u = (struct ukis){ .r = r, .kver = kver };
	for (size_t i = 0; i < ARRAY_SIZE(esp_dirs) && !u->err; i++) {
		int n = root_match(r, esp_dirs[i], "*.efi", uki_seen, u);

		if (n < 0 && !u->err) {
			u->err = n;
			snprintf(u->rel[0], sizeof(u->rel[0]), "%s", esp_dirs[i]);
		}
	}
	if (u->err)
		return u->err;
	qsort(u->rel, u->n, sizeof(u->rel[0]), by_name);
	return (int)u->n;
}
