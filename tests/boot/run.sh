#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Boot tests: real Debian cloud kernels (bookworm's 6.1, bookworm-backports'
# 6.12), real dracut and initramfs-tools images built in a Debian root with
# earlytune installed from its .deb (`make deb`; under tests/check, the one
# tests/package.sh built and checked), booted under QEMU (software
# emulation) with a virtio disk, a multiqueue virtio NIC (tap, 2 queues) and
# a single-queue one. Each guest prints "ETTEST …" lines and a marker on the
# serial console and powers off; a hang, panic or missing marker fails.
#
# The root is tests/boot/mkroot.sh's cached one (built once per set of
# inputs, outside the tree), seen at BUILD_DIR/boot/rootfs through an
# overlay whose upper layer (BUILD_DIR/boot/upper) starts empty at every run:
# each run installs the package into a pristine root, and the cache is never
# written. First the cloud-init first boot (cloudinit.sh, Debian 12's
# kernel). Then per kernel three boots: initramfs-tools (tuned, then power off in
# the initramfs), earlytune=0 (dracut: untouched, [sched] changes nothing),
# and the full systemd boot, whose dracut initramfs reports the tuned state
# and runs the [sched] checks before it goes on to the real root (its
# console up to the real root's first report is asserted as "dracut-KVER").
#
# ET_ARCH=arm64 (make check-boot ARCH=arm64): the same on arm64 — an arm64
# root (mkroot.sh under qemu-user), `make deb ARCH=arm64`, Debian's arm64
# cloud kernels booted by qemu-system-aarch64 -M virt (the hot-added disk
# goes to a PCIe root port: the virt machine's root complex takes none).
#
# Usage: tests/boot/run.sh BUILD_DIR     (logs and images in BUILD_DIR/boot)
set -u
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=$(realpath "$1")
B=$build/boot
ARCH=${ET_ARCH:-amd64}
case $ARCH in
amd64) QEMU=(qemu-system-x86_64 -accel tcg) CONSOLE=ttyS0 HOTBUS= DEB_ARCH=() ;;
arm64)
	QEMU=(qemu-system-aarch64 -M virt,gic-version=3 -cpu max,pauth-impdef=on -accel tcg
		-device pcie-root-port,id=hp0,chassis=1)
	CONSOLE=ttyAMA0 HOTBUS=,bus=hp0 DEB_ARCH=(ARCH=arm64)
	;;
*) echo "run.sh: ET_ARCH=$ARCH: amd64 or arm64" >&2; exit 2 ;;
esac
export ET_ARCH=$ARCH
ROOT=$B/rootfs
TAP=ettap$$
PASS=0 FAIL=0 qpid=
start=$(date +%s%N) timings=()
mkdir -p "$B"
# shellcheck source=tests/boot/root.sh
. "$here/root.sh"
# shellcheck source=tests/boot/cloudinit.sh
. "$here/cloudinit.sh"

