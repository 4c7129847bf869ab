# SPDX-License-Identifier: LGPL-2.1-or-later
# [net "NAME"] over the real ethtool netlink family, in a network namespace
# of the test's own with veth pairs (veth has rx/tx channels, get and set,
# and features; no rings or coalescing: those are unit-tested against
# recorded replies, test_nic.c). Records go to a directory of the test's,
# bind-mounted over /run/earlytune inside the private mount namespace `ip
# netns exec` makes: nothing of the host changes.
. "$(dirname "$0")/../lib/common.sh"

netns_setup et-nic
# et ARGS…: earlytune in the namespace, our records, our configuration.
et() { in_ns "$ET" "$@" --profile none --wide; }
txq() { nsx ls "/sys/class/net/$1/queues" | grep -c '^tx-'; }
rxq() { nsx ls "/sys/class/net/$1/queues" | grep -c '^rx-'; }
qd() { nsx tc qdisc show dev "$1" | awk '$4 == "root" { print $2, $3 }'; }
# row DESC FIELDS…: a line of the last table whose columns are FIELDS
row() {
	_d=$1
	shift
	if printf '%s\n' "$OUT" | awk -v want="$*" '{ $1 = $1 } index($0, want) == 1 { found = 1 } END { exit !found }'; then
		pass "$_d"
	else
		fail "$_d" "no row '$*':" "$(printf '%s\n' "$OUT" | head -20)"
	fi
}
cpus=$(nproc)
want_rx=$(( cpus < 4 ? cpus : 4 ))
if [ "$want_rx" = 4 ]; then want_rx=3; fi # not the 4 there: a change to see

nsx ip link add a1 numtxqueues 4 numrxqueues 4 type veth peer name b1 numtxqueues 4 numrxqueues 4
nsx ip link add c1 numtxqueues 4 numrxqueues 4 type veth peer name d1 numtxqueues 4 numrxqueues 4
nsx ip link set a1 up && nsx ip link set b1 up
eq "a1 starts with 4 TX and 4 RX queues" "$(txq a1) $(rxq a1)" "4 4"

cat >"$WORK/nic.conf" <<CONF
[net "veths"]
# the test's NICs
match.driver = veth
match.name = a*
channels.tx = 2
channels.rx = $want_rx
offload.generic-receive-offload = on
rings.rx = max
coalesce.rx_usecs = 10

[net "fixed"]
match.name = c1
offload.rx-gro-hw = on

[net]
qdisc = pfifo
interfaces = a*
CONF
C="--config $WORK/nic.conf"

check_rc "plan exits 0" 0 -- et plan --only nic,net $C
row "plan: channels.tx 4 -> 2" nic a1 channels.tx 4 2 change
contains "plan: a driver without rings says so" "a1's driver (veth) has no rings settings"
contains "plan: a driver without coalescing says so" "a1's driver (veth) has no coalescing settings"
contains "plan: an alias names the kernel's feature" "offload.rx-gro"
contains "plan: a fixed feature is a skip saying so" "rx-gro-hw is fixed off by c1's driver (veth)"
eq "plan: a section whose match fails gives nothing" "$(printf '%s\n' "$OUT" | grep -cE '^nic +[bd]1 ')" 0

check_rc "apply exits 0" 0 -- et apply --only nic,net $C
eq "apply: a1 has 2 TX and $want_rx RX queues" "$(txq a1) $(rxq a1)" "2 $want_rx"
row "apply: channels applied" nic a1 channels.tx 4 2 change applied
row "apply: the feature applied" nic a1 offload.rx-gro off on change applied
# The qdisc items of the interface run after its channels, in the same run.
first_nic=$(printf '%s\n' "$OUT" | grep -nE '^nic +a1 ' | head -1 | cut -d: -f1)
first_net=$(printf '%s\n' "$OUT" | grep -nE '^net +a1 ' | head -1 | cut -d: -f1)
eq "apply: a1's channels come before its qdisc" "$([ -n "$first_nic" ] && [ -n "$first_net" ] && [ "$first_nic" -lt "$first_net" ] && echo yes)" yes
eq "apply: a1's root qdisc is set after the channels" "$(qd a1)" "mq e7e7:"
ino=$(nsx readlink /proc/self/ns/net | tr -dc 0-9)
idx=$(nsx cat /sys/class/net/a1/ifindex)
eq "records: channels.tx's original by namespace and index" \
	"$(grep -h "channels.tx" "$state"/records "$state"/links/* 2>/dev/null | head -1)" \
	"$(printf 'nic\ta1\tchannels.tx\tethtool/netns/%s/ifindex/%s/channels.tx\t4\tifindex:%s' "$ino" "$idx" "$idx")"

