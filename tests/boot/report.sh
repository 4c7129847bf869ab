# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the boot tests inside the guest: prints what the host asserts on
# the serial console, one "ETTEST key=value" line each.
et_report() {
	echo "ETTEST stage=$1 kernel=$(cat /proc/sys/kernel/osrelease)"
	echo "ETTEST cmdline=$(cat /proc/cmdline)"
	echo "ETTEST cc=$(cat /proc/sys/net/ipv4/tcp_congestion_control)"
	echo "ETTEST default_qdisc=$(cat /proc/sys/net/core/default_qdisc)"
	for m in tcp_bbr sch_fq; do
		[ -e "/sys/module/$m" ] && echo "ETTEST module=$m"
	done
	for n in /sys/class/net/*; do
		n=${n##*/}
		[ "$n" = lo ] && continue
		q=$(tc qdisc show dev "$n" | sed 's/ refcnt [0-9]*//' | tr '\n' ';')
		echo "ETTEST nic=$n txq=$(ls -d /sys/class/net/$n/queues/tx-* | wc -l) up=$(cat /sys/class/net/$n/operstate) qdisc=$q"
	done
	for b in /sys/block/vd* /sys/block/sd*; do
		[ -e "$b" ] || continue
		b=${b##*/}
		echo "ETTEST disk=$b sched=$(cat /sys/block/$b/queue/scheduler) ra=$(cat /sys/block/$b/queue/read_ahead_kb)"
	done
	echo "ETTEST thp_enabled=$(cat /sys/kernel/mm/transparent_hugepage/enabled)"
	echo "ETTEST thp_defrag=$(cat /sys/kernel/mm/transparent_hugepage/defrag)"
	dmesg | grep 'earlytune:' | sed 's/^/ETTEST kmsg /'
	echo "ETTEST-DONE-$1"
}
