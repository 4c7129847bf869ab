#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/net.sh [EARLYTUNE] — the per-interface qdisc of earlytune against what
# a user would run instead, on 1,000 veth interfaces in a network namespace of
# its own (1,000 veth pairs; the v* side selected). The records and every
# file of the run are on tmpfs (/dev/shm), as /run is at boot:
#
#   a. earlytune apply --only net from the kernel's default roots, the
#      originals recorded by an earlier run (one link dump, one qdisc dump,
#      the replace requests batched per sendmsg with an ACK for each
#      batch's last, one dump to read back); its first run, which records
#      the originals, and its steady state (nothing to change) apart
#   b. a shell loop of `tc qdisc replace dev vN root pfifo limit 100`
#   c. `tc -batch` with the same 1,000 lines, reaching the same end state
#   a. and c. run in turn within each repetition (paired: the same load);
#   their system calls (strace -c) and instructions (callgrind), which the
#   load does not move, and the load average before and after are printed
#   d. the udev path against the size of the host: `apply --ifindex` of v0
#      in namespaces of CURVE ("1 100 NIFS") veth pairs, every v* applied
#      and recorded first; first apply (v0 back to the kernel's root, its
#      record forgotten, as udev's add of a new interface finds it) and
#      steady state: wall median of CURVE_REPS (20), instructions
#      (callgrind), netlink calls (strace). Its cost must not grow with the
#      interfaces of the host (issue 14: it dumped every link and qdisc).
#
# This kernel has no sch_fq: pfifo takes the same code path. Every run starts
# from the kernel's default roots. Prints medians and ratios; exit 0 unless
# something failed. Needs root, ip and tc. NIFS (1000), REPS (9), LOOP_REPS
# (1), BENCH_DRY (1: a dry run, see bench/lib.sh: a. to c. once on 2 pairs,
# the result checked; no counts, no d.).
set -euo pipefail

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
ET=${1:-$top/build/earlytune}
NIFS=${NIFS:-1000}
REPS=${REPS:-9}
LOOP_REPS=${LOOP_REPS:-1}
CURVE=${CURVE:-"1 100 $NIFS"}
CURVE_REPS=${CURVE_REPS:-20}
if bench_dry; then
	plan="$NIFS pairs (REPS=$REPS LOOP_REPS=$LOOP_REPS CURVE=\"$CURVE\" CURVE_REPS=$CURVE_REPS)"
	NIFS=2 REPS=1 LOOP_REPS=1
fi
NS=et-bench-$$

[[ $(id -u) == 0 ]] || die "needs root (network namespaces)"
[[ -x $ET ]] || die "$ET: not an executable (run make first)"
ET=$(realpath "$ET")
for t in ip tc; do command -v $t >/dev/null || die "$t missing (package iproute2)"; done
TMP=$(mktemp -d /dev/shm/et-netbench.XXXXXX)
# Not under set -e: the namespaces the run deleted itself are gone, and the
# exit status stays the run's.
cleanup() {
	set +e
	ip netns del "$NS" 2>/dev/null
	for n in $CURVE; do ip netns del "$NS-$n" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
cp "$ET" "$TMP/earlytune"
mkdir -p "$TMP/state" /run/earlytune
ip netns add "$NS"
for ((i = 0; i < NIFS; i++)); do
	echo "link add v$i numtxqueues 1 type veth peer name p$i numtxqueues 1"
done >"$TMP/links"
ip -n "$NS" -batch "$TMP/links"
for ((i = 0; i < NIFS; i++)); do echo "qdisc replace dev v$i root pfifo limit 100"; done >"$TMP/tc.batch"
for ((i = 0; i < NIFS; i++)); do echo "qdisc del dev v$i root"; done >"$TMP/reset.batch"
printf '[net]\nqdisc = pfifo\nqdisc.limit = 100\ninterfaces = v*\n' >"$TMP/net.conf"
printf 'i=0\nwhile [ $i -lt %d ]; do\n\ttc qdisc replace dev v$i root pfifo limit 100\n\ti=$((i + 1))\ndone\n' \
	"$NIFS" >"$TMP/loop.sh"

# Runs inside the namespace (and the mount namespace ip netns exec makes):
# REPS rounds of a., c. and a.'s first run, each from the kernel's default
# roots, then the steady state, the loop, and (COUNTS=1) the counts. Prints
# "NAME VALUE" lines, times in µs.
cat >"$TMP/inside.sh" <<'INSIDE'
set -eu
tmp=$1 reps=$2 loops=$3 counts=$4
mount --bind "$tmp/state" /run/earlytune
et=("$tmp/earlytune" apply --only net --profile none --config "$tmp/net.conf")
roots() { tc -batch "$tmp/reset.batch" 2>/dev/null || true; }
records() { find "$tmp/state" -mindepth 1 -delete; }
usec() {
	local t0 t1
	t0=${EPOCHREALTIME/./}
	"$@" >/dev/null
	t1=${EPOCHREALTIME/./}
	echo $((t1 - t0))
}
roots
"${et[@]}" >/dev/null # the originals recorded, before a.
for ((k = 0; k < reps; k++)); do
	roots
	echo "apply $(usec "${et[@]}")"
	roots
	echo "batch $(usec tc -batch "$tmp/tc.batch")"
	roots
	records
	echo "first $(usec "${et[@]}")"
done
echo "check $(tc qdisc show | grep -c 'qdisc pfifo e7e[89]: dev v[0-9]* root refcnt [0-9]* limit 100p' || true)"
echo "steady $(usec "${et[@]}")"
for ((k = 0; k < loops; k++)); do
	roots
	echo "loop $(usec sh "$tmp/loop.sh")"
done
# calls NAME CMD…: its system calls (strace -c -f: the total's calls column)
calls() {
	local name=$1
	shift
	strace -f -qq -c -o "$tmp/calls" "$@" >/dev/null
	echo "$name $(awk '$NF == "total" { print $4 }' "$tmp/calls")"
}
# instr NAME CMD…: its instructions (callgrind)
instr() {
	local name=$1
	shift
	echo "$name $(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
		sed -n 's/.*Collected : \([0-9]*\).*/\1/p')"
}
if [ "$counts" = 1 ] && command -v strace >/dev/null; then
	roots
	calls sys_apply "${et[@]}"
	roots
	records
	calls sys_first "${et[@]}"
	roots
	calls sys_batch tc -batch "$tmp/tc.batch"
