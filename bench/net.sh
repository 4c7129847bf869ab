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
#
# This kernel has no sch_fq: pfifo takes the same code path. Every run starts
# from the kernel's default roots. Prints medians and ratios; exit 0 unless
# something failed. Needs root, ip and tc. NIFS (1000), REPS (3).
set -euo pipefail

ET=$(realpath "${1:-build/earlytune}")
NIFS=${NIFS:-1000}
REPS=${REPS:-3}
NS=et-bench-$$
TMP=$(mktemp -d /tmp/et-netbench.XXXXXX)
trap 'ip netns del "$NS" 2>/dev/null; rm -rf "$TMP"' EXIT
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

[[ $(id -u) == 0 ]] || die "needs root (network namespaces)"
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
get() { awk -v k="$1" '$1 == k { print $2 }' "$TMP/out"; }
et=$(get earlytune) steady=$(get steady) loop=$(get loop) batch=$(get batch) check=$(get check)
[[ $check == "$NIFS" ]] || die "FAIL: after earlytune apply, $check of $NIFS interfaces have the pfifo root"
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
r_loop=$(ratio "$loop" "$et")
r_batch=$(ratio "$et" "$batch")
printf '%-50s %12s %12s %6s\n' TARGET MEASURED GOAL RESULT
printf '%-50s %12s %12s %6s\n' "speed-up over the tc loop" "${r_loop}x" ">= 20x" "$(verdict "$r_loop" ">=" 20)"
printf '%-50s %12s %12s %6s\n' "time relative to tc -batch" "${r_batch}x" "<= 1.5x" "$(verdict "$r_batch" "<=" 1.5)"
