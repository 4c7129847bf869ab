// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * udev rules that write a disk's attribute earlytune sets: ATTR{queue/X}
 * and ATTR{bdi/read_ahead_kb} assignments ([block]'s), any ATTR{X} a
 * [sysfs] path below a disk's directory names, and RUN programs that name a
 * queue attribute; for interfaces, ATTR{} below their directory
 * (tx_queue_len, queues/rx-N/rps_cpus) and RUN programs that call ethtool
 * -K/-C/-G/-L or set a txqueuelen.
 * udev writes an ATTR{} while it processes the rules and runs RUN programs
 * only after all rules, in rule order: so on "add" earlytune's RUN (from
 * 70-earlytune.rules) comes after every ATTR{} whatever the file order, and
 * after the RUN programs of rules that sort before it. A rule that also fires
 * on "change" writes again where earlytune does not run (it re-runs on
 * change only for dm and md). Match keys evaluated here: ACTION, SUBSYSTEM,
 * KERNEL (globs with |), ENV{DEVTYPE}, ATTR{} read from the tree; any other
 * makes the rule "may apply".
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "writers/udev.h"

#define EARLYTUNE_RULES "70-earlytune.rules"
enum { U_RUN = 1 };

static size_t name_len(const char *s)
{
	size_t n = 0;

	while ((s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= 'a' && s[n] <= 'z') || s[n] == '_')
		n++;
	return n;
}

/* KEY{attr}OP"value" at *p: 1 and *p past it, 0 at the end of the rule,
 * -EINVAL at a pair that does not parse (the rest of the rule is not read). */
int udev_next_pair(const char **p, struct udev_pair *u)
{
	const char *s = *p, *close;
	size_t n;

	while (*s == ' ' || *s == '\t' || *s == ',')
		s++;
	if (!*s || *s == '#')
		return 0;
	*u = (struct udev_pair){ 0 };
	n = name_len(s);
	if (!n || n >= sizeof(u->key))
		return -EINVAL;
	memcpy(u->key, s, n);
	s += n;
	if (*s == '{') {
		if (!(close = strchr(s, '}')) || (size_t)(close - s - 1) >= sizeof(u->attr))
			return -EINVAL;
		memcpy(u->attr, s + 1, close - s - 1);
		s = close + 1;
	}
	while (*s == ' ' || *s == '\t')
		s++;
	n = strspn(s, "=!+-:");
	if (n < 1 || n > 2 || (n == 2 && s[1] != '=') || (n == 1 && s[0] != '='))
		return -EINVAL;
	memcpy(u->op, s, n);
	s += n;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s != '"' && s[0] && s[1] == '"')
		s++; /* e"…", a"…": udev's string prefixes */
	if (*s != '"')
		return -EINVAL;
	for (n = 0, s++; *s && *s != '"'; s++) {
		if (*s == '\\' && s[1])
			s++;
		if (n + 1 < sizeof(u->value))
			u->value[n++] = *s;
	}
	if (*s != '"')
		return -EINVAL;
	u->value[n] = '\0';
	*p = s + 1;
	return 1;
}

/* "a|b*" against s. */
static bool any_glob(const char *alts, const char *s)
{
	char buf[sizeof(((struct udev_pair *)0)->value)];

	snprintf(buf, sizeof(buf), "%s", alts);
	for (char *save = NULL, *g = strtok_r(buf, "|", &save); g; g = strtok_r(NULL, "|", &save))
		if (fnmatch(g, s, 0) == 0)
			return true;
	return !*alts && !*s;
}

/* One match key against the disk: 1, 0, or 2 (cannot tell here). */
/* A rule's match keys against a disk, or with net an interface. */
static int match_key(const struct wctx *w, const struct udev_pair *u, const char *disk, bool net,
		     struct udev_when *when)
{
	bool neg = !strcmp(u->op, "!=");
	char path[PATH_MAX], val[256];
	int m;

	if (!strcmp(u->key, "ACTION")) {
		when->add = any_glob(u->value, "add") != neg;
		when->change = any_glob(u->value, "change") != neg;
		return when->add || when->change;
	}
	if (!strcmp(u->key, "SUBSYSTEM"))
		m = any_glob(u->value, net ? "net" : "block");
	else if (!strcmp(u->key, "KERNEL"))
		m = any_glob(u->value, disk);
	else if (!strcmp(u->key, "ENV") && !strcmp(u->attr, "DEVTYPE") && !net)
		m = any_glob(u->value, "disk");
	else if (!strcmp(u->key, "ATTR") &&
		 pathf(path, sizeof(path), net ? "sys/class/net/%s/%s" : "sys/block/%s/%s", disk, u->attr) == 0 &&
		 root_read(w->r, path, val, sizeof(val)) >= 0)
		m = any_glob(u->value, val);
	else
		return 2;
	return m != neg;
}

