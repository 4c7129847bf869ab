// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Configuration: git-config-like INI. The embedded profile comes first, then
 * /etc/earlytune.conf, then the *.conf drop-ins of /usr/lib, /run and /etc
 * (a name in /etc masks /run masks /usr/lib; an empty file or a /dev/null
 * symlink masks it entirely), sorted by file name. Later assignments win.
 * Comment lines right above a key are that key's reason.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "earlytune.h"

#define CONFIG_MAX_SIZE (1 << 20)

static const char *const dropin_dirs[] = { "etc/earlytune.d", "run/earlytune.d",
					   "usr/lib/earlytune.d" };

struct parser {
	struct config *c;
	const char *source;
	int line;
	const struct cfg_section *section;
	char *name;
	struct strbuf reason;
};

_printf_(2, 3) static void parse_error(struct parser *ps, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_msg(LOG_ERR, "%s:%d: %s", ps->source, ps->line, msg);
	ps->c->errors++;
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
	if (strcmp(key, "profile")) {
		snprintf(why, size, "unknown key '%s' in [main]; allowed: profile", key);
		return -EINVAL;
	}
	if (*value && !profile_text(value)) {
		snprintf(why, size, "unknown profile '%s'; built-in profiles: %s", value, profile_names());
		return -EINVAL;
	}
	return 0;
}

static const struct cfg_section main_section = { "main", false, check_main };
static const struct cfg_section *const *sections; /* the domains', from config_register */
static size_t nsections;

void config_register(const struct cfg_section *const *v, size_t n)
{
	sections = v;
	nsections = n;
}

static const struct cfg_section *section_find(const char *name)
{
	if (!strcmp(name, main_section.name))
		return &main_section;
	for (size_t i = 0; i < nsections; i++)
		if (!strcmp(sections[i]->name, name))
			return sections[i];
	return NULL;
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

		if (!named)
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
		parse_error(ps, "malformed section header '[%s]'", s);
		return;
	}
	sec = section_find(s);
	if (!sec) {
		list_sections(list, sizeof(list), false, &n);
		parse_error(ps, "unknown section [%s]; allowed: %s", s, list);
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

static int check_key(struct parser *ps, const char *key, const char *value)
{
	char why[384] = "";
	int r = ps->section->check_key(key, value, why, sizeof(why));

	if (r < 0)
		parse_error(ps, "%s", why);
	return r;
}

static int add_entry(struct parser *ps, const char *key, const char *value)
{
	struct config *c = ps->c;
	struct cfg_entry *e;

	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		struct cfg_entry *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->v = v;
		c->cap = cap;
	}
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

static int parse_assignment(struct parser *ps, char *s)
{
	char *eq = strchr(s, '='), *key, *value;

	if (!eq) {
		parse_error(ps, "expected 'key = value', got '%s'", s);
		return 0;
	}
	*eq = '\0';
	key = strip(s);
	value = strip(eq + 1);
	fold_spaces(value);
	if (!ps->section) {
		parse_error(ps, "'%s' is outside a valid section", key);
		return 0;
	}
	if (!valid_ident(key, "._-")) {
		parse_error(ps, "malformed key '%s'", key);
		return 0;
	}
	for (char *p = value; *p; p++)
		if (iscntrl((unsigned char)*p)) {
			parse_error(ps, "value of '%s' contains a control character", key);
			return 0;
		}
	if (check_key(ps, key, value) < 0)
		return 0;
	return add_entry(ps, key, value);
}

static void add_reason(struct parser *ps, char *comment)
{
	comment = strip(comment + 1);
	if (!*comment)
		return;
	if (ps->reason.len)
		sb_printf(&ps->reason, " ");
	sb_printf(&ps->reason, "%s", comment);
}

int config_parse_text(struct config *c, const char *text, const char *source)
{
	struct parser ps = { .c = c, .source = source };
	char *copy = strdup(text), *save = NULL, *line, *s;
	int r = 0;

	if (!copy)
		return -ENOMEM;
	/* strsep keeps empty lines, which end a reason block. */
	for (save = copy; (line = strsep(&save, "\n")) && r >= 0;) {
		ps.line++;
		s = strip(line);
		if (*s == '#' || *s == ';') {
			add_reason(&ps, s);
			continue;
		}
		if (*s == '[')
			parse_header(&ps, s);
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

static const char *keep_source(struct config *c, const char *src)
{
	char **v = realloc(c->files, (c->nfiles + 1) * sizeof(*v));

	if (!v)
		return NULL;
	c->files = v;
	v[c->nfiles] = strdup(src);
	return v[c->nfiles] ? v[c->nfiles++] : NULL;
}

/* A file that cannot be read is skipped, named and counted: the rest of the
 * configuration still loads (--boot applies it; other commands refuse to
 * write, as for a bad line). */
_printf_(3, 4) static void skip_file(struct config *c, const char *source, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	log_msg(LOG_ERR, "%s: %s; skipping this file", source, why);
	c->errors++;
	c->skipped++;
}

static int parse_fd(struct config *c, int fd, const char *source)
{
	_cleanup_(freep) char *buf = NULL;
	size_t cap = 0, len = 0;
	const char *src;
	ssize_t n;

	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = len + 8192);

			if (!nb)
				return -ENOMEM;
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			skip_file(c, source, "cannot read: %s", strerror(errno));
			return 0;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > CONFIG_MAX_SIZE) {
			skip_file(c, source, "larger than 1 MiB");
			return 0;
		}
	}
	if (!buf)
		return 0;
	buf[len] = '\0';
	src = keep_source(c, source);
	if (!src)
		return -ENOMEM;
	if (strlen(buf) != len) {
		skip_file(c, source, "contains a NUL byte, not a text file");
		return 0;
	}
	return config_parse_text(c, buf, src);
}

