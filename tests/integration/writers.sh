# SPDX-License-Identifier: LGPL-2.1-or-later
# Other writers (issue 13): plan and verify name every other configuration
# writing an item's value, which one wins and why; verify's drift line names
# the likely culprit; --json carries them. Hostile inputs are said, not
# ignored; apply never reads them.
. "$(dirname "$0")/../lib/common.sh"

# ---- TuneD: throughput-performance, then a custom profile including it
t=$WORK/tuned
mk_tuned "$t"
OUT=$("$ET" plan --json --root "$t" 2>&1)
json_ok "tuned: plan --json is valid"
eq "tuned: readahead=>4096 raises earlytune's 1024, after it: wins" "$(writers queue/read_ahead_kb vda)" \
	"TuneD /usr/lib/tuned/throughput-performance/tuned.conf:20 4096 True"
eq "tuned: [vm] transparent_hugepages=always wins" "$(writers enabled thp)" \
	"TuneD /usr/lib/tuned/throughput-performance/tuned.conf:17 always True"
eq "tuned: no writer for what the profile does not set" "$(writers queue/scheduler vda)" ""
# the profile selected, the service not enabled: named, never the winner
rm "$t/etc/systemd/system/multi-user.target.wants/tuned.service"
OUT=$("$ET" plan --wide --root "$t" 2>&1)
contains "tuned: a disabled tuned.service is said" "tuned.service is not enabled: it would win once started"
lacks "tuned: a disabled tuned.service does not win" ": wins"
tuned_enable "$t" throughput-performance
# earlytune's read-ahead above the raise-only value: TuneD leaves it
mkdir -p "$t/etc/earlytune"
printf '[block "virtual"]\nmatch.class = virtual\nread_ahead_kb = 8192\n' >"$t/etc/earlytune.conf"
OUT=$("$ET" plan --wide --only block --root "$t" 2>&1)
contains "tuned: raise-only below earlytune's value does not win" "it only raises read-ahead (>), and earlytune's 8192 is not below it"
rm "$t/etc/earlytune.conf"
# transparent_hugepage= on the kernel command line: TuneD leaves THP alone
printf 'root=/dev/vda1 transparent_hugepage=madvise\n' >"$t/proc/cmdline"
OUT=$("$ET" plan --wide --only thp --root "$t" 2>&1)
contains "tuned: THP on the command line: TuneD does not win" "transparent_hugepage= is on the kernel command line"

t=$WORK/tunedcustom
mk_tunedcustom "$t"
OUT=$("$ET" plan --json --root "$t" 2>&1)
eq "custom: the override through a variable (devices=\${disks}, readahead=>\${ra})" "$(writers queue/read_ahead_kb vda)" \
	"TuneD /etc/tuned/profiles/mytp/tuned.conf:11 8192 True"
eq "custom: the included profile's [vm] line is inherited" "$(writers enabled thp)" \
	"TuneD /usr/lib/tuned/throughput-performance/tuned.conf:17 always True"
eq "custom: a \${f:...} value is TuneD's to compute (null), still the winner" "$(writers defrag thp)" \
	"TuneD /etc/tuned/profiles/mytp/tuned.conf:18 None True"
eq "custom: [sysctl] default_qdisc loses to earlytune's guard (reapply_sysctl)" \
	"$(writers net.core.default_qdisc sysctl)" "TuneD /etc/tuned/profiles/mytp/tuned.conf:15 fq_codel False"
printf '[daemon]\nreapply_sysctl = 0\n' >"$t/etc/tuned/tuned-main.conf"
OUT=$("$ET" plan --json --root "$t" 2>&1)
eq "custom: reapply_sysctl = 0: TuneD's [sysctl] wins" \
	"$(writers net.core.default_qdisc sysctl)" "TuneD /etc/tuned/profiles/mytp/tuned.conf:15 fq_codel True"
# devices= that does not name the disk
sed -i 's/^disks=vd\*/disks=sd*,!vda/' "$t/etc/tuned/profiles/mytp/tuned.conf"
OUT=$("$ET" plan --json --root "$t" 2>&1)
eq "custom: devices= not naming vda holds for the merged [disk] section, the included line too" \
	"$(writers queue/read_ahead_kb vda)" ""

