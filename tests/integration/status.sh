# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 11: `earlytune status` tells what the applies of this boot did, from
# the run log every apply writes (run/earlytune/runs): bounded, escaped, and
# never a reason for apply to fail.
. "$(dirname "$0")/../lib/common.sh"
export TZ=UTC

t=$WORK/kvm
mk_kvm "$t"
mk_net_builtin "$t"

# Before any apply.
check_rc "no run log: status exits 1" 1 -- "$ET" status --root "$t"
eq "no run log: said plainly" "$OUT" "earlytune has not run since boot (no $t/run/earlytune/runs)"
check_rc "no run log: status --json exits 1" 1 -- "$ET" status --json --root "$t"
json_ok "no run log: JSON valid"
contains "no run log: JSON says it" '"message":"earlytune has not run since boot","runs_dropped":0,"runs":[]'
# Status reads no configuration: a broken one does not hide what happened.
mkdir -p "$t/etc"
echo "[nonsense" >"$t/etc/earlytune.conf"
check_rc "a broken configuration: status still answers" 1 -- "$ET" status --root "$t"
contains "a broken configuration: the answer" "earlytune has not run since boot"
rm "$t/etc/earlytune.conf"

# The boot run, then a udev run of one disk and one of an interface.
"$ET" --boot apply --root "$t" 2>/dev/null
"$ET" --boot apply --device vda --root "$t" 2>/dev/null
"$ET" --boot apply --ifindex 2 --root "$t" 2>/dev/null
check_rc "after three runs: status exits 0" 0 -- "$ET" status --root "$t"
eq "three runs, oldest first" "$(printf '%s\n' "$OUT" | head -1)" "earlytune status: 3 runs since boot, oldest first"
eq "run lines: time, what ran, counts" "$(printf '%s\n' "$OUT" | grep '^2' | sed 's/^[0-9-]* [0-9:]* +0000  //; s/ in [0-9.]* ms$//')" \
"apply --boot: 6 changed, 2 kept, 5 skipped, 0 failed
apply --boot --device vda: 0 changed, 1 kept, 1 skipped, 0 failed
apply --boot --ifindex 2: 0 changed, 0 kept, 1 skipped, 0 failed"
contains "a change: from, to, why, where" "  changed  thp thp enabled: always -> madvise: huge pages only where a program asks"
contains "a skip with its reason" "  skipped  net eth0 qdisc: netlink reaches only the running kernel, not --root $t [profile vps]"
lacks "kept items are not listed" "kept     "
check_rc "status --json exits 0" 0 -- "$ET" status --json --root "$t"
json_ok "status --json: valid"
contains "status --json: the device run" '"command":"apply","boot":true,"scope":"device","names":["vda"],"only":[],"counts":{"changed":0,"kept":1,"skipped":1,"failed":0}'
contains "status --json: the interface run" '"scope":"ifindex","names":["2"]'
contains "status --json: an item" '{"outcome":"changed","domain":"thp","target":"thp","setting":"enabled","current":"always","desired":"madvise","error":null,"reason":"huge pages only'
"$ET" apply --only thp --root "$t" >/dev/null 2>&1
check_rc "a manual run with --only" 0 -- "$ET" status --root "$t"
contains "--only is said" "  apply --only thp: 0 changed, 2 kept, 0 skipped, 0 failed"

# Failures first, and exit 1.
f=$WORK/fail
mk_kvm "$f"
ra=$f/sys/devices/virtual/block/vda/queue/read_ahead_kb
rm "$ra" && mkdir "$ra"
"$ET" apply --root "$f" >/dev/null 2>&1
check_rc "a failed item: status exits 1" 1 -- "$ET" status --root "$f"
eq "the failure is the first item" "$(printf '%s\n' "$OUT" | sed -n 3p)" \
	"  failed   block vda queue/read_ahead_kb: cannot read sys/block/vda/queue/read_ahead_kb: Is a directory [profile vps]"
contains "the counts say it" " 3 changed, 0 kept, 9 skipped, 1 failed in "

