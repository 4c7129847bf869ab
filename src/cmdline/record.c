// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What earlytune added to the kernel command line, and with which
 * bootloader backend: one line in /var/lib/earlytune/cmdline.state (see
 * struct added), written with root_write_atomic before the bootloader is
 * touched, so that `cmdline remove` takes out exactly that.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "cmdline/internal.h"

void added_free(struct added *a)
{
	free(a->params);
	free(a->wrote);
	*a = (struct added){ .params = NULL };
}

static char *hex_encode(const char *s)
{
	size_t n = strlen(s);
	char *out = malloc(2 * n + 1);

	for (size_t i = 0; out && i < n; i++)
		sprintf(out + 2 * i, "%02x", (unsigned char)s[i]);
	if (out)
		out[2 * n] = '\0';
	return out;
}

static int hexval(char x)
{
	return x <= '9' ? x - '0' : x - 'a' + 10;
}

static int hex_decode(const char *h, char **out)
{
	size_t n = strlen(h);
	char *s;

	if (n % 2 || strspn(h, "0123456789abcdef") != n)
		return -EINVAL;
	s = malloc(n / 2 + 1);
	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < n / 2; i++)
		s[i] = (char)(hexval(h[2 * i]) << 4 | hexval(h[2 * i + 1]));
	s[n / 2] = '\0';
	if (strlen(s) != n / 2) {
		free(s);
		return -EINVAL;
	}
	*out = s;
	return 0;
}

static int parse_state(char *buf, struct added *a)
{
	char *f[4] = { NULL }, *save = NULL;
	size_t n = 0;

	buf[strcspn(buf, "\n")] = '\0';
	for (char *t = strtok_r(buf, "\t", &save); t && n < 4; t = strtok_r(NULL, "\t", &save))
		f[n++] = t;
	if (n < 2 || strlen(f[0]) >= sizeof(a->backend))
		return -EINVAL;
	snprintf(a->backend, sizeof(a->backend), "%s", f[0]);
	a->params = strdup(strip(f[1]));
	if (!a->params)
		return -ENOMEM;
	if (f[2] && strncmp(f[2], "created", 7))
		return -EINVAL;
	a->created = f[2] != NULL;
	if (f[2] && f[2][7] == ':')
		return hex_decode(f[2] + 8, &a->wrote);
	return f[2] && f[2][7] ? -EINVAL : 0;
}

/* 1 with *a filled, 0 when nothing is recorded, -errno when that cannot be
 * told (unreadable or malformed: never "nothing recorded"). */
int added_load(const struct root *r, struct added *a)
{
	_cleanup_(freep) char *buf = NULL;
	int rr;

	*a = (struct added){ .params = strdup("") };
	if (!a->params)
		return -ENOMEM;
	rr = bl_read(r, CMDLINE_STATE, &buf);
	if (rr == -ENOENT)
		return 0;
	if (rr < 0)
		return rr;
	if (!*strip(buf))
		return 0;
	free(a->params);
	a->params = NULL;
	rr = parse_state(buf, a);
	if (rr < 0) {
		added_free(a);
		a->params = strdup("");
		return a->params ? rr : -ENOMEM;
	}
	return 1;
}

int added_save(const struct root *r, const struct added *a)
{
	_cleanup_(freep) char *hex = a->wrote ? hex_encode(a->wrote) : NULL;
	_cleanup_(freep) char *line = NULL;

	if (!*a->params) {
		int rr = root_unlink(r, CMDLINE_STATE, 0);

		return rr == -ENOENT ? 0 : rr;
	}
	if (a->wrote && !hex)
		return -ENOMEM;
	line = xasprintf("%s\t%s%s%s%s\n", a->backend, a->params, a->created ? "\tcreated" : "",
			 hex ? ":" : "", hex ? hex : "");
	return line ? root_write_new(r, CMDLINE_STATE, line, strlen(line), 0644) : -ENOMEM;
}

/* State before the bootloader: what apply is about to add is recorded
 * first, so a failed state write changes nothing and a failed bootloader
 * write leaves at most a record remove handles. */
int added_record(struct ctx *c, const struct added *next)
{
	int r = added_save(&c->root, next);

	if (r < 0)
		log_msg(LOG_ERR, "cannot record the parameters in %s: %s; nothing changed", CMDLINE_STATE, strerror(-r));
	return r;
}

/* After a failed bootloader write: the record goes back to what it was,
 * but only when the bootloader provably holds nothing new (a write can fail
 * after its rename, in the directory fsync; grubby can fail halfway): a
 * record of words that are not there is harmless, words without one are not. */
void added_undo(struct ctx *c, const struct added *prev, bool unchanged)
{
	int r = unchanged ? added_save(&c->root, prev) : 0;

	if (r < 0)
		log_msg(LOG_ERR, "cannot restore %s: %s; `earlytune cmdline remove` removes what it records",
			CMDLINE_STATE, strerror(-r));
}

/* An apply that writes one file: ap->next recorded first, then rel
 * written; after a failed write the record goes back only while rel
 * provably still holds old (NULL: is still absent). */
int added_write(struct apply *ap, const char *rel, const char *body, const char *old)
{
	int r = added_record(ap->c, &ap->next);

	if (r < 0)
		return r;
	r = root_write_new(&ap->c->root, rel, body, strlen(body), 0644);
	if (r < 0) {
		log_msg(LOG_ERR, "cannot write /%s: %s", rel, strerror(-r));
		added_undo(ap->c, ap->prev, bl_still(&ap->c->root, rel, old));
		return r;
	}
	ap->changed = true;
	return 0;
}

/* prev with more params (space-joined); backend and created facts as given. */
int added_next(const struct added *prev, const char *backend, const char *more, struct added *next)
{
	*next = (struct added){ .created = prev->created };
	snprintf(next->backend, sizeof(next->backend), "%s", backend);
	next->params = xasprintf("%s%s%s", prev->params, *prev->params && *more ? " " : "", more);
	return next->params ? 0 : -ENOMEM;
}