static int rule_matches(const struct wctx *w, const char *rule, const char *disk, bool net, struct udev_when *when)
{
	struct udev_pair u;
	int r, res = 1;

	*when = (struct udev_when){ true, true };
	for (const char *p = rule; (r = udev_next_pair(&p, &u)) > 0;) {
		int m;

		if (strcmp(u.op, "==") && strcmp(u.op, "!="))
			continue; /* an assignment */
		m = match_key(w, &u, disk, net, when);
		if (!m)
			return 0;
		if (m == 2)
			res = 2;
	}
	return r < 0 ? 2 : res;
}

int udev_rule_matches(const struct wctx *w, const char *rule, const char *disk, struct udev_when *when)
{
	return rule_matches(w, rule, disk, false, when);
}

static bool reruns_on_change(const char *disk)
{
	return !strncmp(disk, "dm-", 3) || !strncmp(disk, "md", 2);
}

/* The device an item writes an attribute of, and that attribute: a [block]
 * item's target and setting, a [sysfs] item's path below sys/block/DISK or
 * sys/class/block/DISK, or (*net) an interface's setting as nic_item()
 * names it. false: no device's. */
static bool device_attr(const struct item *it, char *dev, size_t size, const char **attr, bool *net)
{
	static const char *const dirs[] = { "sys/block/", "sys/class/block/" };

	*net = nic_item(it, dev, size, attr);
	if (*net)
		return true;
	if (!strcmp(it->domain, "block")) {
		snprintf(dev, size, "%s", it->target);
		*attr = it->setting;
		return true;
	}
	for (size_t i = 0; !strcmp(it->domain, "sysfs") && i < ARRAY_SIZE(dirs); i++) {
		const char *p = it->path + strlen(dirs[i]), *slash;

		if (strncmp(it->path, dirs[i], strlen(dirs[i])) || !(slash = strchr(p, '/')) || (size_t)(slash - p) >= size)
			continue;
		snprintf(dev, size, "%.*s", (int)(slash - p), p);
		*attr = slash + 1;
		return true;
	}
	return false;
}

static void judge_udev(const struct wentry *e, const struct wctx *w, const struct item *it, struct wjudge *j)
{
	struct udev_when when;
	bool run = e->flags & U_RUN, after = strcmp(strrchr(e->file, '/') + 1, EARLYTUNE_RULES) > 0;
	bool rewrites;
	char disk[NAME_MAX + 1];
	const char *attr;
	bool net;

	if (!device_attr(it, disk, sizeof(disk), &attr, &net) ||
	    !(net ? nic_key_match(attr, e->key) : !strcmp(attr, e->key)))
		return;
	j->applies = rule_matches(w, e->extra, disk, net, &when);
	if (!j->applies)
		return;
	rewrites = when.change && (net || !reruns_on_change(disk));
	j->beats = (run && after && when.add) || rewrites;
	if (run && after && when.add)
		snprintf(j->why, sizeof(j->why), "its program runs after earlytune's: it sorts after " EARLYTUNE_RULES);
	else if (rewrites)
		snprintf(j->why, sizeof(j->why), "it writes again on each change event of %s, where earlytune does "
			 "not run", disk);
	else if (run)
		snprintf(j->why, sizeof(j->why), "its program runs before earlytune's (it sorts before "
			 EARLYTUNE_RULES "): earlytune's value stays");
	else
		snprintf(j->why, sizeof(j->why), "udev writes ATTR{} before earlytune's RUN from " EARLYTUNE_RULES
			 ": earlytune's value stays");
}

/* The attribute an assignment writes, as the block items name it (the
 * bdi's read-ahead is the queue's), or as a [sysfs] path below the disk's
 * directory ends. */
static const char *written_attr(const struct udev_pair *u)
{
	if (strcmp(u->op, "=") && strcmp(u->op, ":=") && strcmp(u->op, "+="))
		return NULL;
	if (!strcmp(u->key, "ATTR") && !strcmp(u->attr, "bdi/read_ahead_kb"))
		return "queue/read_ahead_kb";
	if (!strcmp(u->key, "ATTR") && *u->attr)
		return u->attr;
	return NULL;
}

