// SPDX-License-Identifier: LGPL-2.1-or-later
/* config.c and profiles.c: the parser, reasons, errors, drop-ins, profiles. */
#include "unit.h"
#include "engine/domain.h"

/* ---- helpers ------------------------------------------------------------------ */

static const char *get(const struct config *c, const char *section, const char *name,
		       const char *key)
{
	const struct cfg_entry *e = config_get(c, section, name, key);

	return e ? e->value : NULL;
}

/* Keeps a malloc'ed string in f->text, where the teardown frees it. */
static const char *keep(struct fx *f, char *s)
{
	free(f->text);
	f->text = s;
	assert_non_null(s);
	return s;
}

/* Parses text into a fresh f->cfg; returns what was logged (kept in f->text). */
static const char *parse(struct fx *f, const char *text)
{
	struct capture cap;
	int r;

	config_free(&f->cfg);
	free(f->text);
	f->text = NULL;
	capture_begin(&cap);
	r = config_parse_text(&f->cfg, text, "test.conf");
	f->text = capture_end(&cap);
	assert_int_equal(r, 0);
	return f->text;
}

/* text must be rejected with exactly errors errors and no entry added. */
static void expect_rejected(struct fx *f, const char *text, int errors, const char *msg)
{
	const char *log = parse(f, text);

	if (f->cfg.errors != errors)
		fail_msg("%d errors (want %d) for:\n%s\nlog:\n%s", f->cfg.errors, errors, text, log);
	if (f->cfg.n != 0)
		fail_msg("entry '%s = %s' was added for:\n%s", f->cfg.v[0].key, f->cfg.v[0].value, text);
	if (msg)
		assert_contains(log, msg);
}

static bool from_file(const struct cfg_entry *e, const char *dir, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return e && !strcmp(e->file, path);
}

static void load(struct fx *f, const char *file, const char *profile)
{
	struct capture cap;
	int r;

	assert_int_equal(root_open(&f->c.root, f->dir), 0);
	free(f->text);
	capture_begin(&cap);
	r = config_load(&f->cfg, &f->c.root, file, profile);
	f->text = capture_end(&cap);
	assert_int_equal(r, 0);
}

static size_t profile_entries(const struct config *c, const char *name)
{
	char src[64];
	size_t n = 0;

	snprintf(src, sizeof(src), "profile %s", name);
	while (n < c->n && !strcmp(c->v[n].file, src))
		n++;
	for (size_t i = n; i < c->n; i++)
		if (!strcmp(c->v[i].file, src))
			fail_msg("entry %zu (%s) from '%s' after a file's entries", i, c->v[i].key, src);
	return n;
}

/* ---- the parser ----------------------------------------------------------------- */

static void test_sections(void **state)
{
	struct fx *f = *state;
	const struct cfg_entry *e;

	parse(f, "[main]\n"
		 "profile = none\n"
		 "[block]\n"
		 "scheduler = mq-deadline\n"
		 "[block \"vda\"]\n"
		 "match.name = vda\n"
		 "read_ahead_kb = 256\n"
		 "[ thp ]\n"
		 "enabled = madvise\n"
		 "[modules]\n"
		 "load = bfq\n"
		 "[net]\n"
		 "qdisc = fq\n");
	assert_int_equal(f->cfg.errors, 0);
	assert_int_equal(f->cfg.n, 7);
	assert_string_equal(get(&f->cfg, "main", NULL, "profile"), "none");
	e = config_get(&f->cfg, "block", NULL, "scheduler");
	assert_non_null(e);
	assert_string_equal(e->value, "mq-deadline");
	assert_null(e->name);
	assert_int_equal(e->line, 4);
	assert_string_equal(e->file, "test.conf");
	e = config_get(&f->cfg, "block", "vda", "read_ahead_kb");
	assert_non_null(e);
	assert_string_equal(e->name, "vda");
	assert_string_equal(e->value, "256");
	assert_int_equal(e->line, 7);
	assert_string_equal(get(&f->cfg, "block", "vda", "match.name"), "vda");
	assert_null(get(&f->cfg, "block", NULL, "read_ahead_kb"));
	assert_null(get(&f->cfg, "block", "vdb", "read_ahead_kb"));
	assert_null(get(&f->cfg, "block", "vda", "scheduler"));
	assert_string_equal(get(&f->cfg, "thp", NULL, "enabled"), "madvise");
	assert_string_equal(get(&f->cfg, "modules", NULL, "load"), "bfq");
	assert_string_equal(get(&f->cfg, "net", NULL, "qdisc"), "fq");
	assert_null(get(&f->cfg, "net", NULL, "enabled"));
}

static void test_reasons(void **state)
{
	struct fx *f = *state;
	const struct cfg_entry *e;

	parse(f, "[block]\n"
		 "# first line\n"
		 "#   second line  \n"
		 "scheduler = none\n"
		 "read_ahead_kb = 128\n"
		 "\n"
		 "# orphan: a blank line ends it\n"
		 "\n"
		 "nr_requests = 64\n"
		 "; semicolon reason\n"
		 "rq_affinity = 1\n"
		 "# above a header\n"
		 "[thp]\n"
		 "enabled = never\n"
		 "# comment\n"
		 "#\n"
		 "# after an empty comment\n"
		 "defrag = never\n"
		 "# before a bad line\n"
		 "bogus = 1\n"
		 "use_zero_page = 1\n"
		 "   # indented\n"
		 "  shmem_enabled = never\n");
	assert_int_equal(f->cfg.errors, 1);
	e = config_get(&f->cfg, "block", NULL, "scheduler");
	assert_non_null(e);
	assert_string_equal(e->reason, "first line second line");
	assert_null(config_get(&f->cfg, "block", NULL, "read_ahead_kb")->reason);
	assert_null(config_get(&f->cfg, "block", NULL, "nr_requests")->reason);
	assert_string_equal(config_get(&f->cfg, "block", NULL, "rq_affinity")->reason,
			    "semicolon reason");
	assert_null(config_get(&f->cfg, "thp", NULL, "enabled")->reason);
	assert_string_equal(config_get(&f->cfg, "thp", NULL, "defrag")->reason,
			    "comment after an empty comment");
	assert_null(config_get(&f->cfg, "thp", NULL, "use_zero_page")->reason);
	assert_string_equal(config_get(&f->cfg, "thp", NULL, "shmem_enabled")->reason, "indented");
}