check_rc "a second apply changes nothing" 0 -- et apply --only nic --json $C
lacks "second apply: nothing applied" '"result":"applied"'
check_rc "verify of the veths: exit 1 (c1's fixed feature is unmet)" 1 -- et verify --only nic $C --prometheus /run/earlytune/et.prom
contains "verify: the fixed feature is unmet" "unmet: nic c1 offload.rx-gro-hw"
lacks "verify: no drift" "drift:"
eq "Prometheus: a1's channels hold" "$(grep -c 'earlytune_setting_holds{domain="nic",target="a1",setting="channels.tx"} 1' "$state/et.prom")" 1

# Another writer changes the channels: drift, then apply sets them again.
printf '[net "other"]\nmatch.name = a1\nchannels.tx = 3\n' >"$WORK/other.conf"
check_rc "another writer's change" 0 -- et apply --only nic --config "$WORK/other.conf"
eq "a1: 3 TX queues now" "$(txq a1)" 3
check_rc "verify finds the drift (exit 1)" 1 -- et verify --only nic $C
contains "verify names the drift" "drift: nic a1 channels.tx is '3', want '2'"
check_rc "status exits 0" 0 -- et status
contains "status lists the applied channels" "nic a1 channels.tx: 4 -> 2"

check_rc "revert exits 0" 0 -- et revert
eq "revert: a1 has 4 TX and 4 RX queues again" "$(txq a1) $(rxq a1)" "4 4"
contains "revert: the feature back off" "offload.rx-gro"
check_rc "nothing left to revert" 0 -- et revert --only nic
contains "revert: the records are gone" "nothing to revert"

# udev's entry point: a new interface's add event applies its section alone.
nsx ip link add a5 numtxqueues 4 numrxqueues 4 type veth peer name b5 numtxqueues 4 numrxqueues 4
idx5=$(nsx cat /sys/class/net/a5/ifindex)
check_rc "--ifindex of the new interface" 0 -- et --boot apply --ifindex "$idx5" $C
eq "--ifindex: a5 has 2 TX queues" "$(txq a5)" 2
eq "--ifindex: a1 untouched" "$(txq a1)" 4
eq "--ifindex: a5's records in its own file" "$(grep -c '^nic	a5	' "$state/links/$idx5")" 3
eq "--ifindex: a5's qdisc after its channels" "$(qd a5)" "mq e7e7:"
check_rc "revert --ifindex" 0 -- et revert --ifindex "$idx5"
eq "revert --ifindex: a5 has 4 TX queues again" "$(txq a5)" 4
check_rc "--ifindex again" 0 -- et --boot apply --ifindex "$idx5" $C
nsx ip link del a5
check_rc "forget --ifindex of the removed interface" 0 -- et --boot forget --ifindex "$idx5"
eq "forget: a5's records are gone" "$(cat "$state/links/$idx5" 2>/dev/null | grep -c '^nic')" 0

