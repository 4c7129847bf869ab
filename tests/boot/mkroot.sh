#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The boot tests' Debian 12 root: systemd, udev, both initramfs generators
# and both cloud kernels, bookworm's (6.1) and bookworm-backports' (6.12);
# LVM and cryptsetup for the stacked-device boot, rt-tests (cyclictest) for
# bench/sched.sh, iperf3 for make check-measure (tests/boot/measure.sh) and
# bench/workload.sh, ethtool for make check-nic-guest (tests/boot/nic.sh:
# it reads the NIC's settings back), cloud-init for the cloud-init boot
# (dosfstools and mtools make its NoCloud seed disk). The archive is the one
# this machine's apt uses.
#
# Built once per set of inputs, into ${ET_ROOT_CACHE:-/var/cache/earlytune-tests}/root-KEY
# (KEY: a hash of every input below), outside any checkout, so that a fresh
# clone does not pay for debootstrap again. The root is built under a
# temporary name, marked .complete last, then renamed: a killed build never
# looks complete, and what it left is removed by the next build. Users never
# write it: they mount it under an overlay (tests/boot/root.sh). Roots of
# other inputs that nothing asked for in a day are removed.
#
# ET_ARCH=arm64: an arm64 root (debootstrap's second stage and the chroots
# run under qemu-user through binfmt_misc), its kernels arm64's, in its own
# cache directory (.../arm64: its own lock, leftovers and pruning).
#
# Prints the root's path. Usage: tests/boot/mkroot.sh [--path]
# (--path: the path only, whether built or not)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/root.sh"

# ---- the inputs: any change gives another KEY, so another root -------------
# FORMAT: raise it for a change of the steps below that the variables do not
# carry.
FORMAT=1
ARCH=${ET_ARCH:-amd64}
SUITE=bookworm
VARIANT=minbase
INCLUDE=systemd,systemd-sysv,udev,kmod,iproute2,procps,e2fsprogs,dracut-core,initramfs-tools,busybox,zstd
EXTRA="lvm2 cryptsetup-bin rt-tests dosfstools mtools iperf3 ethtool"
# Installed with apt in the root: debootstrap cannot configure cloud-init's
# Python dependencies (python3-cryptography fails in its second stage).
APT=cloud-init
# The root's sources: this machine's, with backports for the 6.12 kernel.
SOURCES='s/^Suites:.*bookworm .*/Suites: bookworm bookworm-updates bookworm-backports/'
# Run in the root (sh -c), with DEBIAN_FRONTEND=noninteractive.
KERNELS="apt-get update -q &&
	apt-get install -y -q --no-install-recommends linux-image-cloud-$ARCH &&
	apt-get install -y -q --no-install-recommends -t bookworm-backports linux-image-cloud-$ARCH &&
	apt-get clean"
mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources)
[ -n "$mirror" ] || { echo "mkroot: no Debian archive in /etc/apt/sources.list.d/debian.sources" >&2; exit 1; }

key=$(printf '%s\n' "$FORMAT" "$SUITE" "$VARIANT" "$INCLUDE" "$EXTRA" "$APT" "$SOURCES" "$KERNELS" "$mirror" |
	sha256sum | cut -c1-16)
cache=${ET_ROOT_CACHE:-/var/cache/earlytune-tests}
[ "$ARCH" = amd64 ] || cache=$cache/$ARCH
dir=$cache/root-$key
if [ "${1:-}" = --path ]; then
	echo "$dir"
	exit 0
fi

mkdir -p "$cache"
# One build at a time (a second user waits, then finds the root complete).
exec 9>>"$cache/.lock"
flock 9
# Stamped at each use: what prunes other roots spares those in use.
touch "$dir.used"

build() { # TMP: the root built in TMP, its log in DIR.log
	local tmp=$1 log=$dir.log t
	t=$(date +%s)
	echo "mkroot: building $dir (debootstrap; log: $log)" >&2
	debootstrap --arch="$ARCH" --variant=$VARIANT --include=$INCLUDE,$(echo $EXTRA | tr ' ' ,) \
		$SUITE "$tmp" "$mirror" >"$log" 2>&1 9>&- || { tail -20 "$log" >&2; return 1; }
	sed "$SOURCES" /etc/apt/sources.list.d/debian.sources >"$tmp/etc/apt/sources.list.d/debian.sources"
	rm -f "$tmp/etc/apt/sources.list"
	cp /etc/resolv.conf "$tmp/etc/resolv.conf" 2>/dev/null || true
	et_binds on "$tmp"
	chroot "$tmp" sh -c "export DEBIAN_FRONTEND=noninteractive; $KERNELS" >>"$log" 2>&1 9>&- ||
		{ tail -20 "$log" >&2; return 1; }
	chroot "$tmp" sh -c "export DEBIAN_FRONTEND=noninteractive
		apt-get install -y -q --no-install-recommends $APT && apt-get clean" >>"$log" 2>&1 9>&- ||
		{ tail -20 "$log" >&2; return 1; }
	et_binds off "$tmp"
	echo "mkroot: built in $(($(date +%s) - t)) s, kernels:" $(ls "$tmp/lib/modules") >&2
	touch "$tmp/.complete"
}

if [ ! -e "$dir/.complete" ]; then
	# An incomplete root, a killed build's leftovers (builds are serialised:
	# no other one is running).
	for d in "$dir" "$cache"/root-*.tmp; do
		[ ! -e "$d" ] || et_rm_tree "$d"
	done
	trap 'et_rm_tree "$dir.tmp"' EXIT
	trap 'exit 1' INT TERM HUP
	build "$dir.tmp"
	mv "$dir.tmp" "$dir"
	trap - EXIT INT TERM HUP
fi

for d in "$cache"/root-*; do
	case $d in "$dir" | *.log | *.used | *.tmp) continue ;; esac
	[ -d "$d" ] || continue
	used=$d.used
	[ -e "$used" ] || used=$d
	[ -n "$(find "$used" -maxdepth 0 -mmin +1440)" ] || continue
	echo "mkroot: removing $d (other inputs, unused for a day)" >&2
	et_rm_tree "$d" && rm -f "$d.used" "$d.log"
done
echo "$dir"
