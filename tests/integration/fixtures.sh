# SPDX-License-Identifier: LGPL-2.1-or-later
# Real sysfs trees captured by other projects (../shared/fixtures/real-sysfs),
# unpacked at test time. earlytune must cope with trees it was not designed
# around, and what it reads must agree with what lsblk recorded from them.
. "$(dirname "$0")/../lib/common.sh"

fx=$(real_sysfs_dir) || { fail "the real-sysfs captures of ../shared/fixtures are beside the checkout"; exit 1; }

# lsblk's recorded column COL for whole disks → "name=value" lines.
lsblk_col() { # FILE COL
	# Empty cells (PKNAME of a whole disk) shift later fields: the last
	# column is taken as the last field.
	awk -v col="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; last = NF; next }
		$1 !~ /^[|`]/ && c { print $1 "=" (c == last ? $NF : $c) }' "$1"
}

# Our reading of SETTING for every disk we planned → "name=value" lines.
our_col() { # JSON SETTING
	printf '%s' "$1" | python3 -c 'import json, sys
for it in json.load(sys.stdin)["items"]:
    if it["setting"] == sys.argv[1] and it["current"] is not None:
        print(it["target"] + "=" + it["current"])' "$2"
}

for name in simple-nvme simple-lvm multi-devs-bcachefs; do
	tar -C "$WORK" -xf "$fx/lsblk-$name.tar.xz"
	t=$WORK/$name
	check_rc "$name: plan exits 0" 0 -- "$ET" plan --json --root "$t"
	json_ok "$name: JSON is valid"
	json=$OUT
	for pair in "queue/read_ahead_kb RA rw" "queue/scheduler SCHED state"; do
		set -- $pair
		ours=$(our_col "$json" "$1" | sort)
		theirs=$(lsblk_col "$t/lsblk-$name-$3" "$2" | sort | join -t= - "$(our_col "$json" "$1" | sort >"$WORK/ours"; echo "$WORK/ours")" -o 1.1,1.2 | tr ' ' '=')
		[ -n "$ours" ]; eq "$name: earlytune read $1 of some disks" $? 0
		eq "$name: $1 agrees with lsblk's $2 column" "$ours" "$theirs"
	done
	before=$(snapshot "$t")
	check_rc "$name: apply on the captured tree" 0 -- "$ET" apply --root "$t"
	# Old captured kernels lack what the profile wants (blk-mq, THP, BBR):
	# unmet, exit 1; but nothing applied may have drifted.
	"$ET" verify --root "$t" >"$WORK/v" 2>&1
	rc=$? OUT=$(cat "$WORK/v")
	contains "$name: verify after apply: nothing drifted" " 0 drifted, "
	# What the capture does not show is unknown: not in force either.
	case $OUT in *" 0 unmet,"*) want=0 ;; *) want=1 ;; esac
	case $OUT in *" unknown"*) want=1 ;; esac
	eq "$name: verify exits 1 exactly when something is unmet or unknown" $rc $want
	check_rc "$name: revert" 0 -- "$ET" revert --root "$t"
	eq "$name: revert restores the captured values" "$(snapshot "$t")" "$before"
done

# A fresh copy: the apply and revert above leave the fake scheduler files
# holding one word.
mkdir -p "$WORK/legacy"
tar -C "$WORK/legacy" -xf "$fx/lsblk-simple-nvme.tar.xz"
t=$WORK/legacy/simple-nvme
# 4.16's legacy queues: the profile's choice per class, mapped to what the
# queue offers, the mapping said.
OUT=$("$ET" plan --wide --root "$t" 2>&1 | awk '$3 == "queue/scheduler" { print $2, $4, $5, $6 }')
eq "4.16: SSD on the legacy queue gets deadline, HDD keeps cfq, NVMe none" "$OUT" \
	"$(printf 'nvme0n1 none none keep\nsda cfq deadline change\nsdb cfq cfq keep')"
OUT=$("$ET" plan --wide --root "$t" --device sda 2>&1)
contains "4.16: sda says mq-deadline → deadline" "[mq-deadline → deadline, its counterpart on the legacy single-queue block layer (before 5.0)]"
OUT=$("$ET" plan --wide --root "$t" --device sdb 2>&1)
contains "4.16: sdb says bfq → cfq" "[bfq → cfq, its counterpart on the legacy single-queue block layer (before 5.0)]"
# A configuration written for the legacy block layer.
printf '[block]\nscheduler = noop\n' >"$WORK/noop.conf"
check_rc "4.16: scheduler = noop is accepted" 0 -- "$ET" config --root "$t" --profile none --config "$WORK/noop.conf"
OUT=$("$ET" plan --wide --root "$t" --profile none --config "$WORK/noop.conf" 2>&1 | awk '$3 == "queue/scheduler" { print $2, $5, $6 }')
eq "4.16: noop where offered; unmet on the blk-mq NVMe" "$OUT" "$(printf 'nvme0n1 - skip\nsda noop change\nsdb noop change')"
OUT=$("$ET" plan --wide --root "$t" --profile none --config "$WORK/noop.conf" --device nvme0n1 2>&1)
contains "4.16: the NVMe's skip names blk-mq's counterpart" "noop is the legacy block layer's (before 5.0): a blk-mq queue has none"
before=$(snapshot "$t")
check_rc "4.16: apply noop" 0 -- "$ET" apply --root "$t" --profile none --config "$WORK/noop.conf" --device sda
eq "4.16: sda's scheduler file got noop" "$(cat "$t/sys/block/sda/queue/scheduler")" noop
check_rc "4.16: revert" 0 -- "$ET" revert --root "$t"
eq "4.16: revert restores the captured values" "$(snapshot "$t")" "$before"
OUT=$("$ET" plan --wide --root "$WORK/multi-devs-bcachefs" 2>&1)
contains "6.17 HDD with 8192 KiB read-ahead is capped to 4096" "8192    4096"
OUT=$("$ET" plan --json --root "$WORK/simple-lvm" 2>&1 | python3 -c 'import json, sys
for it in json.load(sys.stdin)["items"]:
    if it["target"] == "dm-0":
        print(it["setting"], it["action"], it["reason"])')
# an LV on loop devices: no vps section is for stacked-on-loop
eq "LVM dm-0: one line, a skip" "$(printf '%s\n' "$OUT" | cut -d' ' -f1,2)" "- skip"
contains "LVM dm-0: the reason names its loop devices" "on loop0 (loop), loop1 (loop), loop2 (loop), loop3 (loop)"
contains "LVM dm-0: and why no stacked section matches" "stacked-virtual needs match.slave_class = virtual nvme"

# libnvme's captures have no sys/block: the disks are found under sys/devices.
for name in pcie apple; do
	mkdir -p "$WORK/nvme-$name"
	tar -C "$WORK/nvme-$name" -xf "$fx/nvme-tree-$name.tar.xz"
done
t=$WORK/nvme-pcie
check_rc "nvme-tree-pcie: plan exits 0" 0 -- "$ET" plan --only block --root "$t"
contains "nvme-tree-pcie: multipath path node found without sys/block" "nvme1c1n1 queue/scheduler"
contains "nvme-tree-pcie: the second path node too" "nvme1c2n1 queue/scheduler"
contains "nvme-tree-pcie: the head node has no scheduler: skip with the reason" "NVMe multipath head"
before=$(snapshot "$t")
check_rc "nvme-tree-pcie: apply" 0 -- "$ET" apply --only block --root "$t"
check_rc "nvme-tree-pcie: verify" 0 -- "$ET" verify --only block --root "$t"
check_rc "nvme-tree-pcie: --device finds a disk without sys/block" 0 -- "$ET" plan --root "$t" --device nvme1c2n1
contains "nvme-tree-pcie: --device plans that disk" "nvme1c2n1"
check_rc "nvme-tree-pcie: revert" 0 -- "$ET" revert --root "$t"
eq "nvme-tree-pcie: revert restores the captured values" "$(snapshot "$t")" "$before"
# Attributes padded with NULs, as this capture has them, read as their value.
check_rc "nvme-tree-apple: plan exits 0" 0 -- "$ET" plan --only block --root "$WORK/nvme-apple"
contains "nvme-tree-apple: NUL-padded read-ahead reads 128 (kept)" "queue/read_ahead_kb 128         128         keep"
