#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/sched.sh [BUILD_DIR] — earlytune's [sched] profiles against the
# kernel's own scheduler values, measured in QEMU guests (software
# emulation, -smp 2) booting the boot tests' Debian cloud kernels (6.1: CFS,
# debugfs latency_ns & co.; 6.12: EEVDF, base_slice_ns):
#
#   a CPU hog (a shell busy loop, SCHED_OTHER, nice 0) pinned to CPU 0, and
#   cyclictest as a SCHED_OTHER wakeup-latency probe on the same CPU
#   (--policy=other -a 0 -i 1000, LOOPS wakeups) — once with the kernel's
#   values ("stock"), once after `earlytune apply --only sched --profile P`
#   for each P in PROFILES, back to stock with `revert --only sched` between;
#   the modes interleaved, RUNS rounds, all in one boot per kernel. A
#   "no-hog" mode (the kernel's values, no busy loop) is the floor: the
#   probe's latency under emulation with nothing to wait for.
#
# Prints per kernel and mode the medians of cyclictest's avg, p99 (from its
# histogram) and max wakeup latency over the runs, their spread (min..max),
# the scheduler values in force, and stock/profile ratios (> 1: the profile
# wakes the probe sooner; stock/no-hog: what the busy loop costs). Exit status 0 whatever the numbers; 1 if a guest
# did not finish or a run produced no result.
#
# Environment: RUNS (3), LOOPS (15000: 15 s at 1 ms), PROFILES ("latency
# throughput"), KERNELS (every kernel of the root). The root is the boot
# tests' (tests/boot/mkroot.sh's cached one; it carries rt-tests), under an
# overlay of this bench's own at BUILD_DIR/boot-bench/rootfs. Needs root
# (chroot, dracut in the root). BENCH_DRY=1: a dry run (bench/lib.sh): the
# checks, the guests' dracut module generated and parsed in a scratch
# directory; no root built or touched, no boot.
# Noise: TCG on a shared host is noisy, the wall clock of each guest is the
# host's; read the spread before the ratios.
set -u
export LC_ALL=C
RUNS=${RUNS:-3}
LOOPS=${LOOPS:-15000}
PROFILES=${PROFILES:-latency throughput}
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_paths "${1:-}"
MOD=$ROOT/usr/lib/dracut/modules.d/98etbench
# ---- report (LOGS=DIR: only this, from the guests' logs of an earlier run) ----

field() { sed -n "s/.* $1=\\([0-9]*\\).*/\\1/p"; }
# stats KERNEL MODE KEY → "median min max" over the runs
stats() { tr -d '\r' <"$OUT/$1.log" | grep "^ETBENCH run=.* mode=$2 samples=" | field "$3" | bench_stats 0; }
report() {
	echo "earlytune [sched] benchmark — $ET"
	echo "QEMU TCG guests, -smp 2, on a host with $(nproc) CPUs ($(uname -r)); per run: a SCHED_OTHER busy loop"
	echo "and cyclictest --policy=other -a 0 -i 1000 -l LOOPS on CPU 0 (no-hog: no busy loop); RUNS runs per mode, interleaved"
	echo "latencies in µs: median over the runs, [min..max] of the runs"
	for k in $kernels; do
		echo
		echo "== $k"
		tr -d '\r' <"$OUT/$k.log" | sed -n 's/^ETBENCH kernel=[^ ]* /  guest: /p; s/^ETBENCH values mode=/  values: /p'
		printf '%-18s %-22s %-22s %-26s\n' MODE "AVG" "P99" "MAX"
		for m in no-hog stock $PROFILES; do
			read -r a1 a2 a3 <<<"$(stats "$k" "$m" avg)"
			read -r p1 p2 p3 <<<"$(stats "$k" "$m" p99)"
			read -r x1 x2 x3 <<<"$(stats "$k" "$m" max)"
			printf '%-18s %-22s %-22s %-26s\n' "$m" "$a1 [$a2..$a3]" "$p1 [$p2..$p3]" "$x1 [$x2..$x3]"
		done
		for m in no-hog $PROFILES; do
			printf '%-18s %-22s %-22s %-26s\n' "stock/$m" "$(ratio "$(stats "$k" stock avg | cut -d' ' -f1)" "$(stats "$k" "$m" avg | cut -d' ' -f1)")" \
				"$(ratio "$(stats "$k" stock p99 | cut -d' ' -f1)" "$(stats "$k" "$m" p99 | cut -d' ' -f1)")" \
				"$(ratio "$(stats "$k" stock max | cut -d' ' -f1)" "$(stats "$k" "$m" max | cut -d' ' -f1)")"
		done
	done
}
if [ -n "${LOGS:-}" ]; then
	OUT=$LOGS
	kernels=$(cd "$OUT" && ls [0-9]*.log | sed 's/\.log$//' | sort -V)
	report
	exit 0
fi
# A fresh clone has no directory for the root (and its log) yet.
mkdir -p "${ROOT%/*}" || die "cannot create ${ROOT%/*}"
if bench_dry; then
	bench_dry_guests
else
	bench_need_root
fi
OUT=$(mktemp -d /tmp/earlytune-bench-sched.XXXXXX)
if bench_dry; then
	MOD=$OUT/98etbench
	trap 'rm -rf "$OUT"' EXIT
else
	cleanup() {
		bench_root_off
		rm -rf "$OUT"
	}
	trap cleanup EXIT