static void test_values_folded(void **state)
{
	struct fx *f = *state;

	parse(f, "[block]\n"
		 "scheduler =   none \t  mq-deadline   \n"
		 "match.name=vda\t\tvdb    vdc\n"
		 "  read_ahead_kb\t=\t128..1024\r\n"
		 "[block \"x\"]\r\n"
		 "nr_requests = 64\r\n");
	assert_int_equal(f->cfg.errors, 0);
	assert_string_equal(get(&f->cfg, "block", NULL, "scheduler"), "none mq-deadline");
	assert_string_equal(get(&f->cfg, "block", NULL, "match.name"), "vda vdb vdc");
	assert_string_equal(get(&f->cfg, "block", NULL, "read_ahead_kb"), "128..1024");
	assert_string_equal(get(&f->cfg, "block", "x", "nr_requests"), "64");
}

static void test_unset_and_override(void **state)
{
	struct fx *f = *state;
	const struct cfg_entry *e;

	parse(f, "[block]\n"
		 "scheduler = none\n"
		 "read_ahead_kb = 256\n"
		 "scheduler =\n"
		 "read_ahead_kb = 512\n"
		 "[block]\n"
		 "read_ahead_kb = 1024\n"
		 "[thp]\n"
		 "enabled = never\n"
		 "enabled =   \n"
		 "defrag = never\n"
		 "defrag =\n"
		 "defrag = madvise\n"
		 "[main]\n"
		 "profile =\n");
	assert_int_equal(f->cfg.errors, 0);
	assert_null(config_get(&f->cfg, "block", NULL, "scheduler"));
	e = config_get(&f->cfg, "block", NULL, "read_ahead_kb");
	assert_string_equal(e->value, "1024");
	assert_int_equal(e->line, 7);
	assert_null(config_get(&f->cfg, "thp", NULL, "enabled"));
	assert_string_equal(get(&f->cfg, "thp", NULL, "defrag"), "madvise");
	assert_null(config_get(&f->cfg, "main", NULL, "profile"));

	/* A later source overrides an earlier one. */
	assert_int_equal(config_parse_text(&f->cfg, "[block]\nread_ahead_kb = 64\n", "later.conf"), 0);
	e = config_get(&f->cfg, "block", NULL, "read_ahead_kb");
	assert_string_equal(e->value, "64");
	assert_string_equal(e->file, "later.conf");
	assert_int_equal(e->line, 2);
}

/* The reader knows every domain's section from the table (issue 10: it kept
 * its own list, which a new domain had to be added to), and says them all
 * when a section is unknown. A domain without one (initramfs: nothing to
 * configure) has no section; two may share a name, one taking [net] and
 * the other [net "NAME"]. */
static void test_domain_sections(void **state)
{
	struct fx *f = *state;
	char text[64], want[64];

	assert_contains(parse(f, "[initramfs]\n"), "unknown section");
	for (size_t i = 0; i < ndomains; i++) {
		if (!domains[i].section.name)
			continue;
		const struct cfg_section *s = &domains[i].section;

		snprintf(text, sizeof(text), s->named ? "[%s \"x\"]\n" : "[%s]\n", s->name);
		parse(f, text);
		assert_int_equal(f->cfg.errors, 0);
		parse(f, "[bogus]\n");
		snprintf(want, sizeof(want), s->named ? "[%s \"NAME\"]" : " [%s]", s->name);
		assert_contains(f->text, want);
	}
	assert_contains(parse(f, "[bogus]\n"), "allowed: [main] ");
	assert_contains(parse(f, "[thp \"x\"]\n"), "(only [net \"NAME\"], [block \"NAME\"], [limits \"NAME\"], [sysfs \"NAME\"] and [cmdline \"NAME\"] do)");
}

static void test_bad_sections(void **state)
{
	struct fx *f = *state;

	expect_rejected(f, "[bogus]\n", 1, "unknown section [bogus]");
	expect_rejected(f, "[Block]\n", 1, "unknown section");
	expect_rejected(f, "[bogus]\nscheduler = none\n", 2, "outside a valid section");
	expect_rejected(f, "[block\n", 1, "malformed section header");
	expect_rejected(f, "[block] x\n", 1, "malformed section header");
	expect_rejected(f, "[]\n", 1, "malformed section header");
	expect_rejected(f, "[bl ock]\n", 1, "malformed section header");
	expect_rejected(f, "[block \"\"]\n", 1, "malformed section name");
	expect_rejected(f, "[block \"a\"b\"]\n", 1, "malformed section name");
	expect_rejected(f, "[block \"vda]\n", 1, "malformed section name");
	expect_rejected(f, "[block \"vda\" x]\n", 1, "malformed section name");
	expect_rejected(f, "[thp \"x\"]\n", 1, "takes no name");
	expect_rejected(f, "[block \"a/b\"]\n", 1, "must be printable");
	expect_rejected(f, "[block \"..\"]\n", 1, "must be printable");
	expect_rejected(f, "[block \"a\x01\"]\n", 1, "must be printable");
	/* Keys under a bad header are not attributed to the section before it. */
	expect_rejected(f, "[block]\n[bogus]\nscheduler = none\n", 2, "outside a valid section");
}

