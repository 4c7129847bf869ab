# SPDX-License-Identifier: LGPL-2.1-or-later
# Originals that stay true (issue 8): records carry the identity of their
# device (defect 3), every change of the file is atomic (defect 4), revert
# --iface/--ifindex/--device touches only that device (defect 6), a state file
# that cannot be read is an error (defect 7, state half), udev's remove
# forgets a device's records. Fake trees, then the real loop devices.
. "$(dirname "$0")/../lib/common.sh"

ra() { cat "$1/sys/block/$2/queue/read_ahead_kb"; }
rec() { records "$1" | awk -F'\t' -v p="$2" '$4 == p { print $5 "|" $6 }'; }
# many_disks ROOT: 1,000 disks' files of records (vdN: its scheduler and
# read-ahead, diskseq N+1) in ROOT's run/earlytune/disks.
many_disks() {
	mkdir -p "$1/run/earlytune/disks"
	i=0
	while [ $i -lt 1000 ]; do
		printf 'block\tvd%d\tqueue/scheduler\tsys/block/vd%d/queue/scheduler\tmq-deadline\tdiskseq:%d\n' $i $i $((i + 1))
		printf 'block\tvd%d\tqueue/read_ahead_kb\tsys/block/vd%d/queue/read_ahead_kb\t128\tdiskseq:%d\n' $i $i $((i + 1))
		i=$((i + 1))
	done | awk -v d="$1/run/earlytune/disks" -F'\t' '{ print > (d "/" $2) }'
}
RA=sys/block/vda/queue/read_ahead_kb

# ---- defect 3: a disk that reuses a name records its own original ----------
for kind in diskseq nodiskseq; do
	t=$WORK/reuse-$kind
	mk_kvm "$t"
	d=$t/sys/devices/virtual/block/vda
	printf '7:16\n' >"$d/dev"
	printf 'volume-a\n' >"$d/serial"
	[ $kind = diskseq ] && printf '5\n' >"$d/diskseq"
	check_rc "$kind: apply --device vda" 0 -- "$ET" apply --wide --root "$t" --device vda
	case $kind in
	diskseq) eq "$kind: the record carries the diskseq" "$(rec "$t" $RA)" "8192|diskseq:5" ;;
	*) case $(rec "$t" $RA) in 8192\|dev:????????????????) pass "$kind: the record carries a hash identity" ;;
	   *) fail "$kind: the record carries a hash identity" "$(rec "$t" $RA)" ;; esac ;;
	esac
	# Another volume attached under the same name, with its own read-ahead.
	printf 'volume-b\n' >"$d/serial"
	[ $kind = diskseq ] && printf '9\n' >"$d/diskseq"
	printf '4096\n' >"$t/$RA"
	check_rc "$kind: apply on the new disk of the same name" 0 -- "$ET" apply --wide --root "$t" --device vda
	eq "$kind: the new disk's original replaces the departed one's" "$(rec "$t" $RA | cut -d'|' -f1)" 4096
	eq "$kind: one record per attribute" "$(records "$t" | grep -c "	$RA	")" 1
	check_rc "$kind: revert" 0 -- "$ET" revert --wide --root "$t"
	eq "$kind: revert gives the new disk its own original" "$(ra "$t" vda)" 4096

	# Replaced between apply and revert: revert drops the record, says so, writes nothing.
	check_rc "$kind: apply again" 0 -- "$ET" apply --wide --root "$t" --device vda
	printf 'volume-c\n' >"$d/serial"
	[ $kind = diskseq ] && printf '12\n' >"$d/diskseq"
	printf '2048\n' >"$t/$RA"
	check_rc "$kind: revert after the disk was replaced exits 0" 0 -- "$ET" revert --wide --root "$t"
	contains "$kind: revert says the record was dropped" "record dropped, not written: vda is another device now"
	eq "$kind: the departed disk's value is not written to the new one" "$(ra "$t" vda)" 2048
	eq "$kind: the stale records are forgotten" "$(records "$t")" ""
done

