// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The configuration reader: git-config-like INI. Sections, keys, values and
 * the comment lines right above a key (its reason); later assignments win.
 * It knows [main]; every other section, and the check of its keys, is
 * registered by the table of domains (config_register). The files it comes
 * from: load.c.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/log.h"
#include "config/config.h"
#include "config/lex.h"
#include "config/platform.h"

struct parser {
	struct config *c;
	const char *source;
	int line;
	const struct cfg_section *section;
	char *name;
	struct strbuf reason;
};

_printf_(4, 0) static void error_at(struct config *c, const char *file, int line, const char *fmt, va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	log_msg(LOG_ERR, "%s:%d: %s", file, line, msg);
	config_count_error(c, file, line, msg);
}

/* An error said where it was found: counted, and the first one kept. */
void config_count_error(struct config *c, const char *file, int line, const char *msg)
{
	if (!c->errors++) {
		c->first_file = strdup(file);
		snprintf(c->first_msg, sizeof(c->first_msg), "%s", msg);
		c->first_line = line;
	}
}

_printf_(2, 3) static void parse_error(struct parser *ps, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_at(ps->c, ps->source, ps->line, fmt, ap);
	va_end(ap);
}

static bool valid_ident(const char *s, const char *extra)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
			return false;
	return true;
}

/* [main]: the reader's own section. */
static int check_main(const char *key, const char *value, char *why, size_t size)
{
	char buf[96];

	if (!strcmp(key, "platform"))
		return *value ? platform_check("[main] platform", value, why, size) : 0;
	if (!strcmp(key, "textfile_dir")) {
		if (!*value || value[0] == '/')
			return 0;
		snprintf(why, size, "[main] textfile_dir = '%s': not an absolute path (node_exporter's "
			 "--collector.textfile.directory)", value);
		return -EINVAL;
	}
	if (strcmp(key, "profile")) {
		snprintf(why, size, "unknown key '%s' in [main]%sallowed: profile platform textfile_dir", key,
			 did_you_mean(key, "profile platform textfile_dir", buf, sizeof(buf)));
		return -EINVAL;
	}
	if (*value && !profile_text(value)) {
		snprintf(why, size, "unknown profile '%s'%sbuilt-in profiles: %s", value,
			 did_you_mean(value, profile_names(), buf, sizeof(buf)), profile_names());
		return -EINVAL;
	}
	return 0;
}

static const struct cfg_section main_section = { "main", false, check_main, NULL };
static const struct cfg_section *const *sections; /* the domains', from config_register */
static size_t nsections;

void config_register(const struct cfg_section *const *v, size_t n)
{
	sections = v;
	nsections = n;
}

/* Two domains may share a section's name, one reading [name] and the other
 * [name "NAME"] ([net] and the NIC's [net "NAME"]): a header goes to the
 * one that takes its form, else to the one of that name. */
static const struct cfg_section *section_find(const char *name, bool named)
{
	const struct cfg_section *any = NULL;

	if (!strcmp(name, main_section.name))
		return &main_section;
	for (size_t i = 0; i < nsections; i++)
		if (!strcmp(sections[i]->name, name)) {
			if (sections[i]->named == named)
				return sections[i];
			any = any ? any : sections[i];
		}
	return any;
}

/* "[net]", or "[net \"NAME\"]" for the named one of two sections of a name. */
static const char *section_label(const struct cfg_section *s, char *buf, size_t size)
{
	bool shared = false;

	for (size_t j = 0; j < nsections; j++)
		shared = shared || (sections[j] != s && !strcmp(sections[j]->name, s->name));
	snprintf(buf, size, "[%s%s]", s->name, shared && s->named ? " \"NAME\"" : "");
	return buf;
}

/* Whether a section before i has the name of section i. */
static bool name_seen(size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(sections[j]->name, sections[i]->name))
			return true;
	return false;
}

