// SPDX-License-Identifier: LGPL-2.1-or-later
/* The commands: plan, apply, verify, revert — and how their items print. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "earlytune.h"

static const char *const action_names[] = { "change", "keep", "skip", "error" };
static const char *const result_names[] = { NULL, "applied", "failed" };

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int build_plan(struct ctx *c, struct plan *p)
{
	int r = 0;

	/* Modules first: later items name what they bring (bbr, fq, schedulers). */
	if (c->only & DOM_MODULES)
		r = modules_plan(c, p);
	if ((c->only & DOM_THP) && r >= 0)
		r = thp_plan(c, p);
	if ((c->only & DOM_NET) && r >= 0)
		r = net_plan(c, p);
	if ((c->only & DOM_BLOCK) && r >= 0)
		r = block_plan(c, p);
	return r;
}

/* ---- output ---------------------------------------------------------------- */

static const char *dash(const char *s)
{
	return s && *s ? s : "-";
}

static void print_json(const struct ctx *c, const struct plan *p, const char *command)
{
	struct strbuf sb = { 0 };

	sb_printf(&sb, "{\"version\":1,\"command\":");
	sb_json_str(&sb, command);
	sb_printf(&sb, ",\"kernel\":");
	sb_json_str(&sb, c->kernel.release);
	sb_printf(&sb, ",\"root\":");
	sb_json_str(&sb, c->root.dir);
	sb_printf(&sb, ",\"profile\":");
	sb_json_str(&sb, c->cfg.profile);
	sb_printf(&sb, ",\"items\":[");
	for (size_t i = 0; i < p->n; i++) {
		const struct item *it = &p->v[i];

		sb_printf(&sb, "%s\n{\"domain\":", i ? "," : "");
		sb_json_str(&sb, it->domain);
		sb_printf(&sb, ",\"target\":");
		sb_json_str(&sb, it->target);
		sb_printf(&sb, ",\"setting\":");
		sb_json_str(&sb, it->setting);
		if (it->cls) {
			sb_printf(&sb, ",\"class\":");
			sb_json_str(&sb, it->cls);
		}
		sb_printf(&sb, ",\"current\":");
		sb_json_str(&sb, it->current);
		sb_printf(&sb, ",\"desired\":");
		sb_json_str(&sb, it->desired);
		sb_printf(&sb, ",\"action\":\"%s\",\"result\":", action_names[it->action]);
		sb_json_str(&sb, result_names[it->result]);
		sb_printf(&sb, ",\"error\":");
		sb_json_str(&sb, it->error);
		sb_printf(&sb, ",\"reason\":");
		sb_json_str(&sb, it->reason);
		sb_printf(&sb, ",\"source\":");
		sb_json_str(&sb, it->source);
		sb_printf(&sb, ",\"unmet\":%s}", it->unmet ? "true" : "false");
	}
	sb_printf(&sb, "]}\n");
	if (!sb.oom)
		fputs(sb.s, stdout);
	sb_free(&sb);
}

static void widen(int *w, const char *s)
{
	int n = (int)strlen(dash(s));

	if (n > *w)
		*w = n;
}

static void print_table(const struct plan *p, bool results)
{
	int w[5] = { 6, 6, 7, 7, 7 };

	for (size_t i = 0; i < p->n; i++) {
		widen(&w[0], p->v[i].domain);
		widen(&w[1], p->v[i].target);
		widen(&w[2], p->v[i].setting);
		widen(&w[3], p->v[i].current);
		widen(&w[4], p->v[i].desired);
	}
	printf("%-*s %-*s %-*s %-*s %-*s %-6s %s%s\n", w[0], "DOMAIN", w[1], "TARGET", w[2], "SETTING",
	       w[3], "CURRENT", w[4], "DESIRED", "ACTION", results ? "RESULT  " : "", "REASON");
	for (size_t i = 0; i < p->n; i++) {
		const struct item *it = &p->v[i];

		printf("%-*s %-*s %-*s %-*s %-*s %-6s ", w[0], it->domain, w[1], it->target, w[2],
		       it->setting, w[3], dash(it->current), w[4], dash(it->desired),
		       action_names[it->action]);
		if (results)
			printf("%-7s ", dash(result_names[it->result]));
		if (it->error)
			printf("error: %s", it->error);
		else
			printf("%s", dash(it->reason));
		printf(it->source ? " [%s]\n" : "\n", it->source);
	}
}

