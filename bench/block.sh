#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/block.sh [EARLYTUNE] — the block domain of earlytune against the
# alternatives, on a generated tree of 1,000 virtio disks:
#
#   a. `earlytune apply --only block` over all disks (first apply and steady state)
#   b. a POSIX shell loop writing the same values (write only, and with reads
#      before and after each write the way earlytune reads them), and a shell
#      script doing the same job (classify, clamp, record, verify) with the
#      commands such scripts use (readlink, cat); and the job's floor: a C
#      program making apply's system calls and nothing else (what is left
#      between apply and it is apply's own, between it and the loop the job's)
#   c. one-device apply (--device vd$((NDISKS / 2)), vd500 by default) against
#      exec'ing a static no-op binary: the first run of a boot (no
#      run/earlytune yet: it makes the directory, the lock, its disk's file
#      and the run log), then the same disk again; g. judges the udev path
#   f. a udev storm: STORM (256) concurrent `--boot apply --device vdI`, as
#      udev starts them for a burst of new disks, against as many concurrent
#      execs of a static no-op (the floor of any RUN program)
#   d. peak RSS of the 1,000-disk apply
#   e. size of the stripped binary
#   g. the udev path against the size of the host: one-device apply on hosts
#      of CURVE ("1 100 NDISKS") disks, every disk recorded, each size
#      against a no-op exec measured beside it (its cost must not grow with
#      the disks and records of the host)
#   h. syscalls per disk (strace -c) of a first apply and of the write-only
#      loop, beside the minimum the job needs; the apply on the tree above
#      (diskseq on every disk) and on one without diskseq, reported apart
#
# Targets (issue 28's): apply ≤ 1.2× the write-only loop's time (each
# apply paired with a loop run, the tree reset before each), ≥ 70×
# faster than the same-job script, one-device apply ≤ 1.4× a no-op exec at
# every size of g. (each run paired with a no-op exec, the median of the
# pairs' CPU ratios judged), peak RSS ≤ 4 MiB. Wall clock and CPU time
# (user + system, exec included: a loaded machine distorts it least) are
# both printed.
#
# Prints absolute numbers, ratios and PASS/MISS per target. Exit status is 0
# whatever the numbers; 1 only if something crashed, earlytune exited non-zero
# or the tree did not end up tuned.
#
# Environment: NDISKS (1000), REPS (5, median taken), NRUNS (200, one device),
# NPAIRS (30, apply beside the loop and beside the floor), CURVE,
# BENCH_DRY (1: a dry run, see bench/lib.sh: a tree of 4 disks, the helpers
# built and run once, the correctness checks, no measurement),
# BENCH_DIR (/dev/shm, else /tmp): where the tree goes. On a disk file system (ext4 /tmp)
# every rewrite of an attribute pays for truncating a regular file (ext4
# frees the block and, with auto_da_alloc, starts writeback on close), a cost
# sysfs does not have and that swamps both earlytune and the shell loop;
# tmpfs is much closer to what sysfs costs, hence the default.
set -euo pipefail

NDISKS=${NDISKS:-1000}
REPS=${REPS:-5}
NRUNS=${NRUNS:-200}
NPAIRS=${NPAIRS:-30}
STORM=${STORM:-256}
TAB=$'\t'

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
ET=${1:-$top/build/earlytune}
if bench_dry; then
	plan="$NDISKS disks (REPS=$REPS NRUNS=$NRUNS STORM=$STORM CURVE=\"${CURVE:-1 100 $NDISKS}\")"
	NDISKS=4
fi
MID=vd$((NDISKS / 2)) # the one device of c.

[[ -x $ET ]] || die "$ET: not an executable (run make first)"
ET=$(realpath "$ET")
[[ -x /usr/bin/time ]] || die "/usr/bin/time missing (package time)"
command -v gcc >/dev/null || die "gcc missing"
command -v strip >/dev/null || die "strip missing (binutils)"
SH=$(command -v dash || command -v sh)

