#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# make check-measure: `earlytune measure tcp` on the worked case of issue 31,
# scaled to what software emulation sustains, and `measure readahead`
# against the workload benchmark's own round, in QEMU guests booting the
# boot tests' Debian cloud kernels (bookworm's 6.1, bookworm-backports'
# 6.12: both have sch_netem and tcp_bbr; this machine's kernel has no
# netem). Not a step of make check: a guest takes minutes under TCG.
#
# Each guest runs tests/boot/measure-guest.sh in its dracut initramfs: two
# network namespaces joined by a veth pair, a rate limit on the sender's
# egress (tbf, ET_MEASURE_RATE Mbit/s) and a round trip of ET_MEASURE_DELAY
# ms (netem on the receiver's egress: netem on the sender's own lets what
# is in flight outgrow the send buffer, see the guest script;
# ET_MEASURE_QDISC=netem puts it there); iperf3 sends from A to B, earlytune
# measures from A while it runs. First what the emulation sustains on the path
# without the rate limit (the rate must be well below it, else the guest,
# not the path, would be the limit). Then three cases:
#
#   send buffer  tcp_wmem's max ET_MEASURE_WMEM in A: measure names the send
#                buffer, predicts, --apply sets tcp_wmem 4x and writes its
#                sysctl.d file; the same measurement again: the prediction
#                holds (within measure's tolerance, 75 % of the predicted
#                throughput) and iperf3's own rate rose; --verify says so
#   receive window  tcp_rmem's max ET_MEASURE_RMEM in B: named, the change
#                said to be the receiving host's, --apply changes nothing;
#                set on B as its administrator would, measured again: held
#   nothing      an application sending ET_MEASURE_APP Mbit/s (iperf3 -b),
#                then the rate limit itself under bbr: neither a setting of
#                this host; --apply changes nothing
#   readahead    `measure readahead vdb` on a second virtio disk like the
#                workload benchmark's vdb (a fresh sparse 4 GiB image, one
#                queue, opt_io_size 4 MiB: the kernel's read-ahead 8192 KiB;
#                the guest's 1 GiB as the benchmark's), beside the benchmark's
#                own rand round (bench/etmmap.c, 2,000 touches of the device
#                through a read-only mapping, as bench/workload.sh runs it).
#                The command maps the device read-only too (vdb has no
#                filesystem), its round the benchmark's: 2,000 touches over
#                the same 4 GiB, --max-bytes beyond the memory so that the
#                page cache evicts as in the benchmark. Its KiB read a touch
#                at 8192 KiB within 20 % of etmmap's; the candidate the vps
#                profile's cap (1024); --apply; the same measurement again,
#                --verify, holds the prediction (within measure's 20 %)
#
# Every number is printed. The root is tests/boot/mkroot.sh's cached one
# (it carries iperf3), seen through an overlay of this test's own at
# BUILD_DIR/boot-measure/rootfs; the image carries this build's binary.
#
# Usage: tests/boot/measure.sh BUILD_DIR  (logs in BUILD_DIR/boot-measure)
# Environment: KERNELS (every kernel of the root), ET_MEASURE_RATE (100),
# ET_MEASURE_DELAY (100), ET_MEASURE_WMEM (262144), ET_MEASURE_RMEM (262144),
# ET_MEASURE_APP (4), ET_MEASURE_SECS (24: each iperf3 transfer),
# ET_MEASURE_FOR (4: each measurement's window), ET_MEASURE_WARM (5: from the
# transfer's start to the first measurement), ET_MEASURE_RA_MAX (64G: measure
# readahead's --max-bytes, a quarter a round), ET_MEASURE_RA_FOR (1200: its
# --for, a quarter a round; a round of 2,000 touches at 8192 KiB takes
# about 70 s under TCG), ET_MEASURE_ONLY (comma list of wmem, rmem, nothing,
# readahead: only those parts, a quicker look). LOGS=DIR: assert again on
# the guests' logs of an earlier run (DIR/KVER.log), no boot.
set -u
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
RATE=${ET_MEASURE_RATE:-100} DELAY=${ET_MEASURE_DELAY:-100}
WMEM=${ET_MEASURE_WMEM:-262144} RMEM=${ET_MEASURE_RMEM:-262144} APP=${ET_MEASURE_APP:-4}
SECS=${ET_MEASURE_SECS:-24} FOR=${ET_MEASURE_FOR:-4} WARM=${ET_MEASURE_WARM:-5}
RA_MAX=${ET_MEASURE_RA_MAX:-64G} RA_FOR=${ET_MEASURE_RA_FOR:-1200}
# The benchmark's rand round (bench/workload.sh's TOUCHES): the command's
# random round is at most as many touches (measure/readahead_probe.c).
TOUCHES=2000
ONLY=${ET_MEASURE_ONLY:-wmem,rmem,nothing,readahead}
T=measure
# shellcheck source=tests/boot/guest.sh
. "$here/guest.sh"
# shellcheck source=tests/boot/measure-check.sh
. "$here/measure-check.sh"
guest_setup "$1" usr/bin/iperf3

