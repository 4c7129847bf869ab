# SPDX-License-Identifier: LGPL-2.1-or-later
# [sysfs "NAME"], the escape hatch: KSM (sys/kernel/mm/ksm/run,
# pages_to_scan) and zswap (sys/module/zswap/parameters/enabled) on a fake
# tree laid out as the kernel lays them out. apply records each original and
# reads the value back, verify finds drift and unmet, revert restores, status
# and Prometheus name the items; the other writers of the same files
# (sysfsutils, tmpfiles.d, TuneD [sysfs]) are named; paths outside /sys, the
# sysctls, files a domain writes and links leading out of /sys are refused;
# write-only and multi-line files are a skip saying so.
. "$(dirname "$0")/../lib/common.sh"

mk_sysfs_tree() { # ROOT
	mk_base "$1" 6.1.0-28-cloud-amd64 yes QEMU "root=/dev/vda1"
	mk_disk "$1" vda virtio_blk "[none] mq-deadline" 128 0
	_attr "$1/sys/kernel/mm/ksm/run" 0
	_attr "$1/sys/kernel/mm/ksm/pages_to_scan" 100
	_attr "$1/sys/kernel/mm/ksm/sleep_millisecs" 20
	_attr "$1/sys/kernel/mm/ksm/pages_shared" 0
	chmod 0444 "$1/sys/kernel/mm/ksm/pages_shared"
	_attr "$1/sys/module/zswap/parameters/enabled" N
	_attr "$1/sys/module/zswap/parameters/compressor" lzo
	_attr "$1/sys/kernel/mm/lru_gen/enabled" 0x0007
	mkdir -p "$1/etc/earlytune.d"
}

ksm_conf() { # ROOT
	cat >"$1/etc/earlytune.d/50-sysfs.conf" <<'CONF'
[sysfs "ksm"]
path = /sys/kernel/mm/ksm/run
# Merge the identical pages of this host's many alike guests.
value = 1

[sysfs "ksm-scan"]
path = /sys/kernel/mm/ksm/pages_to_scan /sys/kernel/mm/ksm/sleep_millisecs
value = 1000

[sysfs "zswap"]
path = /sys/module/zswap/parameters/enabled
# A compressed swap cache in RAM before the swap device.
value = Y
CONF
}

t=$WORK/ksm
mk_sysfs_tree "$t"
ksm_conf "$t"
before=$(snapshot "$t")
check_rc "plan exits 0" 0 -- "$ET" plan --wide --only sysfs --root "$t"
contains "plan: KSM run, with the reason above its value" \
	"sysfs  ksm      kernel/mm/ksm/run               0       1       change Merge the identical pages of this host's many alike guests."
contains "plan: several paths, one item each" "sysfs  ksm-scan kernel/mm/ksm/sleep_millisecs"
contains "plan: zswap's module parameter" "sysfs  zswap    module/zswap/parameters/enabled N       Y       change A compressed swap cache"
check_rc "apply exits 0" 0 -- "$ET" apply --only sysfs --root "$t"
eq "apply: KSM run written" "$(cat "$t/sys/kernel/mm/ksm/run")" 1
eq "apply: pages_to_scan written" "$(cat "$t/sys/kernel/mm/ksm/pages_to_scan")" 1000
eq "apply: zswap enabled written" "$(cat "$t/sys/module/zswap/parameters/enabled")" Y
eq "apply: each original recorded, global ones in originals" "$(records "$t" | cut -f1-5)" \
	"sysfs	ksm	kernel/mm/ksm/run	sys/kernel/mm/ksm/run	0
sysfs	ksm-scan	kernel/mm/ksm/pages_to_scan	sys/kernel/mm/ksm/pages_to_scan	100
sysfs	ksm-scan	kernel/mm/ksm/sleep_millisecs	sys/kernel/mm/ksm/sleep_millisecs	20
sysfs	zswap	module/zswap/parameters/enabled	sys/module/zswap/parameters/enabled	N"
check_rc "a second apply exits 0" 0 -- "$ET" apply --only sysfs --root "$t"
eq "a second apply keeps all four" "$(printf '%s\n' "$OUT" | grep -c '^sysfs .* keep   -$')" 4
check_rc "verify holds" 0 -- "$ET" verify --only sysfs --root "$t"
contains "verify counts" "verify: 4 hold, 0 drifted, 0 unmet, 0 not applicable"
echo 0 >"$t/sys/kernel/mm/ksm/run"
check_rc "verify finds the drift (exit 1)" 1 -- "$ET" verify --only sysfs --root "$t" --prometheus /run/et.prom
contains "verify names the drift" "drift: sysfs ksm kernel/mm/ksm/run is '0', want '1'"
OUT=$(grep 'earlytune_setting_holds{domain="sysfs",target="ksm",setting="kernel/mm/ksm/run"}' "$t/run/et.prom")
eq "Prometheus: earlytune_setting_holds is 0 for the drifted file" "$OUT" \
	'earlytune_setting_holds{domain="sysfs",target="ksm",setting="kernel/mm/ksm/run"} 0'