pass() { echo "ok - boot: $1"; PASS=$((PASS + 1)); }
fail() { echo "not ok - boot: $1"; shift; for l in "$@"; do echo "    $l"; done; FAIL=$((FAIL + 1)); }
# phase NAME START (date +%s%N): "# NAME: S s", kept for the summary
secs() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }
phase() {
	local s
	s=$(secs "$2")
	echo "# $1: $s s"
	timings+=("$(printf '#   %6s s  %s' "$s" "$1")")
}
finish() {
	[ -z "$qpid" ] || kill "$qpid" 2>/dev/null
	ip link del "$TAP" 2>/dev/null
	et_root_umount "$ROOT" || fail "unmount the root's overlay and binds ($ROOT)"
	if [ ${#timings[@]} -gt 0 ]; then
		echo "# timing:"
		printf '%s\n' "${timings[@]}"
		printf '#   %6s s  %s\n' "$(secs "$start")" total
	fi
	echo "boot: $PASS passed, $FAIL failed"
	[ "$FAIL" = 0 ] && [ "$PASS" -gt 0 ]
	exit $?
}
trap finish EXIT
trap 'fail "interrupted by a signal"; exit 1' INT TERM HUP

# ---- the root, earlytune in it ------------------------------------------------

t=$(date +%s%N)
lower=$("$here/mkroot.sh") || { fail "build the Debian root (debootstrap)"; exit; }
echo "# root: $lower"
et_root_mount "$lower" "$B" "$ROOT" || { fail "mount the root (overlay on $lower, binds) at $ROOT"; exit; }
phase root "$t"

# earlytune from its .deb: the package is what the boots prove.
t=$(date +%s%N)
if [ "${ET_DEB_REUSE:-0}" = 1 ] && ls "$build"/deb/earlytune_*.deb >/dev/null 2>&1; then
	echo "# the .deb of the package suite"
else
	make -s -C "$top" deb BUILD="$build" "${DEB_ARCH[@]}" >"$B/deb.log" 2>&1 || { fail "make deb" "$(tail -20 "$B/deb.log")"; exit; }
fi
deb=$(ls "$build"/deb/earlytune_*_"$ARCH".deb | head -1)
phase deb "$t"
t=$(date +%s%N)
cp "$deb" "$ROOT/tmp/earlytune.deb"
# Its trigger rebuilds the newest kernel's initramfs (update-initramfs -u).
if chroot "$ROOT" dpkg -i /tmp/earlytune.deb >"$B/dpkg.log" 2>&1; then pass "dpkg -i $(basename "$deb") in the root"
else fail "dpkg -i $(basename "$deb") in the root" "$(tail -10 "$B/dpkg.log")"; exit; fi
rm -f "$ROOT/tmp/earlytune.deb"
out=$(chroot "$ROOT" systemctl is-enabled earlytune.service 2>&1)
[ "$out" = enabled ] && pass "the package enabled earlytune.service (systemctl is-enabled)" ||
	fail "the package enabled earlytune.service (systemctl is-enabled)" "$out"
out=$(chroot "$ROOT" systemctl is-enabled earlytune-verify.timer 2>&1)
[ "$out" = enabled ] && pass "the verify timer is enabled (it starts where a textfile directory exists)" ||
	fail "the verify timer is enabled (it starts where a textfile directory exists)" "$out"
chroot "$ROOT" dpkg -L earlytune 2>/dev/null | grep -qx /usr/sbin/earlytune &&
	pass "dpkg -L earlytune lists /usr/sbin/earlytune" || fail "dpkg -L earlytune lists /usr/sbin/earlytune"
[ ! -e "$ROOT/usr/lib/systemd/system/sysinit.target.wants/earlytune.service" ] &&
	pass "no static sysinit.target.wants link" || fail "no static sysinit.target.wants link"
install -D -m 0755 "$here/99ettest/module-setup.sh" "$ROOT/usr/lib/dracut/modules.d/99ettest/module-setup.sh"
install -D -m 0755 "$here/99ettest/ettest.sh" "$ROOT/usr/lib/dracut/modules.d/99ettest/ettest.sh"
install -D -m 0644 "$here/report.sh" "$ROOT/usr/lib/dracut/modules.d/99ettest/report.sh"
install -D -m 0644 "$here/sched.sh" "$ROOT/usr/lib/dracut/modules.d/99ettest/sched.sh"
install -D -m 0644 "$here/report.sh" "$ROOT/etc/ettest-report.sh"
install -D -m 0755 "$here/itools-hook" "$ROOT/etc/initramfs-tools/hooks/ettest"
install -D -m 0755 "$here/itools-premount" "$ROOT/etc/initramfs-tools/scripts/init-premount/ettest"
install -D -m 0755 "$here/ettest-full" "$ROOT/usr/local/sbin/ettest-full"
install -D -m 0644 "$here/ettest.service" "$ROOT/etc/systemd/system/ettest.service"
mkdir -p "$ROOT/etc/systemd/system/multi-user.target.wants"
ln -sf ../ettest.service "$ROOT/etc/systemd/system/multi-user.target.wants/ettest.service"
cloud_install
# The stacked-device boot: a value for LVs and LUKS maps on virtual disks
# that neither LVM (auto read-ahead only raises) nor cryptsetup writes, so
# the value in force is earlytune's; the LUKS keyfile.
mkdir -p "$ROOT/etc/earlytune.d"
cat >"$ROOT/etc/earlytune.d/50-ettest-stacked.conf" <<'CONF'
[block "ettest-stacked"]
match.class = stacked
match.slave_class = virtual
# boot test: a value no other writer sets
read_ahead_kb = 768
CONF
head -c 64 /dev/urandom >"$ROOT/etc/ettest.key" && chmod 0600 "$ROOT/etc/ettest.key"
# [limits] (issue 13): a test service that sleeps, its nofile from a drop-in
# (the generator), core from the manager default (the initramfs).
printf '[Unit]\nDescription=earlytune boot test: limits\n[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n' \
	>"$ROOT/etc/systemd/system/ettest-limits.service"
ln -sf ../ettest-limits.service "$ROOT/etc/systemd/system/multi-user.target.wants/ettest-limits.service"
cat >"$ROOT/etc/earlytune.d/50-ettest-limits.conf" <<'CONF'
[limits "ettest-limits.service"]
# boot test: not systemd's 1024:524288
nofile = 4096:8192
[limits]
# boot test: not Debian's 0:infinity
core = 1M
CONF
echo "/dev/vda / ext4 rw 0 1" >"$ROOT/etc/fstab"
echo ettest >"$ROOT/etc/hostname"
# The test NICs need their driver in the image (hostonly images have none).
grep -q '^virtio_net' "$ROOT/etc/initramfs-tools/modules" 2>/dev/null ||
	printf 'virtio_pci\nvirtio_blk\nvirtio_net\n' >>"$ROOT/etc/initramfs-tools/modules"

kernels=$(cd "$ROOT/lib/modules" && ls | sort -V)
[ "$(echo "$kernels" | wc -w)" -ge 2 ] || fail "two kernels in the root" "found: $kernels"
phase "package and test files" "$t"

# The kernel hooks, run the way Debian and kernel-install run them.
hooks() { # KVER
	local k=$1 out
	out=$(chroot "$ROOT" /etc/kernel/postinst.d/zz-earlytune "$k" 2>&1)
	case $out in *"has no module"* | *"cannot tell"* | *"not installed"*) fail "$k: postinst hook finds every needed module" "$out" ;;
	*) pass "$k: postinst hook finds every needed module" ;; esac
	out=$(chroot "$ROOT" /etc/kernel/postinst.d/zz-earlytune 9.9.9-missing 2>&1)
	# No /lib/modules/9.9.9-missing: which modules it has is unknown, said so.
	case $out in *"kernel 9.9.9-missing is not installed: no /lib/modules/9.9.9-missing"*"may lack modules"*)
		pass "postinst hook names the modules it cannot find for a kernel" ;;
	*) fail "postinst hook names the modules it cannot find for a kernel" "$out" ;; esac
	out=$(chroot "$ROOT" /usr/lib/kernel/install.d/95-earlytune.install add "$k" "/boot/vmlinuz-$k" 2>&1; echo "rc=$?")
	case $out in *"has no module"* | *"cannot tell"* | *"not installed"* | *"rc=0"*"rc="*) fail "$k: kernel-install plugin" "$out" ;;
	*rc=0) pass "$k: kernel-install plugin passes and finds the modules" ;;
	*) fail "$k: kernel-install plugin" "$out" ;; esac
}

