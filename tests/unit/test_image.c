// SPDX-License-Identifier: LGPL-2.1-or-later
/* image.c and platform.c: the kernels of an image, its only one, and the
 * platform the cloud rules are matched against. */
#include "unit.h"
#include "image/image.h"

static struct root *open_root(struct fx *f)
{
	assert_int_equal(root_open(&f->c.root, f->dir), 0);
	return &f->c.root;
}

static void test_image_kernels(void **state)
{
	struct fx *f = *state;
	struct kernels ks;
	char list[256];

	tree_write(f->dir, "lib/modules/6.12.9-amd64/modules.dep", "");
	tree_write(f->dir, "lib/modules/6.1.0-28-amd64/modules.dep.bin", "");
	tree_write(f->dir, "boot/vmlinuz-6.1.0-28-amd64", "");  /* the same kernel */
	tree_write(f->dir, "boot/vmlinuz-5.10.0-9-amd64", "");  /* a kernel only in boot */
	tree_mkdir(f->dir, "lib/modules/4.19.0-1-amd64/updates"); /* left behind */
	tree_write(f->dir, "boot/vmlinuz-", "");                 /* no version */
	assert_int_equal(image_kernels(open_root(f), &ks), 3);
	kernels_list(&ks, list, sizeof(list));
	assert_string_equal(list, "5.10.0-9-amd64, 6.1.0-28-amd64, 6.12.9-amd64");
	kernels_free(&ks);
	assert_int_equal(ks.n, 0);
}

/* lib/modules that is not a directory holds no kernel; one that cannot be
 * read is an error, never "no kernel". */
static void test_image_kernels_errors(void **state)
{
	struct fx *f = *state;
	struct kernels ks;

	tree_write(f->dir, "lib/modules", "a file, not a directory");
	tree_symlink(f->dir, "boot", "boot");
	assert_int_equal(image_kernels(open_root(f), &ks), -ELOOP);
	kernels_free(&ks);
}

static void test_kernel_image(void **state)
{
	struct fx *f = *state;
	struct kernel *k = &f->c.kernel;
	const char *where = NULL;
	char list[256];

	tree_write(f->dir, "lib/modules/6.1.0-28-amd64/modules.dep", "");
	open_root(f);
	assert_int_equal(kernel_probe(k, &f->c.root), 0);
	assert_string_equal(k->release, "unknown");
	assert_null(k->from);
	assert_int_equal(kernel_image(k, &f->c.root, list, sizeof(list), &where), 1);
	assert_string_equal(k->release, "6.1.0-28-amd64");
	assert_string_equal(k->from, "image");
	assert_string_equal(where, "lib/modules");
	assert_true(k->modules);
	/* once known (proc, --kernel, picked), never picked again */
	assert_int_equal(kernel_image(k, &f->c.root, list, sizeof(list), &where), 0);
	tree_write(f->dir, "boot/vmlinuz-6.1.0-29-amd64", "");
	k->from = NULL;
	assert_int_equal(kernel_image(k, &f->c.root, list, sizeof(list), &where), 2);
	assert_string_equal(list, "6.1.0-28-amd64, 6.1.0-29-amd64");
}

static void test_kernel_image_not_with_proc(void **state)
{
	struct fx *f = *state;
	struct kernel *k = &f->c.kernel;
	const char *where = NULL;
	char list[64];

	tree_write(f->dir, "proc/sys/kernel/osrelease", "6.1.0-29-amd64\n");
	tree_write(f->dir, "lib/modules/6.1.0-28-amd64/modules.dep", "");
	open_root(f);
	assert_int_equal(kernel_probe(k, &f->c.root), 0);
	assert_string_equal(k->from, "proc");
	assert_int_equal(kernel_image(k, &f->c.root, list, sizeof(list), &where), 0);
	assert_string_equal(k->release, "6.1.0-29-amd64");
}

static void test_platform_check(void **state)
{
	char why[256];

	assert_int_equal(platform_check("--platform", "aws", why, sizeof(why)), 0);
	assert_int_equal(platform_check("--platform", "generic", why, sizeof(why)), 0);
	assert_int_equal(platform_check("--platform", "ec2", why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "unknown platform 'ec2'; platforms: aws gce azure generic"));
	assert_int_equal(platform_check("x", "azur", why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "did you mean 'azure'?"));
	assert_int_equal(platform_check("x", "", why, sizeof(why)), -EINVAL);
}