static void test_bad_keys(void **state)
{
	struct fx *f = *state;

	expect_rejected(f, "scheduler = none\n", 1, "outside a valid section");
	expect_rejected(f, "# reason\nscheduler = none\n[block]\n", 1, "'scheduler' is outside");
	expect_rejected(f, "[block]\nfoo = 1\n", 1, "unknown key 'foo' in [block]");
	expect_rejected(f, "[main]\nfoo = 1\n", 1, "unknown key 'foo' in [main]");
	expect_rejected(f, "[main]\nprofile = bogus\n", 1, "unknown profile 'bogus'");
	expect_rejected(f, "[thp]\nfoo = 1\n", 1, "unknown key 'foo' in [thp]");
	expect_rejected(f, "[modules]\nfoo = 1\n", 1, "unknown key 'foo' in [modules]");
	expect_rejected(f, "[net]\nfoo = 1\n", 1, "unknown key 'foo' in [net]");
	expect_rejected(f, "[block]\nno equals sign\n", 1, "expected 'key = value'");
	expect_rejected(f, "[block]\n= none\n", 1, "malformed key");
	expect_rejected(f, "[block]\nsched uler = none\n", 1, "malformed key");
	expect_rejected(f, "[block]\nscheduler! = none\n", 1, "malformed key");
	expect_rejected(f, "[block]\nmatch.colour = red\n", 1, "unknown match key");
	expect_rejected(f, "[block]\nmatch.class = floppy\n", 1, "matches no class");
}

/* The legacy block layer's names are accepted (kernels before 5.0 offer
 * nothing else); a list may mix them with blk-mq's. */
static void test_legacy_schedulers(void **state)
{
	static const char *const legacy[] = { "deadline", "noop", "cfq", "mq-deadline deadline", "none cfq" };
	struct fx *f = *state;
	char text[128];

	for (size_t i = 0; i < ARRAY_SIZE(legacy); i++) {
		const struct cfg_entry *e;

		snprintf(text, sizeof(text), "[block]\nscheduler = %s\n", legacy[i]);
		parse(f, text);
		assert_int_equal(f->cfg.errors, 0);
		e = config_get(&f->cfg, "block", NULL, "scheduler");
		assert_non_null(e);
		assert_string_equal(e->value, legacy[i]);
	}
	expect_rejected(f, "[block]\nscheduler = mq-deadline foo\n", 1, "unknown scheduler 'foo'");
	expect_rejected(f, "[block]\nscheduler = anticipatory\n", 1, "allowed: none mq-deadline kyber bfq noop deadline cfq");
}

static void test_out_of_range(void **state)
{
	struct fx *f = *state;

	expect_rejected(f, "[block]\nnr_requests = 3\n", 1, "nr_requests = '3'");
	expect_rejected(f, "[block]\nnr_requests = 2049\n", 1, "from 4 to 2048");
	expect_rejected(f, "[block]\nrq_affinity = 3\n", 1, "rq_affinity = '3'");
	expect_rejected(f, "[block]\nadd_random = 2\n", 1, "add_random");
	expect_rejected(f, "[block]\nread_ahead_kb = 1024..128\n", 1, "range '1024..128'");
	expect_rejected(f, "[block]\nread_ahead_kb = -1\n", 1, "read_ahead_kb");
	expect_rejected(f, "[block]\nread_ahead_kb = 128kB\n", 1, "a number of KiB, without a unit: write 128");
	expect_rejected(f, "[block]\nread_ahead_kb = 12x\n", 1, "or a range A..B");
	expect_rejected(f, "[block]\nio_timeout = 0\n", 1, "io_timeout");
	expect_rejected(f, "[thp]\nenabled = sometimes\n", 1, "allowed: always madvise never");
	expect_rejected(f, "[thp]\nsize.3kB.enabled = always\n", 1, "malformed key 'size.3kB.enabled'");
	expect_rejected(f, "[thp]\nkhugepaged.max_ptes_none = 512\n", 1, "max_ptes_none");

	/* The edges themselves are accepted. */
	parse(f, "[block]\nnr_requests = 4\nnr_requests = 2048\nrq_affinity = 2\n"
		 "read_ahead_kb = 128..128\n[thp]\nsize.8kB.enabled = inherit\n");
	assert_int_equal(f->cfg.errors, 0);
	assert_int_equal(f->cfg.n, 5);
}

static void test_control_characters(void **state)
{
	struct fx *f = *state;

	expect_rejected(f, "[block]\nscheduler = none\x01\n", 1, "control character");
	expect_rejected(f, "[block]\nscheduler = no\x1bne\n", 1, "control character");
	expect_rejected(f, "[block]\nmatch.model = QEMU\x7f\n", 1, "control character");
	expect_rejected(f, "[block]\nsched\x02uler = none\n", 1, "malformed key");
	/* A bad line is skipped; the good ones around it stay. */
	parse(f, "[block]\nnr_requests = 64\nscheduler = \x01\nrq_affinity = 1\n");
	assert_int_equal(f->cfg.errors, 1);
	assert_int_equal(f->cfg.n, 2);
	assert_null(config_get(&f->cfg, "block", NULL, "scheduler"));
	assert_string_equal(get(&f->cfg, "block", NULL, "rq_affinity"), "1");
}

static void test_errors_accumulate(void **state)
{
	struct fx *f = *state;

	parse(f, "[bogus]\nx = 1\n[block]\nscheduler = none\nfoo = 2\n[thp]\nenabled = sometimes\n"
		 "enabled = never\n");
	assert_int_equal(f->cfg.errors, 4);
	assert_int_equal(f->cfg.n, 2);
	assert_string_equal(get(&f->cfg, "block", NULL, "scheduler"), "none");
	assert_string_equal(get(&f->cfg, "thp", NULL, "enabled"), "never");
	assert_int_equal(config_parse_text(&f->cfg, "[nope]\n", "second.conf"), 0);
	assert_int_equal(f->cfg.errors, 5);
}

/* config_print's output is configuration again: same effective values. */
static void test_print_round_trip(void **state)
{
	static const char *const keys[][3] = {
		{ "block", NULL, "scheduler" },     { "block", "virtual", "scheduler" },
		{ "block", "virtual", "match.class" }, { "block", "hdd", "read_ahead_kb" },
		{ "block", "vda", "nr_requests" },  { "thp", NULL, "enabled" },
		{ "thp", NULL, "defrag" },          { "net", NULL, "qdisc" },
	};
	struct fx *f = *state;
	struct config again = { 0 };
	char *out = NULL;
	size_t len = 0;
	FILE *mem;

	parse(f, "[block]\nscheduler = none\n[block \"vda\"]\n# why\nnr_requests = 64\n"
		 "[thp]\nenabled = never\ndefrag =\n");
	assert_int_equal(config_use_profile(&f->cfg, "vps"), 0);
	mem = open_memstream(&out, &len);
	assert_non_null(mem);
	config_print(&f->cfg, mem);
	assert_int_equal(fclose(mem), 0);
	keep(f, out);
	assert_contains(out, "# effective configuration, profile vps\n");
	assert_contains(out, "# test.conf:5: why\nnr_requests = 64\n");
	assert_not_contains(out, "defrag");
	assert_int_equal(config_parse_text(&again, out, "printed"), 0);
	assert_int_equal(again.errors, 0);
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const char *a = get(&f->cfg, keys[i][0], keys[i][1], keys[i][2]);
		const char *b = get(&again, keys[i][0], keys[i][1], keys[i][2]);

		if (!streq_ptr(a, b))
			fail_msg("[%s %s] %s: '%s' became '%s'", keys[i][0], keys[i][1] ? keys[i][1] : "",
				 keys[i][2], a ? a : "(unset)", b ? b : "(unset)");
	}
	config_free(&again);
}