fi

# ---- the guest side: a dracut module whose pre-mount hook runs the bench ------

mkdir -p "$MOD"
cp "$ET" "$MOD/earlytune"
cat >"$MOD/module-setup.sh" <<'EOF'
#!/bin/bash
check() { return 255; }
depends() { return 0; }
install() {
	inst_multiple cyclictest taskset awk sed grep cat sleep mount nproc
	inst_simple "$moddir/earlytune" /usr/sbin/earlytune
	inst_hook pre-mount 99 "$moddir/etbench.sh"
}
EOF
# Sourced by dracut's init: POSIX sh. One ETBENCH line per run and per mode's
# values; the host computes the medians.
cat >"$MOD/etbench.sh" <<'EOF'
exec >/dev/console 2>&1
mount -t debugfs none /sys/kernel/debug 2>/dev/null
D=/sys/kernel/debug/sched
set -- $(cat /proc/cmdline)
for a; do case $a in etbench.runs=*) RUNS=${a#*=} ;; etbench.loops=*) LOOPS=${a#*=} ;;
	etbench.profiles=*) PROFILES=$(echo "${a#*=}" | sed 's/,/ /g') ;; esac; done
echo "ETBENCH kernel=$(cat /proc/sys/kernel/osrelease) cpus=$(nproc) runs=$RUNS loops=$LOOPS profiles=$PROFILES"
values() { # MODE: the scheduler values in force
	v=
	for f in latency_ns min_granularity_ns wakeup_granularity_ns base_slice_ns migration_cost_ns nr_migrate; do
		[ -r "$D/$f" ] && v="$v $f=$(cat "$D/$f")"
	done
	echo "ETBENCH values mode=$1$v"
}
# The one place that changes the scheduler: earlytune's [sched] domain.
sched_set() { # stock (or nothing) | PROFILE
	if [ "${1:-stock}" = stock ]; then
		earlytune revert --only sched >/tmp/et.out 2>&1
	else
		earlytune apply --only sched --profile "$1" >/tmp/et.out 2>&1
	fi || { echo "ETBENCH error mode=$1 earlytune exit $?"; sed 's/^/ETBENCH   /' /tmp/et.out; return 1; }
}
probe() { # RUN MODE: the busy loop beside the probe, except for no-hog
	hog=
	if [ "$2" != no-hog ]; then
		taskset -c 0 sh -c 'while :; do :; done' &
		hog=$!
	fi
	sleep 1
	cyclictest -q --policy=other -p 0 -a 0 -t 1 -i 1000 -l "$LOOPS" -h 100000 \
		--histfile=/tmp/hist >/dev/null 2>&1
	[ -z "$hog" ] || { kill $hog; wait $hog 2>/dev/null; }
	# Buckets are µs; the overflows (>= 100 ms) count towards the total.
	awk -v run="$1" -v mode="$2" '
		/^[0-9]/ { n[$1 + 0] = $2; tot += $2; next }
		/^# Avg Latencies/ { avg = $4 + 0 } /^# Max Latencies/ { max = $4 + 0 }
		/^# Histogram Overflows/ { ovf = $4 + 0 }
		END {
			tot += ovf; if (tot == 0) { print "ETBENCH error mode=" mode " no samples"; exit }
			c = 0; p99 = 100000
			for (i = 0; i < 100000; i++) if (i in n) { c += n[i]; if (c >= 0.99 * tot) { p99 = i; break } }
			printf "ETBENCH run=%d mode=%s samples=%d avg=%d p99=%d max=%d\n", run, mode, tot, avg, p99, max
		}' /tmp/hist
}
r=1
while [ "$r" -le "$RUNS" ]; do
	for m in no-hog stock $PROFILES; do
		sched_set "${m#no-hog}" || continue
		[ "$r" = 1 ] && [ "$m" != no-hog ] && values "$m"
		probe "$r" "$m"
	done
	r=$((r + 1))
done
sched_set stock
echo "ETBENCH-DONE"
echo o >/proc/sysrq-trigger
EOF
chmod 0755 "$MOD/module-setup.sh" "$MOD/etbench.sh"
secs=$((300 + RUNS * (2 + $(echo $PROFILES | wc -w)) * (LOOPS / 100 + 30)))
if bench_dry; then
	bench_dry_module "$MOD"
	bench_say "the guests' dracut module (98etbench, this build's binary) generated in $OUT and parsed"
	bench_say "a real run builds an initramfs per kernel in the root, boots each once (QEMU TCG, at most $secs s):" \
		"RUNS=$RUNS LOOPS=$LOOPS PROFILES=\"$PROFILES\" KERNELS=\"${KERNELS:-every kernel of the root}\"; about 15 minutes"
	exit 0
fi

bench_images et-bench --omit earlytune --add etbench --add-drivers "virtio_pci virtio_blk"

# ---- boots ---------------------------------------------------------------------

bad=0
for k in $kernels; do
	bench_boot "$k" "$OUT/$k.log" "$k" et-bench "$secs" \
		"etbench.runs=$RUNS etbench.loops=$LOOPS etbench.profiles=$(echo $PROFILES | tr ' ' ,)"
	rm -f "$ROOT/boot/et-bench-$k.img"
	bench_check "$k" "$OUT/$k.log" ETBENCH 5 || bad=1
done
report
exit $bad
