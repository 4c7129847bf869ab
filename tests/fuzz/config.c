// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The configuration reader, config_parse_text(). Properties: every entry has
 * the fields struct cfg_entry promises (section, key and value non-NULL, a
 * known section, a valid key, no control character in a value, a line inside
 * the text, the file it came from); and config_print()'s output, which says
 * it parses again, does: without errors and with the same effective values.
 */
#include <ctype.h>

#include "fuzz.h"

static const char *const sections[] = { "main", "block", "thp", "modules", "net", "cmdline", "limits", "sched" };

static void check_entry(const struct cfg_entry *e, const char *source, int lines)
{
	bool known = false;

	fuzz_assert(e->section && e->key && e->value, "entry with a NULL section, key or value");
	for (size_t i = 0; i < ARRAY_SIZE(sections); i++)
		known |= !strcmp(e->section, sections[i]);
	fuzz_assert(known, "entry in unknown section '%s'", e->section);
	fuzz_assert(!e->name || !strcmp(e->section, "block") || !strcmp(e->section, "cmdline") ||
			    !strcmp(e->section, "limits"),
		    "section [%s] with a name", e->section);
	fuzz_assert(e->file == source, "entry names file '%s', not the source", e->file);
	fuzz_assert(e->line >= 1 && e->line <= lines, "entry on line %d of %d", e->line, lines);
	fuzz_assert(*e->key, "empty key");
	for (const char *p = e->key; *p; p++)
		fuzz_assert(isalnum((unsigned char)*p) || strchr("._-", *p), "key '%s'", e->key);
	for (const char *p = e->value; *p; p++)
		fuzz_assert(!iscntrl((unsigned char)*p), "control character in value of '%s'", e->key);
	fuzz_assert(!e->reason || (*e->reason && !strchr(e->reason, '\n')), "reason '%s'",
		    e->reason);
}

/* The printed configuration, parsed again, has the same effective values. */
static void check_reparse(const struct config *c)
{
	struct config again = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		abort();
	config_print(c, f);
	if (fclose(f))
		abort();
	fuzz_assert(config_parse_text(&again, text, "printed") >= 0, "printed text fails to parse");
	fuzz_assert(again.errors == 0, "%d errors in the printed configuration:\n%s", again.errors, text);
	for (size_t i = 0; i < c->n; i++) {
		const struct cfg_entry *e = &c->v[i];
		const struct cfg_entry *x = config_get(c, e->section, e->name, e->key);
		const struct cfg_entry *y = config_get(&again, e->section, e->name, e->key);

		fuzz_assert(!x == !y && (!x || !strcmp(x->value, y->value)),
			    "[%s] %s: '%s' before printing, '%s' after:\n%s", e->section, e->key,
			    x ? x->value : "(unset)", y ? y->value : "(unset)", text);
	}
	config_free(&again);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char source[] = "fuzz.conf";
	struct config c = { 0 };
	char *text = fuzz_cstr(data, size);
	int lines = 1, r;

	for (const char *p = text; *p; p++)
		lines += *p == '\n';
	r = config_parse_text(&c, text, source);
	fuzz_assert(r >= 0 || r == -ENOMEM, "config_parse_text returned %d", r);
	for (size_t i = 0; i < c.n; i++)
		check_entry(&c.v[i], source, lines);
	if (r >= 0)
		check_reparse(&c);
	config_free(&c);
	free(text);
	return 0;
}
