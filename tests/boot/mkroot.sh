#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds (once; cached) a minimal Debian 12 root with systemd, udev, both
# initramfs generators and both cloud kernels: bookworm's (6.1) and
# bookworm-backports' (6.12), LVM and cryptsetup for the stacked-device
# boot, rt-tests (cyclictest) for bench/sched.sh. The archive is the one
# this machine's apt uses.
# Usage: tests/boot/mkroot.sh DIR
set -eu
dir=$1
extra="lvm2 cryptsetup-bin rt-tests"

mounted() {
	for fs in proc sys dev; do mount --bind /$fs "$dir/$fs"; done
	trap 'for fs in dev sys proc; do umount "$dir/$fs" 2>/dev/null; done' EXIT
}
in_root() { # COMMAND: in the root, its output in DIR.log
	chroot "$dir" sh -c "export DEBIAN_FRONTEND=noninteractive; $1" >>"$dir.log" 2>&1 ||
		{ tail -20 "$dir.log" >&2; exit 1; }
}

# A root cached before a package joined the list gets it added, not rebuilt.
if [ -e "$dir/.complete" ]; then
	chroot "$dir" dpkg -s $extra >/dev/null 2>&1 && exit 0
	mounted
	in_root "apt-get install -y -q --no-install-recommends $extra && apt-get clean"
	exit 0
fi
rm -rf "$dir"
mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources)
[ -n "$mirror" ] || { echo "mkroot: no Debian archive in /etc/apt/sources.list.d/debian.sources" >&2; exit 1; }
debootstrap --variant=minbase \
	--include=systemd,systemd-sysv,udev,kmod,iproute2,procps,e2fsprogs,dracut-core,initramfs-tools,busybox,zstd,$(echo $extra | tr ' ' ,) \
	bookworm "$dir" "$mirror" >"$dir.log" 2>&1 || { tail -20 "$dir.log" >&2; exit 1; }
# The same archive, with backports, for the 6.12 cloud kernel.
sed 's/^Suites:.*bookworm .*/Suites: bookworm bookworm-updates bookworm-backports/' \
	/etc/apt/sources.list.d/debian.sources >"$dir/etc/apt/sources.list.d/debian.sources"
rm -f "$dir/etc/apt/sources.list"
cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
mounted
in_root 'apt-get update -q &&
	apt-get install -y -q --no-install-recommends linux-image-cloud-amd64 &&
	apt-get install -y -q --no-install-recommends -t bookworm-backports linux-image-cloud-amd64 &&
	apt-get clean'
ls "$dir/boot"
touch "$dir/.complete"
