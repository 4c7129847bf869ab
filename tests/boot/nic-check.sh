# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
#
# Sourced by tests/boot/nic.sh: the guests' configuration, and the
# assertions over one guest's console log (tests/boot/nic-guest.sh's "ETN …"
# lines). Calls pass and fail.

# What virtio_net and QEMU give the hot-added NIC (4 vCPUs, queues=4) and
# what the section asks instead.
CH_KERNEL=4 CH_WANT=2 RING_KERNEL=256 RING_WANT=128 RPS_WANT=f
TXF_KERNEL=1 TXF_WANT=0 QLEN_KERNEL=1000 QLEN_WANT=2000 XPS_WANT=f FLOWS_WANT=2048 SOCK_WANT=32768
# virtio_net's XPS (virtnet_set_affinity): each TX queue CPUs of its own,
# derived anew at every change of channels: on 4 CPUs, 1 2 4 8 for 4
# queues, 3 c for 2.
XPS_KERNEL4=(1 2 4 8) XPS_KERNEL2=(3 c)

# nic_conf: /etc/earlytune.d/50-etnic.conf, but for zswap
nic_conf() {
	cat <<EOF
[net "etnic"]
match.driver = virtio_net
# nic guest test: 2 of the $CH_KERNEL queue pairs virtio_net gives a 4-vCPU guest
channels.combined = $CH_WANT
# nic guest test: half of QEMU's $RING_KERNEL (a split ring's size is a power of two)
rings.rx = $RING_WANT
# nic guest test: half of QEMU's $RING_KERNEL
rings.tx = $RING_WANT
# nic guest test: virtio_net's default is on
offload.generic-receive-offload = off
# nic guest test: virtio_net's $TXF_KERNEL is its TX NAPI on, $TXF_WANT turns it off: without the
# device's VIRTIO_NET_F_NOTF_COAL (QEMU has none) the one coalescing value it
# takes, and only while the interface is down, as at its add event
coalesce.tx_frames = $TXF_WANT
# nic guest test: every CPU steers each RX queue's packets (the kernel: none)
rps_cpus = $RPS_WANT
# nic guest test: twice the kernel's $QLEN_KERNEL packets
txqueuelen = $QLEN_WANT
# nic guest test: a flow table for RFS on each RX queue (the kernel: none, 0)
rps_flow_cnt = $FLOWS_WANT
# nic guest test: any CPU may send on each TX queue (virtio_net gives each
# TX queue CPUs of its own)
xps_cpus = $XPS_WANT

[net]
# nic guest test: the global flow table RFS needs (the kernel: none, 0)
rps_sock_flow_entries = $SOCK_WANT

[sysfs "ksm"]
path = /sys/kernel/mm/ksm/run
# nic guest test: the kernel starts with KSM stopped
value = 1

[sysfs "ksm-scan"]
path = /sys/kernel/mm/ksm/pages_to_scan
# nic guest test: the kernel's default is 100
value = 1000
EOF
}

# coal_conf: /etc/etnic-coal.conf, a coalescing value virtio_net takes only
# from a device that offers VIRTIO_NET_F_NOTF_COAL
coal_conf() {
	cat <<EOF
[net "etnic-coal"]
match.driver = virtio_net
# nic guest test: the kernel's 0; QEMU's device cannot take it
coalesce.rx_usecs = 50
EOF
}

# zswap_conf VALUE: [sysfs "zswap"], zswap's enabled VALUE
zswap_conf() {
	cat <<EOF

[sysfs "zswap"]
path = /sys/module/zswap/parameters/enabled
# nic guest test: the other value than this kernel's default
value = $1
EOF
}

# val TAG KEY: KEY=VALUE of the last "ETN TAG …" line
val() { grep "^ETN $1 " "$L" | sed -n "s/.* $2=\\([^ ]*\\).*/\\1/p" | tail -1; }
is() { if [ "$2" = "$3" ]; then pass "$1 ($2)"; else fail "$1" "got:  $2" "want: $3"; fi; }
has() { if grep -Eq "$2" "$L"; then pass "$1"; else fail "$1" "no line matches: $2"; fi; }
lacks() { if grep -Eq "$2" "$L"; then fail "$1" "$(grep -E "$2" "$L" | head -5)"; else pass "$1"; fi; }
# line RE: the number of the first log line matching RE (empty: none)
line() { grep -nE "$1" "$L" | head -1 | cut -d: -f1; }