static const char *guessed(struct fx *f, const char *vendor, const char *product)
{
	f->c.platform = (struct platform){ 0 };
	if (vendor)
		tree_write(f->dir, "sys/class/dmi/id/sys_vendor", vendor);
	if (product)
		tree_write(f->dir, "sys/class/dmi/id/product_name", product);
	assert_int_equal(platform_resolve(&f->c.platform, &f->c.root, NULL, NULL, NULL), 0);
	assert_string_equal(f->c.platform.how, f->c.platform.name ? "guessed" : "unknown");
	return f->c.platform.name ? f->c.platform.name : "(unknown)";
}

static void test_platform_guess(void **state)
{
	struct fx *f = *state;

	open_root(f);
	assert_string_equal(guessed(f, NULL, NULL), "(unknown)");
	assert_string_equal(f->c.platform.from, "no DMI in this image");
	assert_string_equal(guessed(f, "Amazon EC2\n", "m7i.large\n"), "aws");
	assert_string_equal(f->c.platform.from, "sys/class/dmi/id/sys_vendor 'Amazon EC2'");
	assert_string_equal(guessed(f, "Google\n", "Google Compute Engine\n"), "gce");
	assert_string_equal(guessed(f, "Microsoft Corporation\n", "Surface Laptop 5\n"), "generic");
	assert_string_equal(guessed(f, "Microsoft Corporation\n", "Virtual Machine\n"), "azure");
	assert_string_equal(f->c.platform.from,
			    "sys/class/dmi/id/sys_vendor 'Microsoft Corporation', product_name 'Virtual Machine'");
	assert_string_equal(guessed(f, "QEMU\n", "Standard PC (Q35 + ICH9, 2009)\n"), "generic");
}

static void test_platform_order(void **state)
{
	struct fx *f = *state;
	struct platform *p = &f->c.platform;

	tree_write(f->dir, "sys/class/dmi/id/sys_vendor", "Amazon EC2\n");
	open_root(f);
	assert_int_equal(platform_resolve(p, &f->c.root, "gce", "azure", "x.conf:2"), 0);
	assert_string_equal(p->name, "gce");
	assert_string_equal(p->how, "given");
	assert_string_equal(p->from, "--platform");
	/* once resolved, the answer stays */
	assert_int_equal(platform_resolve(p, &f->c.root, NULL, NULL, NULL), 0);
	assert_string_equal(p->name, "gce");
	*p = (struct platform){ 0 };
	assert_int_equal(platform_resolve(p, &f->c.root, NULL, "azure", "x.conf:2"), 0);
	assert_string_equal(p->name, "azure");
	assert_string_equal(p->from, "[main] platform (x.conf:2)");
	*p = (struct platform){ 0 };
	/* "" unsets [main] platform: the guess again */
	assert_int_equal(platform_resolve(p, &f->c.root, NULL, "", "x.conf:3"), 0);
	assert_string_equal(p->name, "aws");
}

static void test_platform_unreadable(void **state)
{
	struct fx *f = *state;
	struct platform *p = &f->c.platform;

	tree_mkdir(f->dir, "sys/class/dmi/id/sys_vendor");
	open_root(f);
	assert_int_equal(platform_resolve(p, &f->c.root, NULL, NULL, NULL), -EISDIR);
	assert_string_equal(p->from, "sys/class/dmi/id/sys_vendor");
	assert_null(p->name);
	/* the error stays the answer: never a guess on a partial view */
	assert_int_equal(platform_resolve(p, &f->c.root, NULL, NULL, NULL), -EISDIR);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_setup_teardown(test_image_kernels, fx_setup, fx_teardown),
	cmocka_unit_test_setup_teardown(test_image_kernels_errors, fx_setup, fx_teardown),
	cmocka_unit_test_setup_teardown(test_kernel_image, fx_setup, fx_teardown),
	cmocka_unit_test_setup_teardown(test_kernel_image_not_with_proc, fx_setup, fx_teardown),
	cmocka_unit_test(test_platform_check),
	cmocka_unit_test_setup_teardown(test_platform_guess, fx_setup, fx_teardown),
	cmocka_unit_test_setup_teardown(test_platform_order, fx_setup, fx_teardown),
	cmocka_unit_test_setup_teardown(test_platform_unreadable, fx_setup, fx_teardown),
};

UNIT_MAIN("image", tests)
