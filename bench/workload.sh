#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/workload.sh [BUILD_DIR] — what earlytune's default (vps) profile
# changes for the workloads its defaults are for, measured in QEMU guests
# (software emulation, -smp 2, 1 GiB) booting the boot tests' Debian cloud
# kernels with one dracut initramfs that carries earlytune (the package's
# dracut module, this build's binary, the built-in vps profile):
#
#   "stock": earlytune=0 on the kernel command line (earlytune writes nothing)
#   "earlytune": the same image, earlytune applying the profile at boot
#
# Each boot has a second virtio disk (a sparse scratch image, one queue,
# opt_io_size 4 MiB, so the kernel's own read-ahead is 8192 KiB as on clouds
# that advertise a large optimal I/O size). In the initramfs it prints the
# disk's read_ahead_kb and scheduler, THP, `earlytune status` and earlytune's
# kernel log lines, then runs RUNS rounds of, after dropping the page cache:
#
#   rand: fio, random 4 KiB page touches through mmap of the disk (SECS s,
#         no madvise hint, as most programs): what the read-ahead cap is
#         for (each fault reads read_ahead_kb around it)
#   seq:  fio, a sequential 512 MiB read, 64 KiB buffered reads: what the
#         cap costs
#
# and the MiB and requests the disk served (/sys/block/vdb/stat). Prints per
# kernel and mode medians with [min..max] over the runs and stock/earlytune
# ratios. Exit status 1 if a guest did not finish or a run gave no result.
#
# Environment: RUNS (3), SECS (15), KERNELS (every kernel of the root).
# LOGS=DIR reports again from kept guest logs. Needs root (chroot, dracut in
# the boot tests' root, BUILD_DIR/boot/rootfs, built or completed by
# tests/boot/mkroot.sh, fio added here; it carries earlytune's package).
# Noise: TCG on a shared host; read the spread before the ratios.
set -u
export LC_ALL=C
RUNS=${RUNS:-3}
SECS=${SECS:-15}
MODES="stock earlytune"
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "${1:-$top/build}")
ET=$build/earlytune
ROOT=$build/boot/rootfs
MOD=$ROOT/usr/lib/dracut/modules.d/98etwork

die() { echo "bench/workload.sh: $*" >&2; exit 1; }

# ---- report ----------------------------------------------------------------

field() { sed -n "s/.* $1=\\([0-9.]*\\).*/\\1/p"; }
# stats KERNEL MODE TEST KEY → "median min max" over the runs
stats() { tr -d '\r' <"$OUT/$1-$2.log" | grep "^ETWORK run=.* test=$3 " | field "$4" | sort -g |
	awk '{ v[NR] = $1 } END { if (!NR) { print "- - -"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.0f %.0f %.0f\n", m, v[1], v[NR] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2fx", a / b }'; }
cell() { read -r m lo hi <<<"$(stats "$@")"; echo "$m [$lo..$hi]"; }
med() { stats "$@" | cut -d' ' -f1; }
report() {
	echo "earlytune workload benchmark — $ET"
	echo "QEMU TCG guests, -smp 2, 1 GiB, on a host with $(nproc) CPUs ($(uname -r)); scratch disk vdb: virtio, 1 queue, opt_io_size 4 MiB"
	echo "rand: fio mmap randread 4k, time-based; seq: fio psync read 64k, 512 MiB; page cache dropped before each; median [min..max] of the runs"
	for k in $kernels; do
		echo
		echo "== $k"
		for m in $MODES; do
			tr -d '\r' <"$OUT/$k-$m.log" | sed -n "s/^ETWORK values /  $m: /p"
		done
		# What earlytune changed in that boot, from its run log (none with earlytune=0).
		for m in $MODES; do
			echo "  $m: earlytune changed $(tr -d '\r' <"$OUT/$k-$m.log" | grep -c '^ETWORK status:   changed') items"
		done
		tr -d '\r' <"$OUT/$k-earlytune.log" | sed -n 's/^ETWORK status:   changed  \([^:]*: [^:]*\): .*/    \1/p'
		printf '%-16s %-20s %-22s %-20s %-20s %-18s\n' MODE "rand IOPS" "rand disk KiB/IO" "seq MiB/s" "seq requests" "seq disk MiB"
		for m in $MODES; do
			printf '%-16s %-20s %-22s %-20s %-20s %-18s\n' "$m" "$(cell "$k" "$m" rand iops)" "$(cell "$k" "$m" rand kib_per_io)" \
				"$(cell "$k" "$m" seq mibs)" "$(cell "$k" "$m" seq reqs)" "$(cell "$k" "$m" seq mib)"
		done
		printf '%-16s %-20s %-22s %-20s %-20s %-18s\n' "stock/earlytune" \
			"$(ratio "$(med "$k" stock rand iops)" "$(med "$k" earlytune rand iops)")" \
			"$(ratio "$(med "$k" stock rand kib_per_io)" "$(med "$k" earlytune rand kib_per_io)")" \
			"$(ratio "$(med "$k" stock seq mibs)" "$(med "$k" earlytune seq mibs)")" \
			"$(ratio "$(med "$k" stock seq reqs)" "$(med "$k" earlytune seq reqs)")" \
			"$(ratio "$(med "$k" stock seq mib)" "$(med "$k" earlytune seq mib)")"
	done
}
if [ -n "${LOGS:-}" ]; then
	OUT=$LOGS
	kernels=$(cd "$OUT" && ls [0-9]*-stock.log | sed 's/-stock\.log$//' | sort -V)
	report
	exit 0
