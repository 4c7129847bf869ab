# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by dracut's init (POSIX sh) in the guests of tests/boot/measure.sh:
# the worked case of `earlytune measure tcp`, scaled to what software
# emulation sustains. Two network namespaces joined by a veth pair, a rate
# limit on the sender's side (tbf, etm.rate Mbit/s), a round trip of
# etm.delay ms (netem); iperf3 sends from A to B; earlytune
# measures from A while it runs. One "ETM NAME key=value" line per fact, the
# JSON of each measurement on one line; the host asserts.
exec >/dev/console 2>&1
echo "1 4 1 7" >/proc/sys/kernel/printk
set -- $(cat /proc/cmdline)
for a; do
	case $a in etm.*=*) a=${a#etm.}; eval "M_${a%%=*}=\${a#*=}" ;; esac
done
echo "ETM kernel=$(cat /proc/sys/kernel/osrelease) cpus=$(nproc) rate=${M_rate}mbit delay=${M_delay}ms wmem=$M_wmem rmem=$M_rmem secs=$M_secs for=$M_for warm=$M_warm touches=$M_touches ramax=$M_ramax rafor=$M_rafor"
for m in veth sch_netem sch_tbf tcp_bbr inet_diag tcp_diag; do
	modprobe "$m" || echo "ETM error modprobe $m"
done
N() { ip netns exec "$@"; }
BIG="4096 16384 4194304"
ip netns add A && ip netns add B || echo "ETM error ip netns add"
ip -n A link set lo up; ip -n B link set lo up
ip link add vA netns A type veth peer name vB netns B || echo "ETM error veth"
ip -n A addr add 10.78.0.1/24 dev vA; ip -n B addr add 10.78.0.2/24 dev vB
ip -n A link set vA up; ip -n B link set vB up
# The send buffer and receive window start where no setting is the limit.
N A sysctl -qw net.ipv4.tcp_wmem="$BIG" net.ipv4.tcp_congestion_control=cubic
N B sysctl -qw net.ipv4.tcp_rmem="4096 131072 6291456"

# etm_sysctls NAME: the settings measure may touch, as they are now
etm_sysctls() {
	echo "ETM $1 sysctl A.wmem=$(N A cat /proc/sys/net/ipv4/tcp_wmem | tr '\t' ' ')" \
		"A.rmem=$(N A cat /proc/sys/net/ipv4/tcp_rmem | tr '\t' ' ')" \
		"A.cc=$(N A cat /proc/sys/net/ipv4/tcp_congestion_control)" \
		"B.rmem=$(N B cat /proc/sys/net/ipv4/tcp_rmem | tr '\t' ' ')" \
		"files=$(ls /etc/sysctl.d 2>/dev/null | grep -c earlytune-measure)"
}
# etm_measure NAME TAG ARGS...: earlytune measure tcp in A, its output and
# exit status as ETM lines (TAG text, verify: the output line by line; else
# the JSON on one)
etm_measure() {
	_n=$1 _t=$2
	shift 2
	N A earlytune measure tcp "$@" >/run/etm.out 2>/run/etm.err
	echo "ETM $_n $_t-rc=$?"
	if [ "$_t" = text ] || [ "$_t" = verify ]; then
		sed "s/^/ETM $_n text: /" /run/etm.out
	else
		echo "ETM $_n $_t=$(tr -d '\n' </run/etm.out)"
	fi
	sed "s/^/ETM $_n $_t-err: /" /run/etm.err
}
# etm_case NAME IPERF_ARGS -- MEASURES...: one iperf3 transfer from A to B of
# etm.secs, measured after etm.warm s (past slow start) by each of
# MEASURES in turn ("text", "json", "apply", "verify"); then iperf3's own
# numbers: the receiver's Mbit/s over the transfer, the sender's retransmits.
etm_case() {
	_c=$1
	shift
	_ia=
	while [ "$1" != -- ]; do _ia="$_ia $1"; shift; done
	shift
	etm_sysctls "$_c"
	# A server per transfer: an accepted socket starts from the listener's
	# buffers, which tcp_rmem gave it when it was created.
	N B iperf3 -s -1 >/run/etm-server.out 2>&1 &
	_sp=$!
	sleep 1
	N A iperf3 -c 10.78.0.2 -t "$M_secs" -f m $_ia >/run/etm-iperf.out 2>&1 &
	_ip=$!
	sleep "$M_warm"
	echo "ETM $_c ss: $(N A ss -tmi dst 10.78.0.2 dport = :5201 | tr -s ' \t\n' ' ')"
	for _m; do
		case $_m in
		text) etm_measure "$_c" text --for "$M_for" --port 5201 ;;
		json) etm_measure "$_c" json --for "$M_for" --port 5201 --json ;;
		apply) etm_measure "$_c" apply --for "$M_for" --port 5201 --json --apply ;;
		verify) etm_measure "$_c" verify --verify ;;
		esac
	done
	wait "$_ip"
	wait "$_sp"
	awk -v c="$_c" '$NF == "receiver" { for (f = 1; f <= NF; f++) if ($f == "Mbits/sec") rx = $(f - 1) }
		$NF == "sender" { re = $(NF - 1) }
		END { if (rx == "") print "ETM " c " error no iperf3 result"
			else print "ETM " c " iperf3 mbits=" rx " retr=" re }' /run/etm-iperf.out
	grep -q receiver /run/etm-iperf.out || tail -5 /run/etm-iperf.out | sed "s/^/ETM $_c iperf3: /"
	etm_sysctls "$_c-after"
}

