// SPDX-License-Identifier: LGPL-2.1-or-later
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"

/* FNV-1a: the record index's hash, and a disk's identity without diskseq. */
uint64_t fnv1a(uint64_t h, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * FNV_PRIME;
	return h;
}

char *strip(char *s)
{
	size_t n;

	while (*s && isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

int parse_u64(const char *s, unsigned long long *out)
{
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno)
		return -errno;
	return *end ? -EINVAL : 0;
}

/* Up to 18 digits, maybe a '-', nothing else: converted here (strtoll's
 * locale set-up was most of a 1,000-disk plan's number parsing); any other
 * text is strtoll's to judge. */
static bool short_decimal(const char *s, long long *out)
{
	const char *p = s + (*s == '-');
	unsigned long long v = 0;
	size_t n = 0;

	for (; *p >= '0' && *p <= '9' && n < 18; p++, n++)
		v = v * 10 + (unsigned long long)(*p - '0');
	if (!n || *p)
		return false;
	*out = *s == '-' ? -(long long)v : (long long)v;
	return true;
}

int parse_s64(const char *s, long long *out)
{
	char *end;

	if (!s || !(*s == '-' || isdigit((unsigned char)*s)))
		return -EINVAL;
	if (short_decimal(s, out))
		return 0;
	errno = 0;
	*out = strtoll(s, &end, 10);
	if (errno)
		return -errno;
	return *end || end == s ? -EINVAL : 0;
}

/* A kernel object name that is safe to put into a path. */
bool valid_name(const char *s)
{
	const char *p = s;

	if (!s || !*s || (s[0] == '.' && (!s[1] || (s[1] == '.' && !s[2]))))
		return false;
	/* One pass (it is asked for every record's and every disk's name):
	 * no '/', no "..", no control character; the C locale's iscntrl,
	 * which is the only locale earlytune runs in (no setlocale). */
	for (; *p; p++)
		if (*p == '/' || (unsigned char)*p < 0x20 || *p == 0x7f || (*p == '.' && p[1] == '.'))
			return false;
	return p - s <= NAME_MAX;
}

long long now_ns(int clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = fmt_alloc_v(fmt, ap);
	va_end(ap);
	return s;
}

void freep(void *p)
{
	free(*(void **)p);
}

void closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

static bool sb_grow(struct strbuf *sb, size_t need)
{
	size_t cap;
	char *s;

	if (sb->oom)
		return false;
	if (sb->len + need + 1 <= sb->cap)
		return true;
	cap = sb->cap ? sb->cap : 256;
	while (cap < sb->len + need + 1)
		cap *= 2;
	s = realloc(sb->s, cap);
	if (!s) {
		sb->oom = true;
		return false;
	}
	sb->s = s;
	sb->cap = cap;
	return true;
}

void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	size_t room = sb->oom ? 0 : sb->cap - sb->len;
	int n;

	/* Into the room there is: a second pass only when it did not fit. */
	va_start(ap, fmt);
	n = fmt_v(room ? sb->s + sb->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < room) {
		sb->len += (size_t)n;
		return;
	}
	if (room)
		sb->s[sb->len] = '\0'; /* what did not fit is not the text */
	if (n < 0 || !sb_grow(sb, (size_t)n))
		return;
	va_start(ap, fmt);
	fmt_v(sb->s + sb->len, sb->cap - sb->len, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

/* n bytes of s, verbatim: no format pass over a large copy (the run log's
 * rewrite of its 128 KiB went through vsnprintf twice per apply). */
void sb_put(struct strbuf *sb, const char *s, size_t n)
{
	if (!sb_grow(sb, n))
		return;
	put_bytes(sb->s + sb->len, s, n);
	sb->len += n;
	sb->s[sb->len] = '\0';
}

/* Room for n more bytes (and a NUL) at sb->s + sb->len, for a caller that
 * writes them itself and then moves len: NULL when out of memory. */
char *sb_room(struct strbuf *sb, size_t n)
{
	return sb_grow(sb, n) ? sb->s + sb->len : NULL;
}

/* n spaces. */
void sb_spaces(struct strbuf *sb, int n)
{
	if (n <= 0 || !sb_grow(sb, (size_t)n))
		return;
	memset(sb->s + sb->len, ' ', (size_t)n);
	sb->len += (size_t)n;
	sb->s[sb->len] = '\0';
}

/* One line of sb_wrap, s at a word: the words that fit room, copied in
 * spans (one, unless the text has runs of spaces), the first word cut to
 * room if it is longer. Returns where the next line's words start. */
static const char *wrap_line(struct strbuf *sb, const char *s, int room)
{
	const char *start = s, *end = s; /* [start, end): copied yet to be */
	int used = 0;

	for (;;) {
		int n = (int)(strchrnul(s, ' ') - s);

		if (!used) {
			n = n > room ? room : n;
		} else if (used + 1 + n > room) {
			break;
		} else if (s != end + 1) {
			sb_put(sb, start, (size_t)(end - start));
			sb_put(sb, " ", 1);
			start = s;
		}
		used += (used ? 1 : 0) + n;
		s += n;
		end = s;
		while (*s == ' ')
			s++;
		if (!*s)
			break;
	}
	sb_put(sb, start, (size_t)(end - start));
	sb_put(sb, "\n", 1);
	return s;
}

/* text in lines of at most columns, each after indent spaces; a word
 * longer than a line is split. Plain copies, no format pass: a table of
 * 1,000 disks wraps over 100,000 words. */
void sb_wrap(struct strbuf *sb, const char *text, int indent, int columns)
{
	int room = columns - indent;

	if (room < 1)
		room = 1;
	while (*text == ' ')
		text++;
	while (*text) {
		sb_spaces(sb, indent);
		text = wrap_line(sb, text, room);
	}
}

void sb_json_str(struct strbuf *sb, const char *s)
{
	if (!s) {
		sb_printf(sb, "null");
		return;
	}
	sb_printf(sb, "\"");
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			sb_printf(sb, "\\%c", ch);
		else if (ch == '\n')
			sb_printf(sb, "\\n");
		else if (ch == '\t')
			sb_printf(sb, "\\t");
		else if (ch < 0x20 || ch == 0x7f)
			sb_printf(sb, "\\u%04x", ch);
		else
			sb_printf(sb, "%c", ch);
	}
	sb_printf(sb, "\"");
}

void sb_free(struct strbuf *sb)
{
	free(sb->s);
	*sb = (struct strbuf){ 0 };
}

/* Always inlined: gcc -Os calls it otherwise, once per character. */
__attribute__((always_inline)) static inline bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* Copies the next space-separated word of *p into buf and advances *p.
 * Returns the word's full length (≥ size means it did not fit), 0 at the
 * end. Scanned by hand: words are short, and strspn's and strcspn's set-up
 * costs more than the scan. */
size_t next_word(const char **p, char *buf, size_t size)
{
	const char *s = *p, *e;
	size_t n;

	while (blank(*s))
		s++;
	for (e = s; *e && !blank(*e); e++)
		;
	n = (size_t)(e - s);
	if (size) { /* snprintf's truncation, without its cost for every word */
		size_t k = n < size ? n : size - 1;

		memcpy(buf, s, k);
		buf[k] = '\0';
	}
	*p = e;
	return n;
}

/* "always [madvise] never" → "madvise"; a lone unbracketed word is active
 * (dm queues on ≤6.1 print "none"; fake trees hold the last value written). */
int selector_active(const char *content, char *out, size_t size)
{
	const char *open = strchr(content, '['), *close;
	char tmp[256], second[8];

	if (open) {
		close = strchr(open, ']');
		if (!close || (size_t)(close - open - 1) >= size)
			return -EINVAL;
		memcpy(out, open + 1, (size_t)(close - open - 1));
		out[close - open - 1] = '\0';
		return 0;
	}
	if (next_word(&content, tmp, sizeof(tmp)) >= size || !*tmp ||
	    next_word(&content, second, sizeof(second)))
		return -EINVAL;
	strcpy(out, tmp);
	return 0;
}

const char *selector_current(const char *content, char *buf, size_t size)
{
	return selector_active(content, buf, size) == 0 ? buf : content;
}

/* word is one of the words of a space-separated list. */
bool word_listed(const char *list, const char *word)
{
	char w[WORD_MAX];

	while (next_word(&list, w, sizeof(w)))
		if (!strcmp(w, word))
			return true;
	return false;
}

/* A marked word ("[madvise]") is never offered as itself: its bracketed
 * form is the mark. */
static bool marked_form(const char *s, size_t n)
{
	return n >= 2 && s[0] == '[' && s[n - 1] == ']';
}

/* Found by strstr, then told a word by what is around it: a scheduler
 * list is searched for a word by every disk, and strstr's few vector steps
 * cost less than walking the list word by word. */
bool selector_offers(const char *content, const char *word)
{
	size_t wl = 0;
	bool empty;

	for (; word[wl]; wl++)
		if (blank(word[wl]))
			return false; /* no word of the list holds a blank */
	empty = !wl;
	if (empty) /* the empty word is offered only marked: "[]" */
		word = "[]", wl = 2;
	for (const char *p = content; (p = strstr(p, word)); p++) {
		const char *s = p, *e = p + wl;
		size_t n;

		while (s > content && !blank(s[-1]))
			s--;
		while (*e && !blank(*e))
			e++;
		n = (size_t)(e - s);
		if (n == wl && (empty || !marked_form(word, wl)))
			return true;
		if (!empty && n == wl + 2 && s + 1 == p && marked_form(s, n))
			return true;
	}
	return false;
}

static void (*progress_fn)(void);

void progress_hook(void (*fn)(void))
{
	progress_fn = fn;
}

void progress(void)
{
	if (progress_fn)
		progress_fn();
}

/* Everything below dfd, then dir itself (a tree of our own: no symlink
 * is followed, unlinkat never does). */
void remove_tree(int dfd, const char *dir)
{
	int fd = openat(dfd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;

	if (!d && fd >= 0)
		close(fd);
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    unlinkat(fd, de->d_name, 0) < 0 && errno == EISDIR)
			remove_tree(fd, de->d_name);
	if (d)
		closedir(d);
	unlinkat(dfd, dir, AT_REMOVEDIR);
}