struct counts {
	unsigned changed, kept, skipped, failed;
};

static struct counts count(const struct plan *p)
{
	struct counts n = { 0 };

	for (size_t i = 0; i < p->n; i++) {
		const struct item *it = &p->v[i];

		if (it->result == RES_APPLIED)
			n.changed++;
		else if (it->result == RES_FAILED || it->action == ACT_ERROR)
			n.failed++;
		else if (it->action == ACT_SKIP)
			n.skipped++;
		else
			n.kept++;
	}
	return n;
}

/* --boot: a line per change or failure in the kernel log, then the summary. */
static void log_boot(const struct ctx *c, const struct plan *p, const char *command)
{
	struct counts n = count(p);
	char what[64] = "";

	for (size_t i = 0; i < p->n; i++) {
		const struct item *it = &p->v[i];

		if (it->result == RES_APPLIED)
			log_msg(LOG_NOTICE, "%s %s %s: %s -> %s [%s]", it->domain, it->target, it->setting,
				dash(it->current), it->desired, dash(it->source));
		else if (it->error)
			log_msg(LOG_ERR, "%s %s %s: %s", it->domain, it->target, it->setting, it->error);
		else if (it->action == ACT_SKIP && it->unmet)
			log_msg(LOG_WARN, "%s %s %s: not applied: %s [%s]", it->domain, it->target,
				it->setting, dash(it->reason), dash(it->source));
	}
	/* udev runs one per device: the summary names it (and a tree not "/"). */
	if (c->ndevices == 1)
		snprintf(what, sizeof(what), " %s", c->devices[0]);
	else if (c->iface)
		snprintf(what, sizeof(what), " %s", c->iface);
	else if (c->ifindex)
		snprintf(what, sizeof(what), " ifindex %d", c->ifindex);
	log_msg(LOG_NOTICE, "%s%s%s%s: %u changed, %u kept, %u skipped, %u failed in %.1f ms", command, what,
		c->root.is_host ? "" : " --root ", c->root.is_host ? "" : c->root.dir, n.changed, n.kept,
		n.skipped, n.failed, (double)(now_ns() - c->t0_ns) / 1e6);
}

static void report(const struct ctx *c, const struct plan *p, const char *command, bool results)
{
	if (c->json)
		print_json(c, p, command);
	else if (c->boot)
		log_boot(c, p, command);
	else
		print_table(p, results);
}

static int exit_code(const struct plan *p)
{
	return count(p).failed ? 1 : 0;
}

/* ---- plan ------------------------------------------------------------------ */

int cmd_plan(struct ctx *c)
{
	struct plan p = { 0 };
	int r = build_plan(c, &p);

	if (r < 0)
		log_msg(LOG_ERR, "cannot list devices: %s", strerror(-r));
	report(c, &p, "plan", false);
	r = r < 0 ? 1 : exit_code(&p);
	plan_free(&p);
	return r;
}

/* ---- apply ----------------------------------------------------------------- */

/* The item failed: its error is the message, then the errno text. */
_printf_(3, 4) static void fail(struct item *it, int err, const char *fmt, ...)
{
	_cleanup_(freep) char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	it->result = RES_FAILED;
	item_setf(&it->error, "%s: %s", msg ? msg : "failed", strerror(-err));
}

/* Adds the original of it, with the identity of its device, to rs (not yet
 * saved). */
