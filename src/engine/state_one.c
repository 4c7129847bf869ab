// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The one file of records, run/earlytune/records, written whole by a run
 * about everything: a header line, then a sorted index of the groups (a
 * group is what an override file holds: disks/NAME, links/IFINDEX,
 * originals), then the groups' lines one after the other.
 *
 *   earlytune-records<TAB>1<TAB>INDEX-BYTES
 *   disks/vda<TAB>OFFSET<TAB>LENGTH       (sorted by key; offsets into the body)
 *   ...
 *   block<TAB>vda<TAB>...                  (the records, six fields a line)
 *
 * A run about one device maps the file and finds its group by a binary
 * search of the index: its cost does not grow with the records of the
 * host, and it reads no other group's lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/state.h"

#define MAGIC "earlytune-records\t1\t"
#define NFIELDS 6
#define KEY_OF(rel) ((rel) + sizeof(STATE_DIR))

/* A number of digits ending at stop, within [*at, end); *at past stop. */
static int parse_size(const char **at, const char *end, char stop, size_t *v)
{
	const char *s = *at;

	*v = 0;
	if (s >= end || *s < '0' || *s > '9')
		return -EBADMSG;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (*v > (SIZE_MAX - 9) / 10)
			return -EBADMSG;
		*v = *v * 10 + (size_t)(*s - '0');
	}
	if (s >= end || *s != stop)
		return -EBADMSG;
	*at = s + 1;
	return 0;
}

/* A group's key: originals, disks/NAME of a disk's file or links/N. */
static bool key_ok(const char *key, size_t len)
{
	char name[STATE_REL_MAX], rel[STATE_REL_MAX];

	if (len + 1 > sizeof(name) || memchr(key, '\0', len)) /* a NUL would cut the name short */
		return false;
	memcpy(name, key, len);
	name[len] = '\0';
	if (!strcmp(name, "originals"))
		return true;
	if (!strncmp(name, "disks/", 6))
		return state_disk_file(name + 6, rel);
	return !strncmp(name, "links/", 6) && name[6] > '0' && name[6] <= '9' &&
	       strspn(name + 6, "0123456789") == len - 6 && len - 6 <= 10;
}

/* The index line at *pos: its key and its group's lines; *pos past it.
 * The key is checked when asked (a search compares it with a good one). */
static int entry(const struct one_map *m, size_t *pos, struct one_entry *e, bool check)
{
	const char *s = m->p + *pos, *end = m->p + m->index_end, *tab = memchr(s, '\t', (size_t)(end - s));
	size_t off, len;

	if (!tab || (check && !key_ok(s, (size_t)(tab - s))))
		return -EBADMSG;
	e->key = s, e->klen = (size_t)(tab - s);
	s = tab + 1;
	if (parse_size(&s, end, '\t', &off) < 0 || parse_size(&s, end, '\n', &len) < 0 ||
	    off > m->size - m->body || len > m->size - m->body - off)
		return -EBADMSG;
	e->at = m->p + m->body + off, e->len = len;
	*pos = (size_t)(s - m->p);
	return 0;
}

/* Maps the file. -ENOENT: no file; -EBADMSG: not one this version wrote. */
int one_map(const struct root *r, struct one_map *m)
{
	_cleanup_(closep) int fd = root_openat(r, RECORDS_FILE, O_RDONLY, 0);
	const char *s;
	struct stat st;
	size_t ilen;

	*m = (struct one_map){ .p = NULL };
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EBADMSG;
	if ((size_t)st.st_size < sizeof(MAGIC))
		return -EBADMSG;
	m->p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m->p == MAP_FAILED) {
		m->p = NULL;
		return -errno;
	}
	m->size = (size_t)st.st_size;
	s = m->p + sizeof(MAGIC) - 1;
	if (memcmp(m->p, MAGIC, sizeof(MAGIC) - 1) || parse_size(&s, m->p + m->size, '\n', &ilen) < 0 ||
	    ilen > m->size - (size_t)(s - m->p) || (ilen && s[ilen - 1] != '\n')) {
		one_unmap(m);
		return -EBADMSG;
	}
	m->index = (size_t)(s - m->p), m->index_end = m->index + ilen, m->body = m->index_end;
	return 0;
}