static char *display_path(const struct root *r, const char *rel)
{
	if (r->is_host)
		return xasprintf("/%s", rel);
	return xasprintf("%s%s%s", r->dir, r->dir[strlen(r->dir) - 1] == '/' ? "" : "/", rel);
}

/* listed: the name came from a directory listing, so even ENOENT (a
 * dangling symlink) is a file that cannot be read, not an absent one.
 * O_NONBLOCK: a FIFO must not hang a boot; only regular files are read. */
static int parse_rooted(struct config *c, const struct root *r, const char *rel, bool listed)
{
	_cleanup_(closep) int fd = root_openat(r, rel, O_RDONLY | O_NONBLOCK, 0);
	_cleanup_(freep) char *shown = display_path(r, rel);
	struct stat st;

	if (fd == -ENOENT && !listed)
		return 0;
	if (!shown)
		return -ENOMEM;
	if (fd < 0) {
		skip_file(c, shown, "cannot open: %s", strerror(-fd));
		return 0;
	}
	if (fstat(fd, &st) < 0) {
		skip_file(c, shown, "cannot stat: %s", strerror(errno));
		return 0;
	}
	if (!S_ISREG(st.st_mode)) {
		skip_file(c, shown, "not a regular file");
		return 0;
	}
	log_msg(LOG_DEBUG, "reading %s", shown);
	return parse_fd(c, fd, shown);
}

bool conf_masked(const struct root *r, const char *rel)
{
	char target[32];
	struct stat st;
	_cleanup_(closep) int fd = -1;

	if (root_readlink(r, rel, target, sizeof(target)) > 0 && !strcmp(target, "/dev/null"))
		return true;
	/* A file that cannot be opened masks nothing: its reader says why. */
	fd = root_openat(r, rel, O_RDONLY | O_NONBLOCK, 0);
	return fd >= 0 && fstat(fd, &st) == 0 && st.st_size == 0 && S_ISREG(st.st_mode);
}

static int cmp_basename(const void *a, const void *b)
{
	const char *x = strrchr(*(char *const *)a, '/') + 1, *y = strrchr(*(char *const *)b, '/') + 1;

	return strcmp(x, y);
}

/* Adds "dir/name" for each *.conf name of dir not already in v; -ENOENT when
 * dir is absent, another -errno when it cannot be listed (never "absent"). */
static int list_dir(const struct root *r, const char *dirname, char ***v, size_t *cnt)
{
	int fd = root_openat(r, dirname, O_RDONLY | O_DIRECTORY, 0);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	int err = 0;

	if (!dir) {
		err = fd < 0 ? fd : -errno;
		if (fd >= 0)
			close(fd);
		return err;
	}
	for (errno = 0; (de = readdir(dir)); errno = 0) {
		size_t len = strlen(de->d_name);
		bool seen = false;
		char **nv;

		if (len < 6 || strcmp(de->d_name + len - 5, ".conf") || de->d_name[0] == '.')
			continue;
		for (size_t i = 0; i < *cnt && !seen; i++)
			seen = !strcmp(strrchr((*v)[i], '/') + 1, de->d_name);
		if (seen)
			continue;
		nv = realloc(*v, (*cnt + 1) * sizeof(**v));
		if (!nv || !(nv[*cnt] = xasprintf("%s/%s", dirname, de->d_name))) {
			*v = nv ? nv : *v;
			closedir(dir);
			return -ENOMEM;
		}
		*v = nv;
		(*cnt)++;
	}
	err = errno ? -errno : 0;
	closedir(dir);
	return err;
}

static void sort_files(char **v, size_t n)
{
	if (n)
		qsort(v, n, sizeof(*v), cmp_basename);
}

