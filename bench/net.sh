#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/net.sh [EARLYTUNE] — the per-interface qdisc of earlytune against what
# a user would run instead, on 1,000 veth interfaces in a network namespace of
# its own (1,000 veth pairs; the v* side selected):
#
#   a. earlytune apply --only net (one link dump, one qdisc dump, the replace
#      requests batched per sendmsg with an ACK each, one dump to read back,
#      originals recorded)
#   b. a shell loop of `tc qdisc replace dev vN root pfifo limit 100`
#   c. `tc -batch` with the same 1,000 lines
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
# something failed. Needs root, ip and tc. NIFS (1000), REPS (3), BENCH_DRY
# (1: a dry run, see bench/lib.sh: a. to c. once on 2 pairs, the result
# checked; no d.).
set -euo pipefail

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
ET=${1:-$top/build/earlytune}
NIFS=${NIFS:-1000}
REPS=${REPS:-3}
CURVE=${CURVE:-"1 100 $NIFS"}
CURVE_REPS=${CURVE_REPS:-20}
if bench_dry; then
	plan="$NIFS pairs (REPS=$REPS CURVE=\"$CURVE\" CURVE_REPS=$CURVE_REPS)"
	NIFS=2 REPS=1
fi
NS=et-bench-$$

[[ $(id -u) == 0 ]] || die "needs root (network namespaces)"
[[ -x $ET ]] || die "$ET: not an executable (run make first)"
ET=$(realpath "$ET")
for t in ip tc; do command -v $t >/dev/null || die "$t missing (package iproute2)"; done
TMP=$(mktemp -d /tmp/et-netbench.XXXXXX)
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
# times each variant REPS times from the kernel's defaults, medians in µs.
cat >"$TMP/inside.sh" <<'INSIDE'
set -eu
tmp=$1 reps=$2
mount --bind "$tmp/state" /run/earlytune
et=("$tmp/earlytune" apply --only net --profile none --config "$tmp/net.conf")
reset() { tc -batch "$tmp/reset.batch" 2>/dev/null || true; rm -rf "$tmp/state/originals" "$tmp/state/links"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
time_it() { # NAME CMD…
	local name=$1 k t0 t1
	shift
	for ((k = 0; k < reps; k++)); do
		reset
		t0=${EPOCHREALTIME/./}
		"$@" >/dev/null
		t1=${EPOCHREALTIME/./}
		echo $((t1 - t0))
	done | median | sed "s/^/$name /"
}
time_it earlytune "${et[@]}"
echo "check $(tc qdisc show | grep -c 'qdisc pfifo e7e8: dev v[0-9]* root refcnt [0-9]* limit 100p' || true)"
t0=${EPOCHREALTIME/./}
"${et[@]}" >/dev/null
t1=${EPOCHREALTIME/./}
echo "steady $((t1 - t0))"
time_it loop sh "$tmp/loop.sh"
time_it batch tc -batch "$tmp/tc.batch"
reset
INSIDE
ip netns exec "$NS" bash "$TMP/inside.sh" "$TMP" "$REPS" >"$TMP/out" || { cat "$TMP/out"; die "FAIL: a measured command failed"; }
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
tc qdisc show dev v0 | grep -q 'qdisc pfifo e7e[89]: root .* limit 100p' || { echo "v0 not tuned" >&2; exit 1; }
CURVE
if bench_dry; then
	bash -n "$TMP/curve.sh" || die "FAIL: the script of d. does not parse"
	bench_say "$NIFS veth pairs in a namespace: earlytune apply --only net gave each v* the pfifo root (a. to c. run once)"
	bench_say "a real run measures a. to c. on $plan, then d.$(command -v valgrind >/dev/null ||
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
et=$(get earlytune) steady=$(get steady) loop=$(get loop) batch=$(get batch)
# not lib.sh's ratio: a bare number, for verdict
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
verdict() { awk -v v="$1" -v l="$3" -v op="$2" 'BEGIN { ok = op == ">=" ? v >= l : v <= l; print ok ? "PASS" : "MISS" }'; }
ms() { awk -v u="$1" 'BEGIN { printf "%.1f ms", u / 1000 }'; }

echo "earlytune net benchmark — $ET"
echo "$NIFS veth interfaces (of $((2 * NIFS)) in the namespace), $(nproc) CPUs, kernel $(uname -r)"
echo "medians of $REPS runs, each from the kernel's default roots"
echo
printf '%-58s %12s\n' MEASUREMENT MEDIAN
printf '%-58s %12s\n' "a. earlytune apply --only net (first apply)" "$(ms "$et")"
printf '%-58s %12s\n' "   earlytune apply --only net (steady state, one run)" "$(ms "$steady")"
printf '%-58s %12s\n' "b. loop of tc qdisc replace" "$(ms "$loop")"
printf '%-58s %12s\n' "c. tc -batch" "$(ms "$batch")"
echo
echo "d. apply --ifindex of v0 against the size of the host (every v* applied and recorded; wall median of $CURVE_REPS)"
printf '%-8s %-7s %12s %14s %9s %9s\n' PAIRS RUN WALL INSTRUCTIONS RECVMSG SENDS
while read -r n mode wall ir rcv snd; do
	printf '%-8s %-7s %12s %14s %9s %9s\n' "$n" "$mode" "$(ms "$wall")" "$ir" "$rcv" "$snd"
done <"$TMP/curve"
echo
r_loop=$(ratio "$loop" "$et")
r_batch=$(ratio "$et" "$batch")
printf '%-50s %12s %12s %6s\n' TARGET MEASURED GOAL RESULT
printf '%-50s %12s %12s %6s\n' "speed-up over the tc loop" "${r_loop}x" ">= 20x" "$(verdict "$r_loop" ">=" 20)"
printf '%-50s %12s %12s %6s\n' "time relative to tc -batch" "${r_batch}x" "<= 1.5x" "$(verdict "$r_batch" "<=" 1.5)"
first_n=${CURVE%% *} last_n=${CURVE##* }
calls() { awk -v n="$1" '$1 == n && $2 == "steady" { print $5 + $6 }' "$TMP/curve"; }
c1=$(calls "$first_n") c2=$(calls "$last_n")
printf '%-50s %12s %12s %6s\n' "d. netlink calls, steady, $last_n pairs / $first_n" "$c2 / $c1" "equal" \
	"$([[ $c1 == "$c2" ]] && echo PASS || echo MISS)"