# earlytune=0: the run is recorded, nothing written.
z=$WORK/zero
mk_kvm "$z"
echo "BOOT_IMAGE=/vmlinuz earlytune=0" >"$z/proc/cmdline"
"$ET" --boot apply --root "$z" 2>/dev/null
check_rc "earlytune=0: status exits 0" 0 -- "$ET" status --root "$z"
contains "earlytune=0: said" "0 changed, 0 kept, 0 skipped, 0 failed in "
contains "earlytune=0: why" "; earlytune=0 on the kernel command line: nothing written"

# Hostile names: an interface name with a tab, a newline, a backslash and a
# quote cannot add a line to the log or to status.
h=$WORK/hostile
mk_kvm "$h"
bad=$(printf 'e\tv\\"\nil')
mk_netdev "$h" "$bad" 7 1 virtio_net
"$ET" apply --root "$h" >/dev/null 2>&1
eq "hostile name: every log line is a record (or the empty line before a run)" \
	"$(grep -v '^$' "$h/run/earlytune/runs" | grep -cv '^[VRI]	')" 0
eq "hostile name: one line per item" "$(grep -c '^I	skipped	net	' "$h/run/earlytune/runs")" 3
check_rc "hostile name: status exits 0" 0 -- "$ET" status --root "$h"
contains "hostile name: escaped in status" '  skipped  net e\tv\"\nil qdisc: netlink reaches only'
check_rc "hostile name: status --json exits 0" 0 -- "$ET" status --json --root "$h"
json_ok "hostile name: JSON valid"
eq "hostile name: JSON gives the name back" "$(printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(1 for i in d["runs"][0]["items"] if i["target"] == "e\tv\\\"\nil"))')" 1

# sj ROOT EXPR: the Python expression EXPR over `status --json` of ROOT
# (d: the document, r: its runs, t: their times in whole seconds).
sj() {
	"$ET" status --json --root "$1" 2>/dev/null | python3 -c "import json, sys
d = json.load(sys.stdin); r = d['runs']; t = [int(x['timestamp']) for x in r]
print($2)"
}

# The bound: a log of 400 small runs after a boot run. Status shows the boot
# run and the newest runs, RUNLOG_MAX_RUNS (256) in all, and counts the rest.
b=$WORK/bound
mk_kvm "$b"
mkdir -p "$b/run/earlytune"
{
	printf 'V\t1\t5\n'
	printf 'R\t1000000000\t10\tapply\t1\tglobal\t\t\t1\t2\t3\t0\t0\t0\t\n'
	printf 'I\tchanged\tthp\tthp\tenabled\talways\tmadvise\tthe first boot run\tprofile vps\n'
	i=1
	while [ $i -le 400 ]; do
		printf 'R\t%d000000000\t10\tapply\t1\tdevice\tsd%d\t\t0\t1\t0\t0\t0\t0\t\n' $((i + 1)) $i
		i=$((i + 1))
	done
} >"$b/run/earlytune/runs"
cp "$b/run/earlytune/runs" "$WORK/bound.before"
inode=$(stat -c %i "$b/run/earlytune/runs")
"$ET" apply --only thp --root "$b" >/dev/null 2>&1
# Appended, not rewritten: the same file, every earlier byte in place.
eq "bound: the run is appended to the same file" "$(stat -c %i "$b/run/earlytune/runs")" "$inode"
eq "bound: the earlier runs are untouched" "$(head -c "$(stat -c %s "$WORK/bound.before")" "$b/run/earlytune/runs" | cmp - "$WORK/bound.before" && echo same)" same
eq "bound: the new run is the last line but its items" "$(grep '^R	' "$b/run/earlytune/runs" | tail -1 | cut -f4,5,6,8)" "apply	0	global	thp"
eq "bound: 256 runs shown" "$(sj "$b" 'len(r)')" 256
eq "bound: the boot run stays first" "$(sj "$b" 't[0]')" 1
eq "bound: its items stay with it" "$(sj "$b" 'r[0]["items"][0]["reason"]')" "the first boot run"
eq "bound: then the newest udev runs" "$(sj "$b" 'r[1]["names"]')" "['sd147']"
eq "bound: the new run last" "$(sj "$b" 'r[-1]["boot"], r[-1]["scope"], r[-1]["only"]')" "False global ['thp']"
eq "bound: dropped runs counted" "$(sj "$b" 'd["runs_dropped"]')" 151
check_rc "bound: status" 0 -- "$ET" status --root "$b"
contains "bound: status says what was dropped" "earlytune status: 256 runs since boot, oldest first; 151 earlier runs dropped"
# A new boot run is the one kept: the old one goes with the bound.
"$ET" --boot apply --root "$b" 2>/dev/null
eq "bound: a new boot run replaces the pinned one" "$(sj "$b" '1 in t, r[0]["names"], r[-1]["boot"], len(r)')" "False ['sd147'] True 256"

