// SPDX-License-Identifier: LGPL-2.1-or-later
/* The commands: what each runs, whether it needs the configuration, and
 * its lines of --help. A new command is a row here; --help, the man page
 * test and the shell completion then know it. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

#include "commands.h"
#include "cmdline/cmdline.h"
#include "engine/engine.h"
#include "engine/sysctl.h"
#include "image/image.h"
#include "measure/measure.h"
#include "modules/modules.h"

static int run_plan(struct ctx *c, const struct args *a)
{
	return cmd_plan(c, a->changes);
}

static int run_apply(struct ctx *c, const struct args *a)
{
	return cmd_apply(c);
}

static int run_verify(struct ctx *c, const struct args *a)
{
	return c->image ? cmd_verify_image(c) : cmd_verify(c);
}

static int run_revert(struct ctx *c, const struct args *a)
{
	return cmd_revert(c);
}

static int run_config(struct ctx *c, const struct args *a)
{
	if (c->json)
		config_json(c);
	else
		config_print(&c->cfg, stdout);
	return EXIT_OK;
}

static int run_modules(struct ctx *c, const struct args *a)
{
	return cmd_modules(c, a->check);
}

static int run_sysctl_conf(struct ctx *c, const struct args *a)
{
	if (!c->json)
		return sysctl_guard(&c->cfg, stdout) < 0 ? EXIT_DRIFT : EXIT_OK;
	sysctl_conf_json(c);
	return EXIT_OK;
}

static int run_cmdline(struct ctx *c, const struct args *a)
{
	return cmd_cmdline_suggest(c);
}

static int run_cmdline_apply(struct ctx *c, const struct args *a)
{
	return cmd_cmdline_apply(c, a->backend, a->update);
}

static int run_cmdline_remove(struct ctx *c, const struct args *a)
{
	return cmd_cmdline_remove(c);
}

static int run_cmdline_verify(struct ctx *c, const struct args *a)
{
	return cmd_cmdline_verify(c);
}

static int run_status(struct ctx *c, const struct args *a)
{
	return cmd_status(c, a->last, a->failed);
}

static int run_forget(struct ctx *c, const struct args *a)
{
	return cmd_forget(c);
}

static int run_measure_tcp(struct ctx *c, const struct args *a)
{
	struct measure_opts o = { .seconds = a->measure_for, .peer = a->peer, .port = a->port, .apply = a->apply,
				  .verify = a->verify };

	return a->verify ? cmd_measure_tcp_verify(c, &o) : cmd_measure_tcp(c, &o);
}

/* --max-bytes N with an optional K, M or G (powers of 1024): 1 MiB to 1 TiB. */
static int parse_bytes(const char *s, unsigned long long *out)
{
	char *end = NULL;
	unsigned long long v = strtoull(s, &end, 10), mult = 1;

	if (end && *end && !end[1])
		mult = *end == 'K' ? 1ULL << 10 : *end == 'M' ? 1ULL << 20 : *end == 'G' ? 1ULL << 30 : 0, end++;
	if (*s < '0' || *s > '9' || !end || *end || !mult || v > (1ULL << 40) / mult || v * mult < (1ULL << 20)) {
		log_msg(LOG_ERR, "--max-bytes: '%s' is not a number of bytes from 1M to 1024G (K, M, G)", s);
		return -EINVAL;
	}
	*out = v * mult;
	return 0;
}

static int run_measure_readahead(struct ctx *c, const struct args *a)
{
	struct measure_opts o = { .seconds = a->measure_for, .apply = a->apply, .dev = a->operand, .candidate = -1 };
	unsigned long long v;

	if (a->peer || a->port || (a->verify && a->candidate)) {
		log_msg(LOG_ERR, "--peer and --port: only with measure tcp; --candidate: not with --verify");
		return EXIT_USAGE;
	}
	if (a->max_bytes && parse_bytes(a->max_bytes, &o.max_bytes) < 0)
		return EXIT_USAGE;
	if (a->candidate && (parse_u64(a->candidate, &v) < 0 || v > 1048576)) {
		log_msg(LOG_ERR, "--candidate: '%s' is not a read-ahead in KiB from 0 to 1048576", a->candidate);
		return EXIT_USAGE;
	}
	if (a->candidate)
		o.candidate = (long long)v;
	return a->verify ? cmd_measure_readahead_verify(c, &o) : cmd_measure_readahead(c, &o);
}