/* ---- profiles --------------------------------------------------------------------- */

static void test_profile_vps(void **state)
{
	struct fx *f = *state;
	const char *text = profile_text("vps");

	assert_non_null(text);
	assert_string_equal(profile_text("none"), "");
	assert_null(profile_text("bogus"));
	assert_null(profile_text(""));
	assert_contains(profile_names(), "vps");
	assert_contains(profile_names(), "none");
	parse(f, text);
	assert_int_equal(f->cfg.errors, 0);
	assert_true(f->cfg.n >= 10);
	for (size_t i = 0; i < f->cfg.n; i++) {
		const struct cfg_entry *e = &f->cfg.v[i];

		if (strncmp(e->key, "match.", 6) && (!e->reason || !*e->reason))
			fail_msg("[%s %s] %s has no reason", e->section, e->name ? e->name : "", e->key);
	}
	assert_string_equal(get(&f->cfg, "thp", NULL, "enabled"), "madvise");
	assert_string_equal(get(&f->cfg, "block", "virtual", "match.class"), "virtual nvme");
	assert_string_equal(get(&f->cfg, "block", "virtual", "read_ahead_kb"), "128..1024");
}

static void test_use_profile(void **state)
{
	struct fx *f = *state;
	size_t n;

	parse(f, "[block]\nscheduler = kyber\n[thp]\nenabled = never\n");
	assert_int_equal(config_use_profile(&f->cfg, "bogus"), -ENOENT);
	assert_int_equal(f->cfg.n, 2);
	assert_null(f->cfg.profile);
	assert_int_equal(config_use_profile(&f->cfg, "vps"), 0);
	assert_string_equal(f->cfg.profile, "vps");
	n = profile_entries(&f->cfg, "vps");
	assert_true(n >= 10);
	assert_int_equal(f->cfg.n, n + 2);
	assert_string_equal(f->cfg.v[n].key, "scheduler");
	assert_string_equal(f->cfg.v[n].file, "test.conf");
	/* The file still wins over the profile it comes after. */
	assert_string_equal(get(&f->cfg, "thp", NULL, "enabled"), "never");
	assert_string_equal(keep(f, config_source(&f->cfg.v[0])), "profile vps");
	assert_string_equal(keep(f, config_source(&f->cfg.v[n])), "test.conf:2");

	config_free(&f->cfg);
	assert_int_equal(config_use_profile(&f->cfg, "none"), 0);
	assert_int_equal(f->cfg.n, 0);
	assert_string_equal(f->cfg.profile, "none");
}

/* ---- config_load: files, drop-ins, masking ------------------------------------------ */

/* One drop-in that sets nothing: the tests below are about other things than
 * the no-drop-in case (test_load_no_dropins). */
static void placeholder_dropin(struct fx *f)
{
	tree_write(f->dir, "usr/lib/earlytune.d/00-placeholder.conf", "# sets nothing\n");
}

static void test_load_main_file(void **state)
{
	struct fx *f = *state;
	const struct cfg_entry *e;
	size_t n;

	placeholder_dropin(f);
	tree_write(f->dir, "etc/earlytune.conf", "[block]\n# cap\nnr_requests = 64\n");
	load(f, NULL, NULL);
	assert_int_equal(f->cfg.errors, 0);
	assert_string_equal(f->cfg.profile, "vps");
	n = profile_entries(&f->cfg, "vps");
	assert_true(n >= 10);
	assert_int_equal(f->cfg.n, n + 1);
	e = config_get(&f->cfg, "block", NULL, "nr_requests");
	assert_non_null(e);
	assert_true(from_file(e, f->dir, "etc/earlytune.conf"));
	assert_int_equal(e->line, 3);
	assert_string_equal(e->reason, "cap");
}

static void test_load_nothing(void **state)
{
	struct fx *f = *state;

	placeholder_dropin(f);
	load(f, NULL, NULL);
	assert_int_equal(f->cfg.errors, 0);
	assert_string_equal(f->cfg.profile, "vps");
	assert_int_equal(profile_entries(&f->cfg, "vps"), f->cfg.n);
	assert_true(f->cfg.n > 0);
}

static int load_in_child(void *arg)
{
	struct fx *f = arg;

	if (root_open(&f->c.root, f->dir) < 0)
		return 1;
	if (config_load(&f->cfg, &f->c.root, NULL, NULL) < 0 || f->cfg.errors)
		return 2;
	return strcmp(f->cfg.profile, "vps") ? 4 : 0;
}

/*
 * Regression: load_dropins() passed NULL to qsort() (declared nonnull) when
 * no directory held a *.conf drop-in, the common case; the
 * -fsanitize=undefined build aborted. The child keeps an abort to this test.
 */
static void test_load_no_dropins(void **state)
{
	struct fx *f = *state;

	tree_write(f->dir, "etc/earlytune.conf", "[block]\nnr_requests = 64\n");
	assert_true(survives(load_in_child, f));
}

