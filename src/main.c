// SPDX-License-Identifier: LGPL-2.1-or-later
/* earlytune: parse argv → load the configuration → run one command → exit. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/kmod.h"
#include "base/log.h"
#include "commands.h"
#include "engine/domain.h"
#include "engine/engine.h"
#include "engine/item.h"
#include "image/image.h"

static void help_options(void)
{
	printf("Options (before or after the command):\n"
	       "  -r, --root DIR       read and write below DIR instead of / (sys, proc, etc, run,\n"
	       "                       dev, lib/modules); kernel release and command line come from it\n"
	       "  -c, --config FILE    read only the built-in profile and FILE\n"
	       "  -p, --profile NAME   built-in profile (vps by default): %s\n"
	       "  -o, --only DOMAINS   comma list of domains: ", profile_names());
	for (size_t i = 0; i < ndomains; i++)
		printf("%s%s", i ? "," : "", domains[i].name);
	printf("\n"
	       "  -d, --device NAME    one disk by kernel name (repeatable); implies --only block\n"
	       "  -i, --ifindex N      one network interface by index (udev's IFINDEX: stable\n"
	       "                       across renames); implies --only net\n"
	       "  -I, --iface NAME     one network interface by name; implies --only net\n"
	       "  -k, --kernel VER     ask about kernel release VER (modules), not the running one;\n"
	       "                       an image without proc/ has its only kernel picked (several:\n"
	       "                       give --kernel)\n"
	       "      --platform P     the cloud for [cmdline] rules' match.platform: aws, gce,\n"
	       "                       azure or generic (else [main] platform, else guessed from DMI)\n"
	       "      --machine FILE   plan of an unbooted image (--root): its first boot on the\n"
	       "                       machine FILE describes (disks, NICs, DMI, CPUs)\n"
	       "      --image          verify: check --root as an image: package files, unit\n"
	       "                       enabled, each kernel's initramfs and command line, the\n"
	       "                       sysctl guard not shadowed\n"
	       "      --check          modules: warn about each missing module and exit 1\n"
	       "      --backend B      cmdline apply: the bootloader integration to use\n"
	       "      --update         cmdline apply: also run update-grub\n"
	       "      --prometheus FILE  verify: also write the verdicts and the run log as\n"
	       "                       node_exporter textfile metrics to FILE (absolute, inside\n"
	       "                       --root; replaced atomically); auto: earlytune.prom in\n"
	       "                       [main] textfile_dir, else in node_exporter's usual one\n"
	       "  -j, --json           print one JSON object (every command; a failure prints\n"
	       "                       {\"errors\":[{file, line, message}], \"exit\":N} on stdout)\n"
	       "      --wide           the item table and cmdline's suggestions: one full line\n"
	       "                       each, nothing cut\n"
	       "      --changes        plan: only the items that would change or fail\n"
	       "      --last N         status: the newest N runs\n"
	       "      --failed         status: the runs with a failed item, only those items\n"
	       "      --for SECONDS    measure: the window (10 s; readahead: 20 s)\n"
	       "      --peer ADDR      measure tcp: only connections whose remote address is ADDR\n"
	       "      --port N         measure tcp: only connections with local or remote port N\n"
	       "      --apply          measure: make the change it names (now, and a file of its own)\n"
	       "      --verify         measure: the same measurement; exit 1 unless it held\n"
	       "      --max-bytes N    measure readahead: read at most N bytes (K, M, G; 1G)\n"
	       "      --candidate KB   measure readahead: compare KB, not the configuration's\n"
	       "  -b, --boot           boot mode: log to the kernel log, skip bad config lines\n"
	       "                       and unreadable config files, apply the rest, exit 0\n"
	       "  -v, --verbose        more messages, and each skip the table would group\n"
	       "  -V, --version        print the version\n"
	       "  -h, --help           this text\n");
}

/* --help after the options: where the configuration is, the table, the exit status. */
static void help_notes(void)
{
	printf("\n"
	       "Configuration: /etc/earlytune.conf, then *.conf in /usr/lib/earlytune.d,\n"
	       "/run/earlytune.d and /etc/earlytune.d. The kernel parameter earlytune=0 (or\n"
	       "rd.earlytune=0) makes apply write nothing.\n"
	       "\n"
	       "The item table (plan, apply, verify, revert) fits COLUMNS, else the terminal's\n"
	       "width, else 80 columns: a row per item, its reason, error and [source] on\n"
	       "indented lines below; a cell cut to fit ends in '~'. --wide cuts nothing.\n"
	       "Skips that many devices share (loop0..loop19) are one row; --verbose and\n"
	       "--json show each.\n"
	       "\n"
	       "Exit status: 0 success, 1 a failed item (verify: drifted or unmet), 2 usage or\n"
	       "configuration error (a bad line or an unreadable file: named, nothing written).\n");
}

