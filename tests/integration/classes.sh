# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 9: the class of each disk of real captured trees (../shared/fixtures/
# real-sysfs, unpacked at test time), through plan --json's "class" field.
. "$(dirname "$0")/../lib/common.sh"

fx=$(real_sysfs_dir) || { fail "the real-sysfs captures of ../shared/fixtures are beside the checkout"; exit 1; }

# Every disk gets one item from a section that matches every class.
printf '[block "all"]\nmatch.class = *\nread_ahead_kb = 64\n' >"$WORK/all.conf"
classes() { # ROOT → "name=class" of every planned disk
	"$ET" plan --json --only block --profile none --config "$WORK/all.conf" --root "$1" 2>/dev/null |
		python3 -c 'import json, sys
for it in json.load(sys.stdin)["items"]:
    print(it["target"] + "=" + str(it.get("class")))' | sort
}
reason_of() { # ROOT DISK
	"$ET" plan --wide --only block --profile none --config "$WORK/all.conf" --root "$1" 2>/dev/null | awk -v d="$2" '$2 == d'
}

# systemd's test/sys-script.py: a 2.6-era laptop. sda (a laptop HDD) has no
# queue/rotational: unknown, never ssd. sdb is a USB flash stick.
mkdir -p "$WORK/sd"
tar -C "$WORK/sd" -xf "$fx/systemd-sys-script.tar.xz"
got=$(classes "$WORK/sd")
for want in sda=unknown sdb=removable sr0=other md0=stacked loop0=loop; do
	case "
$got
" in *"
$want
"*) pass "systemd laptop: $want" ;; *) fail "systemd laptop: $want" "$got" ;; esac
done
OUT=$(reason_of "$WORK/sd" sda)
contains "systemd laptop: sda's reason says what is missing" "no queue/rotational: spinning or solid-state is unknown"
lacks "systemd laptop: no empty rotational=" "rotational=)"
OUT=$(reason_of "$WORK/sd" sdb)
contains "systemd laptop: sdb is USB mass storage by its host's driver" "USB mass storage: SCSI host driver usb-storage"
OUT=$("$ET" plan --wide --root "$WORK/sd" 2>&1 | awk '$1 == "block" && $6 != "skip" { print $2 }' | sort -u | tr '\n' ' ')
eq "systemd laptop: the vps profile tunes neither the USB stick nor the unknown disk" "$OUT" ""
# each disk it leaves alone gets one line saying so, for its class (--verbose:
# the table groups alike skips of many devices, loop0..loop7, into one row)
OUT=$("$ET" plan --wide --verbose --root "$WORK/sd" 2>&1 | awk '$1 == "block" && $3 == "-" && $6 == "skip" { print $2 }' | sort | tr '\n' ' ')
eq "systemd laptop: one skip line per disk no section matches" "$OUT" "loop0 loop1 loop2 loop3 loop4 loop5 loop6 loop7 md0 sda sdb sr0 "
OUT=$("$ET" plan --wide --root "$WORK/sd" 2>&1 | awk '$1 == "block" && $2 == "sda"')
contains "systemd laptop: sda's skip says its class and that no section is for it" "unknown disk (physical sd disk, no queue/rotational: spinning or solid-state is unknown): no [block] section matches it, so nothing applies (sections for other classes: virtual, nvme-one-queue, ssd, hdd, raid, stacked-virtual, stacked-ssd, stacked-hdd)"

# util-linux's Fedora 27 dump: a SATA SSD and an HDD on bare metal.
tar -C "$WORK" -xf "$fx/lsblk-simple-nvme.tar.xz"
got=$(classes "$WORK/simple-nvme")
eq "simple-nvme: classes" "$got" "$(printf 'nvme0n1=nvme\nsda=ssd\nsdb=hdd')"

# The legacy single-queue list of 4.16 is the old block layer, not modules.
OUT=$("$ET" plan --wide --root "$WORK/simple-nvme" --device sda 2>&1 | awk '$3 == "queue/scheduler"')
contains "simple-nvme: sda's legacy list is the legacy block layer" "legacy single-queue block layer"
lacks "simple-nvme: and no module is blamed" "not found"
# No sys/class/block in this dump: the partition still names its disk.
check_rc "simple-nvme: --device sda1 exits 0" 0 -- "$ET" plan --wide --root "$WORK/simple-nvme" --device sda1
contains "simple-nvme: sda1 is a partition of sda" "'sda1' is a partition of 'sda'"

