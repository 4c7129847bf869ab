// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The configuration reader, config_parse_text(). Properties: every entry has
 * the fields struct cfg_entry promises (section, key and value non-NULL, a
 * known section, a valid key, no control character in a value, a line inside
 * the text, the file it came from); and config_print()'s output, which says
 * it parses again, does: without errors and with the same effective values.
 * After the checks across entries (config_check), every path a [sysfs]
 * section keeps is below /sys, with no empty, "." or ".." component, and
 * the device directory found in it lies inside it.
 */
#include <ctype.h>

#include "fuzz.h"
#include "sysfs/internal.h"

static const char *const sections[] = { "main", "block", "thp", "modules", "net", "cmdline", "limits", "sched", "sysfs" };

static void check_entry(const struct cfg_entry *e, const char *source, int lines)
{
	bool known = false;

	fuzz_assert(e->section && e->key && e->value, "entry with a NULL section, key or value");
	for (size_t i = 0; i < ARRAY_SIZE(sections); i++)
		known |= !strcmp(e->section, sections[i]);
	fuzz_assert(known, "entry in unknown section '%s'", e->section);
	fuzz_assert(!e->name || !strcmp(e->section, "block") || !strcmp(e->section, "cmdline") ||
			    !strcmp(e->section, "limits") || !strcmp(e->section, "sysfs"),
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

static void check_sysfs_path(const char *path, size_t n)
{
	char rel[PATH_MAX];
	struct sysfs_dev d;

	fuzz_assert(n > 5 && !strncmp(path, "/sys/", 5), "[sysfs] path '%.*s' not below /sys", (int)n, path);
	for (size_t i = 1; i < n; i++)
		if (path[i - 1] == '/')
			fuzz_assert(path[i] != '/' && !(path[i] == '.' && (i + 1 == n || path[i + 1] == '/' ||
								    (path[i + 1] == '.' && (i + 2 == n || path[i + 2] == '/')))),
				    "[sysfs] path '%.*s' has an empty, '.' or '..' component", (int)n, path);
	fuzz_assert(path[n - 1] != '/', "[sysfs] path '%.*s' ends in '/'", (int)n, path);
	snprintf(rel, sizeof(rel), "%.*s", (int)n - 1, path + 1);
	if (sysfs_device_path(rel, &d))
		fuzz_assert(d.len && d.at + d.len < strlen(rel) && rel[d.at + d.len] == '/',
			    "device name at %zu+%zu outside '%s'", d.at, d.len, rel);
}

/* The [sysfs] paths that survive the checks across entries. */
static void check_sysfs(struct config *c)
{
	config_check(c);
	for (size_t i = 0; i < c->n; i++) {
		const char *p = c->v[i].value;

		if (strcmp(c->v[i].section, "sysfs") || strcmp(c->v[i].key, "path"))
			continue;
		fuzz_assert(c->v[i].name, "[sysfs] kept without a name");
		while (*(p += strspn(p, " \t"))) {
			size_t n = strcspn(p, " \t");

			check_sysfs_path(p, n);
			p += n;
		}
	}
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
	if (r >= 0)
		check_sysfs(&c);
	config_free(&c);
	free(text);
	return 0;
}
