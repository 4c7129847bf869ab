// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The [block] sections against a disk: the match.KEY tests (identity,
 * classes of the disks beneath, libblkid tags) and the sections compiled
 * once per run into the effective assignment of every key.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "block/disk.h"

#define NCLASSES (BC_OTHER + 1)

/* ---- matching ------------------------------------------------------------ */

/* The disk's value for match.what: its own fields as they are, the others
 * read into out. */
/* noinline: its PATH_MAX buffer on the stack only while it reads. */
static __attribute__((noinline)) const char *read_ident(struct ctx *c, struct disk *d, const char *what, char *out, size_t size)
{
	char rel[PATH_MAX];
	int r;

	*out = '\0';
	if (!strcmp(what, "class"))
		return cls_name(d);
	if (!strcmp(what, "name"))
		return d->name;
	if (!strcmp(what, "driver"))
		return d->driver;
	if (!strcmp(what, "hw_queues")) { /* "" when unknown: no pattern but * matches it */
		if (disk_hw_queues(c, d) > 0)
			fmt(out, size, "%d", d->hwq);
		return out;
	}
	/* SCSI and NVMe keep identity under device/, virtio-blk keeps serial on the disk. */
	r = pathf(rel, sizeof(rel), "%s/device/%s", d->dir, what);
	if (r == 0)
		r = root_read(&c->root, rel, out, size);
	if (r > 0)
		return out;
	disk_fail(d, r, rel);
	r = pathf(rel, sizeof(rel), "%s/%s", d->dir, what);
	disk_fail(d, r < 0 ? r : root_read(&c->root, rel, out, size), rel);
	return out;
}

/* fnmatch(3) costs hundreds of instructions a call: a pattern without a
 * special character is a plain compare. */
static bool glob_match(const char *pattern, const char *s)
{
	return strpbrk(pattern, "*?[\\") ? fnmatch(pattern, s, 0) == 0 : !strcmp(pattern, s);
}

/* Every disk underneath must match one of the patterns: an LV on a virtual
 * disk and an SSD is on neither, so no section for one class tunes it. */
static bool match_slaves(const struct disk *d, const char *value)
{
	char w[WORD_MAX];

	if (!d->nslaves || !d->scls)
		return false;
	for (size_t i = 0; i < d->nslaves; i++) {
		const char *p = value;
		bool any = false;

		while (!any && next_word(&p, w, sizeof(w)))
			any = glob_match(w, block_classes[d->scls[i]]);
		if (!any)
			return false;
	}
	return true;
}

static bool is_blkid_key(const char *what)
{
	return !strcmp(what, "fstype") || !strcmp(what, "uuid") || !strcmp(what, "label") ||
	       !strcmp(what, "partuuid");
}

static __attribute__((noinline)) bool match_blkid(struct ctx *c, struct disk *d, const char *what, const char *pattern)
{
	size_t wl = strlen(what);

	if (!d->probed) {
		int r = probe_disk_tags(&c->root, d->dir, d->name, &d->tags, &d->ntags);
		char dev[PATH_MAX];

		d->probed = true;
		fmt(dev, sizeof(dev), "dev/%s (libblkid)", d->name);
		disk_fail(d, r, dev);
	}
	for (size_t i = 0; i < d->ntags; i++)
		if (!strncmp(d->tags[i], what, wl) && d->tags[i][wl] == '=' &&
		    fnmatch(pattern, d->tags[i] + wl + 1, 0) == 0)
			return true;
	return false;
}

static bool match_one(struct ctx *c, struct disk *d, const char *what, const char *value)
{
	char w[WORD_MAX], buf[256];
	const char *ident = "";
	bool blkid;

	if (!strcmp(what, "slave_class"))
		return match_slaves(d, value);
	blkid = is_blkid_key(what);
	if (!blkid)
		ident = read_ident(c, d, what, buf, sizeof(buf));
	while (next_word(&value, w, sizeof(w)))
		if (blkid ? match_blkid(c, d, what, w) : glob_match(w, ident))
			return true;
	return false;
}


static size_t index_of(const char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (streq_ptr(v[i], s))
			return i;
	return n;
}

void bconf_free(struct bconf *bc)
{
	if (!bc)
		return;
	free(bc->sections);
	free(bc->matched);
	free(bc->keys);
	free(bc->eff);
	free(bc->mk);
	free(bc->iok);
	free(bc->smk);
	free(bc->by_class);
	free(bc->setk);
	free(bc);
}

/* Each section's match.KEY tests (in mk's order, ended by nk): a disk is
 * not asked those the section does not set. */