# hostile: an include cycle, a missing profile, a huge file, non-UTF-8
printf '[main]\ninclude=b\n[disk]\nreadahead=>999\n' >"$t/etc/tuned/profiles/mytp/tuned.conf"
mkdir -p "$t/etc/tuned/b" "$t/etc/tuned/c"
printf '[main]\ninclude=c, mytp\n' >"$t/etc/tuned/b/tuned.conf"
printf '[main]\ninclude=b;nosuch\n[vm]\ntransparent_hugepages=\377never\n' >"$t/etc/tuned/c/tuned.conf"
OUT=$("$ET" plan --json --root "$t" 2>"$WORK/err")
json_ok "hostile: plan --json stays valid JSON (non-UTF-8 value)"
eq "hostile: the cycle's profiles are still read (999 raises nothing over 1024)" \
	"$(writers queue/read_ahead_kb vda)" "TuneD /etc/tuned/profiles/mytp/tuned.conf:4 999 False"
eq "hostile: non-UTF-8 bytes become '?'" "$(writers enabled thp)" "TuneD /etc/tuned/c/tuned.conf:4 ?never True"
OUT=$(cat "$WORK/err")
contains "hostile: an include cycle is said" "/etc/tuned/b/tuned.conf: include=mytp is a cycle: not followed again"
contains "hostile: a missing profile is said" "names the TuneD profile nosuch: not installed"
head -c 2000000 /dev/zero | tr '\0' '#' >"$t/etc/tuned/c/tuned.conf"
check_rc "hostile: plan exits 1 on a profile it cannot read" 1 -- "$ET" plan --root "$t"
contains "hostile: a huge profile is said, not read" "cannot read /etc/tuned/c/tuned.conf: larger than 1024 KiB"

# a variable that expands itself: bounded, said as computed by TuneD
printf '[variables]\na=${a}${a}x\n[disk]\nelevator=${a}\n' >"$t/etc/tuned/c/tuned.conf"
OUT=$(timeout 10 "$ET" plan --json --only block --root "$t" 2>/dev/null)
eq "hostile: a self-expanding variable ends (bounded), TuneD's to compute" "$(writers queue/scheduler vda)" \
	"TuneD /etc/tuned/c/tuned.conf:4 None True"

# ---- udev: Fedora's 60-block-scheduler.rules, an admin's rule on change
t=$WORK/udev
mk_udevsched "$t"
OUT=$("$ET" plan --json --root "$t" 2>&1)
eq "udev: Fedora's add-only ATTR rule: earlytune's RUN comes after it" "$(writers queue/scheduler sda)" \
	"udev /usr/lib/udev/rules.d/60-block-scheduler.rules:3 bfq False"
eq "udev: its KERNEL glob does not match nvme0n1" "$(writers queue/scheduler nvme0n1)" ""
eq "udev: an add|change rule (bdi/read_ahead_kb, ATTR{queue/rotational}==\"0\") wins" \
	"$(writers queue/read_ahead_kb nvme0n1)" "udev /etc/udev/rules.d/99-readahead.rules:1 4096 True"
eq "udev: its ATTR match read from the tree excludes the rotational sda" "$(writers queue/read_ahead_kb sda)" ""
# a RUN program after 70-earlytune.rules, and a key earlytune cannot evaluate
printf 'SUBSYSTEM=="block", ACTION=="add", RUN+="/bin/sh -c '\''echo kyber > /sys%%p/queue/scheduler'\''"\n' \
	>"$t/etc/udev/rules.d/80-sched.rules"
printf 'ACTION=="add", ENV{ID_MODEL}=="X*", ATTR{queue/scheduler}="none"\n' >"$t/etc/udev/rules.d/10-model.rules"
OUT=$("$ET" plan --wide --only block --root "$t" 2>&1)
contains "udev: a RUN program sorting after earlytune's wins" \
	"80-sched.rules:1 RUN+=\"/bin/sh -c 'echo kyber > /sys%p/queue/scheduler'\" (udev, its program runs after earlytune's: it sorts after 70-earlytune.rules: wins)"
