# SPDX-License-Identifier: LGPL-2.1-or-later
# Stacked devices (issue 9): an LV or a LUKS map on a virtual disk gets the
# disk's read-ahead cap under the vps profile, never a scheduler; a dm device
# that is not ready yet waits for its change event. Then for real: an LVM
# volume and a LUKS map on this machine's loop devices, through a root whose
# sys/ is the real /sys — set, verified, reverted, torn down even on failure.
. "$(dirname "$0")/../lib/common.sh"

# A VPS image's default layout: vda1 /boot, vda2 the LVM PV (or LUKS).
mk_vps() { # ROOT
	mk_kvm "$1"
	rm -r "$1/sys/devices/virtual/block/dm-0" "$1/sys/block/dm-0" "$1/sys/class/block/dm-0"
	mk_partition "$1" vda vda2
}

# ---- a VPS with LVM on vda ----------------------------------------------------
t=$WORK/lvm
mk_vps "$t"
mk_dm "$t" dm-0 LVM-Xq0aXJ9f0ZbGnR2cLxW6c1dHmWm7uPq8 vg0-root 8192 ../../vda/vda2
OUT=$("$ET" plan --wide --only block --root "$t" 2>&1 | tr -s ' ')
contains "lvm: the LV's read-ahead is capped like the disk's" "dm-0 queue/read_ahead_kb 8192 1024 change stacked disk (dm-0 (vg0-root) on vda (virtual))"
contains "lvm: the reason is the profile's" "the same cap as the virtual or NVMe disks under it"
lacks "lvm: no scheduler for the LV" "dm-0 queue/scheduler"
contains "lvm: the disk is still capped" "vda queue/read_ahead_kb 8192 1024 change"
OUT=$("$ET" plan --wide --json --only block --root "$t" 2>&1)
json_ok "lvm: JSON plan"
check_rc "lvm: apply" 0 -- "$ET" apply --wide --only block --root "$t"
eq "lvm: dm-0 read_ahead_kb written" "$(cat "$t/sys/block/dm-0/queue/read_ahead_kb")" 1024
check_rc "lvm: verify holds" 0 -- "$ET" verify --wide --only block --root "$t"
check_rc "lvm: revert" 0 -- "$ET" revert --wide --root "$t"
eq "lvm: dm-0 read_ahead_kb restored" "$(cat "$t/sys/block/dm-0/queue/read_ahead_kb")" 8192

# ---- a VPS with LUKS on vda, and an LV inside it ------------------------------
t=$WORK/luks
mk_vps "$t"
mk_dm "$t" dm-0 CRYPT-LUKS2-0f1e2d3c4b5a69788796a5b4c3d2e1f0-luks-0f1e luks-0f1e 4096 ../../vda/vda2
mk_dm "$t" dm-1 LVM-Xq0aXJ9f0ZbGnR2cLxW6c1dHmWm7uPq8 vg0-root 8192 ../../dm-0
OUT=$("$ET" plan --wide --only block --root "$t" 2>&1 | tr -s ' ')
contains "luks: the map is capped" "dm-0 queue/read_ahead_kb 4096 1024 change stacked disk (dm-0 (luks-0f1e) on vda (virtual))"
contains "luks: the LV inside it is followed to vda" "dm-1 queue/read_ahead_kb 8192 1024 change stacked disk (dm-1 (vg0-root) on vda (virtual))"
eq "luks: no scheduler item for dm-0 or dm-1" "$(printf '%s\n' "$OUT" | grep -c 'dm-[01] .*queue/scheduler')" 0

# ---- not ready yet: the add event skips, the change event tunes --------------
_attr "$t/sys/devices/virtual/block/dm-1/dm/suspended" 1
check_rc "not ready: --boot apply exits 0" 0 -- "$ET" --boot apply --device dm-1 --root "$t"
eq "not ready: nothing written" "$(cat "$t/sys/block/dm-1/queue/read_ahead_kb")" 8192
OUT=$("$ET" plan --wide --device dm-1 --root "$t" 2>&1)
contains "not ready: the reason says so" "is not ready (dm/suspended=1: its table is not live until it resumes): tuned on the change event when it is"
# without a section for it, nothing waits for the change event either
OUT=$("$ET" plan --wide --profile none --device dm-1 --root "$t" 2>&1)
contains "not ready, no section: says nothing applies" "stacked disk (dm-1 (vg0-root) on vda (virtual)): no [block] section matches it, so nothing applies"
lacks "not ready, no section: promises no tuning on the change event" "tuned on the change event"
_attr "$t/sys/devices/virtual/block/dm-1/dm/suspended" 0
check_rc "change event: --boot apply exits 0" 0 -- "$ET" --boot apply --device dm-1 --root "$t"
eq "change event: dm-1 read-ahead set" "$(cat "$t/sys/block/dm-1/queue/read_ahead_kb")" 1024
_attr "$t/sys/devices/virtual/block/dm-1/size" 0
OUT=$("$ET" plan --wide --device dm-1 --root "$t" 2>&1)
contains "size 0: skipped with the reason" "is not ready (size 0: no table or array behind it yet)"
"$ET" revert --wide --root "$t" >/dev/null 2>&1