fi
if [ "$counts" = 1 ] && command -v valgrind >/dev/null; then
	roots
	instr ir_apply "${et[@]}"
	roots
	records
	instr ir_first "${et[@]}"
	roots
	instr ir_batch tc -batch "$tmp/tc.batch"
fi
roots
INSIDE
load0=$(cut -d' ' -f1-3 /proc/loadavg)
counts=1
bench_dry && counts=0
ip netns exec "$NS" bash "$TMP/inside.sh" "$TMP" "$REPS" "$LOOP_REPS" "$counts" >"$TMP/out" || { cat "$TMP/out"; die "FAIL: a measured command failed"; }
ip netns del "$NS"
get() { awk -v k="$1" '$1 == k { print $2 }' "$TMP/out"; }
check=$(get check)
[[ $check == "$NIFS" ]] || die "FAIL: after earlytune apply, $check of $NIFS interfaces have the pfifo root"

# d. inside a namespace of N pairs: "first|steady WALL_US INSTRUCTIONS RECVMSG SENDTO".
cat >"$TMP/curve.sh" <<'CURVE'
set -eu
tmp=$1 reps=$2
rm -rf "$tmp/cstate" && mkdir "$tmp/cstate"
mount --bind "$tmp/cstate" /run/earlytune
"$tmp/earlytune" apply --only net --profile none --config "$tmp/net.conf" >/dev/null
idx=$(cat /sys/class/net/v0/ifindex)
one=("$tmp/earlytune" apply --only net --profile none --config "$tmp/net.conf" --ifindex "$idx")
reset() { tc qdisc del dev v0 root 2>/dev/null || true; "$tmp/earlytune" forget --ifindex "$idx" >/dev/null 2>&1; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for mode in first steady; do
	wall=$(for ((k = 0; k < reps; k++)); do
		[[ $mode == first ]] && reset
		t0=${EPOCHREALTIME/./}
		"${one[@]}" >/dev/null
		t1=${EPOCHREALTIME/./}
		echo $((t1 - t0))
	done | median)
	ir=- calls="- -"
	if command -v valgrind >/dev/null; then
		[[ $mode == first ]] && reset
		ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "${one[@]}" 2>&1 >/dev/null |
			sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
	fi
	if command -v strace >/dev/null; then
		[[ $mode == first ]] && reset
		strace -f -qq -o "$tmp/nltrace" -e trace=sendto,sendmsg,recvmsg "${one[@]}" >/dev/null
		calls="$(grep -c '^[0-9]* *recvmsg(' "$tmp/nltrace") $(grep -cE '^[0-9]* *send(to|msg)\(' "$tmp/nltrace")"
	fi
	echo "$mode $wall $ir $calls"
done
q=$(tc qdisc show dev v0) # read whole, not piped into grep -q (under pipefail its early exit fails tc)
grep -q 'qdisc pfifo e7e[89]: root .* limit 100p' <<<"$q" || { echo "v0 not tuned" >&2; exit 1; }
CURVE
bash -n "$TMP/curve.sh" || die "FAIL: the script of d. does not parse"
load1=$(cut -d' ' -f1-3 /proc/loadavg)
med() { get "$1" | bench_stats | cut -d' ' -f1; }
apply=$(med apply) first=$(med first) batch=$(med batch) steady=$(get steady) loop=$(med loop)
# The paired ratios, one per repetition (a. and c. under the same load), and their median.
paired() { paste <(get "$1") <(get batch) | awk '{ printf "%.4f\n", $1 / $2 }' | bench_stats 2; }
# not lib.sh's ratio: a bare number, for verdict
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
verdict() { awk -v v="$1" -v l="$3" -v op="$2" 'BEGIN { ok = op == ">=" ? v >= l : v <= l; print ok ? "PASS" : "MISS" }'; }
ms() { awk -v u="$1" 'BEGIN { printf "%.1f ms", u / 1000 }'; }
num() { get "$1" | awk '{ printf "%\047d", $1 }'; }

echo "earlytune net benchmark — $ET"
echo "$NIFS veth interfaces (of $((2 * NIFS)) in the namespace), $(nproc) CPUs, kernel $(uname -r); records on tmpfs ($TMP)"
echo "medians of $REPS rounds (a., c. and a.'s first run in turn, each from the kernel's default roots); load average $load0 before, $load1 after"
echo
printf '%-62s %12s\n' MEASUREMENT MEDIAN
printf '%-62s %12s\n' "a. earlytune apply --only net (originals recorded before)" "$(ms "$apply")"
printf '%-62s %12s\n' "   its first run (records the $NIFS originals)" "$(ms "$first")"
printf '%-62s %12s\n' "   its steady state (nothing to change, one run)" "$(ms "$steady")"
printf '%-62s %12s\n' "b. loop of tc qdisc replace (median of $LOOP_REPS)" "$(ms "$loop")"
printf '%-62s %12s\n' "c. tc -batch" "$(ms "$batch")"
if [ "$counts" = 1 ]; then
	echo
	echo "counts the load does not move (one run each)"
	printf '%-62s %14s %14s\n' RUN SYSCALLS INSTRUCTIONS
	printf '%-62s %14s %14s\n' "a. earlytune apply (originals recorded before)" "$(num sys_apply)" "$(num ir_apply)"
	printf '%-62s %14s %14s\n' "   its first run" "$(num sys_first)" "$(num ir_first)"
	printf '%-62s %14s %14s\n' "c. tc -batch" "$(num sys_batch)" "$(num ir_batch)"
fi
if bench_dry; then
	bench_say "$NIFS veth pairs in a namespace: earlytune apply --only net gave each v* the pfifo root (a. to c. run once)"
	bench_say "a real run measures a. to c. on $plan, their counts, then d.$(command -v valgrind >/dev/null ||
		echo '; no valgrind: no instruction counts')$(command -v strace >/dev/null || echo '; no strace: no netlink call counts')"
	exit 0