# etm_want PART: run PART (etm.only=PART,…: only those, for a quicker look)
etm_want() { case ,${M_only:-$1}, in *,$1,*) return 0 ;; esac; return 1; }

# What the emulation sustains: the veth pair without delay or rate limit.
if etm_want wmem || etm_want rmem || etm_want nothing; then
	etm_case capacity -- json
fi
# The rate limit is tbf on the sender's egress, the delay netem on the
# receiver's (the round trip all on the acknowledgements' way): netem on the
# sender's own egress lets what is in flight outgrow the send buffer (1.3 MB
# against a 256 KiB buffer here), so no buffer would be the limit it sets.
# etm.qdisc=netem puts netem there (delay each way, its rate), to see that.
if [ "${M_qdisc:-tbf}" = netem ]; then
	N A tc qdisc add dev vA root netem delay "$((M_delay / 2))ms" rate "${M_rate}mbit" limit 10000
	N B tc qdisc add dev vB root netem delay "$((M_delay / 2))ms" limit 10000
else
	N A tc qdisc add dev vA root tbf rate "${M_rate}mbit" burst 64kb latency 200ms
	N B tc qdisc add dev vB root netem delay "${M_delay}ms" limit 10000
fi
echo "ETM path A: $(N A tc qdisc show dev vA | head -1) B: $(N B tc qdisc show dev vB | head -1)"

# 1. The send buffer: tcp_wmem's max small in A. Measured, applied, then
# the same measurement again (and --verify, the prediction the file keeps).
if etm_want wmem; then
N A sysctl -qw net.ipv4.tcp_wmem="4096 16384 $M_wmem"
etm_case wmem -- text apply
[ -e /etc/sysctl.d/60-earlytune-measure-tcp_wmem.conf ] &&
	sed 's/^/ETM wmem file: /' /etc/sysctl.d/60-earlytune-measure-tcp_wmem.conf
etm_case wmem-again -- text json
if N A earlytune measure tcp --help 2>&1 | grep -q -e --verify; then
	etm_case wmem-verify -- verify
	[ -e /etc/sysctl.d/60-earlytune-measure-tcp_wmem.conf ] &&
		sed 's/^/ETM wmem-verify file: /' /etc/sysctl.d/60-earlytune-measure-tcp_wmem.conf
else
	echo "ETM wmem-verify none: this earlytune has no --verify"
fi
rm -f /etc/sysctl.d/60-earlytune-measure-tcp_wmem.conf
N A sysctl -qw net.ipv4.tcp_wmem="$BIG"
fi

