// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * `earlytune cmdline`: suggest, apply, remove, verify. Kernel command-line
 * suggestions for a kernel version (suggest.c), integrated with the
 * bootloader through one backend of backend.c (ostree, BLS with grubby,
 * Debian GRUB drop-in, kernel-install, UKI). earlytune records exactly what
 * it added in /var/lib/earlytune/cmdline.state (record.c) and removes
 * exactly that.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/kparam.h"
#include "base/log.h"
#include "engine/engine.h"
#include "cmdline/internal.h"

int cmd_cmdline_suggest(struct ctx *c)
{
	struct suggs s = { 0 };
	int r = suggest_collect(c, &s);

	if (r >= 0)
		suggest_print(c, &s);
	suggs_free(&s);
	return r < 0 ? 1 : 0;
}

/* The parameters as arrays: wanted (apply; NULL for remove), and what this
 * run added or removed (key), none when nothing changed. */
static void json_result(const struct ctx *c, const char *command, const char *backend, const char *wanted,
			const char *key, const char *done, const char *hint)
{
	struct strbuf sb = { 0 };

	json_head(&sb, c, command);
	if (c->platform.resolved)
		json_platform(&sb, &c->platform);
	json_field(&sb, "backend", backend);
	if (wanted)
		json_words(&sb, "wanted", wanted);
	json_words(&sb, key, done);
	sb_printf(&sb, ",\"changed\":%s", done && *done ? "true" : "false");
	json_field(&sb, "next", hint);
	sb_printf(&sb, "}\n");
	json_emit(&sb);
}

/* The parameters to add, space-separated, into *out. */
static int wanted_params(struct ctx *c, char **out)
{
	struct suggs s = { 0 };
	struct strbuf sb = { 0 };
	int r = suggest_collect(c, &s);

	for (size_t i = 0; r >= 0 && i < s.n; i++) {
		if (s.v[i].remove || !s.v[i].param[0] || (sb.s && kcmd_has(sb.s, s.v[i].param)))
			continue;
		if (s.v[i].security)
			log_msg(LOG_WARN, "warning: adding %s, which weakens the kernel's protection (configured)", s.v[i].param);
		sb_printf(&sb, "%s%s", sb.len ? " " : "", s.v[i].param);
	}
	suggs_free(&s);
	if (r >= 0 && sb.oom)
		r = -ENOMEM;
	if (r < 0) {
		sb_free(&sb);
		return r;
	}
	*out = sb.s ? sb.s : strdup("");
	return *out ? 0 : -ENOMEM;
}

/* apply and remove say the same, with the image named under --root (its
 * bootloader is regenerated there, not by this host's update-grub). */
static void say_next_step(struct ctx *c, const struct backend *b, const char *what)
{
	bl_say(c, "run %s%s to regenerate %s; %s at the next boot\n",
	       c->root.is_host ? "" : "(in the image) ", b->update, b->updates, what);
}

/* The backend's edit, then what makes it take effect: a reboot, or its
 * update command (run here with --update on the host). */
static int apply_backend(struct apply *ap, bool update)
{
	const struct backend *b = ap->be;
	struct ctx *c = ap->c;
	int r = b->add(ap);

	/* A backend that records nothing (ostree, UKI) has said what to do. */
	if (r < 0 || !b->remove)
		return r;
	bl_say(c, "%s: %s%s\n", b->name, ap->changed ? "added " : "already in place: ", ap->shown);
	if (!b->update || !ap->changed) {
		sb_printf(ap->next_step, "reboot");
		return 0;
	}
	if (update && c->root.is_host) {
		char *argv[] = { (char *)b->update, NULL };

		r = bl_run(argv, NULL, 0);
		if (r < 0)
			log_msg(LOG_ERR, "%s failed: %s", b->update, strerror(-r));
		return r;
	}
	sb_printf(ap->next_step, "%s", b->update);
	say_next_step(c, b, "the parameters take effect");
	return 0;
}

/* The record and its backend (*b, when one is recorded); a record naming
 * no backend earlytune has is not one it wrote. */
static int state_loaded(struct ctx *c, struct added *a, const struct backend **b)
{
	int r = added_load(&c->root, a);

	if (r > 0 && !(*b = backend_find(a->backend)))
		r = -EINVAL;
	return r < 0 ? bl_read_error(c, CMDLINE_STATE, r) : r;
}

/* --backend NAME, else the one whose files exist: 0, or the exit status. */
static int choose_backend(struct ctx *c, const char *name, const struct backend **b)
{
	struct strbuf names = { 0 };

	if (name) {
		*b = backend_find(name);
		if (*b)
			return 0;
		backend_names(&names);
		log_msg(LOG_ERR, "--backend: unknown '%s'; backends: %s", name, names.s ? names.s : "");
		sb_free(&names);
		return 2;
	}
	if (backend_detect(&c->root, b) < 0)
		return 1;
	if (!*b) {
		log_msg(LOG_ERR, "no bootloader configuration found (ostree, BLS entries, /etc/default/grub, "
				 "/etc/kernel/cmdline, a UKI): name one with --backend");
		return 1;
	}
	return 0;
}

/* What this run added: the record grew by exactly that (nothing when the
 * backend changed nothing, or records nothing and only said what to run). */
static void json_added(const struct ctx *c, const struct apply *ap, const char *next)
{
	_cleanup_(freep) char *added = NULL;

	if (ap->changed && ap->next.params && kcmd_missing(ap->prev->params, ap->next.params, &added) < 0)
		added = NULL;
	json_result(c, "cmdline apply", ap->be->name, ap->params, "added", added ? added : "", next);
}

