# SPDX-License-Identifier: LGPL-2.1-or-later
# The interfaces of a --root tree: sys/class/net's entries that are not
# interfaces (bonding_masters, a file) are not items, and every interface
# the selection leaves alone (bond, VLAN, bridge, IPoIB, loopback, a NIC
# without its device link) has a skip line naming the rule; --iface or
# --ifindex of no interface is an error, as --device of no disk.
# Host interfaces (netlink): net.sh.
. "$(dirname "$0")/../lib/common.sh"

t=$WORK/bond
mk_bondhost "$t"
before=$(snapshot "$t")
for cmd in plan apply; do
	check_rc "bonding host: $cmd exits 0 beside bonding_masters" 0 -- "$ET" $cmd --root "$t"
	lacks "bonding host: $cmd: bonding_masters is no item" "bonding_masters"
	lacks "bonding host: $cmd: nothing failed" "error"
done
check_rc "bonding host: revert" 0 -- "$ET" revert --root "$t"
eq "bonding host: revert restores every file" "$(snapshot "$t")" "$before"

# One line per interface, each left alone with its rule; eth0 and eth1 (the
# bond's physical slaves) selected.
OUT=$("$ET" plan --json --root "$t" --only net)
lines=$(printf '%s' "$OUT" | python3 -c 'import json, sys
for it in json.load(sys.stdin)["items"]:
    if it["setting"] == "qdisc":
        print(it["target"], it["action"], it["reason"].split(":")[0].split(" (")[0])')
eq "bonding host: each interface's line" "$lines" "bond0 skip bond0 is a bond, not a physical device
bond0.100 skip bond0.100 is a VLAN, not a physical device
br0 skip br0 is a bridge, not a physical device
eth0 skip netlink reaches only the running kernel, not --root $t
eth1 skip netlink reaches only the running kernel, not --root $t
eth2 skip eth2 is not a physical device
ib0 skip ib0 is IPoIB
lo skip lo is the loopback interface, not a physical device"

# --iface: the interface's own line, whatever excludes it.
check_rc "--iface ib0: exit 0" 0 -- "$ET" plan --wide --root "$t" --iface ib0
contains "--iface ib0: the rule that leaves it alone" "ib0 is IPoIB (InfiniBand), not Ethernet (type 32): the default selection takes Ethernet devices only"
check_rc "--iface bond0.100: exit 0" 0 -- "$ET" plan --wide --root "$t" --iface bond0.100
contains "--iface bond0.100: a VLAN" "bond0.100 is a VLAN, not a physical device (no sys/class/net/bond0.100/device)"
printf '[net]\nqdisc = fq\ninterfaces = eth* !eth1\n' >"$WORK/globs.conf"
check_rc "--iface eth1 excluded by a glob: exit 0" 0 -- "$ET" plan --wide --root "$t" --profile none --config "$WORK/globs.conf" --iface eth1
contains "--iface eth1: the glob that excluded it" "eth1 is excluded by '!eth1' in [net] interfaces"
check_rc "--iface of a glob that names none" 0 -- "$ET" plan --wide --root "$t" --profile none --config "$WORK/globs.conf" --iface br0
contains "--iface br0: no glob names it" "[net] interfaces = eth* !eth1 does not name br0"
printf '[thp]\nenabled = madvise\n' >"$WORK/noqdisc.conf"
check_rc "--iface without a configured qdisc: exit 0" 0 -- "$ET" plan --wide --root "$t" --profile none --config "$WORK/noqdisc.conf" --iface eth0
contains "--iface without a configured qdisc: says nothing applies" "no [net] qdisc is configured, so nothing applies to eth0"

# No such interface: an error, like --device of no disk.
for name in nosuch0 bonding_masters; do
	check_rc "--iface $name: exit 1" 1 -- "$ET" plan --wide --root "$t" --iface $name
	contains "--iface $name: no interface of that name" "no interface named '$name' in $t/sys/class/net"
	check_rc "apply --iface $name: exit 1" 1 -- "$ET" apply --root "$t" --iface $name
done
check_rc "--iface nosuch0 without a configured qdisc: exit 1 too" 1 -- "$ET" plan --root "$t" --profile none --config "$WORK/noqdisc.conf" --iface nosuch0
check_rc "--ifindex of no interface: exit 1" 1 -- "$ET" plan --wide --root "$t" --ifindex 99
contains "--ifindex 99: says so" "no interface with index 99 in $t/sys/class/net"
check_rc "--ifindex 7 (ib0): exit 0" 0 -- "$ET" plan --wide --root "$t" --ifindex 7
contains "--ifindex 7: ib0's line" "ib0 is IPoIB"
check_rc "--device of no disk, for comparison: exit 1" 1 -- "$ET" plan --root "$t" --device nosuch0

# A tree without sys/class/net: --iface names no interface there either.
e=$WORK/empty
mk_base "$e" 6.1.0-28-amd64 no "" ""
rm -r "$e/sys/class/net"
check_rc "no sys/class/net: plan exits 0" 0 -- "$ET" plan --root "$e"
check_rc "no sys/class/net: --iface eth0 exits 1" 1 -- "$ET" plan --root "$e" --iface eth0

# A real capture: the 2.6-era laptop of systemd's test suite (wmaster0 is
# the 802.11 master device, type 801).
fx=$(real_sysfs_dir) || { fail "the real-sysfs captures of ../shared/fixtures are beside the checkout"; exit 1; }
mkdir -p "$WORK/laptop"
tar -C "$WORK/laptop" -xf "$fx/systemd-sys-script.tar.xz"
check_rc "systemd's laptop capture: plan exits 0" 0 -- "$ET" plan --wide --root "$WORK/laptop" --only net
contains "capture: the loopback said" "lo is the loopback interface, not a physical device"
contains "capture: wmaster0 is not Ethernet" "wmaster0 is not Ethernet (type 801): the default selection takes Ethernet devices only"
contains "capture: eth0 is selected" "eth0     qdisc                           -       fq      skip   netlink reaches only"