# The image every dracut boot of KVER boots: the earlytune=0 boot (the test
# hook powers off) and the full boot (rd.ettest=continue). The
# initramfs-tools image is the root's own /boot/initrd.img-KVER, rebuilt by
# image_mode's update-initramfs with the test hooks in /etc/initramfs-tools.
# zstd -3: dracut's default here (gzip) or its zstd -15 takes 15-30 s per
# image on this machine, -3 under 5 s; what is compressed how is no part of
# the test.
build_images() { # KVER
	local k=$1 t
	t=$(date +%s%N)
	chroot "$ROOT" dracut -q --no-hostonly --force --compress "zstd -q -3 -T0" --add ettest \
		--add-drivers "virtio_pci virtio_blk virtio_net" "/boot/et-dracut-$k.img" "$k" \
		>"$B/dracut-$k.build.log" 2>&1 || { fail "$k: dracut builds an image" "$(tail -5 "$B/dracut-$k.build.log")"; return; }
	phase "$k: dracut image" "$t"
	chroot "$ROOT" lsinitramfs "/boot/et-dracut-$k.img" >"$B/dracut-$k.list" 2>/dev/null
	image_has dracut "$k"
	grep -q 'pre-udev/50-earlytune' "$B/dracut-$k.list" && pass "$k: dracut image has the pre-udev hook" ||
		fail "$k: dracut image has the pre-udev hook"
}
image_has() { # GEN KVER: what both generators' images must carry ($B/GEN-KVER.list)
	local f
	for f in usr/sbin/earlytune 70-earlytune.rules tcp_bbr.ko sch_fq.ko; do
		grep -q "$f" "$B/$1-$2.list" && pass "$2: $1 image has $f" || fail "$2: $1 image has $f"
	done
}

# ---- booting -------------------------------------------------------------------

mkfs_disk() { rm -f "$1" && truncate -s "$2" "$1" && mkfs.ext4 -q -F "$1"; }

# boot NAME KERNEL INITRD APPEND [extra qemu args…]: console log in $B/NAME.log
boot() {
	local name=$1 kernel=$2 initrd=$3 append=$4 t
	shift 4
	t=$(date +%s%N)
	timeout 300 "${QEMU[@]}" -m 1024 -smp 2 -display none -no-reboot \
		-serial "file:$B/$name.log" -kernel "$kernel" -initrd "$initrd" \
		-append "console=$CONSOLE panic=-1 $append" \
		-drive file="$B/disk.img",if=none,id=d0,format=raw -device virtio-blk-pci,drive=d0,num-queues=1 \
		-netdev tap,id=n0,ifname="$TAP",script=no,downscript=no,queues=2 \
		-device virtio-net-pci,netdev=n0,mq=on,vectors=6 \
		-netdev user,id=n1 -device virtio-net-pci,netdev=n1 "$@" >/dev/null 2>&1
	phase "boot $name" "$t"
}

