# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
#
# bench/lib.sh — sourced (bash) by the benchmarks: the numbers' formatting,
# and for the QEMU benchmarks (bench/sched.sh, bench/workload.sh) the boot
# tests' root, its dracut images and the guests' boots and logs.
#
# The QEMU part reads what bench_paths sets, OUT (the run's directory: guest
# logs, disks) and kernels (the kernel versions to boot).

die() { echo "bench/${0##*/}: $*" >&2; exit 1; }
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=tests/boot/root.sh
. "$top/tests/boot/root.sh"
# bench_paths [BUILD_DIR]: build (top/build by default), ET (the binary under
# test) and ROOT (where bench_need_root mounts the boot tests' root)
bench_paths() {
	build=$(realpath "${1:-$top/build}")
	ET=$build/earlytune
	BENCH_STATE=$build/boot-bench
	ROOT=$BENCH_STATE/rootfs
}

# ---- numbers ---------------------------------------------------------------

# bench_stats [DIGITS] → "median min max" of the numbers on stdin, "- - -"
# without any. Without DIGITS, whole numbers and those >= 100 print without
# decimals, others with one; with DIGITS, every number with that many.
bench_stats() {
	sort -g | awk -v d="${1:-}" '
		function f(x) { if (d != "") return sprintf("%." d "f", x)
			return x >= 100 || x == int(x) ? sprintf("%.0f", x) : sprintf("%.1f", x) }
		{ v[NR] = $1 } END { if (!NR) { print "- - -"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print f(m), f(v[1]), f(v[NR]) }'
}
# ratio A B → "A/Bx" with two decimals, "-" when either is missing or B is 0
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2fx", a / b }'; }

# ---- QEMU guests of the boot tests' root -------------------------------------

# Root, this build's binary, and at ROOT the boot tests' Debian root with its
# kernels (tests/boot/mkroot.sh's cached one, built if missing) under an
# overlay of this bench's own (BUILD_DIR/boot-bench/upper, emptied here): what
# the bench installs or builds in it never reaches the cache or another run.
# Unmounted at exit by bench_root_off (a script's own EXIT trap calls it).
bench_need_root() {
	local lower
	[ "$(id -u)" = 0 ] || die "needs root (chroot and dracut in the boot tests' root)"
	[ -x "$ET" ] || die "$ET: not an executable (run make first)"
	lower=$("$top/tests/boot/mkroot.sh") || die "cannot build the Debian root (tests/boot/mkroot.sh)"
	mkdir -p "$BENCH_STATE" || die "cannot create $BENCH_STATE"
	trap bench_root_off EXIT
	et_root_mount "$lower" "$BENCH_STATE" "$ROOT" || die "cannot mount the root (overlay on $lower) at $ROOT"
	et_binds off "$ROOT"
}
bench_root_off() { et_root_umount "$ROOT"; }
# bench_mounts on|off: the host's /proc, /sys and /dev in the root, for chroot
bench_mounts() { et_binds "$1" "$ROOT"; }
# bench_images NAME DRACUT_ARGS…: sets kernels (KERNELS, else every kernel
# of the root), builds /boot/NAME-KVER.img in the root for each, and the
# guests' root disk ($OUT/root.img: an empty ext4, never mounted, for
# root=/dev/vda)
bench_images() {
	local name=$1 k
	shift
	kernels=${KERNELS:-$(cd "$ROOT/lib/modules" && ls | sort -V)}
	bench_mounts on
	for k in $kernels; do
		chroot "$ROOT" dracut -q --no-hostonly --force "$@" "/boot/$name-$k.img" "$k" >"$OUT/dracut-$k.log" 2>&1 ||
			{ bench_mounts off; die "$k: dracut: $(tail -5 "$OUT/dracut-$k.log")"; }
	done
	bench_mounts off
	rm -f "$OUT/root.img" && truncate -s 16M "$OUT/root.img" && mkfs.ext4 -q -F "$OUT/root.img"
}
# bench_boot LABEL LOG KVER IMAGE SECONDS CMDLINE [QEMU_ARGS…]: one guest
# under software emulation (-smp 2, 1 GiB), its console to LOG, at most
# SECONDS; its guest's dracut hook powers it off when done.
bench_boot() {
	local label=$1 log=$2 k=$3 img=$4 secs=$5 cmdline=$6 t
	shift 6
	t=$(date +%s)
	timeout "$secs" qemu-system-x86_64 -accel tcg -m 1024 -smp 2 -display none -no-reboot \
		-serial "file:$log" -kernel "$ROOT/boot/vmlinuz-$k" -initrd "$ROOT/boot/$img-$k.img" \
		-append "console=ttyS0 panic=-1 root=/dev/vda rw quiet $cmdline" \
		-drive file="$OUT/root.img",if=none,id=d0,format=raw -device virtio-blk-pci,drive=d0 "$@" >/dev/null 2>&1
	echo "# $label: guest ran $(($(date +%s) - t)) s"
}
# bench_check LABEL LOG TAG [CONTEXT]: 1, and the why, when the guest did not
# print TAG-DONE or printed a "TAG error" line (CONTEXT lines after each)
bench_check() {
	local bad=0
	grep -q "$3-DONE" "$2" || { echo "$1: the guest did not finish:"; tail -30 "$2"; bad=1; }
	grep -q "$3 error" "$2" && { grep ${4:+-A"$4"} "$3 error" "$2"; bad=1; }
	return $bad
}
bench_qemu_version() { qemu-system-x86_64 --version | sed -n '1s/.*version \([^ ]*\).*/\1/p'; }

# ---- dry runs (BENCH_DRY=1) ---------------------------------------------------
# A dry run does what a real one does before its first measurement (checks,
# work directories, a small generated tree or the guests' dracut module,
# earlytune run once and its result checked), says what the real run would
# do and exits 0: cheap enough for make check to prove, from a fresh clone,
# that each benchmark gets that far. It never builds the Debian root, touches
# it or boots a guest.

# bench_dry: true in a dry run
bench_dry() { case ${BENCH_DRY:-0} in '' | 0 | no) return 1 ;; esac; }
# bench_say WORDS…: one line of a dry run's report
bench_say() { echo "bench/${0##*/}: dry run: $*"; }
# bench_dry_guests [TOOL…]: what the QEMU benchmarks need before their first
# boot: root, this build's binary, the root's directory, QEMU and the host
# tools of bench_images and bench_boot (and TOOL…), and a Debian root that is
# there or can be built
bench_dry_guests() {
	local t v
	[ "$(id -u)" = 0 ] || die "needs root (chroot and dracut in the boot tests' root)"
	[ -x "$ET" ] || die "$ET: not an executable (run make first)"
	[ -d "${ROOT%/*}" ] && [ -w "${ROOT%/*}" ] || die "${ROOT%/*}: no writable directory for the root and its log"
	for t in qemu-system-x86_64 chroot mount mkfs.ext4 truncate timeout "$@"; do
		command -v "$t" >/dev/null || die "$t missing"
	done
	v=$(bench_qemu_version 2>/dev/null)
	[ -n "$v" ] || die "qemu-system-x86_64 --version prints no version"
	bench_say "running as root; $ET; QEMU $v (TCG); chroot, mount, mkfs.ext4, truncate, timeout${*:+, $*}"
	bench_dry_root
}
# bench_dry_root: the Debian root bench_need_root takes: complete (kernels with
# their vmlinuz, dracut), else what tests/boot/mkroot.sh needs to build it
bench_dry_root() {
	local mk=$top/tests/boot/mkroot.sh r=$ROOT k ks mirror
	[ -x "$mk" ] || die "tests/boot/mkroot.sh missing or not executable"
	# A root cached outside the tree, when mkroot.sh keeps one: --path names
	# it, built or not, and builds nothing.
	if grep -q -e '--path' "$mk"; then
		r=$("$mk" --path) && [ -n "$r" ] || die "tests/boot/mkroot.sh --path names no root"
	fi
	if [ -e "$r/.complete" ]; then
		ks=$(cd "$r/lib/modules" 2>/dev/null && ls | sort -V | tr '\n' ' ')
		[ -n "$ks" ] || die "the Debian root $r has no kernel (lib/modules is empty)"
		for k in $ks; do
			[ -f "$r/boot/vmlinuz-$k" ] || die "the Debian root $r has no boot/vmlinuz-$k"
		done
		[ -x "$r/usr/bin/dracut" ] || die "the Debian root $r has no dracut"
		bench_say "the Debian root is there: $r (kernels ${ks% })"
		return
	fi
	command -v debootstrap >/dev/null || die "no Debian root at $r and no debootstrap to build one"
	mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null)
	[ -n "$mirror" ] || die "no Debian root at $r and no archive in /etc/apt/sources.list.d/debian.sources to build one from"
	bench_say "no complete Debian root at $r: the run builds it first (tests/boot/mkroot.sh, debootstrap from $mirror; minutes)"
}
# bench_dry_module DIR: the generated dracut module parses (module-setup.sh
# as bash, its hooks as the initramfs' POSIX sh)
bench_dry_module() {
	local f
	bash -n "$1/module-setup.sh" || die "$1/module-setup.sh: syntax error"
	for f in "$1"/*.sh; do
		[ "$f" = "$1/module-setup.sh" ] && continue
		sh -n "$f" || die "$f: syntax error"
	done
}
