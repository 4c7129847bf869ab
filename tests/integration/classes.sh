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
# each disk it leaves alone gets one line saying so, for its class
OUT=$("$ET" plan --wide --root "$WORK/sd" 2>&1 | awk '$1 == "block" && $3 == "-" && $6 == "skip" { print $2 }' | sort | tr '\n' ' ')
eq "systemd laptop: one skip line per disk no section matches" "$OUT" "loop0 loop1 loop2 loop3 loop4 loop5 loop6 loop7 md0 sda sdb sr0 "
OUT=$("$ET" plan --wide --root "$WORK/sd" 2>&1 | awk '$1 == "block" && $2 == "sda"')
contains "systemd laptop: sda's skip says its class and that no section is for it" "unknown disk (physical sd disk, no queue/rotational: spinning or solid-state is unknown): no [block] section matches it, so nothing applies (sections for other classes: virtual, ssd, hdd, raid, stacked-virtual, stacked-ssd, stacked-hdd)"

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