check_sysfs() { # K
	local k=$1
	is "$k: sysfs: KSM stopped before earlytune" "$(val sysfs-before ksm_run)" 0
	is "$k: sysfs: pages_to_scan the kernel's 100 before earlytune" "$(val sysfs-before ksm_pages_to_scan)" 100
	is "$k: sysfs: the pre-udev run started KSM" "$(val sysfs-applied ksm_run)" 1
	is "$k: sysfs: the pre-udev run set pages_to_scan" "$(val sysfs-applied ksm_pages_to_scan)" 1000
	has "$k: sysfs: KSM's change in the kernel log" '^ETN kmsg: .*earlytune: sysfs ksm kernel/mm/ksm/run: 0 -> 1'
	has "$k: sysfs: pages_to_scan's change in the kernel log" \
		'^ETN kmsg: .*earlytune: sysfs ksm-scan kernel/mm/ksm/pages_to_scan: 100 -> 1000'
	is "$k: sysfs: verify --only sysfs holds" "$(val sysfs-verify rc)" 0
	is "$k: sysfs: revert gave KSM's run back" "$(val sysfs-reverted ksm_run)" 0
	is "$k: sysfs: revert gave pages_to_scan back" "$(val sysfs-reverted ksm_pages_to_scan)" 100
	check_zswap "$k"
}

# zswap: turned over and back where the kernel has it; where it does not
# (CONFIG_ZSWAP unset: both cloud kernels), its section alone is unmet.
check_zswap() { # K
	local k=$1 z
	z=$(val sysfs-before zswap)
	case $z in
	absent)
		sed -n "s/^ETN zswap-\\(plan\\|verify\\)-out: /# $k: zswap (not in this kernel): \\1: /p" "$L"
		has "$k: sysfs: zswap absent: plan skips it" \
			'^ETN zswap-plan-out: sysfs +zswap +module/zswap/parameters/enabled +- +[YN] +skip'
		has "$k: sysfs: zswap absent: plan names the missing file" \
			'^ETN zswap-plan-out: +no such file: this kernel \(or its modules and devices\) does not have it'
		is "$k: sysfs: zswap absent: its verify fails (unmet)" "$(val zswap-verify rc)" 1
		has "$k: sysfs: zswap absent: verify says unmet" '^ETN zswap-verify-out: .*unmet'
		return ;;
	Y) z=N ;;
	N) z=Y ;;
	*) fail "$k: sysfs: zswap's enabled read before earlytune" "got: '$z'"; return ;;
	esac
	is "$k: sysfs: the pre-udev run turned zswap's enabled over" "$(val sysfs-applied zswap)" "$z"
	is "$k: sysfs: revert gave zswap's enabled back" "$(val sysfs-reverted zswap)" "$(val sysfs-before zswap)"
}