check_rc "status exits 0" 0 -- "$ET" status --root "$t"
contains "status lists the applied item" "changed  sysfs ksm kernel/mm/ksm/run: 0 -> 1"
check_rc "revert exits 0" 0 -- "$ET" revert --only sysfs --root "$t"
eq "revert restores every original" "$(snapshot "$t")" "$before"
eq "revert forgets the records" "$(records "$t" | grep -c '^sysfs')" 0
check_rc "apply --json exits 0" 0 -- "$ET" apply --json --only sysfs --root "$t"
contains "apply --json names the domain" '"domain":"sysfs","target":"zswap"'
check_rc "a whole revert (every domain) restores them too" 0 -- "$ET" revert --root "$t"
eq "the whole revert restores every original" "$(snapshot "$t")" "$before"

# ---- what the kernel keeps is read back -------------------------------------
t=$WORK/readback
mk_sysfs_tree "$t"
ksm_conf "$t"
# Links that lead out of /sys to a file of the tree: an absolute one (the
# root resolves it inside itself) and a relative one.
rm "$t/sys/kernel/mm/ksm/run" "$t/sys/kernel/mm/ksm/pages_to_scan"
echo secret >"$t/etc/secret"
ln -s /etc/secret "$t/sys/kernel/mm/ksm/run"
ln -s ../../../../etc/secret "$t/sys/kernel/mm/ksm/pages_to_scan"
check_rc "links out of /sys: apply exits 1" 1 -- "$ET" apply --wide --only sysfs --root "$t"
contains "an absolute link out of /sys is refused, not followed" \
	"sysfs  ksm      kernel/mm/ksm/run               -       1       error  -       error: a link on the way leads out of /sys: refused"
contains "a relative link out of /sys is refused" \
	"kernel/mm/ksm/pages_to_scan     -       1000    error  -       error: a link on the way leads out of /sys: refused"
eq "the file the links name is untouched" "$(cat "$t/etc/secret")" secret
eq "the other files of the run are applied" "$(cat "$t/sys/module/zswap/parameters/enabled")" Y

# ---- selectors, kinds of files ------------------------------------------------
t=$WORK/kinds
mk_sysfs_tree "$t"
printf 'always defer [madvise] never\n' >"$t/sys/kernel/mm/ksm/sel"
printf 'line one\nline two\n' >"$t/sys/kernel/mm/ksm/multi"
: >"$t/sys/kernel/mm/ksm/wo"
chmod 0200 "$t/sys/kernel/mm/ksm/wo"
cat >"$t/etc/earlytune.d/50-sysfs.conf" <<'CONF'
[sysfs "sel"]
path = /sys/kernel/mm/ksm/sel
value = never

[sysfs "odd"]
path = /sys/kernel/mm/ksm/multi /sys/kernel/mm/ksm/wo /sys/kernel/mm/ksm/pages_shared /sys/kernel/mm/ksm/gone
value = 1

[sysfs "disks"]
path = /sys/block/sd*/device/timeout /sys/block/*/queue/sch*
value = 60
CONF
check_rc "kinds: plan exits 0" 0 -- "$ET" plan --wide --only sysfs --root "$t"
OUT=$(printf '%s\n' "$OUT" | tr -s ' ') # the columns' padding aside
contains "a selector file compares its selected word" "sysfs sel kernel/mm/ksm/sel madvise never change"
contains "a multi-line file is a skip saying so" "multi-line: not one value earlytune can compare and restore"
contains "a write-only file is a skip saying so" "write-only: its value cannot be read"
contains "a read-only file is a skip saying so" "read-only: the kernel takes no value here"
contains "a plain path the kernel lacks is unmet" "no such file: this kernel (or its modules and devices) does not have it"
contains "a glob that matches nothing is neutral" "block/sd*/device/timeout - 60 skip matches no file here"
contains "a file a glob reaches that [block] writes: skip naming the key" \
	"earlytune sets it with [block] scheduler (one writer per file): set it there"