# check NAME: the marker, then the assertions on that console log
marker() { # NAME STAGE
	local what="guest reported and powered off"
	case $1 in dracut-*) what="initramfs stage reported (the full boot's, then on to the real root)" ;; esac
	if grep -q "ETTEST-DONE-$2" "$B/$1.log"; then
		pass "$1: $what"
		return 0
	fi
	fail "$1: $what (no marker: hang, panic or failure)" "$(tail -40 "$B/$1.log")"
	return 1
}
has() { # NAME DESC REGEX
	if grep -Eq "$3" "$B/$1.log"; then pass "$1: $2"; else fail "$1: $2" "no line matches /$3/" "$(grep ETTEST "$B/$1.log" | head -30)"; fi
}
lacks() { # NAME DESC REGEX
	if grep -Eq "$3" "$B/$1.log"; then fail "$1: $2" "$(grep -E "$3" "$B/$1.log" | head -5)"; else pass "$1: $2"; fi
}
ra_ok() { # NAME: 128 ≤ read_ahead_kb of vda ≤ 1024
	local ra
	ra=$(sed -n 's/.*ETTEST disk=vda .* ra=\([0-9]*\).*/\1/p' "$B/$1.log" | tail -1)
	if [ -n "$ra" ] && [ "$ra" -ge 128 ] && [ "$ra" -le 1024 ]; then pass "$1: vda read-ahead $ra within 128..1024"
	else fail "$1: vda read-ahead within 128..1024" "read $ra"; fi
}

assert_tuned() { # NAME
	has "$1" "tcp_bbr loaded" 'ETTEST module=tcp_bbr'
	has "$1" "bbr is the congestion control" 'ETTEST cc=bbr'
	has "$1" "multiqueue NIC: mq root" 'ETTEST nic=.* txq=2 .*qdisc=qdisc mq e7e7: root'
	has "$1" "multiqueue NIC: fq on each TX queue" 'ETTEST nic=.* txq=2 .*qdisc fq [0-9a-f]+: parent e7e7:1 .*qdisc fq [0-9a-f]+: parent e7e7:2 '
	has "$1" "single-queue NIC: fq root" 'ETTEST nic=.* txq=1 .*qdisc=qdisc fq e7e[89]: root'
	has "$1" "disk scheduler none" 'ETTEST disk=vda sched=\[none\]'
	ra_ok "$1"
	has "$1" "THP enabled madvise" 'ETTEST thp_enabled=always \[madvise\] never'
	has "$1" "THP defrag defer+madvise" 'ETTEST thp_defrag=.*\[defer\+madvise\]'
	has "$1" "earlytune's summary line in the kernel log" 'ETTEST kmsg .*earlytune: apply: [0-9]+ changed, [0-9]+ kept, [0-9]+ skipped, 0 failed in [0-9.]+ ms'
	case $1 in *-6.1.*) has "$1" "disk scheduler changed by the udev rule" 'ETTEST kmsg .*earlytune: block vda queue/scheduler: mq-deadline -> none' ;; esac
	lacks "$1" "no failure in the kernel log" 'ETTEST kmsg .*earlytune: apply[^:]*: [0-9]+ changed, [0-9]+ kept, [0-9]+ skipped, [1-9]'
}

assert_untouched() { # NAME
	lacks "$1" "tcp_bbr not loaded" 'ETTEST module=tcp_bbr'
	has "$1" "congestion control is the kernel's cubic" 'ETTEST cc=cubic'
	lacks "$1" "no earlytune qdisc" 'e7e[789]:'
	lacks "$1" "disk untouched" 'ETTEST kmsg .*earlytune: block'
	# 6.1 has mq-deadline built in: the kernel's choice for one hardware queue.
	case $1 in *-6.1.*) has "$1" "disk scheduler the kernel's mq-deadline" 'ETTEST disk=vda sched=\[mq-deadline\]' ;; esac
	has "$1" "THP enabled the kernel's always" 'ETTEST thp_enabled=\[always\]'
	lacks "$1" "earlytune wrote nothing to the kernel log" 'ETTEST kmsg .*earlytune: .* -> '
}

