// SPDX-License-Identifier: LGPL-2.1-or-later
/* table.c: the bytes of the item table, and what they cost: a table of
 * 1,000 disks wraps over 100,000 words, so the wrapping copies them and
 * formats nothing per word or per row. */
#include <dlfcn.h>

#include "unit.h"
#include "engine/internal.h"

/* Every vsnprintf and vasprintf of the objects under test comes here (the
 * test binary's own definitions win the link) and is counted: sb_printf
 * and xasprintf format through them. */
static unsigned formatted;

int vsnprintf(char *s, size_t n, const char *fmt, va_list ap)
{
	static int (*real)(char *, size_t, const char *, va_list);

	if (!real)
		real = (int (*)(char *, size_t, const char *, va_list))dlsym(RTLD_NEXT, "vsnprintf");
	formatted++;
	return real(s, n, fmt, ap);
}

int vasprintf(char **s, const char *fmt, va_list ap)
{
	static int (*real)(char **, const char *, va_list);

	if (!real)
		real = (int (*)(char **, const char *, va_list))dlsym(RTLD_NEXT, "vasprintf");
	formatted++;
	return real(s, fmt, ap);
}

/* print_table's output, in a string the caller frees. */
static char *table_text(const struct plan *p, bool results, int columns)
{
	char path[] = "/tmp/earlytune-table.XXXXXX";
	int fd = mkstemp(path), saved = dup(STDOUT_FILENO);
	char *text = calloc(1, 1 << 20);
	ssize_t n;

	assert_true(fd >= 0 && saved >= 0 && text);
	unlink(path);
	fflush(stdout);
	dup2(fd, STDOUT_FILENO);
	print_table(p, results, columns, false);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	n = pread(fd, text, (1 << 20) - 1, 0);
	close(fd);
	assert_true(n >= 0);
	return text;
}

static struct item *add(struct plan *p, const char *target, const char *setting, const char *cur, const char *want)
{
	struct item *it = plan_add(p, "block", target, setting, "sys/block/x");

	assert_non_null(it);
	item_set(&it->current, cur);
	item_set(&it->desired, want);
	return it;
}

static void small_plan(struct plan *p)
{
	struct item *it = add(p, "vda", "queue/scheduler", "[mq-deadline] none", "none");

	item_set(&it->reason, "virtual  disk: the host   schedules; "
			      "a-word-longer-than-any-line-of-the-table-is-split-where-the-line-ends-and-goes-on "
			      "below");
	item_set(&it->source, "profile vps");
	it = add(p, "a-target-name-far-too-long-for-its-cell", "queue/read_ahead_kb", "8192", "1024");
	it->action = ACT_CHANGE;
	item_set(&it->error, "write failed: Invalid argument");
	it->writers = calloc(1, sizeof(*it->writers));
	assert_non_null(it->writers);
	it->nwriters = 1;
	it->writers[0] = (struct writer){ .file = strdup("/etc/udev/rules.d/60-io.rules"), .line = 3,
					  .tool = "udev", .what = strdup("ATTR{queue/read_ahead_kb}=\"4096\""),
					  .why = strdup("it runs later") };
	add(p, "vdb", "queue/nr_requests", "256", "256");
}