static void test_load_dropin_order(void **state)
{
	struct fx *f = *state;
	const struct cfg_entry *e;
	size_t n, i;

	tree_write(f->dir, "etc/earlytune.conf", "[block]\nnr_requests = 32\nrq_affinity = 0\n");
	tree_write(f->dir, "usr/lib/earlytune.d/50-vendor.conf", "[block]\nnr_requests = 50\n");
	tree_write(f->dir, "etc/earlytune.d/10-admin.conf", "[block]\nnr_requests = 10\nrq_affinity = 1\n");
	tree_write(f->dir, "run/earlytune.d/70-runtime.conf", "[block]\nadd_random = 0\n");
	tree_write(f->dir, "usr/lib/earlytune.d/05-early.conf", "[block]\nadd_random = 1\n");
	load(f, NULL, NULL);
	assert_int_equal(f->cfg.errors, 0);
	n = profile_entries(&f->cfg, "vps");
	/* earlytune.conf, then drop-ins by name whatever their directory. */
	static const char *const order[] = {
		"etc/earlytune.conf", "etc/earlytune.conf", "usr/lib/earlytune.d/05-early.conf",
		"etc/earlytune.d/10-admin.conf", "etc/earlytune.d/10-admin.conf",
		"usr/lib/earlytune.d/50-vendor.conf", "run/earlytune.d/70-runtime.conf",
	};
	assert_int_equal(f->cfg.n - n, ARRAY_SIZE(order));
	for (i = 0; i < ARRAY_SIZE(order); i++)
		if (!from_file(&f->cfg.v[n + i], f->dir, order[i]))
			fail_msg("entry %zu is from %s, expected %s", i, f->cfg.v[n + i].file, order[i]);
	e = config_get(&f->cfg, "block", NULL, "nr_requests");
	assert_string_equal(e->value, "50");
	assert_string_equal(get(&f->cfg, "block", NULL, "rq_affinity"), "1");
	assert_string_equal(get(&f->cfg, "block", NULL, "add_random"), "0");
}

static void test_load_masking(void **state)
{
	struct fx *f = *state;
	size_t n;

	/* /etc masks /run and /usr/lib; /run masks /usr/lib. */
	tree_write(f->dir, "etc/earlytune.d/20-same.conf", "[block]\nnr_requests = 20\n");
	tree_write(f->dir, "run/earlytune.d/20-same.conf", "[block]\nrq_affinity = 2\n");
	tree_write(f->dir, "usr/lib/earlytune.d/20-same.conf", "[block]\nadd_random = 1\n");
	tree_write(f->dir, "run/earlytune.d/30-run.conf", "[block]\nio_timeout = 30\n");
	tree_write(f->dir, "usr/lib/earlytune.d/30-run.conf", "[block]\nwbt_lat_usec = 7\n");
	/* An empty file or a /dev/null symlink masks entirely. */
	tree_write(f->dir, "etc/earlytune.d/40-empty.conf", "");
	tree_write(f->dir, "usr/lib/earlytune.d/40-empty.conf", "[thp]\nenabled = always\n");
	tree_symlink(f->dir, "etc/earlytune.d/50-null.conf", "/dev/null");
	tree_write(f->dir, "usr/lib/earlytune.d/50-null.conf", "[thp]\ndefrag = always\n");
	tree_symlink(f->dir, "run/earlytune.d/60-null.conf", "/dev/null");
	tree_write(f->dir, "usr/lib/earlytune.d/60-null.conf", "[thp]\nuse_zero_page = 0\n");
	/* Not drop-ins at all. */
	tree_write(f->dir, "etc/earlytune.d/70-x.conf.bak", "[bogus]\n");
	tree_write(f->dir, "etc/earlytune.d/.hidden.conf", "[bogus]\n");
	tree_write(f->dir, "etc/earlytune.d/README", "[bogus]\n");
	tree_write(f->dir, "etc/earlytune.d/.conf", "[bogus]\n");
	load(f, NULL, NULL);
	assert_int_equal(f->cfg.errors, 0);
	n = profile_entries(&f->cfg, "vps");
	assert_int_equal(f->cfg.n - n, 2);
	assert_true(from_file(config_get(&f->cfg, "block", NULL, "nr_requests"), f->dir,
			      "etc/earlytune.d/20-same.conf"));
	assert_true(from_file(config_get(&f->cfg, "block", NULL, "io_timeout"), f->dir,
			      "run/earlytune.d/30-run.conf"));
	assert_null(config_get(&f->cfg, "block", NULL, "rq_affinity"));
	assert_null(config_get(&f->cfg, "block", NULL, "add_random"));
	assert_null(config_get(&f->cfg, "block", NULL, "wbt_lat_usec"));
	assert_null(config_get(&f->cfg, "thp", NULL, "use_zero_page"));
	/* The profile's values stay: the masked files never set them. */
	assert_string_equal(get(&f->cfg, "thp", NULL, "enabled"), "madvise");
	assert_string_equal(get(&f->cfg, "thp", NULL, "defrag"), "defer+madvise");
}

static void test_load_config_file_only(void **state)
{
	struct fx *f = *state;
	char path[PATH_MAX];
	size_t n;

	tree_write(f->dir, "etc/earlytune.conf", "[main]\nprofile = none\n[block]\nnr_requests = 8\n");
	tree_write(f->dir, "etc/earlytune.d/10-a.conf", "[block]\nrq_affinity = 1\n");
	tree_write(f->dir, "usr/lib/earlytune.d/10-b.conf", "[block]\nadd_random = 1\n");
	tree_write(f->dir, "other.conf", "[block]\nio_timeout = 9\n");
	tree_path(path, sizeof(path), f->dir, "other.conf");
	load(f, path, NULL);
	assert_int_equal(f->cfg.errors, 0);
	assert_string_equal(f->cfg.profile, "vps");
	n = profile_entries(&f->cfg, "vps");
	assert_true(n >= 10);
	assert_int_equal(f->cfg.n, n + 1);
	assert_string_equal(f->cfg.v[n].file, path);
	assert_string_equal(get(&f->cfg, "block", NULL, "io_timeout"), "9");
	assert_null(config_get(&f->cfg, "block", NULL, "nr_requests"));
	assert_null(config_get(&f->cfg, "block", NULL, "rq_affinity"));
	assert_null(config_get(&f->cfg, "block", NULL, "add_random"));
}