# [sched] (issue 13) in the dracut initramfs (tests/boot/sched.sh): the knobs
# this kernel has take the test's values and read back, the others are a skip
# with its reason; verify holds; revert gives back every value the kernel had;
# debugfs, which nothing had mounted, is not left mounted.
same_values() { # NAME DESC TAG1 TAG2: the two lines' knob values are equal
	local a b
	a=$(sed -n "s/.*ETTEST sched-$3 //p" "$B/$1.log" | tr -d '\r')
	b=$(sed -n "s/.*ETTEST sched-$4 //p" "$B/$1.log" | tr -d '\r')
	[ -n "$a" ] && [ "$a" = "$b" ] && pass "$1: $2" || fail "$1: $2" "$3: $a" "$4: $b"
}
sched_set() { # NAME KEY VALUE: the kernel had another value; earlytune's read back
	lacks "$1" "sched: $2 was not $3 before" "ETTEST sched-before .*$2=$3([[:space:]]|$)"
	has "$1" "sched: $2 is $3 after apply" "ETTEST sched-applied .*$2=$3([[:space:]]|$)"
}
assert_sched() { # NAME KVER
	local n=$1 k
	marker "$n" sched || return
	has "$n" "sched: debugfs not mounted before earlytune" 'ETTEST sched-start debugfs=unmounted'
	case $n in off-*)
		same_values "$n" "sched: earlytune=0 changed no knob" before applied
		return ;;
	esac
	has "$n" "sched: apply exit 0" 'ETTEST sched-apply rc=0'
	case $2 in
	6.1.*)
		for k in latency_ns:9000000 min_granularity_ns:1100000 wakeup_granularity_ns:1300000 migration_cost_ns:400000; do
			sched_set "$n" "${k%%:*}" "${k#*:}"
		done
		has "$n" "sched: plan mounts nothing: latency_ns unknown" 'ETTEST sched-plan sched +debugfs +sched/latency_ns .* skip +debugfs is not mounted'
		has "$n" "sched: plan writes latency_ns through a debugfs already mounted" 'ETTEST sched-plan-mounted sched +debugfs +sched/latency_ns .* change '
		has "$n" "sched: plan skips base_slice_ns (EEVDF, 6.6+), with a reason" 'ETTEST sched-plan sched .*base_slice_ns .*skip +[[:alnum:]]'
		has "$n" "sched: base_slice_ns asked for is unmet here" 'ETTEST sched-verify-all-out .*unmet: sched +sched +base_slice_ns:'
		;;
	*)
		for k in base_slice_ns:2200000 migration_cost_ns:400000; do sched_set "$n" "${k%%:*}" "${k#*:}"; done
		has "$n" "sched: plan mounts nothing: base_slice_ns unknown" 'ETTEST sched-plan sched +debugfs +sched/base_slice_ns .* skip +debugfs is not mounted'
		has "$n" "sched: plan writes base_slice_ns through a debugfs already mounted" 'ETTEST sched-plan-mounted sched +debugfs +sched/base_slice_ns .* change '
		for k in latency_ns min_granularity_ns wakeup_granularity_ns; do
			has "$n" "sched: plan skips $k (gone with EEVDF), with a reason" "ETTEST sched-plan sched .*$k .*skip +[[:alnum:]]"
			has "$n" "sched: $k asked for is unmet here" "ETTEST sched-verify-all-out .*unmet: sched +sched +$k:"
		done
		;;
	esac
	has "$n" "sched: verify --only sched holds" 'ETTEST sched-verify rc=0'
	has "$n" "sched: verify with the other scheduler's keys fails (unmet)" 'ETTEST sched-verify-all rc=1'
	has "$n" "sched: revert exit 0" 'ETTEST sched-revert rc=0'
	same_values "$n" "sched: revert restored every knob" before reverted
	for k in plan apply verify revert; do
		has "$n" "sched: debugfs not left mounted after $k" "ETTEST sched-$k debugfs=unmounted"
	done
}

# The full boot: the root as an ext4 image, the dracut image, systemd. The
# test hook in the initramfs reports and runs the [sched] checks, then the
# boot goes on (rd.ettest=continue); in the real root the test unit brings
# the NICs up, reports, and waits for a disk that the host then hot-adds
# through the QEMU monitor. The console ($B/full-KVER.console) is split at
# the real root's first report: before it dracut-KVER.log (the initramfs
# stage), from it full-KVER.log, so that neither stage's assertions can be
# met by the other's lines.
monitor() { # SOCKET COMMAND
	python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); time.sleep(0.3); s.recv(4096)
s.sendall((sys.argv[2] + "\n").encode()); time.sleep(0.5); print(s.recv(4096).decode(errors="replace"))' "$1" "$2"
}

