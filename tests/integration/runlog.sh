# SPDX-License-Identifier: LGPL-2.1-or-later
# The run log's format (src/engine/runlog.c): an append reads nothing of the
# log, and a crash mid-append leaves a torn run that no reader takes.
# The first version (V 1: what earlier versions wrote; tests/golden/
# runlog-v1/runs.old and runs, a carried boot run, a hostile name, a torn
# last line) reads as they read it: status, --json, --last, --failed and
# verify print what the first version's binary printed (runlog-v1/*.txt),
# and a run appended to it leaves its bytes. Then the second version's torn
# runs, cut in their R line, in an item, or at the end of a line with an
# item short: each is left out, the runs around it are read; and a log cut
# at every byte of its last run.
. "$(dirname "$0")/../lib/common.sh"
export TZ=UTC
g=$TESTS_DIR/golden/runlog-v1

# sj ROOT EXPR: the Python expression EXPR over `status --json` of ROOT
# (r: its runs, n: the first name of each, "-" for none).
sj() {
	"$ET" status --json --root "$1" 2>/dev/null | python3 -c "import json, sys
d = json.load(sys.stdin); r = d['runs']; n = [x['names'][0] if x['names'] else '-' for x in r]
print($2)" "${3:-}"
}

t=$WORK/v1
mk_kvm "$t"
mk_net_builtin "$t"
mkdir -p "$t/run/earlytune"
cp "$g/runs.old" "$g/runs" "$t/run/earlytune/"
for view in status "status --json" "status --last 2" "status --failed" "status --failed --json" verify; do
	# shellcheck disable=SC2086 # the view's words
	out=$("$ET" $view --root "$t" 2>&1)
	rc=$?
	golden "first version: $view (exit $rc)" "runlog-v1/$(echo "$view" | tr -d '-' | tr ' ' _).txt" \
		"$(printf '%s\nexit %s' "$out" "$rc" | sed "s|$t|ROOT|g")"
done

cp "$t/run/earlytune/runs" "$WORK/runs.before"
check_rc "first version: apply appends to it" 0 -- "$ET" apply --only thp --root "$t"
eq "first version: its bytes left as they were" \
	"$(head -c "$(stat -c %s "$WORK/runs.before")" "$t/run/earlytune/runs" | cmp - "$WORK/runs.before" && echo same)" same
eq "first version: its runs, then the new one; its torn last run (sdz) not read" \
	"$(sj "$t" 'len(r), " ".join(n), r[-1]["only"]')" "8 - sdq - vda 2 - - - ['thp']"

# The second version: each run begins with an empty line, its R line counts
# its items.
u=$WORK/v2
mk_kvm "$u"
"$ET" apply --only thp --root "$u" >/dev/null 2>&1
log=$u/run/earlytune/runs
eq "second version: the head, the empty line, the run and its two items" "$(cut -f1 "$log" | tr '\n' ' ')" "V  R I I "
eq "second version: its R line counts its items (16 fields)" "$(grep '^R' "$log" | awk -F'\t' '{ print NF, $NF }')" "16 2"
# A run torn in its R line: not read, neither now nor once the next run's
# empty line has ended its line.
printf '\nR\t9000000000\t10\tapply\t0\tdevice\tsdz\t\t0\t0\t1\t0\t0\t0\ta torn no' >>"$log"
eq "torn R line: not read" "$(sj "$u" '" ".join(n)')" "-"
"$ET" apply --only thp --root "$u" >/dev/null 2>&1
eq "torn R line: still not read after the next run, which is" "$(sj "$u" '" ".join(n)')" "- -"
# Torn in its one item: its count is met, but the item's line was ended by
# the next run's empty line, which no run but a torn one lacks.
printf '\nR\t9100000000\t10\tapply\t0\tdevice\tsdy\t\t0\t0\t1\t0\t0\t0\t\t1\nI\tskipped\tblock\tsdy\tq\t\t\ta rea' >>"$log"
"$ET" apply --only thp --root "$u" >/dev/null 2>&1
eq "torn item: the run not read, the next one read" "$(sj "$u" '" ".join(n)')" "- - -"
# Cut at the end of a line, an item short: its count is not met.
printf '\nR\t9200000000\t10\tapply\t0\tdevice\tsdx\t\t0\t0\t2\t0\t0\t0\t\t2\nI\tskipped\tblock\tsdx\tq\t\t\tone\t\n' >>"$log"
eq "an item short, last: not read" "$(sj "$u" '" ".join(n)')" "- - -"
"$ET" apply --only thp --root "$u" >/dev/null 2>&1
eq "an item short: not read once followed either" "$(sj "$u" '" ".join(n)')" "- - - -"
# The same run whole is read.
printf '\nR\t9300000000\t10\tapply\t0\tdevice\tsdw\t\t0\t0\t2\t0\t0\t0\t\t2\nI\tskipped\tblock\tsdw\tq\t\t\tone\t\nI\tskipped\tblock\tsdw\tr\t\t\ttwo\t\n' >>"$log"
eq "a whole run written by hand: read, with its items" "$(sj "$u" '" ".join(n), len(r[-1]["items"])')" "- - - - sdw 2"
eq "no torn line was cut: every torn run's lines are still there" "$(grep -c 'sd[xyz]' "$log")" 5

# A crash at any byte of a run: the log cut at every byte of its last run
# (every third, and each line's last two), then the next run appended. The
# runs before are read as they were, the cut one never (but whole), the
# next one always.
c=$WORK/cut
mk_kvm "$c"
"$ET" --boot apply --root "$c" >/dev/null 2>&1
"$ET" apply --only thp --root "$c" >/dev/null 2>&1
before=$(sj "$c" 'json.dumps(r)')
size=$(stat -c %s "$c/run/earlytune/runs")
"$ET" apply --device vda --root "$c" >/dev/null 2>&1
cp "$c/run/earlytune/runs" "$WORK/cut.full"
full=$(stat -c %s "$WORK/cut.full")
ends=$(awk -v s="$size" '{ n += length($0) + 1; if (n > s) print n - 1, n }' "$WORK/cut.full" | tr '\n' ' ')
bad=
for k in $(seq "$size" 3 "$full") $ends; do
	head -c "$k" "$WORK/cut.full" >"$c/run/earlytune/runs"
	"$ET" apply --only thp --root "$c" >/dev/null 2>&1
	want="- - -"
	[ "$k" = "$full" ] && want="- - vda -"
	got=$(sj "$c" '" ".join(n), json.dumps(r[:2]) == sys.argv[1]' "$before")
	[ "$got" = "$want True" ] || bad="$bad $k:$got"
done
eq "cut at any byte of the last run: it is read whole or not at all, the others as they were" "${bad# }" ""
