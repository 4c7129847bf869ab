# SPDX-License-Identifier: LGPL-2.1-or-later
# Fault injection (issue 8, "Keep it found"): strace fails the N-th open, read,
# write, rename, fsync, mkdir, unlink (and getdents, readlink) of `apply`,
# `revert`, a udev-style `--boot apply --device`, udev's `forget`, `apply`
# and `revert` of [sched]'s debugfs knobs, `verify`
# and `cmdline apply/remove` on every backend that runs without the host's
# tools (grub, kernel-install, BLS with the stub grubby), for every N. After
# each run, the properties of tests/lib/faults.sh: files wholly old or new
# (the state file one that a whole atomic rewrite made), no temp file left,
# the undo restores every original, no failure reported as success, no
# crash. Then: kill -9 at random points of an apply (and a revert) on 500
# disks, then revert; /run full; 256 concurrent udev-style runs, then revert.
# Findings (one line per failed run) go to
# $FX_FINDINGS when set.

# Every tree lives on a tmpfs in a private mount namespace: copies are cheap
# (a 500-disk tree: 0.2 s, not 3 s on disk) and nothing leaks to the host.
if [ -z "${FX_NS:-}" ] && unshare -m true 2>/dev/null; then
	FX_NS=1 exec unshare -m sh "$0" "$@"
fi
. "$(dirname "$0")/../lib/common.sh"
if [ "${FX_NS:-}" = 1 ] && mount -t tmpfs -o size=1g tmpfs "$WORK"; then
	at_exit 'umount "$WORK"'
fi
ET=$ET_BIN # strace follows the binary itself; the tmpfs hid the JSON check's wrapper
# make check samples the positions (tests/lib/faults.sh); make check-faults
# sets FX_EVERY=1.
FX_EVERY=${FX_EVERY:-$([ -n "${SAN:-}" ] && echo 8 || echo 4)}
. "$TESTS_DIR/lib/cmdroot.sh"
. "$TESTS_DIR/lib/faults.sh"

if ! strace -o /dev/null true 2>/dev/null; then
	fail "strace runs (.ci/bootstrap installs it)" "strace: $(command -v strace || echo missing)"
	exit 0
fi
mk_bootloader_stubs
START=$(date +%s) FX_RUNS=0

# The small machine of the sweeps: two disks (virtio, sd) and THP.
mk_small() {
	mk_base "$1" 6.1.0-28-cloud-amd64 yes QEMU "${2:-root=/dev/vda1}"
	mk_disk "$1" vda virtio_blk "[mq-deadline] kyber none" 8192 1 256
	mk_disk "$1" sda sd "[mq-deadline] none" 4096 1 64
	mk_thp "$1"
}

# mk_disks ROOT FIRST COUNT: virtio disks vdFIRST.. (copies of one mk_disk:
# a few processes per disk), each with its own read-ahead.
mk_disks() {
	mk_disk "$1" "vd$2" virtio_blk "[mq-deadline] kyber none" $((2048 + $2)) 1 256
	_i=$(($2 + 1))
	while [ $_i -lt $(($2 + $3)) ]; do
		cp -a "$1/sys/devices/virtual/block/vd$2" "$1/sys/devices/virtual/block/vd$_i"
		printf '%s\n' $((2048 + _i)) >"$1/sys/devices/virtual/block/vd$_i/queue/read_ahead_kb"
		ln -s "../devices/virtual/block/vd$_i" "$1/sys/block/vd$_i"
		ln -s "../../devices/virtual/block/vd$_i" "$1/sys/class/block/vd$_i"
		_i=$((_i + 1))
	done
}

# applied SRC DST ARGS...: DST is SRC after a clean `earlytune ARGS --root DST`.
applied() {
	_src=$1 _dst=$2
	shift 2
	cp -a "$_src" "$_dst"
	$FX_PRE "$ET" "$@" --root "$_dst" >/dev/null 2>&1
}

# ---- 1. every syscall at every position, per command path -------------------
# (FX_MAX_APPLY=N: at most N positions per syscall for apply, revert and the
# boot run, for a quick look; the cmdline paths always get every position.)

t=$WORK/small
mk_small "$t"
applied "$t" "$WORK/small.applied" apply

