// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kernels installed in a tree: lib/modules/VER with a module index, or
 * boot/vmlinuz-VER. An unbooted image has no /proc to say which one runs;
 * when it has exactly one, that one is the image's kernel.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "image/image.h"

struct found {
	const struct root *r;
	struct kernels *ks;
};

static void kernels_add(struct kernels *ks, const char *ver)
{
	char **v;

	if (!valid_name(ver) || strlen(ver) >= sizeof(((struct kernel *)0)->release) || ks->err)
		return;
	for (size_t i = 0; i < ks->n; i++)
		if (!strcmp(ks->v[i], ver))
			return;
	v = realloc(ks->v, (ks->n + 1) * sizeof(*v));
	if (!v || !(v[ks->n] = strdup(ver))) {
		ks->v = v ? v : ks->v;
		ks->err = -ENOMEM;
		return;
	}
	ks->v = v;
	ks->n++;
}

/* lib/modules/VER counts with its module index: a directory left behind by
 * a removed kernel (only extra modules in it) does not. */
static void module_tree(const char *rel, void *data)
{
	struct found *f = data;
	char dep[PATH_MAX], bin[PATH_MAX];

	if (pathf(dep, sizeof(dep), "%s/modules.dep", rel) < 0 || pathf(bin, sizeof(bin), "%s/modules.dep.bin", rel) < 0)
		return;
	if (root_access(f->r, dep) > 0 || root_access(f->r, bin) > 0)
		kernels_add(f->ks, strrchr(rel, '/') + 1);
}

static void vmlinuz(const char *rel, void *data)
{
	struct found *f = data;

	kernels_add(f->ks, strrchr(rel, '/') + 1 + strlen("vmlinuz-"));
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The count, sorted by name in ks; -errno when a directory cannot be read. */
int image_kernels(const struct root *r, struct kernels *ks)
{
	struct found f = { r, ks };
	int n;

	*ks = (struct kernels){ 0 };
	if ((n = root_match(r, "lib/modules", "*", module_tree, &f)) < 0 ||
	    (n = root_match(r, "boot", "vmlinuz-?*", vmlinuz, &f)) < 0)
		return n;
	if (ks->err)
		return ks->err;
	if (ks->n > 1) /* qsort(NULL, 0, ...) is undefined */
		qsort(ks->v, ks->n, sizeof(*ks->v), by_name);
	return (int)ks->n;
}

void kernels_free(struct kernels *ks)
{
	for (size_t i = 0; i < ks->n; i++)
		free(ks->v[i]);
	free(ks->v);
	*ks = (struct kernels){ 0 };
}

/* "A, B, C" */
void kernels_list(const struct kernels *ks, char *buf, size_t size)
{
	size_t len = 0;

	*buf = '\0';
	for (size_t i = 0; i < ks->n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", ks->v[i]);
}

/* Without a kernel release in the tree (no proc/), the image's only kernel.
 * Returns the count: 1 picked (k->from says so; *where names the directory
 * it was found in), 0 the tree has none (the release stays unknown), more:
 * none picked, all listed in buf; or -errno. Never where proc/ names the
 * running kernel: "/" qualifies only as a chroot without /proc mounted
 * (an image being built: debootstrap, a package's maintainer script). */
int kernel_image(struct kernel *k, const struct root *r, char *buf, size_t size, const char **where)
{
	struct kernels ks;
	char rel[PATH_MAX];
	int n;

	*buf = '\0';
	if (k->from)
		return 0;
	n = image_kernels(r, &ks);
	if (n > 1)
		kernels_list(&ks, buf, size);
	if (n == 1) {
		kernel_target(k, r, ks.v[0]);
		k->from = "image";
		*where = pathf(rel, sizeof(rel), "lib/modules/%s", ks.v[0]) == 0 && root_access(r, rel) > 0 ?
			"lib/modules" : "boot";
	}
	kernels_free(&ks);
	return n;
}