static struct wentry *add_entry(struct wctx *w, const char *rel, int line, const char *rule,
				const struct udev_pair *u, const char *attr, bool run)
{
	struct wentry *e = wentry_add(w, "udev", rel, line, run ? WS_UDEV_RUN : WS_UDEV_ATTR);

	if (!e)
		return NULL;
	wset(&e->key, attr);
	wset(&e->value, run ? NULL : u->value);
	wsetf(&e->what, "%s%s%s%s%s\"%s\"", u->key, *u->attr ? "{" : "", u->attr, *u->attr ? "}" : "", u->op,
	      u->value);
	wset(&e->extra, rule);
	e->flags = run ? U_RUN : 0;
	e->judge = judge_udev;
	return e;
}

struct urun {
	struct wctx *w;
	const char *rel, *rule;
	int line;
	const struct udev_pair *u;
};

static void run_param(void *ctx, const char *key, const char *value)
{
	struct urun *r = ctx;
	struct wentry *e = add_entry(r->w, r->rel, r->line, r->rule, r->u, key, true);

	if (e)
		wset(&e->value, value);
}

/* A NIC's settings in a RUN program: ethtool -K/-C/-G/-L (the interface
 * first, then its parameters), and any program given txqueuelen N (ip
 * link, ifconfig). */
static void run_nic(struct urun *r)
{
	const char *args, *q = strstr(r->u->value, "txqueuelen");
	char word[32], n[32];

	if (nic_ethtool_call(r->u->value, word, sizeof(word), &args))
		nic_params(word, args, true, run_param, r);
	if (q && sscanf(q + 10, " %31[0-9]", n) == 1)
		run_param(r, "tx_queue_len", n);
}

/* The attributes a RUN program names. */
static void run_entries(struct wctx *w, const char *rel, int line, const char *rule, const struct udev_pair *u)
{
	static const char *const attrs[] = { "queue/scheduler", "queue/read_ahead_kb", "queue/nr_requests",
					     "queue/rq_affinity", "queue/add_random", "queue/wbt_lat_usec" };
	struct urun r = { w, rel, rule, line, u };

	for (size_t i = 0; i < ARRAY_SIZE(attrs); i++)
		if (strstr(u->value, attrs[i] + 6))
			add_entry(w, rel, line, rule, u, attrs[i], true);
	run_nic(&r);
}

static void rule_line(struct wctx *w, const char *rel, int line, const char *rule)
{
	struct udev_pair u;
	const char *attr;

	for (const char *p = rule; udev_next_pair(&p, &u) > 0;) {
		if ((attr = written_attr(&u)))
			add_entry(w, rel, line, rule, &u, attr, false);
		else if (!strcmp(u.key, "RUN") && strcmp(u.op, "==") && strcmp(u.op, "!="))
			run_entries(w, rel, line, rule, &u);
	}
}

/* Lines ending in a backslash continue on the next; the rule counts from
 * its first line. udev refuses a rule longer than its line buffer: so do we
 * (and say so), which also bounds the joining. */
#define UDEV_RULE_MAX 16384

static void rules_file(struct wctx *w, const char *rel, char *text)
{
	char rule[UDEV_RULE_MAX];
	size_t used = 0;
	int n = 0, first = 0;
	bool toolong = false;

	for (char *line; (line = writers_next_line(&text, &n));) {
		size_t len = strlen(line);
		bool more = len && line[len - 1] == '\\';

		len -= more;
		if (!first)
			first = n;
		if (used + len >= sizeof(rule))
			toolong = true;
		else {
			memcpy(rule + used, line, len);
			used += len;
		}
		if (more)
			continue;
		rule[used] = '\0';
		if (toolong)
			writers_errorf(w, "/%s:%d: a rule longer than %d bytes: not read (udev ignores it too)", rel, first,
				       UDEV_RULE_MAX);
		else
			rule_line(w, rel, first, strip(rule));
		used = 0;
		first = 0;
		toolong = false;
	}
}

int writers_udev(struct wctx *w)
{
	static const char *const dirs[] = { "etc/udev/rules.d", "run/udev/rules.d", "usr/local/lib/udev/rules.d",
					    "usr/lib/udev/rules.d", "lib/udev/rules.d" };

	return writers_files(w, dirs, ARRAY_SIZE(dirs), "*.rules", rules_file);
}