[[ -d /dev/shm && -w /dev/shm ]] && default_dir=/dev/shm || default_dir=/tmp
TMP=$(mktemp -d "${BENCH_DIR:-$default_dir}/earlytune-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
TREE=$TMP/root
# Benchmark a private copy: a rebuild during the run must not change the
# binary under test half way (or make an exec fail).
ET_ARG=$ET
cp "$ET" "$TMP/earlytune"
ET=$TMP/earlytune

# ---- helpers compiled here ---------------------------------------------------

# runner N [-s SETUP] [-p|-P PAIR] CMD ARGS…: fork/execs CMD N times (stdout to
# /dev/null), each run timed alone with CLOCK_MONOTONIC; SETUP (sh -c) runs
# untimed before every run. Prints "median min mean cpu-median" in ns (cpu:
# the child's user + system time, exec included: what a loaded machine
# distorts least); exits 1 if any run exits non-zero. With -p, the program
# PAIR (its words split at spaces: a path and arguments) is timed beside
# each run, before it on even runs and after it on odd ones (with -P, SETUP
# runs before it too), and two more fields follow: the medians of the runs'
# own ratios CMD / PAIR, wall and CPU, times 1000. A ratio taken within a
# pair cancels the drift of a shared machine that two separate medians,
# taken seconds apart, do not.
cat >"$TMP/runner.c" <<'EOF'
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int devnull;

static long long now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long long cpu_ns; /* the last run's user + system time */

static int run(char **argv)
{
	struct rusage ru;
	int st;
	pid_t p = fork();

	if (p < 0)
		return -1;
	if (p == 0) {
		dup2(devnull, 1);
		execv(argv[0], argv);
		fprintf(stderr, "runner: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (wait4(p, &st, 0, &ru) < 0)
		if (errno != EINTR)
			return -1;
	cpu_ns = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
		 (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
	return st;
}

static int cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return (x > y) - (x < y);
}

static long long median(long long *v, int n)
{
	qsort(v, n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int failed(const char *what, int k, int st)
{
	fprintf(stderr, "runner: %s: run %d: %s %d\n", what, k + 1,
		WIFSIGNALED(st) ? "killed by signal" : "exit status",
		WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	return 1;
}

/* The pair's run, its wall time in *t and CPU time in *c. */
static int timed(char **argv, long long *t, long long *c)
{
	long long t0 = now();
	int st = run(argv);

	*t = now() - t0;
	*c = cpu_ns;
	return st;
}

int main(int argc, char **argv)
{
	int n, i = 2, st;
	char *setup[] = { "/bin/sh", "-c", NULL, NULL }, *pair[9] = { NULL };
	bool pair_setup = false;
	long long *t, *cpu, *rt, *rc, sum = 0;

	if (argc < 3 || (n = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: runner N [-s SETUP] [-p|-P PAIR] CMD [ARGS...]\n");
		return 2;
	}
	if (!strcmp(argv[i], "-s") && argc > i + 2) {
		setup[2] = argv[i + 1];
		i += 2;
	}
	if ((!strcmp(argv[i], "-p") || !strcmp(argv[i], "-P")) && argc > i + 2) {
		int w = 0;

		pair_setup = argv[i][1] == 'P';

		for (char *save, *word = strtok_r(argv[i + 1], " ", &save); word && w < 8;
		     word = strtok_r(NULL, " ", &save))
			pair[w++] = word;
		i += 2;
	}
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	t = calloc(n, sizeof(*t));
	cpu = calloc(n, sizeof(*cpu));
	rt = calloc(n, sizeof(*rt));
	rc = calloc(n, sizeof(*rc));
	for (int k = 0; k < n; k++) {
		long long pt = 1, pc = 1;

		if (setup[2] && (st = run(setup)) != 0) {
			fprintf(stderr, "runner: setup '%s' failed (status %#x)\n", setup[2], st);
			return 1;
		}
		if (pair[0] && k % 2 == 0 && (st = timed(pair, &pt, &pc)) != 0)
			return failed(pair[0], k, st);
		if (pair_setup && k % 2 == 0 && setup[2] && (st = run(setup)) != 0)
			return failed(setup[2], k, st);
		if ((st = timed(argv + i, &t[k], &cpu[k])) != 0)
			return failed(argv[i], k, st);
		if (pair_setup && k % 2 == 1 && setup[2] && (st = run(setup)) != 0)
			return failed(setup[2], k, st);
		if (pair[0] && k % 2 == 1 && (st = timed(pair, &pt, &pc)) != 0)
			return failed(pair[0], k, st);
		rt[k] = t[k] * 1000 / (pt > 0 ? pt : 1);
		rc[k] = cpu[k] * 1000 / (pc > 0 ? pc : 1);
		sum += t[k];
	}
	printf("%lld ", median(t, n));
	printf("%lld %lld %lld", t[0], sum / n, median(cpu, n));
	if (pair[0])
		printf(" %lld %lld", median(rt, n), median(rc, n));
	printf("\n");
	return 0;
}
EOF
gcc -O2 -o "$TMP/runner" "$TMP/runner.c" || die "cannot build the runner"
printf 'int main(void){return 0;}' | gcc -static -O2 -x c - -o "$TMP/noop" || die "cannot build the static no-op"

# storm N CMD ARGS…: starts N copies of CMD at once ("%d" in an argument
# becomes the copy's number), waits for all; prints the wall time in ns and
# the slowest copy's. Exits 1 if any copy exits non-zero.
cat >"$TMP/storm.c" <<'EOF'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[1]) : 0, devnull = open("/dev/null", O_WRONLY), bad = 0;
	long long t0 = now(), slowest = 0, *start = calloc(n + 1, sizeof(*start));
	pid_t *pid = calloc(n + 1, sizeof(*pid));

	if (n < 1 || !start || !pid) {
		fprintf(stderr, "usage: storm N CMD [ARGS...]\n");
		return 2;
	}
	for (int k = 0; k < n; k++) {
		start[k] = now();
		pid[k] = fork();
		if (pid[k] == 0) {
			char **av = argv + 2;
			for (int i = 0; av[i]; i++) {
				char *at = strstr(av[i], "%d"), *arg;
				if (at && asprintf(&arg, "%.*s%d%s", (int)(at - av[i]), av[i], k, at + 2) > 0)
					av[i] = arg;
			}
			dup2(devnull, 1);
			dup2(devnull, 2);
			execv(av[0], av);
			_exit(127);
		}
	}
	for (int done = 0; done < n; done++) {
		int st;
		long long t;
		pid_t p = wait(&st);

		t = now();
		for (int k = 0; k < n; k++)
			if (pid[k] == p && t - start[k] > slowest)
				slowest = t - start[k];
		bad |= !WIFEXITED(st) || WEXITSTATUS(st);
	}
	printf("%lld %lld\n", now() - t0, slowest);
	return bad;
}
EOF
gcc -O2 -o "$TMP/storm" "$TMP/storm.c" || die "cannot build the storm runner"

# floor ROOT: the job's floor, what no implementation of apply's job on this
# tree goes below with apply's system calls: for each disk of sys/block the
# calls apply makes (below the disk's directory held open, confined as
# under --root: the driver link, the two attributes read through the files
# that then write them, diskseq), then every value written, cut and read
# back, and one records file; no configuration, plan, table or checks.
# apply's time less the floor's is apply's own; the floor's less the
# write-only loop's is the job's reads, classification, identity and record.
cat >"$TMP/floor.c" <<'EOF'
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAXDISKS 65536
static int held[MAXDISKS][2], oldlen[MAXDISKS][2];
static char rec[MAXDISKS * 160];

static int in(int dirfd, const char *path, int flags, unsigned long long resolve)
{
	struct open_how how = { .flags = flags | O_CLOEXEC, .resolve = resolve };

	return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

static int put(int fd, const char *value, int old)
{
	char back[256];
	int n = (int)strlen(value);

	if ((n < old && ftruncate(fd, n) < 0) || pwrite(fd, value, n, 0) != n || pread(fd, back, sizeof(back), 0) != n)
		return -1;
	return close(fd);
}

int main(int argc, char **argv)
{
	int root = open(argc > 1 ? argv[1] : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), n = 0, bad = 0, run, f;
	DIR *blk = fdopendir(in(root, "sys/block", O_RDONLY | O_DIRECTORY, RESOLVE_IN_ROOT));
	size_t rl = 0;
	struct dirent *e;

	while (blk && (e = readdir(blk)) && n < MAXDISKS) {
		char path[300], link[256], buf[256], seq[32] = "";
		int d, dev, q;
		ssize_t k;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "sys/block/%s", e->d_name);
		d = in(root, path, O_PATH | O_DIRECTORY, RESOLVE_IN_ROOT);
		dev = in(d, "device", O_PATH | O_DIRECTORY, RESOLVE_BENEATH);
		bad |= readlinkat(dev, "driver", link, sizeof(link)) < 0;
		close(dev);
		held[n][0] = in(d, "queue/scheduler", O_RDWR, RESOLVE_BENEATH);
		oldlen[n][0] = (int)read(held[n][0], buf, sizeof(buf));
		held[n][1] = in(d, "queue/read_ahead_kb", O_RDWR, RESOLVE_BENEATH);
		oldlen[n][1] = (int)read(held[n][1], buf, sizeof(buf));
		q = in(d, "diskseq", O_RDONLY, RESOLVE_BENEATH);
		if ((k = read(q, seq, sizeof(seq) - 1)) > 0)
			seq[k - 1] = '\0';
		close(q);
		close(d);
		rl += (size_t)snprintf(rec + rl, sizeof(rec) - rl,
				       "block\t%s\tqueue/scheduler\t%s/queue/scheduler\t-\tseq:%s\n"
				       "block\t%s\tqueue/read_ahead_kb\t%s/queue/read_ahead_kb\t-\tseq:%s\n",
				       e->d_name, path, seq, e->d_name, path, seq);
		bad |= held[n][0] < 0 || held[n][1] < 0 || oldlen[n][0] < 0 || oldlen[n][1] < 0;
		n++;
	}
	for (int i = 0; i < n; i++)
		bad |= put(held[i][0], "none\n", oldlen[i][0]) < 0 || put(held[i][1], "1024\n", oldlen[i][1]) < 0;
	mkdirat(root, "run/earlytune", 0755);
	run = in(root, "run/earlytune", O_PATH | O_DIRECTORY, RESOLVE_IN_ROOT);
	f = openat(run, ".records.new", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	bad |= f < 0 || write(f, rec, rl) != (ssize_t)rl || close(f) < 0 ||
	       renameat(run, ".records.new", run, "records") < 0;
	return bad || !blk;
}
EOF
gcc -O2 -static -o "$TMP/floor" "$TMP/floor.c" || die "cannot build the job's floor"

# ---- the tree ------------------------------------------------------------------

gen_tree() { # DIR N [nodiskseq]
	local t=$1 n=$2 i d
	local -a dirs=("$t/run" "$t/proc/sys/kernel")

	for ((i = 0; i < n; i++)); do
		dirs+=("$t/sys/block/vd$i/queue" "$t/sys/block/vd$i/device")
	done
	mkdir -p "${dirs[@]}"
	echo 6.1.0-test >"$t/proc/sys/kernel/osrelease"
	echo root=/dev/vda1 >"$t/proc/cmdline"
	# A 6.1 cloud kernel loads modules: without the list, every run would
	# pay the probes that tell a kernel without module support (four calls).
	: >"$t/proc/modules"
	for ((i = 0; i < n; i++)); do
		d=$t/sys/block/vd$i
		echo '[mq-deadline] kyber none' >"$d/queue/scheduler"
		echo 8192 >"$d/queue/read_ahead_kb"
		echo 1 >"$d/queue/rotational"
		echo 256 >"$d/queue/nr_requests"
		if [[ ${3:-} == nodiskseq ]]; then # a kernel before 5.15: the identity hashes dev and the link
			echo "252:$((16 * i))" >"$d/dev"
		else
			echo $((i + 1)) >"$d/diskseq" # every disk of a 5.15+ kernel has one
		fi
	done
	# One ln per disk is the slow part of a shell generator: make the links
	# in a single process when python3 is there.
	if command -v python3 >/dev/null; then
		python3 - "$t" "$n" <<'EOF'
import os, sys
for i in range(int(sys.argv[2])):
    os.symlink("../../../bus/virtio/drivers/virtio_blk", f"{sys.argv[1]}/sys/block/vd{i}/device/driver")
EOF
	else
		for ((i = 0; i < n; i++)); do
			ln -s ../../../bus/virtio/drivers/virtio_blk "$t/sys/block/vd$i/device/driver"
		done
	fi
}

# Untimed reset between repetitions: the two attributes back to their
# untuned values, no recorded originals.
cat >"$TMP/reset.sh" <<'EOF'
for d in "$1"/sys/block/*; do
	echo '[mq-deadline] kyber none' > "$d/queue/scheduler"
	echo 8192 > "$d/queue/read_ahead_kb"
done
rm -rf "$1/run/earlytune"
EOF
RESET="$SH $TMP/reset.sh $TREE"
RESET1="echo '[mq-deadline] kyber none' > $TREE/sys/block/$MID/queue/scheduler && echo 8192 > $TREE/sys/block/$MID/queue/read_ahead_kb && rm -rf $TREE/run/earlytune"

# What a user would write instead.
cat >"$TMP/loop-write.sh" <<'EOF'
for d in "$1"/sys/block/*; do
	echo none > "$d/queue/scheduler"
	echo 1024 > "$d/queue/read_ahead_kb"
done
EOF
# …and the same loop as it costs on sysfs: `>` truncates (O_TRUNC), which
# sysfs ignores but which on tmpfs gives the page back and takes a new one
# twice a disk; `1<>` opens without it (on tmpfs a shorter value is then
# left with the longer one's tail behind its newline: the cost, not the tree,
# is what this loop is for).
cat >"$TMP/loop-rw.sh" <<'EOF'
for d in "$1"/sys/block/*; do
	echo none 1<> "$d/queue/scheduler"
	echo 1024 1<> "$d/queue/read_ahead_kb"
done
EOF
# …and with the reads earlytune does: current value, write, read back.
cat >"$TMP/loop-read.sh" <<'EOF'
for d in "$1"/sys/block/*; do
	read -r x < "$d/queue/scheduler"
	read -r x < "$d/queue/read_ahead_kb"
	echo none > "$d/queue/scheduler"
	read -r x < "$d/queue/scheduler"
	echo 1024 > "$d/queue/read_ahead_kb"
	read -r x < "$d/queue/read_ahead_kb"
done
EOF

# …and the same job earlytune does, the way a shell script does it: classify
# by the driver link, read, clamp read-ahead to 128..1024, write only what
# differs, record the original, read back — with readlink and cat.
cat >"$TMP/loop-same.sh" <<'EOF'
orig=$1/run/shell-originals
: >"$orig"
for d in "$1"/sys/block/*; do
	drv=$(readlink "$d/device/driver")
	case $drv in */virtio_blk) ;; *) continue ;; esac
	s=$(cat "$d/queue/scheduler")
	case $s in
	*"[none]"* | none) ;;
	*)
		printf '%s\t%s\n' "$d/queue/scheduler" "$s" >>"$orig"
		echo none >"$d/queue/scheduler"
		[ "$(cat "$d/queue/scheduler")" = none ] || echo "failed: $d/queue/scheduler" >&2
		;;
	esac
	ra=$(cat "$d/queue/read_ahead_kb")
	want=$ra
	[ "$ra" -lt 128 ] && want=128
	[ "$ra" -gt 1024 ] && want=1024
	if [ "$want" != "$ra" ]; then
		printf '%s\t%s\n' "$d/queue/read_ahead_kb" "$ra" >>"$orig"
		echo "$want" >"$d/queue/read_ahead_kb"
		[ "$(cat "$d/queue/read_ahead_kb")" = "$want" ] || echo "failed: $d/queue/read_ahead_kb" >&2
	fi
done
EOF

t_gen=$(date +%s%N)
gen_tree "$TREE" "$NDISKS"
t_gen=$((($(date +%s%N) - t_gen) / 1000000))

# ---- correctness, once -------------------------------------------------------------

# records_of TREE: the records in force (docs/design.md, Records): the one
# file's lines of each disk without an override file, then the overrides.
records_of() {
	local d=$1/run/earlytune ov
	ov=$(cd "$d" 2>/dev/null && find disks -maxdepth 1 -type f ! -name '.*' 2>/dev/null || true) # no disks/: none
	[[ -z $ov ]] || (cd "$d" && cat $ov)
	[[ ! -f $d/records ]] || LC_ALL=C awk -v ov="$ov" '
		BEGIN { n = split(ov, o, "\n"); for (i = 1; i <= n; i++) over[o[i]] = 1 }
		NR == 1 { split($0, h, "\t"); ilen = h[3] + 0; g = 1; next }
		pos < ilen { pos += length($0) + 1; split($0, e, "\t"); k[++ne] = e[1]; end[ne] = e[2] + e[3]; next }
		{ while (g < ne && b >= end[g]) g++; b += length($0) + 1; if (!(k[g] in over)) print }' "$d/records"
}

check_tuned() { # what: disks…
	local what=$1 d s r
	shift
	for d in "$@"; do
		read -r s <"$TREE/sys/block/$d/queue/scheduler" || true
		read -r r <"$TREE/sys/block/$d/queue/read_ahead_kb" || true
		[[ $s == none && $r == 1024 ]] ||
			die "FAIL: after $what, $d has scheduler '$s' read_ahead_kb '$r' (want 'none' '1024')"
	done
}

$RESET
rc=0
"$ET" apply --only block --root "$TREE" >"$TMP/apply.out" 2>"$TMP/apply.err" || rc=$?
((rc == 0)) || { cat "$TMP/apply.err" >&2; die "FAIL: earlytune apply exited $rc"; }
check_tuned "earlytune apply" vd0 vd1 $MID vd$((NDISKS - 1))
n_changed=$(grep -Ec ' applied( |$)' "$TMP/apply.out" || true)
n_orig=$(records_of "$TREE" | wc -l)
((n_changed == 2 * NDISKS)) || die "FAIL: earlytune applied $n_changed items, want $((2 * NDISKS))"
((n_orig == 2 * NDISKS)) || die "FAIL: run/earlytune/ has $n_orig records, want $((2 * NDISKS))"
# Not a pipe into grep -q: under pipefail its early exit fails the writer (SIGPIPE).
records_of "$TREE" >"$TMP/records"
grep -q "^block$TAB$MID${TAB}queue/read_ahead_kb${TAB}sys/block/$MID/queue/read_ahead_kb${TAB}8192$TAB" "$TMP/records" ||
	die "FAIL: original read_ahead_kb of $MID not recorded"
"$ET" apply --only block --root "$TREE" >"$TMP/apply2.out" || die "FAIL: second earlytune apply exited $?"
grep -Eq ' applied( |$)' "$TMP/apply2.out" && die "FAIL: second apply changed something"
$RESET
$SH "$TMP/loop-write.sh" "$TREE" || die "FAIL: shell loop exited $?"
check_tuned "the shell loop" vd0 $MID vd$((NDISKS - 1))
$RESET
$SH "$TMP/loop-rw.sh" "$TREE" || die "FAIL: the loop without O_TRUNC exited $?"
check_tuned "the loop without O_TRUNC (its first lines)" vd0 $MID vd$((NDISKS - 1))
$RESET
"$TMP/floor" "$TREE" || die "FAIL: the job's floor exited $?"
check_tuned "the job's floor" vd0 $MID vd$((NDISKS - 1))
[[ $(wc -l <"$TREE/run/earlytune/records") == $((2 * NDISKS)) ]] || die "FAIL: the job's floor did not record every disk"

if bench_dry; then
	"$TMP/runner" 1 -s "$RESET" "$ET" apply --only block --root "$TREE" >/dev/null ||
		die "FAIL: the runner cannot time earlytune apply"
	"$TMP/storm" 2 "$TMP/noop" >/dev/null || die "FAIL: the storm runner cannot start the static no-op"
	# The paired mode: six fields, its ratios above zero.
	p=$("$TMP/runner" 2 -p "$TMP/noop" "$ET" apply --only block --device $MID --root "$TREE") ||
		die "FAIL: the runner cannot pair a run with the no-op"
	awk 'NF != 6 || $5 <= 0 || $6 <= 0 { exit 1 }' <<<"$p" || die "FAIL: the paired runner printed '$p'"
	bench_say "a $NDISKS-disk tree in $TMP ($(stat -f -c %T "$TMP")): earlytune apply tuned and recorded every disk," \
		"a second apply changed nothing, the shell loop and the job's floor tuned them; the runner (alone and paired), the storm runner and the static no-op work"
	bench_say "a real run measures a. to h. on $plan$(command -v valgrind >/dev/null ||
		echo '; no valgrind: no instruction counts')$(command -v strace >/dev/null || echo '; no strace: no syscall counts')"
	exit 0
fi

# ---- measurements ------------------------------------------------------------------

measure() { # N SETUP CMD… → "median min mean cpu" ns
	local n=$1 setup=$2
	shift 2
	"$TMP/runner" "$n" ${setup:+-s "$setup"} "$@" || die "FAIL: $* failed"
}
# paired N SETUP CMD…: measure, each run beside a static no-op exec; two
# more fields, the medians of the runs' ratios to it (wall, CPU) × 1000
paired() {
	local n=$1 setup=$2
	shift 2
	"$TMP/runner" "$n" ${setup:+-s "$setup"} -p "$TMP/noop" "$@" || die "FAIL: $* failed"
}
med() { echo "${1%% *}"; }

m_apply=$(measure "$REPS" "$RESET" "$ET" apply --only block --root "$TREE")
$RESET
"$ET" apply --only block --root "$TREE" >/dev/null
m_steady=$(measure "$REPS" "" "$ET" apply --only block --root "$TREE")
m_write=$(measure "$REPS" "$RESET" "$SH" "$TMP/loop-write.sh" "$TREE")
# The goal's ratio: apply and the loop (and the floor) in pairs, the tree
# reset before each run, the median of the pairs' CPU ratios.
m_pair_write=$("$TMP/runner" "$NPAIRS" -s "$RESET" -P "$SH $TMP/loop-write.sh $TREE" "$ET" apply --only block --root "$TREE") ||
	die "FAIL: apply paired with the loop"
m_pair_floor=$("$TMP/runner" "$NPAIRS" -s "$RESET" -P "$TMP/floor $TREE" "$ET" apply --only block --root "$TREE") ||
	die "FAIL: apply paired with the floor"
m_rw=$(measure "$REPS" "$RESET" "$SH" "$TMP/loop-rw.sh" "$TREE")
m_read=$(measure "$REPS" "$RESET" "$SH" "$TMP/loop-read.sh" "$TREE")
m_floor=$(measure "$REPS" "$RESET" "$TMP/floor" "$TREE")
m_same=$(measure 3 "$RESET" "$SH" "$TMP/loop-same.sh" "$TREE")
check_tuned "the same-job shell script" vd0 $MID vd$((NDISKS - 1))

$RESET
m_noop=$(measure "$NRUNS" "" "$TMP/noop")
m_one=$(paired "$NRUNS" "$RESET1" "$ET" apply --only block --device $MID --root "$TREE")
check_tuned "one-device apply" $MID
m_one_steady=$(paired "$NRUNS" "" "$ET" apply --only block --device $MID --root "$TREE")
m_noop2=$(measure "$NRUNS" "" "$TMP/noop") # again: drift between the two

# g. the udev path against the size of the host: one-device apply of vd0 on
# hosts of 1, 100 and NDISKS disks, every disk tuned and recorded (2 records
# each), first apply (vd0 untuned, its records forgotten as udev's remove
# does) and steady state, each against a no-op exec measured beside it.
curve_sizes=${CURVE:-"1 100 $NDISKS"}
declare -A c_first c_steady c_noop c_ir c_bytes
for n in $curve_sizes; do
	t=$TMP/curve$n
	[[ $n == "$NDISKS" ]] && t=$TREE || gen_tree "$t" "$n"
	$SH "$TMP/reset.sh" "$t"
	"$ET" apply --only block --root "$t" >/dev/null || die "FAIL: apply on the $n-disk tree"
	reset0="echo '[mq-deadline] kyber none' > $t/sys/block/vd0/queue/scheduler && echo 8192 > $t/sys/block/vd0/queue/read_ahead_kb && $ET forget --device vd0 --root $t >/dev/null 2>&1"
	c_noop[$n]=$(measure "$NRUNS" "" "$TMP/noop")
	c_first[$n]=$(paired "$NRUNS" "$reset0" "$ET" apply --only block --device vd0 --root "$t")
	c_steady[$n]=$(paired "$NRUNS" "" "$ET" apply --only block --device vd0 --root "$t")
	# What a loaded machine cannot blur: the instructions of one run
	# (callgrind; valgrind has no openat2, so the walk that replaces it is
	# counted) and the bytes it reads and writes (strace), first and steady.
	c_ir[$n]="- -" c_bytes[$n]="- -" c_flt[$n]="- -"
	for mode in first steady; do
		[[ $mode == first ]] && sh -c "$reset0"
		ir=- bytes=-
		if command -v valgrind >/dev/null; then
			valgrind --tool=callgrind --callgrind-out-file=/dev/null "$ET" apply --only block --device vd0 \
				--root "$t" >/dev/null 2>"$TMP/cg" || die "FAIL: apply under valgrind"
			ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$TMP/cg")
			[[ $mode == first ]] && sh -c "$reset0"
		fi
		if command -v strace >/dev/null; then
			strace -e trace=read,write,pread64,pwrite64 -o "$TMP/rw" "$ET" apply --only block --device vd0 \
				--root "$t" >/dev/null || die "FAIL: apply under strace"
			bytes=$(awk -F'= ' '/^(read|write|pread64|pwrite64)\(/ && $NF + 0 > 0 { b += $NF } END { print b + 0 }' "$TMP/rw")
			[[ $mode == first ]] && sh -c "$reset0"
		fi
		# page faults: most of what a udev run costs beyond an exec's
		/usr/bin/time -f %R -o "$TMP/flt" "$ET" --boot apply --only block --device vd0 --root "$t" >/dev/null 2>&1 ||
			die "FAIL: apply under /usr/bin/time"
		c_ir[$n]="${c_ir[$n]#* } $ir" c_bytes[$n]="${c_bytes[$n]#* } $bytes" c_flt[$n]="${c_flt[$n]#* } $(tail -n 1 "$TMP/flt")"
	done
	TREE=$t check_tuned "one-device apply on the $n-disk tree" vd0
	(($(records_of "$t" | wc -l) == 2 * n)) || die "FAIL: the $n-disk tree does not hold $((2 * n)) records"
	[[ $t == "$TREE" ]] || rm -rf "$t"
done

# f. the storm: vd0…vd(STORM-1) untuned, no records, then all at once.
$RESET
m_storm=$("$TMP/storm" "$STORM" "$ET" --boot apply --root "$TREE" --device vd%d) ||
	die "FAIL: a --boot apply of the storm exited non-zero"
n_storm=$(records_of "$TREE" | cut -f2 | sort -u | wc -l)
((n_storm == STORM)) || die "FAIL: after the storm, $n_storm disks have records, want $STORM"
check_tuned "the storm" vd0 vd$((STORM - 1))
m_storm0=$("$TMP/storm" "$STORM" "$TMP/noop")

$RESET
/usr/bin/time -f '%M %R' -o "$TMP/rss" "$ET" apply --only block --root "$TREE" >/dev/null ||
	die "FAIL: earlytune apply under /usr/bin/time exited $?"
read -r rss flt < <(tail -n 1 "$TMP/rss")
/usr/bin/time -f '%M %R' -o "$TMP/rss0" "$TMP/noop"
read -r rss0 flt0 < <(tail -n 1 "$TMP/rss0")
$RESET
/usr/bin/time -f %R -o "$TMP/flt" "$TMP/floor" "$TREE" || die "FAIL: the job's floor under /usr/bin/time"
flt_floor=$(tail -n 1 "$TMP/flt")
$RESET
/usr/bin/time -f %R -o "$TMP/flt" "$SH" "$TMP/loop-write.sh" "$TREE" || die "FAIL: the loop under /usr/bin/time"
flt_loop=$(tail -n 1 "$TMP/flt")

# h. syscalls per disk of the first apply (strace -c), and of the write-only loop:
# on the tree above (every disk with diskseq: its identity is that number) and
# on one without diskseq (a kernel before 5.15: the identity is a hash of dev,
# the link and the identifiers one listing shows), each counted alone.
per_disk() { # STRACE-C-OUTPUT → "name calls/disk …" for the five most called, then "total N"
	awk -v n="$NDISKS" '$NF ~ /^[a-z_0-9]+$/ && $NF != "total" && $4 ~ /^[0-9]+$/ { c[$NF] = $4; t += $4 }
		END { for (k in c) printf "%s %.1f\n", k, c[k] / n; printf "~total %.1f\n", t / n }' "$1" |
		sort -k2 -gr | head -6 | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 } END { print "" }'
}
total_per_disk() { awk -v n="$NDISKS" '$NF == "total" { printf "%.1f", $4 / n }' "$1"; }
sys_et=- sys_loop=- sys_noseq=- tot_et=- tot_noseq=-
if command -v strace >/dev/null; then
	$RESET
	strace -f -c -o "$TMP/strace.et" "$ET" apply --only block --root "$TREE" >/dev/null || die "FAIL: apply under strace"
	$RESET
	strace -f -c -o "$TMP/strace.loop" "$SH" "$TMP/loop-write.sh" "$TREE" || die "FAIL: the loop under strace"
	gen_tree "$TMP/noseq" "$NDISKS" nodiskseq
	strace -f -c -o "$TMP/strace.noseq" "$ET" apply --only block --root "$TMP/noseq" >/dev/null ||
		die "FAIL: apply under strace (no diskseq)"
	grep -q "${TAB}dev:[0-9a-f]*\$" "$TMP/noseq/run/earlytune/records" || die "FAIL: no dev: identity without diskseq"
	rm -rf "$TMP/noseq"
	sys_et=$(per_disk "$TMP/strace.et")
	sys_noseq=$(per_disk "$TMP/strace.noseq")
	sys_loop=$(per_disk "$TMP/strace.loop")
	tot_et=$(total_per_disk "$TMP/strace.et")
	tot_noseq=$(total_per_disk "$TMP/strace.noseq")