# A disk that is gone: dropped by revert, not a failure.
t=$WORK/gone
mk_kvm "$t"
check_rc "gone: apply" 0 -- "$ET" apply --wide --root "$t"
rm "$t/sys/block/vda"
check_rc "gone: revert exits 0" 0 -- "$ET" revert --wide --root "$t"
contains "gone: revert says vda is gone" "record dropped, not written: vda is gone"
eq "gone: the other records were restored and all forgotten" "$(records "$t")" ""
eq "gone: THP restored" "$(active "$t/sys/kernel/mm/transparent_hugepage/enabled")" always

# A five-field line of an earlier version (which kept every record in
# originals): no identity, not checked, restored.
t=$WORK/old
mk_kvm "$t"
mkdir -p "$t/run/earlytune"
printf 'block\tvda\tqueue/read_ahead_kb\t%s\t2222\n' $RA >"$t/run/earlytune/originals"
check_rc "old format: revert" 0 -- "$ET" revert --wide --root "$t"
eq "old format: a record without identity is restored" "$(ra "$t" vda)" 2222

# A record of a domain this earlytune does not know (issue 10, defect: revert
# selected records by a list of names that a new domain had to be added to,
# and filed unknown ones under "block"): an error that names it, never
# silently kept nor restored as something else; the rest is restored.
t=$WORK/unknown-domain
mk_kvm "$t"
mkdir -p "$t/run/earlytune"
printf 'cpufreq\tcpu0\tgovernor\tsys/devices/system/cpu/cpu0/cpufreq/scaling_governor\tpowersave\t\nblock\tvda\tqueue/read_ahead_kb\t%s\t2222\t\n' $RA >"$t/run/earlytune/originals"
check_rc "unknown domain: revert fails" 1 -- "$ET" revert --wide --root "$t"
contains "unknown domain: revert names the domain it does not know" "recorded under domain 'cpufreq', which this earlytune does not know: kept, not written"
eq "unknown domain: the known record is restored" "$(ra "$t" vda)" 2222
eq "unknown domain: its record is kept, the restored one forgotten" "$(records "$t" | cut -f1)" cpufreq
check_rc "unknown domain: revert --only block leaves it alone" 0 -- "$ET" revert --wide --root "$t" --only block
lacks "unknown domain: --only block does not mention it" "cpufreq"

# ---- udev's remove: forget ------------------------------------------------
t=$WORK/forget
mk_kvm "$t"
printf '5\n' >"$t/sys/devices/virtual/block/vda/diskseq"
check_rc "forget: apply" 0 -- "$ET" apply --wide --root "$t"
n=$(records "$t" | wc -l)
check_rc "forget: another disk's diskseq forgets nothing" 0 -- "$ET" forget --root "$t" --device vda --diskseq 4
eq "forget: records kept" "$(records "$t" | wc -l)" "$n"
check_rc "forget --device vda --diskseq 5" 0 -- "$ET" forget --root "$t" --device vda --diskseq 5
contains "forget: says how many" "forget vda: 2 records dropped"
eq "forget: vda's records gone" "$(records "$t" | grep -c '	vda	')" 0
# The full apply kept vda's lines in the one file: vda's file says they are gone.
eq "forget: vda's file is empty, a tombstone over its lines of the one file" \
	"$(ls "$t/run/earlytune/disks"; wc -c <"$t/run/earlytune/disks/vda")" "vda