full_boot() { # KVER
	local k=$1 name=full-$1 sock=$B/mon-$1.sock t i con=$B/full-$1.console
	t=$(date +%s%N)
	rm -f "$sock" "$con" "$B/$name.log" "$B/dracut-$k.log"
	mkfs_disk "$B/hot.img" 16M
	# The initramfs leaves LVM and LUKS to the real root (a LUKS prompt there
	# would wait for a password): lvm2's autoactivation and crypttab.
	"${QEMU[@]}" -m 1024 -smp 2 -display none -no-reboot \
		-serial "file:$con" -monitor "unix:$sock,server,nowait" \
		-kernel "$ROOT/boot/vmlinuz-$k" -initrd "$ROOT/boot/et-dracut-$k.img" \
		-append "console=$CONSOLE panic=-1 root=/dev/vda rw rd.lvm=0 rd.luks=0 rd.ettest=continue cloud-init=disabled" \
		-drive file="$B/root.img",if=none,id=d0,format=raw -device virtio-blk-pci,drive=d0,num-queues=1 \
		-drive file="$B/lvm.img",if=none,id=d1,format=raw -device virtio-blk-pci,drive=d1,num-queues=1 \
		-netdev tap,id=n0,ifname="$TAP",script=no,downscript=no,queues=2 \
		-device virtio-net-pci,netdev=n0,mq=on,vectors=6 \
		-netdev user,id=n1 -device virtio-net-pci,netdev=n1 >/dev/null 2>&1 &
	qpid=$!
	for ((i = 0; i < 600; i++)); do
		grep -q ETTEST-HOTPLUG-READY "$con" 2>/dev/null && break
		kill -0 $qpid 2>/dev/null || break
		sleep 0.5
	done
	if grep -q ETTEST-HOTPLUG-READY "$con"; then
		monitor "$sock" "drive_add 0 if=none,id=hot0,file=$B/hot.img,format=raw" >/dev/null
		monitor "$sock" "device_add virtio-blk-pci,drive=hot0,id=hotdisk,num-queues=1$HOTBUS" >/dev/null
	fi
	for ((i = 0; i < 240; i++)); do
		kill -0 $qpid 2>/dev/null || break
		sleep 0.5
	done
	kill $qpid 2>/dev/null && wait $qpid 2>/dev/null
	qpid=
	phase "boot $name" "$t"
	if grep -q 'ETTEST stage=full' "$con"; then
		awk -v a="$B/dracut-$k.log" -v b="$B/$name.log" '/ETTEST stage=full/ { f = 1 } { print > (f ? b : a) }' "$con"
	else
		cp "$con" "$B/dracut-$k.log" && cp "$con" "$B/$name.log"
	fi
	initramfs_checks dracut "$k"
	marker "$name" full || return
	assert_tuned "$name"
	has "$name" "default qdisc still fq after systemd-sysctl" 'ETTEST default_qdisc=fq'
	has "$name" "the boot wrote the sysctl guard in /run: qdisc" 'ETTEST guard net.core.default_qdisc=fq'
	has "$name" "the boot wrote the sysctl guard in /run: bbr" 'ETTEST guard net.ipv4.tcp_congestion_control=bbr'
	has "$name" "NICs are up" 'ETTEST nic=.* up=up'
	assert_stacked "$name"
	assert_limits "$name"
	marker "$name" hotplug || return
	has "$name" "hot-added disk: scheduler none" 'ETTEST hot=vdc sched=\[none\]'
	has "$name" "hot-added disk: the udev rule ran earlytune for it" 'ETTEST kmsg .*earlytune: apply vdc: [0-9]+ changed, [0-9]+ kept, 0 skipped, 0 failed'
	case $k in 6.1.*) has "$name" "hot-added disk: scheduler changed" 'ETTEST kmsg .*earlytune: block vdc queue/scheduler: mq-deadline -> none' ;; esac
	has "$name" "status: the runs since boot" 'ETTEST status: earlytune status: [0-9]+ runs since boot'
	has "$name" "status: the initramfs boot run (its global part)" 'ETTEST status: [0-9-]+ [0-9:]+ [+-][0-9]+  apply --boot --only modules,thp,nic,net,limits,sched,sysfs: [0-9]+ changed, [0-9]+ kept, [0-9]+ skipped, 0 failed'
	has "$name" "status: the udev run of the hot-added disk" 'ETTEST status: [0-9-]+ [0-9:]+ [+-][0-9]+  apply --boot --device vdc: [0-9]+ changed'
	has "$name" "status: the LV's udev run and its change" 'ETTEST status:   changed +block dm-[0-9]+ queue/read_ahead_kb: [0-9]+ -> 768'
}

# The LV and the LUKS map on vdb: made by the first full boot, brought up by
# lvm2 and crypttab in the next; either way earlytune's udev rule tunes them
# on their change event (before it, a dm device has no table).
assert_stacked() { # NAME
	marker "$1" stacked || return
	if grep -q 'ETTEST lvm=created' "$B/$1.log"; then pass "$1: LV and LUKS map made in the guest"
	elif grep -q 'ETTEST lvm=found' "$B/$1.log"; then pass "$1: LV and LUKS map of the last boot brought up at boot"
	else fail "$1: LV and LUKS map made or found" "$(grep -E 'ETTEST|lvm|crypt' "$B/$1.log" | tail -20)"; return; fi
	has "$1" "LV on the virtio disk" 'ETTEST stacked=etvg-data dev=dm-[0-9]+ .* slaves=vdb[[:space:]]*$'
	has "$1" "LUKS map on the other LV" 'ETTEST stacked=etcrypt dev=dm-[0-9]+ .* slaves=dm-[0-9]+[[:space:]]*$'
	has "$1" "LV read-ahead set by earlytune" 'ETTEST stacked=etvg-data dev=dm-[0-9]+ ra=768 '
	has "$1" "LUKS map read-ahead set by earlytune" 'ETTEST stacked=etcrypt dev=dm-[0-9]+ ra=768 '
	has "$1" "plan: the LV is stacked on vdb (virtual)" 'ETTEST plan etvg-data: .*stacked disk \(dm-[0-9]+ \(etvg-data\) on vdb \(virtual\)\)'
	has "$1" "plan: the LUKS map sits on vdb through the LV" 'ETTEST plan etcrypt: .*stacked disk \(dm-[0-9]+ \(etcrypt\) on vdb \(virtual\)\)'
	lacks "$1" "plan: no scheduler for a stacked device" 'ETTEST plan .*queue/scheduler'
	has "$1" "the udev rule's run logged the LV's change" 'ETTEST kmsg .*earlytune: block dm-[0-9]+ queue/read_ahead_kb: [0-9]+ -> 768'
	has "$1" "verify --only block holds" 'ETTEST verify-block rc=0'
}