/* "[main] [block] [block "NAME"] …", or with named only the sections that
 * take a name: "[block "NAME"] and [cmdline "NAME"]". */
static void list_sections(char *buf, size_t size, bool named, size_t *count)
{
	size_t len = 0, n = 0, total = 0;

	for (size_t i = 0; i < nsections; i++)
		total += sections[i]->named;
	if (!named)
		len += (size_t)snprintf(buf, size, "[%s]", main_section.name);
	for (size_t i = 0; i < nsections && len < size; i++) {
		const struct cfg_section *s = sections[i];

		if (!named && !name_seen(i))
			len += (size_t)snprintf(buf + len, size - len, " [%s]", s->name);
		if (s->named && len < size) {
			const char *sep = !named ? " " : !n ? "" : n + 1 == total ? " and " : ", ";

			len += (size_t)snprintf(buf + len, size - len, "%s[%s \"NAME\"]", sep, s->name);
			n++;
		}
	}
	*count = n;
}

static bool header_name(struct parser *ps, char *s, char **name)
{
	char *q = strchr(s, '"'), *q2;

	*name = NULL;
	if (!q)
		return true;
	q2 = strrchr(q, '"');
	if (q2 == q || q2[1] || q2 == q + 1 || memchr(q + 1, '"', (size_t)(q2 - q - 1))) {
		parse_error(ps, "malformed section name in '[%s]'; expected [section \"name\"]", s);
		return false;
	}
	*q2 = '\0';
	*name = q + 1;
	*q = '\0';
	return true;
}

static void unknown_section(struct parser *ps, const char *s)
{
	char list[512], names[256] = "main", near[64];
	size_t n;

	for (size_t i = 0; i < nsections; i++)
		if (!name_seen(i))
			snprintf(names + strlen(names), sizeof(names) - strlen(names), " %s", sections[i]->name);
	list_sections(list, sizeof(list), false, &n);
	if (cfg_closest(s, names, near, sizeof(near)))
		parse_error(ps, "unknown section [%s]; did you mean [%s]? allowed: %s", s, near, list);
	else
		parse_error(ps, "unknown section [%s]; allowed: %s", s, list);
}

/* "[section]" or [section "name"]; the section stays unset on error so the
 * keys under a bad header are not attributed to the previous section. */
static void parse_header(struct parser *ps, char *s)
{
	char *end = strrchr(s, ']'), *name, list[512];
	const struct cfg_section *sec;
	size_t n;

	free(ps->name);
	ps->section = NULL;
	ps->name = NULL;
	if (!end || end[1]) {
		parse_error(ps, "malformed section header '%s'; expected [section] or [section \"name\"]", s);
		return;
	}
	*end = '\0';
	s = strip(s + 1);
	if (!header_name(ps, s, &name))
		return;
	s = strip(s);
	if (!valid_ident(s, "-_")) {
		char ch[160];

		if (cfg_non_ascii(s, ch, sizeof(ch)))
			parse_error(ps, "malformed section header '[%s]': %s", s, ch);
		else
			parse_error(ps, "malformed section header '[%s]'", s);
		return;
	}
	sec = section_find(s, name != NULL);
	if (!sec) {
		unknown_section(ps, s);
		return;
	}
	if (name && !sec->named) {
		list_sections(list, sizeof(list), true, &n);
		parse_error(ps, "section [%s] takes no name (only %s do%s), got \"%s\"", s, list,
			    n == 1 ? "es" : "", name);
		return;
	}
	if (name && !valid_name(name)) {
		parse_error(ps, "section name \"%s\" must be printable and contain no '/'", name);
		return;
	}
	ps->section = sec;
	ps->name = name ? strdup(name) : NULL;
}