/* Collects "dir/name" for each distinct *.conf name, sorted by name; the
 * first directory of dirs that has a name owns it (systemd's drop-in rule).
 * A directory that cannot be listed is an error (returned once the others
 * are listed), an absent one is not. */
int conf_files(const struct root *r, const char *const *dirs, size_t ndirs, char ***out, size_t *n)
{
	char **v = NULL;
	size_t cnt = 0;
	int err = 0;

	for (size_t d = 0; d < ndirs && err != -ENOMEM; d++) {
		int k = list_dir(r, dirs[d], &v, &cnt);

		if (k < 0 && k != -ENOENT && !err)
			err = k;
	}
	sort_files(v, cnt);
	*out = v;
	*n = cnt;
	return err;
}

static int load_dropins(struct config *c, const struct root *r)
{
	char **files = NULL;
	size_t n = 0;
	int rr = 0;

	for (size_t d = 0; d < ARRAY_SIZE(dropin_dirs) && rr >= 0; d++) {
		int k = list_dir(r, dropin_dirs[d], &files, &n);
		_cleanup_(freep) char *shown = NULL;

		if (k == -ENOMEM)
			rr = k;
		else if (k < 0 && k != -ENOENT && (shown = display_path(r, dropin_dirs[d])))
			skip_file(c, shown, "cannot list: %s", strerror(-k));
	}
	sort_files(files, n);
	for (size_t i = 0; i < n; i++) {
		if (rr >= 0 && !conf_masked(r, files[i]))
			rr = parse_rooted(c, r, files[i], true);
		free(files[i]);
	}
	free(files);
	return rr;
}

/* Puts the profile's assignments in front of everything read from files. */
int config_use_profile(struct config *c, const char *name)
{
	struct config p = { 0 };
	const char *text = profile_text(name);
	_cleanup_(freep) char *src = xasprintf("profile %s", name);
	struct cfg_entry *v;
	int r;

	if (!text)
		return -ENOENT;
	if (!src)
		return -ENOMEM;
	r = config_parse_text(&p, text, keep_source(c, src) ?: "profile");
	if (r < 0 || p.errors) {
		config_free(&p);
		return r < 0 ? r : -EINVAL;
	}
	v = realloc(p.v, (p.n + c->n + 1) * sizeof(*v));
	if (!v) {
		config_free(&p);
		return -ENOMEM;
	}
	if (c->n)
		memcpy(v + p.n, c->v, c->n * sizeof(*v));
	free(c->v);
	c->v = v;
	c->n += p.n;
	c->cap = c->n;
	p.v = NULL;
	p.n = 0;
	config_free(&p);
	free(c->profile);
	c->profile = strdup(name);
	return c->profile ? 0 : -ENOMEM;
}

int config_load(struct config *c, const struct root *r, const char *file,
		const char *profile_override)
{
	const struct cfg_entry *e;
	int rr = 0;

	if (file) {
		/* Named on the command line: a pipe is fine, a directory is not
		 * (its read fails and names it). */
		_cleanup_(closep) int fd = open(file, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			skip_file(c, file, "cannot open: %s", strerror(errno));
		else
			rr = parse_fd(c, fd, file);
	} else {
		rr = parse_rooted(c, r, "etc/earlytune.conf", false);
		if (rr >= 0)
			rr = load_dropins(c, r);
	}
	if (rr < 0)
		return rr;
	e = config_get(c, "main", NULL, "profile");
	return config_use_profile(c, profile_override ? profile_override : e ? e->value : "vps");
}

void config_free(struct config *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].section);
		free(c->v[i].name);
		free(c->v[i].key);
		free(c->v[i].value);
		free(c->v[i].reason);
	}
	for (size_t i = 0; i < c->nfiles; i++)
		free(c->files[i]);
	free(c->files);
	free(c->v);
	free(c->profile);
	*c = (struct config){ 0 };
}

/* The effective assignment, or NULL when unset (or unset again by "key ="). */
const struct cfg_entry *config_get(const struct config *c, const char *section,
				   const char *name, const char *key)
{
	for (size_t i = c->n; i-- > 0;) {
		const struct cfg_entry *e = &c->v[i];

		if (!strcmp(e->section, section) && streq_ptr(e->name, name) && !strcmp(e->key, key))
			return *e->value ? e : NULL;
	}
	return NULL;
}

char *config_source(const struct cfg_entry *e)
{
	if (!strncmp(e->file, "profile ", 8))
		return strdup(e->file);
	return xasprintf("%s:%d", e->file, e->line);
}

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
		fprintf(out, "# %s%s%s\n%s = %s\n", src ? src : eff->file, eff->reason ? ": " : "",
			eff->reason ? eff->reason : "", eff->key, eff->value);
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