check_rc "kinds: apply exits 0" 0 -- "$ET" apply --only sysfs --root "$t"
eq "kinds: the selector file got its word" "$(cat "$t/sys/kernel/mm/ksm/sel")" never
eq "kinds: the write-only file was not written" "$(wc -c <"$t/sys/kernel/mm/ksm/wo")" 0
eq "kinds: vda's scheduler is not [sysfs]'s" "$(cat "$t/sys/block/vda/queue/scheduler")" "[none] mq-deadline"
eq "kinds: the selector's original is its word" "$(records "$t" | grep ksm/sel | cut -f5)" madvise
check_rc "kinds: verify is 1 (unmet files)" 1 -- "$ET" verify --only sysfs --root "$t"
contains "kinds: verify names the unmet write-only file" "unmet: sysfs odd kernel/mm/ksm/wo"
check_rc "kinds: revert exits 0" 0 -- "$ET" revert --only sysfs --root "$t"
eq "kinds: the selector's word restored" "$(cat "$t/sys/kernel/mm/ksm/sel")" madvise

# ---- refused when read: exit 2, nothing written --------------------------------
refused() { # DESC CONF-TEXT MESSAGE
	t=$WORK/refused
	rm -rf "$t"
	mk_sysfs_tree "$t"
	printf '%b' "$2" >"$t/etc/earlytune.d/50-sysfs.conf"
	_b=$(snapshot "$t")
	check_rc "$1: apply exits 2" 2 -- "$ET" apply --root "$t"
	contains "$1: the message" "$3"
	eq "$1: nothing written" "$(snapshot "$t")" "$_b"
}
refused "/proc/sys" '[sysfs "s"]\npath = /proc/sys/vm/swappiness\nvalue = 10\n' \
	"[sysfs] path '/proc/sys/vm/swappiness': sysctls are set in /etc/sysctl.d/*.conf"
refused "outside /sys" '[sysfs "s"]\npath = /etc/shadow\nvalue = x\n' "'/etc/shadow': not below /sys"
refused "a .. component" '[sysfs "s"]\npath = /sys/kernel/../../etc/shadow\nvalue = x\n' "'.' or '..' component"
refused "[block]'s file" '[sysfs "s"]\npath = /sys/block/vda/queue/read_ahead_kb\nvalue = 4096\n' \
	"earlytune sets it with [block] read_ahead_kb; set it there (one writer per file)"
refused "[thp]'s file" '[sysfs "s"]\npath = /sys/kernel/mm/transparent_hugepage/defrag\nvalue = never\n' \
	"earlytune sets it with [thp] defrag"
refused "[sched]'s debugfs knob" '[sysfs "s"]\npath = /sys/kernel/debug/sched/migration_cost_ns\nvalue = 1\n' \
	"earlytune sets it with [sched] migration_cost_ns"
refused "[net \"NAME\"]'s queue file" '[sysfs "s"]\npath = /sys/class/net/eth0/queues/rx-0/rps_cpus\nvalue = f\n' \
	'earlytune sets it with [net "NAME"] rps_cpus; set it there (one writer per file)'
refused "no name" '[sysfs]\npath = /sys/kernel/mm/ksm/run\nvalue = 1\n' '[sysfs] needs a name'
# Two sections for one file: the second is an error, never written.
t=$WORK/twice
mk_sysfs_tree "$t"
printf '[sysfs "a"]\npath = /sys/kernel/mm/ksm/run\nvalue = 1\n[sysfs "b"]\npath = /sys/kernel/mm/ksm/r*\nvalue = 2\n' \
	>"$t/etc/earlytune.d/50-sysfs.conf"
check_rc "two sections for one file: apply exits 1" 1 -- "$ET" apply --wide --only sysfs --root "$t"
contains "two sections for one file: the second says so" "[sysfs \"a\"] names this file already: one writer per file, keep one"
eq "two sections for one file: the first's value" "$(cat "$t/sys/kernel/mm/ksm/run")" 1
refused "a path without a value" '[sysfs "s"]\npath = /sys/kernel/mm/ksm/run\n' '[sysfs "s"] has a path but no value'