contains "udev: an ENV{ID_MODEL} match is 'may apply'" "10-model.rules:1 ATTR{queue/scheduler}=\"none\" (udev, may apply:"
# same-name masking: /etc over /usr/lib
ln -s /dev/null "$t/etc/udev/rules.d/60-block-scheduler.rules"
OUT=$("$ET" plan --wide --only block --root "$t" 2>&1)
lacks "udev: a rule masked by /etc (a link to /dev/null) is not read" "60-block-scheduler.rules"
# an unreadable rules file is said, not ignored
mkdir "$t/etc/udev/rules.d/50-dir.rules"
check_rc "udev: plan exits 1 when a rules file cannot be read" 1 -- "$ET" plan --only block --root "$t"
contains "udev: an unreadable rules file is said" "other writers: cannot read /etc/udev/rules.d/50-dir.rules: Is a directory"
check_rc "udev: verify exits 1 when a rules file cannot be read" 1 -- "$ET" verify --only block --root "$t"
contains "udev: verify says which" "other writers: cannot read /etc/udev/rules.d/50-dir.rules: Is a directory"
check_rc "udev: --only net reads no udev rules (plan exits 0)" 0 -- "$ET" plan --only net --root "$t"
lacks "udev: --only net says nothing of udev rules" "50-dir.rules"
OUT=$("$ET" apply --only block --root "$t" 2>&1)
lacks "udev: apply reads no other writers" "other writers"
rmdir "$t/etc/udev/rules.d/50-dir.rules"
# 20,000 continuation lines: one rule over udev's 16 KiB, said, not read (and quick)
awk 'BEGIN { for (i = 0; i < 20000; i++) print "KERNEL==\"sd*\", \\"; print "ATTR{queue/scheduler}=\"x\"" }' \
	>"$t/etc/udev/rules.d/55-long.rules"
OUT=$(timeout 10 "$ET" plan --only block --root "$t" 2>&1)
contains "udev: a rule over 16 KiB is said, not read" "/etc/udev/rules.d/55-long.rules:1: a rule longer than 16384 bytes: not read"
rm "$t/etc/udev/rules.d/55-long.rules"

# ---- sysctl.d: systemd's 50-default.conf, files after earlytune's guard
t=$WORK/sysctld
mk_sysctld "$t"
OUT=$("$ET" plan --json --root "$t" 2>&1)
eq "sysctl.d: 50-default.conf sorts before the guard: earlytune wins" "$(writers net.core.default_qdisc sysctl)" \
	"sysctl.d /usr/lib/sysctl.d/50-default.conf:2 fq_codel False"
eq "sysctl.d: of two files after the guard the later wins" "$(writers net.ipv4.tcp_congestion_control sysctl)" \
	"sysctl.d /etc/sysctl.d/90-cc.conf:1 cubic False
sysctl.d /etc/sysctl.d/99-zz-cc.conf:1 reno True"

# ---- tmpfiles.d, sysfsutils, networkd
t=$WORK/tmpf
mk_tmpfthp "$t"
OUT=$("$ET" plan --json --root "$t" 2>&1)
eq "tmpfiles: the first line for a path wins, the duplicate is ignored" "$(writers enabled thp)" \
	"tmpfiles.d /etc/tmpfiles.d/thp.conf:1 always True
tmpfiles.d /usr/lib/tmpfiles.d/zz-tune.conf:1 never False"
eq "tmpfiles: a glob path (/sys/block/vd*/...) matches the disk" "$(writers queue/read_ahead_kb vda)" \
	"tmpfiles.d /usr/lib/tmpfiles.d/zz-tune.conf:2 256 True"

t=$WORK/sysfs
mk_sysfsconf "$t"
OUT=$("$ET" plan --json --root "$t" 2>&1)
eq "sysfsutils: sysfs.conf's THP line wins" "$(writers enabled thp)" "sysfsutils /etc/sysfs.conf:2 never True"
eq "sysfsutils: mode lines are not writes; sysfs.d is read" "$(writers queue/scheduler vda)" \
	"sysfsutils /etc/sysfs.d/disk.conf:1 mq-deadline True"

t=$WORK/networkd
mk_networkd "$t"
OUT=$("$ET" plan --json --root "$t" 2>&1)
eq "networkd: the first matching .network's qdisc wins, a later one is ignored" "$(writers qdisc eth0)" \
	"networkd /etc/systemd/network/10-eth0.network:7 fq_codel True
networkd /usr/lib/systemd/network/99-default.network:4 cake False"
OUT=$("$ET" plan --json --only block --root "$t" 2>&1)
eq "networkd: --only block has no qdisc item and reads no .network" "$(writers qdisc eth0)" ""