# --device on what no section matches: one line saying what it is.
for pair in "sr0 an optical drive" "md0 md software RAID" "loop0 a loop device"; do
	set -- $pair
	dev=$1; shift
	OUT=$("$ET" plan --wide --root "$WORK/sd" --device "$dev" 2>&1 | awk '$1 == "block"')
	eq "systemd laptop: --device $dev prints one line" "$(printf '%s\n' "$OUT" | grep -c .)" 1
	contains "systemd laptop: --device $dev says what it is" "$*"
	contains "systemd laptop: --device $dev says why nothing applies" "no [block] section matches it"
done

# ---- issue 26: what a storage engineer would say of each device ----------
class_of() { # ROOT DISK → its class in plan --json (every disk, section "all")
	"$ET" plan --json --only block --profile none --config "$WORK/all.conf" --root "$1" 2>/dev/null |
		python3 -c 'import json, sys
for it in json.load(sys.stdin)["items"]:
    if it["target"] == sys.argv[1]:
        print(it["class"]); break' "$2"
}
vps_line() { # ROOT DISK SETTING → the vps plan's row (wide; each item, not grouped)
	"$ET" plan --wide --verbose --only block --root "$1" 2>/dev/null | awk -v d="$2" -v s="$3" '$2 == d && $3 == s'
}

for pair in pcie:tree-pcie apple:tree-apple cfg:config-pcie; do
	mkdir -p "$WORK/nvme-${pair%:*}"
	tar -C "$WORK/nvme-${pair%:*}" -xf "$fx/nvme-${pair#*:}.tar.xz"
done

# 1. RAID volumes whatever source names the HBA: proc_name under the disk's
# own device path (no sys/class/scsi_host), the HBA's PCI driver, the
# volume's vendor/model; none of them gets bfq. A disk passed through stays hdd.
mk_raidhba "$WORK/raidhba"
for pair in sda:raid sdb:raid sdc:raid sdd:raid sde:hdd; do
	eq "raidhba: ${pair%:*} is ${pair#*:}" "$(class_of "$WORK/raidhba" "${pair%:*}")" "${pair#*:}"
done
OUT=$(vps_line "$WORK/raidhba" sda queue/scheduler)
contains "raidhba: sda, proc_name read under its device path" "SCSI host driver megaraid_sas, channel 2"
OUT=$(vps_line "$WORK/raidhba" sdb queue/scheduler)
contains "raidhba: sdb, the HBA's driver from its PCI function" "HBA driver megaraid_sas (of 0000:02:00.0), channel 2"
OUT=$(vps_line "$WORK/raidhba" sdc queue/scheduler)
contains "raidhba: sdc, by its model" "vendor 'HP', model 'LOGICAL VOLUME'"
OUT=$("$ET" plan --wide --only block --root "$WORK/raidhba" 2>&1 | awk '$3 == "queue/scheduler" && $5 == "bfq" { print $2 }' | tr '\n' ' ')
eq "raidhba: bfq only for the disk passed through" "$OUT" "sde "

# 2. none is for more than one hardware queue or a hypervisor-served disk:
# Apple's one-queue NVMe (a real capture) keeps mq-deadline, and says why.
OUT=$(vps_line "$WORK/nvme-apple" nvme0n1 queue/scheduler)
contains "nvme-tree-apple: one hardware queue keeps mq-deadline" "mq-deadline mq-deadline keep"
contains "nvme-tree-apple: the reason names the rule" "one hardware queue (only mq/0)"
mk_nvmesq "$WORK/nvmesq"
OUT=$(vps_line "$WORK/nvmesq" nvme0n1 queue/scheduler)
contains "nvmesq: 8 hardware queues: none, saying so" "none        none        keep   nvme disk (kernel name nvme0n1, model 'SAMSUNG MZVL21T0HCLR-00BL2', 8 hardware queues)"
OUT=$(vps_line "$WORK/nvmesq" nvme1n1 queue/scheduler)
contains "nvmesq: one hardware queue: mq-deadline kept" "mq-deadline mq-deadline keep"

# 3. Virtual NVMe, by model or by PCI IDs alone: QEMU (a real capture and
# fake trees), EC2 EBS and instance storage, Google, Microsoft.
for d in nvme0n1 nvme1n1; do
	eq "nvme-config-pcie: QEMU NVMe Ctrl $d is virtual" "$(class_of "$WORK/nvme-cfg" $d)" virtual