static int add_entry(struct parser *ps, const char *key, const char *value)
{
	struct config *c = ps->c;
	struct cfg_entry *e;

	if (array_grow(&c->v, &c->cap, c->n, sizeof(*c->v), 64) < 0)
		return -ENOMEM;
	e = &c->v[c->n];
	*e = (struct cfg_entry){
		.section = strdup(ps->section->name),
		.name = ps->name ? strdup(ps->name) : NULL,
		.key = strdup(key),
		.value = strdup(value),
		.reason = ps->reason.len ? strdup(ps->reason.s) : NULL,
		.file = ps->source,
		.line = ps->line,
	};
	c->n++;
	if (!e->section || !e->key || !e->value || (ps->name && !e->name) ||
	    (ps->reason.len && !e->reason))
		return -ENOMEM;
	return 0;
}

/* comment: the text after its '#' or ';'. */
static void add_reason(struct parser *ps, char *comment)
{
	comment = strip(comment);
	if (!*comment)
		return;
	if (ps->reason.len)
		sb_printf(&ps->reason, " ");
	sb_printf(&ps->reason, "%s", comment);
}

/* Values are words: runs of white space fold into one space. */
static void fold_spaces(char *s)
{
	char *out = s, *start = s;
	bool pending = false;

	for (; *s; s++) {
		if (isspace((unsigned char)*s)) {
			pending = out != start;
			continue;
		}
		if (pending)
			*out++ = ' ';
		pending = false;
		*out++ = *s;
	}
	*out = '\0';
}

/* The sections other than here that know key ("[block]", "[block] or
 * [net]"): a known key takes the empty value, which unsets it. */
static bool key_home(const struct cfg_section *here, const char *key, char *buf, size_t size)
{
	char why[384], label[64];
	size_t n = 0;

	if (here->check_key(key, "", why, sizeof(why)) == 0)
		return false;
	*buf = '\0';
	for (size_t i = 0; i <= nsections; i++) {
		const struct cfg_section *s = i < nsections ? sections[i] : &main_section;

		if (s != here && s->check_key(key, "", why, sizeof(why)) == 0)
			snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", n++ ? " or " : "",
				 section_label(s, label, sizeof(label)));
	}
	return n > 0;
}

/* A rejected value that holds a non-ASCII character was almost surely
 * broken by it (a pasted U+2212 minus): that character is the message. */
static int check_key(struct parser *ps, const char *key, const char *value)
{
	char why[384] = "", ch[160], home[128], label[64];
	int r = ps->section->check_key(key, value, why, sizeof(why));

	if (r == 0 && cfg_curly_quote(value, ch, sizeof(ch)))
		r = -EINVAL;
	else if (r < 0 && !cfg_non_ascii(value, ch, sizeof(ch)))
		*ch = '\0';
	if (r < 0 && *ch)
		parse_error(ps, "[%s] %s = '%s': %s", ps->section->name, key, value, ch);
	else if (r < 0 && key_home(ps->section, key, home, sizeof(home)))
		parse_error(ps, "%s; '%s' belongs in %s, not %s", why, key, home,
			    section_label(ps->section, label, sizeof(label)));
	else if (r < 0)
		parse_error(ps, "%s", why);
	return r;
}

/* The value after '=': comment cut, quotes gone, white space folded; the
 * inline comment is the reason when no comment line stands above the key. */
static int read_value(struct parser *ps, const char *key, char *value)
{
	char why[256], *comment;

	if (cfg_lex_value(value, &comment, why, sizeof(why)) < 0) {
		parse_error(ps, "value of '%s': %s", key, why);
		return -EINVAL;
	}
	fold_spaces(value);
	if (comment && !ps->reason.len)
		add_reason(ps, comment);
	for (char *p = value; *p; p++)
		if (iscntrl((unsigned char)*p)) {
			parse_error(ps, "value of '%s' contains a control character", key);
			return -EINVAL;
		}
	return 0;
}