# filler FROM TO BYTES: device runs sdFROM..sdTO of about BYTES each (one
# long skipped item), at times FROM..TO seconds, as earlytune appends them.
filler() {
	_long=$(head -c "$3" /dev/zero | tr '\0' x)
	_i=$1
	while [ "$_i" -le "$2" ]; do
		printf '\nR\t%d000000000\t10\tapply\t0\tdevice\tsd%d\t\t0\t0\t1\t0\t0\t0\t\t1\n' "$_i" "$_i"
		printf 'I\tskipped\tblock\tsd%d\tq\t\t\t%s\t\n' "$_i" "$_long"
		_i=$((_i + 1))
	done
}

# fill SEGMENT FROM TO: filler runs FROM..TO appended to SEGMENT, the last
# padded to leave it 40 bytes short of 128 KiB: too few for any run.
fill() {
	filler "$2" $(($3 - 1)) 18000 >>"$1"
	_pad=$((128 * 1024 - 40 - $(stat -c %s "$1") - $(filler "$3" "$3" 0 | wc -c)))
	[ "$_pad" -ge 0 ] || _pad=0 # a segment already past it (an earlytune that does not rotate)
	filler "$3" "$3" "$_pad" >>"$1"
}

# The byte bound: runs of 60 KiB each (long reasons), a 480 KiB segment
# (none of earlytune's passes 128 KiB but by one run): status shows at most
# 256 KiB of them; the next run starts a new segment.
k=$WORK/bytes
mk_kvm "$k"
mkdir -p "$k/run/earlytune"
{
	printf 'V\t1\t0\n'
	filler 1 8 61440
} >"$k/run/earlytune/runs"
cp "$k/run/earlytune/runs" "$WORK/bytes.before"
"$ET" apply --only thp --root "$k" >/dev/null 2>&1
eq "bytes: whole runs shown, newest first" "$(sj "$k" '" ".join(x["names"][0] if x["names"] else "-" for x in r)')" "sd5 sd6 sd7 sd8 -"
eq "bytes: whole runs dropped" "$(sj "$k" 'd["runs_dropped"]')" 4
eq "bytes: the full segment became runs.old, as it was" "$(cmp "$k/run/earlytune/runs.old" "$WORK/bytes.before" && echo same)" same
eq "bytes: a new segment holds the run" "$(head -1 "$k/run/earlytune/runs") $(grep -c '^R	' "$k/run/earlytune/runs")" "V	2	0 1"
size=$(stat -c %s "$k/run/earlytune/runs")
[ "$size" -le $((128 * 1024)) ]
eq "bytes: the new segment is within 128 KiB ($size bytes)" $? 0

# Rotation: the segment becomes runs.old when the next run would take it
# past 128 KiB; the runs.old before goes, counted; the newest boot run
# survives every rotation, carried (P) into the new segment when it would
# go, and status shows it first, once, then the runs in time order.
q=$WORK/rotate
mk_kvm "$q"
mkdir -p "$q/run/earlytune"
seg=$q/run/earlytune/runs
{
	printf 'V\t1\t5\n'
	printf 'R\t1000000000\t10\tapply\t1\tglobal\t\t\t1\t2\t3\t0\t0\t0\t\n'
	printf 'I\tchanged\tthp\tthp\tenabled\talways\tmadvise\tthe boot run\tprofile vps\n'
} >"$seg"
fill "$seg" 2 8
cp "$seg" "$WORK/seg1"
"$ET" apply --only thp --root "$q" >/dev/null 2>&1
eq "rotation 1: the full segment is runs.old, as it was" "$(cmp "$seg.old" "$WORK/seg1" && echo same)" same
eq "rotation 1: the new segment: nothing dropped yet, no run carried, the run" "$(cut -f1 "$seg" | tr '\n' ' ')$(head -1 "$seg")" \
	"V  R I I V	2	5"