static int record_one(struct ctx *c, struct records *rs, const struct item *it, const char *original)
{
	char id[64];
	int r = state_identity_cached(rs, &c->root, it->domain, it->target, it->setting, it->path, id,
				      sizeof(id));

	return r < 0 ? r : state_add(rs, it, original, id);
}

/* After a scheduler switch the kernel reset nr_requests and replaced the
 * iosched/ directory: decide again from what is there now. A value that
 * cannot be read is a failure: what is not read cannot be recorded, and
 * nothing is written without its original on disk. */
static bool recheck(struct ctx *c, struct item *it, struct records *rs)
{
	char raw[256];
	int r = root_read(&c->root, it->path, raw, sizeof(raw));

	if (r < 0) {
		fail(it, r, r == -ENOENT ? "%s is missing after the scheduler switch"
					 : "cannot read %s after the scheduler switch", it->setting);
		return false;
	}
	if (item_compare_value(it, raw) == 0) {
		it->action = ACT_KEEP;
		return false;
	}
	it->action = ACT_CHANGE;
	if (!it->current) {
		item_set(&it->current, raw);
		r = record_one(c, rs, it, raw);
		if (r >= 0)
			r = state_commit(rs, &c->root);
		if (r < 0) {
			fail(it, r, "cannot record the original of %s", it->setting);
			return false;
		}
	}
	return true;
}

static void execute(struct ctx *c, struct item *it, struct records *rs)
{
	char raw[256];
	int r;

	if (it->recheck && !recheck(c, it, rs))
		return;
	if (it->module) {
		r = mods_load(c->mods, it->module, NULL);
		if (r < 0) {
			fail(it, r, "cannot load module %s", it->module);
			return;
		}
	}
	r = root_write(&c->root, it->path, it->desired);
	if (r < 0) {
		fail(it, r, "writing %s", it->desired);
		return;
	}
	r = root_read(&c->root, it->path, raw, sizeof(raw));
	if (r < 0) {
		fail(it, r, "reading back %s", it->setting);
		return;
	}
	if (item_compare_value(it, raw)) {
		it->result = RES_FAILED;
		item_setf(&it->error, "the kernel did not keep the value: wrote '%s', reads back '%s' (ignored, or rounded to whole pages or jiffies: configure a value it can store)",
			  it->desired, raw);
		return;
	}
	it->result = RES_APPLIED;
}

static bool wants_write(const struct item *it)
{
	return it->action == ACT_CHANGE || (it->recheck && it->action == ACT_KEEP);
}

/* Module loads are not undone by revert, so they have no original to keep. */
static bool recorded(const struct item *it)
{
	return wants_write(it) && it->current && it->kind != ITEM_MODULE;
}

/* Originals go to disk before the first write; if they cannot, nothing is written. */
static int record_originals(struct ctx *c, struct plan *p, struct records *rs)
{
	int r = 0;

	for (size_t i = 0; i < p->n && r >= 0; i++)
		if (recorded(&p->v[i]))
			r = record_one(c, rs, &p->v[i], p->v[i].current);
	return r < 0 ? r : state_commit(rs, &c->root);
}

static bool in_scope(const struct ctx *c, const struct record *x, int iface_ifindex);

/* A record of a disk that is gone, or whose name another disk has now (a new
 * sdX, dm-N, loopN, a re-attached volume), is not this disk's original: it is
 * forgotten, and the disk records its own. Only the disks this run is about;
 * a record whose check fails stays (recording that disk then fails too). */
static int forget_stale(struct ctx *c, struct records *rs)
{
	bool *drop = calloc(rs->n + 1, sizeof(*drop));
	char why[256];

	if (!drop)
		return -ENOMEM;
	for (size_t i = 0; i < rs->n; i++) {
		const struct record *x = &rs->v[i];

		if (!strcmp(x->domain, "block") && (c->only & DOM_BLOCK) && in_scope(c, x, 0) &&
		    state_stale(rs, &c->root, x, why, sizeof(why)) == 1) {
			log_msg(LOG_DEBUG, "forgetting the original of %s: %s", x->path, why);
			drop[i] = true;
		}
	}
	state_forget(rs, drop);
	free(drop);
	return 0;
}

