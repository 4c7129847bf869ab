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
"apply --boot: 6 changed, 2 kept, 4 skipped, 0 failed
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
contains "the counts say it" " 3 changed, 0 kept, 8 skipped, 1 failed in "

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
eq "hostile name: every log line is a record" "$(grep -cv '^[VRI]	' "$h/run/earlytune/runs")" 0
eq "hostile name: one line per item" "$(grep -c '^I	skipped	net	' "$h/run/earlytune/runs")" 2
check_rc "hostile name: status exits 0" 0 -- "$ET" status --root "$h"
contains "hostile name: escaped in status" '  skipped  net e\tv\"\nil qdisc: netlink reaches only'
check_rc "hostile name: status --json exits 0" 0 -- "$ET" status --json --root "$h"
json_ok "hostile name: JSON valid"
eq "hostile name: JSON gives the name back" "$(printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(1 for i in d["runs"][0]["items"] if i["target"] == "e\tv\\\"\nil"))')" 1

# The bound: a log of 400 small runs after a boot run keeps the boot run
# and the newest runs, RUNLOG_MAX_RUNS (256) in all, and counts the rest.
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
"$ET" apply --only thp --root "$b" >/dev/null 2>&1
eq "bound: 256 runs kept" "$(grep -c '^R	' "$b/run/earlytune/runs")" 256
eq "bound: the boot run stays first" "$(sed -n 2p "$b/run/earlytune/runs" | cut -f2)" 1000000000
eq "bound: its items stay with it" "$(sed -n 3p "$b/run/earlytune/runs" | cut -f8)" "the first boot run"
eq "bound: then the newest udev runs" "$(sed -n 4p "$b/run/earlytune/runs" | cut -f7)" sd147
eq "bound: the new run last" "$(grep '^R	' "$b/run/earlytune/runs" | tail -1 | cut -f4,5,6,8)" "apply	0	global	thp"
eq "bound: dropped runs counted" "$(head -1 "$b/run/earlytune/runs")" "V	1	151"
check_rc "bound: status" 0 -- "$ET" status --root "$b"
contains "bound: status says what was dropped" "earlytune status: 256 runs since boot, oldest first; 151 earlier runs dropped"
# A new boot run is the one kept: the old one goes with the bound.
"$ET" --boot apply --root "$b" 2>/dev/null
eq "bound: a new boot run replaces the pinned one" "$(grep -c '	1000000000	' "$b/run/earlytune/runs")" 0

# The byte bound: runs of 60 KiB each (long reasons): at most 256 KiB stay.
k=$WORK/bytes
mk_kvm "$k"
mkdir -p "$k/run/earlytune"
long=$(head -c 600 /dev/zero | tr '\0' x)
{
	printf 'V\t1\t0\n'
	for i in 1 2 3 4 5 6 7 8; do
		printf 'R\t%d000000000\t10\tapply\t0\tdevice\tsd%d\t\t0\t0\t100\t0\t0\t0\t\n' $i $i
		j=0
		while [ $j -lt 100 ]; do printf 'I\tskipped\tblock\tsd%d\tq%d\t\t\t%s\t\n' $i $j "$long"; j=$((j + 1)); done
	done
} >"$k/run/earlytune/runs"
"$ET" apply --only thp --root "$k" >/dev/null 2>&1
size=$(stat -c %s "$k/run/earlytune/runs")
[ "$size" -le $((256 * 1024 + 4096)) ]
eq "bytes: the log stays within 256 KiB ($size bytes)" $? 0
eq "bytes: whole runs kept, newest first" "$(grep '^R	' "$k/run/earlytune/runs" | cut -f7 | tr '\n' ' ')" "sd5 sd6 sd7 sd8  "
eq "bytes: whole runs dropped" "$(head -1 "$k/run/earlytune/runs")" "V	1	4"

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
