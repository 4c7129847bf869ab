#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# make check-nic-guest: the NIC and [sysfs] domains on real kernels, real
# virtio-net and real sysfs (issue 30), in QEMU guests booting the boot
# tests' Debian cloud kernels (bookworm's 6.1, bookworm-backports' 6.12).
# Not a step of make check: a 4-vCPU guest under software emulation takes
# minutes.
#
# Each guest (4 vCPUs, no NIC at boot) runs a dracut initramfs with
# earlytune's own dracut module (its binary, udev rule and configuration,
# its pre-udev hook) and this test's (tests/boot/nic-guest.sh at
# pre-mount). The configuration: [sysfs] KSM run and pages_to_scan and
# zswap's enabled, and [net] rps_sock_flow_entries, applied by the pre-udev
# hook's global run; a [net "etnic"] section for virtio_net: channels,
# rings, GRO off, coalescing (tx_frames), txqueuelen, RPS, the RX queues'
# flow tables, XPS; the vps profile's [net] qdisc = fq. Once the guest says
# ETN-READY, the host hot-adds a virtio NIC through QEMU's monitor
# (netdev_add tap with queues=4, device_add virtio-net-pci,mq=on,vectors=10):
# its udev add event runs earlytune's rule. The host asserts that the event
# applied channels, then rings, GRO, coalescing, txqueuelen, RPS, flow
# tables, XPS, then the qdisc — the kernel log's lines in that order, each
# with the value ethtool, sysfs and tc read back — that verify holds, and
# that revert puts every original back (read back the same way), [sysfs]'s
# too; then that coalesce.rx_usecs, which the device cannot take (no
# VIRTIO_NET_F_NOTF_COAL in QEMU), fails saying so.
#
# virtio_net gives a new device min(online CPUs, the device's queue pairs)
# combined channels (virtnet_probe): 4 here, so the section asks 2. Its
# rings are QEMU's rx/tx_queue_size (256); a resize (ethtool -G) needs
# kernel 6.0+ and the device's VIRTIO_F_RING_RESET (QEMU 7.2+), and a split
# ring's size is a power of two: the section asks 128.
#
# The root is tests/boot/mkroot.sh's cached one (it carries ethtool), seen
# through an overlay of this test's own at BUILD_DIR/boot-nic/rootfs; the
# tap lives in a network namespace of QEMU's own (unshare -n): nothing of
# this host's network is touched.
#
# Usage: tests/boot/nic.sh BUILD_DIR  (logs in BUILD_DIR/boot-nic)
# Environment: KERNELS (every kernel of the root). LOGS=DIR: assert again
# on the guests' logs of an earlier run (DIR/KVER.log), no boot.
set -u
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
T=nic
# shellcheck source=tests/boot/guest.sh
. "$here/guest.sh"
# shellcheck source=tests/boot/nic-check.sh
. "$here/nic-check.sh"
guest_setup "$1" usr/sbin/ethtool

# earlytune as make install puts it: this build's binary, its udev rule
# and dracut module (the paths in them are these).
install -D -m 0755 "$build/earlytune" "$ROOT/usr/sbin/earlytune"
install -D -m 0644 "$top/udev/70-earlytune.rules" "$ROOT/usr/lib/udev/rules.d/70-earlytune.rules"
for f in module-setup.sh earlytune-pre-udev.sh; do
	install -D -m 0755 "$top/dracut-module/50earlytune/$f" "$ROOT/usr/lib/dracut/modules.d/50earlytune/$f"