static void test_table_bytes(void **state)
{
	struct plan p = { 0 };
	char *text;

	small_plan(&p);
	text = table_text(&p, false, 60);
	assert_string_equal(text,
			    "DOMAIN TARGET       SETTING      CURRENT      DESIRED ACTION\n"
			    "block  vda          queue/sched~ [mq-deadlin~ none    keep\n"
			    "       virtual disk: the host schedules;\n"
			    "       a-word-longer-than-any-line-of-the-table-is-split-whe\n"
			    "       re-the-line-ends-and-goes-on below [profile vps]\n"
			    "block  a-target-na~ queue/read_~ 8192         1024    change\n"
			    "       error: write failed: Invalid argument\n"
			    "       also written by /etc/udev/rules.d/60-io.rules:3\n"
			    "       ATTR{queue/read_ahead_kb}=\"4096\" (udev, it runs\n"
			    "       later)\n"
			    "block  vdb          queue/nr_re~ 256          256     keep\n");
	free(text);
	text = table_text(&p, true, 0);
	assert_string_equal(
		text,
		"DOMAIN TARGET                                  SETTING             CURRENT            DESIRED ACTION RESULT REASON\n"
		"block  vda                                     queue/scheduler     [mq-deadline] none none    keep   -      "
		"virtual  disk: the host   schedules; "
		"a-word-longer-than-any-line-of-the-table-is-split-where-the-line-ends-and-goes-on below [profile vps]\n"
		"block  a-target-name-far-too-long-for-its-cell queue/read_ahead_kb 8192               1024    change -      "
		"error: write failed: Invalid argument\n"
		"       also written by /etc/udev/rules.d/60-io.rules:3 ATTR{queue/read_ahead_kb}=\"4096\" (udev, it runs "
		"later)\n"
		"block  vdb                                     queue/nr_requests   256                256     keep   -\n");
	free(text);
	plan_free(&p);
}

/* 500 items of 40-word reasons: no formatted print per word, per line or
 * per row (a writer's line is the one formatted there is). */
static void test_table_copies(void **state)
{
	struct plan p = { 0 };
	char reason[400] = "", *text;
	unsigned before;

	for (int w = 0; w < 40; w++)
		strcat(reason, w ? " word" : "ssd");
	for (int i = 0; i < 500; i++) {
		char name[16];
		struct item *it;

		snprintf(name, sizeof(name), "vd%d", i);
		it = add(&p, name, "queue/read_ahead_kb", "8192", "1024");
		item_set(&it->reason, reason);
		item_set(&it->source, "profile vps");
	}
	before = formatted;
	text = table_text(&p, false, 80);
	assert_int_equal(formatted - before, 0);
	assert_non_null(strstr(text, "\nblock  vd499  queue/read_ahead_kb 8192    1024    keep\n"
				     "       ssd word word word word word word word word word word word word word word\n"));
	free(text);
	plan_free(&p);
}

/* Notes repeat from disk to disk (the table copies the lines of one it
 * wrapped lately): each item's lines are those of a table of that item
 * alone, whatever came before: notes of one length that differ, notes that
 * come back after others pushed them out. */
static void test_table_repeated_notes(void **state)
{
	static const char *const notes[] = {
		"virtual disk: cap at 1024 because random reads fell by seven times",
		"virtual disk: cap at 1024 because random reads fell by seven timez",
		"virtual disk: none costs the least CPU",
		"rotational disk: bfq keeps the desktop responsive under load",
		"a bio-based queue has no scheduler",
		"virtual disk: none costs the least CPU and nothing else here",
		"ssd",
	};
	struct plan p = { 0 };
	struct strbuf want = { 0 };
	char *text;

	for (int i = 0; i < 300; i++) {
		char name[16];
		int k = i < 140 ? i % 7 : i < 200 ? i % 2 : i < 260 ? (i / 3) % 7 : (i * 5) % 7;
		struct plan one = { 0 };
		struct item *it;
		char *alone, *body;

		snprintf(name, sizeof(name), "vd%03d", i);
		it = add(&p, name, "queue/read_ahead_kb", "8192", "1024");
		item_set(&it->reason, notes[k]);
		it = add(&one, name, "queue/read_ahead_kb", "8192", "1024");
		item_set(&it->reason, notes[k]);
		alone = table_text(&one, false, 50);
		body = i ? strchr(alone, '\n') + 1 : alone; /* the header once */
		sb_put(&want, body, strlen(body));
		free(alone);
		plan_free(&one);
	}
	text = table_text(&p, false, 50);
	assert_string_equal(text, want.s);
	free(text);
	sb_free(&want);
	plan_free(&p);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_table_bytes),
	cmocka_unit_test(test_table_copies),
	cmocka_unit_test(test_table_repeated_notes),
};

UNIT_MAIN("table", tests)
