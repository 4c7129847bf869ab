/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util.c: strings, numbers, growable strings, word lists; and the macros
 * every file uses. Anyone may include it: it knows nothing of earlytune.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define _cleanup_(f) __attribute__((cleanup(f)))
#define _printf_(a, b) __attribute__((format(printf, a, b)))

char *strip(char *s);
/* n bytes of s at p; returns p + n. At -Os a memcpy or mempcpy of unknown
 * length is inlined as rep movsb, a step per byte: cheap for a name, dear
 * for a line of text, which libc's vector copy moves in a few steps. Not
 * inline: where the compiler sees that p and s cannot overlap, it makes a
 * memmove a memcpy, and that a rep movsb again. */
char *put_bytes(char *p, const char *s, size_t n);
/* Equal strings, or both NULL. The first characters first: most compares
 * of names and keys differ there. */
static inline bool streq_ptr(const char *a, const char *b)
{
	if (a == b)
		return true;
	if (!a || !b)
		return false;
	return *a == *b && strcmp(a, b) == 0;
}
int parse_u64(const char *s, unsigned long long *out);
int parse_s64(const char *s, long long *out);
bool valid_name(const char *s);
char *xasprintf(const char *fmt, ...) _printf_(1, 2);
/* fmt.c: snprintf, vsnprintf and vasprintf (NULL on ENOMEM) that copy
 * literal text, %s, %c, %% and decimal %d/%i/%u (l, ll, z) themselves and
 * leave any other format to stdio: the same text and return. */
int fmt(char *buf, size_t size, const char *fmt, ...) _printf_(3, 4);
/* fmt(dst, size, "%s", src) without the format: the copy, cut to fit. */
void str_copy(char *dst, size_t size, const char *src);
int fmt_v(char *buf, size_t size, const char *fmt, va_list ap) _printf_(3, 0);
char *fmt_alloc_v(const char *fmt, va_list ap) _printf_(1, 0);
long long now_ns(int clock); /* clock_gettime(clock) in ns */
void freep(void *p);
void closep(int *fd);
void fclosep(FILE **f);
#define FNV_OFFSET 14695981039346656037ULL
#define FNV_PRIME 1099511628211ULL
uint64_t fnv1a(uint64_t h, const char *s, size_t len);

/* Long work's sign of life: a step that may take long (an item written, a
 * module load, a netlink wait) calls progress(), which calls the hook set
 * (the holder of the records' lock shows its waiters it works), if any. */
void progress_hook(void (*fn)(void));
void progress(void);

/* A growable string; printing into it never fails silently: on ENOMEM the
 * buffer is marked and callers check sb->oom once at the end. */
struct strbuf {
	char *s;
	size_t len, cap;
	bool oom;
};
void sb_printf(struct strbuf *sb, const char *fmt, ...) _printf_(2, 3);
void sb_put(struct strbuf *sb, const char *s, size_t n);
void sb_spaces(struct strbuf *sb, int n);
char *sb_room(struct strbuf *sb, size_t n);
void sb_wrap(struct strbuf *sb, const char *text, int indent, int columns);
void sb_json_str(struct strbuf *sb, const char *s);
void sb_free(struct strbuf *sb);

/* Words of a space-separated list, one at a time; no limit on their count. */
size_t next_word(const char **p, char *buf, size_t size);
#define WORD_MAX 256
bool word_listed(const char *list, const char *word);

/* Selector files: "always [madvise] never". */
int selector_active(const char *content, char *out, size_t size);
/* What a selector file's content says is in force: its active choice (in
 * buf) when it marks one, else the content itself. */
const char *selector_current(const char *content, char *buf, size_t size);
bool selector_offers(const char *content, const char *word);
/* dir (below dfd) and all it holds, following no link: a tree of our own. */
void remove_tree(int dfd, const char *dir);