static void test_load_config_file_missing(void **state)
{
	struct fx *f = *state;
	char path[PATH_MAX];

	tree_path(path, sizeof(path), f->dir, "does-not-exist.conf");
	load(f, path, NULL);
	assert_int_equal(f->cfg.errors, 1);
	assert_contains(f->text, "does-not-exist.conf");
}

static void test_load_profile_none(void **state)
{
	struct fx *f = *state;

	tree_write(f->dir, "etc/earlytune.conf", "[main]\nprofile = none\n");
	tree_write(f->dir, "etc/earlytune.d/10-a.conf", "[block]\nrq_affinity = 1\n");
	load(f, NULL, NULL);
	assert_int_equal(f->cfg.errors, 0);
	assert_string_equal(f->cfg.profile, "none");
	assert_int_equal(f->cfg.n, 2);
	assert_int_equal(profile_entries(&f->cfg, "vps"), 0);
	assert_null(config_get(&f->cfg, "thp", NULL, "enabled"));
	assert_null(config_get(&f->cfg, "block", "virtual", "scheduler"));
	assert_string_equal(get(&f->cfg, "block", NULL, "rq_affinity"), "1");
}

static void test_load_profile_override(void **state)
{
	struct fx *f = *state;

	placeholder_dropin(f);
	tree_write(f->dir, "etc/earlytune.conf", "[main]\nprofile = none\n");
	load(f, NULL, "vps");
	assert_string_equal(f->cfg.profile, "vps");
	assert_true(profile_entries(&f->cfg, "vps") >= 10);
	config_free(&f->cfg);
	root_close(&f->c.root);
	tree_write(f->dir, "etc/earlytune.conf", "[main]\nprofile = vps\n");
	load(f, NULL, "none");
	assert_string_equal(f->cfg.profile, "none");
	assert_int_equal(f->cfg.n, 1);
	/* A later "profile =" unsets the choice: back to the default. */
	config_free(&f->cfg);
	root_close(&f->c.root);
	tree_write(f->dir, "etc/earlytune.conf", "[main]\nprofile = none\n");
	tree_write(f->dir, "run/earlytune.d/99-reset.conf", "[main]\nprofile =\n");
	load(f, NULL, NULL);
	assert_string_equal(f->cfg.profile, "vps");
}

static void test_load_bad_files(void **state)
{
	struct fx *f = *state;
	char path[PATH_MAX];
	int fd;

	tree_write(f->dir, "etc/earlytune.conf", "[main]\nprofile = bogus\n");
	tree_write(f->dir, "etc/earlytune.d/10-bad.conf", "[block]\nscheduler = cfk\n");
	tree_write(f->dir, "etc/earlytune.d/20-good.conf", "[block]\nscheduler = bfq\n");
	tree_write(f->dir, "etc/earlytune.d/30-nul.conf", "[block]\nnr_requests = 64\n");
	tree_path(path, sizeof(path), f->dir, "etc/earlytune.d/30-nul.conf");
	fd = open(path, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "\0x\n", 3), 3);
	close(fd);
	load(f, NULL, NULL);
	assert_int_equal(f->cfg.errors, 3);
	assert_contains(f->text, "unknown profile 'bogus'");
	assert_contains(f->text, "unknown scheduler 'cfk'");
	assert_contains(f->text, "NUL byte");
	assert_contains(f->text, "10-bad.conf:2");
	/* An unknown profile falls back to the default one. */
	assert_string_equal(f->cfg.profile, "vps");
	assert_string_equal(get(&f->cfg, "block", NULL, "scheduler"), "bfq");
	assert_null(config_get(&f->cfg, "block", NULL, "nr_requests"));
}

/* Issue 8 defect 10: a drop-in that cannot be read (a directory, a dangling
 * symlink, a FIFO that must not hang, a directory that cannot be listed) is
 * skipped and named; every readable drop-in still loads. */
static void test_load_unreadable_dropins(void **state)
{
	struct fx *f = *state;
	char path[PATH_MAX];

	tree_write(f->dir, "etc/earlytune.d/10-good.conf", "[block]\nnr_requests = 10\n");
	tree_mkdir(f->dir, "etc/earlytune.d/20-dir.conf");
	tree_symlink(f->dir, "etc/earlytune.d/30-dangling.conf", "/nonexistent/x.conf");
	tree_path(path, sizeof(path), f->dir, "etc/earlytune.d/40-fifo.conf");
	assert_int_equal(mkfifo(path, 0644), 0);
	tree_write(f->dir, "etc/earlytune.d/50-good.conf", "[block]\nrq_affinity = 2\n");
	tree_write(f->dir, "run/earlytune.d", "not a directory\n");
	tree_write(f->dir, "usr/lib/earlytune.d/60-good.conf", "[block]\nadd_random = 1\n");
	load(f, NULL, NULL);
	assert_int_equal(f->cfg.errors, 4);
	assert_int_equal(f->cfg.skipped, 4);
	assert_contains(f->text, "20-dir.conf: not a regular file; skipping this file");
	assert_contains(f->text, "30-dangling.conf: cannot open: No such file or directory");
	assert_contains(f->text, "40-fifo.conf: not a regular file");
	assert_contains(f->text, "run/earlytune.d: cannot list: Not a directory");
	assert_string_equal(get(&f->cfg, "block", NULL, "nr_requests"), "10");
	assert_string_equal(get(&f->cfg, "block", NULL, "rq_affinity"), "2");
	assert_string_equal(get(&f->cfg, "block", NULL, "add_random"), "1");
}

/* Issue 8 defect 10: /etc/earlytune.conf that cannot be read is not absent. */
static void test_load_main_file_unreadable(void **state)
{
	struct fx *f = *state;

	tree_mkdir(f->dir, "etc/earlytune.conf");
	tree_write(f->dir, "etc/earlytune.d/10-good.conf", "[block]\nnr_requests = 10\n");
	load(f, NULL, NULL);
	assert_int_equal(f->cfg.errors, 1);
	assert_contains(f->text, "etc/earlytune.conf: not a regular file");
	assert_string_equal(get(&f->cfg, "block", NULL, "nr_requests"), "10");
}