# [limits] in a real systemd boot: /proc/PID/limits of the running service.
assert_limits() { # NAME
	marker "$1" limits || return
	has "$1" "limits: the generator's drop-in reached the service at boot" 'ETTEST limits pid=[1-9][0-9]* nofile=4096:8192 '
	has "$1" "limits: the initramfs's default reached it (DefaultLimitCORE)" 'ETTEST limits pid=[1-9][0-9]* .* core=1048576:1048576'
	has "$1" "limits: the drop-in earlytune wrote" 'ETTEST limits-dropin LimitNOFILE=4096:8192'
	has "$1" "limits: the default's drop-in" 'ETTEST limits-default DefaultLimitCORE=1048576'
	has "$1" "limits: plan keeps the running service's limit" 'ETTEST limits-plan limits ettest-limits.service +LimitNOFILE +4096:8192 +4096:8192 +keep'
	has "$1" "limits: verify --only limits holds" 'ETTEST verify-limits rc=0'
	has "$1" "limits: daemon-reload ran the generator (the drop-in follows the change)" 'ETTEST limits-reloaded LimitNOFILE=5000:10000'
	has "$1" "limits: the running service is drift until restarted" "ETTEST limits-drift .*drift: limits ettest-limits.service LimitNOFILE is '4096:8192', want '5000:10000': .*restart ettest-limits.service to apply"
	has "$1" "limits: restarted, it has the new limit" 'ETTEST limits-restarted pid=[1-9][0-9]* nofile=5000:10000 '
	has "$1" "limits: verify holds after the restart" 'ETTEST verify-limits-restarted rc=0'
	has "$1" "limits: the generator's run in the status" 'ETTEST status: [0-9-]+ [0-9:]+ [+-][0-9]+  apply --boot --only limits: [0-9]+ changed, [0-9]+ kept, [0-9]+ skipped, 0 failed'
}

# initramfs_checks GEN KVER: a tuned initramfs boot's console, GEN-KVER.log
initramfs_checks() {
	local name=$1-$2
	marker "$name" initramfs && assert_tuned "$name"
	[ "$1" = dracut ] && assert_sched "$name" "$2"
	sed -n 's/.*ETTEST kmsg .*earlytune: apply\([^:]*\): .* in \([0-9.]*\) ms/\1|\2/p' "$B/$name.log" |
		awk -F'|' -v n="$name" '{ print "# " n ": earlytune " ($1 == "" ? "global part" : "apply" $1) ": " $2 " ms" }'
}

