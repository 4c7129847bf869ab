// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The net domain's sysctls: net.ipv4.tcp_congestion_control and
 * net.core.default_qdisc, files like every other item, their modules
 * (tcp_NAME, sch_NAME) loaded first when the kernel does not offer them yet.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/kmod.h"
#include "engine/sysctl.h"
#include "net/internal.h"

/* The configuration symbol of a qdisc's or congestion control's module:
 * sch_fq_codel is CONFIG_NET_SCH_FQ_CODEL, tcp_bbr CONFIG_TCP_CONG_BBR. */
static const char *module_symbol(const char *module, char *sym, size_t size)
{
	const char *base = !strncmp(module, "sch_", 4) ? "NET_SCH_" : !strncmp(module, "tcp_", 4) ? "TCP_CONG_" : NULL;
	size_t n;

	if (!base || snprintf(sym, size, "CONFIG_%s%s", base, module + 4) >= (int)size)
		return NULL;
	for (n = strlen("CONFIG_"); sym[n]; n++)
		sym[n] = sym[n] >= 'a' && sym[n] <= 'z' ? (char)(sym[n] - 'a' + 'A') : sym[n];
	return sym;
}

int net_module_available(struct ctx *c, const char *module, char *why, size_t size)
{
	char sym[96];
	int a = mods_available_cfg(c->mods, module, module_symbol(module, sym, sizeof(sym)), why, size);

	/* Without module support, the congestion controls the kernel lists
	 * are all it will ever have. */
	if (a == 3 && !strncmp(module, "tcp_", 4) && !c->kernel.modules && !c->kernel.modules_unknown &&
	    root_exists(&c->root, CC_AVAILABLE) && !net_cc_available(c, module + 4)) {
		snprintf(why, size, "%s: not in this kernel (%s is not in /%s, and the kernel cannot load modules: %s)",
			 module, module + 4, CC_AVAILABLE, c->kernel.no_modules);
		a = 0;
	}
	return a;
}

/* Why a sysctl file is absent, said from the nearest part of proc/sys the
 * tree has: a fact of the kernel only where the file's parent is there; a
 * tree without proc/sys (a capture) leaves it unknown. 0 a fact, 1 unknown,
 * or -errno when a lookup fails (an error of the item, not absence). */
static int sysctl_absent(struct ctx *c, const char *path, char *why, size_t size)
{
	static const char net[] = "proc/sys/net";
	bool qdisc = strstr(path, "default_qdisc") != NULL;
	const char *what = qdisc ? "net.core.default_qdisc" : "TCP/IP sysctls";
	char miss[PATH_MAX];
	int r = root_missing(&c->root, path, miss, sizeof(miss)), ns = 0;

	if (r < 0)
		return r;
	if (r > 0 || strncmp(miss, net, strlen(net)) || (qdisc && strcmp(miss, net) && strcmp(miss, path))) {
		snprintf(why, size, "no /%s in this tree: whether the kernel has %s is unknown", r ? path : miss, what);
		return 1;
	}
	if (!strcmp(miss, net))
		snprintf(why, size, "no /%s here: the kernel has no network sysctls", net);
	else if (!qdisc)
		snprintf(why, size, "no /%s here: the kernel has no %s", miss,
			 strcmp(miss, path) ? "TCP/IP sysctls" : "TCP congestion control sysctl");
	else if ((ns = root_access(&c->root, "proc/sys/net/core/somaxconn")) < 0)
		return ns;
	else if (ns)
		snprintf(why, size, "no /%s here: it exists only in the initial network namespace", path);
	else
		snprintf(why, size, "no /%s nor /proc/sys/net/core/somaxconn in this tree: whether this is another network namespace is unknown", path);
	return !strcmp(miss, path) && qdisc && !ns;
}

/* available: 1 the kernel offers the value now, 0 not (yet), -errno when
 * that cannot be read (an error of the item, not "not available"). */