fi
[ "$(id -u)" = 0 ] || die "needs root (chroot and dracut in the boot tests' root)"
[ -x "$ET" ] || die "$ET: not an executable (run make first)"
"$top/tests/boot/mkroot.sh" "$ROOT" || die "cannot build the Debian root (tests/boot/mkroot.sh)"
# fio only for this bench: the boot tests' root (make check) does without it.
if ! chroot "$ROOT" dpkg -s fio >/dev/null 2>&1; then
	for fs in proc sys dev; do mount --bind /$fs "$ROOT/$fs"; done
	rc=0
	chroot "$ROOT" sh -c 'export DEBIAN_FRONTEND=noninteractive
		apt-get install -y -q --no-install-recommends fio && apt-get clean' >>"$ROOT.log" 2>&1 || rc=$?
	for fs in dev sys proc; do umount "$ROOT/$fs"; done
	[ "$rc" = 0 ] || die "cannot install fio in the root (see $ROOT.log)"
fi
[ -x "$ROOT/usr/sbin/earlytune" ] && [ -d "$ROOT/usr/lib/dracut/modules.d/50earlytune" ] ||
	die "the root has no earlytune package: run make check-boot once (it installs the .deb)"
OUT=$(mktemp -d /tmp/earlytune-bench-workload.XXXXXX)
# The image carries this build's binary and only the built-in profile: the
# root's binary and the boot tests' drop-ins are put back afterwards.
cp -a "$ROOT/usr/sbin/earlytune" "$OUT/earlytune.root"
[ -d "$ROOT/etc/earlytune.d" ] && mv "$ROOT/etc/earlytune.d" "$OUT/earlytune.d.root"
[ -e "$ROOT/etc/earlytune.conf" ] && mv "$ROOT/etc/earlytune.conf" "$OUT/earlytune.conf.root"
cleanup() {
	for fs in dev sys proc; do umount "$ROOT/$fs" 2>/dev/null; done
	cp -a "$OUT/earlytune.root" "$ROOT/usr/sbin/earlytune"
	[ -d "$OUT/earlytune.d.root" ] && mv "$OUT/earlytune.d.root" "$ROOT/etc/earlytune.d"
	[ -e "$OUT/earlytune.conf.root" ] && mv "$OUT/earlytune.conf.root" "$ROOT/etc/earlytune.conf"
	rm -rf "$MOD" "$ROOT"/boot/et-work-*.img
	if [ "${KEEP:-0}" = 1 ]; then echo "# guest logs kept in $OUT"; else rm -rf "$OUT"; fi
}
trap cleanup EXIT
cp "$ET" "$ROOT/usr/sbin/earlytune"

# ---- the guest side: a dracut module whose pre-mount hook runs the workloads --

