// SPDX-License-Identifier: LGPL-2.1-or-later
/* limits/conf.c: the [limits] values (systemd's LimitNOFILE= syntax), keys,
 * unit names, and the lines of /proc/PID/limits. */
#include "unit.h"
#include "limits/internal.h"

#define INF LIMIT_INFINITY

static void expect_limit(const char *key, const char *value, uint64_t soft, uint64_t hard)
{
	char why[384] = "";
	struct rlim l = { 0, 0 };

	if (limits_parse_value(limit_key_find(key), value, &l, why, sizeof(why)) != 0)
		fail_msg("[limits] %s = '%s' rejected: %s", key, value, why);
	if (l.soft != soft || l.hard != hard)
		fail_msg("[limits] %s = '%s': %llu:%llu, expected %llu:%llu", key, value, (unsigned long long)l.soft,
			 (unsigned long long)l.hard, (unsigned long long)soft, (unsigned long long)hard);
}

static void expect_bad(const char *key, const char *value, const char *msg)
{
	char why[384] = "";
	struct rlim l;

	if (limits_parse_value(limit_key_find(key), value, &l, why, sizeof(why)) != -EINVAL)
		fail_msg("[limits] %s = '%s' accepted", key, value);
	assert_contains(why, msg);
}

static void test_counts(void **state)
{
	expect_limit("nofile", "4096", 4096, 4096);
	expect_limit("nofile", "4096:8192", 4096, 8192);
	expect_limit("nofile", "0", 0, 0);
	expect_limit("nofile", "infinity", INF, INF);
	expect_limit("nofile", "1024:infinity", 1024, INF);
	expect_limit("nproc", "4096:4096", 4096, 4096);
	expect_limit("nofile", "18446744073709551614", 18446744073709551614ULL, 18446744073709551614ULL);
	expect_bad("nofile", "8192:4096", "the soft limit is above the hard one");
	expect_bad("nofile", "infinity:1024", "the soft limit is above the hard one");
	expect_bad("nofile", "64K", "not a limit");
	expect_bad("nproc", "1M", "not a limit");
	expect_bad("nofile", "-1", "not a limit");
	expect_bad("nofile", " 10", "not a limit");
	expect_bad("nofile", "10:", "not a limit");
	expect_bad("nofile", ":10", "not a limit");
	expect_bad("nofile", "10:20:30", "not a limit");
	expect_bad("nofile", "unlimited", "expected SOFT[:HARD], each a whole number or 'infinity'");
	expect_bad("nofile", "Infinity", "not a limit");
	/* RLIM_INFINITY itself, and beyond: say infinity. */
	expect_bad("nofile", "18446744073709551615", "too large");
	expect_bad("nofile", "18446744073709551616", "too large");
}

static void test_sizes(void **state)
{
	expect_limit("memlock", "64M", 64ULL << 20, 64ULL << 20);
	expect_limit("memlock", "64K:1G", 64ULL << 10, 1ULL << 30);
	expect_limit("memlock", "8B", 8, 8);
	expect_limit("core", "0", 0, 0);
	expect_limit("core", "0:infinity", 0, INF);
	expect_limit("core", "2T", 2ULL << 40, 2ULL << 40);
	expect_limit("core", "3P", 3ULL << 50, 3ULL << 50);
	expect_limit("core", "15E", 15ULL << 60, 15ULL << 60);
	expect_limit("memlock", "65536", 65536, 65536);
	expect_bad("core", "16E", "too large");
	expect_bad("memlock", "64Q", "suffixes K, M, G, T, P, E: 1024-based");
	expect_bad("memlock", "64MB", "not a limit");
	expect_bad("memlock", "64m", "not a limit");
	expect_bad("memlock", "M", "not a limit");
	expect_bad("memlock", "1.5G", "not a limit");
	expect_bad("memlock", "2G:1G", "the soft limit is above the hard one");
}

static void test_format(void **state)
{
	char buf[64];
	struct rlim l = { 4096, 8192 };

	limits_format(&l, buf, sizeof(buf));
	assert_string_equal(buf, "4096:8192");
	l = (struct rlim){ 4096, 4096 };
	limits_format(&l, buf, sizeof(buf));
	assert_string_equal(buf, "4096");
	l = (struct rlim){ 1024, INF };
	limits_format(&l, buf, sizeof(buf));
	assert_string_equal(buf, "1024:infinity");
	l = (struct rlim){ INF, INF };
	limits_format(&l, buf, sizeof(buf));
	assert_string_equal(buf, "infinity");
}