# ---- other writers of the same files -------------------------------------------
t=$WORK/writers
mk_sysfs_tree "$t"
ksm_conf "$t"
mkdir -p "$t/etc/sysfs.d" "$t/etc/tmpfiles.d" "$t/etc/tuned/mine"
printf 'kernel/mm/ksm/run = 0\n' >"$t/etc/sysfs.d/ksm.conf"
printf 'w /sys/kernel/mm/ksm/pages_to_scan - - - - 200\n' >"$t/etc/tmpfiles.d/ksm.conf"
echo mine >"$t/etc/tuned/active_profile"
printf '[sysfs]\n/sys/module/zswap/parameters/enabled = N\n' >"$t/etc/tuned/mine/tuned.conf"
check_rc "writers: plan exits 0" 0 -- "$ET" plan --wide --only sysfs --root "$t"
contains "writers: sysfsutils named, and wins" \
	"also written by /etc/sysfs.d/ksm.conf:1 kernel/mm/ksm/run = 0 (sysfsutils, sysfsutils runs after earlytune: wins)"
contains "writers: a tmpfiles.d w line named" \
	"also written by /etc/tmpfiles.d/ksm.conf:1 w /sys/kernel/mm/ksm/pages_to_scan 200 (tmpfiles.d, systemd-tmpfiles-setup runs after earlytune: wins)"
contains "writers: TuneD's [sysfs] named" "also written by /etc/tuned/mine/tuned.conf:2 [sysfs] /sys/module/zswap/parameters/enabled=N (TuneD"
# A udev rule's ATTR{} of a disk's attribute a [sysfs] path names.
_attr "$t/sys/devices/virtual/block/vda/queue/max_sectors_kb" 1280
printf '[sysfs "maxsect"]\npath = /sys/block/vd*/queue/max_sectors_kb\nvalue = 512\n' >"$t/etc/earlytune.d/60-disk.conf"
mkdir -p "$t/etc/udev/rules.d"
printf 'ACTION=="add", SUBSYSTEM=="block", KERNEL=="vd[a-z]", ATTR{queue/max_sectors_kb}="256"\n' \
	>"$t/etc/udev/rules.d/60-maxsect.rules"
printf 'ACTION=="add|change", SUBSYSTEM=="block", KERNEL=="sd*", ATTR{queue/max_sectors_kb}="128"\n' \
	>"$t/etc/udev/rules.d/61-sd.rules"
check_rc "writers: plan with a udev rule exits 0" 0 -- "$ET" plan --wide --only sysfs --root "$t"
contains "writers: udev's ATTR{} named under the disk's [sysfs] item" \
	"also written by /etc/udev/rules.d/60-maxsect.rules:1 ATTR{queue/max_sectors_kb}=\"256\" (udev, udev writes ATTR{} before earlytune's RUN from 70-earlytune.rules: earlytune's value stays)"
lacks "writers: a rule for other disks is not named" "61-sd.rules"
# An interface's: SUBSYSTEM=="net" rules, matched against that interface.
_attr "$t/sys/devices/virtual/net/eth0/gro_flush_timeout" 1000
printf '[sysfs "txq"]\npath = /sys/class/net/eth0/gro_flush_timeout\nvalue = 5000\n' >"$t/etc/earlytune.d/61-net.conf"
printf 'SUBSYSTEM=="net", ACTION=="add|change", KERNEL=="eth*", ATTR{gro_flush_timeout}="2000"\n' >"$t/etc/udev/rules.d/62-txq.rules"
printf 'SUBSYSTEM=="net", KERNEL=="wl*", ATTR{gro_flush_timeout}="10"\n' >"$t/etc/udev/rules.d/63-wl.rules"
printf 'SUBSYSTEM=="block", KERNEL=="eth0", ATTR{gro_flush_timeout}="10"\n' >"$t/etc/udev/rules.d/64-blk.rules"
check_rc "writers: plan with a net rule exits 0" 0 -- "$ET" plan --wide --only sysfs --root "$t"
contains "writers: a net rule's ATTR{} named under the interface's item, and it wins on change events" \
	"also written by /etc/udev/rules.d/62-txq.rules:1 ATTR{gro_flush_timeout}=\"2000\" (udev, it writes again on each change event of eth0, where earlytune does not run: wins)"