# --ifindex costs the same with 100 more interfaces: one get per group.
if command -v strace >/dev/null; then
	nlcalls() {
		in_ns env ASAN_OPTIONS=detect_leaks=0 strace -f -qq -o "$WORK/nltrace" -e trace=sendto,sendmsg,recvmsg \
			"$ET" plan --only nic --profile none $C --ifindex "$idx" >/dev/null 2>&1
		grep -cE '(sendto|sendmsg|recvmsg)\(' "$WORK/nltrace"
	}
	few=$(nlcalls)
	for i in $(seq 50); do echo "link add m$i type veth peer name n$i"; done >"$WORK/links"
	nsx ip -batch "$WORK/links"
	many=$(nlcalls)
	eq "--ifindex: as many netlink calls with 100 more interfaces ($few)" "$many" "$few"
else
	skip "--ifindex netlink calls" "no strace"
fi

# ---- The other writers of [net "NAME"] items (issue 30), on a real plan
# and verify: a .link file, a NetworkManager profile, a TuneD [net] section
# and a udev rule's RUN ethtool, put in an /etc of the test's own (bound
# over /etc, and an empty directory over the distribution's udev rules and
# .link files, in the private mount namespace of `ip netns exec`).
e=$WORK/etc
mkdir -p "$e/systemd/network" "$e/NetworkManager/system-connections" "$e/udev/rules.d" "$e/tuned/profiles/nicp" \
	"$e/systemd/system/multi-user.target.wants" "$WORK/empty"
printf '[Match]\nDriver=veth\n[Link]\nTxChannels=1\n' >"$e/systemd/network/10-veth.link"
printf '[connection]\nid=wa\ninterface-name=wa\n[ethtool]\nchannels-rx=1\n' \
	>"$e/NetworkManager/system-connections/wa.nmconnection"
chmod 600 "$e/NetworkManager/system-connections/wa.nmconnection"
printf 'ACTION=="add", SUBSYSTEM=="net", KERNEL=="w*", RUN+="/usr/sbin/ethtool -L $name tx 3"\n' \
	>"$e/udev/rules.d/80-nic.rules"
printf '[main]\nsummary=nic\n[net]\ndevices=wa\nfeatures=gro off\n' >"$e/tuned/profiles/nicp/tuned.conf"
echo nicp >"$e/tuned/active_profile"
ln -s /usr/lib/systemd/system/tuned.service "$e/systemd/system/multi-user.target.wants/tuned.service"
etw() {
	ip netns exec "$ns" sh -c 'mount --bind "$0" /run/earlytune && mount --bind "$1" /etc &&
		mount --bind "$2" /usr/lib/udev/rules.d && mount --bind "$2" /usr/lib/systemd/network && shift 2 &&
		exec "$@"' "$state" "$e" "$WORK/empty" "$ET" "$@" --profile none --wide
}
nsx ip link add wa numtxqueues 4 numrxqueues 4 type veth peer name wb numtxqueues 4 numrxqueues 4
nsx ip link set wb name wr # renamed (name_assign_type 4): udev applies its .link again at the move event
printf '[net "w"]\nmatch.name = w*\nchannels.tx = 2\nchannels.rx = 2\noffload.generic-receive-offload = on\n' \
	>"$WORK/w.conf"
check_rc "writers: plan exits 0" 0 -- etw plan --only nic --json --config "$WORK/w.conf"
eq "writers: wa's channels.tx: the .link file (before earlytune's RUN), the udev RUN ethtool after 70-earlytune.rules wins" \
	"$(writers channels.tx wa)" "udev /etc/udev/rules.d/80-nic.rules:1 3 True
udev .link /etc/systemd/network/10-veth.link:4 1 False"
eq "writers: wr's channels.tx: renamed, its .link file wins over the RUN program" "$(writers channels.tx wr)" \
	"udev /etc/udev/rules.d/80-nic.rules:1 3 False
udev .link /etc/systemd/network/10-veth.link:4 1 True"
eq "writers: wa's channels.rx: the NetworkManager profile of wa wins" "$(writers channels.rx wa)" \
	"NetworkManager /etc/NetworkManager/system-connections/wa.nmconnection:5 1 True"
eq "writers: wa's offload.rx-gro: TuneD [net] named, leaving a virtual interface alone" "$(writers offload.rx-gro wa)" \
	"TuneD /etc/tuned/profiles/nicp/tuned.conf:5 off False"