static int section_tests(struct bconf *bc)
{
	bc->smk = calloc(bc->ns * (bc->nmk + 1), sizeof(*bc->smk));
	if (!bc->smk)
		return -ENOMEM;
	for (size_t i = 0; i < bc->ns; i++) {
		size_t *v = &bc->smk[i * (bc->nmk + 1)];

		for (size_t m = 0; m < bc->nmk; m++)
			if (bc->eff[i * bc->nk + bc->mk[m]])
				*v++ = bc->mk[m];
		*v = bc->nk;
	}
	return 0;
}

/* What a disk asks of every section and every setting, found once a run. */
static int bconf_index(struct bconf *bc)
{
	size_t nset = 0;

	while (block_settings[nset].key)
		nset++;
	bc->mk = calloc(bc->nk + 1, sizeof(*bc->mk));
	bc->iok = calloc(bc->nk + 1, sizeof(*bc->iok));
	bc->by_class = calloc(bc->ns * NCLASSES, sizeof(*bc->by_class));
	bc->setk = calloc(nset + 1, sizeof(*bc->setk));
	if (!bc->mk || !bc->iok || !bc->by_class || !bc->setk)
		return -ENOMEM;
	bc->class_k = bc->nk;
	for (size_t k = 0; k < bc->nk; k++) {
		if (!strncmp(bc->keys[k], "match.", 6))
			bc->mk[bc->nmk++] = k;
		if (!strncmp(bc->keys[k], "iosched.", 8))
			bc->iok[bc->niok++] = k;
		if (!strcmp(bc->keys[k], "match.class"))
			bc->class_k = k;
	}
	for (size_t j = 0; j < nset; j++)
		bc->setk[j] = index_of(bc->keys, bc->nk, block_settings[j].key);
	return section_tests(bc);
}

/* The [block] entries' sections and keys, each listed once, and where each
 * entry is (at[2i], at[2i + 1]: its section's and key's index; SIZE_MAX
 * not a [block] entry). */
static void bconf_names(struct bconf *bc, const struct config *cfg, size_t *at)
{
	bc->ns = 1;
	for (size_t i = 0; i < cfg->n; i++) {
		const struct cfg_entry *e = &cfg->v[i];
		size_t si, ki;

		at[2 * i] = SIZE_MAX;
		if (strcmp(e->section, "block"))
			continue;
		/* A section's entries come together: its own name first. */
		si = !e->name ? 0 : streq_ptr(bc->sections[bc->ns - 1], e->name) ? bc->ns - 1
			: index_of(bc->sections, bc->ns, e->name);
		if (si == bc->ns)
			bc->sections[bc->ns++] = e->name;
		ki = index_of(bc->keys, bc->nk, e->key);
		if (ki == bc->nk)
			bc->keys[bc->nk++] = e->key;
		at[2 * i] = si, at[2 * i + 1] = ki;
	}
}

struct bconf *bconf_new(const struct config *cfg)
{
	struct bconf *bc = calloc(1, sizeof(*bc));
	_cleanup_(freep) size_t *at = malloc((2 * cfg->n + 1) * sizeof(*at));

	/* At most cfg->n distinct sections and keys (+1 for [block]). */
	if (!bc || !at || !(bc->sections = calloc(cfg->n + 1, sizeof(char *))) ||
	    !(bc->matched = calloc(cfg->n + 1, sizeof(bool))) || !(bc->keys = calloc(cfg->n + 1, sizeof(char *)))) {
		bconf_free(bc);
		return NULL;
	}
	bconf_names(bc, cfg, at);
	bc->eff = calloc(bc->ns * bc->nk + 1, sizeof(*bc->eff));
	if (!bc->eff) {
		bconf_free(bc);
		return NULL;
	}
	/* config_get of each section and key, in one pass: the last
	 * assignment wins, an empty value unsets. */
	for (size_t i = 0; i < cfg->n; i++)
		if (at[2 * i] != SIZE_MAX)
			bc->eff[at[2 * i] * bc->nk + at[2 * i + 1]] = *cfg->v[i].value ? &cfg->v[i] : NULL;
	if (bconf_index(bc) < 0) {
		bconf_free(bc);
		return NULL;
	}
	return bc;
}

/* The first match.KEY of section i that d fails, NULL when d matches it. */
static const struct cfg_entry *bconf_miss(struct ctx *c, struct disk *d, const struct bconf *bc, size_t i)
{
	for (const size_t *m = &bc->smk[i * (bc->nmk + 1)]; *m < bc->nk; m++) {
		size_t k = *m;
		const struct cfg_entry *e = bc->eff[i * bc->nk + k];
		signed char *known = k == bc->class_k ? &bc->by_class[i * NCLASSES + d->cls] : NULL;

		if (known && !*known)
			*known = match_one(c, d, e->key + 6, e->value) ? 1 : -1;
		if (known ? *known < 0 : !match_one(c, d, e->key + 6, e->value))
			return e;
	}
	return NULL;
}