FX_BEFORE=$t FX_ARGS="apply --root" FX_UNDO="revert --root" FX_TARGET=before FX_MAX=${FX_MAX_APPLY:-0}
fx_sweep apply
FX_BEFORE=$WORK/small.applied FX_ARGS="revert --root" FX_TARGET=after
fx_sweep revert
FX_BEFORE=$t FX_ARGS="--boot apply --device vda --root" FX_TARGET=before FX_BOOT=1
fx_sweep "boot apply --device"
# The udev run's two ways to record without a rename: appended to a
# forgotten disk's file (a tombstone), a file of its own for a new disk.
applied "$WORK/small.applied" "$WORK/small.forgot" forget --device vda
printf '[mq-deadline] kyber none\n' >"$WORK/small.forgot/sys/devices/virtual/block/vda/queue/scheduler"
printf '8192\n' >"$WORK/small.forgot/sys/devices/virtual/block/vda/queue/read_ahead_kb"
FX_BEFORE=$WORK/small.forgot FX_ARGS="--boot apply --device vda --root" FX_UNDO="revert --device vda --root"
fx_sweep "boot apply --device, appended"
cp -a "$WORK/small.applied" "$WORK/small.new"
mk_disk "$WORK/small.new" vdc virtio_blk "[mq-deadline] kyber none" 4096 1 256
FX_BEFORE=$WORK/small.new FX_ARGS="--boot apply --device vdc --root" FX_UNDO="revert --device vdc --root"
fx_sweep "boot apply --device, a new file"
FX_BOOT=0 FX_MAX=0
# udev's remove: the undo is the same command, which must finish the job.
FX_BEFORE=$WORK/small.applied FX_ARGS="forget --device vda --root" FX_UNDO="forget --device vda --root" FX_TARGET=after
fx_sweep "forget --device"
# [sched]: the debugfs knobs go through the domain's batch (apply_batch,
# revert_batch), not the engine's file writes: the same properties.
s=$WORK/sched61
mk_sched61 "$s"
applied "$s" "$WORK/sched61.applied" apply --only sched
FX_BEFORE=$s FX_ARGS="apply --only sched --root" FX_UNDO="revert --only sched --root" FX_TARGET=before
fx_sweep "apply --only sched"
FX_BEFORE=$WORK/sched61.applied FX_ARGS="revert --only sched --root" FX_TARGET=after
fx_sweep "revert --only sched"
# verify of what holds (the modules and net domains are unmet in this tree).
FX_BEFORE=$WORK/small.applied FX_ARGS="verify --only thp,block --root"
fx_readonly "verify"

mk_ubuntu "$WORK/grub"
mk_kinstall "$WORK/kinstall"
mk_kinstall "$WORK/kcreated"
rm -r "$WORK/kcreated/etc/kernel"
mk_bls "$WORK/bls"
for b in grub kinstall kcreated bls; do
	case $b in
	bls) FX_PRE="env PATH=$WORK/bin:$PATH GRUBBY_LOG=$WORK/grubby.log" ;;
	*) FX_PRE= ;;
	esac
	case $b in
	kcreated) FX_ARGS="cmdline apply --backend kernel-install --root" ;;
	*) FX_ARGS="cmdline apply --root" ;;
	esac
	FX_BEFORE=$WORK/$b FX_UNDO="cmdline remove --root" FX_TARGET=before
	fx_sweep "cmdline apply ($b)"
	applied "$WORK/$b" "$WORK/$b.applied" ${FX_ARGS% --root}
	FX_BEFORE=$WORK/$b.applied FX_ARGS="cmdline remove --root" FX_TARGET=after
	fx_sweep "cmdline remove ($b)"
done
FX_PRE=

