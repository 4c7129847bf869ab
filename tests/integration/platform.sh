# SPDX-License-Identifier: LGPL-2.1-or-later
# The platform guessed where there is no DMI: the device tree of an arm64
# machine booted without UEFI (QEMU's virt machine, a Xen guest, a board),
# read through the root as every path; DMI and a cloud's NVMe controller
# speak first; a device tree that cannot be read is an error, never
# "unknown". The platform line (cmdline) and the JSON say where it came from.
. "$(dirname "$0")/../lib/common.sh"

# dt ROOT FILE ENTRY…: a device-tree property as the kernel shows it (each
# entry NUL-terminated) under sys/firmware/devicetree/base, which
# /proc/device-tree links to
dt() {
	_f=$1/sys/firmware/devicetree/base/$2
	shift 2
	mkdir -p "$(dirname "$_f")"
	printf '%s\0' "$@" >"$_f"
}
platform_of() { # ROOT → name how from, from cmdline --json
	OUT=$("$ET" cmdline --json --root "$1" 2>/dev/null)
	printf '%s' "$OUT" | python3 -c 'import json, sys
p = json.load(sys.stdin)["platform"]
print(p["name"], p["how"], p["from"])'
}

# QEMU's virt machine given -kernel: the golden model's tree (real capture).
t=$WORK/virt
mk_arm64dt "$t"
check_rc "virt: cmdline exits 0" 0 -- "$ET" cmdline --root "$t"
contains "virt: the platform line names the device tree" \
	"platform generic, guessed from proc/device-tree/compatible 'linux,dummy-virt'; --platform to say"
lacks "virt: not unknown" "platform unknown"
eq "virt: JSON" "$(platform_of "$t")" "generic guessed proc/device-tree/compatible 'linux,dummy-virt'"
check_rc "virt: --platform aws is taken as given" 0 -- "$ET" cmdline --root "$t" --platform aws
lacks "virt: --platform: nothing guessed" "guessed"

# A Xen guest on arm64: the hypervisor node speaks before the machine's own
# compatible strings (xen,xenvm-4.17 xen,xenvm).
t=$WORK/xen
mk_arm64dt "$t"
dt "$t" compatible xen,xenvm-4.17 xen,xenvm
dt "$t" hypervisor/compatible xen,xen-4.17 xen,xen
eq "xen: the hypervisor node names it" "$(platform_of "$t")" "generic guessed proc/device-tree/hypervisor/compatible 'xen,xen-4.17'"

# A board (a Raspberry Pi 4 as a small server): its first compatible entry.
t=$WORK/board
mk_arm64dt "$t"
dt "$t" compatible raspberrypi,4-model-b brcm,bcm2711
eq "board: its model's compatible entry" "$(platform_of "$t")" "generic guessed proc/device-tree/compatible 'raspberrypi,4-model-b'"

# DMI first: an arm64 guest booted through UEFI has both.
t=$WORK/dmi
mk_arm64dt "$t"
_attr "$t/sys/class/dmi/id/sys_vendor" "QEMU"
eq "UEFI guest: DMI speaks first" "$(platform_of "$t")" "generic guessed sys/class/dmi/id/sys_vendor 'QEMU'"
_attr "$t/sys/class/dmi/id/sys_vendor" "Amazon EC2"
eq "UEFI guest on EC2: aws from DMI" "$(platform_of "$t")" "aws guessed sys/class/dmi/id/sys_vendor 'Amazon EC2'"

# A cloud's NVMe controller, without DMI, before the device tree.
t=$WORK/nvme
mk_arm64dt "$t"
mkdir -p "$t/sys/class/nvme/nvme0/device"
_attr "$t/sys/class/nvme/nvme0/device/vendor" 0x1d0f
eq "no DMI, EC2's NVMe: aws" "$(platform_of "$t")" \
	"aws guessed NVMe controller nvme0: PCI vendor 0x1d0f (Amazon)"

# No device tree either: unknown, as before.
t=$WORK/none
mk_arm64dt "$t"
rm "$t/proc/device-tree"
check_rc "no DMI, no device tree: cmdline exits 0" 0 -- "$ET" cmdline --root "$t"
contains "no DMI, no device tree: unknown, said" "platform unknown (no DMI in this image): cloud rules not applied; give --platform"
t=$WORK/empty
mk_arm64dt "$t"
dt "$t" compatible ""
eq "an empty compatible: unknown" "$(platform_of "$t")" "None unknown no DMI in this image"

# A read that fails for another reason than absence (a directory in place
# of the property: EISDIR, as root too) is an error naming the file.
t=$WORK/unreadable
mk_arm64dt "$t"
rm "$t/sys/firmware/devicetree/base/compatible"
mkdir "$t/sys/firmware/devicetree/base/compatible"
check_rc "unreadable compatible: cmdline exits 1" 1 -- "$ET" cmdline --root "$t"
contains "unreadable compatible: the file is named" "proc/device-tree/compatible"
lacks "unreadable compatible: never unknown" "platform unknown"