/* Every section's miss (bconf_miss) into miss, the sections d matches
 * into hit, in order, each marked matched: their count. */
size_t bconf_judge(struct ctx *c, struct disk *d, const struct bconf *bc, const struct cfg_entry **miss, size_t *hit)
{
	size_t n = 0;

	for (size_t i = 0; i < bc->ns; i++) {
		miss[i] = bconf_miss(c, d, bc, i);
		if (!miss[i]) {
			bc->matched[i] = true;
			hit[n++] = i;
		}
	}
	return n;
}

/* The unnamed [block] exists only when the configuration sets a key in it. */
static bool section_empty(const struct bconf *bc, size_t i)
{
	for (size_t k = 0; k < bc->nk; k++)
		if (bc->eff[i * bc->nk + k])
			return false;
	return true;
}

static const char *section_name(const struct bconf *bc, size_t i)
{
	return bc->sections[i] ? bc->sections[i] : "[block]";
}

/* The last matching section (of hit, the nhit a disk matches, in order)
 * that sets key k wins. */
const struct cfg_entry *bconf_lookup(const struct bconf *bc, const size_t *hit, size_t nhit, size_t k)
{
	for (size_t j = nhit; k < bc->nk && j--;)
		if (bc->eff[hit[j] * bc->nk + k])
			return bc->eff[hit[j] * bc->nk + k];
	return NULL;
}

/* Why no section tunes d: the sections for other classes together, then
 * each section for its class with the match.KEY that rules d out, or the
 * sections that match and set nothing. */
void bconf_why_none(const struct bconf *bc, const struct cfg_entry *const *miss, struct strbuf *sb)
{
	const char *sep = " (sections for other classes: ";
	bool any = false;

	for (size_t i = 0; i < bc->ns; i++)
		if (miss[i] && !strcmp(miss[i]->key, "match.class")) {
			sb_printf(sb, "%s%s", sep, section_name(bc, i));
			sep = ", ";
			any = true;
		}
	sep = any ? "; " : " (";
	for (size_t i = 0; i < bc->ns; i++)
		if (miss[i] && strcmp(miss[i]->key, "match.class")) {
			sb_printf(sb, "%s%s needs %s = %s", sep, section_name(bc, i), miss[i]->key, miss[i]->value);
			sep = "; ";
			any = true;
		}
	for (size_t i = 0; i < bc->ns; i++)
		if (!miss[i] && !section_empty(bc, i)) {
			sb_printf(sb, "%s%s matches it but sets nothing", sep, section_name(bc, i));
			sep = "; ";
			any = true;
		}
	if (any)
		sb_printf(sb, ")");
}

/* Without any [block] section the block domain is not in use: only a disk
 * asked for by --device gets a line. */
bool bconf_in_use(const struct ctx *c, const struct bconf *bc)
{
	return c->ndevices || bc->ns > 1 || !section_empty(bc, 0);
}

/* A section of the administrator's files that no disk here matched gets
 * one line when it names disks by more than their class: a typo in
 * match.model is seen, not silently matching nothing. A section for a class
 * this machine lacks (a fleet's configuration) and a profile's are not. */
void bconf_unmatched(const struct bconf *bc, struct plan *p)
{
	for (size_t i = 0; i < bc->ns; i++) {
		const struct cfg_entry *own = NULL;
		struct strbuf keys = { 0 };
		bool named = false;
		_cleanup_(freep) char *target = NULL;
		struct item *it;

		for (size_t k = 0; k < bc->nk && !bc->matched[i]; k++) {
			const struct cfg_entry *e = bc->eff[i * bc->nk + k];

			/* the source: a match key of the administrator's, else any key */
			if (e && strncmp(e->file, "profile ", 8) && (!own || (!strncmp(e->key, "match.", 6) &&
									   strncmp(own->key, "match.", 6))))
				own = e;
			if (e && !strncmp(e->key, "match.", 6))
				sb_printf(&keys, "%s%s = %s", keys.s ? ", " : "", e->key, e->value);
			named |= e && !strncmp(e->key, "match.", 6) && strcmp(e->key, "match.class") &&
				 strcmp(e->key, "match.slave_class");
		}
		target = own && named ? bc->sections[i] ? xasprintf("[block \"%s\"]", bc->sections[i]) : strdup("[block]") : NULL;
		it = target ? plan_add(p, "block", target, "-", "sys/block") : NULL;
		if (it) {
			item_from_entry(it, own);
			it->action = ACT_SKIP;
			item_setf(&it->reason, "no disk here matches this section%s%s%s, so its settings apply to none",
				  keys.s ? " (" : "", keys.s ? keys.s : "", keys.s ? ")" : "");
		}
		sb_free(&keys);
	}
}
