#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# arm64 boots (a step of make check): Debian's arm64 cloud kernels,
# bookworm's 6.1 and bookworm-backports' 6.12, booted under
# qemu-system-aarch64 (software emulation, -M virt,gic-version=3 -cpu max)
# with a busybox initramfs that holds the arm64 earlytune, the kernel's
# modules for BBR and fq (depmod'ed: earlytune's libkmod loads them; 6.12's
# are .ko.xz) and the drivers of the test devices. The 6.1 guest boots
# without firmware, as small ARM VPS and boards do: a device tree (QEMU's
# "linux,dummy-virt") and no DMI, a virtio-blk disk. The 6.12 guest boots
# through UEFI (AAVMF), as arm64 clouds do: QEMU's SMBIOS reaches DMI, a
# virtio-scsi disk. Both have a multiqueue virtio NIC (tap, 2 queues). The
# guest runs `earlytune --boot apply`, brings the NIC up, prints "ETTEST …"
# lines (report.sh), `verify`'s exit code and the platform line of
# `cmdline`, and powers off; a hang, panic or missing marker fails.
#
# The kernels and busybox-static come from Debian's archive through apt
# (apt-get download of the versions apt has now), unpacked once into
# ET_ARM64_CACHE (/var/cache/earlytune-tests/arm64): a new kernel release is
# a new directory there.
#
# Usage: tests/boot/arm64.sh BUILD_DIR [ARM64_EARLYTUNE]   (logs in BUILD_DIR/boot-arm64)
# Without ARM64_EARLYTUNE, `make ARCH=arm64 BUILD=BUILD_DIR-arm64` builds it
# (build-arm64/earlytune beside build/).
set -u
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=$(realpath "$1")
B=$build/boot-arm64
C=${ET_ARM64_CACHE:-/var/cache/earlytune-tests/arm64}
FW=/usr/share/AAVMF/AAVMF_CODE.fd
TAP=etarm$$
PASS=0 FAIL=0
start=$(date +%s%N)
mkdir -p "$B" "$C"

pass() { echo "ok - boot-arm64: $1"; PASS=$((PASS + 1)); }
fail() { echo "not ok - boot-arm64: $1"; shift; for l in "$@"; do echo "    $l"; done; FAIL=$((FAIL + 1)); }
secs() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }
finish() {
	ip link del "$TAP" 2>/dev/null
	echo "# boot-arm64 total: $(secs "$start") s"
	echo "boot-arm64: $PASS passed, $FAIL failed"
	[ "$FAIL" = 0 ] && [ "$PASS" -gt 0 ]
	exit $?
}
trap finish EXIT
trap 'fail "interrupted by a signal"; exit 1' INT TERM HUP

# ---- what the guests boot: Debian's packages, unpacked once ------------------