static int apply_plan(struct ctx *c, struct plan *p)
{
	struct records rs = { .lock_fd = -1 };
	int r = state_lock(&rs, &c->root);

	if (r >= 0)
		r = state_load(&rs, &c->root);
	if (r >= 0)
		r = forget_stale(c, &rs);
	c->records = &rs;
	if (r >= 0)
		r = build_plan(c, p);
	c->records = NULL;
	if (r >= 0)
		r = record_originals(c, p, &rs);
	if (r < 0) {
		for (size_t i = 0; i < p->n; i++)
			if (wants_write(&p->v[i]))
				fail(&p->v[i], r, "not written: cannot record originals in %s/run/earlytune", c->root.is_host ? "" : c->root.dir);
	} else {
		bool qdiscs_done = false;

		for (size_t i = 0; i < p->n; i++) {
			struct item *it = &p->v[i];

			if (!wants_write(it))
				continue;
			if (it->kind == ITEM_MODULE) {
				modules_apply(c, it);
			} else if (it->kind == ITEM_QDISC) {
				/* All interfaces in one batch, at the first one's turn. */
				if (!qdiscs_done)
					net_apply_qdiscs(c, p);
				qdiscs_done = true;
			} else {
				execute(c, it, &rs);
			}
		}
	}
	state_free(&rs);
	return r;
}

int cmd_apply(struct ctx *c)
{
	struct plan p = { 0 };
	int r;

	if (kparam_disabled(c->kernel.cmdline)) {
		r = sysctl_mask_guard(&c->root);
		log_msg(LOG_NOTICE, "earlytune=0 on the kernel command line: applying nothing%s",
			r < 0 ? "" : "; sysctl guard masked for this boot");
		return 0;
	}
	r = apply_plan(c, &p);
	if (r < 0 && !p.n)
		log_msg(LOG_ERR, "cannot apply: %s/run/earlytune: %s", c->root.is_host ? "" : c->root.dir,
			strerror(-r));
	report(c, &p, "apply", true);
	r = r < 0 ? 1 : exit_code(&p);
	plan_free(&p);
	return r;
}

/* ---- verify ---------------------------------------------------------------- */

/* What verify makes of an item: in force, not, or not applicable here. */
enum verdict { V_HOLDS, V_DRIFTED, V_UNMET, V_NA };

static enum verdict verdict(const struct item *it)
{
	if (it->action == ACT_CHANGE || it->action == ACT_ERROR || it->foreign)
		return V_DRIFTED;
	if (it->action == ACT_SKIP)
		return it->unmet ? V_UNMET : V_NA;
	return V_HOLDS;
}

static void log_drift(const struct item *it, enum verdict v)
{
	if (it->error)
		log_msg(LOG_ERR, "drift: %s %s %s: %s", it->domain, it->target, it->setting, it->error);
	else if (v == V_UNMET)
		log_msg(LOG_WARN, "unmet: %s %s %s: not possible here: %s [%s]", it->domain, it->target,
			it->setting, dash(it->reason), dash(it->source));
	else if (it->foreign)
		log_msg(LOG_WARN, "drift: %s %s %s is '%s', want '%s': %s", it->domain, it->target,
			it->setting, dash(it->current), dash(it->desired), dash(it->reason));
	else
		log_msg(LOG_WARN, "drift: %s %s %s is '%s', want '%s' [%s]", it->domain, it->target,
			it->setting, dash(it->current), dash(it->desired), dash(it->source));
}

/* Exit 1 unless every item the configuration asks for is in force: changed
 * by someone (drifted) and impossible on this kernel (unmet) both count;
 * what does not apply here (a partition, a bio-based queue, another network
 * namespace) does not. */