0"
eq "forget: the others kept" "$(records "$t" | wc -l)" $((n - 2))
check_rc "forget without a device: usage" 2 -- "$ET" forget --root "$t"
# The rule's own command line, as udev expands it on remove.
rules=$TESTS_DIR/../udev/70-earlytune.rules
check_rc "apply again" 0 -- "$ET" apply --wide --root "$t" --device vda
run=$(grep 'ACTION=="remove", ENV{DISKSEQ}=="?\*"' "$rules" | sed 's/.*RUN+="\([^"]*\)".*/\1/; s|%k|vda|; s|$env{DISKSEQ}|5|')
case $run in /usr/sbin/earlytune\ --boot\ forget\ *) pass "udev: remove runs earlytune --boot forget" ;; *) fail "udev: remove runs earlytune --boot forget" "$run" ;; esac
check_rc "udev: the remove command line runs" 0 -- "$ET" ${run#/usr/sbin/earlytune } --root "$t"
eq "udev: the remove command line forgets vda" "$(records "$t" | grep -c '	vda	')" 0
# Cheap: no configuration read (a broken one does not matter), no plan.
printf '[block\n' >"$t/etc/earlytune.conf"
check_rc "forget --boot with a broken configuration" 0 -- "$ET" --boot forget --root "$t" --device dm-0
eq "forget --boot: dm-0 forgotten" "$(records "$t" | grep -c '	dm-0	')" 0
# Timing: 1,000 disks' files of 2 records, 100 udev-style removes.
t=$WORK/forget-many
many_disks "$t"
s=$(date +%s%N)
i=0
while [ $i -lt 100 ]; do "$ET" --boot forget --root "$t" --device vd$i --diskseq $((i + 1)) 2>/dev/null; i=$((i + 1)); done
e=$(date +%s%N)
echo "# forget: 100 runs on 2,000 records: $(((e - s) / 100000)) µs per run (wall; on $(df -T "$t" | awk 'NR == 2 { print $2 }'))"
eq "forget: 100 disks forgotten, 1,800 records left" "$(records "$t" | wc -l)" 1800
eq "forget: their 100 files gone" "$(ls "$t/run/earlytune/disks" | wc -l)" 900

# The udev path reads and writes only its own records (issue 14): on a host
# with 1,000 other disks' files and global records (an unknown domain's and
# a line no version can read among them), apply --device vda opens no other
# file of records, forgets vda's stale record, records its own, and leaves
# every other file as it was.
t=$WORK/scoped
mk_kvm "$t"
many_disks "$t"
printf 'cpufreq\tcpu0\tgovernor\tsys/devices/system/cpu/cpu0/cpufreq/scaling_governor\tpowersave\t\nnot a record\n' \
	>"$t/run/earlytune/originals"
printf 'block\tvda\tqueue/read_ahead_kb\t%s\t2222\tdiskseq:999999\n' $RA >"$t/run/earlytune/disks/vda"
others() { (cd "$t/run/earlytune" && md5sum originals $(ls disks/* | grep -v '^disks/vda$')); }
others >"$WORK/scoped.others"
if command -v strace >/dev/null; then
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 command strace -f -o "$WORK/scoped.trace" \
		-e trace=open,openat,openat2 "$ET_BIN" apply --root "$t" --device vda >/dev/null 2>&1
	eq "scoped: apply --device vda opens no other disk's file, nor originals" \
		"$(grep -c 'disks/vd[0-9]\|earlytune/originals' "$WORK/scoped.trace")" 0
	eq "scoped: it opens vda's" "$(grep -c 'disks/vda"' "$WORK/scoped.trace")" 1
	printf 'block\tvda\tqueue/read_ahead_kb\t%s\t2222\tdiskseq:999999\n' $RA >"$t/run/earlytune/disks/vda"
	printf '8192\n' >"$t/$RA"
fi
check_rc "scoped: apply --device vda on 2,000 records" 0 -- "$ET" apply --wide --root "$t" --device vda
eq "scoped: vda's stale record forgotten, its own recorded" "$(rec "$t" $RA | cut -d'|' -f1)" 8192
eq "scoped: the other files as they were" "$(others | cmp - "$WORK/scoped.others" && echo same)" same
check_rc "scoped: forget --device vd7" 0 -- "$ET" --boot forget --root "$t" --device vd7
eq "scoped: forget drops vd7's two lines only" "$(records "$t" | grep -v "	vda	" | grep -c '^block')" 1998
check_rc "scoped: a full apply" 0 -- "$ET" apply --wide --root "$t"
eq "scoped: a full load drops the line it cannot read" "$(records "$t" | grep -c '^not a record')" 0
eq "scoped: and keeps the unknown domain's record" "$(records "$t" | grep -c '^cpufreq')" 1
eq "scoped: the full apply folded every file into the one file" \
	"$(find "$t/run/earlytune" -type f ! -name lock ! -name 'runs*' | sed "s|$t/||")" run/earlytune/records

# An earlier version's file, every record in originals: the first run, of
# any kind, moves them to their files; nothing is lost or doubled.
t=$WORK/migrate
mk_kvm "$t"
mkdir -p "$t/run/earlytune"
{ printf 'block\tvdb\tqueue/scheduler\tsys/block/vdb/queue/scheduler\tkyber\tdiskseq:2\n'
  printf 'thp\tthp\tenabled\tsys/kernel/mm/transparent_hugepage/enabled\tmadvise\t\n'
  printf 'block\tvda\tqueue/read_ahead_kb\t%s\t2222\t\n' $RA; } >"$t/run/earlytune/originals"
check_rc "migrate: apply --device vda" 0 -- "$ET" apply --wide --root "$t" --device vda
eq "migrate: originals keeps the global record" "$(cut -f1 "$t/run/earlytune/originals")" thp
eq "migrate: vdb's record in its file" "$(cut -f5 "$t/run/earlytune/disks/vdb")" kyber
eq "migrate: vda's first original kept" "$(rec "$t" $RA | cut -d'|' -f1)" 2222
eq "migrate: each path once" "$(records "$t" | cut -f4 | sort | uniq -d)" ""

# ---- defect 4: a torn last line, then an apply of another device ----------
t=$WORK/torn
mk_base "$t" 6.1.0-28-cloud-amd64 yes QEMU "root=/dev/vda1"
mk_disk "$t" vda virtio_blk "[mq-deadline] kyber none" 8192 1 256
mk_disk "$t" vdb virtio_blk "[mq-deadline] kyber none" 4096 1 256
before=$(snapshot "$t")
check_rc "torn: apply --device vda" 0 -- "$ET" apply --wide --root "$t" --device vda
printf 'block\tvdb\tqueue/read_ahe' >"$t/run/earlytune/disks/vdb"
check_rc "torn: apply --device vdb after a torn tail" 0 -- "$ET" apply --wide --root "$t" --device vdb
contains "torn: vdb changed" "applied"
f=$t/run/earlytune/disks/vdb
eq "torn: vda's and vdb's records all complete" "$(records "$t" | cut -f2 | sort | uniq -c | tr -s ' ')" " 2 vda
 2 vdb"
eq "torn: the torn fragment is gone" "$(grep -c 'read_ahe	\|read_ahe$' "$f")" 0
eq "torn: the file ends with a newline" "$(tail -c1 "$f" | od -An -c | tr -d ' ')" '\n'
check_rc "torn: revert" 0 -- "$ET" revert --wide --root "$t"
eq "torn: revert restores both disks" "$(snapshot "$t")" "$before"

# A rewrite killed between its temp file and the rename left
# .originals.XXXXXXXX for good (faults.sh: kill -9 at the rename): the next
# run, under the lock, removes it; other files there stay.
t=$WORK/litter
mk_kvm "$t"
check_rc "litter: apply" 0 -- "$ET" apply --wide --root "$t"
cp "$t/run/earlytune/records" "$t/run/earlytune/.records.0badc0de"
cp "$t/run/earlytune/records" "$t/run/earlytune/.originals.0badc0de"
cp "$t/run/earlytune/runs" "$t/run/earlytune/.runs.0badc0de" # the run log's (issue 11)
mkdir -p "$t/run/earlytune/disks"
cp "$t/run/earlytune/records" "$t/run/earlytune/disks/.vda.0badc0de"
: >"$t/run/earlytune/.originals.keep"
check_rc "litter: revert" 0 -- "$ET" revert --wide --root "$t"
eq "litter: a dead run's temp file is removed, nothing else" "$(ls -A "$t/run/earlytune" | tr '\n' ' ')" \
	".originals.keep disks lock runs "
eq "litter: and a disk's" "$(ls -A "$t/run/earlytune/disks")" ""

# ---- /run full: nothing written, exit 1, the state file unchanged ----------
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	t=$WORK/full
	mk_kvm "$t"
	before=$(snapshot "$t")
	# A state file ending near a page boundary: an append had crossed it (a short write).
	mkdir -p "$t/run/earlytune"
	i=0
	while [ $i -lt 58 ]; do
		printf 'block\tvd%02d\tqueue/read_ahead_kb\tsys/block/vd%02d/queue/read_ahead_kb\t128\n' $i $i
		i=$((i + 1))
	done >"$WORK/state"
	OUT=$(unshare -m sh -c '
		t=$1 ET=$2
		mount -t tmpfs -o size=16k tmpfs "$t/run" || exit 99
		mkdir -p "$t/run/earlytune" && : >"$t/run/earlytune/lock" && cp "$3" "$t/run/earlytune/originals"
		dd if=/dev/zero of="$t/run/fill" bs=1k count=64 2>/dev/null
		"$ET" apply --wide --root "$t" --device vda; echo "rc=$?"
		cmp "$3" "$t/run/earlytune/originals" && echo unchanged
		ls "$t/run/earlytune"' sh "$t" "$ET" "$WORK/state" 2>&1)
	contains "full /run: apply exits 1" "rc=1"
	contains "full /run: says originals cannot be recorded" "not written: cannot record originals"
	contains "full /run: the state file is unchanged" "unchanged"
	lacks "full /run: no temporary file left" ".originals"
	eq "full /run: nothing written to the disk" "$(snapshot "$t")" "$before"
else
	skip "/run full" "needs root"
fi

# ---- defect 7 (state half): a state file that cannot be read --------------
t=$WORK/unreadable
mk_kvm "$t"
before=$(snapshot "$t")
mkdir -p "$t/run/earlytune/originals"
check_rc "state is a directory: apply fails" 1 -- "$ET" apply --wide --root "$t"
contains "state is a directory: says why" "Is a directory"
eq "state is a directory: nothing written" "$(snapshot "$t")" "$before"
check_rc "state is a directory: revert fails" 1 -- "$ET" revert --wide --root "$t"
rmdir "$t/run/earlytune/originals"
if command -v strace >/dev/null; then
	# LeakSanitizer cannot run under ptrace: no leak check under strace.
	strace() { ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 command strace "$@"; }
	check_rc "apply" 0 -- "$ET" apply --wide --root "$t"
	after=$(snapshot "$t")
	cp "$t/run/earlytune/records" "$WORK/orig"
	printf '4096\n' >"$t/$RA"
	# The one file is mapped, not read: its map fails.
	check_rc "EIO reading the state: apply fails" 1 -- strace -f -o /dev/null -P "$t/run/earlytune/records" \
		-e trace=mmap -e inject=mmap:error=EIO "$ET_BIN" apply --root "$t"
	contains "EIO reading the state: says why" "Input/output error"
	eq "EIO reading the state: nothing written" "$(ra "$t" vda)" 4096
	check_rc "EIO reading the state: revert fails" 1 -- strace -f -o /dev/null -P "$t/run/earlytune/records" \
		-e trace=mmap -e inject=mmap:error=EIO "$ET" revert --wide --root "$t"
	eq "EIO reading the state: revert wrote nothing" "$(ra "$t" vda)" 4096
	eq "EIO reading the state: records kept" "$(cat "$t/run/earlytune/records")" "$(cat "$WORK/orig")"
	check_rc "EIO mapping the one file: apply --device vda fails" 1 -- strace -f -o /dev/null \
		-P "$t/run/earlytune/records" -e trace=mmap -e inject=mmap:error=EIO "$ET_BIN" apply --root "$t" --device vda
	eq "EIO mapping the one file: nothing written" "$(ra "$t" vda)" 4096
	# A disk's file (an override; today's version's files), read by the udev run about that disk.
	mkdir -p "$t/run/earlytune/disks"
	records "$t" | grep "	vda	" >"$t/run/earlytune/disks/vda"
	check_rc "EIO reading a disk's records: apply --device vda fails" 1 -- strace -f -o /dev/null \
		-P "$t/run/earlytune/disks/vda" -e trace=read -e inject=read:error=EIO "$ET_BIN" apply --root "$t" --device vda
	eq "EIO reading a disk's records: nothing written" "$(ra "$t" vda)" 4096
	# The re-read after a scheduler switch (recheck) fails: that item fails and
	# is not written on the strength of a read that did not happen. The plan
	# no longer reads iosched/ of a scheduler it switches to (defect 14): the
	# recheck is the file's first read, the read-back after the write its second.
	t=$WORK/recheck
	mk_nothp "$t"
	printf '[none] mq-deadline\n' >"$t/sys/block/vda/queue/scheduler"
	mk_iosched_mqdl "$t" vda
	printf '[block "virtual"]\nscheduler = mq-deadline\niosched.read_expire = 250\n' >"$WORK/switch.conf"
	check_rc "EIO on the re-read after a scheduler switch: apply fails" 1 -- strace -f -o /dev/null \
		-P "$t/sys/devices/virtual/block/vda/queue/iosched/read_expire" -e trace=read -e inject=read:error=EIO:when=1 \
		"$ET" apply --wide --root "$t" --config "$WORK/switch.conf" --device vda
	contains "recheck EIO: says why" "cannot read queue/iosched/read_expire after the scheduler switch: Input/output error"
	eq "recheck EIO: the tunable is not written" "$(cat "$t/sys/block/vda/queue/iosched/read_expire")" 500
	check_rc "recheck EIO: revert" 0 -- "$ET" revert --wide --root "$t"
	eq "recheck EIO: the scheduler is back" "$(active "$t/sys/block/vda/queue/scheduler")" none
else
	fail "strace is installed (.ci/bootstrap): EIO injection"
fi

# ---- defect 6: revert --iface/--ifindex/--device touch only that device ----
t=$WORK/scope
mk_kvm "$t"
printf '[net]\ncongestion_control = reno\n' >"$WORK/reno.conf"
check_rc "scope: apply" 0 -- "$ET" apply --wide --root "$t" --config "$WORK/reno.conf"
cc=$t/proc/sys/net/ipv4/tcp_congestion_control
eq "scope: congestion control set" "$(cat "$cc")" reno
for sel in "--iface eth0" "--ifindex 2"; do
	check_rc "scope: revert $sel" 0 -- "$ET" revert --wide --root "$t" $sel
	eq "scope: revert $sel leaves the global sysctl alone" "$(cat "$cc")" reno
	eq "scope: revert $sel keeps its record" "$(records "$t" | grep -c tcp_congestion_control)" 1
done
check_rc "scope: revert --device vda" 0 -- "$ET" revert --wide --root "$t" --device vda
eq "scope: --device vda restores vda" "$(ra "$t" vda)" 8192
eq "scope: --device vda leaves THP alone" "$(active "$t/sys/kernel/mm/transparent_hugepage/enabled")" madvise
eq "scope: --device vda leaves the sysctl alone" "$(cat "$cc")" reno
check_rc "scope: revert everything" 0 -- "$ET" revert --wide --root "$t"
eq "scope: now the sysctl is back" "$(cat "$cc")" cubic

# The qdisc half: netlink reaches only the running kernel, so a network
# namespace of the test's own (as in net.sh), records in a directory of ours.
if [ "$(id -u)" = 0 ] && command -v ip >/dev/null && command -v tc >/dev/null && ip netns add "et-orig-$$" 2>/dev/null; then
	ns=et-orig-$$
	at_exit 'ip netns del "$ns" 2>/dev/null'
	state=$WORK/netstate
	mkdir -p "$state" /run/earlytune
	et() { in_ns "$ET" "$@" --only net --profile none; }
	for i in 0 1; do nsx ip link add "a$i" numtxqueues 1 type veth peer name "b$i" numtxqueues 1; done
	cc0=$(nsx cat /proc/sys/net/ipv4/tcp_congestion_control)
	printf '[net]\ncongestion_control = reno\nqdisc = pfifo\ninterfaces = a*\n' >"$WORK/net.conf"
	check_rc "netns: apply" 0 -- et apply --config "$WORK/net.conf"
	eq "netns: the qdisc records carry the namespace and the ifindex" \
		"$(state_records "$state" | awk -F'\t' '$3 == "qdisc" && $4 ~ "^netlink/netns/[0-9]+/ifindex/" &&
			$6 == "ifindex:" substr($4, match($4, "[0-9]+$"))' | wc -l)" 2
	check_rc "netns: revert --iface a0" 0 -- et revert --iface a0
	eq "netns: a0's root handed back" "$(nsx tc qdisc show dev a0 | grep -c pfifo)" 0
	eq "netns: a1 keeps its qdisc" "$(nsx tc qdisc show dev a1 | grep -c pfifo)" 1
	eq "netns: revert --iface leaves congestion control alone" "$(nsx cat /proc/sys/net/ipv4/tcp_congestion_control)" reno
	i1=$(nsx cat /sys/class/net/a1/ifindex)
	check_rc "netns: revert --ifindex $i1" 0 -- et revert --ifindex "$i1"
	eq "netns: a1's root handed back" "$(nsx tc qdisc show dev a1 | grep -c pfifo)" 0
	eq "netns: revert --ifindex leaves congestion control alone" "$(nsx cat /proc/sys/net/ipv4/tcp_congestion_control)" reno
	check_rc "netns: apply again" 0 -- et apply --config "$WORK/net.conf"
	check_rc "netns: forget --ifindex $i1 (udev's remove)" 0 -- et forget --ifindex "$i1"
	eq "netns: a1's record forgotten, a0's kept" "$(state_records "$state" | awk -F'\t' '$3 == "qdisc" { print $2 }')" a0
	nsx ip link del a0
	check_rc "netns: revert after a0 left" 0 -- et revert
	contains "netns: a0's record dropped, said so" "no interface has ifindex"
	eq "netns: congestion control restored" "$(nsx cat /proc/sys/net/ipv4/tcp_congestion_control)" "$cc0"
	eq "netns: records forgotten" "$(state_records "$state")" ""
	ip netns del "$ns"
else
	skip "the qdisc half" "needs root and a network namespace"
fi

# ---- the real kernel: a loop device that gets another file ----------------
if [ "$(id -u)" != 0 ] || ! command -v losetup >/dev/null || ! command -v unshare >/dev/null; then
	skip "real loop devices" "needs root"
	exit 0
fi
host_lock
loop=$(free_loop)
[ -n "$loop" ] || { skip "real loop devices" "no free loop2..loop7"; exit 0; }
ra0=$(cat /sys/block/$loop/queue/read_ahead_kb)
truncate -s 1M "$WORK/a.img" "$WORK/b.img"
at_exit 'losetup -d /dev/$loop 2>/dev/null; echo "$ra0" >/sys/block/$loop/queue/read_ahead_kb'
r=$WORK/root
mkdir -p "$r/sys" "$r/proc" "$r/run" "$r/dev"
printf '[block "l"]\nmatch.name = %s\nread_ahead_kb = 512\n' $loop >"$WORK/loop.conf"
inroot() { unshare -m sh -c 'mount --bind /sys "$0/sys" && mount --bind /proc "$0/proc" && exec "$@"' "$r" "$ET" "$@" --root "$r" --profile none --config "$WORK/loop.conf"; }
attach() { losetup /dev/$loop "$1" && echo "$2" >/sys/block/$loop/queue/read_ahead_kb; }

attach "$WORK/a.img" 336
seq1=$(cat /sys/block/$loop/diskseq 2>/dev/null)
check_rc "real: apply --device $loop" 0 -- inroot apply --device $loop
eq "real: read-ahead set" "$(cat /sys/block/$loop/queue/read_ahead_kb)" 512
RL=sys/block/$loop/queue/read_ahead_kb
[ -n "$seq1" ] && eq "real: the record carries the diskseq" "$(rec "$r" "$RL")" "336|diskseq:$seq1"
losetup -d /dev/$loop
attach "$WORK/b.img" 444
seq2=$(cat /sys/block/$loop/diskseq 2>/dev/null)
[ "$seq1" != "$seq2" ]; eq "real: another file, another identity (diskseq $seq1 → $seq2)" $? 0
check_rc "real: apply on the reused name" 0 -- inroot apply --device $loop
eq "real: the new device's original is recorded" "$(rec "$r" "$RL" | cut -d'|' -f1)" 444
check_rc "real: revert" 0 -- inroot revert --device $loop
eq "real: revert gives the new device its own original" "$(cat /sys/block/$loop/queue/read_ahead_kb)" 444

check_rc "real: apply once more" 0 -- inroot apply --device $loop
losetup -d /dev/$loop
attach "$WORK/a.img" 552
check_rc "real: revert after the device was re-attached" 0 -- inroot revert --device $loop
contains "real: the stale record is dropped, and said so" "record dropped, not written: $loop is another device now"
eq "real: the departed device's value is not written" "$(cat /sys/block/$loop/queue/read_ahead_kb)" 552
losetup -d /dev/$loop
echo "$ra0" >/sys/block/$loop/queue/read_ahead_kb
eq "real: $loop's read-ahead restored" "$(cat /sys/block/$loop/queue/read_ahead_kb)" "$ra0"