void one_unmap(struct one_map *m)
{
	if (m->p)
		munmap((void *)m->p, m->size);
	m->p = NULL;
}

/* The next index entry from *pos: 1, 0 at the end, or -EBADMSG. */
int one_next(const struct one_map *m, size_t *pos, struct one_entry *e)
{
	if (*pos < m->index)
		*pos = m->index;
	if (*pos >= m->index_end)
		return 0;
	return entry(m, pos, e, true) < 0 ? -EBADMSG : 1;
}

static int key_cmp(const struct one_entry *e, const char *key)
{
	size_t n = strlen(key);
	int c = memcmp(e->key, key, e->klen < n ? e->klen : n);

	return c ? c : e->klen < n ? -1 : e->klen > n;
}

/* The group of rel by a binary search of the index: 1 found (in *e), 0
 * not there, -EBADMSG. Each probe backs up to the start of its line. */
int one_find(const struct one_map *m, const char *rel, struct one_entry *e)
{
	size_t lo = m->index, hi = m->index_end;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, pos;
		int c;

		while (mid > lo && m->p[mid - 1] != '\n')
			mid--;
		pos = mid;
		if (entry(m, &pos, e, false) < 0)
			return -EBADMSG;
		c = key_cmp(e, KEY_OF(rel));
		if (!c)
			return 1;
		if (c < 0)
			lo = pos;
		else
			hi = mid;
	}
	return 0;
}

/* The bytes of a record's line: its six fields are one allocation
 * (state.c's push), NUL-separated in their order, the identity last. */
static size_t line_len(const struct record *x)
{
	return (size_t)(x->identity - x->domain) + strlen(x->identity) + 1;
}

static size_t lines_len(const struct records *rs, const size_t *idx, size_t n)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++)
		len += line_len(&rs->v[idx[i]]);
	return len;
}

/* Those lines at p; returns their end. Each record's allocation copied
 * whole, its NULs then made tabs and the last a newline (memmove: -Os
 * inlines a memcpy of unknown length as rep movsb, a step per byte). */
static char *lines_put(const struct records *rs, const size_t *idx, size_t n, char *p)
{
	for (size_t i = 0; i < n; i++) {
		const struct record *x = &rs->v[idx[i]];
		const char *const next[] = { x->target, x->setting, x->path, x->value, x->identity };
		size_t len = line_len(x);

		memmove(p, x->domain, len);
		for (int k = 0; k < NFIELDS - 1; k++)
			p[next[k] - x->domain - 1] = '\t';
		p += len;
		p[-1] = '\n';
	}
	return p;
}

char *state_format(const struct records *rs, const size_t *idx, size_t n, size_t *len)
{
	char *buf;

	*len = lines_len(rs, idx, n);
	buf = malloc(*len + 1);
	if (buf)
		lines_put(rs, idx, n, buf);
	return buf;
}

static int by_rel(const void *a, const void *b, void *data)
{
	const struct records *rs = data;

	return strcmp(rs->files[*(const size_t *)a].rel, rs->files[*(const size_t *)b].rel);
}

/* The decimal digits of v. */
static size_t digits(size_t v)
{
	size_t n = 1;

	while (v >= 10)
		v /= 10, n++;
	return n;
}

/* v in decimal at p, then c; returns the end. */
static char *put_size(char *p, size_t v, char c)
{
	char *end = p + digits(v);

	*end = c;
	for (char *q = end; q > p; v /= 10)
		*--q = (char)('0' + v % 10);
	return end + 1;
}

/* An index line, KEY<TAB>OFFSET<TAB>LENGTH, at p; returns its end. By
 * hand, as the lines are: two fmt calls a group (its length, then its
 * text) were two fifths of the cost of the one file. */
static char *index_line(char *p, const char *key, size_t off, size_t len)
{
	size_t k = strlen(key);

	memmove(p, key, k);
	p[k] = '\t';
	return put_size(put_size(p + k + 1, off, '\t'), len, '\n');
}

/* The index and the body after it, then the header before both; each
 * group's lines formatted in place (a copy of each first doubled the
 * memory the records file touches). */