# The udev event's lines in the kernel log, in the order they must come.
check_order() { # K IF
	local k=$1 i=$2 n prev=0 what
	local -a steps=(
		"channels|nic $i channels.combined: $CH_KERNEL -> $CH_WANT"
		"rx ring|nic $i rings.rx: $RING_KERNEL -> $RING_WANT"
		"tx ring|nic $i rings.tx: $RING_KERNEL -> $RING_WANT"
		"GRO|nic $i offload.rx-gro: on -> off"
		"coalescing|nic $i coalesce.tx_frames: $TXF_KERNEL -> $TXF_WANT"
		"txqueuelen|nic $i tx_queue_len: $QLEN_KERNEL -> $QLEN_WANT"
		"rx-0's RPS|nic $i queues/rx-0/rps_cpus: 0 -> $RPS_WANT"
		"rx-1's RPS|nic $i queues/rx-1/rps_cpus: 0 -> $RPS_WANT"
		"rx-0's flow table|nic $i queues/rx-0/rps_flow_cnt: 0 -> $FLOWS_WANT"
		"rx-1's flow table|nic $i queues/rx-1/rps_flow_cnt: 0 -> $FLOWS_WANT"
		"tx-0's XPS, from the driver's mask for 2 queues|nic $i queues/tx-0/xps_cpus: ${XPS_KERNEL2[0]} -> $XPS_WANT"
		"tx-1's XPS, from the driver's mask for 2 queues|nic $i queues/tx-1/xps_cpus: ${XPS_KERNEL2[1]} -> $XPS_WANT"
		"qdisc|net $i qdisc: noop -> mq fq"
	)
	sed -n "s/^ETN kmsg: /# $k: kmsg: /p" "$L"
	# The global flow table: the pre-udev run's, before the event.
	n=$(line "^ETN kmsg: .*earlytune: net sysctl net.core.rps_sock_flow_entries: 0 -> $SOCK_WANT")
	if [ -n "$n" ] && [ "$n" -lt "$(line "^ETN kmsg: .*earlytune: ${steps[0]#*|}")" ]; then
		pass "$k: the pre-udev run: rps_sock_flow_entries in the kernel log, before the NIC's event"
	else
		fail "$k: the pre-udev run: rps_sock_flow_entries in the kernel log, before the NIC's event" \
			"$(grep -E '^ETN kmsg: .*rps_sock_flow_entries' "$L")"
	fi
	for s in "${steps[@]}"; do
		what=${s%%|*}
		n=$(line "^ETN kmsg: .*earlytune: ${s#*|}")
		if [ -z "$n" ]; then
			fail "$k: the udev event: $what in the kernel log" "no line matches: earlytune: ${s#*|}"
			prev=999999
		elif [ "$n" -gt "$prev" ]; then
			pass "$k: the udev event: $what in the kernel log, after what comes before it"
			prev=$n
		else
			fail "$k: the udev event: $what in the kernel log, after what comes before it" \
				"$(sed -n "${n}p" "$L")"
			prev=$n
		fi
	done
	# Planned again after the channels: only the queues there are.
	lacks "$k: the udev event: no RPS, flow table or XPS for the queues the channels removed" \
		"^ETN kmsg: .*earlytune: nic $i queues/[rt]x-[23]/"
	has "$k: the udev event's run: its summary, nothing failed" \
		"^ETN kmsg: .*earlytune: apply ifindex $(val nic ifindex): [1-9][0-9]* changed, [0-9]+ kept, [0-9]+ skipped, 0 failed"
}

# The interface's records: each setting's original, in the order written.
check_records() { # K IF
	local k=$1 i=$2 got want
	sed -n "s/^ETN record \(links\/.*\)/# $k: record \1/p" "$L"
	got=$(sed -n "s/^ETN record links\/$(val nic ifindex): [a-z]*\t$i\t\([^\t]*\)\t[^\t]*\t\([^\t]*\)\t.*/\1=\2/p" "$L" | tr '\n' ' ')
	want="channels.combined=$CH_KERNEL rings.rx=$RING_KERNEL rings.tx=$RING_KERNEL offload.rx-gro=on"
	want="$want coalesce.tx_frames=$TXF_KERNEL tx_queue_len=$QLEN_KERNEL"
	want="$want queues/rx-0/rps_cpus=0 queues/rx-1/rps_cpus=0 queues/rx-0/rps_flow_cnt=0 queues/rx-1/rps_flow_cnt=0"
	want="$want queues/tx-0/xps_cpus=${XPS_KERNEL2[0]} queues/tx-1/xps_cpus=${XPS_KERNEL2[1]} qdisc=noop "
	is "$k: the records of the interface: each original, in the order written" "$got" "$want"
}

# ethtool -L IF combined 3 after apply: verify fails, naming the channels.
# Whether the qdisc survived it is printed (the kernel's business).
check_drift() { # K IF
	sed -n "s/^ETN drift-out: /# $1: verify after ethtool -L $2 combined 3: /p; s/^ETN drift qdisc: /# $1: tc after ethtool -L: /p" "$L"
	is "$1: another writer's ethtool -L: verify exits 1" "$(val drift rc)" 1
	has "$1: another writer's ethtool -L: verify names the channels' drift" \
		"^ETN drift-out: drift: nic $2 channels.combined is '3', want '$CH_WANT'"
	# The queue that change added starts without RPS: why RPS comes after
	# the channels at the udev event.
	has "$1: another writer's ethtool -L: verify names the new rx-2's RPS" \
		"^ETN drift-out: drift: nic $2 queues/rx-2/rps_cpus is '0', want '$RPS_WANT'"
	# The driver derived every TX queue's XPS anew (3 queues: 3 4 8): why
	# XPS too comes after the channels.
	has "$1: another writer's ethtool -L: verify names tx-0's XPS, which the driver derived anew" \
		"^ETN drift-out: drift: nic $2 queues/tx-0/xps_cpus is '3', want '$XPS_WANT'"
}

# coalesce.rx_usecs needs the device's VIRTIO_NET_F_NOTF_COAL: QEMU's
# virtio-net has none, so the driver refuses it (EOPNOTSUPP), and apply
# fails the item saying so; tx_frames, the one value it takes, is proven
# with the section's other keys.
check_coalesce() { # K IF
	local k=$1 i=$2
	grep "^ETN applied ethtool-c: " "$L" | grep -v 'n/a' | sed "s/^ETN applied ethtool-c: /# $k: applied: ethtool -c: /"
	sed -n "s/^ETN coal-\(plan\|apply\)-out: /# $k: rx_usecs = 50: \1: /p" "$L"
	has "$k: coalesce.rx_usecs: plan asks the change" "^ETN coal-plan-out: nic +$i +coalesce.rx_usecs +0 +50 +change"
	is "$k: coalesce.rx_usecs: apply exits 1" "$(val coal-apply rc)" 1
	has "$k: coalesce.rx_usecs: the driver says not supported" \
		"^ETN coal-apply-out: +error: ethtool coalesce.rx_usecs = 50 on $i: Operation not supported"
	has "$k: coalesce.rx_usecs: ethtool -c still reads the kernel's 0" '^ETN coal ethtool-c: rx-usecs: 0$'
}

# check_files K TAG TXQUEUELEN TX_FRAMES FLOWS XPS SOCK: the queues' files,
# tx_queue_len, ethtool -c's tx-frames, the global flow table
check_files() {
	local k=$1 t=$2
	is "$k: $t: sysfs: tx_queue_len" "$(val "$t" txqueuelen)" "$3"
	is "$k: $t: ethtool -c: tx-frames" "$(val "$t" tx_frames)" "$4"
	is "$k: $t: sysfs: each RX queue's rps_flow_cnt" "$(sed -n "s/^ETN $t flows //p" "$L" | tr '\n' ' ')" "$5"
	is "$k: $t: sysfs: each TX queue's xps_cpus" "$(sed -n "s/^ETN $t xps //p" "$L" | tr '\n' ' ')" "$6"
	is "$k: $t: proc: rps_sock_flow_entries" "$(val "$t" sock_flows)" "$7"
}

# check_nic K TAG CHANNELS RING GRO RPS: what ethtool and sysfs read
check_nic() {
	local k=$1 t=$2
	is "$k: $t: ethtool -l: combined channels" "$(val "$t" channels)" "$3"
	is "$k: $t: ethtool -l: the device's maximum" "$(val "$t" channels_max)" "$CH_KERNEL"
	is "$k: $t: sysfs: RX queues" "$(val "$t" rxq)" "$3"
	is "$k: $t: sysfs: TX queues" "$(val "$t" txq)" "$3"
	is "$k: $t: ethtool -g: RX ring" "$(val "$t" rx_ring)" "$4"
	is "$k: $t: ethtool -g: TX ring" "$(val "$t" tx_ring)" "$4"
	is "$k: $t: ethtool -g: RX ring's maximum" "$(val "$t" rx_ring_max)" "$RING_KERNEL"
	is "$k: $t: ethtool -k: generic-receive-offload" "$(val "$t" gro)" "$5"
	is "$k: $t: sysfs: each RX queue's rps_cpus" "$(sed -n "s/^ETN $t rps //p" "$L" | tr '\n' ' ')" "$6"
}

check_qdisc() { # K
	local k=$1 n
	grep "^ETN applied qdisc: " "$L" | sed "s/^ETN applied qdisc: /# $k: applied: tc: /"
	has "$k: applied: tc: earlytune's mq root" '^ETN applied qdisc: qdisc mq e7e7: root'
	# mq has a class per TX queue the device allocated (numtxqueues), the
	# ones past the channels in use included, as the kernel's own mq does.
	n=$(grep -cE '^ETN applied qdisc: qdisc fq [0-9a-f]+: parent e7e7:[0-9a-f]+ ' "$L")
	is "$k: applied: tc: an fq child per allocated TX queue" "$n" "$(val applied numtxqueues)"
	is "$k: applied: ip: the device allocated $CH_KERNEL TX queues" "$(val applied numtxqueues)" "$CH_KERNEL"
	# Down, the interface had the noop root, which tc does not list.
	is "$k: reverted: tc: no root listed, the noop of a down interface, as before" \
		"$(grep "^ETN reverted qdisc: " "$L")" ""
	lacks "$k: reverted: tc: nothing of earlytune's handles" '^ETN (reverted|up) qdisc: .*e7e[789]:'
	grep "^ETN up qdisc: " "$L" | sed "s/^ETN up qdisc: /# $k: reverted, then up: tc: /"
	has "$k: reverted, then up: tc: the kernel's own mq root" '^ETN up qdisc: qdisc mq 0: root'
	n=$(grep -cE '^ETN up qdisc: qdisc [a-z_]+ 0: parent :[0-9a-f]+ ' "$L")
	is "$k: reverted, then up: tc: a child per TX queue of the restored channels" "$n" "$CH_KERNEL"
}

# check_kernel K LOG: every assertion on that guest's log
check_kernel() {
	local i
	guest_log "$1" "$2" ETN-DONE || return
	is "$1: no step of the guest failed" "$(grep -E '^ETN error' "$L")" ""
	is "$1: 4 vCPUs" "$(val kernel cpus)" 4
	check_sysfs "$1"
	i=$(val nic name)
	is "$1: the hot-added NIC is virtio_net's" "$(val nic driver)" virtio_net
	[ -n "$i" ] || return
	check_order "$1" "$i"
	check_records "$1" "$i"
	check_nic "$1" applied "$CH_WANT" "$RING_WANT" off \
		"rx-0/rps_cpus $RPS_WANT rx-1/rps_cpus $RPS_WANT "
	check_files "$1" applied "$QLEN_WANT" "$TXF_WANT" \
		"rx-0/rps_flow_cnt $FLOWS_WANT rx-1/rps_flow_cnt $FLOWS_WANT " \
		"tx-0/xps_cpus $XPS_WANT tx-1/xps_cpus $XPS_WANT " "$SOCK_WANT"
	sed -n "s/^ETN \(verify\|revert\)-out: /# $1: \1: /p" "$L"
	is "$1: verify holds (exit 0)" "$(val verify rc)" 0
	check_drift "$1" "$i"
	is "$1: revert exits 0" "$(val revert rc)" 0
	check_nic "$1" reverted "$CH_KERNEL" "$RING_KERNEL" on \
		"rx-0/rps_cpus 0 rx-1/rps_cpus 0 rx-2/rps_cpus 0 rx-3/rps_cpus 0 "
	# XPS: the driver's own for 4 queues, as before the event (the channels
	# go back last, after the masks recorded at 2 queues).
	check_files "$1" reverted "$QLEN_KERNEL" "$TXF_KERNEL" \
		"rx-0/rps_flow_cnt 0 rx-1/rps_flow_cnt 0 rx-2/rps_flow_cnt 0 rx-3/rps_flow_cnt 0 " \
		"tx-0/xps_cpus ${XPS_KERNEL4[0]} tx-1/xps_cpus ${XPS_KERNEL4[1]} tx-2/xps_cpus ${XPS_KERNEL4[2]} tx-3/xps_cpus ${XPS_KERNEL4[3]} " 0
	check_qdisc "$1"
	sed -n "s/^ETN verify-after-out: /# $1: verify after revert: /p" "$L"
	check_coalesce "$1" "$i"
}