# earlytune=0 on the command line: apply writes nothing, whichever read fails.
t=$WORK/off
mk_small "$t" "root=/dev/vda1 earlytune=0"
fx_list "$t" | grep -v '^\./run/' >"$WORK/off.lst"
FX_BEFORE=$t FX_ARGS="apply --root"
fx_count
n=$(awk '$2 == "read" { print $1 }' "$WORK/fx.counts")
first=$(awk '$2 == "read" { print $3 }' "$WORK/fx.counts")
bad=0 runs=0
for i in $(fx_positions "$n" "$first"); do
	runs=$((runs + 1))
	rm -rf "$WORK/off.run"
	cp -a "$t" "$WORK/off.run"
	fx_strace -o /dev/null -e "inject=read:error=EIO:when=$i" "$ET" apply --root "$WORK/off.run" >"$WORK/off.out" 2>&1
	rc=$?
	if ! fx_list "$WORK/off.run" | grep -v '^\./run/' | cmp -s - "$WORK/off.lst"; then
		bad=$((bad + 1))
		printf '%s\n' "apply with earlytune=0: read N=$i EIO [$(grep '^read(' "$WORK/fx.trace" | sed -n "${i}p" | cut -c1-80)]: rc=$rc: wrote to the tree although earlytune=0 is on the command line" >>"$FX_FINDINGS"
	fi
done
eq "apply with earlytune=0: $runs runs, a failed read never makes it write ($(fx_sampling))" "$bad failures" "0 failures"
FX_RUNS=$((FX_RUNS + runs))

# Proof that the checks can fail: a hand-made mixed and leftover state, a
# temp file of the atomic rewrite left behind, and state files no atomic
# rewrite makes (earlytune cannot produce a torn line any more: planted).
rm -rf "$WORK/fx.after" "$WORK/proof"
applied "$WORK/small" "$WORK/fx.after" apply
cp -a "$WORK/fx.after" "$WORK/proof"
fx_list "$WORK/small" >"$WORK/fx.before.lst"
fx_list "$WORK/fx.after" >"$WORK/fx.after.lst"
printf 'bbr cubic\n' >"$WORK/proof/proc/sys/net/ipv4/tcp_congestion_control"
: >"$WORK/proof/etc/.x.tmp"
: >"$WORK/proof/run/earlytune/.originals.Ab3dE6gH"
chmod 644 "$WORK/proof/run/earlytune/records"
rm "$WORK/proof/proc/cpuinfo"
fx_list "$WORK/proof" >"$WORK/proof.lst"
eq "the checks see a mixed file, temp files, a lost file and a state file's mode" \
	"$(fx_mixed "$WORK/fx.before.lst" "$WORK/fx.after.lst" "$WORK/proof.lst" | sort)" \
	"gone: ./proc/cpuinfo
left behind: ./etc/.x.tmp
left behind: ./run/earlytune/.originals.Ab3dE6gH
mode neither old nor new: ./run/earlytune/records
neither old nor new: ./proc/sys/net/ipv4/tcp_congestion_control"
_o=$WORK/proof/run/earlytune/originals
# One defect per planted line: a five-field line (the old format), a line
# no snapshot has, a path twice, a disk without identity, a sysctl with one,
# and a torn tail.
{
	printf 'thp\tthp\tenabled\tsys/kernel/mm/transparent_hugepage/enabled\talways\n'
	printf 'thp\tthp\tdefrag\tsys/kernel/mm/transparent_hugepage/defrag\tnever\t\n'
	records "$WORK/fx.after" | grep -m1 '^thp' | sed p
	records "$WORK/fx.after" | grep -m1 '^block' | cut -f1-5 | tr '\n' '\t'
	echo
	printf 'net\tsysctl\tnet.core.default_qdisc\tproc/sys/net/core/default_qdisc\tpfifo_fast\tifindex:2\n'
	records "$WORK/fx.after" | grep '^block' | sed -n 2p | cut -c1-40 | tr -d '\n'
} >"$_o"
eq "the checks see state lines no atomic rewrite of the snapshots makes" \
	"$(fx_state_lines "$WORK/proof" "$WORK/small" "$WORK/fx.after" | cut -c1-44)" \
	"torn last line in run/earlytune/originals
malformed line in run/earlytune/originals: t
line of neither snapshot in run/earlytune/or
path recorded twice in run/earlytune/origina
identity of the wrong form in run/earlytune/
identity of the wrong form in run/earlytune/
malformed line in run/earlytune/originals: b"
rm "$_o"
eq "the state check passes the clean run's state files" \
	"$(fx_state_lines "$WORK/proof" "$WORK/small" "$WORK/fx.after")" ""