fill "$seg" 9 15
"$ET" apply --only thp --root "$q" >/dev/null 2>&1
eq "rotation 2: runs 1 and 2..8 dropped, the boot run carried" "$(head -1 "$seg")" "V	2	12"
eq "rotation 2: the boot run is the new segment's first, with its item" "$(sed -n '3p;4p' "$seg" | cut -f1,2,8 | tr '\n' ' ')" \
	"P	1000000000	 I	changed	the boot run "
eq "rotation 2: the boot run is in the log once" "$(cat "$seg.old" "$seg" | grep -c '	1000000000	')" 1
eq "rotation 2: status: the boot run first, then the runs in order" \
	"$(sj "$q" 't[0], " ".join(x["names"][0] if x["names"] else "thp" for x in r)')" \
	"1 thp thp sd9 sd10 sd11 sd12 sd13 sd14 sd15 thp"
eq "rotation 2: its items shown with it, nothing counted twice" "$(sj "$q" 'r[0]["items"][0]["reason"], len(r), d["runs_dropped"]')" \
	"the boot run 10 12"
fill "$seg" 16 22
"$ET" apply --only thp --root "$q" >/dev/null 2>&1
eq "rotation 3: the segment holding the boot run is runs.old, nothing carried" \
	"$(sed -n '1p;3p' "$seg.old" | cut -f1-3 | tr '\n' ' ')$(grep -c '^P' "$seg")" "V	2	12 P	1000000000	10 0"
eq "rotation 3: status: the boot run first" "$(sj "$q" 't[0], len(r), d["runs_dropped"]')" "1 10 20"
fill "$seg" 23 29
"$ET" apply --only thp --root "$q" >/dev/null 2>&1
eq "rotation 4: carried again, from a P line" "$(sed -n 3p "$seg" | cut -f1,2)" "P	1000000000"
eq "rotation 4: status: the boot run first, once" "$(sj "$q" 't[0], t.count(1), len(r), d["runs_dropped"]')" "1 1 10 28"
size=$(stat -c %s "$seg.old")
[ "$size" -le $((128 * 1024)) ]
eq "rotation 4: runs.old, which runs earlytune appended to made, is within 128 KiB ($size bytes)" $? 0
# A rotation by a new boot run carries nothing: the new one is the newest.
fill "$seg" 30 36
"$ET" --boot apply --root "$q" >/dev/null 2>&1
eq "rotation by a boot run: nothing carried" "$(grep -c '^P' "$seg")" 0
eq "rotation by a boot run: the new one is the last run, the old one still first" "$(sj "$q" 't[0], r[-1]["boot"], r[-1]["scope"]')" "1 True global"
# Killed between its renames: runs is gone, runs.new is the new segment.
fill "$seg" 37 43
cp -a "$seg" "$WORK/rot.cur"
"$ET" apply --only thp --root "$q" >/dev/null 2>&1
mv "$seg" "$seg.new"
cp -a "$WORK/rot.cur" "$seg.old"
eq "killed mid-rotation: status reads runs.old and runs.new" "$(sj "$q" 'len(r), " ".join(x["names"][0] if x["names"] else "thp" for x in r[-3:])')" \
	"9 sd42 sd43 thp"
"$ET" apply --only thp --root "$q" >/dev/null 2>&1
eq "killed mid-rotation: the next run completes it" "$(ls "$q/run/earlytune" | tr '\n' ' ')" "lock records runs runs.old "
eq "killed mid-rotation: and appends its run" "$(grep -c '^R	' "$seg")" 2

