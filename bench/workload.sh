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
# booted alternately, ROUNDS rounds per kernel (stock, earlytune, stock,
# earlytune, …), so that a slow spell of the host falls on both modes alike.
#
# Each boot has a virtio NIC (QEMU user networking; earlytune gives it its
# qdisc from udev) and a second virtio disk, vdb (a fresh sparse 4 GiB
# scratch image per boot, one queue, opt_io_size 4 MiB, so the kernel's own
# read-ahead is 8192 KiB as on clouds that advertise a large optimal I/O
# size). In the initramfs, after udev settled, the guest prints the values in
# force, `earlytune status` and earlytune's kernel log lines, puts an LVM LV
# (3 GiB) on vdb, then runs RUNS rounds of, the page cache dropped before each:
#
#   rand: etmmap (bench/etmmap.c, static, built here): TOUCHES random 4 KiB
#         page touches through mmap of vdb, no madvise hint (as most
#         programs): what the read-ahead cap is for (each fault reads
#         read_ahead_kb around it)
#   lv:   the same on the LV (LV_TOUCHES touches): a stacked device takes
#         its read-ahead from earlytune's stacked-device handling
#   seq:  dd bs=64k of 512 MiB of vdb: what the cap costs
#
# with the MiB and requests vdb served (/sys/block/vdb/stat); then the long
# lossy path, NREPS iperf3 runs of NSECS s (-O 3: the first 3 s omitted) at
# 0 % and at 1 % loss, in three network namespaces:
#
#   snd [s0] ==veth== [r0] rtr [r1] ==veth== [v0] rcv
#   10.9.1.1           netem: r0 egress (to snd):  delay 25ms
#                      netem: r1 egress (to rcv):  delay 25ms, loss 0|1 %, rate 100mbit
#
# The sender (iperf3 -c in snd) keeps what the boot gave it: its namespace,
# created after the boot, copies net.ipv4.tcp_congestion_control from
# init_net; a veth is a no-queue device (it never takes default_qdisc), so
# s0 gets as root qdisc net.core.default_qdisc, the qdisc a real NIC gets from
# this boot (the guest prints the NIC's, s0's and the sender socket's
# congestion control from ss -ti); TSO/GSO are off on s0 so that netem's
# loss applies per packet, not per 64 KiB super-packet. The delay, loss and
# rate sit on the router's egresses, never on the sender's own qdisc.
# Last, THP: etfault (bench/etfault.c) fragments free memory (all but
# 64 MiB + 2 x vm.min_free_kbytes filled with 4 KiB pages, every other one
# freed: the guest has no swap), then writes once per 4 KiB into THP_MIB MiB
# (fewer if memory is short) of fresh anonymous memory and times each fault;
# a guest that still runs out of memory panics (vm.panic_on_oom) and fails.
# The boot cost comes from the kernel log: earlytune's own time (the sum of
# its "apply …: … in N ms" summary lines) and the kernel timestamps at which
# bbr, default_qdisc fq and the NIC's fq were in force.
#
# Prints per kernel a markdown table, stock vs earlytune: per cell the
# median of the rounds' medians (a round's median: over its boot's runs),
# [min..max] over every run of every round, each round's median, and the
# earlytune/stock ratio of the medians; also written to
# BUILD_DIR/bench/workload.md. Exit status 1 if a guest did not finish or a
# run gave no result. A boot takes 5-6 min here: ROUNDS=2 and both kernels,
# about 45 min; ROUNDS=1 halves it.
#
# Environment: ROUNDS (2), RUNS (3), TOUCHES (2000), LV_TOUCHES (500), NREPS
# (3), NSECS (15), THP_MIB (128), KERNELS (every kernel of the root).
# LOGS=DIR reports again from kept guest logs (KEEP=1 keeps them; an earlier
# run's KVER-MODE.log counts as one round). Needs root (chroot, dracut
# in the boot tests' root: tests/boot/mkroot.sh's cached one, under an
# overlay of this bench's own at BUILD_DIR/boot-bench/rootfs that the next
# run discards; iperf3, ethtool and lvm2 are added there, only for this
# bench, and earlytune's package from this tree's .deb). BENCH_DRY=1: a dry
# run (bench/lib.sh): the checks, etmmap and etfault built, the guests'
# dracut module generated and parsed in a scratch directory; no .deb, no root
# built or touched, no boot.
# Noise: TCG on a shared host; read the spread before the ratios.
set -u
export LC_ALL=C
ROUNDS=${ROUNDS:-2}
RUNS=${RUNS:-3}
TOUCHES=${TOUCHES:-2000}
LV_TOUCHES=${LV_TOUCHES:-500}
NREPS=${NREPS:-3}
NSECS=${NSECS:-15}
THP_MIB=${THP_MIB:-128}
MODES="stock earlytune"
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_paths "${1:-}"
MOD=$ROOT/usr/lib/dracut/modules.d/98etwork