# The one file's index, one offset off: its groups no longer start where
# the one before ended.
cp "$WORK/proof/run/earlytune/records" "$WORK/records.ok"
awk 'NR == 3 { sub(/\t[0-9]+\t/, "\t1\t") } { print }' "$WORK/records.ok" >"$WORK/proof/run/earlytune/records"
eq "the state check sees an index no whole write makes" \
	"$(fx_state_lines "$WORK/proof" "$WORK/small" "$WORK/fx.after" | grep -c '^bad index in run/earlytune/records: group ')" 1
cp "$WORK/records.ok" "$WORK/proof/run/earlytune/records"
mkdir -p "$WORK/proof/run/earlytune/disks"
records "$WORK/fx.after" | grep '	[sv]da	' >"$WORK/proof/run/earlytune/disks/sda"
eq "the state check sees a disk's record in another disk's file" \
	"$(fx_state_lines "$WORK/proof" "$WORK/small" "$WORK/fx.after" | grep -v '^path recorded twice' | cut -f1 | sort -u)" \
	"record in another file than its own, run/earlytune/disks/sda: block"
rm -rf "$WORK/proof"
cp -a "$WORK/small" "$WORK/proof"
printf 'bbr\n' >"$WORK/proof/proc/sys/net/ipv4/tcp_congestion_control"
mkdir -p "$WORK/proof/run/earlytune"
printf 'net\tsysctl\tx\tproc/sys/net/ipv4/tcp_congestion_control\tcubic\t\n' >"$WORK/proof/run/earlytune/originals"
: >"$WORK/proof/run/earlytune/.originals.0badc0de"
eq "the undo check sees a value not restored, a record and a temp file left" \
	"$(fx_undone "$WORK/proof" "$WORK/fx.before.lst" | tr '\t' ' ')" \
	"records left after the undo: net sysctl x proc/sys/net/ipv4/tcp_congestion_control cubic |
left behind after the undo: ./run/earlytune/.originals.0badc0de
missing or different (expected): ./proc/sys/net/ipv4/tcp_congestion_control v:cubic 644
unexpected (got): ./proc/sys/net/ipv4/tcp_congestion_control v:bbr 644"
printf 'verify: 4 hold, 0 drifted, 0 unmet, 2 not applicable\n' >"$WORK/proof.clean"
printf 'verify: 3 hold, 0 drifted, 0 unmet, 3 not applicable\n' >"$WORK/proof.out"
eq "the verify check sees an item lost from an exit 0" \
	"$(fx_same_verdict 0 "$WORK/proof.out" "$WORK/proof.clean" 'read(4, "", 4096) = 0')" \
	"exit 0, but not the clean run's output: < verify: 4 hold, 0 drifted, 0 unmet, 2 not applicable > verify: 3 hold, 0 drifted, 0 unmet, 3 not applicable "
eq "the verify check accepts a failure that exits 1" \
	"$(fx_same_verdict 1 "$WORK/proof.out" "$WORK/proof.clean" 'read(4, "", 4096) = 0')" ""
eq "a death by a signal is a crash" "$(fx_crashed 139 /dev/null)" "died of signal 11"
printf 'x\n==1==ERROR: AddressSanitizer: heap-use-after-free\n' >"$WORK/proof.out"
eq "a sanitizer report is a crash" "$(fx_crashed 1 "$WORK/proof.out")" "==1==ERROR: AddressSanitizer: heap-use-after-free"

T1=$(date +%s)

# ---- 2. kill -9 at random points of an apply on 500 disks, then revert ------
# (and of a revert, then revert again)

t=$WORK/big
mk_base "$t" 6.1.0-28-cloud-amd64 yes QEMU "root=/dev/vda1"
mk_disks "$t" 0 500
fx_list "$t" >"$WORK/big.before.lst"
applied "$t" "$WORK/big.after" apply
fx_list "$WORK/big.after" >"$WORK/big.after.lst"
# Calls of each command, for random points.
for cmd in apply revert; do
	src=$t
	[ $cmd = revert ] && src=$WORK/big.after
	cp -a "$src" "$WORK/big.count"
	fx_strace -o "$WORK/big.trace" "$ET" $cmd --root "$WORK/big.count" >/dev/null 2>&1
	rm -rf "$WORK/big.count"
	eval "nw_$cmd=$(grep -c '^write(' "$WORK/big.trace") no_$cmd=$(grep -c '^openat2(' "$WORK/big.trace")"
	eval "nr_$cmd=$(grep -c '^renameat' "$WORK/big.trace")"