static void plan_sysctl(struct ctx *c, struct plan *p, const char *name, const char *path,
			const struct cfg_entry *e, const char *module, int available)
{
	struct item *it = plan_add(p, "net", "sysctl", name, path);
	char cur[128], why[512] = "";
	int r;

	if (!it)
		return;
	item_from_entry(it, e);
	item_set(&it->desired, e->value);
	r = root_read(&c->root, path, cur, sizeof(cur));
	if (r == -ENOENT && (r = sysctl_absent(c, path, why, sizeof(why))) >= 0) {
		if (r) {
			item_unknown(it, "%s", why);
			return;
		}
		it->action = ACT_SKIP;
		it->unmet = !strstr(why, "network namespace"); /* another netns: not applicable */
		item_set(&it->reason, why);
		return;
	}
	if (r < 0) {
		it->action = ACT_ERROR;
		item_setf(&it->error, "cannot read /%s: %s", path, strerror(-r));
		return;
	}
	item_set(&it->current, cur);
	sysctl_warn_override(&c->root, it, name, e->value);
	if (!strcmp(cur, e->value))
		return; /* keep */
	if (available < 0) {
		it->action = ACT_ERROR;
		item_setf(&it->error, "cannot read /%s: %s", CC_AVAILABLE, strerror(-available));
		return;
	}
	if (!available) {
		int a = net_module_available(c, module, why, sizeof(why));

		if (a == 0) {
			it->action = ACT_SKIP;
			it->unmet = true;
			item_setf(&it->reason, "%s not available: %s", e->value, why);
			return;
		}
		if (a == 3) {
			item_unknown(it, "%s not offered now, and %s", e->value, why);
			return;
		}
		if (a == 2)
			item_set(&it->module, module);
	}
	it->action = ACT_CHANGE;
}

/* Does the kernel offer a congestion control now (loaded or built in)? A
 * tree without the file offers none. */
static int cc_offered(struct ctx *c, const char *name)
{
	char avail[512];
	int r = root_read(&c->root, CC_AVAILABLE, avail, sizeof(avail));

	if (r == -ENOENT)
		return 0;
	return r < 0 ? r : word_listed(avail, name);
}

bool net_cc_available(struct ctx *c, const char *name)
{
	return cc_offered(c, name) > 0;
}

/* Why rps_sock_flow_entries is absent: only the first network namespace
 * has it, and only a kernel with RPS; a tree without proc/sys/net/core
 * does not say. */
static void flows_absent(struct ctx *c, struct item *it)
{
	if (root_access(&c->root, "proc/sys/net/core") <= 0) {
		item_unknown(it, "no /proc/sys/net/core in this tree: whether the kernel has RFS is unknown");
		return;
	}
	it->action = ACT_SKIP;
	item_setf(&it->reason, "no /%s here: a network namespace other than the first (it is global), or a "
		  "kernel without RPS", RPS_FLOWS);
}

/* The global table RFS needs: the kernel keeps the power of two at or
 * above the value asked, which the item wants (what it will read back). */
static void plan_flows(struct ctx *c, struct plan *p, const struct cfg_entry *e)
{
	struct item *it = plan_add(p, "net", "sysctl", "net.core.rps_sock_flow_entries", RPS_FLOWS);
	unsigned long long asked = 0, want = 1;
	char cur[32];
	int r;

	if (!it)
		return;
	item_from_entry(it, e);
	parse_u64(e->value, &asked);
	while (want < asked)
		want <<= 1;
	want = asked ? want : 0;
	item_setf(&it->desired, "%llu", want);
	if (want != asked)
		item_add_reason(it, "(asks %s: the kernel keeps the power of two at or above)", e->value);
	r = root_read(&c->root, RPS_FLOWS, cur, sizeof(cur));
	if (r == -ENOENT) {
		flows_absent(c, it);
		return;
	}
	if (r < 0) {
		it->action = ACT_ERROR;
		item_setf(&it->error, "cannot read /%s: %s", RPS_FLOWS, strerror(-r));
		return;
	}
	item_set(&it->current, cur);
	sysctl_warn_override(&c->root, it, "net.core.rps_sock_flow_entries", e->value);
	it->action = strcmp(cur, it->desired) ? ACT_CHANGE : ACT_KEEP;
}

void net_plan_sysctls(struct ctx *c, struct plan *p, const struct netconf *nc)
{
	const struct cfg_entry *cc = config_get(&c->cfg, "net", NULL, "congestion_control");
	const struct cfg_entry *flows = config_get(&c->cfg, "net", NULL, "rps_sock_flow_entries");
	char module[64];

	if (cc) {
		snprintf(module, sizeof(module), "tcp_%s", cc->value);
		plan_sysctl(c, p, "net.ipv4.tcp_congestion_control", "proc/sys/net/ipv4/tcp_congestion_control",
			    cc, module, cc_offered(c, cc->value));
	}
	if (nc->kind) {
		snprintf(module, sizeof(module), "sch_%s", nc->kind);
		plan_sysctl(c, p, "net.core.default_qdisc", "proc/sys/net/core/default_qdisc", nc->qdisc_entry,
			    module, qdisc_is_core(nc->kind));
	}
	if (flows && *flows->value)
		plan_flows(c, p, flows);
}