# A run's fields are read within its line: an R line cut short (no SCOPE)
# before an item whose fields would read as a boot run's is no boot run,
# and no rotation carries it.
sb=$WORK/spanline
mk_kvm "$sb"
mkdir -p "$sb/run/earlytune"
printf 'V\t1\t0\nR\t2000000000\nI\tskipped\tblock\t1\tglobal\t\t\tx\t\n' >"$sb/run/earlytune/runs"
fill "$sb/run/earlytune/runs" 2 8
"$ET" apply --only thp --root "$sb" >/dev/null 2>&1
fill "$sb/run/earlytune/runs" 9 15
"$ET" apply --only thp --root "$sb" >/dev/null 2>&1
eq "a cut R line: the rotation that drops it carries nothing" "$(grep -c '^P' "$sb/run/earlytune/runs")" 0
eq "a cut R line: the runs of both segments, nothing else" "$(sj "$sb" 'len(r), d["runs_dropped"]')" "9 8"

# status and the Prometheus export read both segments without the writers'
# lock (a look does not queue behind udev's runs): a rotation between their
# read of runs.old and their read of runs loses no segment. strace holds the
# reader 3 s in its open of runs.old while an apply rotates the log.
p=$WORK/race
mk_kvm "$p"
mkdir -p "$p/run/earlytune" "$p/var/lib/prometheus"
{ printf 'V\t1\t0\n'; filler 1 3 100; } >"$p/run/earlytune/runs.old"
{
	printf 'V\t1\t0\n'
	printf 'R\t4000000000\t10\tapply\t1\tglobal\t\t\t1\t2\t3\t2\t0\t0\t\n'
	printf 'I\tfailed\tblock\tvda\tqueue/nr_requests\t256\t64\tInvalid argument\tprofile vps\n'
	printf 'I\tfailed\tblock\tvda\tqueue/read_ahead_kb\t128\t4096\tInvalid argument\tprofile vps\n'
} >"$p/run/earlytune/runs"
fill "$p/run/earlytune/runs" 5 11
cp "$p/run/earlytune/runs.old" "$WORK/race.old"
cp "$p/run/earlytune/runs" "$WORK/race.cur"
# held_at_old CMD...: CMD, its stdout in $WORK/held.out, held at the exit of
# its first read-open of runs.old (the N-th openat2, found by a first run)
# until an apply has rotated the log; then the log is put back as it was.
held_at_old() {
	# (LeakSanitizer cannot run under ptrace)
	env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -o "$WORK/held.dry" -e trace=openat2 "$@" >/dev/null 2>&1
	_n=$(grep 'openat2(' "$WORK/held.dry" | grep -n -m1 '"run/earlytune/runs.old", {flags=O_RDONLY|O_CLOEXEC,' | cut -d: -f1)
	env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -o /dev/null -e trace=openat2 \
		-e inject=openat2:delay_exit=3000000:when="${_n:-1}" "$@" >"$WORK/held.out" 2>"$WORK/held.err" &
	_sp=$! _i=0
	while [ $_i -lt 100 ] && ! ls -l "/proc/$(pgrep -P $_sp | head -1)/fd" 2>/dev/null | grep -q 'runs\.old$'; do
		sleep 0.05
		_i=$((_i + 1))
	done
	"$ET" apply --only thp --root "$p" >/dev/null 2>&1
	eq "held at runs.old: an apply rotated the log meanwhile" "$(cmp "$p/run/earlytune/runs.old" "$WORK/race.cur" && echo rotated)" rotated
	wait $_sp
	cp "$WORK/race.old" "$p/run/earlytune/runs.old"
	cp "$WORK/race.cur" "$p/run/earlytune/runs"
}
if command -v strace >/dev/null && command -v pgrep >/dev/null; then
	held_at_old "$ET_BIN" status --json --root "$p"
	eq "a rotation mid-read: status counts every run of both segments, the new one too" \
		"$(python3 -c "import json, sys
d = json.load(open(sys.argv[1])); r = d['runs']
print(len(r), d['runs_dropped'], sum(x['counts']['failed'] for x in r))" "$WORK/held.out")" "9 3 2"
	held_at_old "$ET_BIN" verify --prometheus /var/lib/prometheus/et.prom --root "$p"
	eq "a rotation mid-read: the Prometheus export counts the boot run's failures" \
		"$(grep '^earlytune_failed_items ' "$p/var/lib/prometheus/et.prom")" "earlytune_failed_items 2"
