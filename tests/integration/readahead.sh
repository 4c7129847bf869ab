#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# measure readahead DEV. In a tree: the arguments, a disk without a device
# node or without a candidate, nothing written. On this machine's loop
# devices (under the lock of its block devices; read-ahead restored), over
# a sparse 4 GiB file on tmpfs with the 8192 KiB read-ahead of a disk that advertises a
# 4 MiB optimal I/O size: the device mapped read-only, then a scratch file
# on an ext4 made by mkfs.ext4 (nothing left in the filesystem), then on
# an ext4 on a partition of the disk, each with
# the candidate from a configuration's [block] section. The amplification
# is the window over the page (the kernel reads the whole window for each
# fault), the prediction for the candidate holds within its tolerance, the
# reads stay within --max-bytes, the read-ahead is the original after every
# run, after a SIGINT to the command and after a SIGKILL of the rounds'
# child, each caught with the candidate in force (a child that ends
# without measuring is a failure, not a report of zeros); --apply writes its file
# under --root (mount namespace of its own) and sets the candidate;
# --verify measures again at it (held), with the file's k tampered (moved),
# its before tampered too (failed), the read-ahead changed (unverified);
# in the tree, a file whose disk's serial another name has now (refused).

# The loop device's filesystems are mounted in a mount namespace of this
# script's own. A namespace that another process makes while one is mounted
# (every ip netns exec of net.sh or nic.sh running beside this script,
# faults.sh, any unshare -m) copies the mount and keeps the filesystem, with
# its exclusive hold on the loop device, after this script's umount:
# sfdisk's exclusive open of the disk then failed and no table was written
# ("partx: failed to read partition table", a skip).
if [ -z "${RA_NS:-}" ] && [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	RA_NS=1 exec unshare -m --propagation private sh "$0" "$@"
fi
. "$(dirname "$0")/../lib/common.sh"

t=$WORK/tree
mkdir -p "$t/sys/block/vdb/queue" "$t/dev" "$t/proc" "$t/etc"
echo 252:16 >"$t/sys/block/vdb/dev"
echo 8388608 >"$t/sys/block/vdb/size"
echo 8192 >"$t/sys/block/vdb/queue/read_ahead_kb"
echo "    1024        0    16384      100        0        0        0        0        0      100      100        0        0        0        0        0        0" >"$t/sys/block/vdb/stat"
printf '[block "cap"]\nmatch.name = vdb\nread_ahead_kb = 1024\n' >"$WORK/cap.conf"
tm() { "$ET" measure readahead "$@" --root "$t" --profile none; }

check_rc "no disk named: exit 2" 2 -- tm
contains "no disk named: which DEV" "measure readahead: which DEV? earlytune measure readahead DEV"
check_rc "a disk the tree lacks: exit 2" 2 -- tm sdz
contains "a disk the tree lacks: said" "no disk sdz: no /sys/block/sdz/dev"
check_rc "a name with a slash: exit 2" 2 -- tm ../x
check_rc "--max-bytes 5X: exit 2" 2 -- tm vdb --max-bytes 5X
contains "--max-bytes 5X: said" "--max-bytes: '5X' is not a number of bytes from 1M to 1024G (K, M, G)"
check_rc "--max-bytes under 1M: exit 2" 2 -- tm vdb --max-bytes 512K
check_rc "--candidate -1: exit 2" 2 -- tm vdb --candidate -1
check_rc "--peer with measure readahead: exit 2" 2 -- tm vdb --peer 10.0.0.1
check_rc "--max-bytes with plan: exit 2" 2 -- "$ET" plan --root "$t" --max-bytes 1G
check_rc "no read_ahead_kb for the disk in the configuration: exit 1" 1 -- tm vdb
contains "no candidate: said, with what to do" "the configuration sets no read_ahead_kb for vdb (see earlytune plan --device vdb); give one with --candidate KB"
check_rc "the tree has no dev/vdb: exit 1" 1 -- tm vdb --config "$WORK/cap.conf"
contains "no device node: said" "cannot open /dev/vdb read-only"
: >"$t/dev/vdb"
check_rc "dev/vdb is a file: exit 1" 1 -- tm vdb --candidate 1024
contains "not a block device: said" "/dev/vdb is not the block device 252:16"
eq "the tree's read-ahead untouched" "$(cat "$t/sys/block/vdb/queue/read_ahead_kb")" 8192
eq "nothing written in the tree" "$(find "$t/etc" -mindepth 1 | wc -l)" 0
# A filesystem of a partition of the disk, its mount point escaped as the
# kernel writes it: the scratch file goes there (the tree's counters never
# move, which it says).
mkdir -p "$t/sys/dev/block" "$t/mnt/with space" "$t/proc/self"
ln -s ../../devices/virtual/block/vdb/vdb1 "$t/sys/dev/block/252:17"
printf '36 35 252:17 / /mnt/with\\040space rw,relatime shared:1 - ext4 /dev/vdb1 rw\n' >"$t/proc/self/mountinfo"
check_rc "a tree's mount: measured (exit 0)" 0 -- tm vdb --candidate 1024 --for 2 --max-bytes 8M
contains "a tree's mount: the scratch file on vdb1's mount, unescaped" "the touches on a scratch file of 2 MiB on /mnt/with space (vdb1)"
contains "a tree's mount: the counters did not move, said" "change:     none: vdb served none of the touches (its stat did not move)"
contains "a tree's mount: why there is no prediction, said" "prediction: none (the round at 8192 KiB: the device served none of its touches)"
eq "a tree's mount: the read-ahead written back" "$(cat "$t/sys/block/vdb/queue/read_ahead_kb")" 8192
eq "a tree's mount: no scratch file left" "$(ls -A "$t/mnt/with space")" ""
# The rounds' process ending without measuring (strace makes its getppid()
# say its parent is gone): no report of rounds that did not run, exit 1.
if command -v strace >/dev/null; then
	check_rc "the rounds' process ended early: exit 1" 1 -- env ASAN_OPTIONS=detect_leaks=0 strace -f -qq \
		-o /dev/null -e trace=getppid -e inject=getppid:retval=1 "$ET_BIN" measure readahead vdb --root "$t" \
		--profile none --candidate 1024 --for 2 --max-bytes 8M
	contains "the rounds' process ended early: said" "the measurement's process ended with status 1 before it measured"
	lacks "the rounds' process ended early: no rounds reported" "random 4 KiB touches"
	eq "the rounds' process ended early: the read-ahead written back" \
		"$(cat "$t/sys/block/vdb/queue/read_ahead_kb")" 8192
fi
check_rc "a tree's mount, --max-bytes 2M: too little for a scratch file (exit 1: no device node)" 1 -- tm vdb --candidate 1024 --for 2 --max-bytes 2M
contains "a tree's mount, --max-bytes 2M: why no scratch file, said" "no scratch file in /mnt/with space (--max-bytes under 4 MiB leaves a round less than 1 MiB): the device itself, read-only"
sed -i 's/ rw,relatime / ro,relatime /' "$t/proc/self/mountinfo"
check_rc "a read-only mount: not written to (exit 1: no device node)" 1 -- tm vdb --candidate 1024 --for 2 --max-bytes 8M
contains "a read-only mount: the device instead" "/dev/vdb is not the block device 252:16"
# --verify after a name swap: the file keeps the serial of the disk it
# measured, which vdc has now; vdb is another disk. Refused, both named,
# nothing measured, the file and the read-ahead as they were.
mkdir -p "$t/etc/earlytune.d" "$t/sys/block/vdc"
echo "NEW 2" >"$t/sys/block/vdb/serial"
echo "OLD 1*" >"$t/sys/block/vdc/serial"
f=$t/etc/earlytune.d/60-earlytune-measure-readahead-vdb.conf
printf '%s\n' "# Before: read_ahead_kb = 1024: amplification 272.0x, sequential 204.8 MiB/s." \
	"# Prediction: amplification 2048.0x at 8192 KiB for 31 touches (bytes a touch = k x read-ahead x s, k = 1.0074), sequential 256.0 MiB/s (its round)." \
	'[block "measure-vdb"]' "match.name = vdb" 'match.serial = OLD?1\*' "read_ahead_kb = 8192" >"$f"
sum=$(cksum <"$f")
check_rc "--verify, another disk under the name: exit 1" 1 -- tm vdb --verify --for 2 --max-bytes 8M
contains "--verify, another disk under the name: both named" "/etc/earlytune.d/60-earlytune-measure-readahead-vdb.conf was measured on the disk with serial 'OLD 1*', and vdb is another disk now (serial 'NEW 2'); the disk measured is vdc now: nothing measured"
lacks "--verify, another disk under the name: nothing measured" "is not the block device"
eq "--verify, another disk under the name: the file and the read-ahead as they were" \
	"$(cksum <"$f"):$(cat "$t/sys/block/vdb/queue/read_ahead_kb")" "$sum:8192"
echo "OLD 1*" >"$t/sys/block/vdb/serial"
rm -r "$t/sys/block/vdc"
OUT=$(tm vdb --verify --for 2 --max-bytes 8M 2>&1)
lacks "--verify, the disk measured under its name: not refused" "another disk"
contains "--verify, the disk measured under its name: on to the rounds" "/dev/vdb is not the block device 252:16"
rm -r "$f" "$t/etc/earlytune.d" "$t/sys/block/vdb/serial"

# ---- this machine's loop devices ------------------------------------------------------
if [ "$(id -u)" != 0 ] || ! command -v losetup >/dev/null || ! command -v mkfs.ext4 >/dev/null ||
	! command -v unshare >/dev/null || [ ! -d /dev/shm ]; then
	skip "real loop devices" "needs root, losetup, mkfs.ext4, unshare and /dev/shm"
	exit 0
fi
host_lock
loop=$(free_loop)
[ -n "$loop" ] || { skip "real loop devices" "no free loop2..loop7"; exit 0; }
RA=/sys/block/$loop/queue/read_ahead_kb
ra0=$(cat $RA)
img=/dev/shm/et-readahead.$$
mnt=$WORK/mnt
at_exit "umount '$mnt' 2>/dev/null; losetup -d /dev/$loop 2>/dev/null; echo $ra0 >$RA; rm -f '$img'"
check_rc "an empty loop device: exit 1" 1 -- "$ET" measure readahead $loop --candidate 1024
contains "an empty loop device: too small, said" "$loop holds 0 bytes, fewer than 64 pages: too small to measure"
eq "an empty loop device: the read-ahead untouched" "$(cat $RA)" "$ra0"
truncate -s 4G "$img" # sparse: tmpfs keeps only what is written
need "losetup $loop over a file on tmpfs" losetup /dev/$loop "$img"
echo 8192 >$RA
printf '[block "cap"]\nmatch.name = %s\nread_ahead_kb = 1024\n' $loop >"$WORK/loop.conf"
lm() { "$ET" measure readahead $loop --profile none --config "$WORK/loop.conf" "$@"; }
js() { printf '%s' "$OUT" | python3 -c "import json, sys; d = json.load(sys.stdin); print($1)"; }
# within A B PCT: A is within PCT percent of B
within() { python3 -c "import sys; a, b, p = map(float, sys.argv[1:]); sys.exit(abs(a - b) > b * p / 100)" "$@"; }

check_rc "device: measured (exit 0)" 0 -- lm --for 10 --max-bytes 1G --json
eq "device: the read-ahead restored" "$(cat $RA)" 8192
eq "device: mapped read-only, no filesystem" "$(js "d['target']['kind'], d['target']['mount']")" "device None"
eq "device: the candidate is the configuration's" \
	"$(js "d['candidate_kb'], d['candidate_from'].startswith(\"the configuration's read_ahead_kb for $loop ($WORK/loop.conf\")")" \
	"1024 True"
eq "device: the rounds ran at 8192 and 1024 KiB" "$(js "[r['read_ahead_kb'] for r in d['rounds']]")" "[8192, 1024, 8192, 1024]"
eq "device: every round's pages were dropped" "$(js "sum(r['resident_pages'] for r in d['rounds'])")" 0
a0=$(js "d['rounds'][0]['amplification']") a1=$(js "d['rounds'][1]['amplification']")
within "$a0" 2048 20; eq "device: amplification at 8192 KiB is the window over the page (2048x within 20%: $a0)" $? 0
within "$a1" 256 20; eq "device: amplification at 1024 KiB is 256x within 20% ($a1)" $? 0
eq "device: the prediction held" "$(js "d['prediction']['held']")" True
eq "device: the cap is the change" "$(js "d['change']")" "{'read_ahead_kb': 1024}"
eq "device: the reads stay within --max-bytes (and a window)" \
	"$(js "sum(r['device_bytes'] for r in d['rounds']) <= 2**30 + 8 * 2**20")" True
eq "device: the same touches at both (same count)" "$(js "d['rounds'][0]['touches'] == d['rounds'][1]['touches'] > 10")" True

start=$(date +%s)
check_rc "text: measured (exit 0)" 0 -- lm --for 2 --max-bytes 64M
contains "text: the target" "the touches on /dev/$loop read-only, its first 4096 MiB"
contains "text: the model" "model:      bytes a touch = k x read-ahead x s"
contains "text: the prediction" "prediction: amplification"
contains "text: the cost" "cost:       sequential throughput"
contains "text: the change" "change:     read_ahead_kb = 1024 for $loop"
eq "text: --for 2 ends in time" "$([ $(($(date +%s) - start)) -le 10 ] && echo yes)" yes
eq "text: the read-ahead restored" "$(cat $RA)" 8192

# catch SIG: run the measurement, stop its child while the candidate is in
# force, then send SIG to the command (or KILL to the child); $OUT, $RC.
catch() {
	"$ET_BIN" measure readahead $loop --candidate 1024 --for 30 --max-bytes 1G >"$WORK/sig.out" 2>&1 &
	pid=$! kid= caught=
	for _ in $(seq 5000); do
		kid=$(pgrep -P $pid | head -1)
		[ -n "$kid" ] || continue
		kill -STOP $kid 2>/dev/null || break
		[ "$(cat $RA)" = 1024 ] && caught=yes && break
		kill -CONT $kid
	done
	eq "$1: caught with the candidate in force" "$caught" yes
	if [ "$1" = KILL ]; then kill -KILL $kid; else kill -$1 $pid; fi
	wait $pid
	RC=$?
	OUT=$(cat "$WORK/sig.out")
}
catch INT
eq "SIGINT: the command ends by it (exit 130)" "$RC" 130
eq "SIGINT: the read-ahead restored" "$(cat $RA)" 8192
contains "SIGINT: said" "stopped by signal 2; $loop's read-ahead restored to 8192 KiB"
catch TERM
eq "SIGTERM: the command ends by it (exit 143)" "$RC" 143
eq "SIGTERM: the read-ahead restored" "$(cat $RA)" 8192
catch KILL
eq "the child killed: exit 1" "$RC" 1
eq "the child killed: the read-ahead restored" "$(cat $RA)" 8192
contains "the child killed: said" "stopped by signal 9; $loop's read-ahead restored to 8192 KiB"

# --apply under --root: the device's nodes and counters are the machine's
r=$WORK/root
mkdir -p "$r/sys" "$r/proc" "$r/dev" "$r/etc"
inroot() { unshare -m sh -c 'mount --bind /sys "$0/sys" && mount --bind /proc "$0/proc" && mount --bind /dev "$0/dev" && exec "$@"' "$r" "$ET" "$@" --root "$r"; }
check_rc "--apply: exit 0" 0 -- inroot measure readahead $loop --for 4 --max-bytes 512M --candidate 1024 --apply
f=$r/etc/earlytune.d/60-earlytune-measure-readahead-$loop.conf
eq "--apply: the candidate in force" "$(cat $RA)" 1024
contains "--apply: said" "measure readahead --apply: $loop read_ahead_kb = 1024, in force and in /etc/earlytune.d/60-earlytune-measure-readahead-$loop.conf"
eq "--apply: its file's section" "$(grep -v '^#' "$f" 2>&1)" "[block \"measure-$loop\"]
match.name = $loop
read_ahead_kb = 1024"
eq "--apply: the reason on comment lines" "$(grep -c -e '^# Measured: random 4 KiB touches' -e '^# Before: read_ahead_kb = 8192: amplification [0-9.]*x, sequential [0-9.]* MiB/s.$' \
	-e '^# Prediction: amplification' -e '^# Cost: sequential throughput' -e '^# Written by earlytune measure readahead --apply on ' "$f")" 5
check_rc "--apply: plan reads the file" 0 -- inroot plan --profile none --only block --device $loop --wide
contains "--apply: plan keeps the candidate, from the file" "60-earlytune-measure-readahead-$loop.conf"
OUT=$(cat "$f")
contains "--apply: the same measurement named" "# Check it with the same measurement: earlytune measure readahead $loop --for 4 --max-bytes 536870912 --verify"
# --verify: the same rounds at the value in force, against the file's
# prediction; the verdict kept in the file, the run log, status, JSON
# Sequential reads of a loop device over tmpfs are the CPU's, shared with
# the rest of the machine: the same 128 MiB read at 98 to 1363 MiB/s in one
# session. The amplification is the read-ahead's alone and must hold; the
# verdict is held exactly when the sequential reads kept 75 % too.
inroot measure readahead $loop --verify --json >"$WORK/v.json" 2>&1
RC=$?
OUT=$(cat "$WORK/v.json")
seqok=$(js "d['after']['percent_of_sequential'] >= 75")
if [ "$seqok" = True ]; then want="held 0"; else want="failed 1"; fi
eq "--verify: held where sequential reads kept 75 % ($(js "d['after']['percent_of_sequential']") %), else failed" \
	"$(js "d['verdict']") $RC" "$want"
eq "--verify: in force, the way back only when failed" \
	"$(js "d['in_force'], d['now_kb'], (d['revert'] is None) == (d['verdict'] == 'held')")" "True 1024 True"
eq "--verify: the file's bounds, as many touches" \
	"$(js "d['selection'], d['after']['touches'] == d['prediction']['touches'] > 10")" "--for 4 --max-bytes 536870912 True"
eq "--verify: the amplification within 20% (error $(js "d['after']['error_percent']") %)" \
	"$(js "abs(d['after']['error_percent']) <= 20 and d['after']['amplification'] < d['before']['amplification'] / 4")" True
eq "--verify: the candidate still in force" "$(cat $RA)" 1024
verdict=$(js "d['verdict']")
eq "--verify: one check line" "$(grep -c '^# Verified: ' "$f")" 1
eq "--verify: it comes before the section" "$(grep -B1 '^\[block' "$f" | head -1 | cut -d' ' -f1-4)" "# Verified: $verdict at"
inroot status >/dev/null 2>&1
check_rc "--verify: status --json after it" "$([ "$verdict" = held ] && echo 0 || echo 1)" -- inroot status --json
eq "--verify: status, the run and the setting's two quantities" \
	"$(js "[r['command'] for r in d['runs']][-1], [(m['kind'], m['setting'], m['quantity'], m['verdict']) for m in d['measured']]")" \
	"measure readahead --verify [('readahead', 'block/$loop/queue/read_ahead_kb', 'amplification', '$verdict'), ('readahead', 'block/$loop/queue/read_ahead_kb', 'sequential_mibps', '$verdict')]"
# The file's numbers tampered, each so that the sequential reads cannot
# decide: its sequential prediction 1 MiB/s. k a third: the amplification
# three times the prediction, still a fifth under before's: moved (exit 0).
sed -i -e 's/, k = [0-9.]*), sequential [0-9.]* MiB/, k = 0.3000), sequential 1.0 MiB/' "$f"
check_rc "--verify, k tampered: exit 0" 0 -- inroot measure readahead $loop --verify
contains "--verify, k tampered: moved" "verdict:    moved: amplification "
contains "--verify, k tampered: why" "the prediction missed, but the cap still pays"
# and before's amplification tampered down to the candidate's: failed, the way back said
sed -i 's/^\(# Before: read_ahead_kb = 8192: amplification \)[0-9.]*x/\1300.0x/' "$f"
check_rc "--verify, before tampered: failed (exit 1)" 1 -- inroot measure readahead $loop --verify
contains "--verify, failed: said" "verdict:    failed: amplification "
contains "--verify, failed: the amplification said" "the amplification is not the one predicted, and the change does not pay for itself"
contains "--verify, failed: the way back" "revert:     remove /etc/earlytune.d/60-earlytune-measure-readahead-$loop.conf and write 8192 to /sys/block/$loop/queue/read_ahead_kb"
eq "--verify, failed: kept in the file" "$(grep -c '^# Verified: failed at ' "$f")" 1
check_rc "--verify, failed: status --failed exits 1" 1 -- inroot status --failed
contains "--verify, failed: status shows it" "  failed     block/$loop/queue/read_ahead_kb = 1024: before 300.0x"
# k as measured again, the sequential prediction out of reach: failed by the cost
sed -i -e 's/, k = 0.3000), sequential 1.0 MiB/, k = 1.0000), sequential 999999.0 MiB/' "$f"
check_rc "--verify, sequential tampered: failed (exit 1)" 1 -- inroot measure readahead $loop --verify
contains "--verify, sequential tampered: why" "(within 20% holds); sequential "
contains "--verify, sequential tampered: the cost said" "; sequential reads lost more than the measurement said"
# the read-ahead changed under the file: not measured, unverified (exit 1)
echo 8192 >$RA
check_rc "--verify, not in force: exit 1" 1 -- inroot measure readahead $loop --verify
contains "--verify, not in force: said" "verdict:    unverified: not in force: the read-ahead reads 8192 KiB, the file sets 1024"
eq "--verify, not in force: the last verdict kept" "$(grep -c '^# Verified: failed at ' "$f")" 1
check_rc "--verify with --candidate: exit 2" 2 -- inroot measure readahead $loop --verify --candidate 512
check_rc "--verify with --apply: exit 2" 2 -- inroot measure readahead $loop --verify --apply
rm "$f"
check_rc "--verify, no file: exit 1" 1 -- inroot measure readahead $loop --verify
contains "--verify, no file: said" "nothing to verify: no /etc/earlytune.d/60-earlytune-measure-readahead-$loop.conf (measure readahead $loop --apply writes one)"
eq "--verify: the read-ahead as it was after each" "$(cat $RA)" 8192

# ---- a scratch file on ext4 ---------------------------------------------------------
need "mkfs.ext4 on $loop" mkfs.ext4 -q -F /dev/$loop
mkdir -p "$mnt"
need "mount it" mount /dev/$loop "$mnt"
echo 8192 >$RA
check_rc "scratch file: measured (exit 0)" 0 -- lm --for 10 --max-bytes 256M --json
eq "scratch file: on the mounted filesystem" "$(js "d['target']['kind'], d['target']['mount'] == '${mnt#/}'")" "scratch file True"
eq "scratch file: 64 MiB, a quarter of --max-bytes" "$(js "d['target']['region_bytes']")" $((64 << 20))
eq "scratch file: the prediction held (error $(js "d['prediction']['error_percent']") %)" "$(js "d['prediction']['held']")" True
eq "scratch file: the read-ahead restored" "$(cat $RA)" 8192
eq "scratch file: nothing left in the filesystem" "$(ls -A "$mnt")" lost+found
umount "$mnt"

# ---- ext4 on a partition of the disk ------------------------------------------------
# This machine runs no udev: a partition's node is devtmpfs's, made when the
# kernel adds the partition, or none (a /dev that is not devtmpfs). And a
# kernel without a parser of the table (CONFIG_MSDOS_PARTITION off, as
# here) finds nothing on losetup -P: partx adds the partition then (BLKPG).
# Each wait has a deadline in seconds, not a count of tries: under load a
# try costs more than its sleep.
# until_ok SECONDS CMD...: CMD until it succeeds, every 0.2 s; 1 at the deadline.
until_ok() {
	_end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt $_end ] || return 1
		sleep 0.2
	done
}
part=${loop}p1
# part_node: /dev/$part as the block device sysfs names (major:minor of its
# dev), made with mknod when devtmpfs did not (or made another).
part_node() {
	_mm=$(cat /sys/class/block/$part/dev) || return 1
	[ -b /dev/$part ] && [ "$(stat -Lc '%t:%T' /dev/$part)" = "$(printf '%x:%x' ${_mm%:*} ${_mm#*:})" ] && return 0
	rm -f /dev/$part
	mknod -m 600 /dev/$part b ${_mm%:*} ${_mm#*:} && echo "/dev/$part: made by mknod from $_mm" >"$WORK/part.node"
}
# part_fs: a partition table, the device attached again with its partitions,
# ext4 on the first, mounted. 0; 2 when the kernel gives the loop device no
# partition (the reason in $WORK/part.err); 1, the failed step in part.err.
part_fs() {
	# sfdisk opens the disk exclusively: a holder is waited out, then a failure
	until_ok 60 sh -c "echo ',,L' | sfdisk -q /dev/$loop" >"$WORK/part.err" 2>&1 ||
		{ sed -i "1s|^|sfdisk $loop for 60 s: |" "$WORK/part.err"; return 1; }
	losetup -d /dev/$loop
	# the detach completes once the last opener lets go
	until_ok 60 losetup -P /dev/$loop "$img" 2>"$WORK/part.err" ||
		{ sed -i "1s|^|losetup -P $loop for 60 s: |" "$WORK/part.err"; return 1; }
	# the table read back as partx reads it: sfdisk wrote it, so not a skip
	partx -s /dev/$loop >/dev/null 2>"$WORK/part.err" ||
		{ sed -i "1s|^|the table sfdisk wrote, read back: |" "$WORK/part.err"; return 1; }
	[ -e /sys/class/block/$part ] || partx -a /dev/$loop 2>"$WORK/part.err"
	until_ok 10 test -e /sys/class/block/$part/dev ||
		{ echo "the kernel gives $loop no partition: $(cat "$WORK/part.err")" >"$WORK/part.err"; return 2; }
	part_node 2>"$WORK/part.err" || return 1
	until_ok 60 mkfs.ext4 -q -F /dev/$part >"$WORK/part.err" 2>&1 || return 1
	until_ok 60 mount /dev/$part "$mnt" 2>"$WORK/part.err" || return 1
}
at_exit "[ ! -e '$WORK/part.node' ] || rm -f /dev/$part"
part_fs
rc=$?
if [ $rc = 0 ]; then
	echo 8192 >$RA
	check_rc "partition: measured (exit 0)" 0 -- lm --for 10 --max-bytes 256M
	contains "partition: the scratch file on its filesystem" "the touches on a scratch file of 64 MiB on $mnt ($part)"
	contains "partition: the prediction held" "held, within 20%"
	eq "partition: the read-ahead restored" "$(cat $RA)" 8192
	eq "partition: nothing left in the filesystem" "$(ls -A "$mnt")" lost+found
	umount "$mnt"
elif [ $rc = 2 ]; then
	skip "ext4 on a partition" "$(head -1 "$WORK/part.err")"
else
	fail "ext4 on a partition: $part ready" "$(head -3 "$WORK/part.err")"
fi