# 2. The receive window: tcp_rmem's max small in B, the peer. Named, said
# to be the receiving host's, applied nowhere; then set on B as its
# administrator would, and measured the same way.
if etm_want rmem; then
N B sysctl -qw net.ipv4.tcp_rmem="4096 16384 $M_rmem"
etm_case rmem -- text apply
s=$(sed -n 's/.*"sysctl":"net.ipv4.tcp_rmem","value":"\([0-9 ]*\)".*/\1/p' /run/etm.out)
echo "ETM rmem suggested $s"
[ -n "$s" ] && N B sysctl -qw net.ipv4.tcp_rmem="$s"
etm_case rmem-again -- json
N B sysctl -qw net.ipv4.tcp_rmem="4096 131072 6291456"
fi

# 3. Nothing earlytune sets: an application that sends etm.app Mbit/s, then
# the rate limit itself under bbr (no loss to suggest bbr for).
if etm_want nothing; then
etm_case app -b "${M_app}M" -- text apply
N A sysctl -qw net.ipv4.tcp_congestion_control=bbr
etm_case link -- text apply
N A sysctl -qw net.ipv4.tcp_congestion_control=cubic
fi
# 4. The read-ahead of vdb, a disk like the workload benchmark's (4 GiB,
# opt_io_size 4 MiB: the kernel gives it 8192 KiB), in the benchmark's 1 GiB:
# its own rand round (etmmap, as bench/workload.sh runs it: the page cache
# dropped, vdb's stat around it), then measure readahead on the same disk
# with the round the benchmark's (2,000 touches through a read-only mapping
# of the device, --max-bytes beyond the memory: its reads are evicted as the
# benchmark's are), --apply to the cap, the same measurement again
# (--verify: text, then JSON for the host's checks; the file keeps the
# latter's verdict), and the benchmark's
# round again at the cap.
# etm_etmmap NAME: etmmap's line, the read-ahead and what vdb served
etm_etmmap() {
	_n=$1
	echo 3 >/proc/sys/vm/drop_caches
	# shellcheck disable=SC2046 # split: reads completed, sectors read
	set -- $(awk '{ print $1, $3 }' /sys/block/vdb/stat)
	_o=$(etmmap /dev/vdb "$M_touches" 2>&1)
	# shellcheck disable=SC2046
	set -- "$@" $(awk '{ print $1, $3 }' /sys/block/vdb/stat)
	echo "ETM $_n etmmap ra=$(cat /sys/block/vdb/queue/read_ahead_kb) $_o reqs=$(($3 - $1)) kib=$((($4 - $2) >> 1))"
}
# etm_ra NAME TAG ARGS...: earlytune measure readahead vdb, as etm_measure
etm_ra() {
	_n=$1 _t=$2
	shift 2
	[ "$_t" = json ] && set -- "$@" --json
	earlytune measure readahead vdb --max-bytes "$M_ramax" --for "$M_rafor" "$@" >/run/etm.out 2>/run/etm.err
	echo "ETM $_n $_t-rc=$?"
	if [ "$_t" = json ]; then
		echo "ETM $_n $_t=$(tr -d '\n' </run/etm.out)"
	else
		sed "s/^/ETM $_n text: /" /run/etm.out
	fi
	sed "s/^/ETM $_n $_t-err: /" /run/etm.err
	echo "ETM $_n after read_ahead_kb=$(cat /sys/block/vdb/queue/read_ahead_kb)"
}
if etm_want readahead; then
	Q=/sys/block/vdb/queue
	echo "ETM ra disk bytes=$(($(cat /sys/block/vdb/size) * 512)) io_opt=$(cat $Q/optimal_io_size) read_ahead_kb=$(cat $Q/read_ahead_kb) $(awk '/^Mem(Total|Available):/ { printf "%s=%s ", $1, $2 }' /proc/meminfo | tr -d :)"
	etm_etmmap ra-bench
	etm_ra ra text --apply
	F=/etc/earlytune.d/60-earlytune-measure-readahead-vdb.conf
	[ -e $F ] && sed 's/^/ETM ra file: /' $F
	etm_ra ra-verify text --verify
	etm_ra ra-verify json --verify
	[ -e $F ] && sed -n 's/^/ETM ra-verify file: /p' $F
	etm_etmmap ra-bench-cap
fi
echo "ETM-DONE"
echo o >/proc/sysrq-trigger