done
seed=${FX_SEED:-$(date +%s)}
# Random points, and the rename of each atomic rewrite, where a kill leaves
# its temp file (files under run/ are not fsynced: a tmpfs): the sysctl
# guard's (rename 1), the first disk's records (rename 2), originals (the
# last but one), the run log's (the last); the revert, under the lock, must
# remove them.
points="apply:renameat:1 apply:renameat:2 apply:renameat:$((nr_apply - 1)) apply:renameat:$nr_apply revert:renameat:1 $(awk -v s="$seed" -v w="$nw_apply" -v o="$no_apply" \
	-v rw="$nw_revert" -v ro="$no_revert" 'BEGIN { srand(s)
	for (i = 0; i < 5; i++) print "apply:write:" 1 + int(rand() * w)
	for (i = 0; i < 5; i++) print "apply:openat2:" 1 + int(rand() * o)
	print "revert:write:" 1 + int(rand() * rw)
	print "revert:openat2:" 1 + int(rand() * ro) }')"
bad= npoints=0
for p in $points; do
	cmd=${p%%:*} sc=${p#*:}
	npoints=$((npoints + 1))
	# A killed apply is between the clean tree and its result; a killed
	# revert between the applied tree and the clean one. Then a revert.
	case $cmd in
	apply) src=$t old=big.before new=big.after ;;
	revert) src=$WORK/big.after old=big.after new=big.before ;;
	esac
	rm -rf "$WORK/big.run"
	cp -a "$src" "$WORK/big.run"
	fx_strace -o /dev/null -e "inject=${sc%:*}:signal=SIGKILL:when=${sc#*:}" \
		"$ET" $cmd --root "$WORK/big.run" >"$WORK/big.out" 2>&1
	rc=$?
	fx_kernel_keeps "$WORK/big.run" "$src"
	fx_list "$WORK/big.run" >"$WORK/big.run.lst"
	why=$(
		[ "$rc" = 137 ] || echo "not killed (exit $rc)"
		fx_mixed "$WORK/$old.lst" "$WORK/$new.lst" "$WORK/big.run.lst" |
			grep -v -e '^left behind: \./run/earlytune/\(disks/\)\?\.\(originals\|records\|runs\|vd[0-9]*\)\.[0-9a-f]\{8\}$' \
				-e '^left behind: \./run/sysctl\.d/\.60-earlytune\.conf\.[0-9a-f]\{8\}$' | head -3
		fx_state_lines "$WORK/big.run" "$t" "$WORK/big.after" | head -3
		fx_runlog_lines "$WORK/big.run" | head -3
		"$ET" revert --root "$WORK/big.run" >"$WORK/big.undo" 2>&1 ||
			echo "revert exits $?: $(grep -m 1 -E 'error|cannot' "$WORK/big.undo")"
		fx_undone "$WORK/big.run" "$WORK/big.before.lst" | head -3
	)
	if [ -n "$why" ]; then
		bad="$bad $p"
		printf 'kill -9 of %s (500 disks) at %s: %s\n' "$cmd" "$sc" "$(printf '%s\n' "$why" | tr '\n' ' ' | cut -c1-400)" |
			tee -a "$FX_FINDINGS" >>"$WORK/big.why"
	fi
done
rm -rf "$WORK/big.after" "$WORK/big.run"
if [ -z "$bad" ]; then
	pass "kill -9 at $npoints points of an apply or revert on 500 disks (seed $seed: $(echo $points)), then revert: all back"
else
	fail "kill -9 at $npoints points of an apply or revert on 500 disks (seed $seed), then revert: all back" "$(cat "$WORK/big.why")"
fi
FX_RUNS=$((FX_RUNS + npoints))

T2=$(date +%s)

# ---- 3. /run full ----------------------------------------------------------------