# ---- an interface's file, by its path: the [sysfs] item of eth0's
# tx_queue_len and its writers among the .link files and udev rules (the
# [net "NAME"] items' writers: nic.sh, on real veths)
t=$WORK/netfile
mk_kvm "$t"
_attr "$t/sys/devices/virtual/net/eth0/tx_queue_len" 1000
_attr "$t/sys/devices/virtual/net/eth0/name_assign_type" 4
mkdir -p "$t/etc/systemd/network" "$t/etc/udev/rules.d" "$t/etc/earlytune"
printf '[Match]\nDriver=virtio_net\n[Link]\nTransmitQueueLength=5000\n' >"$t/etc/systemd/network/10-virtio.link"
printf '[Match]\nOriginalName=*\n[Link]\nTransmitQueueLength=100\n' >"$t/etc/systemd/network/20-all.link"
printf 'ACTION=="add", SUBSYSTEM=="net", KERNEL=="eth*", ATTR{tx_queue_len}="2000"\n' >"$t/etc/udev/rules.d/60-txq.rules"
printf '[net "txq"]\nmatch.name = eth0\ntxqueuelen = 10000\n' >"$t/etc/earlytune.conf"
OUT=$("$ET" plan --json --only nic --root "$t" 2>&1)
eq "netfile: an interface's txqueuelen: udev's ATTR{} (before earlytune), the first matching .link (renamed: wins), not the later one" \
	"$(writers tx_queue_len eth0)" "udev /etc/udev/rules.d/60-txq.rules:1 2000 False
udev .link /etc/systemd/network/10-virtio.link:4 5000 True
udev .link /etc/systemd/network/20-all.link:4 100 False"
_attr "$t/sys/devices/virtual/net/eth0/name_assign_type" 1
OUT=$("$ET" plan --wide --only nic --root "$t" 2>&1)
contains "netfile: not renamed: the .link file is applied before earlytune's RUN" \
	"udev applies .link files while it processes the add event, before earlytune's RUN: earlytune's value stays"
contains "netfile: the later .link file is said to be ignored" \
	"ignored: udev applies only the first .link file matching eth0, /etc/systemd/network/10-virtio.link"
printf '[net "txq"]\nmatch.name = lo\ntxqueuelen = 10000\n' >"$t/etc/earlytune.conf"
_attr "$t/sys/devices/virtual/net/lo/tx_queue_len" 1000
OUT=$("$ET" plan --json --only nic --root "$t" 2>&1)
eq "netfile: lo's file: not KERNEL==\"eth*\"; a tree shows no ethtool driver: the later .link may be the first" \
	"$(writers tx_queue_len lo)" "udev .link /etc/systemd/network/10-virtio.link:4 5000 False
udev .link /etc/systemd/network/20-all.link:4 100 True"
OUT=$("$ET" plan --wide --only nic --root "$t" 2>&1)
contains "netfile: Driver= of an interface without a device/driver link in a tree: may apply" \
	"TransmitQueueLength=5000 (udev .link, may apply: if lo was renamed"