int cmd_cmdline_apply(struct ctx *c, const char *backend, bool update)
{
	_cleanup_(freep) char *params = NULL;
	const struct backend *b = NULL, *was = NULL;
	struct strbuf next = { 0 };
	struct added a;
	struct apply ap = { .c = c };
	int r = choose_backend(c, backend, &b);

	if (r)
		return r;
	if (wanted_params(c, &params) < 0)
		return 1;
	if (state_loaded(c, &a, &was) < 0) {
		added_free(&a);
		return 1;
	}
	if (*a.backend && strcmp(a.backend, b->name)) {
		log_msg(LOG_ERR, "earlytune's parameters are integrated with %s; run `earlytune cmdline remove` first",
			a.backend);
		added_free(&a);
		return 1;
	}
	if (!*params) {
		bl_say(c, "nothing to add for kernel %s\n", c->kernel.release);
		if (c->json)
			json_result(c, "cmdline apply", b->name, "", "added", "", NULL);
		added_free(&a);
		return 0;
	}
	ap = (struct apply){ .c = c, .be = b, .params = params, .prev = &a, .shown = params, .next_step = &next };
	r = apply_backend(&ap, update);
	if (r == -ENOMEM)
		log_msg(LOG_ERR, "cmdline apply: %s; nothing changed", strerror(-r));
	if (c->json && r >= 0)
		json_added(c, &ap, next.s);
	sb_free(&next);
	added_free(&ap.next);
	added_free(&a);
	return r < 0 ? 1 : 0;
}

int cmd_cmdline_remove(struct ctx *c)
{
	struct added a, none = { .params = "" };
	const struct backend *b = NULL;
	bool changed = false;
	int r = state_loaded(c, &a, &b);

	if (r < 0) {
		added_free(&a);
		return 1;
	}
	if (!r || !*a.params) {
		bl_say(c, "nothing earlytune added is recorded\n");
		if (c->json)
			json_result(c, "cmdline remove", NULL, NULL, "removed", "", NULL);
		added_free(&a);
		return 0;
	}
	if (b->remove)
		r = b->remove(c, &a, &changed);
	if (r < 0) {
		added_free(&a);
		return 1;
	}
	bl_say(c, "%s: removed %s\n", a.backend, a.params);
	if (b->update && changed)
		say_next_step(c, b, "the removal takes effect");
	if (c->json)
		json_result(c, "cmdline remove", a.backend, NULL, "removed", a.params, b->update ? b->update : "reboot");
	r = added_save(&c->root, &none);
	if (r < 0)
		log_msg(LOG_ERR, "cannot clear /%s: %s", CMDLINE_STATE, strerror(-r));
	added_free(&a);
	return r < 0 ? 1 : 0;
}

/* verify --image: the parameters suggested for c->kernel (*wanted), those
 * of them no backend integrates (the record lacks them: *missing), both
 * space-separated; backend the recorded one ("" none). 0, or -errno (logged). */
int cmdline_missing(struct ctx *c, char **wanted, char **missing, char *backend, size_t size)
{
	const struct backend *b = NULL;
	struct added a = { 0 };
	int r = wanted_params(c, wanted);

	if (r >= 0 && (r = state_loaded(c, &a, &b)) >= 0) {
		snprintf(backend, size, "%s", a.backend);
		r = kcmd_missing(a.params, *wanted, missing);
		if (r < 0)
			log_msg(LOG_ERR, "cmdline: %s", strerror(-r));
	}
	added_free(&a);
	return r < 0 ? r : 0;
}

/* Integrated but not booted yet, or suggested but nowhere: exit 1. */
int cmd_cmdline_verify(struct ctx *c)
{
	_cleanup_(freep) char *params = NULL;
	struct strbuf js = { 0 };
	const struct backend *b = NULL;
	struct added a;
	const char *w, *sep = "";
	size_t n;
	int bad = 0, r;

	if (wanted_params(c, &params) < 0)
		return 1;
	r = state_loaded(c, &a, &b);
	if (r < 0) {
		added_free(&a);
		return 1;
	}
	json_head(&js, c, "cmdline verify");
	json_platform(&js, &c->platform);
	json_field(&js, "backend", *a.backend ? a.backend : NULL);
	sb_printf(&js, ",\"pending\":[");
	for (const char *p = a.params; (w = kcmd_word(&p, &n));) {
		_cleanup_(freep) char *word = strndup(w, n);

		if (!word || kparam_has_param(c->kernel.cmdline, word))
			continue;
		if (!c->json)
			printf("pending: %s is in the %s configuration but not in /proc/cmdline: reboot\n", word, a.backend);
		sb_printf(&js, "%s", bad++ ? "," : "");
		sb_json_str(&js, word);
	}
	sb_printf(&js, "],\"missing\":[");
	for (const char *p = params; (w = kcmd_word(&p, &n));) {
		_cleanup_(freep) char *word = strndup(w, n);

		if (!word || kcmd_has(a.params, word))
			continue;
		if (!c->json)
			printf("missing: %s is suggested but neither booted nor integrated: earlytune cmdline apply\n", word);
		sb_printf(&js, "%s", sep);
		sb_json_str(&js, word);
		sep = ",";
		bad++;
	}
	sb_printf(&js, "],\"in_force\":%s}\n", bad ? "false" : "true");
	if (c->json)
		json_emit(&js);
	else
		printf("cmdline: %s\n", bad ? "reboot pending or parameters missing" : "in force");
	sb_free(&js);
	added_free(&a);
	return bad ? 1 : 0;
}