else
	fail "strace and pgrep run (.ci/bootstrap installs them)"
fi

# A crashed append leaves a torn run (here an R line that would parse, its
# note cut): status skips it. The next run is appended after it, nothing
# cut: its empty line ends the torn line, and the torn run, which no empty
# line follows, stays unread (runlog.sh: torn items, an item short).
tr=$WORK/torn
mk_kvm "$tr"
"$ET" apply --only thp --root "$tr" >/dev/null 2>&1
printf '\nR\t9000000000\t10\tapply\t0\tdevice\tsdz\t\t0\t0\t1\t0\t0\t0\ta torn no' >>"$tr/run/earlytune/runs"
check_rc "torn last line: status exits 0" 0 -- "$ET" status --root "$tr"
contains "torn last line: skipped" "earlytune status: 1 run since boot"
lacks "torn last line: not shown" "sdz"
"$ET" apply --only thp --root "$tr" >/dev/null 2>&1
eq "torn last line: the next run appended after it, nothing cut" "$(grep -c 'sdz' "$tr/run/earlytune/runs")" 1
eq "torn last line: then two runs, the torn one not among them" "$(sj "$tr" 'len(r), [x["names"] for x in r]')" "2 [[], []]"
printf 'I\tfailed\tblock\tsdz\tq\t\t\ta reason\tprofile v' >>"$tr/run/earlytune/runs"
eq "torn item: skipped, the run kept" "$(sj "$tr" 'len(r), [i["target"] for i in r[-1]["items"]]')" "2 []"
# A log of another format: its lines are not read as runs, an apply
# appends its run, which is.
printf 'V\t9\tsomething else\nR\t9500000000\t10\tapply\t0\tdevice\tsdw\t\t0\t0\t1\t0\t0\t0\t\n' >"$tr/run/earlytune/runs"
check_rc "another format: status cannot read it" 2 -- "$ET" status --root "$tr"
"$ET" apply --only thp --root "$tr" >/dev/null 2>&1
eq "another format: the run appended, and read alone" "$(grep -c '^R	' "$tr/run/earlytune/runs") $(sj "$tr" 'len(r), r[0]["names"]')" "2 1 []"

# A one-disk udev run costs the same whatever the log holds: with a full
# runs.old and a half full runs, it reads and writes under 1 KiB of the log
# and under 4 KiB in all (a rewrite of the log would read 192 KiB). In all:
# not under ASan, whose start reads its own maps.
u=$WORK/udev
mk_kvm "$u"
"$ET" --boot apply --root "$u" >/dev/null 2>&1
{ printf 'V\t1\t0\n'; filler 1 7 18600; } >"$u/run/earlytune/runs.old"
filler 8 10 18600 >>"$u/run/earlytune/runs"
rw_bytes() { awk -F'= ' '/^([0-9]+ +)?(read|write|pread64|pwrite64|readv|writev)\(/ && $NF + 0 > 0 { b += $NF } END { print b + 0 }' "$1"; }
if command -v strace >/dev/null; then
	strace -f -e trace=read,write,pread64,pwrite64,readv,writev -P "$u/run/earlytune/runs" \
		-P "$u/run/earlytune/runs.old" -o "$WORK/udev.log.rw" "$ET_BIN" --boot apply --device vda --root "$u" >/dev/null 2>&1
	strace -f -e trace=read,write,pread64,pwrite64,readv,writev -o "$WORK/udev.rw" \
		"$ET_BIN" --boot apply --device vda --root "$u" >/dev/null 2>&1
	bytes=$(rw_bytes "$WORK/udev.log.rw")
	[ "$bytes" -gt 0 ] && [ "$bytes" -lt 1024 ]
	eq "one-disk run, full log: $bytes bytes of the log read and written" $? 0
	bytes=$(rw_bytes "$WORK/udev.rw")
	[ -n "${SAN:-}" ] || { [ "$bytes" -gt 0 ] && [ "$bytes" -lt 4096 ]; }
	eq "one-disk run, full log: $bytes bytes read and written in all" $? 0