int cmd_verify(struct ctx *c)
{
	struct plan p = { 0 };
	unsigned n[4] = { 0 };
	int r = build_plan(c, &p);

	if (r < 0)
		log_msg(LOG_ERR, "verify: cannot list devices: %s", strerror(-r));
	for (size_t i = 0; i < p.n; i++) {
		enum verdict v = verdict(&p.v[i]);

		n[v]++;
		if (!c->json && (v == V_DRIFTED || v == V_UNMET))
			log_drift(&p.v[i], v);
	}
	if (c->json)
		print_json(c, &p, "verify");
	else if (!c->boot)
		printf("verify: %u hold, %u drifted, %u unmet, %u not applicable\n", n[V_HOLDS], n[V_DRIFTED],
		       n[V_UNMET], n[V_NA]);
	plan_free(&p);
	return r < 0 || n[V_DRIFTED] || n[V_UNMET] ? 1 : 0;
}

/* ---- revert ---------------------------------------------------------------- */

static const char *domain_name(const char *d)
{
	return !strcmp(d, "thp") ? "thp" : !strcmp(d, "net") ? "net" : "block";
}

/* The disk (--device) or interface (--ifindex, --iface) a record is about is
 * one the command names; without them every record is. Global records
 * (THP, sysctls) belong to no disk or interface: not with those options.
 * iface_ifindex: the index --iface has now (it follows a rename), or 0. */
static bool in_scope(const struct ctx *c, const struct record *x, int iface_ifindex)
{
	int ifindex = !strcmp(x->domain, "net") ? record_ifindex(x->setting, x->path) : 0;

	if (!c->ndevices && !c->ifindex && !c->iface)
		return true;
	for (size_t i = 0; i < c->ndevices; i++)
		if (!strcmp(x->domain, "block") && !strcmp(x->target, c->devices[i]))
			return true;
	return ifindex && ((c->ifindex && ifindex == c->ifindex) ||
			   (c->iface && (ifindex == iface_ifindex || !strcmp(x->target, c->iface))));
}

static bool selected(const struct ctx *c, const struct record *x, int iface_ifindex)
{
	bool dom = (!strcmp(x->domain, "block") && (c->only & DOM_BLOCK)) ||
		   (!strcmp(x->domain, "thp") && (c->only & DOM_THP)) ||
		   (!strcmp(x->domain, "net") && (c->only & DOM_NET));

	return dom && in_scope(c, x, iface_ifindex);
}

/* The index interface --iface has now, or 0 (none by that name). */
static int iface_index(const struct ctx *c)
{
	char rel[64], buf[32];
	unsigned long long v;

	if (!c->iface)
		return 0;
	snprintf(rel, sizeof(rel), "sys/class/net/%s/ifindex", c->iface);
	if (root_read(&c->root, rel, buf, sizeof(buf)) < 0 || parse_u64(buf, &v) < 0 || v > INT_MAX)
		return 0;
	return (int)v;
}

static int rec_rank(const struct record *x)
{
	if (!strcmp(x->domain, "block"))
		return block_rank(x->setting);
	return !strcmp(x->domain, "net") ? net_rank(x->setting) : 0;
}

/* Same order as apply: scheduler first (it resets nr_requests), read-ahead
 * last (6.11+ re-raises it when other queue attributes are written), the
 * default qdisc before the interfaces that take it. */