# ---- a multipath box: maps on spinning and on SSD paths ---------------------
t=$WORK/mpath
mk_mpath "$t"
OUT=$("$ET" plan --wide --only block --root "$t" 2>&1 | tr -s ' ')
contains "mpath: the map on spinning paths gets their read-ahead floor" "dm-0 queue/read_ahead_kb 128 1024 change stacked disk (dm-0 (multipath mpatha) on paths sda (hdd), sdb (hdd)): the filesystem reads ahead through this map (multipath, LV, LUKS), not the spinning paths"
contains "mpath: the map on SSD paths gets their cap" "dm-1 queue/read_ahead_kb 4096 1024 change stacked disk (dm-1 (multipath mpathb) on paths sdc (ssd), sdd (ssd)): the filesystem reads ahead through this map (multipath, LV, LUKS), not the SSD paths"
lacks "mpath: a map gets no scheduler, though request-based dm has the file" "dm-0 queue/scheduler"
lacks "mpath: nor the SSD map" "dm-1 queue/scheduler"
contains "mpath: a spinning path is tuned as a disk" "sda queue/scheduler mq-deadline bfq change hdd disk (physical sd disk, rotational=1)"
contains "mpath: both spinning paths are" "sdb queue/read_ahead_kb 128 1024 change hdd disk (physical sd disk, rotational=1)"
contains "mpath: an SSD path is tuned as a disk" "sdd queue/read_ahead_kb 4096 1024 change ssd disk (physical sd disk, rotational=0)"
eq "mpath: every disk is planned" "$(printf '%s\n' "$OUT" | awk '$1 == "block" { print $2 }' | sort -u | tr '\n' ' ')" "dm-0 dm-1 sda sdb sdc sdd "

# ---- md RAID: on SSDs nothing applies (the stacked-ssd section is dm only),
# an LV on top is followed down to the SSDs; on virtio disks it is capped ----
t=$WORK/mdsrv
mk_mdsrv "$t"
OUT=$("$ET" plan --wide --only block --root "$t" 2>&1 | tr -s ' ')
md_ssd="md0 - - - skip md software RAID, stacked disk (md0 on sda (ssd), sdb (ssd)): no [block] section matches it, so nothing applies (sections for other classes: virtual, nvme-one-queue, ssd, hdd, raid; stacked-virtual needs match.slave_class = virtual nvme; stacked-ssd needs match.name = dm-*; stacked-hdd needs match.slave_class = hdd)"
contains "md on SSDs: one line says why nothing applies" "$md_ssd"
eq "md on SSDs: and only that line" "$(printf '%s\n' "$OUT" | grep -c '^block md0 ')" 1
contains "md on SSDs: the LV on md0 is followed down to the SSDs" "dm-0 queue/read_ahead_kb 8192 1024 change stacked disk (dm-0 (vg0-root) on sda (ssd), sdb (ssd)): the filesystem reads ahead through this map"
contains "md on SSDs: the SSDs are tuned" "sda queue/scheduler mq-deadline mq-deadline keep ssd disk (physical sd disk, rotational=0)"
check_rc "md on SSDs: --device md0 exits 0" 0 -- "$ET" plan --wide --only block --root "$t" --device md0
OUT=$(printf '%s\n' "$OUT" | tr -s ' ')
contains "md on SSDs: --device md0 prints the same line" "$md_ssd"
check_rc "md on SSDs: --boot apply --device md0 exits 0" 0 -- "$ET" --boot apply --root "$t" --device md0
eq "md on SSDs: nothing written" "$(cat "$t/sys/block/md0/queue/read_ahead_kb")" 128

t=$WORK/mdvps
mk_mdvps "$t"
OUT=$("$ET" plan --wide --only block --root "$t" 2>&1 | tr -s ' ')
contains "md on virtio: capped like its disks" "md0 queue/read_ahead_kb 2048 1024 change stacked disk (md0 on vdb (virtual), vdc (virtual)): the filesystem reads ahead through this device, not the disks: the same cap as the virtual or NVMe disks under it"
lacks "md on virtio: no scheduler for md" "md0 queue/scheduler"
check_rc "md on virtio: apply --device md0" 0 -- "$ET" apply --wide --root "$t" --device md0
eq "md on virtio: md0 read_ahead_kb written" "$(cat "$t/sys/block/md0/queue/read_ahead_kb")" 1024
check_rc "md on virtio: revert" 0 -- "$ET" revert --wide --root "$t"
eq "md on virtio: md0 read_ahead_kb restored" "$(cat "$t/sys/block/md0/queue/read_ahead_kb")" 2048

# ---- for real: LVM and LUKS on loop devices -----------------------------------
real_skip() { skip "real LVM and LUKS" "$1"; exit 0; }
[ "$(id -u)" = 0 ] || real_skip "needs root"
for c in unshare losetup dmsetup pvcreate vgcreate lvcreate cryptsetup; do
	need "$c is installed (lvm2, cryptsetup-bin: .ci/bootstrap)" command -v "$c"