eq "writers: wr's channels.rx: none applies (the profile is wa's)" "$(writers channels.rx wr)" ""
check_rc "writers: plan's table" 0 -- etw plan --only nic --config "$WORK/w.conf"
contains "writers: the table says why TuneD does not win" \
	"TuneD's [net] plugin leaves interfaces below /sys/devices/virtual alone: earlytune's value stays"
contains "writers: the table says why the renamed interface's .link wins" \
	"udev applies it again when wr is renamed (its move event), after earlytune's run at add: wins"
# The RUN program's value in force: verify names it as the likely culprit.
check_rc "writers: apply" 0 -- etw apply --only nic --config "$WORK/w.conf"
printf '[net "run"]\nmatch.name = wa\nchannels.tx = 3\n' >"$WORK/run.conf"
check_rc "writers: what the RUN program would do" 0 -- et apply --only nic --config "$WORK/run.conf"
check_rc "writers: verify finds the drift (exit 1)" 1 -- etw verify --only nic --config "$WORK/w.conf"
contains "writers: verify names the RUN ethtool rule as the likely culprit" \
	"drift: nic wa channels.tx is '3', want '2' [/tmp/"
contains "writers: ... by its file and line" \
	"likely culprit: /etc/udev/rules.d/80-nic.rules:1 RUN+=\"/usr/sbin/ethtool -L \$name tx 3\" (udev, runs after earlytune)"
check_rc "writers: revert" 0 -- et revert --only nic