lacks "writers: a rule for other interfaces is not named" "63-wl.rules"
lacks "writers: a block rule is not an interface's" "64-blk.rules"
# The same file by its /sys/devices path: udev knows it through the
# interface's class link (the subsystem link names the class).
ln -s ../../../../class/net "$t/sys/devices/virtual/net/eth0/subsystem"
printf '[sysfs "txq"]\npath = /sys/devices/virtual/net/eth0/gro_flush_timeout\nvalue = 5000\n' >"$t/etc/earlytune.d/61-net.conf"
check_rc "writers: plan of the interface's file by its /sys/devices path exits 0" 0 -- "$ET" plan --wide --only sysfs --root "$t"
contains "writers: the net rule named under it too" \
	"also written by /etc/udev/rules.d/62-txq.rules:1 ATTR{gro_flush_timeout}=\"2000\" (udev, it writes again on each change event of eth0, where earlytune does not run: wins)"
lacks "writers: by that path, a rule for other interfaces is not named" "63-wl.rules"

# ---- hotplug: a path under a device's directory is that device's -------------
t=$WORK/hotplug
mk_sysfs_tree "$t"
mk_disk "$t" vdb virtio_blk "[none] mq-deadline" 128 0
for d in vda vdb; do _attr "$t/sys/devices/virtual/block/$d/queue/max_sectors_kb" 1280; done
_attr "$t/sys/devices/virtual/net/eth0/gro_flush_timeout" 1000
cat >"$t/etc/earlytune.d/50-sysfs.conf" <<'CONF'
[sysfs "maxsect"]
path = /sys/block/vd*/queue/max_sectors_kb
value = 512

[sysfs "txq"]
path = /sys/class/net/eth*/gro_flush_timeout
value = 5000

[sysfs "ksm"]
path = /sys/kernel/mm/ksm/run
value = 1
CONF
check_rc "hotplug: udev's apply for vdb exits 0" 0 -- "$ET" --boot apply --root "$t" --device vdb
eq "hotplug: vdb's file written" "$(cat "$t/sys/devices/virtual/block/vdb/queue/max_sectors_kb")" 512
eq "hotplug: vda's untouched (the glob matched against vdb alone)" \
	"$(cat "$t/sys/devices/virtual/block/vda/queue/max_sectors_kb")" 1280
eq "hotplug: the global file waits for a run about everything" "$(cat "$t/sys/kernel/mm/ksm/run")" 0
eq "hotplug: the record in vdb's own file, with the disk's identity" \
	"$(cut -f1-5 "$t/run/earlytune/disks/vdb"; cut -f6 "$t/run/earlytune/disks/vdb" | cut -c1-4)" \
	"sysfs	maxsect	block/vdb/queue/max_sectors_kb	sys/block/vdb/queue/max_sectors_kb	1280
dev:"
[ ! -e "$t/run/earlytune/originals" ]; eq "hotplug: nothing in originals" $? 0
check_rc "hotplug: udev's apply for ifindex 2 exits 0" 0 -- "$ET" --boot apply --root "$t" --ifindex 2
eq "hotplug: eth0's file written" "$(cat "$t/sys/devices/virtual/net/eth0/gro_flush_timeout")" 5000
eq "hotplug: the interface's record in links/2, with its index" "$(cut -f2,5,6 "$t/run/earlytune/links/2")" \
	"txq	1000	ifindex:2"
check_rc "hotplug: a run about everything exits 0" 0 -- "$ET" --boot apply --root "$t"
eq "hotplug: vda's now" "$(cat "$t/sys/devices/virtual/block/vda/queue/max_sectors_kb")" 512
eq "hotplug: and the global file" "$(cat "$t/sys/kernel/mm/ksm/run")" 1
check_rc "hotplug: revert --device vdb exits 0" 0 -- "$ET" revert --root "$t" --device vdb
eq "hotplug: vdb's original back" "$(cat "$t/sys/devices/virtual/block/vdb/queue/max_sectors_kb")" 1280
eq "hotplug: vda's kept" "$(cat "$t/sys/devices/virtual/block/vda/queue/max_sectors_kb")" 512
check_rc "hotplug: udev's forget for ifindex 2 exits 0" 0 -- "$ET" --boot forget --root "$t" --ifindex 2
eq "hotplug: forget drops the interface's record" "$(records "$t" | grep -c '	ifindex:2$')" 0
# A new disk under vdb's name: the departed one's original is not its own.
check_rc "hotplug: vdb applied again" 0 -- "$ET" --boot apply --root "$t" --device vdb
echo 999 >"$t/sys/devices/virtual/block/vdb/queue/max_sectors_kb"
echo NEWSERIAL >"$t/sys/devices/virtual/block/vdb/serial"
check_rc "hotplug: another disk named vdb: apply exits 0" 0 -- "$ET" --boot apply --root "$t" --device vdb
eq "hotplug: the new disk's own original recorded" "$(cut -f5 "$t/run/earlytune/disks/vdb")" 999
check_rc "hotplug: revert exits 0" 0 -- "$ET" revert --root "$t"
eq "hotplug: the new vdb gets its own original back" "$(cat "$t/sys/devices/virtual/block/vdb/queue/max_sectors_kb")" 999
eq "hotplug: vda its own" "$(cat "$t/sys/devices/virtual/block/vda/queue/max_sectors_kb")" 1280

