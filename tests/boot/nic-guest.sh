# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by dracut's init (POSIX sh) at pre-mount in the guests of
# tests/boot/nic.sh: udev is running with earlytune's rule, earlytune's
# pre-udev hook has applied the global part ([sysfs] among it). Reports
# [sysfs] and verifies it, says ETN-READY, waits for the NIC the host then
# hot-adds (QEMU's device_add) and for udev to finish its event, reports
# what the event did (the kernel log's lines, the records, ethtool, the
# queues' sysfs files, tc), then verify, revert, and everything read back
# again. One "ETN TAG key=value…" line per fact; the host asserts.
exec >/dev/console 2>&1
echo "1 4 1 7" >/proc/sys/kernel/printk
ET=/usr/sbin/earlytune
KSM=/sys/kernel/mm/ksm ZSWAP=/sys/module/zswap/parameters/enabled

# etn_run TAG CMD…: the command's exit status and each line of its output
etn_run() {
	_t=$1
	shift
	"$@" >/run/etn.out 2>&1
	echo "ETN $_t rc=$?"
	sed "s/^/ETN $_t-out: /" /run/etn.out
}

# etn_nic TAG: the interface as ethtool, sysfs and tc show it
etn_nic() {
	_q=/sys/class/net/$IF/queues
	ethtool -l "$IF" >/run/etn.l 2>&1
	ethtool -g "$IF" >/run/etn.g 2>&1
	ethtool -c "$IF" >/run/etn.c 2>&1
	echo "ETN $1 channels=$(awk '/^Current/ { c = 1 } c && /^Combined:/ { print $2; exit }' /run/etn.l)" \
		"channels_max=$(awk '/^Pre-set/ { c = 1 } c && /^Combined:/ { print $2; exit }' /run/etn.l)" \
		"rx_ring=$(awk '/^Current/ { c = 1 } c && /^RX:/ { print $2; exit }' /run/etn.g)" \
		"tx_ring=$(awk '/^Current/ { c = 1 } c && /^TX:/ { print $2; exit }' /run/etn.g)" \
		"rx_ring_max=$(awk '/^Pre-set/ { c = 1 } c && /^RX:/ { print $2; exit }' /run/etn.g)" \
		"gro=$(ethtool -k "$IF" | awk '$1 == "generic-receive-offload:" { print $2 }')" \
		"rxq=$(ls -d "$_q"/rx-* | wc -l) txq=$(ls -d "$_q"/tx-* | wc -l)" \
		"numtxqueues=$(ip -d link show "$IF" | sed -n 's/.* numtxqueues \([0-9]*\) .*/\1/p')" \
		"txqueuelen=$(cat "/sys/class/net/$IF/tx_queue_len")" \
		"sock_flows=$(cat /proc/sys/net/core/rps_sock_flow_entries)" \
		"tx_frames=$(awk '$1 == "tx-frames:" { print $2; exit }' /run/etn.c)" \
		"rx_usecs=$(awk '$1 == "rx-usecs:" { print $2; exit }' /run/etn.c)"
	for _f in "$_q"/rx-*/rps_cpus; do
		echo "ETN $1 rps ${_f#"$_q"/} $(cat "$_f")"
	done
	for _f in "$_q"/rx-*/rps_flow_cnt; do
		echo "ETN $1 flows ${_f#"$_q"/} $(cat "$_f")"
	done
	for _f in "$_q"/tx-*/xps_cpus; do
		echo "ETN $1 xps ${_f#"$_q"/} $(cat "$_f")"
	done
	tc qdisc show dev "$IF" | sed "s/^/ETN $1 qdisc: /"
	sed "s/^/ETN $1 ethtool-l: /" /run/etn.l
	sed "s/^/ETN $1 ethtool-g: /" /run/etn.g
	sed "s/^/ETN $1 ethtool-c: /" /run/etn.c
}

etn_sysfs() {
	echo "ETN $1 ksm_run=$(cat $KSM/run) ksm_pages_to_scan=$(cat $KSM/pages_to_scan)" \
		"zswap=$(cat $ZSWAP 2>/dev/null || echo absent)"
}

echo "ETN kernel release=$(uname -r) cpus=$(nproc)"
etn_sysfs sysfs-applied
etn_run sysfs-verify $ET verify --only sysfs
# A kernel without zswap: its section alone, as plan and verify see it.
if [ ! -e $ZSWAP ]; then
	etn_run zswap-plan $ET --config /etc/etnic-zswap.conf plan --only sysfs
	etn_run zswap-verify $ET --config /etc/etnic-zswap.conf verify --only sysfs
fi

# The NIC: QEMU hot-adds it once the host reads this line.
echo "ETN-READY"
IF=
i=0
while [ -z "$IF" ] && [ $i -lt 1200 ]; do
	for d in /sys/class/net/*; do
		[ "$(readlink "$d/device/driver" 2>/dev/null)" ] && IF=${d##*/}
	done
	[ -n "$IF" ] || sleep 0.5
	i=$((i + 1))
done
[ -n "$IF" ] || { echo "ETN error no NIC appeared in 600 s"; echo "ETN-DONE"; echo o >/proc/sysrq-trigger; }
# The event's RUN (earlytune) ends before udev calls the event done.
udevadm settle --timeout=600 || echo "ETN error udevadm settle timed out"
echo "ETN nic name=$IF ifindex=$(cat /sys/class/net/$IF/ifindex) driver=$(basename "$(readlink /sys/class/net/$IF/device/driver)")"
dmesg | grep -E 'earlytune: ' | sed 's/^\[[^]]*\] //; s/^/ETN kmsg: /'
etn_nic applied
etn_run status $ET status
# The interface's records, in the order they were written (each before
# its change), the original its fifth field.
for f in $(find /run/earlytune/links -type f | sort); do
	sed "s|^|ETN record ${f#/run/earlytune/}: |" "$f"
done

etn_run verify $ET verify
# Another writer changes the channels: verify names the drift; the qdisc
# as the change left it. Then back to the section's value.
ethtool -L "$IF" combined 3
etn_run drift $ET verify
tc qdisc show dev "$IF" | sed "s/^/ETN drift qdisc: /"
ethtool -L "$IF" combined 2
etn_run revert $ET revert
etn_nic reverted
# Down, the interface had no root but noop; up, the kernel's own.
ip link set "$IF" up
tc qdisc show dev "$IF" | sed "s/^/ETN up qdisc: /"
etn_sysfs sysfs-reverted
etn_run verify-after $ET verify
# rx_usecs needs the device's VIRTIO_NET_F_NOTF_COAL, which QEMU does not
# offer: the driver refuses it, and earlytune says so.
etn_run coal-plan $ET --config /etc/etnic-coal.conf plan --only nic
etn_run coal-apply $ET --config /etc/etnic-coal.conf apply --only nic
ethtool -c "$IF" | sed "s/^/ETN coal ethtool-c: /"
echo "ETN-DONE"
echo o >/proc/sysrq-trigger