# ---- the root as an unbooted image: what an image builder checks --------------
# The command line through kernel-install's /etc/kernel/cmdline, the images
# rebuilt, then `verify --image` must pass; a configuration file added after
# the images were built must fail it for every kernel, naming the file and the
# rebuild command; removed, it passes again. No /proc in the root: image mode.
image_verify() { # DESC WANT_RC: the output in $out
	local rc
	out=$("$build/earlytune" --root "$ROOT" verify --image 2>&1)
	rc=$?
	[ $rc = "$2" ] && pass "image: $1 (exit $2)" || fail "image: $1 (exit $2)" "rc=$rc" "$out"
}
image_mode() {
	local k out rc t
	printf 'root=/dev/vda rw\n' >"$ROOT/etc/kernel/cmdline"
	for k in $kernels; do
		out=$("$build/earlytune" --root "$ROOT" --kernel "$k" cmdline apply 2>&1)
		rc=$?
		[ $rc = 0 ] && pass "image: cmdline apply --kernel $k" || fail "image: cmdline apply --kernel $k" "rc=$rc" "$out"
	done
	out=$("$build/earlytune" --root "$ROOT" plan --only thp 2>&1)
	rc=$?
	case "$rc $out" in "2 "*"kernels"*"give --kernel"*) pass "image: several kernels and no --kernel: exit 2, listed" ;;
	*) fail "image: several kernels and no --kernel: exit 2, listed" "rc=$rc" "$out" ;; esac
	t=$(date +%s%N)
	et_binds on "$ROOT"
	chroot "$ROOT" update-initramfs -u -k all >"$B/update-initramfs.log" 2>&1 ||
		fail "image: update-initramfs -u -k all" "$(tail -5 "$B/update-initramfs.log")"
	phase "update-initramfs -u -k all" "$t"
	# What the bootloader reads of /etc/kernel/cmdline is kernel-install's
	# result (verify --image checks it): its BLS entry for each kernel.
	printf 'layout=bls\n' >"$ROOT/etc/kernel/install.conf"
	for k in $kernels; do
		chroot "$ROOT" env KERNEL_INSTALL_PLUGINS=/usr/lib/kernel/install.d/90-loaderentry.install \
			kernel-install add "$k" "/boot/vmlinuz-$k" >>"$B/kernel-install.log" 2>&1 ||
			fail "image: kernel-install add $k" "$(tail -5 "$B/kernel-install.log")"
	done
	rm -f "$ROOT/etc/kernel/install.conf"
	# These are the initramfs-tools boots' images: the test hooks are in
	# /etc/initramfs-tools, as for any image of this root.
	for k in $kernels; do
		chroot "$ROOT" lsinitramfs "/boot/initrd.img-$k" >"$B/itools-$k.list" 2>/dev/null
		image_has itools "$k"
		grep -q 'scripts/init-top/earlytune' "$B/itools-$k.list" && pass "$k: initramfs-tools image has the init-top script" ||
			fail "$k: initramfs-tools image has the init-top script"
	done
	et_binds off "$ROOT"
	image_verify "verify --image passes on the rebuilt image" 0
	printf '%s\n' "$out" | sed 's/^/# /'
	for k in $kernels; do
		printf '%s\n' "$out" | grep '^pass  initramfs' | grep -qF "$k:" &&
			pass "image: $k's initramfs carries the current earlytune and configuration" ||
			fail "image: $k's initramfs carries the current earlytune and configuration" "$out"
	done
	echo "# boot test: a configuration change after the images were built" >"$ROOT/etc/earlytune.d/60-ettest-late.conf"
	image_verify "verify --image fails after a configuration change" 1
	for k in $kernels; do
		printf '%s\n' "$out" | grep '^FAIL  initramfs' | grep -F "$k:" | grep -F '60-ettest-late.conf' |
			grep -qF "update-initramfs -u -k $k" &&
			pass "image: $k's stale initramfs: the new file and the rebuild command named" ||
			fail "image: $k's stale initramfs: the new file and the rebuild command named" "$out"
	done
	rm -f "$ROOT/etc/earlytune.d/60-ettest-late.conf"
	image_verify "verify --image passes again without the change" 0
}

# ---- the images ------------------------------------------------------------------

for k in $kernels; do
	t=$(date +%s%N)
	hooks "$k"
	phase "$k: kernel hooks" "$t"
	build_images "$k"
done
et_binds off "$ROOT"
t=$(date +%s%N)
image_mode
phase "image mode (with update-initramfs)" "$t"

# The root image for the full boots: the same tree, with the dracut images.
rm -f "$B/root.img"
t=$(date +%s%N)
mkfs.ext4 -q -F -d "$ROOT" "$B/root.img" 3G || fail "make the root image"
phase "root image" "$t"

# ---- booting -------------------------------------------------------------------

ip tuntap add dev "$TAP" mode tap multi_queue || fail "create a multiqueue tap"
mkfs_disk "$B/disk.img" 64M
# Blank: the first full boot makes the LV, the next finds it at boot.
rm -f "$B/lvm.img" && truncate -s 64M "$B/lvm.img"
# Debian 12's own kernel, on the root no boot has changed yet.
cloud_boot "$(echo "$kernels" | head -1)"
# ET_BOOTS=cloud: that boot only (make check-cloudinit)
[ "${ET_BOOTS:-all}" = cloud ] && exit
for k in $kernels; do
	vmlinuz=$ROOT/boot/vmlinuz-$k
	boot "itools-$k" "$vmlinuz" "$ROOT/boot/initrd.img-$k" "root=/dev/vda rw"
	initramfs_checks itools "$k"
	name=off-$k
	boot "$name" "$vmlinuz" "$ROOT/boot/et-dracut-$k.img" "root=/dev/vda rw earlytune=0"
	marker "$name" initramfs && assert_untouched "$name"
	assert_sched "$name" "$k"
	# dracut-KVER's checks (initramfs_checks dracut) run on its initramfs stage.
	full_boot "$k"
done
grep -q 'ETTEST lvm=found' "$B"/full-*.log 2>/dev/null && pass "a full boot found the LV of an earlier one" ||
	fail "a full boot found the LV of an earlier one" "$(grep -h 'ETTEST lvm=' "$B"/full-*.log)"
