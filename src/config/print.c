// SPDX-License-Identifier: LGPL-2.1-or-later
/* The merged configuration printed in its own syntax (the `config`
 * command): each key under a comment naming where it came from. */
#include <stdlib.h>
#include <string.h>

#include "config/config.h"

static bool same_section(const struct cfg_entry *a, const struct cfg_entry *b)
{
	return !strcmp(a->section, b->section) && streq_ptr(a->name, b->name);
}

static bool first_of_section(const struct config *c, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (same_section(&c->v[j], &c->v[i]))
			return false;
	return true;
}

/* Quoted where the value would not read back unquoted. */
static void print_value(const char *v, FILE *out)
{
	if (!strpbrk(v, "#;") && *v != '"') {
		fprintf(out, "%s\n", v);
		return;
	}
	fputc('"', out);
	for (; *v; v++)
		fprintf(out, "%s%c", *v == '"' || *v == '\\' ? "\\" : "", *v);
	fputs("\"\n", out);
}

static void print_section(const struct config *c, size_t first, FILE *out)
{
	const struct cfg_entry *s = &c->v[first];

	if (s->name)
		fprintf(out, "[%s \"%s\"]\n", s->section, s->name);
	else
		fprintf(out, "[%s]\n", s->section);
	for (size_t i = first; i < c->n; i++) {
		const struct cfg_entry *e = &c->v[i], *eff;
		bool dup = false;

		if (!same_section(e, s))
			continue;
		for (size_t j = first; j < i && !dup; j++)
			dup = same_section(&c->v[j], s) && !strcmp(c->v[j].key, e->key);
		eff = dup ? NULL : config_get(c, e->section, e->name, e->key);
		if (!eff)
			continue;
		_cleanup_(freep) char *src = config_source(eff);
		fprintf(out, "# %s%s%s\n%s = ", src ? src : eff->file, eff->reason ? ": " : "",
			eff->reason ? eff->reason : "", eff->key);
		print_value(eff->value, out);
	}
}

/* Prints the merged configuration in its own syntax, each key under a comment
 * naming where it came from (and its reason), so the output parses again. */
void config_print(const struct config *c, FILE *out)
{
	bool firstsec = true;

	fprintf(out, "# effective configuration, profile %s\n", c->profile ? c->profile : "none");
	for (size_t i = 0; i < c->n; i++) {
		if (!first_of_section(c, i))
			continue;
		if (!firstsec)
			fputc('\n', out);
		firstsec = false;
		print_section(c, i, out);
	}
}