# ---- report ----------------------------------------------------------------

# Guest logs: KVER-MODE-ROUND.log (KVER-MODE.log: an earlier run's one round).
# rounds KVER MODE → the mode's logs, round by round
rounds() { (cd "$OUT" && ls "$1-$2.log" "$1-$2"-[0-9]*.log 2>/dev/null | sort -V | sed "s|^|$OUT/|"); }
log() { tr -d '\r' <"$1"; }
field() { sed -n "s/.* $1=\\([0-9.]*\\).*/\\1/p"; }
# runs LOG TEST KEY → the KEY of every ETWORK line of that test
runs() { log "$1" | grep "^ETWORK run=.* test=$2 " | field "$3"; }
# mode CMD ARGS… MODE → "median min max r1/r2/…": the median of the rounds'
# medians, the extremes of every run of every round, each round's median
# (CMD ARGS… LOG gives a round's numbers, one a line)
mode() {
	local m=${!#} f out meds='' all='' mm mn mx
	set -- "${@:1:$#-1}"
	for f in $(rounds "$k" "$m"); do
		out=$("$@" "$f" | grep .)
		meds+="$(printf '%s' "$out" | grep . | bench_stats | cut -d' ' -f1)"$'\n'
		all+="$out"$'\n'
	done
	read -r mm _ _ <<<"$(grep -v '^-$' <<<"$meds" | grep . | bench_stats)"
	read -r _ mn mx <<<"$(grep . <<<"$all" | bench_stats)"
	echo "$mm $mn $mx $(grep . <<<"$meds" | paste -sd/)"
}
# cell "median min max r1/r2/…" → "median [min..max] (r1 / r2 …)"
cell() {
	local m mn mx rounds c
	read -r m mn mx rounds <<<"$1"
	c=$m; [ "$mn" != "$mx" ] && c="$m [$mn..$mx]"
	case $rounds in */*) c="$c (${rounds//\// / })" ;; esac
	echo "$c"
}
# row LABEL CMD ARGS… — one table row: CMD ARGS… MODE gives a mode's numbers
row() {
	local label=$1 s e
	shift
	s=$(mode "$@" stock) e=$(mode "$@" earlytune)
	echo "| $label | $(cell "$s") | $(cell "$e") | $(ratio "${e%% *}" "${s%% *}") |"
}
# t TEST KEY LOG: the test's KEY in that round (row passes the log last)
t() { runs "$3" "$1" "$2"; }
# per TEST LOG: KiB read from vdb per touch
per() { log "$2" | grep "^ETWORK run=.* test=$1 " | awk '{ for (f = 1; f <= NF; f++) { split($f, kv, "="); v[kv[1]] = kv[2] }
	if (v["touches"] > 0) printf "%.0f\n", v["kib"] / v["touches"] }'; }
mib() { runs "$2" "$1" kib | awk '{ printf "%.0f\n", $1 / 1024 }'; }
# each CMD ARGS… MODE → CMD ARGS… LOG of each round of the mode, joined by " / "
each() {
	local m=${!#} f out=
	set -- "${@:1:$#-1}"
	for f in $(rounds "$k" "$m"); do out="$out / $("$@" "$f")"; done
	echo "${out# / }"
}
# earlytune's own time in the boot: the sum of its summary lines before the workloads
bootms() { log "$1" | sed -n 's/^ETWORK kmsg: .*earlytune: apply.* in \([0-9.]*\) ms$/\1/p' |
	awk '{ s += $1 } END { if (NR) printf "%.0f (%d runs)\n", s, NR; else print "none" }'; }
# at PATTERN LOG → the kernel timestamp (s) of earlytune's first log line matching PATTERN
at() { log "$2" | sed -n "s/^ETWORK kmsg: \\[ *\\([0-9.]*\\)\\] earlytune: .*$1.*/\\1/p" | head -1; }
when() { local v; v=$(at "$1" "$2"); [ -n "$v" ] && printf '%.2f\n' "$v" || echo never; }
values() { log "$2" | sed -n "s/^ETWORK $1 //p" | head -1 | sed 's/eth0_qdisc= /eth0_qdisc=noop /; s/eth0_qdisc=$/eth0_qdisc=noop/'; }
# the sender socket's congestion control, from ss -ti during the first run per loss setting
sscc() { log "$1" | sed -n 's/^ETWORK ss loss=\([01]\): /\1 % loss: /p' | tr '\n' ';'; }
changed() { log "$1" | grep -c '^ETWORK status:   changed'; }
hostload() { local v; v=$(log "$1" | sed -n 's/^ETWORK host loadavg //p' | head -1); echo "${v:--}"; }
report() {
	local first n
	first=$(cd "$OUT" && ls [0-9]*-stock*.log | head -1)
	n=$(echo "$kernels" | head -1)
	n=$(rounds "$n" stock | wc -l)
	[ "$n" -gt 1 ] && set -- several
	echo "# earlytune workload benchmark"
	echo
	echo "$ET; QEMU $(bench_qemu_version), software emulation (TCG), -smp 2, 1 GiB,"
	echo "on a host with $(nproc) CPUs ($(uname -r)), $(date -u -r "$OUT/$first" +%Y-%m-%d). $n round(s) per kernel,"
	echo "each a stock boot then an earlytune boot. Per cell: the median of the rounds' medians"
	echo "[min..max of every run of every round] (each round's median, when more than one);"
	echo "ratio: earlytune/stock of the medians. rand/lv: random 4 KiB mmap touches of vdb / of an LV on it;"
	echo "seq: dd bs=64k 512 MiB; net: iperf3 through netem 2x25 ms, 100 Mbit/s, Mbit/s at the receiver;"
	echo "thp: first writes to fresh anonymous memory after fragmenting free memory."
	for k in $kernels; do
		echo
		echo "## $k"
		echo
		for m in $MODES; do
			# the first round whose guest got as far as the workloads
			f=/dev/null n=0 i=0
			for g in $(rounds "$k" "$m"); do
				i=$((i + 1))
				grep -q '^ETWORK values' "$g" && { f=$g n=$i; break; }
			done
			echo "- $m${1:+ (round $n)}: $(values values "$f")"
			echo "  LV: $(values lv "$f"); sender: $(values sender "$f"); ss -ti: $(sscc "$f")"
			echo "  before the THP probe: $(values thp "$f")"
			echo "  earlytune changed $(each changed "$m") items"
		done
		echo
		echo "| $k | stock | earlytune | ratio |"
		echo "|---|---|---|---|"
		row "rand vdb touches/s" t rand per_s
		row "rand vdb KiB read per touch" per rand
		row "rand LV touches/s" t lv per_s
		row "rand LV KiB read from vdb per touch" per lv
		row "seq dd MiB/s" t seq mibs
		row "seq requests" t seq reqs
		row "seq MiB read from vdb" mib seq
		row "net 0 % loss Mbit/s" t net0 mbits
		row "net 0 % loss retransmits" t net0 retr
		row "net 1 % loss Mbit/s" t net1 mbits
		row "net 1 % loss retransmits" t net1 retr
		row "thp MiB touched" t thp mib
		row "thp fault total ms" t thp total_ms
		row "thp fault max µs" t thp max_us
		row "thp fault p99 µs" t thp p99_us
		row "thp huge pages faulted" t thp thp_alloc
		echo "| earlytune's own time in the boot, ms | $(each bootms stock) | $(each bootms earlytune) | |"
		echo "| bbr in force at (s after kernel start) | $(each when '> bbr' stock) | $(each when '> bbr' earlytune) | |"
		echo "| default_qdisc fq at (s) | $(each when 'default_qdisc: .*> fq' stock) | $(each when 'default_qdisc: .*> fq' earlytune) | |"
		echo "| eth0 qdisc fq at (s) | $(each when 'eth0 qdisc: .*fq' stock) | $(each when 'eth0 qdisc: .*fq' earlytune) | |"
		echo "| host load average (1, 5, 15 min) at the boot's end | $(each hostload stock) | $(each hostload earlytune) | |"
	done
}
if [ -n "${LOGS:-}" ]; then
	OUT=$LOGS
	kernels=$(cd "$OUT" && ls [0-9]*-stock*.log | sed -E 's/-stock(-[0-9]+)?\.log$//' | sort -uV)
	report
	exit 0
fi
# A fresh clone has no directory for the root (and its log) yet.
mkdir -p "${ROOT%/*}" || die "cannot create ${ROOT%/*}"
if bench_dry; then
	bench_dry_guests dpkg-checkbuilddeps
	# A root without earlytune's package gets this tree's .deb (make deb).
	out=$(cd "$top" && dpkg-checkbuilddeps 2>&1) || die "make deb could not build the root's package: $out"
	bench_say "the build dependencies of make deb are installed (the .deb for a root without earlytune)"
	OUT=$(mktemp -d /tmp/earlytune-bench-workload.XXXXXX)
	MOD=$OUT/98etwork
	trap 'rm -rf "$OUT"' EXIT
else
	bench_need_root
	# Only for this bench: the boot tests' root (make check) does without them.
	need=
	for p in iperf3 ethtool lvm2; do chroot "$ROOT" dpkg -s $p >/dev/null 2>&1 || need="$need $p"; done
	if [ -n "$need" ]; then
		bench_mounts on
		rc=0
		chroot "$ROOT" sh -c "export DEBIAN_FRONTEND=noninteractive
			apt-get install -y -q --no-install-recommends $need && apt-get clean" >>"$ROOT.log" 2>&1 || rc=$?
		bench_mounts off
		[ "$rc" = 0 ] || die "cannot install$need in the root (see $ROOT.log)"
	fi
	# The package's dracut module and udev rule come from this tree's .deb,
	# installed as the boot tests install it (the cached root has none).
	if ! [ -x "$ROOT/usr/sbin/earlytune" ] || ! [ -d "$ROOT/usr/lib/dracut/modules.d/50earlytune" ]; then
		echo "# the root has no earlytune package: make deb, dpkg -i in the root"
		make -s -C "$top" deb BUILD="$build" >>"$ROOT.log" 2>&1 || die "make deb failed: $(tail -20 "$ROOT.log")"
		deb=$(ls "$build"/deb/earlytune_*.deb | head -1)
		cp "$deb" "$ROOT/tmp/earlytune.deb"
		bench_mounts on
		rc=0
		chroot "$ROOT" dpkg -i /tmp/earlytune.deb >>"$ROOT.log" 2>&1 || rc=$?
		bench_mounts off
		rm -f "$ROOT/tmp/earlytune.deb"
		[ "$rc" = 0 ] || die "dpkg -i ${deb##*/} in the root failed: $(tail -10 "$ROOT.log")"
	fi
	OUT=$(mktemp -d /tmp/earlytune-bench-workload.XXXXXX)
	cleanup() {
		bench_root_off
		if [ "${KEEP:-0}" = 1 ]; then echo "# guest logs kept in $OUT"; else rm -rf "$OUT"; fi
	}
	trap cleanup EXIT
	# The image carries this build's binary and only the built-in profile.
	cp "$ET" "$ROOT/usr/sbin/earlytune"
	rm -rf "$ROOT/etc/earlytune.d" "$ROOT/etc/earlytune.conf"
fi

# ---- the guest side: a dracut module whose pre-mount hook runs the workloads --

mkdir -p "$MOD"
for p in etmmap etfault; do
	${CC:-cc} -static -O2 -Wall -Wextra -o "$MOD/$p" "$top/bench/$p.c" || die "cannot build bench/$p.c"
done
cat >"$MOD/module-setup.sh" <<'EOF'
#!/bin/bash
check() { return 255; }
depends() { echo lvm; return 0; }
# inet_diag/tcp_diag: ss reads a socket's congestion control through them.
installkernel() { instmods sch_netem veth dm-mod inet_diag tcp_diag; }
install() {
	inst_multiple awk sed grep cat sleep dmesg nproc dd sort head tr timeout ip tc ss iperf3 ethtool lvm
	inst "$moddir/etmmap" /usr/bin/etmmap
	inst "$moddir/etfault" /usr/bin/etfault
	inst_hook pre-mount 99 "$moddir/etwork.sh"
}
EOF
# Sourced by dracut's init (POSIX sh) after udev settled, so earlytune's rule
# has run for vdb and eth0. One ETWORK line per run and test; the host
# computes the rest.
cat >"$MOD/etwork.sh" <<'EOF'
exec >/dev/console 2>&1
set -- $(cat /proc/cmdline)
for a; do
	case $a in etwork.*=*) a=${a#etwork.}; eval "W_${a%%=*}=\${a#*=}" ;; esac
done
Q=/sys/block/vdb/queue
sel() { sed -n 's/.*\[\(.*\)\].*/\1/p' "$1"; }
echo "ETWORK kernel=$(cat /proc/sys/kernel/osrelease) mode=$W_mode cpus=$(nproc)"
echo "ETWORK values vdb read_ahead_kb=$(cat $Q/read_ahead_kb) scheduler=$(sel $Q/scheduler) max_sectors_kb=$(cat $Q/max_sectors_kb) thp=$(sel /sys/kernel/mm/transparent_hugepage/enabled)/$(sel /sys/kernel/mm/transparent_hugepage/defrag) cc=$(cat /proc/sys/net/ipv4/tcp_congestion_control) default_qdisc=$(cat /proc/sys/net/core/default_qdisc) eth0_qdisc=$(tc qdisc show dev eth0 | awk 'NR == 1 { print $2 }')"
earlytune status 2>&1 | sed 's/^/ETWORK status: /'
dmesg | grep earlytune | sed 's/^/ETWORK kmsg: /'
disk() { awk '{ print $1, $3 }' /sys/block/vdb/stat; }
# measure RUN TEST CMD…: CMD's key=value line and what vdb served meanwhile
measure() {
	r=$1 t=$2
	shift 2
	echo 3 >/proc/sys/vm/drop_caches
	set -- $(disk) "$@"
	r0=$1 s0=$2
	shift 2
	out=$("$@" 2>&1)
	set -- $(disk)
	case $out in
	*=*) echo "ETWORK run=$r test=$t $out reqs=$(($1 - r0)) kib=$(($2 - s0 >> 1))" ;;
	*) echo "ETWORK error run=$r test=$t: $out" ;;
	esac
}
# dd's summary "N bytes (…) copied, S s, …" as key=value
seq_read() {
	dd if=/dev/vdb of=/dev/null bs=64k count=8192 2>&1 | awk '/copied/ { s = $(NF - 3) + 0; if (s > 0) printf "mibs=%.1f secs=%s\n", $1 / 1048576 / s, s }'
}
LV=
if timeout 120 lvm pvcreate -q -y /dev/vdb >/dev/null && timeout 120 lvm vgcreate -q etw /dev/vdb >/dev/null &&
	timeout 120 lvm lvcreate -q -y -L 3g -n lv etw >/dev/null; then
	udevadm settle
	LV=/dev/mapper/etw-lv
	for d in /sys/block/dm-*; do [ "$(cat "$d/dm/name")" = etw-lv ] && dm=${d##*/}; done
	echo "ETWORK lv $dm read_ahead_kb=$(cat /sys/block/$dm/queue/read_ahead_kb)"
	[ -n "$dm" ] && dmesg | grep "earlytune: .*$dm[: ]" | sed 's/^/ETWORK kmsg-lv: /'
else
	echo "ETWORK lv none: lvm failed"
fi
r=1
while [ "$r" -le "$W_runs" ]; do
	measure "$r" rand etmmap /dev/vdb "$W_touches"
	[ -n "$LV" ] && measure "$r" lv etmmap "$LV" "$W_lvtouches"
	measure "$r" seq seq_read
	r=$((r + 1))
done

# The long lossy path (topology: bench/workload.sh's header).
N() { ip netns exec "$@"; }
modprobe -q veth; modprobe -q sch_netem
for n in snd rtr rcv; do ip netns add $n && ip -n $n link set lo up; done
ip link add s0 netns snd type veth peer name r0 netns rtr
ip link add r1 netns rtr type veth peer name v0 netns rcv
ip -n snd addr add 10.9.1.1/24 dev s0; ip -n rtr addr add 10.9.1.2/24 dev r0
ip -n rtr addr add 10.9.2.2/24 dev r1; ip -n rcv addr add 10.9.2.1/24 dev v0
ip -n snd link set s0 up; ip -n rtr link set r0 up; ip -n rtr link set r1 up; ip -n rcv link set v0 up
ip -n snd route add default via 10.9.1.2; ip -n rcv route add default via 10.9.2.2
N rtr sh -c 'echo 1 >/proc/sys/net/ipv4/ip_forward'
created=$(N snd tc qdisc show dev s0 | head -1)
N snd tc qdisc replace dev s0 root "$(cat /proc/sys/net/core/default_qdisc)"
N snd ethtool -K s0 tso off gso off >/dev/null 2>&1
N rtr tc qdisc add dev r0 root netem delay 25ms limit 10000
N rtr tc qdisc add dev r1 root netem delay 25ms loss 0% rate 100mbit limit 10000
N rcv iperf3 -s -D -I /run/etwork-iperf3.pid
sleep 1
for loss in 0 1; do
	N rtr tc qdisc change dev r1 root netem delay 25ms loss "$loss%" rate 100mbit limit 10000
	i=1
	while [ "$i" -le "$W_nreps" ]; do
		sspid=
		if [ "$i" = 1 ]; then
			(sleep $((W_nsecs / 2 + 3)); echo "ETWORK ss loss=$loss: $(N snd ss -tin dst 10.9.2.1 | grep -o -w -E 'bbr|cubic|reno|htcp|vegas|westwood' | sort -u | tr '\n' ' ')") &
			sspid=$!
		fi
		out=$(N snd timeout $((W_nsecs + 60)) iperf3 -c 10.9.2.1 -t "$W_nsecs" -O 3 -f m 2>&1)
		[ -n "$sspid" ] && wait "$sspid"
		echo "$out" | awk -v run="$i" -v t="net$loss" '
			{ for (f = 1; f <= NF; f++) if ($f == "Mbits/sec") { if ($NF == "sender") { s = $(f - 1); re = $(f + 1) } if ($NF == "receiver") rx = $(f - 1) } }
			END { if (rx == "") print "ETWORK error run=" run " test=" t " no iperf3 result"
				else print "ETWORK run=" run " test=" t " mbits=" rx " sender_mbits=" s " retr=" re }'
		echo "$out" | grep -q receiver || echo "$out" | tail -5 | sed 's/^/ETWORK iperf3: /'
		i=$((i + 1))
	done
done
echo "ETWORK sender cc=$(N snd cat /proc/sys/net/ipv4/tcp_congestion_control) s0_qdisc_at_creation=$(echo "$created" | awk '{ print $2 }') s0_qdisc=$(N snd tc qdisc show dev s0 | awk 'NR == 1 { print $2 }')"
# The sender's qdisc counters: a pacing qdisc under emulation may drop or throttle.
echo "ETWORK s0 stats: $(N snd tc -s qdisc show dev s0 | tr -s ' \n' ' ')"
echo "ETWORK path r0: $(N rtr tc qdisc show dev r0 | head -1) r1: $(N rtr tc qdisc show dev r1 | head -1)"
kill "$(cat /run/etwork-iperf3.pid)" 2>/dev/null

# Should the probe still run the guest out of memory, end the boot at once.
echo 1 >/proc/sys/vm/panic_on_oom
echo "ETWORK thp min_free_kbytes=$(cat /proc/sys/vm/min_free_kbytes) MemFree=$(awk '/^MemFree/ { print $2 }' /proc/meminfo) kB"
r=1
while [ "$r" -le "$W_runs" ]; do
	measure "$r" thp etfault "$W_thpmib"
	r=$((r + 1))
done
echo "ETWORK-DONE"
echo o >/proc/sysrq-trigger
EOF
chmod 0755 "$MOD/module-setup.sh" "$MOD/etwork.sh"
secs=$((600 + RUNS * (TOUCHES / 10 + LV_TOUCHES / 10 + 120) + 2 * NREPS * (NSECS + 60)))
if bench_dry; then
	bench_dry_module "$MOD"
	bench_say "etmmap and etfault built (static), the guests' dracut module (98etwork) generated in $OUT and parsed"
	bench_say "a real run installs iperf3, ethtool, lvm2 and earlytune's package in the root if missing, builds an initramfs" \
		"per kernel, boots stock and earlytune alternately (QEMU TCG, at most $secs s each): ROUNDS=$ROUNDS RUNS=$RUNS" \
		"TOUCHES=$TOUCHES LV_TOUCHES=$LV_TOUCHES NREPS=$NREPS NSECS=$NSECS THP_MIB=$THP_MIB" \
		"KERNELS=\"${KERNELS:-every kernel of the root}\"; report in $build/bench/workload.md; about 45 minutes"
	exit 0
fi

bench_images et-work --add "earlytune etwork" --add-drivers "virtio_pci virtio_blk virtio_net"

# ---- boots: stock and earlytune alternately, ROUNDS times per kernel ------------

bad=0
for k in $kernels; do
	r=1
	while [ "$r" -le "$ROUNDS" ]; do
		for m in $MODES; do
			et=; [ "$m" = stock ] && et=earlytune=0
			log=$OUT/$k-$m-$r.log
			# A fresh scratch disk: the LV is created in each boot.
			rm -f "$OUT/scratch.img" && truncate -s 4G "$OUT/scratch.img"
			bench_boot "$k $m round $r" "$log" "$k" et-work \
				"$secs" \
				"printk.time=1 $et etwork.mode=$m etwork.runs=$RUNS etwork.touches=$TOUCHES etwork.lvtouches=$LV_TOUCHES etwork.nreps=$NREPS etwork.nsecs=$NSECS etwork.thpmib=$THP_MIB" \
				-nic user,model=virtio-net-pci \
				-drive file="$OUT/scratch.img",if=none,id=d1,format=raw,cache=unsafe \
				-device virtio-blk-pci,drive=d1,num-queues=1,opt_io_size=4194304
			# The host's load at the boot's end: what slowed the emulation (read-only).
			echo "ETWORK host loadavg $(cut -d' ' -f1-3 /proc/loadavg)" >>"$log"
			bench_check "$k $m round $r" "$log" ETWORK || bad=1
		done
		r=$((r + 1))
	done
done
mkdir -p "$build/bench"
report | tee "$build/bench/workload.md"
exit $bad