static const struct records *sort_rs;
static int cmp_rec(const void *a, const void *b)
{
	const struct record *x = &sort_rs->v[*(const size_t *)a], *y = &sort_rs->v[*(const size_t *)b];
	int d = strcmp(x->domain, y->domain);

	if (!d)
		d = rec_rank(x) - rec_rank(y);
	if (!d)
		d = strverscmp(x->target, y->target);
	return d ? d : (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

static bool restore(struct ctx *c, const struct record *x, struct item *it)
{
	char raw[256];
	int r = root_read(&c->root, x->path, raw, sizeof(raw));

	it->selector = r > 0 && strchr(raw, '[');
	if (r == -ENOENT && !strncmp(x->setting, "queue/iosched/", 14)) {
		/* The tunable left with the scheduler we selected. */
		it->action = ACT_SKIP;
		item_set(&it->reason, "tunable went away with the scheduler that had it");
		return true;
	}
	if (r >= 0) {
		char active[128];

		item_set(&it->current, it->selector && selector_active(raw, active, sizeof(active)) == 0 ? active : raw);
		if (item_compare_value(it, raw) == 0) {
			it->action = ACT_KEEP;
			return true;
		}
	}
	it->action = ACT_CHANGE;
	r = root_write(&c->root, x->path, x->value);
	if (r >= 0)
		r = root_read(&c->root, x->path, raw, sizeof(raw));
	if (r < 0) {
		fail(it, r, "restoring '%s'", x->value);
		return false;
	}
	it->selector = it->selector || strchr(raw, '[');
	if (item_compare_value(it, raw)) {
		it->result = RES_FAILED;
		item_setf(&it->error, "kernel ignored the write: wrote '%s', reads back '%s'", x->value, raw);
		return false;
	}
	it->result = RES_APPLIED;
	return true;
}

/* The qdisc items of the revert plan p (in the order of idx) go back to the
 * kernel together, after the default_qdisc sysctl they depend on. */
static int revert_qdiscs(struct ctx *c, struct records *rs, struct plan *p, const size_t *idx, bool *done)
{
	struct item **items = calloc(p->n + 1, sizeof(*items));
	const char **values = calloc(p->n + 1, sizeof(*values));
	size_t *which = calloc(p->n + 1, sizeof(*which)), n = 0;
	int r = !items || !values || !which ? -ENOMEM : 0;

	for (size_t k = 0; r >= 0 && k < p->n; k++) {
		if (p->v[k].kind != ITEM_QDISC)
			continue;
		items[n] = &p->v[k];
		values[n] = rs->v[idx[k]].value;
		which[n++] = idx[k];
	}
	if (r >= 0 && n)
		r = net_revert_qdiscs(c, items, values, n);
	for (size_t k = 0; r >= 0 && k < n; k++)
		done[which[k]] = items[k]->result != RES_FAILED;
	if (r == -EXDEV) {
		for (size_t k = 0; k < n; k++)
		{
			item_setf(&items[k]->error, "netlink reaches only the running kernel, not --root %s", c->root.dir);
			items[k]->result = RES_FAILED;
		}
		r = 0;
	}
	free(items);
	free(values);
	free(which);
	return r;
}

/* Whether record x still describes the device there now. A stale one is
 * dropped and the revert says so (a skip, not a failure): its value belongs
 * to a device that left, and another that has its name now has its own. A
 * check that fails keeps the record and fails the item. */
static bool current(struct ctx *c, struct records *rs, const struct record *x, struct item *it)
{
	char why[256];
	int r = state_stale(rs, &c->root, x, why, sizeof(why));

	if (r < 0)
		fail(it, r, "cannot tell whether %s is still the device recorded", x->target);
	else if (r > 0) {
		it->action = ACT_SKIP;
		item_setf(&it->reason, "record dropped, not written: %s", why);
	}
	return r == 0;
}

static int revert_records(struct ctx *c, struct records *rs, struct plan *p)
{
	size_t *idx = calloc(rs->n + 1, sizeof(*idx)), n = 0;
	bool *done = calloc(rs->n + 1, sizeof(*done));
	int r = 0;

	if (!idx || !done) {
		free(idx);
		free(done);
		return -ENOMEM;
	}
	int iface_ifindex = iface_index(c);

	for (size_t i = 0; i < rs->n; i++)
		if (selected(c, &rs->v[i], iface_ifindex))
			idx[n++] = i;
	sort_rs = rs;
	if (n)
		qsort(idx, n, sizeof(*idx), cmp_rec);
	for (size_t k = 0; k < n; k++) {
		const struct record *x = &rs->v[idx[k]];
		struct item *it = plan_add(p, domain_name(x->domain), x->target, x->setting, x->path);

		if (!it) {
			r = -ENOMEM;
			break;
		}
		item_set(&it->desired, x->value);
		item_set(&it->reason, "original value recorded before earlytune changed it");
		if (!current(c, rs, x, it))
			done[idx[k]] = it->action == ACT_SKIP; /* stale: forgotten, not written */
		else if (!strcmp(x->domain, "net") && !strcmp(x->setting, "qdisc"))
			it->kind = ITEM_QDISC; /* handed back below, in one batch */
		else
			done[idx[k]] = restore(c, x, it);
	}
	if (r >= 0)
		r = revert_qdiscs(c, rs, p, idx, done);
	state_forget(rs, done);
	free(idx);
	free(done);
	return r;
}

int cmd_revert(struct ctx *c)
{
	struct records rs = { .lock_fd = -1 };
	struct plan p = { 0 };
	int r = state_lock(&rs, &c->root);

	if (r >= 0)
		r = state_load(&rs, &c->root);
	if (r >= 0)
		r = revert_records(c, &rs, &p);
	if (r >= 0)
		r = state_save(&rs, &c->root);
	if (r < 0)
		log_msg(LOG_ERR, "cannot revert: %s/run/earlytune: %s", c->root.is_host ? "" : c->root.dir,
			strerror(-r));
	state_free(&rs);
	report(c, &p, "revert", true);
	r = r < 0 ? 1 : exit_code(&p);
	plan_free(&p);
	return r;
}

/* ---- forget ---------------------------------------------------------------- */

/* udev's remove: the records of a disk or interface that left go with it, so
 * that a device which takes its name later records its own originals. The
 * cheap path: no configuration, no plan, no sysfs (the device is gone).
 * --diskseq keeps the records of a newer disk of that name. */
static bool forgettable(const struct ctx *c, const struct record *x)
{
	unsigned long long seq;

	if (!in_scope(c, x, 0))
		return false;
	return !c->diskseq || strncmp(x->identity, "diskseq:", 8) ||
	       (parse_u64(x->identity + 8, &seq) == 0 && seq == c->diskseq);
}

int cmd_forget(struct ctx *c)
{
	struct records rs = { .lock_fd = -1 };
	bool *drop = NULL;
	char ifx[16];
	size_t n = 0;
	int r;

	snprintf(ifx, sizeof(ifx), "%d", c->ifindex);
	if (!c->ndevices && !c->ifindex && !c->iface) {
		log_msg(LOG_ERR, "forget: name the device (--device NAME) or interface (--ifindex N, --iface NAME)");
		return 2;
	}
	r = state_lock(&rs, &c->root);
	if (r >= 0)
		r = state_load(&rs, &c->root);
	if (r >= 0 && !(drop = calloc(rs.n + 1, sizeof(*drop))))
		r = -ENOMEM;
	for (size_t i = 0; r >= 0 && i < rs.n; i++)
		n += drop[i] = forgettable(c, &rs.v[i]);
	if (r >= 0) {
		state_forget(&rs, drop);
		r = state_commit(&rs, &c->root);
	}
	if (r < 0)
		log_msg(LOG_ERR, "cannot forget: %s/run/earlytune: %s", c->root.is_host ? "" : c->root.dir,
			strerror(-r));
	else if (n || !c->boot)
		log_msg(LOG_NOTICE, "forget %s%s: %zu record%s dropped", c->ndevices ? c->devices[0] : c->iface ? c->iface : "ifindex ",
			c->ndevices || c->iface ? "" : ifx, n, n == 1 ? "" : "s");
	free(drop);
	state_free(&rs);
	return r < 0 ? 1 : 0;
}