static int parse_assignment(struct parser *ps, char *s)
{
	char *eq = strchr(s, '='), *key, *value, ch[160];

	if (!eq) {
		parse_error(ps, "expected 'key = value', got '%s'", s);
		return 0;
	}
	*eq = '\0';
	key = strip(s);
	value = strip(eq + 1);
	if (!ps->section) {
		parse_error(ps, "'%s' is outside a valid section", key);
		return 0;
	}
	if (!valid_ident(key, "._-")) {
		if (cfg_non_ascii(key, ch, sizeof(ch)))
			parse_error(ps, "malformed key '%s': %s", key, ch);
		else
			parse_error(ps, "malformed key '%s'", key);
		return 0;
	}
	if (read_value(ps, key, value) < 0 || check_key(ps, key, value) < 0)
		return 0;
	return add_entry(ps, key, value);
}

int config_parse_text(struct config *c, const char *text, const char *source)
{
	struct parser ps = { .c = c, .source = source };
	char *copy = strdup(cfg_skip_bom(text)), *save = NULL, *line, *s;
	int r = 0;

	if (!copy)
		return -ENOMEM;
	/* strsep keeps empty lines, which end a reason block. */
	for (save = copy; (line = strsep(&save, "\n")) && r >= 0;) {
		ps.line++;
		s = strip(line);
		if (*s == '#' || *s == ';') {
			add_reason(&ps, s + 1);
			continue;
		}
		if (*s == '[') {
			cfg_header_comment(s);
			parse_header(&ps, strip(s));
		}
		else if (*s)
			r = parse_assignment(&ps, s);
		ps.reason.len = 0;
		if (ps.reason.s)
			ps.reason.s[0] = '\0';
	}
	sb_free(&ps.reason);
	free(ps.name);
	free(copy);
	return r;
}

static void entry_free(struct cfg_entry *e)
{
	if (e->borrowed)
		return;
	free(e->section);
	free(e->name);
	free(e->key);
	free(e->value);
	free(e->reason);
}

/* Logs entry i's rejection at its FILE:LINE and drops it: as for a line
 * the parser rejects, an earlier assignment of the key stands. */
void config_reject(struct config *c, size_t i, const char *fmt, ...)
{
	struct cfg_entry *e = &c->v[i];
	va_list ap;

	va_start(ap, fmt);
	error_at(c, e->file, e->line, fmt, ap);
	va_end(ap);
	entry_free(e);
	memmove(e, e + 1, (c->n - i - 1) * sizeof(*e));
	c->n--;
}

void config_check(struct config *c)
{
	for (size_t i = 0; i < nsections; i++)
		if (sections[i]->check_conf)
			sections[i]->check_conf(c);
}

void config_free(struct config *c)
{
	for (size_t i = 0; i < c->n; i++)
		entry_free(&c->v[i]);
	for (size_t i = 0; i < c->nfiles; i++)
		free(c->files[i]);
	free(c->files);
	free(c->v);
	free(c->profile);
	free(c->first_file);
	*c = (struct config){ 0 };
}

/* The effective assignment, or NULL when unset (or unset again by "key ="). */
const struct cfg_entry *config_get(const struct config *c, const char *section,
				   const char *name, const char *key)
{
	for (size_t i = c->n; i-- > 0;) {
		const struct cfg_entry *e = &c->v[i];

		if (streq_ptr(e->section, section) && streq_ptr(e->name, name) && streq_ptr(e->key, key))
			return *e->value ? e : NULL;
	}
	return NULL;
}

/* Where e was set, "FILE:LINE" or a built-in profile's name, in buf: its
 * length, size or more when it did not fit (buf may be NULL, size 0). */
int config_source_in(const struct cfg_entry *e, char *buf, size_t size)
{
	if (!strncmp(e->file, "profile ", 8))
		return fmt(buf, size, "%s", e->file);
	return fmt(buf, size, "%s:%d", e->file, e->line);
}

char *config_source(const struct cfg_entry *e)
{
	int n = config_source_in(e, NULL, 0);
	char *s = n < 0 ? NULL : malloc((size_t)n + 1);

	if (s)
		config_source_in(e, s, (size_t)n + 1);
	return s;
}