/* The commands that change a setting only after measuring it, and list
 * what they changed: status and the Prometheus export show these. */
static const struct measured_source measured_sources[] = {
	{ "measure tcp", mt_measured },
	{ "measure readahead", mr_measured },
};

const struct measured_source *commands_measured(size_t *n)
{
	*n = ARRAY_SIZE(measured_sources);
	return measured_sources;
}

/* status, forget and measure need neither the kernel probe, the configuration nor
 * libkmod: udev's remove must be cheap, and a look at what happened must
 * work when the configuration is broken. */
static const struct command commands[] = {
	{ "plan", NULL, true, run_plan,
	  "show every item: current, desired, action, reason, source (default;\n"
	  "writes nothing, mounts nothing); --changes: only what would change\n"
	  "or fail" },
	{ "apply", NULL, true, run_apply, "apply the plan; originals are recorded in /run/earlytune first" },
	{ "verify", NULL, true, run_verify,
	  "re-read every item; exit 1 unless everything the configuration\n"
	  "asks for is in force: drifted (changed, or owned by another\n"
	  "writer) or unmet (this kernel lacks the module, scheduler or\n"
	  "knob) both fail; not applicable here (a partition, a queue\n"
	  "without a scheduler, another netns) is neutral" },
	{ "revert", NULL, true, run_revert, "restore the recorded originals, then forget them" },
	{ "config", NULL, true, run_config, "print the merged configuration with the source of every line" },
	{ "modules", NULL, true, run_modules,
	  "the kernel modules the configuration needs and whether the kernel\n"
	  "(--kernel VERSION) has them; --check warns by name, exit 1 if not" },
	{ "sysctl-conf", NULL, true, run_sysctl_conf,
	  "the sysctl.d guard that keeps systemd-sysctl from resetting\n"
	  "default_qdisc and tcp_congestion_control later in boot" },
	{ "cmdline", NULL, true, run_cmdline,
	  "kernel command-line suggestions for the kernel (--kernel VERSION):\n"
	  "what to add, what is stale, why, and the risk" },
	{ "cmdline apply", "[--backend ostree|bls|grub|kernel-install|uki] [--update]", true, run_cmdline_apply,
	  "integrate the additions with the bootloader (detected in that order)" },
	{ "cmdline remove", NULL, true, run_cmdline_remove, "remove exactly what earlytune added" },
	{ "cmdline verify", NULL, true, run_cmdline_verify, "exit 1 when a reboot is pending or a parameter is missing" },
	{ "status", NULL, false, run_status,
	  "what the applies of this boot did (run/earlytune/runs): time, what\n"
	  "ran, counts, each item not kept and why, failures first; exit 1\n"
	  "when one failed or earlytune has not run since boot; --last N: the\n"
	  "newest N runs, --failed: only the failures" },
	{ "forget", NULL, false, run_forget,
	  "drop the records of a disk or interface that left (udev's remove;\n"
	  "--device NAME [--diskseq N], --ifindex N or --iface NAME)" },
	{ "measure tcp", "[--for SECONDS] [--peer ADDR] [--port N] [--apply|--verify]", false, run_measure_tcp,
	  "read the host's TCP connections for a window (10 s): for each busy\n"
	  "one, what limits it (send buffer, receive window, congestion\n"
	  "window, application); where a setting is the limit, the one\n"
	  "change, its prediction and its cost. Changes nothing unless\n"
	  "--apply: that change, set and written to etc/sysctl.d with the\n"
	  "measurement as its reason. --verify: the same measurement again,\n"
	  "judged against the prediction the file keeps (held: at least 75%\n"
	  "of it; moved: the limit left the setting and throughput rose),\n"
	  "the verdict kept in the file; exit 1 when it failed" },
	{ "measure readahead", "DEV [--max-bytes N] [--for SECONDS] [--candidate KB] [--apply|--verify]", true,
	  run_measure_readahead,
	  "random 4 KiB touches through mmap (a scratch file on DEV's\n"
	  "filesystem, else DEV read-only) and a sequential read, at DEV's\n"
	  "read-ahead and at the candidate (the configuration's): read\n"
	  "amplification, the model's prediction, sequential throughput lost;\n"
	  "bounded by --for (20 s) and --max-bytes (1G), the read-ahead\n"
	  "restored on every exit. --apply: the candidate, set and written to\n"
	  "etc/earlytune.d with the measurement as its reason. --verify: the\n"
	  "same rounds at the value in force, judged against the file's\n"
	  "prediction (held: amplification within 20%, sequential reads at\n"
	  "least 75%; moved: missed, but the change still pays), the verdict\n"
	  "kept in the file; exit 1 when it failed" },
};