done
mk_vnvme "$WORK/vnvme"
for d in nvme0n1 nvme1n1 nvme2n1 nvme3n1; do
	eq "vnvme: $d is virtual" "$(class_of "$WORK/vnvme" $d)" virtual
done
OUT=$(vps_line "$WORK/vnvme" nvme1n1 queue/read_ahead_kb)
contains "vnvme: QEMU's controller by PCI IDs alone" "QEMU NVMe controller: NVMe controller PCI 1b36:0010"
mk_ec2nodmi "$WORK/ec2"
for d in nvme0n1 nvme1n1; do
	eq "ec2nodmi: $d is virtual" "$(class_of "$WORK/ec2" $d)" virtual
done
OUT=$("$ET" cmdline --root "$WORK/ec2" 2>&1)
contains "ec2nodmi: the platform is guessed from the NVMe controllers" "platform aws, guessed from NVMe controller nvme0: PCI vendor 0x1d0f (Amazon)"
contains "ec2nodmi: so the EC2 cloud rule applies" "nvme_core.io_timeout=4294967295"

# 4. Hidden NVMe multipath path nodes (real captures): their read-ahead is
# the head's, so theirs is a skip saying so; the scheduler stays theirs.
for d in nvme1c1n1 nvme1c2n1; do
	OUT=$(vps_line "$WORK/nvme-pcie" $d queue/read_ahead_kb)
	contains "nvme-tree-pcie: $d read-ahead is a skip" " skip "
	contains "nvme-tree-pcie: $d names its head" "hidden NVMe multipath path: reads go through its head nvme1n1"
done
OUT=$(vps_line "$WORK/nvme-cfg" nvme0c0n1 queue/read_ahead_kb)
contains "nvme-config-pcie: hidden nvme0c0n1 reads ahead through nvme0n1" "reads go through its head nvme0n1"

# 5. dm without dm/ but with a size is a live map; size 0 or suspended is not ready.
mk_dmlive "$WORK/dmlive"
eq "dmlive: dm-0 (no dm/, 15 GiB) is stacked" "$(class_of "$WORK/dmlive" dm-0)" stacked
OUT=$(vps_line "$WORK/dmlive" dm-0 queue/read_ahead_kb)
contains "dmlive: dm-0 is capped like any LV" "8192    1024      change stacked disk (dm-0 on vda (virtual))"
OUT=$(vps_line "$WORK/dmlive" dm-1 queue/read_ahead_kb)
contains "dmlive: dm-1 of size 0 is not ready" "is not ready (size 0"
OUT=$(vps_line "$WORK/dmlive" dm-2 queue/read_ahead_kb)
contains "dmlive: dm-2 suspended is not ready" "is not ready (dm/suspended=1"

# 6. A missing queue/read_ahead_kb is the tree's gap: md and dm have one.
OUT=$(vps_line "$WORK/dmlive" md0 queue/read_ahead_kb)
contains "dmlive: md0's missing read_ahead_kb is named as missing" "this tree has no queue/read_ahead_kb for md0"
lacks "dmlive: not blamed on a bio-based queue" "bio-based queue (no I/O scheduler) has no"

# 7. Kernel test drivers: other, left alone, reason given (a real capture's
# scsi_debug disk, and fake null_blk, nvmet loop and tcm_loop devices).
tar -C "$WORK" -xf "$fx/lsblk-multi-devs-bcachefs.tar.xz"
eq "multi-devs-bcachefs: the scsi_debug disk sdc is other" "$(class_of "$WORK/multi-devs-bcachefs" sdc)" other
OUT=$("$ET" plan --wide --only block --root "$WORK/multi-devs-bcachefs" 2>&1 | awk '$2 == "sdc"')
eq "multi-devs-bcachefs: sdc gets one line, a skip" "$(printf '%s\n' "$OUT" | awk '{ print $3, $6 }')" "- skip"
contains "multi-devs-bcachefs: sdc's reason names scsi_debug" "a kernel test device: the device path runs through pseudo_0 (scsi_debug)"
mk_testdevs "$WORK/testdevs"
for d in sda sdb nullb0 nvme1n1; do
	eq "testdevs: $d is other" "$(class_of "$WORK/testdevs" $d)" other
	OUT=$("$ET" plan --wide --only block --root "$WORK/testdevs" 2>&1 | awk -v d=$d '$2 == d')
	eq "testdevs: $d is left alone (one skip line)" "$(printf '%s\n' "$OUT" | awk '{ print $3, $6 }')" "- skip"
	contains "testdevs: $d's reason says it is a test device" "a kernel test device"
done