mkdir -p "$MOD"
cat >"$MOD/module-setup.sh" <<'EOF'
#!/bin/bash
check() { return 255; }
depends() { return 0; }
install() {
	inst_multiple fio awk sed grep cat sleep dmesg nproc
	inst_hook pre-mount 99 "$moddir/etwork.sh"
}
EOF
# Sourced by dracut's init (POSIX sh) after udev settled, so earlytune's rule
# has run for vdb. One ETWORK line per run and test; the host computes the rest.
cat >"$MOD/etwork.sh" <<'EOF'
exec >/dev/console 2>&1
set -- $(cat /proc/cmdline)
for a; do case $a in etwork.runs=*) RUNS=${a#*=} ;; etwork.secs=*) SECS=${a#*=} ;; etwork.mode=*) MODE=${a#*=} ;; esac; done
Q=/sys/block/vdb/queue
sel() { sed -n 's/.*\[\(.*\)\].*/\1/p' "$1"; }
echo "ETWORK kernel=$(cat /proc/sys/kernel/osrelease) mode=$MODE cpus=$(nproc) runs=$RUNS secs=$SECS"
echo "ETWORK values vdb read_ahead_kb=$(cat $Q/read_ahead_kb) scheduler=$(sel $Q/scheduler) max_sectors_kb=$(cat $Q/max_sectors_kb) thp=$(sel /sys/kernel/mm/transparent_hugepage/enabled)/$(sel /sys/kernel/mm/transparent_hugepage/defrag) cc=$(cat /proc/sys/net/ipv4/tcp_congestion_control) qdisc=$(cat /proc/sys/net/core/default_qdisc)"
earlytune status 2>&1 | sed 's/^/ETWORK status: /'
dmesg | grep earlytune | sed 's/^/ETWORK kmsg: /'
disk() { awk '{ print $1, $3 }' /sys/block/vdb/stat; }
# one RUN NAME FIO-ARGS…: fio's terse v3 line: 6 KiB read, 7 KiB/s, 8 IOPS, 9 ms
one() {
	r=$1 t=$2
	shift 2
	echo 3 >/proc/sys/vm/drop_caches
	set -- $(disk) "$@"
	r0=$1 s0=$2
	shift 2
	out=$(fio --name="$t" --filename=/dev/vdb --output-format=terse --terse-version=3 "$@" 2>&1)
	set -- $(disk)
	echo "$out" | grep -q '^3;' || echo "$out" | sed 's/^/ETWORK fio: /'
	echo "$out" | grep '^3;' | awk -F';' -v run="$r" -v t="$t" -v reqs=$(($1 - r0)) -v sec=$(($2 - s0)) '
		{ ok = 1; mib = sec / 2048; kio = $8 * $9 / 1000000; per = kio > 0 ? sec / 2 / (kio * 1000) : 0
		  printf "ETWORK run=%d test=%s iops=%.0f mibs=%.1f kib=%d reqs=%d mib=%.0f kib_per_io=%.0f\n",
			run, t, $8, $7 / 1024, $6, reqs, mib, per }
		END { if (!ok) print "ETWORK error run=" run " test=" t " no fio result" }'
}
r=1
while [ "$r" -le "$RUNS" ]; do
	one "$r" rand --ioengine=mmap --rw=randread --bs=4k --size=3g --fadvise_hint=0 --runtime="$SECS" --time_based --randrepeat=0
	one "$r" seq --ioengine=psync --rw=read --bs=64k --size=512m
	r=$((r + 1))
done
echo "ETWORK-DONE"
echo o >/proc/sysrq-trigger
EOF
chmod 0755 "$MOD/module-setup.sh" "$MOD/etwork.sh"

kernels=${KERNELS:-$(cd "$ROOT/lib/modules" && ls | sort -V)}
for fs in proc sys dev; do mount --bind /$fs "$ROOT/$fs"; done
for k in $kernels; do
	chroot "$ROOT" dracut -q --no-hostonly --force --add "earlytune etwork" \
		--add-drivers "virtio_pci virtio_blk" "/boot/et-work-$k.img" "$k" >"$OUT/dracut-$k.log" 2>&1 ||
		die "$k: dracut: $(tail -5 "$OUT/dracut-$k.log")"
done
for fs in dev sys proc; do umount "$ROOT/$fs"; done
rm -f "$OUT/root.img" && truncate -s 16M "$OUT/root.img" && mkfs.ext4 -q -F "$OUT/root.img"
rm -f "$OUT/scratch.img" && truncate -s 4G "$OUT/scratch.img"

# ---- boots ---------------------------------------------------------------------

bad=0
for k in $kernels; do
	for m in $MODES; do
		et=; [ "$m" = stock ] && et=earlytune=0
		t=$(date +%s)
		timeout $((300 + RUNS * (SECS + 120))) \
			qemu-system-x86_64 -accel tcg -m 1024 -smp 2 -display none -no-reboot \
			-serial "file:$OUT/$k-$m.log" -kernel "$ROOT/boot/vmlinuz-$k" -initrd "$ROOT/boot/et-work-$k.img" \
			-append "console=ttyS0 panic=-1 root=/dev/vda rw quiet $et etwork.mode=$m etwork.runs=$RUNS etwork.secs=$SECS" \
			-drive file="$OUT/root.img",if=none,id=d0,format=raw -device virtio-blk-pci,drive=d0 \
			-drive file="$OUT/scratch.img",if=none,id=d1,format=raw,cache=unsafe \
			-device virtio-blk-pci,drive=d1,num-queues=1,opt_io_size=4194304 >/dev/null 2>&1
		echo "# $k $m: guest ran $(($(date +%s) - t)) s"
		grep -q ETWORK-DONE "$OUT/$k-$m.log" || { echo "$k $m: the guest did not finish:"; tail -30 "$OUT/$k-$m.log"; bad=1; }
		grep -q 'ETWORK error' "$OUT/$k-$m.log" && { grep 'ETWORK error' "$OUT/$k-$m.log"; bad=1; }
	done
done
report
exit $bad