# RPS, XPS, flow counts and txqueuelen: files of every queue the interface
# has once its channels are applied (a change of channels recreates them).
nsx ip link add e1 numtxqueues 4 numrxqueues 4 type veth peer name f1 numtxqueues 4 numrxqueues 4
nsx ip link set e1 up && nsx ip link set f1 up
q() { nsx cat "/sys/class/net/e1/queues/$1"; }
online=$(cat /sys/devices/system/cpu/online)
all=$(python3 -c "
import sys
m = 0
for part in sys.argv[1].split(','):
    a, _, b = part.partition('-')
    for c in range(int(a), int(b or a) + 1): m |= 1 << c
print(format(m, 'x'))" "$online")
width=$(q rx-0/rps_cpus | tr -d ,)
cat >"$WORK/queues.conf" <<CONF
[net "queues"]
# spread e1's packets over every CPU
match.name = e1
channels.rx = 2
rps_cpus = all
rps_flow_cnt = 100
xps_cpus = 1
txqueuelen = 500
CONF
Q="--config $WORK/queues.conf"
check_rc "queues: plan exits 0" 0 -- et plan --only nic $Q
row "queues: plan: rx-3's rps_cpus, noted as planned again" nic e1 queues/rx-3/rps_cpus
contains "queues: plan says apply reads the queues again" "apply reads the queues again once the channels change"
check_rc "queues: apply exits 0" 0 -- et apply --only nic,net $Q
eq "queues: e1 has 2 RX queues" "$(rxq e1)" 2
lacks "queues: no item of a queue the channels removed" "queues/rx-2/rps_cpus"
row "queues: rx-1's rps_cpus set to the online CPUs ($online)" nic e1 queues/rx-1/rps_cpus 0 "$all" change applied
eq "queues: the kernel holds rx-0's RPS mask" "$(printf %x "0x$(q rx-0/rps_cpus | tr -d ,)")" "$all"
eq "queues: rps_flow_cnt 100 is 128, the power of two the kernel keeps" "$(q rx-1/rps_flow_cnt)" 128
contains "queues: the rounding said" "(asks 100: the kernel keeps the power of two at or above)"
eq "queues: every TX queue's XPS mask is CPU 0" "$(for t in 0 1 2 3; do printf %x "0x$(q tx-$t/xps_cpus | tr -d ,)"; done)" 1111
eq "queues: txqueuelen" "$(nsx cat /sys/class/net/e1/tx_queue_len)" 500
idx=$(nsx cat /sys/class/net/e1/ifindex)
eq "queues: records by namespace and index" \
	"$(grep -h "queues/rx-1/rps_cpus" "$state"/records "$state"/links/* 2>/dev/null | head -1 | cut -f4,5)" \
	"$(printf 'ethtool/netns/%s/ifindex/%s/queues/rx-1/rps_cpus\t%s' "$ino" "$idx" "$(printf '%s' "$width" | tr 0-9a-f 0)")"
check_rc "queues: verify holds" 0 -- et verify --only nic $Q --prometheus /run/earlytune/et.prom
eq "queues: Prometheus: rx-0's rps_cpus holds" \
	"$(grep -c 'earlytune_setting_holds{domain="nic",target="e1",setting="queues/rx-0/rps_cpus"} 1' "$state/et.prom")" 1
# Masks compare as CPUs: leading zeros and commas are the same mask.
printf '[net "zeros"]\nmatch.name = e1\nxps_cpus = 00000000,00000001\n' >"$WORK/zeros.conf"
check_rc "queues: a wider mask of the same CPUs" 0 -- et plan --only nic --config "$WORK/zeros.conf"
row "queues: ... is kept" nic e1 queues/tx-0/xps_cpus
lacks "queues: ... and changes nothing" " change"
printf '[net "far"]\nmatch.name = e1\nrps_cpus = 80000000,00000000\n' >"$WORK/far.conf"
check_rc "queues: a CPU the machine lacks: plan exits 0" 0 -- et plan --only nic --config "$WORK/far.conf"
contains "queues: ... refused, naming it" "names CPU 63, which this machine does not have online (online: $online)"
nsx sh -c 'echo 0 > /sys/class/net/e1/queues/rx-1/rps_cpus'
check_rc "queues: verify finds another writer's mask (exit 1)" 1 -- et verify --only nic $Q
contains "queues: ... naming the queue" "drift: nic e1 queues/rx-1/rps_cpus is '$(q rx-1/rps_cpus)', want '"
check_rc "queues: revert exits 0" 0 -- et revert --only nic
eq "queues: revert: 4 RX queues, no RPS, no XPS, txqueuelen 1000" \
	"$(rxq e1) $(q rx-0/rps_cpus | tr -d 0,)$(q tx-3/xps_cpus | tr -d 0,) $(q rx-0/rps_flow_cnt) $(nsx cat /sys/class/net/e1/tx_queue_len)" \
	"4  0 1000"
# udev's event of a new interface: its queues after its channels, by index.
nsx ip link add e5 numtxqueues 4 numrxqueues 4 type veth peer name f5 numtxqueues 4 numrxqueues 4
sed 's/match.name = e1/match.name = e1 e5/' "$WORK/queues.conf" >"$WORK/queues5.conf"
idx5=$(nsx cat /sys/class/net/e5/ifindex)
check_rc "queues: --ifindex of a new interface" 0 -- et --boot apply --ifindex "$idx5" --config "$WORK/queues5.conf"
eq "queues: --ifindex: e5's RX queues 2, rx-1's RPS set, e1 untouched" \
	"$(rxq e5) $(printf %x "0x$(nsx cat /sys/class/net/e5/queues/rx-1/rps_cpus | tr -d ,)") $(q rx-0/rps_cpus | tr -d 0,)" "2 $all "
check_rc "queues: revert --ifindex" 0 -- et revert --ifindex "$idx5"
eq "queues: revert --ifindex: e5's RPS gone" "$(nsx cat /sys/class/net/e5/queues/rx-1/rps_cpus | tr -d 0,)" ""

# XPS on an interface of one TX queue: its tx-0/xps_cpus is listed but
# reads ENOENT (the kernel keeps no map for a device that is not
# multiqueue), and there is nothing to choose among: a neutral skip saying
# why, nothing written or recorded, verify not failed by it.
nsx ip link add g1 numtxqueues 1 numrxqueues 1 type veth peer name h1 numtxqueues 1 numrxqueues 1
eq "one TX queue: g1 has tx-0 alone, its xps_cpus listed" "$(txq g1) $(nsx ls /sys/class/net/g1/queues/tx-0 | grep -c '^xps_cpus$')" "1 1"
printf '[net "one"]\n# one TX queue: nothing for XPS to choose\nmatch.name = g1\nxps_cpus = 1\n' >"$WORK/one.conf"
check_rc "one TX queue: plan exits 0" 0 -- et plan --only nic --config "$WORK/one.conf"
row "one TX queue: XPS is a skip" nic g1 queues/tx-0/xps_cpus - - skip
contains "one TX queue: ... saying why" "g1 has one TX queue: XPS chooses among several"
check_rc "one TX queue: apply exits 0" 0 -- et apply --only nic --config "$WORK/one.conf"
row "one TX queue: apply skips it, nothing written" nic g1 queues/tx-0/xps_cpus - - skip -
eq "one TX queue: no record of g1" "$(cat "$state"/records "$state"/links/* 2>/dev/null | grep -c "	g1	")" 0
check_rc "one TX queue: verify exits 0" 0 -- et verify --only nic --config "$WORK/one.conf"
contains "one TX queue: ... it is not applicable" "0 hold, 0 drifted, 0 unmet, 1 not applicable"

# RFS on a tree: the queues' flow tables and the global one ([net], the
# net row's sysctl), each rounded up to a power of two, set and reverted.
t=$WORK/rfs
for f in ifindex:2 tx_queue_len:1000 queues/rx-0/rps_flow_cnt:0 queues/rx-0/rps_cpus:00000000,00000000; do
	mkdir -p "$(dirname "$t/sys/class/net/eth0/${f%%:*}")"
	echo "${f#*:}" >"$t/sys/class/net/eth0/${f%%:*}"
done
mkdir -p "$t/proc/sys/net/core" "$t/sys/devices/system/cpu" "$t/run"
echo 0 >"$t/proc/sys/net/core/rps_sock_flow_entries"
echo 0-39 >"$t/sys/devices/system/cpu/online"
printf '[net "q"]\nmatch.name = eth0\nrps_flow_cnt = 2000\n' >"$WORK/rfs.conf"
check_rc "rfs: plan of a queue's table alone" 0 -- "$ET" --root "$t" plan --only nic,net --profile none --wide --config "$WORK/rfs.conf"
contains "rfs: ... says the global table is missing" "(RFS needs [net] rps_sock_flow_entries too: 0 now)"
printf '[net]\nrps_sock_flow_entries = 30000\n' >>"$WORK/rfs.conf"
check_rc "rfs: apply" 0 -- "$ET" --root "$t" apply --only nic,net --profile none --wide --config "$WORK/rfs.conf"
lacks "rfs: the global table named, no hint" "RFS needs"
eq "rfs: 2048 per queue, 32768 in all" \
	"$(cat "$t/sys/class/net/eth0/queues/rx-0/rps_flow_cnt") $(cat "$t/proc/sys/net/core/rps_sock_flow_entries")" "2048 32768"
row "rfs: the rounding said" net sysctl net.core.rps_sock_flow_entries 0 32768 change applied "(asks 30000: the kernel keeps the power of two at or above)"
check_rc "rfs: verify holds" 0 -- "$ET" --root "$t" verify --only nic,net --profile none --config "$WORK/rfs.conf"
check_rc "rfs: revert" 0 -- "$ET" --root "$t" revert
eq "rfs: both back to 0" \
	"$(cat "$t/sys/class/net/eth0/queues/rx-0/rps_flow_cnt") $(cat "$t/proc/sys/net/core/rps_sock_flow_entries")" "0 0"
check_rc "rfs: the global table in a network namespace" 0 -- et plan --only net --config "$WORK/rfs.conf"
contains "rfs: ... is the first namespace's" "a network namespace other than the first (it is global)"