# The guests' dracut module: this build's binary, the workload benchmark's
# etmmap (static, as bench/workload.sh builds it) and the guest script.
guest_module etmeasure <<'EOF'
depends() { return 0; }
# inet_diag/tcp_diag: earlytune reads the connections through them.
installkernel() { hostonly='' instmods veth sch_netem sch_tbf tcp_bbr inet_diag tcp_diag; }
install() {
	inst_multiple awk sed grep cat sleep nproc tr head tail ls ip tc ss sysctl iperf3
	inst_simple "$moddir/earlytune" /usr/sbin/earlytune
	inst_simple "$moddir/etmmap" /usr/bin/etmmap
	inst_hook pre-mount 99 "$moddir/etmeasure.sh"
}
EOF
cp "$build/earlytune" "$MOD/earlytune"
${CC:-cc} -static -O2 -Wall -Wextra -o "$MOD/etmmap" "$top/bench/etmmap.c" || { fail "build bench/etmmap.c (static)"; exit; }
install -m 0644 "$here/measure-guest.sh" "$MOD/etmeasure.sh"

# A guest: 7 transfers of SECS, the boot, the images' modules; the
# read-ahead's three measurements (at most RA_FOR each, about a quarter of
# it here) and two etmmap rounds; generously.
secs=$((240 + 9 * (SECS + 10)))
case ,$ONLY, in *,readahead,*) secs=$((secs + 3 * ${RA_FOR%[smhd]} / 2 + 600)) ;; esac
for k in $(guest_kernels); do
	guest_image "$k" --omit earlytune --add etmeasure --add-drivers "virtio_pci virtio_blk" || continue
	t=$(date +%s)
	# vdb: a fresh sparse disk like the workload benchmark's (bench/workload.sh)
	rm -f "$B/scratch.img" && truncate -s 4G "$B/scratch.img"
	timeout "$secs" qemu-system-x86_64 -accel tcg -m 1024 -smp 2 -display none -no-reboot \
		-serial "file:$B/$k.log" -kernel "$ROOT/boot/vmlinuz-$k" -initrd "$ROOT/boot/et-measure-$k.img" \
		-append "console=ttyS0 panic=-1 root=/dev/vda rw quiet etm.rate=$RATE etm.delay=$DELAY etm.wmem=$WMEM etm.rmem=$RMEM etm.app=$APP etm.secs=$SECS etm.for=$FOR etm.warm=$WARM etm.touches=$TOUCHES etm.ramax=$RA_MAX etm.rafor=$RA_FOR etm.only=$ONLY${ET_MEASURE_QDISC:+ etm.qdisc=$ET_MEASURE_QDISC}" \
		-drive file="$B/root.img",if=none,id=d0,format=raw -device virtio-blk-pci,drive=d0 \
		-drive file="$B/scratch.img",if=none,id=d1,format=raw,cache=unsafe \
		-device virtio-blk-pci,drive=d1,num-queues=1,opt_io_size=4194304 \
		-nic none >/dev/null 2>&1
	echo "# $k: guest ran $(($(date +%s) - t)) s (at most $secs); host load $(cut -d' ' -f1-3 /proc/loadavg)"
	rm -f "$ROOT/boot/et-measure-$k.img" "$B/scratch.img"
	check_kernel "$k" "$B/$k.log"
done