fi
for n in $CURVE; do
	ip netns add "$NS-$n"
	head -n "$n" "$TMP/links" | ip -n "$NS-$n" -batch -
	ip netns exec "$NS-$n" bash "$TMP/curve.sh" "$TMP" "$CURVE_REPS" | sed "s/^/$n /" >>"$TMP/curve" ||
		die "FAIL: the --ifindex apply in the namespace of $n pairs"
	ip netns del "$NS-$n"
done
echo
echo "d. apply --ifindex of v0 against the size of the host (every v* applied and recorded; wall median of $CURVE_REPS)"
printf '%-8s %-7s %12s %14s %9s %9s\n' PAIRS RUN WALL INSTRUCTIONS RECVMSG SENDS
while read -r n mode wall ir rcv snd; do
	printf '%-8s %-7s %12s %14s %9s %9s\n' "$n" "$mode" "$(ms "$wall")" "$ir" "$rcv" "$snd"
done <"$TMP/curve"
echo
r_loop=$(ratio "$loop" "$apply")
r_batch=$(ratio "$apply" "$batch")
r_first=$(ratio "$first" "$batch")
read -r p_batch p_lo p_hi <<<"$(paired apply)"
read -r f_batch f_lo f_hi <<<"$(paired first)"
printf '%-58s %12s %10s %6s\n' TARGET MEASURED GOAL RESULT
printf '%-58s %12s %10s %6s\n' "speed-up over the tc loop" "${r_loop}x" ">= 20x" "$(verdict "$r_loop" ">=" 20)"
printf '%-58s %12s %10s %6s\n' "apply / tc -batch, same end state (medians)" "${r_batch}x" "<= 1.1x" "$(verdict "$r_batch" "<=" 1.1)"
printf '%-58s %12s %10s %6s\n' "   paired, median of $REPS (min-max ${p_lo}-${p_hi})" "${p_batch}x" "<= 1.1x" "$(verdict "$p_batch" "<=" 1.1)"
printf '%-58s %12s %10s %6s\n' "first apply / tc -batch (medians; paired ${f_batch}x)" "${r_first}x" "-" "-"
first_n=${CURVE%% *} last_n=${CURVE##* }
calls() { awk -v n="$1" '$1 == n && $2 == "steady" { print $5 + $6 }' "$TMP/curve"; }
c1=$(calls "$first_n") c2=$(calls "$last_n")
printf '%-58s %12s %10s %6s\n' "d. netlink calls, steady, $last_n pairs / $first_n" "$c2 / $c1" "equal" \
	"$([[ $c1 == "$c2" ]] && echo PASS || echo MISS)"
