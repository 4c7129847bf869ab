# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
#
# Sourced by the guest tests that are not steps of make check
# (tests/boot/measure.sh, tests/boot/nic.sh): the boot tests' root
# (tests/boot/root.sh), their result lines, their end, their guests' dracut
# module and image, and their two ways to run — boot the guests, or with
# LOGS=DIR assert again on the logs of an earlier run. The test sets T (its
# name, the prefix of its lines and its directory BUILD_DIR/boot-T) and here,
# and defines check_kernel KVER LOG (its assertions on one guest's log).

# shellcheck disable=SC2154 # here: the test's directory, set by the test
# shellcheck source=tests/boot/root.sh
. "$here/root.sh"
# shellcheck disable=SC2034 # top: the tree's top, for the tests
top=$(cd "$here/../.." && pwd)
PASS=0 FAIL=0 start=$(date +%s) qpid=
pass() { echo "ok - $T: $1"; PASS=$((PASS + 1)); }
fail() { echo "not ok - $T: $1"; shift; for l in "$@"; do echo "    $l"; done; FAIL=$((FAIL + 1)); }
finish() {
	[ -z "$qpid" ] || kill "$qpid" 2>/dev/null
	[ -n "${LOGS:-}" ] || et_root_umount "$ROOT" || fail "unmount the root's overlay and binds ($ROOT)"
	echo "# total: $(($(date +%s) - start)) s"
	echo "$T: $PASS passed, $FAIL failed"
	[ "$FAIL" = 0 ] && [ "$PASS" -gt 0 ]
	exit $?
}

# guest_setup BUILD_DIR FILE: build (BUILD_DIR's absolute path), B (the
# test's directory in it), ROOT (where the root's overlay is mounted); with
# LOGS, check_kernel on each LOGS/KVER.log, then exit; else the root mounted
# at ROOT, which must have FILE (a path in it that tests/boot/mkroot.sh's
# package list brings), and B/root.img, the guests' /dev/vda (root= on their
# command line: dracut waits for it; they power off before mounting it).
guest_setup() {
	local log k lower
	build=$(realpath "$1")
	B=$build/boot-$T ROOT=$build/boot-$T/rootfs
	if [ -n "${LOGS:-}" ]; then
		trap finish EXIT
		for log in "$LOGS"/[0-9]*.log; do
			k=${log##*/}
			check_kernel "${k%.log}" "$log"
		done
		exit
	fi
	[ "$(id -u)" = 0 ] || { echo "$T: needs root (chroot, dracut in the boot tests' root)" >&2; exit 1; }
	[ -x "$1/earlytune" ] || { echo "$T: $1/earlytune: run make first" >&2; exit 1; }
	mkdir -p "$B"
	trap finish EXIT
	trap 'fail "interrupted by a signal"; exit 1' INT TERM HUP
	lower=$("$here/mkroot.sh") || { fail "build the Debian root (debootstrap)"; exit; }
	echo "# root: $lower"
	et_root_mount "$lower" "$B" "$ROOT" || { fail "mount the root (overlay on $lower, binds) at $ROOT"; exit; }
	[ -x "$ROOT/$2" ] || { fail "the root has /$2 (tests/boot/mkroot.sh's package list)"; exit; }
	rm -f "$B/root.img" && truncate -s 16M "$B/root.img" && mkfs.ext4 -q -F "$B/root.img"
}

# guest_module NAME <SETUP: MOD, the root's dracut module 97NAME, made with
# a module-setup.sh of a check() that dracut never picks by itself (255:
# only --add) and the functions SETUP defines.
guest_module() {
	MOD=$ROOT/usr/lib/dracut/modules.d/97$1
	mkdir -p "$MOD"
	{ printf '#!/bin/bash\ncheck() { return 255; }\n'; cat; } >"$MOD/module-setup.sh"
	chmod 0755 "$MOD/module-setup.sh"
}

# The root's kernels (KERNELS: those), oldest first.
guest_kernels() {
	# shellcheck disable=SC2012 # kernel releases: no blanks, no newlines
	echo "${KERNELS:-$(cd "$ROOT/lib/modules" && ls | sort -V)}"
}

# guest_image KVER DRACUT_ARG…: the guest's initramfs, ROOT/boot/et-T-KVER.img;
# 1 (failed, dracut's last lines said) if dracut fails.
guest_image() {
	local k=$1 t
	shift
	t=$(date +%s)
	chroot "$ROOT" dracut -q --no-hostonly --force --compress "zstd -q -3 -T0" "$@" "/boot/et-$T-$k.img" "$k" \
		>"$B/dracut-$k.log" 2>&1 || { fail "$k: dracut builds the guest's image" "$(tail -5 "$B/dracut-$k.log")"; return 1; }
	echo "# $k: image in $(($(date +%s) - t)) s"
}

# guest_log KVER LOG MARKER: L, the log without carriage returns and NULs;
# 1 (failed) unless the guest printed MARKER at the start of a line.
guest_log() {
	L=${2%.log}.clean
	[ -e "$2" ] || { fail "$1: the guest's log ($2)"; return 1; }
	tr -d '\r\000' <"$2" >"$L"
	if ! grep -q "^$3" "$L"; then
		fail "$1: the guest finished ($3)" "$(tail -30 "$L")"
		return 1
	fi
	pass "$1: the guest finished"
}