done
# The test's module: the tools that read back, the guest script, and the
# [sysfs] files as the kernel had them before earlytune's pre-udev hook.
guest_module etnic <<'EOF'
depends() { echo earlytune; return 0; }
installkernel() { hostonly='' instmods virtio_net; }
install() {
	inst_multiple ethtool tc ip dmesg udevadm awk sed grep cat sleep nproc uname tr ls wc find sort basename readlink
	inst_simple /etc/etnic-zswap.conf
	inst_simple /etc/etnic-coal.conf
	inst_hook pre-udev 40 "$moddir/etnic-before.sh"
	inst_hook pre-mount 99 "$moddir/etnic.sh"
}
EOF
install -m 0644 "$here/nic-guest.sh" "$MOD/etnic.sh"
cat >"$MOD/etnic-before.sh" <<'EOF'
{ echo "ETN sysfs-before ksm_run=$(cat /sys/kernel/mm/ksm/run)" \
	"ksm_pages_to_scan=$(cat /sys/kernel/mm/ksm/pages_to_scan)" \
	"zswap=$(cat /sys/module/zswap/parameters/enabled 2>/dev/null || echo absent)"; } >/dev/console 2>&1
EOF

# monitor SOCKET COMMAND: one command on QEMU's human monitor, its answer
monitor() {
	python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); time.sleep(0.3); s.recv(4096)
s.sendall((sys.argv[2] + "\n").encode()); time.sleep(0.5); print(s.recv(4096).decode(errors="replace"))' "$1" "$2"
}

# guest KVER: boot, hot-add the NIC at ETN-READY, wait for the power-off
guest() {
	local k=$1 log=$B/$1.log sock=$B/mon-$1.sock t i
	rm -f "$log" "$sock"
	t=$(date +%s)
	unshare -n qemu-system-x86_64 -accel tcg -m 1024 -smp 4 -display none -no-reboot \
		-serial "file:$log" -monitor "unix:$sock,server,nowait" \
		-kernel "$ROOT/boot/vmlinuz-$k" -initrd "$ROOT/boot/et-nic-$k.img" \
		-append "console=ttyS0 panic=-1 root=/dev/vda rw quiet" \
		-drive file="$B/root.img",if=none,id=d0,format=raw -device virtio-blk-pci,drive=d0 \
		-nic none >/dev/null 2>&1 &
	qpid=$!
	for ((i = 0; i < 1200; i++)); do
		grep -q '^ETN-READY' "$log" 2>/dev/null && break
		kill -0 $qpid 2>/dev/null || break
		sleep 0.5
	done
	echo "# $k: guest ready in $(($(date +%s) - t)) s"
	if grep -q '^ETN-READY' "$log"; then
		monitor "$sock" "netdev_add tap,id=hn0,ifname=etnic0,script=no,downscript=no,queues=4" >"$B/monitor-$k.log"
		monitor "$sock" "device_add virtio-net-pci,netdev=hn0,mq=on,vectors=10,id=hotnic" >>"$B/monitor-$k.log"
	fi
	for ((i = 0; i < 1200; i++)); do
		kill -0 $qpid 2>/dev/null || break
		sleep 0.5
	done
	kill $qpid 2>/dev/null && wait $qpid 2>/dev/null
	qpid=
	echo "# $k: guest ran $(($(date +%s) - t)) s; host load $(cut -d' ' -f1-3 /proc/loadavg)"
}

for k in $(guest_kernels); do
	# zswap's enabled: the other value than this kernel's default; in the
	# configuration where the kernel has zswap, else tried on its own
	zswap=Y
	grep -q '^CONFIG_ZSWAP_DEFAULT_ON=y' "$ROOT/boot/config-$k" && zswap=N
	zswap_conf "$zswap" >"$ROOT/etc/etnic-zswap.conf"
	coal_conf >"$ROOT/etc/etnic-coal.conf"
	mkdir -p "$ROOT/etc/earlytune.d"
	nic_conf >"$ROOT/etc/earlytune.d/50-etnic.conf"
	grep -q '^CONFIG_ZSWAP=y' "$ROOT/boot/config-$k" && zswap_conf "$zswap" >>"$ROOT/etc/earlytune.d/50-etnic.conf"
	guest_image "$k" --add "earlytune etnic" --add-drivers "virtio_pci virtio_blk virtio_net" || continue
	guest "$k"
	rm -f "$ROOT/boot/et-nic-$k.img"
	check_kernel "$k" "$B/$k.log"
done