fi

strip -o "$TMP/et" "$ET"
size=$(stat -c %s "$TMP/et")
size_raw=$(stat -c %s "$ET")

# ---- report ------------------------------------------------------------------------

# shellcheck disable=SC2317 # called through row()
ms() { awk -v n="$1" 'BEGIN { printf "%.2f ms", n / 1e6 }'; }
# shellcheck disable=SC2317
us() { awk -v n="$1" 'BEGIN { printf "%.0f µs", n / 1e3 }'; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
# verdict VALUE OP LIMIT
verdict() { awk -v v="$1" -v l="$3" -v op="$2" 'BEGIN { ok = op == ">=" ? v >= l : v <= l; print ok ? "PASS" : "MISS" }'; }

pairs() { awk '{ printf "%.2f / %.2f", $5 / 1000, $6 / 1000 }' <<<"$1"; }
# pair_cpu: the CPU ratio of the pairs, the least blurred by the machine
pair_cpu() { awk '{ printf "%.2f", $6 / 1000 }' <<<"$1"; }
r_write=$(pair_cpu "$m_pair_write")
r_write_med=$(div "$(med "$m_apply")" "$(med "$m_write")")
r_read=$(div "$(med "$m_apply")" "$(med "$m_read")")
r_floor=$(pair_cpu "$m_pair_floor")
r_floor_write=$(div "$(med "$m_floor")" "$(med "$m_write")")
r_rw=$(div "$(med "$m_apply")" "$(med "$m_rw")")
r_same=$(div "$(med "$m_same")" "$(med "$m_apply")")
cpu() { cut -d' ' -f4 <<<"$1"; }
# pairs "... ratio-wall ratio-cpu" → "wall× / CPU×", the paired ratios
r_one=$(pair_cpu "$m_one")
r_one_steady=$(pair_cpu "$m_one_steady")

echo "earlytune block benchmark — $ET_ARG"
echo "$NDISKS virtio disks (tree generated in ${t_gen} ms), $(nproc) CPUs, kernel $(uname -r), shell $SH, load $(cut -d' ' -f1-3 /proc/loadavg)"
fstype=$(stat -f -c %T "$TMP")
echo "tree in $TMP ($fstype)"
[[ $fstype == tmpfs ]] || echo "note: not tmpfs — writes pay $fstype's truncate cost, which sysfs does not have; try BENCH_DIR=/dev/shm"
echo "times: median of $REPS runs for $NDISKS disks, of $NRUNS runs for one device; wall clock of fork+exec+wait; CPU: user+system of the run, exec included"
echo
printf '%-58s %12s %12s %12s %12s\n' MEASUREMENT MEDIAN MIN MEAN "CPU MEDIAN"
row() { # label "median min mean cpu" unit
	local a b c d _
	read -r a b c d _ <<<"$2"
	printf '%-58s %12s %12s %12s %12s\n' "$1" "$($3 "$a")" "$($3 "$b")" "$($3 "$c")" "$($3 "$d")"
}
row "a. earlytune apply, $NDISKS disks, first ($((2 * NDISKS)) writes)" "$m_apply" ms
row "   earlytune apply, $NDISKS disks, steady state (all kept)" "$m_steady" ms
row "b. shell loop ($(basename "$SH")), write only" "$m_write" ms
row "   the same without O_TRUNC (1<>: what sysfs costs it)" "$m_rw" ms
row "   shell loop ($(basename "$SH")), read, write, read back" "$m_read" ms
row "   the job's floor: apply's system calls, nothing else (C)" "$m_floor" ms
row "   shell script, same job (readlink, cat; median of 3)" "$m_same" ms
row "c. earlytune apply --device $MID, a boot's first run" "$m_one" us
row "   earlytune apply --device $MID, steady state" "$m_one_steady" us
row "   static no-op exec (before)" "$m_noop" us
row "   static no-op exec (after)" "$m_noop2" us
printf '%-58s %25s\n' "   apply --device $MID / the no-op beside each run, first" "$(pairs "$m_one")"
printf '%-58s %25s\n' "   the same, steady state (medians of paired ratios: wall / CPU)" "$(pairs "$m_one_steady")"
printf '%-58s %12s %12s\n' "f. $STORM concurrent --boot apply --device (wall, slowest)" "$(ms "${m_storm%% *}")" "$(ms "${m_storm##* }")"
printf '%-58s %12s %12s\n' "   $STORM concurrent static no-op execs (wall, slowest)" "$(ms "${m_storm0%% *}")" "$(ms "${m_storm0##* }")"
printf '%-58s %12s\n' "d. peak RSS, $NDISKS-disk apply (static no-op: $rss0 KiB)" "$rss KiB"
printf '%-58s %12s\n' "   its page faults (the floor: $flt_floor, the write-only loop: $flt_loop)" "$flt"
printf '%-58s %12s\n' "e. binary size, stripped (unstripped: $size_raw)" "$size B"
echo
echo "g. one-device apply --device vd0 against the size of the host (every disk recorded; wall median; x: the median of each run's ratio to a no-op exec beside it, wall / CPU)"
printf '%-8s %-9s %22s %22s %22s\n' DISKS RECORDS "no-op exec" "first apply" "steady state"
for n in $curve_sizes; do
	nw=$(med "${c_noop[$n]}") nc=$(cpu "${c_noop[$n]}")
	f=${c_first[$n]} st=${c_steady[$n]}
	printf '%-8s %-9s %22s %22s %22s\n' "$n" $((2 * n)) "$(us "$nw") / $(us "$nc")" \
		"$(us "$(med "$f")") $(pairs "$f")x" \
		"$(us "$(med "$st")") $(pairs "$st")x"
done
echo "   the same runs, counted: instructions (callgrind), bytes read + written (strace) and page faults"
echo "   (GNU time; the static no-op: $flt0), first / steady"
printf '%-8s %-9s %24s %24s %14s\n' DISKS RECORDS "instructions" "bytes read + written" "page faults"
for n in $curve_sizes; do
	read -r i1 i2 <<<"${c_ir[$n]}"
	read -r b1 b2 <<<"${c_bytes[$n]}"
	read -r f1 f2 <<<"${c_flt[$n]}"
	printf '%-8s %-9s %24s %24s %14s\n' "$n" $((2 * n)) "$i1 / $i2" "$b1 / $b2" "$f1 / $f2"
done
last=${curve_sizes##* }
r_curve=$(pair_cpu "${c_first[$last]}")
r_curve_steady=$(pair_cpu "${c_steady[$last]}")
echo
echo "h. syscalls per disk, first apply of $NDISKS disks (strace -c): with diskseq $tot_et, without $tot_noseq"
echo "   with diskseq (5.15+): $sys_et"
echo "   without diskseq (before 5.15): $sys_noseq"
echo "   write-only loop: $sys_loop"
echo "   the job's minimum per disk: 14 (two attributes, each read: open, read, close; then written and read back through one open file: open, write, pread, close)"
echo
printf '%-50s %12s %12s %6s\n' TARGET MEASURED GOAL RESULT
printf '%-50s %12s %12s %6s\n' "apply / shell loop, write only (CPU, paired)" "${r_write}x" "<= 1.2x" "$(verdict "$r_write" "<=" 1.2)"
printf '%-50s %12s %12s %6s\n' "   the same by the two wall medians of a." "${r_write_med}x" "(none)" "-"
printf '%-50s %12s %12s %6s\n' "apply / shell loop with the same reads" "${r_read}x" "(none)" "-"
printf '%-50s %12s %12s %6s\n' "apply / the job's floor (CPU, paired)" "${r_floor}x" "(none)" "-"
printf '%-50s %12s %12s %6s\n' "the job's floor / shell loop, write only" "${r_floor_write}x" "(none)" "-"
printf '%-50s %12s %12s %6s\n' "apply / the write-only loop without O_TRUNC" "${r_rw}x" "(none)" "-"
printf '%-50s %12s %12s %6s\n' "same-job shell script / apply (speed-up)" "${r_same}x" ">= 70x" "$(verdict "$r_same" ">=" 70)"
printf '%-50s %12s %12s %6s\n' "c. a boot's first run (makes run/earlytune) / no-op" "${r_one}x" "(none)" "-"
printf '%-50s %12s %12s %6s\n' "c. the same disk's next run / no-op (CPU, paired)" "${r_one_steady}x" "(none)" "-"
printf '%-50s %12s %12s %6s\n' "g. at $last disks / no-op exec, first (CPU, paired)" "${r_curve}x" "<= 1.4x" "$(verdict "$r_curve" "<=" 1.4)"
printf '%-50s %12s %12s %6s\n' "g. at $last disks / no-op exec, steady (CPU, paired)" "${r_curve_steady}x" "<= 1.4x" "$(verdict "$r_curve_steady" "<=" 1.4)"
r_storm=$(div "${m_storm%% *}" "${m_storm0%% *}")
printf '%-50s %12s %12s %6s\n' "udev storm / no-op storm, wall ($STORM devices)" "${r_storm}x" "(none)" "-"
printf '%-50s %12s %12s %6s\n' "h. syscalls per disk, first apply, diskseq" "$tot_et" "<= 20" \
	"$([[ $tot_et == - ]] && echo - || verdict "$tot_et" "<=" 20)"
printf '%-50s %12s %12s %6s\n' "h. syscalls per disk, first apply, no diskseq" "$tot_noseq" "(none)" "-"
printf '%-50s %12s %12s %6s\n' "peak RSS, $NDISKS-disk apply" "$rss KiB" "<= 4096 KiB" "$(verdict "$rss" "<=" 4096)"
printf '%-50s %12s %12s %6s\n' "stripped binary size" "$size B" "<= 1782579 B" "$(verdict "$size" "<=" 1782579)"
exit 0