static void help(void)
{
	printf("Usage: earlytune [COMMAND] [OPTIONS]\n"
	       "\n"
	       "Applies kernel settings that sysctl.d cannot reach (modules, transparent huge\n"
	       "pages, TCP congestion control, the qdisc of every NIC, I/O scheduler, read-ahead\n"
	       "and queue attributes per disk) early in boot, records what it changed and why,\n"
	       "verifies it and reverts it.\n"
	       "\n"
	       "Commands:\n");
	commands_help(stdout);
	printf("\n");
	help_options();
	help_notes();
}

static int parse_only(const char *s, unsigned *out)
{
	_cleanup_(freep) char *copy = strdup(s);
	char *save = NULL, *w, names[128] = "";

	if (!copy)
		return -ENOMEM;
	*out = 0;
	for (w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		const struct domain *d = domain_find(w);

		if (!d)
			break;
		*out |= d->bit;
	}
	if (!w && *out)
		return 0;
	for (size_t i = 0; i < ndomains; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), " %s", domains[i].name);
	if (w)
		log_msg(LOG_ERR, "--only: unknown domain '%s'; domains:%s", w, names);
	else
		log_msg(LOG_ERR, "--only: no domain given ('%s'); domains:%s", s, names);
	return -EINVAL;
}

static int add_device(struct ctx *c, const char *name)
{
	char **v;

	if (!valid_name(name)) {
		log_msg(LOG_ERR, "--device: invalid device name (empty, '/', '..', control characters or longer than %d bytes)",
			NAME_MAX);
		return -EINVAL;
	}
	v = realloc(c->devices, (c->ndevices + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	c->devices = v;
	v[c->ndevices++] = (char *)name;
	return 0;
}

/* A positive number up to max for option opt, what it counts in the message. */
static int parse_positive(const char *opt, const char *s, unsigned long long max, const char *what,
			  unsigned long long *out)
{
	if (parse_u64(s, out) < 0 || *out == 0 || *out > max) {
		log_msg(LOG_ERR, "%s: '%s' is not %s (a positive number)", opt, s, what);
		return -EINVAL;
	}
	return 0;
}

static int parse_ifindex(const char *s, int *out)
{
	unsigned long long v;
	int r = parse_positive("--ifindex", s, INT_MAX, "an interface index", &v);

	if (r == 0)
		*out = (int)v;
	return r;
}

static int parse_last(const char *s, unsigned *out)
{
	unsigned long long v;
	int r = parse_positive("--last", s, UINT_MAX, "a number of runs", &v);

	if (r == 0)
		*out = (unsigned)v;
	return r;
}

/* measure's numbers: --for up to an hour, --port a port. */
static int parse_measure(int ch, struct args *a)
{
	unsigned long long v;
	int r = ch == 'T' ? parse_positive("--for", optarg, 3600, "a number of seconds up to 3600", &v)
			  : parse_positive("--port", optarg, 65535, "a port", &v);

	if (r == 0)
		*(ch == 'T' ? &a->measure_for : &a->port) = (unsigned)v;
	return r;
}

static int set_platform(struct ctx *c, const char *name)
{
	char why[256];

	if (platform_check("--platform", name, why, sizeof(why)) < 0) {
		log_msg(LOG_ERR, "%s", why);
		return -EINVAL;
	}
	c->platform_opt = name;
	return 0;
}

/* What getopt found wrong with argv[optind - 1], said through the log
 * (opterr is 0: getopt's own message would go to stderr, which udev drops). */
static int option_error(int ch, char **argv)
{
	const char *arg = argv[optind - 1];

	if (ch == ':')
		log_msg(LOG_ERR, "option '%s' requires an argument; see --help", arg);
	else if (optopt && !strncmp(arg, "--", 2))
		log_msg(LOG_ERR, "option '%.*s' takes no argument; see --help", (int)strcspn(arg, "="), arg);
	else if (optopt)
		log_msg(LOG_ERR, "invalid option -- '%c'; see --help", optopt);
	else
		log_msg(LOG_ERR, "unrecognized option '%s'; see --help", arg);
	return -EINVAL;
}

/* One option: 0, -EINVAL (said why), or 1 when it was answered (--help). */
static int parse_option(int ch, char **argv, struct ctx *c, struct args *a)
{
	switch (ch) {
	case 'r': a->root = optarg; return 0;
	case 'c': a->config = optarg; return 0;
	case 'p': a->profile = optarg; return 0;
	case 'o':
		a->only_set = true;
		return parse_only(optarg, &a->only) < 0 ? -EINVAL : 0;
	case 'd': return add_device(c, optarg) < 0 ? -EINVAL : 0;
	case 'i': return parse_ifindex(optarg, &c->ifindex) < 0 ? -EINVAL : 0;
	case 'I':
		if (!valid_name(optarg) || strlen(optarg) >= 16) {
			log_msg(LOG_ERR, "--iface: invalid interface name");
			return -EINVAL;
		}
		c->iface = optarg;
		return 0;
	case 'k':
		if (!valid_name(optarg)) {
			log_msg(LOG_ERR, "--kernel: invalid kernel release");
			return -EINVAL;
		}
		a->kernel = optarg;
		return 0;
	case 'C': a->check = true; return 0;
	case 'F': return set_platform(c, optarg);
	case 'G': c->image = true; return 0;
	case 'M': a->machine = optarg; return 0;
	case 'B': a->backend = optarg; return 0;
	case 'U': a->update = true; return 0;
	case 'W': a->wide = true; return 0;
	case 'X': a->changes = true; return 0;
	case 'A': a->failed = true; return 0;
	case 'N': return parse_last(optarg, &a->last);
	case 'T': case 'O': return parse_measure(ch, a);
	case 'E': a->peer = optarg; return 0;
	case 'Y': a->apply = true; return 0;
	case 'Q': a->verify = true; return 0;
	case 'Z': a->max_bytes = optarg; return 0;
	case 'K': a->candidate = optarg; return 0;
	case 'P':
		if (optarg[0] != '/' && strcmp(optarg, "auto")) {
			log_msg(LOG_ERR, "--prometheus: '%s' is not an absolute path (or auto)", optarg);
			return -EINVAL;
		}
		c->prometheus = optarg;
		return 0;
	case 'S':
		if (parse_u64(optarg, &c->diskseq) < 0 || !c->diskseq) {
			log_msg(LOG_ERR, "--diskseq: '%s' is not a disk sequence number", optarg);
			return -EINVAL;
		}
		return 0;
	case 'j': c->json = true; return 0;
	case 'b': c->boot = true; return 0;
	case 'v': c->verbose = true; return 0;
	case 'V': printf("earlytune %s\n", EARLYTUNE_VERSION); return 1;
	case 'h': help(); return 1;
	case 'L': commands_list(stdout); return 1;
	default: return option_error(ch, argv);
	}
}

static int parse_args(int argc, char **argv, struct ctx *c, struct args *a)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' },    { "config", required_argument, NULL, 'c' },
		{ "profile", required_argument, NULL, 'p' }, { "only", required_argument, NULL, 'o' },
		{ "device", required_argument, NULL, 'd' },  { "json", no_argument, NULL, 'j' },
		{ "boot", no_argument, NULL, 'b' },          { "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },       { "help", no_argument, NULL, 'h' },
		{ "ifindex", required_argument, NULL, 'i' }, { "iface", required_argument, NULL, 'I' },
		{ "kernel", required_argument, NULL, 'k' },  { "check", no_argument, NULL, 'C' },
		{ "backend", required_argument, NULL, 'B' }, { "update", no_argument, NULL, 'U' },
		{ "diskseq", required_argument, NULL, 'S' }, { "wide", no_argument, NULL, 'W' },
		{ "prometheus", required_argument, NULL, 'P' }, { "platform", required_argument, NULL, 'F' },
		{ "image", no_argument, NULL, 'G' },         { "list-commands", no_argument, NULL, 'L' },
		{ "machine", required_argument, NULL, 'M' }, { "changes", no_argument, NULL, 'X' },
		{ "failed", no_argument, NULL, 'A' },        { "last", required_argument, NULL, 'N' },
		{ "for", required_argument, NULL, 'T' },     { "peer", required_argument, NULL, 'E' },
		{ "port", required_argument, NULL, 'O' },     { "apply", no_argument, NULL, 'Y' },
		{ "verify", no_argument, NULL, 'Q' },
		{ "max-bytes", required_argument, NULL, 'Z' }, { "candidate", required_argument, NULL, 'K' },
		{ 0 },
	};
	int ch, r, err = 0;

	/* Every error said, not only the first: and --root and --boot are
	 * known whatever came before them, for where a --boot run's go. */
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":r:c:p:o:d:i:I:k:jbvVh", opts, NULL)) >= 0) {
		r = parse_option(ch, argv, c, a);
		if (r > 0)
			return r;
		err = err ? err : r;
	}
	r = command_parse(argc, argv, a);
	if (r == 0 && c->image && strcmp(a->command, "verify")) {
		log_msg(LOG_ERR, "--image: only with verify (earlytune verify --root IMAGE --image)");
		r = -EINVAL;
	}
	if (r == 0 && a->changes && strcmp(a->command, "plan")) {
		log_msg(LOG_ERR, "--changes: only with plan (earlytune plan --changes)");
		r = -EINVAL;
	}
	if (r == 0 && (a->measure_for || a->peer || a->port || a->apply || a->verify || a->max_bytes || a->candidate) &&
	    strcmp(a->command, "measure")) {
		log_msg(LOG_ERR, "--for, --peer, --port, --apply, --verify, --max-bytes and --candidate: only with "
			"measure (earlytune measure tcp --for 10)");
		r = -EINVAL;
	}
	if (r == 0 && a->apply && a->verify) {
		log_msg(LOG_ERR, "--apply and --verify: one at a time (apply, then verify with the same measurement)");
		r = -EINVAL;
	}
	if (r == 0 && (a->last || a->failed) && strcmp(a->command, "status")) {
		log_msg(LOG_ERR, "%s: only with status (earlytune status %s)", a->last ? "--last" : "--failed",
			a->last ? "--last N" : "--failed");
		r = -EINVAL;
	}
	return err ? err : r;
}

