# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 8 defect 7 (the part in the kernel probe, DMI and disk matching): a
# read that fails for another reason than ENOENT is an error, never "absent",
# "no match" or "not a VM", and nothing is written on the strength of it.
# A directory where a file should be makes read(2) fail (EISDIR) even as root.
. "$(dirname "$0")/../lib/common.sh"

t=$WORK/cmdline
mk_kvm "$t"
before=$(snapshot "$t")
rm "$t/proc/cmdline"
mkdir "$t/proc/cmdline"
check_rc "unreadable /proc/cmdline: apply exits 2" 2 -- "$ET" apply --wide --root "$t"
contains "unreadable /proc/cmdline: named" "cannot read $t/proc/cmdline: Is a directory; nothing was done"
: >"$t/dev/kmsg"
check_rc "unreadable /proc/cmdline: --boot apply exits 0" 0 -- "$ET" --boot apply --root "$t"
eq "unreadable /proc/cmdline (it may say earlytune=0): nothing written" "$(snapshot "$t")" "$before"
OUT=$(cat "$t/dev/kmsg")
contains "unreadable /proc/cmdline: in the kernel log" "cannot read $t/proc/cmdline: Is a directory"

# A captured tree (no cpuinfo) whose DMI vendor cannot be read: its SCSI disk
# is an error, not a physical disk.
t=$WORK/dmi
mk_metal "$t"
rm "$t/proc/cpuinfo" "$t/sys/class/dmi/id/sys_vendor"
mkdir "$t/sys/class/dmi/id/sys_vendor"
check_rc "unreadable DMI vendor: plan exits 1" 1 -- "$ET" plan --wide --root "$t" --only block
contains "unreadable DMI vendor: the disk says why" "cannot tell whether this is a VM: cannot read /sys/class/dmi/id/sys_vendor: Is a directory"
lacks "unreadable DMI vendor: no guess at the class" "physical"

# A match.model that cannot be read is an error of that disk, not "no match".
t=$WORK/match
mk_metal "$t"
rm -f "$t/sys/devices/virtual/block/sdb/device/model"
mkdir "$t/sys/devices/virtual/block/sdb/device/model"
printf '[block "st"]\nmatch.model = ST*\nread_ahead_kb = 4096\n' >"$WORK/match.conf"
check_rc "unreadable model: plan exits 1" 1 -- "$ET" plan --wide --root "$t" --only block --config "$WORK/match.conf"
contains "unreadable model: named" "cannot read sys/block/sdb/device/model: Is a directory"

# udev's --device NAME whose sys/block entry cannot be looked up (here a
# symlink loop: ELOOP; found by faults.sh as EIO) is a failure of that disk,
# not a missing disk, and not "a partition" because its sys/class/block link
# reads: that skip exited 0 and the disk stayed untuned.
t=$WORK/lookup
mk_kvm "$t"
before=$(snapshot "$t")
ln -sfn vda "$t/sys/block/vda"
check_rc "--device whose lookup fails: apply exits 1" 1 -- "$ET" apply --wide --root "$t" --device vda
contains "--device whose lookup fails: named" "cannot look up 'vda' in $t/sys/block: Too many levels of symbolic links"
lacks "--device whose lookup fails: not taken for a partition" "partition"
: >"$t/dev/kmsg"
check_rc "--device whose lookup fails: --boot apply exits 0" 0 -- "$ET" --boot apply --root "$t" --device vda
OUT=$(cat "$t/dev/kmsg")
contains "--device whose lookup fails: the kernel log counts it failed" "1 failed"
eq "--device whose lookup fails: nothing written" "$(snapshot "$t")" "$before"

# dm-N whose dm/ cannot be looked up (a symlink loop: ELOOP) is an error of
# that disk, not a disk of class "other" tuned as such.
t=$WORK/dmloop
mk_kvm "$t"
rm -rf "$t/sys/devices/virtual/block/dm-0/dm"
ln -s dm "$t/sys/devices/virtual/block/dm-0/dm"
check_rc "dm-0 whose dm/ cannot be looked up: plan exits 1" 1 -- "$ET" plan --wide --root "$t" --only block
contains "dm-0 whose dm/ cannot be looked up: named" "cannot read sys/block/dm-0/dm/name: Too many levels of symbolic links"

# A captured tree without sys/block is searched under sys/devices: a queue
# that cannot be looked up there is an error, not "no disk here".
t=$WORK/walk
mk_kvm "$t"
rm -rf "$t/sys/block" "$t/sys/class/block"
mkdir -p "$t/sys/devices/virtual/block/vdz"
ln -s queue "$t/sys/devices/virtual/block/vdz/queue"
check_rc "a queue that cannot be looked up under sys/devices: plan exits 1" 1 -- "$ET" plan --wide --root "$t" --only block
contains "a queue that cannot be looked up: says why" "Too many levels of symbolic links"