# ---- the boot's global runs include the domain ------------------------------------
# The initramfs (initramfs-tools, dracut) and the units run earlytune --only a
# list of domains: without sysfs there, a global [sysfs] file would wait for
# a manual apply.
for f in initramfs-tools/scripts/init-top/earlytune dracut-module/50earlytune/earlytune-pre-udev.sh \
	hook/earlytune.service hook/earlytune-cloud-init.service; do
	OUT=$(grep -- '--boot apply --only' "$TESTS_DIR/../$f")
	contains "the boot run of $f includes sysfs" ",sysfs"
done

# ---- the real kernel: this machine's loop devices and its /sys, read ----------
# A root whose sys/ is the real /sys (bind-mounted in a private mount
# namespace) and whose run/ is ours, as realsysfs.sh does; only loop0 is
# written, and given back.
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null || [ ! -w /sys/block/loop0/queue/max_sectors_kb ]; then
	skip "real sysfs" "needs root and a writable /sys/block/loop0/queue/max_sectors_kb"
	exit 0
fi
host_lock
t=$WORK/real
mkdir -p "$t/sys" "$t/proc" "$t/run" "$t/dev"
inroot() { unshare -m sh -c "mount --bind /sys '$t/sys' && mount --bind /proc '$t/proc' && $*"; }
orig=$(cat /sys/block/loop0/queue/max_sectors_kb)
want=$([ "$orig" = 128 ] && echo 256 || echo 128)
printf '[sysfs "loop"]\npath = /sys/block/loop0/queue/max_sectors_kb\nvalue = %s\n' "$want" >"$WORK/real.conf"
cat >>"$WORK/real.conf" <<'CONF'
[sysfs "kinds"]
path = /sys/kernel/mm/ksm/pages_shared /sys/bus/pci/rescan
value = 1
CONF
OUT=$(inroot "'$ET' plan --wide --profile none --config '$WORK/real.conf' --root '$t'" 2>&1)
OUT=$(printf '%s\n' "$OUT" | tr -s ' ')
contains "real: loop0's attribute read" "sysfs loop block/loop0/queue/max_sectors_kb $orig $want change"
[ -e /sys/kernel/mm/ksm/pages_shared ] && contains "real: KSM's pages_shared (0444) is read-only" \
	"kernel/mm/ksm/pages_shared - 1 skip read-only"
[ -e /sys/bus/pci/rescan ] && contains "real: the PCI bus's rescan (0200) is write-only" "bus/pci/rescan - 1 skip write-only"
OUT=$(inroot "'$ET' --boot apply --profile none --config '$WORK/real.conf' --root '$t' --device loop0" 2>&1)
eq "real: udev's apply for loop0 exits 0" "$?" 0
eq "real: the kernel has the value" "$(cat /sys/block/loop0/queue/max_sectors_kb)" "$want"
eq "real: the original in loop0's file" "$(cut -f2,5 "$t/run/earlytune/disks/loop0")" "loop	$orig"
OUT=$(inroot "'$ET' verify --profile none --config '$WORK/real.conf' --root '$t' --device loop0" 2>&1)
eq "real: verify holds" "$?" 0
printf '[sysfs "loop"]\npath = /sys/block/loop0/queue/max_sectors_kb\nvalue = 1\n' >"$WORK/bad.conf"
OUT=$(inroot "'$ET' apply --profile none --config '$WORK/bad.conf' --root '$t' --device loop0" 2>&1)
eq "real: a value the kernel refuses fails the item (exit 1)" "$?" 1
contains "real: with the kernel's errno" "Invalid argument"
OUT=$(inroot "'$ET' revert --root '$t'" 2>&1)
eq "real: revert exits 0" "$?" 0
eq "real: loop0's value given back" "$(cat /sys/block/loop0/queue/max_sectors_kb)" "$orig"