/* --json before the options are parsed: a bad option gets its error object too. */
static bool json_wanted(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j"))
			return true;
	return false;
}

/* An unbooted image (no proc/): its only kernel, said; several need
 * --kernel, except for verify --image, which checks each. */
static int image_kernel(struct ctx *c)
{
	char list[1024];
	const char *where = NULL;
	int n = kernel_image(&c->kernel, &c->root, list, sizeof(list), &where);

	if (n < 0) {
		log_msg(LOG_ERR, "cannot list the kernels of %s (lib/modules, boot): %s", c->root.dir, strerror(-n));
		return EXIT_USAGE;
	}
	if (n == 1 && !c->json)
		log_msg(LOG_NOTICE, "kernel %s: the only one in %s of this image", c->kernel.release, where);
	if (n > 1 && !c->image) {
		log_msg(LOG_ERR, "this image has %d kernels: %s; give --kernel", n, list);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static int setup(struct ctx *c, const struct args *a)
{
	int r = root_open(&c->root, a->root);

	if (r < 0) {
		log_msg(LOG_ERR, "--root %s: %s", a->root, strerror(-r));
		return EXIT_USAGE;
	}
	if (c->boot)
		log_setup_boot(&c->root);
	if (!command_find(a->command, a->sub)->needs_config)
		return EXIT_OK;
	r = kernel_probe(&c->kernel, &c->root);
	if (r < 0) {
		/* An unread command line may say earlytune=0: do nothing on a guess. */
		log_msg(LOG_ERR, "cannot read %s/%s: %s; nothing was done", c->root.is_host ? "" : c->root.dir,
			c->kernel.unreadable, strerror(-r));
		return EXIT_USAGE;
	}
	if (a->kernel)
		kernel_target(&c->kernel, &c->root, a->kernel);
	else if ((r = image_kernel(c)) != EXIT_OK)
		return r;
	if (machine_setup(c, a->command, a->machine) < 0)
		return EXIT_USAGE;
	if (a->profile && !profile_text(a->profile)) {
		log_msg(LOG_ERR, "--profile: unknown profile '%s'; built-in profiles: %s", a->profile,
			profile_names());
		return EXIT_USAGE;
	}
	r = config_load(&c->cfg, &c->root, a->config, a->profile);
	if (r < 0) {
		log_msg(LOG_ERR, "cannot load the configuration: %s", strerror(-r));
		return EXIT_USAGE;
	}
	/* Each bad line and each unreadable file was named where it was found.
	 * In boot mode they were skipped and the rest applies; otherwise
	 * nothing is written until the configuration is whole (exit 2). */
	if (c->cfg.errors && c->boot)
		log_msg(LOG_ERR, "%d configuration error%s (%d file%s skipped); applying the rest",
			c->cfg.errors, c->cfg.errors > 1 ? "s" : "", c->cfg.skipped, c->cfg.skipped == 1 ? "" : "s");
	if (c->cfg.errors && !c->boot) {
		log_msg(LOG_ERR, "%d configuration error%s (%d file%s skipped); nothing was written",
			c->cfg.errors, c->cfg.errors > 1 ? "s" : "", c->cfg.skipped, c->cfg.skipped == 1 ? "" : "s");
		return EXIT_USAGE;
	}
	r = mods_new(&c->mods, &c->root, &c->kernel);
	return r < 0 ? EXIT_USAGE : EXIT_OK;
}

int main(int argc, char **argv)
{
	struct ctx c = { .root.fd = -1 };
	struct args a = { .root = "/", .command = "plan", .only = 0 };
	int r;

	c.t0_ns = now_ns(CLOCK_MONOTONIC);
	c.measured = commands_measured(&c.nmeasured);
	log_capture_errors(json_wanted(argc, argv));
	log_hold();
	r = parse_args(argc, argv, &c, &a);
	/* A --boot run's argument errors (a bad udev rule, an empty
	 * $env{DISKSEQ}) go where its other messages go: the kernel log. */
	if (r < 0 && c.boot && root_open(&c.root, a.root) == 0)
		log_setup_boot(&c.root);
	log_release();
	if (r != 0) {
		if (r < 0 && json_wanted(argc, argv))
			print_json_error(&c, a.command, c.boot ? EXIT_OK : EXIT_USAGE);
		root_close(&c.root);
		free(c.devices);
		return r > 0 ? EXIT_OK : (c.boot ? EXIT_OK : EXIT_USAGE);
	}
	c.columns = a.wide ? 0 : -1;
	c.only = a.only_set ? a.only : domains_implied(&c);
	log_set_verbose(c.verbose);
	r = setup(&c, &a);
	if (r == EXIT_OK)
		r = command_find(a.command, a.sub)->fn(&c, &a);
	else if (!strcmp(a.command, "verify") && !c.image)
		metrics_write_broken(&c);
	if (c.json && r != EXIT_OK && !json_emitted()) {
		char name[64];

		snprintf(name, sizeof(name), "%s%s%s", a.command, a.sub ? " " : "", a.sub ? a.sub : "");
		print_json_error(&c, name, c.boot ? EXIT_OK : r);
	}
	fflush(stdout);
	mods_free(c.mods);
	config_free(&c.cfg);
	kernel_free(&c.kernel);
	root_close(&c.root);
	free(c.devices);
	item_strings_free();
	return c.boot ? EXIT_OK : r;
}