/* The argument x needs: its usage's first word in capitals ("DEV"); false: none. */
static bool command_operand(const struct command *x, char *name, size_t size)
{
	size_t n = x && x->usage ? strspn(x->usage, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") : 0;

	if (!n || (x->usage[n] && x->usage[n] != ' '))
		return false;
	snprintf(name, size, "%.*s", (int)n, x->usage);
	return true;
}

/* The length of the command a row belongs to ("cmdline" of "cmdline apply"). */
static size_t command_len(const struct command *x)
{
	return strcspn(x->name, " ");
}

const struct command *command_find(const char *name, const char *sub)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		const struct command *x = &commands[i];

		if (command_len(x) != len || strncmp(x->name, name, len))
			continue;
		if (sub ? x->name[len] && !strcmp(x->name + len + 1, sub) : !x->name[len])
			return x;
	}
	return NULL;
}

bool command_has_subs(const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strncmp(commands[i].name, name, len) && commands[i].name[len] == ' ')
			return true;
	return false;
}

void command_names(char *buf, size_t size, const char *prefix, const char *sep)
{
	size_t plen = prefix ? strlen(prefix) : 0, used = 0;

	*buf = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(commands) && used < size; i++) {
		const char *name = commands[i].name;

		if (prefix ? strncmp(name, prefix, plen) || name[plen] != ' ' : name[command_len(&commands[i])])
			continue;
		used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? sep : "", name + (prefix ? plen + 1 : 0));
	}
}

/* A row's name and its first line in one column of 8, or its usage on the
 * name's line; every other line indented to the text's column. */
void commands_help(FILE *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		const struct command *x = &commands[i];
		const char *h = x->help;

		if (x->usage)
			fprintf(out, "  %s %s\n%12s", x->name, x->usage, "");
		else
			fprintf(out, "  %-8s  ", x->name);
		for (const char *nl; (nl = strchr(h, '\n')); h = nl + 1)
			fprintf(out, "%.*s\n%12s", (int)(nl - h), h, "");
		fprintf(out, "%s\n", h);
	}
}

void commands_list(FILE *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(out, "%s\n", commands[i].name);
}

int command_parse(int argc, char **argv, struct args *a)
{
	const struct command *x;
	char names[256], arg[16];
	bool need;

	if (optind < argc)
		a->command = argv[optind++];
	if (optind < argc && command_has_subs(a->command)) {
		a->sub = argv[optind++];
		if (!command_find(a->command, a->sub)) {
			command_names(names, sizeof(names), a->command, "|");
			log_msg(LOG_ERR, "%s: unknown subcommand '%s'; %s [%s]", a->command, a->sub, a->command, names);
			return -EINVAL;
		}
	}
	x = command_find(a->command, a->sub);
	if ((need = command_operand(x, arg, sizeof(arg))) && optind < argc)
		a->operand = argv[optind++];
	if (optind < argc) {
		log_msg(LOG_ERR, "unexpected argument '%s'; see --help", argv[optind]);
		return -EINVAL;
	}
	if (need && !a->operand)
		log_msg(LOG_ERR, "%s: which %s? earlytune %s %s", x->name, arg, x->name, arg);
	if (x)
		return need && !a->operand ? -EINVAL : 0;
	if (command_has_subs(a->command)) {
		command_names(names, sizeof(names), a->command, "|");
		log_msg(LOG_ERR, "%s: which? %s [%s]", a->command, a->command, names);
		return -EINVAL;
	}
	command_names(names, sizeof(names), NULL, " ");
	log_msg(LOG_ERR, "unknown command '%s'; commands: %s", a->command, names);
	return -EINVAL;
}