# In a private mount namespace: the tmpfs is gone with it, the tree is not.
# full ROOT SIZE FILL CMD...: runs CMD with ROOT/run on a tmpfs of SIZE
# holding FILL bytes; the output in $WORK/full.out, the exit in $WORK/full.rc.
full() {
	_r=$1 _size=$2 _fill=$3
	shift 3
	unshare -m sh -c '
		r=$1 size=$2 fill=$3
		shift 3
		mount -t tmpfs -o "size=$size" tmpfs "$r/run" || exit 99
		head -c "$fill" /dev/zero >"$r/run/fill" 2>/dev/null
		"$@"
	' sh "$_r" "$_size" "$_fill" "$@" >"$WORK/full.out" 2>&1
	echo $? >"$WORK/full.rc"
}
t=$WORK/runfull
mk_small "$t"
fx_list "$t" | grep -v '^\./run/' >"$WORK/runfull.lst"
full "$t" 4k 4096 "$ET" apply --root "$t"
rc=$(cat "$WORK/full.rc")
if [ "$rc" = 99 ]; then
	fail "/run full: a tmpfs in a private mount namespace" "$(cat "$WORK/full.out")"
else
	if [ "$rc" != 0 ]; then pass "/run full: apply exits non-zero ($rc)"; else
		fail "/run full: apply exits non-zero" "exit 0" "$(head -5 "$WORK/full.out")"
		echo "/run full (tmpfs 4k, full): apply exits 0" >>"$FX_FINDINGS"
	fi
	OUT=$(cat "$WORK/full.out")
	contains "/run full: the error says why" "No space left on device"
	eq "/run full: nothing written (originals could not be recorded)" \
		"$(fx_list "$t" | grep -v '^\./run/' | diff "$WORK/runfull.lst" - | grep '^[<>]' | cut -f1)" ""
	# A /run with room for part of the records: the one file of the 40
	# disks' records (three pages) fills it and its write fails mid-way;
	# once there is room again (same tmpfs), apply then revert must bring
	# back all. 200k: the fill leaves room for two pages (the sysctl guard
	# takes one).
	t=$WORK/torn
	mk_base "$t" 6.1.0-28-cloud-amd64 yes QEMU "root=/dev/vda1"
	mk_disks "$t" 0 40
	fx_list "$t" | grep -v '^\./run/' >"$WORK/torn.lst"
	full "$t" 200k 196608 sh -c '"$1" apply --root "$2" >/dev/null 2>&1; echo $? >"$3"
		rm "$2/run/fill"
		"$1" apply --root "$2" >/dev/null 2>&1 && "$1" revert --root "$2"' sh "$ET" "$t" "$WORK/full.rc1"
	rc1=$(cat "$WORK/full.rc1")
	rc2=$(cat "$WORK/full.rc")
	diff=$(fx_list "$t" | grep -v '^\./run/' | diff "$WORK/torn.lst" - | grep '^<' | cut -f1 | head -3)
	if [ "$rc1" != 0 ] && [ "$rc2" = 0 ] && [ -z "$diff" ]; then
		pass "/run filled mid-apply: apply fails, then apply and revert restore all"
	else
		fail "/run filled mid-apply: apply fails, then apply and revert restore all" \
			"first apply exit $rc1, apply+revert exit $rc2; not restored: $(echo $diff)" "$(head -5 "$WORK/full.out")"
		echo "/run filled mid-apply (tmpfs 200k, 40 disks): first apply exit $rc1; after apply+revert (exit $rc2) not restored: $(echo $diff)" >>"$FX_FINDINGS"
	fi
	# A /run that fills in the middle of an append (a short write, no
	# injection): what it added is taken back and nothing is tuned; with
	# room again, the next run appends. vda's file is padded (lines no
	# record is read from) to 4,060 bytes: its next record crosses into a
	# page the full tmpfs does not have.
	t=$WORK/short
	mk_small "$t"
	full "$t" 256k 0 sh -c '
		et=$1 r=$2 w=$3 f=$2/run/earlytune/disks/vda q=$2/sys/devices/virtual/block/vda/queue
		"$et" apply --root "$r" >/dev/null 2>&1 && "$et" --boot forget --root "$r" --device vda 2>/dev/null || exit 98
		printf "[mq-deadline] kyber none\n" >"$q/scheduler"
		while [ "$(wc -c <"$f")" -lt 3980 ]; do printf "%079d\n" 0 >>"$f"; done
		head -c $((4060 - $(wc -c <"$f") - 1)) /dev/zero | tr "\0" "#" >>"$f" && echo >>"$f"
		cp "$f" "$w/short.before"
		head -c 1G /dev/zero >"$r/run/fill" 2>/dev/null
		"$et" apply --root "$r" --device vda >"$w/short.out" 2>&1
		echo "$? $(cmp -s "$f" "$w/short.before" && echo same) $(cat "$q/scheduler")" >"$w/short.full"
		rm "$r/run/fill"
		"$et" apply --root "$r" --device vda >/dev/null 2>&1
		echo "$? $(head -c 4060 "$f" | cmp -s - "$w/short.before" && echo kept) $(tail -c +4061 "$f" | grep -c "	vda	") $(cat "$q/scheduler")" >"$w/short.room"
	' sh "$ET" "$t" "$WORK"
	eq "/run full mid-append: apply --device fails, the file as it was, vda untuned" \
		"$(cat "$WORK/short.full" 2>/dev/null)" "1 same [mq-deadline] kyber none"
	eq "/run with room again: the record appended after the file's text, vda tuned" \
		"$(cat "$WORK/short.room" 2>/dev/null)" "0 kept 1 none"