# ---- one file by any of its paths: sys/block/X, sys/class/block/X,
# sys/bus/BUS/devices/D/…/X and sys/devices/…/X are one attribute, and a
# writer naming another path of it is named (compared by the real file,
# resolved through the root). The tree links as the kernel does.
t=$WORK/paths
mk_base "$t" 6.1.0-28-cloud-amd64 yes QEMU "root=/dev/vda1"
pci=sys/devices/pci0000:00/0000:00:05.0
vda=$pci/virtio1/block/vda
_attr "$t/$vda/queue/max_sectors_kb" 1280
ln -s ../../../../../../class/block "$t/$vda/subsystem"
ln -s ../../../../bus/virtio "$t/$pci/virtio1/subsystem"
mkdir -p "$t/sys/bus/virtio/devices"
ln -s "../${vda#sys/}" "$t/sys/block/vda"
ln -s "../../${vda#sys/}" "$t/sys/class/block/vda"
ln -s ../../../devices/pci0000:00/0000:00:05.0/virtio1 "$t/sys/bus/virtio/devices/virtio1"
mkdir -p "$t/etc/tmpfiles.d" "$t/etc/tuned/mine" "$t/etc/udev/rules.d" "$t/etc/earlytune.d"
printf '%s\n' "${vda#sys/}/queue/max_sectors_kb = 256" "block/vdb/queue/max_sectors_kb = 1" >"$t/etc/sysfs.conf"
printf 'w /sys/bus/virtio/devices/virtio1/block/vda/queue/max_sectors_kb - - - - 128\n' >"$t/etc/tmpfiles.d/m.conf"
tuned_enable "$t" mine
printf '[sysfs]\n/sys/devices/pci0000:00/*/virtio1/block/vd*/queue/max_sectors_kb = 64\n' >"$t/etc/tuned/mine/tuned.conf"
printf 'ACTION=="add", SUBSYSTEM=="block", KERNEL=="vda", ATTR{queue/max_sectors_kb}="99"\n' >"$t/etc/udev/rules.d/60-m.rules"
want="tmpfiles.d /etc/tmpfiles.d/m.conf:1 128 False
udev /etc/udev/rules.d/60-m.rules:1 99 False
sysfsutils /etc/sysfs.conf:1 256 False
TuneD /etc/tuned/mine/tuned.conf:2 64 True"
for p in /sys/block/vda /sys/class/block/vda "/$vda"; do
	printf '[sysfs "maxsect"]\npath = %s/queue/max_sectors_kb\nvalue = 512\n' "$p" >"$t/etc/earlytune.d/50-m.conf"
	OUT=$("$ET" plan --json --only sysfs --root "$t" 2>&1)
	eq "paths: $p/queue/max_sectors_kb: the writers of every other path of the file named" \
		"$(writers "${p#/sys/}/queue/max_sectors_kb" maxsect)" "$want"
done
OUT=$("$ET" plan --wide --only sysfs --root "$t" 2>&1)
lacks "paths: a line of another disk is not named" "vdb"
# a udev run about vda (a glob's path below the disk's directory): the same
printf '[sysfs "maxsect"]\npath = /sys/block/vd*/queue/max_sectors_kb\nvalue = 512\n' >"$t/etc/earlytune.d/50-m.conf"
OUT=$("$ET" plan --json --only sysfs --root "$t" --device vda 2>&1)
eq "paths: a udev run about vda names them too" "$(writers block/vda/queue/max_sectors_kb maxsect)" "$want"
# and looks at vda's files and the entries naming them only: its system
# calls do not grow with the disks of the host
# calls: the calls of a udev run that name a file (%file: open, stat,
# readlink…): the ones that would grow with the host's disks. Not every
# call: a sanitizer's runtime reads /proc/self/maps in as many reads and
# maps as many pages as the moment gives it.
calls() {
	strace -f -e trace=%file -o "$WORK/paths.trace" "$ET_BIN" plan --only sysfs --root "$t" --device vda >/dev/null 2>&1
	grep -vc '^[0-9]* *+++\|^[0-9]* *---' "$WORK/paths.trace"
}
if command -v strace >/dev/null; then
	n1=$(calls)
	for i in $(seq 1 50); do mk_disk "$t" "xd$i" virtio_blk "[none] mq-deadline" 128 0; done
	eq "paths: a udev run's calls naming a file, 1 disk and 51" "$(calls)" "$n1"
fi

# ---- verify names the likely culprit of a drift
t=$WORK/culprit
mk_tmpfthp "$t"
printf '[always] madvise never\n' >"$t/sys/kernel/mm/transparent_hugepage/enabled"
check_rc "verify: drift exits 1" 1 -- "$ET" verify --only thp --root "$t"
contains "verify: the line names the winning writer of the value found (not applied: earlytune never ran here)" \
	"not applied: thp thp enabled is 'always', want 'madvise' [profile vps]; likely culprit: /etc/tmpfiles.d/thp.conf:1 w /sys/kernel/mm/transparent_hugepage/enabled always (tmpfiles.d, runs after earlytune)"
OUT=$("$ET" verify --json --only thp --root "$t" 2>&1)
json_ok "verify --json with writers is valid"

# every line of the writers' tables fits 80 columns
for m in tuned tunedcustom udev sysctld tmpf sysfs networkd netfile paths; do
	OUT=$("$ET" plan --root "$WORK/$m" 2>/dev/null)
	eq "$m: every line of the table fits 80 columns" "$(printf '%s\n' "$OUT" | awk 'length($0) > 80')" ""
done