else
	fail "strace runs (.ci/bootstrap installs it)"
fi
eq "one-disk run, full log: its runs appended" "$(sj "$u" 'len(r), r[-1]["names"], r[-2]["names"]')" "13 ['vda'] ['vda']"

# A log that cannot be written (here a directory in its place) is said once
# and changes nothing: not --boot's exit, not a manual apply's.
w=$WORK/nowrite
mk_kvm "$w"
mkdir -p "$w/run/earlytune/runs"
check_rc "unwritable log: apply still exits 0" 0 -- "$ET" apply --only thp --root "$w"
contains "unwritable log: one line says so" "earlytune: cannot record this run in $w/run/earlytune/runs: Is a directory"
eq "unwritable log: the change was made" "$(active "$w/sys/kernel/mm/transparent_hugepage/enabled")" madvise
check_rc "unwritable log: --boot exits 0" 0 -- "$ET" --boot apply --root "$w"
check_rc "unwritable log: status exits 2" 2 -- "$ET" status --root "$w"
contains "unwritable log: status says why" "status: cannot read $w/run/earlytune/runs: Is a directory"

# Issue 27, point 10: a revert is a run too, so that status (and the
# metrics) describe a reverted system, not the apply it undid.
v=$WORK/reverted
mk_kvm "$v"
mk_net_builtin "$v"
"$ET" --boot apply --root "$v" 2>/dev/null
"$ET" revert --root "$v" >/dev/null 2>&1
check_rc "reverted: status exits 0" 0 -- "$ET" status --root "$v"
eq "reverted: the apply, then the revert" "$(printf '%s\n' "$OUT" | grep '^2' | sed 's/^[0-9-]* [0-9:]* +0000  //; s/ in [0-9.]* ms$//')" \
"apply --boot: 6 changed, 2 kept, 5 skipped, 0 failed
revert: 6 changed, 0 kept, 0 skipped, 0 failed"
contains "reverted: what went back" "  changed  thp thp enabled: madvise -> always: original value recorded before earlytune changed it"
eq "reverted: said last" "$(printf '%s\n' "$OUT" | tail -n 1)" \
	"now reverted: the kernel's own values are back; earlytune apply sets earlytune's again"
check_rc "reverted: status --json" 0 -- "$ET" status --json --root "$v"
contains "reverted: status --json: the revert run" '"command":"revert","boot":false,"scope":"global"'
"$ET" revert --root "$v" >/dev/null 2>&1
check_rc "nothing left to revert: recorded too" 0 -- "$ET" status --root "$v"
contains "nothing left to revert: its run" "revert: 0 changed, 0 kept, 0 skipped, 0 failed"
"$ET" apply --only thp --root "$v" >/dev/null 2>&1
check_rc "applied again: status" 0 -- "$ET" status --root "$v"
lacks "applied again: no longer reverted" "now reverted"

# Measurements: each a run in the log (not an apply: a revert before it
# still stands), and the settings they changed, from their own files in
# etc/sysctl.d (they outlive the boot), with their newest check.
m=$WORK/measured
mk_measured "$m" held
check_rc "a measured setting, no run: status exits 1 (never ran)" 1 -- "$ET" status --root "$m"
contains "a measured setting: shown with its check" \
	"  held       net.ipv4.tcp_wmem = 4096 16384 262144: before 10.5 Mbit/s, predicted 38.1 Mbit/s, after 36.7 Mbit/s (checked 2026-12-03T21:05:00Z) [/etc/sysctl.d/60-earlytune-measure-tcp_wmem.conf]"
check_rc "measure tcp --verify, the setting not in force: exit 1" 1 -- "$ET" measure tcp --verify --root "$m"
check_rc "after a measurement: status exits 0" 0 -- "$ET" status --root "$m"
contains "the measurement's run" "measure tcp --verify: 1 measured, 0 changed, 0 failed"
contains "its row: the file, the setting, the verdict and why" \
	"  unverified measure /etc/sysctl.d/60-earlytune-measure-tcp_wmem.conf net.ipv4.tcp_wmem: not in force: net.ipv4.tcp_wmem reads '4096 16384 65536'"