static char *assemble(const struct records *rs, const size_t *order, const size_t *start, const size_t *grp,
		      size_t ng, const size_t *blen, size_t *len)
{
	size_t ilen = 0, off = 0, hlen;
	char head[64], *buf, *p;

	for (size_t g = 0; g < ng; g++) {
		ilen += strlen(KEY_OF(rs->files[grp[g]].rel)) + digits(off) + digits(blen[g]) + 3;
		off += blen[g];
	}
	hlen = (size_t)fmt(head, sizeof(head), MAGIC "%zu\n", ilen);
	p = buf = malloc(hlen + ilen + off + 1);
	if (!buf)
		return NULL;
	p = mempcpy(p, head, hlen);
	off = 0;
	for (size_t g = 0; g < ng; g++) {
		p = index_line(p, KEY_OF(rs->files[grp[g]].rel), off, blen[g]);
		off += blen[g];
	}
	for (size_t g = 0; g < ng; g++)
		p = lines_put(rs, order + start[grp[g]], start[grp[g] + 1] - start[grp[g]], p);
	*len = (size_t)(p - buf);
	return buf;
}

/* The whole file of the records (order and start from the grouping of
 * state_write.c: order[start[f] .. start[f + 1]) are file f's). Groups
 * without records are left out. */
char *one_format(const struct records *rs, const size_t *order, const size_t *start, size_t *len)
{
	size_t *grp = calloc(rs->nfiles + 1, sizeof(*grp)), *blen = calloc(rs->nfiles + 1, sizeof(*blen)), ng = 0;
	char *buf = NULL;

	if (grp && blen) {
		for (size_t f = 0; f < rs->nfiles; f++)
			if (start[f + 1] > start[f])
				grp[ng++] = f;
		qsort_r(grp, ng, sizeof(*grp), by_rel, (void *)rs);
		for (size_t g = 0; g < ng; g++)
			blen[g] = lines_len(rs, order + start[grp[g]], start[grp[g] + 1] - start[grp[g]]);
		buf = assemble(rs, order, start, grp, ng, blen, len);
	}
	free(grp);
	free(blen);
	return buf;
}

/* A group's lines of the one file, parsed as its own file's. */
static int load_group(struct records *rs, const struct one_entry *e, size_t file)
{
	char *buf = strndup(e->at, e->len);
	int rr;

	if (!buf)
		return -ENOMEM;
	rs->files[file].in_one = true;
	rr = state_parse_file(rs, buf, file);
	free(buf);
	return rr;
}

/* Every group of the one file but those an override replaces or a scoped
 * load read already. */
int state_load_one(struct records *rs, const struct root *r)
{
	struct one_map m;
	struct one_entry e;
	size_t pos = 0, file;
	int rr = one_map(r, &m);

	if (rr == -ENOENT)
		return 0;
	rs->one_seen = rr >= 0;
	while (rr >= 0 && (rr = one_next(&m, &pos, &e)) > 0) {
		char rel[STATE_REL_MAX];

		fmt(rel, sizeof(rel), STATE_DIR "/%.*s", (int)e.klen, e.key);
		file = state_file_find(rs, rel);
		if (file != STRINDEX_NONE && (rs->files[file].override || rs->files[file].in_one)) {
			rs->files[file].in_one = true;
			continue;
		}
		rr = state_file_add(rs, rel, &file);
		if (rr >= 0)
			rr = load_group(rs, &e, file);
	}
	one_unmap(&m);
	return rr;
}

/* The groups a scoped load looked for without an override, found by the
 * index of the one file. Whether it has lines of the others is not known
 * (in_one false): write_file asks when it matters. */
int state_load_one_scoped(struct records *rs, const struct root *r)
{
	struct one_map m;
	struct one_entry e;
	bool need = false;
	int rr;

	for (size_t f = 0; f < rs->nfiles; f++)
		need |= !rs->files[f].override;
	if (!need) /* its override replaces it: its lines there are not asked for */
		return 0;
	rr = one_map(r, &m);
	if (rr == -ENOENT)
		return 0;
	rs->one_seen = rr >= 0;
	for (size_t f = 0; rr >= 0 && f < rs->nfiles; f++) {
		if (rs->files[f].override)
			continue;
		rr = one_find(&m, rs->files[f].rel, &e);
		if (rr > 0)
			rr = load_group(rs, &e, f);
	}
	one_unmap(&m);
	return rr;
}