static void test_load_too_large(void **state)
{
	struct fx *f = *state;
	size_t n = (1 << 20) + 4096;
	char *big = malloc(n + 1);

	assert_non_null(big);
	memset(big, '#', n);
	big[n] = '\0';
	for (size_t i = 80; i < n; i += 81)
		big[i] = '\n';
	memcpy(big, "[block]\nnr_requests = 64\n", strlen("[block]\nnr_requests = 64\n"));
	tree_write(f->dir, "etc/earlytune.d/10-big.conf", big);
	free(big);
	tree_write(f->dir, "etc/earlytune.d/20-small.conf", "[block]\nrq_affinity = 1\n");
	load(f, NULL, NULL);
	assert_int_equal(f->cfg.errors, 1);
	assert_contains(f->text, "10-big.conf: larger than 1 MiB");
	assert_null(config_get(&f->cfg, "block", NULL, "nr_requests"));
	assert_string_equal(get(&f->cfg, "block", NULL, "rq_affinity"), "1");
}

static void test_load_symlink_stays_in_root(void **state)
{
	struct fx *f = *state;

	/* An absolute link of a captured tree resolves inside the tree. */
	tree_write(f->dir, "usr/share/earlytune/shared.conf", "[block]\nnr_requests = 77\n");
	tree_symlink(f->dir, "etc/earlytune.d/10-link.conf", "/usr/share/earlytune/shared.conf");
	load(f, NULL, NULL);
	assert_int_equal(f->cfg.errors, 0);
	assert_string_equal(get(&f->cfg, "block", NULL, "nr_requests"), "77");
}

/* ---- issue 11: inline comments, quotes, BOM, non-ASCII, did you mean ------------ */

static void test_inline_comments(void **state)
{
	struct fx *f = *state;

	parse(f, "[thp]   # huge pages\n"
		 "enabled = madvise            # huge pages only where asked\n"
		 "# above\n"
		 "defrag = never ; not the reason\n"
		 "shmem_enabled = never;x\n"
		 "use_zero_page = # unset, with a comment\n"
		 "[block \"a#b\"]  ; named\n"
		 "match.model = \"ACME #7; \\\"x\\\" a\\\\b\"  # quoted\n"
		 "match.name = \"\"\n");
	assert_int_equal(f->cfg.errors, 1); /* the glued ';' */
	assert_contains(f->text, "test.conf:5: value of 'shmem_enabled': ';' inside a value");
	assert_string_equal(get(&f->cfg, "thp", NULL, "enabled"), "madvise");
	assert_string_equal(config_get(&f->cfg, "thp", NULL, "enabled")->reason, "huge pages only where asked");
	assert_string_equal(config_get(&f->cfg, "thp", NULL, "defrag")->reason, "above");
	assert_null(config_get(&f->cfg, "thp", NULL, "use_zero_page"));
	assert_string_equal(get(&f->cfg, "block", "a#b", "match.model"), "ACME #7; \"x\" a\\b");
	assert_null(config_get(&f->cfg, "block", "a#b", "match.name"));
}

static void test_quote_errors(void **state)
{
	struct fx *f = *state;

	expect_rejected(f, "[block \"x\"]\nmatch.model = \"ACME\n", 1, ":2: value of 'match.model': unterminated quote");
	expect_rejected(f, "[block \"x\"]\nmatch.model = \"a\\\"\n", 1, "unterminated quote");
	expect_rejected(f, "[block \"x\"]\nmatch.model = \"a\" b\n", 1, "'b' after the closing quote");
	expect_rejected(f, "[block \"x\"]\nmatch.model = \"a\\tb\"\n", 1, "unknown escape '\\t'");
	expect_rejected(f, "[block]\nscheduler = none#x\n", 1, "'#' inside a value: write the value in double quotes");
	/* Quotes not at the start are the value's own: the check decides. */
	expect_rejected(f, "[cmdline]\nadd = ok=1 \"bad\"\n", 1, "is not a kernel parameter");
}

static void test_bom(void **state)
{
	struct fx *f = *state;

	parse(f, "\xef\xbb\xbf[thp]\nenabled = never\n");
	assert_int_equal(f->cfg.errors, 0);
	assert_string_equal(get(&f->cfg, "thp", NULL, "enabled"), "never");
	expect_rejected(f, "[thp]\n\xef\xbb\xbf" "enabled = never\n", 1,
			"malformed key '\xef\xbb\xbf" "enabled': '\xef\xbb\xbf' is U+FEFF");
}

static void test_non_ascii_named(void **state)
{
	struct fx *f = *state;

	expect_rejected(f, "[block]\nwbt_lat_usec = \xe2\x88\x92" "1\n", 1,
			":2: [block] wbt_lat_usec = '\xe2\x88\x92" "1': '\xe2\x88\x92' is U+2212 MINUS SIGN, not ASCII: write '-'");
	expect_rejected(f, "[block]\nread_ahead_kb = 128\xe2\x80\xa6" "1024\n", 1, "U+2026 HORIZONTAL ELLIPSIS, not ASCII: write '..'");
	expect_rejected(f, "[thp]\nenabled = n\xc3\xa9ver\n", 1, "'\xc3\xa9' is U+00E9, not ASCII");
	expect_rejected(f, "[thp]\nenabled = \xff\n", 1, "byte 0xff is not UTF-8 text");
	/* A value its check accepts keeps its non-ASCII. */
	parse(f, "[block \"x\"]\nmatch.model = Caf\xc3\xa9\n");
	assert_int_equal(f->cfg.errors, 0);
}