eq "an unverified check leaves the file's verdict" \
	"$(grep -c '^# Verified: held' "$m/etc/sysctl.d/60-earlytune-measure-tcp_wmem.conf")" 1
check_rc "status --json, measured: exit 0" 0 -- "$ET" status --json --root "$m"
contains "status --json: the measured setting" \
	'"measured":[{"kind":"tcp","setting":"net.ipv4.tcp_wmem","value":"4096 16384 262144","file":"etc/sysctl.d/60-earlytune-measure-tcp_wmem.conf","verdict":"held","checked":"2026-12-03T21:05:00Z","quantity":"throughput_bps","before":10500000,"predicted":38100000,"after":36700000}]'
contains "status --json: the measurement's scope" '"command":"measure tcp --verify","boot":false,"scope":"measurement"'
mk_measured "$m" failed
check_rc "a failed prediction: status exits 1" 1 -- "$ET" status --failed --root "$m"
contains "status --failed: the failed prediction" "  failed     net.ipv4.tcp_wmem = 4096 16384 262144: "
mk_measured "$m" none
check_rc "not checked yet: status exits 0" 0 -- "$ET" status --root "$m"
contains "not checked yet: said" "  unverified net.ipv4.tcp_wmem = 4096 16384 262144: before 10.5 Mbit/s, predicted 38.1 Mbit/s, not checked yet"
# measure readahead's settings beside tcp's: two quantities, each a line
mk_measured_readahead "$m" held
check_rc "readahead's measured setting: status exits 0" 0 -- "$ET" status --root "$m"
contains "readahead: its amplification" \
	"  held       block/vdb/queue/read_ahead_kb = 1024: before 1934.9x, predicted 248.5x, after 600.0x (checked 2026-12-07T01:30:00Z) [/etc/earlytune.d/60-earlytune-measure-readahead-vdb.conf]"
contains "readahead: its sequential throughput" \
	"  held       block/vdb/queue/read_ahead_kb = 1024: before 276.0 MiB/s, predicted 1239.7 MiB/s, after 1100.0 MiB/s (checked"
contains "readahead: tcp's still shown" "  unverified net.ipv4.tcp_wmem = 4096 16384 262144: "
echo 8192 >"$m/sys/block/vdb/queue/read_ahead_kb"
check_rc "measure readahead --verify, the read-ahead not in force: exit 1" 1 -- "$ET" measure readahead vdb --verify --root "$m"
contains "readahead --verify: not in force, said" "verdict:    unverified: not in force: the read-ahead reads 8192 KiB, the file sets 1024"
check_rc "readahead --verify: status after it exits 0" 0 -- "$ET" status --root "$m"
contains "readahead --verify: its run" "measure readahead --verify: 1 measured, 0 changed, 0 failed"
contains "readahead --verify: its row" "  unverified measure vdb queue/read_ahead_kb: not in force: the read-ahead reads 8192 KiB"
check_rc "status --json, readahead: exit 0" 0 -- "$ET" status --json --root "$m"
contains "status --json: readahead's kind and quantity" \
	'{"kind":"readahead","setting":"block/vdb/queue/read_ahead_kb","value":"1024","file":"etc/earlytune.d/60-earlytune-measure-readahead-vdb.conf","verdict":"held","checked":"2026-12-07T01:30:00Z","quantity":"amplification","before":1934.9000000000001,"predicted":248.5,"after":600}'
mk_measured_readahead "$m" failed
check_rc "readahead, a failed prediction: status --failed exits 1" 1 -- "$ET" status --failed --root "$m"
contains "status --failed: readahead's failed prediction" "  failed     block/vdb/queue/read_ahead_kb = 1024: before 1934.9x"
rm -r "$m/etc/earlytune.d"
"$ET" revert --root "$v" >/dev/null 2>&1
mk_measured "$v" held
"$ET" measure tcp --verify --root "$v" >/dev/null 2>&1
check_rc "reverted, then a measurement: status" 0 -- "$ET" status --root "$v"
contains "reverted, then a measurement: the measurement logged" "measure tcp --verify: 1 measured"
contains "reverted, then a measurement: still reverted" "now reverted: the kernel's own values are back"
