# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 12: the annotated configurations in examples/ parse, alone and on top
# of the vps profile, and plan what their comments say on trees modelled on
# the machines they are for.
. "$(dirname "$0")/../lib/common.sh"

EX=$(cd "$TESTS_DIR/../examples" && pwd)
n=0
for f in "$EX"/*.conf; do
	n=$((n + 1))
	for p in none vps; do
		check_rc "$(basename "$f") --profile $p: config exits 0" 0 -- "$ET" config --config "$f" --profile "$p"
		lacks "$(basename "$f") --profile $p: no message" "earlytune:"
	done
done
eq "examples/ holds the three configurations of issue 12 and the NICs' of issue 30" "$n" 4

# desired FILE TREE TARGET SETTING: what plan wants for that item.
desired() {
	"$ET" plan --json --root "$2" --config "$EX/$1" 2>/dev/null | python3 -c '
import json, sys
o = json.load(sys.stdin)
print(" ".join(i["desired"] or "-" for i in o["items"] if i["target"] == sys.argv[1] and i["setting"] == sys.argv[2]))' "$3" "$4"
}

kvm=$WORK/kvm
mk_kvm "$kvm"
metal=$WORK/metal
mk_metal "$metal"
check_rc "database-vps.conf: plan on a KVM guest exits 0" 0 -- "$ET" plan --root "$kvm" --config "$EX/database-vps.conf"
eq "database-vps.conf: THP never" "$(desired database-vps.conf "$kvm" thp enabled)" never
eq "database-vps.conf: no defrag stalls" "$(desired database-vps.conf "$kvm" thp defrag)" never
mk_unit "$kvm" lib/systemd/system postgresql@.service
eq "database-vps.conf: the database template's open files" "$(desired database-vps.conf "$kvm" postgresql@.service LimitNOFILE)" 65536
eq "database-vps.conf: the virtio disk's read-ahead capped at 128" \
	"$(desired database-vps.conf "$kvm" vda queue/read_ahead_kb)" 128
check_rc "hdd-backup.conf: plan on bare metal exits 0" 0 -- "$ET" plan --root "$metal" --config "$EX/hdd-backup.conf"
eq "hdd-backup.conf: the HDD's read-ahead raised to 4096" "$(desired hdd-backup.conf "$metal" sdb queue/read_ahead_kb)" 4096
eq "hdd-backup.conf: the HDD's writeback throttling off" "$(desired hdd-backup.conf "$metal" sdb queue/wbt_lat_usec)" 0
eq "hdd-backup.conf: the SSD keeps the profile's cap" "$(desired hdd-backup.conf "$metal" sda queue/read_ahead_kb)" 128
check_rc "web-latency.conf: plan on a KVM guest exits 0" 0 -- "$ET" plan --root "$kvm" --config "$EX/web-latency.conf"
eq "web-latency.conf: defrag defer" "$(desired web-latency.conf "$kvm" thp defrag)" defer
eq "web-latency.conf: the virtio disk's read-ahead capped at 512" "$(desired web-latency.conf "$kvm" vda queue/read_ahead_kb)" 512
eq "web-latency.conf: completions on the issuing CPU" "$(desired web-latency.conf "$kvm" vda queue/rq_affinity)" 2

# nic-queues.conf: its sections apply on the running kernel only (ethtool);
# in a tree each is an item of the interface its match names, unknown.
tree_nic=$WORK/nic
mkdir -p "$tree_nic/sys/class/net/eth0" "$tree_nic/sys/bus/virtio/drivers/virtio_net" "$tree_nic/sys/devices/pci0000:00/virtio0/net"
echo 2 >"$tree_nic/sys/class/net/eth0/ifindex"
mkdir -p "$tree_nic/sys/class/net/eth0/device"
ln -s ../../../../../bus/virtio/drivers/virtio_net "$tree_nic/sys/class/net/eth0/device/driver"
check_rc "nic-queues.conf: plan on a tree exits 0" 0 -- "$ET" plan --only nic --root "$tree_nic" --config "$EX/nic-queues.conf"
contains "nic-queues.conf: virtio's channels are the running kernel's" "channels.combined"
# RPS is files of the tree: its one RX queue to every online CPU.
mkdir -p "$tree_nic/sys/class/net/eth0/queues/rx-0" "$tree_nic/sys/devices/system/cpu"
echo 0 >"$tree_nic/sys/class/net/eth0/queues/rx-0/rps_cpus"
echo 0 >"$tree_nic/sys/class/net/eth0/queues/rx-0/rps_flow_cnt"
echo 0-3 >"$tree_nic/sys/devices/system/cpu/online"
check_rc "nic-queues.conf: plan of RPS on the tree exits 0" 0 -- "$ET" plan --only nic --wide --root "$tree_nic" --config "$EX/nic-queues.conf"
eq "nic-queues.conf: rx-0's RPS on the 4 CPUs, 4096 flows" \
	"$(printf '%s\n' "$OUT" | awk '$1 == "nic" && $3 ~ /^queues\/rx-0\// { printf "%s=%s ", $3, $5 }')" \
	"queues/rx-0/rps_cpus=f queues/rx-0/rps_flow_cnt=4096 "