static void test_did_you_mean(void **state)
{
	struct fx *f = *state;
	char best[64];

	expect_rejected(f, "[blok]\n", 1, "unknown section [blok]; did you mean [block]? allowed: [main]");
	expect_rejected(f, "[NET]\n", 1, "did you mean [net]?");
	expect_rejected(f, "[bogus]\n", 1, "unknown section [bogus]; allowed: [main]");
	expect_rejected(f, "[block]\nshceduler = none\n", 1, "did you mean 'scheduler'?");
	expect_rejected(f, "[thp]\nkhugepaged.defarg = 1\n", 1, "did you mean 'khugepaged.defrag'?");
	expect_rejected(f, "[main]\nprofile = vsp\n", 1, "did you mean 'vps'?");
	expect_rejected(f, "[net]\nforce = yse\n", 1, "did you mean 'yes'?");
	expect_rejected(f, "[modules]\nlaod = x\n", 1, "did you mean 'load'?");
	expect_rejected(f, "[block]\nmatch.clas = ssd\n", 1, "did you mean 'class'?");
	expect_rejected(f, "[cmdline]\nad = x\n", 1, "did you mean 'add'?");
	/* Only when close. */
	assert_false(cfg_closest("colour", "congestion_control qdisc interfaces force", best, sizeof(best)));
	assert_false(cfg_closest("xyz", "fq", best, sizeof(best)));
	assert_true(cfg_closest("fq_codle", "fq fq_codel fq_pie", best, sizeof(best)));
	assert_string_equal(best, "fq_codel");
}

/* The lists of keys the messages print are the tables' own rows. */
static void test_cfg_names(void **state)
{
	static const struct { const char *name; int n; } rows[] = { { "a", 1 }, { "bb", 2 }, { NULL, 0 }, { "c", 3 } };
	static const char *const words[] = { "x", "y" };
	char buf[32], tiny[5];

	(void)state;
	assert_string_equal(CFG_NAMES(rows, "", buf), "a bb");
	assert_string_equal(CFG_NAMES(rows, "k.", buf), "k.a k.bb");
	assert_string_equal(CFG_NAMES(words, "", buf), "x y");
	assert_string_equal(cfg_names(words, 0, sizeof(words[0]), "", buf, sizeof(buf)), "");
	/* Truncated, terminated, nothing written past the buffer. */
	assert_string_equal(CFG_NAMES(rows, "k.", tiny), "k.a ");
}

static void test_net_names_and_globs(void **state)
{
	struct fx *f = *state;

	expect_rejected(f, "[net]\ncongestion_control = bbr2\n", 1, "'bbr2' is not a congestion control of Linux; did you mean 'bbr'?");
	expect_rejected(f, "[net]\nqdisc = cak\n", 1, "'cak' is not a qdisc of Linux; did you mean 'cake'?");
	expect_rejected(f, "[net]\nqdisc = htb\n", 1, "needs parameters or classes");
	expect_rejected(f, "[net]\ninterfaces = eth[\n", 1, "'eth[': '[' opens a character class that no ']' closes");
	expect_rejected(f, "[net]\ninterfaces = !\n", 1, "an empty glob");
	expect_rejected(f, "[net]\ninterfaces = eth\\\n", 1, "cannot end in '\\'");
	expect_rejected(f, "[block \"x\"]\nmatch.driver = nvme[\n", 1, "match.driver 'nvme['");
	parse(f, "[net]\ncongestion_control = cubic\nqdisc = cake\ninterfaces = eth[0-9] en[!x]* []]x !veth*\n");
	assert_int_equal(f->cfg.errors, 0);
}

/* qdisc.PARAM against the kind in force once everything is read, on the
 * parameter's own line; the rejected entry is dropped. */
static void test_qdisc_params_checked(void **state)
{
	struct fx *f = *state;
	struct capture cap;

	parse(f, "[net]\nqdisc.limit = 1000\nqdisc.flow_limit = 200\nqdisc = fq_codel\n");
	assert_int_equal(f->cfg.errors, 0);
	assert_int_equal(config_parse_text(&f->cfg, "[net]\nqdisc.interval = 5ms\n", "b.conf"), 0);
	capture_begin(&cap);
	config_check(&f->cfg);
	free(f->text);
	f->text = capture_end(&cap);
	assert_int_equal(f->cfg.errors, 1);
	assert_contains(f->text, "test.conf:3: qdisc fq_codel (test.conf:4) has no parameter 'flow_limit'");
	assert_null(config_get(&f->cfg, "net", NULL, "qdisc.flow_limit"));
	assert_string_equal(get(&f->cfg, "net", NULL, "qdisc.limit"), "1000");
	assert_string_equal(get(&f->cfg, "net", NULL, "qdisc.interval"), "5ms");

	/* 0 is a pfifo limit, not an fq one: the kind decides. */
	parse(f, "[net]\nqdisc.limit = 0\nqdisc = fq\n");
	capture_begin(&cap);
	config_check(&f->cfg);
	free(f->text);
	f->text = capture_end(&cap);
	assert_contains(f->text, "test.conf:2: qdisc.limit = '0': expected a whole number from 1");
	assert_int_equal(f->cfg.n, 1);
}

static const struct CMUnitTest tests[] = {
	FX_TEST(test_sections),
	FX_TEST(test_reasons),
	FX_TEST(test_values_folded),
	FX_TEST(test_unset_and_override),
	FX_TEST(test_bad_sections),
	FX_TEST(test_domain_sections),
	FX_TEST(test_bad_keys),
	FX_TEST(test_legacy_schedulers),
	FX_TEST(test_out_of_range),
	FX_TEST(test_control_characters),
	FX_TEST(test_errors_accumulate),
	FX_TEST(test_print_round_trip),
	FX_TEST(test_profile_vps),
	FX_TEST(test_use_profile),
	FX_TEST(test_load_main_file),
	FX_TEST(test_load_nothing),
	FX_TEST(test_load_no_dropins),
	FX_TEST(test_load_dropin_order),
	FX_TEST(test_load_masking),
	FX_TEST(test_load_config_file_only),
	FX_TEST(test_load_config_file_missing),
	FX_TEST(test_load_profile_none),
	FX_TEST(test_load_profile_override),
	FX_TEST(test_load_bad_files),
	FX_TEST(test_load_too_large),
	FX_TEST(test_load_unreadable_dropins),
	FX_TEST(test_load_main_file_unreadable),
	FX_TEST(test_load_symlink_stays_in_root),
	FX_TEST(test_inline_comments),
	FX_TEST(test_quote_errors),
	FX_TEST(test_bom),
	FX_TEST(test_non_ascii_named),
	FX_TEST(test_did_you_mean),
	cmocka_unit_test(test_cfg_names),
	FX_TEST(test_net_names_and_globs),
	FX_TEST(test_qdisc_params_checked),
};

UNIT_MAIN("config", tests)