# fetch NAME=VERSION: the package unpacked in $C/NAME_VERSION (printed)
fetch() {
	local d=$C/${1%%=*}_${1#*=} tmp
	d=${d//:/_}
	if [ ! -d "$d" ]; then
		tmp=$(mktemp -d "$C/.fetch.XXXXXX") || return 1
		if ! (cd "$tmp" && apt-get download -q "$1" >download.log 2>&1 && dpkg-deb -x ./*.deb x); then
			cat "$tmp/download.log" >&2
			rm -rf "$tmp"
			return 1
		fi
		mv "$tmp/x" "$d" && rm -rf "$tmp"
	fi
	echo "$d"
}
# What apt has for arm64 (one query: apt-cache takes seconds here), as
# NAME=VERSION lines: busybox-static, then the cloud kernel of
# bookworm-backports (~bpo) and the newest outside it.
pkgs() {
	apt-cache show linux-image-cloud-arm64:arm64 busybox-static:arm64 | awk '
		/^Package: / { p = $2 }
		/^Version: / { v = $2; if (p == "busybox-static" && bb == "") bb = "busybox-static:arm64=" v }
		/^Depends: / && p == "linux-image-cloud-arm64" {
			k = ($0 ~ /~bpo/) ? "backports" : "release"
			if (!(k in got)) { got[k] = $2 ":arm64=" v }
		}
		END { print bb; print got["release"]; print got["backports"] }'
}

t=$(date +%s%N)
mapfile -t want < <(pkgs)
bb=$([ -n "${want[0]:-}" ] && fetch "${want[0]}") || { fail "busybox-static:arm64 from Debian's archive (${want[0]:-})"; exit; }
kdirs=()
for p in "${want[@]:1}"; do
	d=$([ -n "$p" ] && fetch "$p") || { fail "an arm64 cloud kernel ($p) from Debian's archive"; continue; }
	# The package leaves the index to its postinst: depmod, once.
	v=$(cd "$d/lib/modules" && ls)
	[ -e "$d/lib/modules/$v/modules.dep" ] || depmod -b "$d" "$v" || { fail "depmod of $v"; continue; }
	kdirs+=("$d")
done
echo "# fetch (cache $C): $(secs "$t") s"
[ ${#kdirs[@]} = 2 ] || exit
if [ -n "${2:-}" ]; then
	bin=$(realpath "$2")
else
	t=$(date +%s%N)
	# Under make check: none of its variables (BUILD=…, -j's jobserver) here.
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u BUILD -u ARCH \
		make -s -j2 -C "$top" ARCH=arm64 BUILD="$build-arm64" >"$B/make.log" 2>&1 ||
		{ fail "make ARCH=arm64" "$(tail -20 "$B/make.log")"; exit; }
	bin=$build-arm64/earlytune
	echo "# make ARCH=arm64: $(secs "$t") s"
fi
file "$bin" | grep -q 'ARM aarch64.*statically linked' && pass "the earlytune booted is a static aarch64 binary" ||
	fail "the earlytune booted is a static aarch64 binary" "$(file "$bin")"

# ---- the initramfs -------------------------------------------------------------

# mods KDIR KVER MODULE…: the module files MODULE… need, in load order
mods() {
	local k=$1 v=$2
	shift 2
	modprobe -d "$k" -S "$v" --show-depends -a "$@" | awk '$1 == "insmod" { print $2 }' | awk '!seen[$0]++'
}
unpack_ko() { # SRC DST: a module file uncompressed (busybox insmod)
	case $1 in
	*.xz) xz -dc "$1" >"$2" ;;
	*.zst) zstd -qdc "$1" >"$2" ;;
	*) cp "$1" "$2" ;;
	esac
}

# initrd KDIR KVER: $B/initrd-KVER.img
initrd() {
	local k=$1 v=$2 r=$B/root-$2 m i=10 lm
	rm -rf "$r" && mkdir -p "$r"/{bin,sbin,proc,sys,dev,run,tmp,drivers,etc/earlytune.d,lib/modules/"$v"}
	cp "$bb/bin/busybox" "$r/bin/busybox" && cp "$bin" "$r/sbin/earlytune" || return 1
	cp "$here/report.sh" "$r/report.sh" && cp "$here/arm64-init" "$r/init" && chmod 0755 "$r/init" || return 1
	# The drivers of the test devices, loaded by the init in order.
	for m in $(mods "$k" "$v" virtio_pci virtio_blk virtio_scsi sd_mod virtio_net); do
		unpack_ko "$m" "$r/drivers/$i-$(basename "${m%.ko*}").ko" || return 1
		i=$((i + 1))
	done
	# What earlytune loads through libkmod: as the kernel ships it, indexed.
	lm=$r/lib/modules/$v
	for m in $(mods "$k" "$v" tcp_bbr sch_fq); do
		mkdir -p "$lm/$(dirname "${m#"$k/lib/modules/$v/"}")" && cp "$m" "$lm/${m#"$k/lib/modules/$v/"}" || return 1
	done
	cp "$k/lib/modules/$v"/modules.{builtin,builtin.modinfo,order} "$lm/" && depmod -b "$r" "$v" || return 1
	# The configured disk: a value no kernel and no profile gives.
	printf '[block "ettest"]\nmatch.name = vda sda\nread_ahead_kb = 768\n' >"$r/etc/earlytune.d/50-ettest.conf"
	(cd "$r" && find . | cpio -o -H newc --quiet) | gzip -1 >"$B/initrd-$v.img"
}

# ---- booting -------------------------------------------------------------------

# boot NAME KERNEL INITRD uefi|dt: the console in $B/NAME.log
boot() {
	local name=$1 t fw=() disk
	t=$(date +%s%N)
	if [ "$4" = uefi ]; then
		# QEMU's -kernel through the firmware: UEFI, ACPI and SMBIOS.
		cp /usr/share/AAVMF/AAVMF_VARS.fd "$B/vars.fd"
		fw=(-drive if=pflash,format=raw,readonly=on,file="$FW" -drive if=pflash,format=raw,file="$B/vars.fd")
		disk=(-device virtio-scsi-pci,id=scsi0 -device scsi-hd,drive=d0,bus=scsi0.0)
	else
		disk=(-device virtio-blk-pci,drive=d0,num-queues=1)
	fi
	timeout 300 qemu-system-aarch64 -M virt,gic-version=3 -cpu max,pauth-impdef=on -accel tcg -m 1024 -smp 2 \
		-display none -no-reboot "${fw[@]}" -serial "file:$B/$name.log" \
		-kernel "$2" -initrd "$3" -append "console=ttyAMA0 panic=-1" \
		-drive file="$B/disk.img",if=none,id=d0,format=raw "${disk[@]}" \
		-netdev tap,id=n0,ifname="$TAP",script=no,downscript=no,queues=2 \
		-device virtio-net-pci,netdev=n0,mq=on,vectors=6 >/dev/null 2>&1
	echo "# boot $name: $(secs "$t") s"
}

has() { # NAME DESC REGEX
	if grep -Eq "$3" "$B/$1.log"; then pass "$1: $2"; else fail "$1: $2" "no line matches /$3/" "$(grep ETTEST "$B/$1.log" | head -30)"; fi
}
lacks() { # NAME DESC REGEX
	if grep -Eq "$3" "$B/$1.log"; then fail "$1: $2" "$(grep -E "$3" "$B/$1.log" | head -5)"; else pass "$1: $2"; fi
}

check_guest() { # NAME DISK PLATFORM-REGEX
	local n=$1
	if ! grep -q ETTEST-DONE-arm64 "$B/$n.log"; then
		fail "$n: guest reported and powered off (no marker: hang, panic or failure)" "$(tail -40 "$B/$n.log")"
		return
	fi
	pass "$n: guest reported and powered off"
	has "$n" "an aarch64 kernel" 'ETTEST arch=aarch64'
	has "$n" "tcp_bbr loaded (libkmod)" 'ETTEST module=tcp_bbr'
	has "$n" "sch_fq loaded (libkmod)" 'ETTEST module=sch_fq'
	has "$n" "the kernel log names the modules loaded" 'ETTEST kmsg .*earlytune: modules tcp_bbr state: absent -> live'
	has "$n" "bbr is the congestion control" 'ETTEST cc=bbr'
	has "$n" "fq is the default qdisc" 'ETTEST default_qdisc=fq'
	has "$n" "multiqueue NIC: mq root" 'ETTEST nic=.* txq=2 .*qdisc=qdisc mq e7e7: root'
	has "$n" "multiqueue NIC: fq on each TX queue" 'ETTEST nic=.* txq=2 .*qdisc fq [0-9a-f]+: parent e7e7:1 .*qdisc fq [0-9a-f]+: parent e7e7:2 '
	has "$n" "multiqueue NIC: up" 'ETTEST nic=.* txq=2 up=(up|unknown)'
	has "$n" "$2: scheduler none" "ETTEST disk=$2 sched=\\[none\\]"
	has "$n" "$2: the configured read-ahead (768)" "ETTEST disk=$2 .*ra=768"
	has "$n" "$2: the kernel log names the change" "ETTEST kmsg .*earlytune: block $2 queue/read_ahead_kb: [0-9]+ -> 768"
	has "$n" "THP enabled madvise" 'ETTEST thp_enabled=always \[madvise\] never'
	has "$n" "earlytune's summary line, nothing failed" 'ETTEST kmsg .*earlytune: apply: [0-9]+ changed, [0-9]+ kept, [0-9]+ skipped, 0 failed'
	has "$n" "verify exits 0" 'ETTEST verify rc=0'
	has "$n" "the platform line" "ETTEST platform earlytune: $3"
	grep 'ETTEST kmsg' "$B/$n.log" | sed "s/^.*ETTEST kmsg /# $n: /"
}

for k in "${kdirs[@]}"; do
	v=$(cd "$k/lib/modules" && ls)
	t=$(date +%s%N)
	initrd "$k" "$v" && pass "$v: busybox initramfs with earlytune and the kernel's modules" ||
		fail "$v: busybox initramfs with earlytune and the kernel's modules"
	echo "# $v: initramfs $(secs "$t") s"
	# 6.12's modules are .ko.xz: the guest's libkmod decompresses them.
	m=$(cd "$B/root-$v/lib/modules/$v" && find kernel -name 'tcp_bbr.ko*')
	case $v:$m in
	6.1.*) ;;
	*.ko.xz | *.ko.zst) pass "$v: tcp_bbr is compressed, as Debian ships it ($m)" ;;
	*) fail "$v: tcp_bbr is compressed, as Debian ships it" "found: $m" ;;
	esac
done

ip tuntap add dev "$TAP" mode tap multi_queue || fail "create a multiqueue tap"
rm -f "$B/disk.img" && truncate -s 64M "$B/disk.img"
v1=$(cd "${kdirs[0]}/lib/modules" && ls) v2=$(cd "${kdirs[1]}/lib/modules" && ls)
boot "dt-$v1" "${kdirs[0]}/boot/vmlinuz-$v1" "$B/initrd-$v1.img" dt
check_guest "dt-$v1" vda "platform generic, guessed from proc/device-tree/compatible 'linux,dummy-virt'"
if [ -e "$FW" ]; then
	boot "uefi-$v2" "${kdirs[1]}/boot/vmlinuz-$v2" "$B/initrd-$v2.img" uefi
	check_guest "uefi-$v2" sda "platform generic, guessed from sys/class/dmi/id/sys_vendor 'QEMU'"
else
	fail "AAVMF firmware ($FW, qemu-efi-aarch64)"
fi