done
modprobe -q dm_mod 2>/dev/null
modprobe -q dm_crypt 2>/dev/null
grep -qw device-mapper /proc/misc || real_skip "this kernel has no device-mapper"

# No udev in a container: libdevmapper makes the nodes itself.
export DM_DISABLE_UDEV=1
tag=et$$x$(date +%s)
VG=${tag}vg
CRYPT=${tag}luks
L1= L2= LV=
real_cleanup() {
	[ -n "$LV" ] && lvremove -q -y "$LVMCONF" "$VG/lv" >/dev/null 2>&1
	vgs "$LVMCONF" "$VG" >/dev/null 2>&1 && vgremove -q -y "$LVMCONF" "$VG" >/dev/null 2>&1
	[ -n "$L1" ] && pvremove -q -y "$LVMCONF" "$L1" >/dev/null 2>&1
	dmsetup info "$CRYPT" >/dev/null 2>&1 && cryptsetup close "$CRYPT" >/dev/null 2>&1
	[ -n "$L1" ] && losetup -d "$L1"
	[ -n "$L2" ] && losetup -d "$L2"
	return 0
}
host_lock
at_exit real_cleanup
truncate -s 64M "$WORK/pv.img" "$WORK/luks.img"
L1=$(losetup --show -f "$WORK/pv.img") || real_skip "no free loop device"
L2=$(losetup --show -f "$WORK/luks.img") || real_skip "no second free loop device"
# Only our two loop devices are ever scanned: vda and the host's disks are not.
LVMCONF="--config=devices { filter = [ \"a|^$L1\$|\", \"r|.*|\" ] use_devicesfile = 0 } activation { udev_sync = 0 udev_rules = 0 }"
pvcreate -q "$LVMCONF" "$L1" >/dev/null && vgcreate -q "$LVMCONF" "$VG" "$L1" >/dev/null &&
	lvcreate -q -y "$LVMCONF" -n lv -L 16M "$VG" >/dev/null && LV=$VG/lv
eq "real: LVM volume created on $L1" "${LV:-none}" "$VG/lv"
head -c 64 /dev/urandom >"$WORK/key"
cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 --key-file "$WORK/key" "$L2" &&
	cryptsetup open --key-file "$WORK/key" "$L2" "$CRYPT"
eq "real: LUKS map opened on $L2" "$(dmsetup info -c --noheadings -o name "$CRYPT" 2>/dev/null | tr -d ' ')" "$CRYPT"
D1=dm-$(dmsetup info -c --noheadings -o minor "$VG-lv" 2>/dev/null | tr -d ' ')
D2=dm-$(dmsetup info -c --noheadings -o minor "$CRYPT" 2>/dev/null | tr -d ' ')
[ -e "/sys/block/$D1" ] && [ -e "/sys/block/$D2" ] || { fail "real: dm devices of the LV and the map exist"; exit 1; }

r=$WORK/root
mkdir -p "$r/sys" "$r/proc" "$r/run" "$r/dev"
cat >"$WORK/stacked.conf" <<CONF
[block "ours"]
match.class = stacked
match.slave_class = loop
match.name = $D1 $D2
# a value neither LVM nor cryptsetup sets
read_ahead_kb = 640
CONF
before1=$(cat "/sys/block/$D1/queue/read_ahead_kb")
before2=$(cat "/sys/block/$D2/queue/read_ahead_kb")
inroot() { unshare -m sh -c "mount --bind /sys '$r/sys' && mount --bind /proc '$r/proc' && $*"; }
run() { inroot "'$ET' $* --wide --profile none --config '$WORK/stacked.conf' --root '$r' --device $D1 --device $D2"; }

OUT=$(run plan 2>&1)
contains "real: the LV is stacked on its loop device" "stacked disk ($D1 ($VG-lv) on ${L1#/dev/} (loop))"
contains "real: the LUKS map is stacked on its loop device" "stacked disk ($D2 ($CRYPT) on ${L2#/dev/} (loop))"
lacks "real: no scheduler item" "queue/scheduler"
OUT=$(run apply 2>&1)
eq "real: apply exits 0" "$?" 0
eq "real: LV read-ahead set" "$(cat "/sys/block/$D1/queue/read_ahead_kb")" 640
eq "real: LUKS map read-ahead set" "$(cat "/sys/block/$D2/queue/read_ahead_kb")" 640
OUT=$(run verify 2>&1)
eq "real: verify holds" "$?" 0
OUT=$(inroot "'$ET' revert --root '$r'" 2>&1)
eq "real: revert exits 0" "$?" 0
eq "real: LV read-ahead restored" "$(cat "/sys/block/$D1/queue/read_ahead_kb")" "$before1"
eq "real: LUKS map read-ahead restored" "$(cat "/sys/block/$D2/queue/read_ahead_kb")" "$before2"