static void test_proc(void **state)
{
	static const char text[] =
		"Limit                     Soft Limit           Hard Limit           Units     \n"
		"Max core file size        0                    unlimited            bytes     \n"
		"Max processes             63432                63432                processes \n"
		"Max open files            1024                 524288               files     \n"
		"Max locked memory         8388608              8388608              bytes     \n"
		"Max file locks            unlimited            unlimited            locks     \n";
	struct rlim l;

	assert_int_equal(limits_parse_proc(text, limit_key_find("nofile"), &l), 0);
	assert_true(l.soft == 1024 && l.hard == 524288);
	assert_int_equal(limits_parse_proc(text, limit_key_find("core"), &l), 0);
	assert_true(l.soft == 0 && l.hard == INF);
	assert_int_equal(limits_parse_proc(text, limit_key_find("nproc"), &l), 0);
	assert_true(l.soft == 63432 && l.hard == 63432);
	assert_int_equal(limits_parse_proc(text, limit_key_find("memlock"), &l), 0);
	assert_true(l.soft == 8388608 && l.hard == 8388608);
	assert_int_equal(limits_parse_proc("Max open files 1024\n", limit_key_find("nofile"), &l), -EBADMSG);
	assert_int_equal(limits_parse_proc("Max open files x y files\n", limit_key_find("nofile"), &l), -EBADMSG);
	assert_int_equal(limits_parse_proc("Max open filesystems 1 2\n", limit_key_find("nofile"), &l), -ENOENT);
	assert_int_equal(limits_parse_proc("", limit_key_find("nofile"), &l), -ENOENT);
}

static void expect_key(const char *key, const char *value, int want, const char *msg)
{
	char why[384] = "";

	assert_int_equal(limits_check_key(key, value, why, sizeof(why)), want);
	if (msg)
		assert_contains(why, msg);
}

static void test_keys(void **state)
{
	expect_key("nofile", "4096", 0, NULL);
	expect_key("core", "", 0, NULL); /* unsets */
	expect_key("nofiles", "1", -EINVAL, "unknown key 'nofiles' in [limits]; did you mean 'nofile'? allowed: nofile nproc memlock core");
	expect_key("LimitNOFILE", "1", -EINVAL, "did you mean 'nofile'?");
	expect_key("LimitMEMLOCK", "1", -EINVAL, "did you mean 'memlock'?");
	expect_key("NPROC", "1", -EINVAL, "did you mean 'nproc'?");
	expect_key("stack", "1", -EINVAL, "allowed: nofile nproc memlock core");
	expect_key("nofile", "x", -EINVAL, "[limits] nofile = 'x': not a limit");
}

/* Unit names are checked once every file is read: rejected entries leave. */
static void expect_name(const char *name, const char *msg)
{
	struct config c = { 0 };
	char text[256];

	snprintf(text, sizeof(text), "[limits \"%s\"]\nnofile = 4096\n", name);
	assert_int_equal(config_parse_text(&c, text, "test.conf"), 0);
	config_check(&c);
	if (!msg) {
		assert_int_equal(c.errors, 0);
		assert_int_equal(c.n, 1);
	} else {
		assert_int_equal(c.errors, 1);
		assert_int_equal(c.n, 0);
	}
	config_free(&c);
}

static void test_names(void **state)
{
	struct capture cap;
	char *err;

	expect_name("nginx.service", NULL);
	expect_name("postgresql@*.service", NULL);
	expect_name("getty@tty1.service", NULL);
	expect_name("*.service", NULL);
	capture_begin(&cap);
	expect_name("nginx", "a unit name ending in .service");
	expect_name("nginx.socket", "a unit name ending in .service");
	expect_name("postgresql@*", "end the glob in .service");
	expect_name("ngin[x.service", "'[' opens a character class");
	err = capture_end(&cap);
	assert_contains(err, "[limits \"nginx\"]: limits are set on services: a unit name ending in .service (\"nginx.service\"?)");
	assert_contains(err, "[limits \"postgresql@*\"]: limits are set on services: end the glob in .service (\"postgresql@*.service\")");
	free(err);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_counts),
	cmocka_unit_test(test_sizes),
	cmocka_unit_test(test_format),
	cmocka_unit_test(test_proc),
	cmocka_unit_test(test_keys),
	cmocka_unit_test(test_names),
};

UNIT_MAIN("limits", tests)