fi

T3=$(date +%s)

# ---- 4. 256 concurrent udev-style runs, then revert ------------------------------

t=$WORK/udev
mk_base "$t" 6.1.0-28-cloud-amd64 yes QEMU "root=/dev/vda1"
mk_disks "$t" 0 256
fx_list "$t" >"$WORK/udev.lst"
# What one sequential apply of the block domain makes of the same tree: the
# 256 runs together must leave exactly its tree and its records.
applied "$t" "$WORK/udev.seq" apply --only block
fx_list "$WORK/udev.seq" | grep -v '^\./run/earlytune/' >"$WORK/udev.seq.lst"
records "$WORK/udev.seq" | sort >"$WORK/udev.seq.state"
rm -rf "$WORK/udev.seq"
i=0
while [ $i -lt 256 ]; do
	("$ET" --boot apply --root "$t" --device "vd$i" >"$WORK/udev.out.$i" 2>&1; echo $? >"$WORK/udev.rc.$i") &
	i=$((i + 1))
done
wait
# --boot exits 0 whatever happens: another exit is a crash.
eq "256 concurrent --boot apply --device: none crashes" "$(cat "$WORK"/udev.rc.* | grep -vc '^0$')" 0
eq "256 concurrent --boot apply --device: each logs its 2 changes and no failure" \
	"$(cat "$WORK"/udev.out.* | grep -c ': 2 changed, 0 kept, 0 skipped, 0 failed in ')" 256
eq "256 concurrent --boot apply --device: the tree one apply makes" \
	"$(fx_list "$t" | grep -v '^\./run/earlytune/' | diff "$WORK/udev.seq.lst" - | grep '^[<>]' | head -3)" ""
eq "256 concurrent --boot apply --device: its $(wc -l <"$WORK/udev.seq.state") records" \
	"$(records "$t" | sort | diff "$WORK/udev.seq.state" - | grep '^[<>]' | head -3)" ""
eq "256 concurrent --boot apply --device: a state file a whole rewrite made" \
	"$(fx_state_lines "$t" "$WORK/udev.none" "$t" | head -3)" ""
# A udev run that exits 0 (--boot) but left its disk untuned: say why.
for i in $(seq 0 255); do
	grep -q "	vd$i	" "$t/run/earlytune/disks/vd$i" 2>/dev/null ||
		echo "256 concurrent --boot apply --device: vd$i has no record: $(tail -n 3 "$WORK/udev.out.$i" | tr '\n' ' ')"
done | tee -a "$FX_FINDINGS" | head -3 | sed 's/^/# /'
check_rc "revert after 256 concurrent runs" 0 -- "$ET" revert --root "$t"
eq "256 concurrent runs, then revert: nothing lost" "$(fx_undone "$t" "$WORK/udev.lst")" ""

T4=$(date +%s)
pass "$FX_RUNS faulty runs; $((T4 - START)) s (sweeps $((T1 - START)), kill -9 $((T2 - T1)), /run full $((T3 - T2)), concurrent $((T4 - T3)))"
