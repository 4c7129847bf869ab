# SPDX-License-Identifier: LGPL-2.1-or-later
# Real rtnetlink, in a network namespace of the test's own with veth pairs.
# This kernel has no sch_fq: the same code path runs with pfifo. Records go
# to a directory of the test's, bind-mounted over /run/earlytune inside the
# private mount namespace `ip netns exec` makes: nothing of the host changes.
. "$(dirname "$0")/../lib/common.sh"

netns_setup et-test
# et ARGS…: earlytune in the namespace, net domain only, our records.
et() { in_ns "$ET" "$@" --only net --profile none --wide; }
qd() { nsx tc qdisc show dev "$1" | sed 's/ refcnt [0-9]*//; s/ dev [^ ]*//; s/ *$//'; }

# veth allocates a TX queue per CPU by default: a single queue is asked for.
for i in 0 2 3 4; do nsx ip link add "a$i" numtxqueues 1 type veth peer name "b$i" numtxqueues 1; done
nsx ip link add a1 numtxqueues 4 numrxqueues 4 type veth peer name b1 numtxqueues 4 numrxqueues 4
# A NIC with a thousand TX queues (the kernel's limit for veth is 4096): an
# mq root and 1,000 children, ten times a batch's budget (defect 11, issue 8).
nsx ip link add a9 numtxqueues 1000 type veth peer name b9 numtxqueues 1000
for i in 0 1 2; do nsx ip link set "a$i" up; nsx ip link set "b$i" up; done
nsx tc qdisc add dev a2 root handle 1: htb default 10
cc0=$(nsx cat /proc/sys/net/ipv4/tcp_congestion_control)
host_before=$(tc qdisc show; cat /proc/sys/net/ipv4/tcp_congestion_control /proc/sys/net/core/default_qdisc)

cat >"$WORK/net.conf" <<'CONF'
[net]
# the test's congestion control: reno is in every kernel
congestion_control = reno
# the test kernel has no sch_fq: pfifo takes the same path
qdisc = pfifo
qdisc.limit = 321
interfaces = a* ren* !a4
CONF

check_rc "plan in the namespace" 0 -- et plan --verbose --config "$WORK/net.conf"
contains "plan: a user's htb root is left alone, named" "root qdisc htb 1: was set by someone else"
contains "plan: default_qdisc is not in a namespace" "exists only in the initial network namespace"
# Every interface left alone has its line, naming the rule that excluded it.
contains "plan: an excluded interface says which glob excluded it" "a4 is excluded by '!a4' in [net] interfaces"
contains "plan: an interface no glob names says so" "[net] interfaces = a* ren* !a4 does not name b0"
grep -v '^interfaces' "$WORK/net.conf" >"$WORK/default.conf"
bridge=$(nsx ip link add br9 type bridge 2>/dev/null && echo yes)
check_rc "plan with the default selection" 0 -- et plan --verbose --config "$WORK/default.conf"
contains "default selection: the loopback is named so" "lo is the loopback interface, not a physical device"
contains "default selection: a veth is no physical device" "a0 is not a physical device (no sys/class/net/a0/device)"
if [ "$bridge" = yes ]; then
	contains "default selection: a bridge is named so" "br9 is a bridge, not a physical device (no sys/class/net/br9/device)"
	check_rc "--iface br9: its line, exit 0" 0 -- et plan --iface br9 --config "$WORK/default.conf"
	contains "--iface br9: the rule that leaves it alone" "br9 is a bridge, not a physical device"
	nsx ip link del br9
else
	skip "default selection: a bridge" "this kernel has no bridge driver"
fi
check_rc "--iface of no interface: exit 1" 1 -- et plan --iface nosuch0 --config "$WORK/default.conf"
contains "--iface of no interface: says so" "no interface named 'nosuch0'"
check_rc "apply" 0 -- et apply --config "$WORK/net.conf"
contains "apply: single-queue veth gets pfifo" "a0     qdisc"
eq "a0: root pfifo with the configured limit" "$(qd a0)" "qdisc pfifo e7e8: root limit 321p"
eq "a1: root mq" "$(qd a1 | grep -c 'qdisc mq e7e7: root')" 1
eq "a1: one pfifo child per TX queue, configured" "$(qd a1 | grep -c 'qdisc pfifo .* parent e7e7:[1-4] limit 321p')" 4
eq "a9: mq root" "$(qd a9 | grep -c 'qdisc mq e7e7: root')" 1
eq "a9: a configured pfifo child on each of 1000 TX queues" "$(qd a9 | grep -c 'qdisc pfifo .* parent e7e7:[0-9a-f]* limit 321p')" 1000
eq "a2: the user's htb root stays" "$(qd a2 | grep -c 'qdisc htb 1: root')" 1
eq "a3 (down): pfifo root" "$(qd a3)" "qdisc pfifo e7e8: root limit 321p"
eq "congestion control set in the namespace" "$(nsx cat /proc/sys/net/ipv4/tcp_congestion_control)" reno
nsx ip link set a3 up
nsx ip link set b3 up
eq "a3: the root survives ip link set up" "$(qd a3)" "qdisc pfifo e7e8: root limit 321p"

check_rc "second apply" 0 -- et apply --json --config "$WORK/net.conf"
lacks "second apply changes nothing" '"result":"applied"'
check_rc "verify holds" 0 -- et verify --config "$WORK/net.conf"
# issue 11 defect 2: the qdisc's parameters, as the kernel has them and as wanted
check_rc "plan after apply" 0 -- et plan --config "$WORK/net.conf"
contains "plan: current and desired carry the qdisc's parameters" "mq pfifo limit=321 mq pfifo limit=321 keep"

nsx tc qdisc change dev a0 root pfifo limit 5
check_rc "verify after a manual tc change" 1 -- et verify --config "$WORK/net.conf"
contains "drift names the interface" "drift: net a0 qdisc"
check_rc "apply repairs our own qdisc" 0 -- et apply --config "$WORK/net.conf"
eq "a0: limit back" "$(qd a0)" "qdisc pfifo e7e9: root limit 321p"
nsx tc qdisc replace dev a0 root handle 1: pfifo limit 7
check_rc "verify after a manual tc replace" 1 -- et verify --config "$WORK/net.conf"
check_rc "apply leaves the replacement alone" 0 -- et apply --config "$WORK/net.conf"
contains "apply says whose it is" "root qdisc pfifo 1: was set by someone else"

# udev's entry point: the index, stable across the rename after add.
nsx ip link set a4 down
nsx ip link set a4 name renamed4
idx=$(nsx cat /sys/class/net/renamed4/ifindex)
check_rc "--ifindex after a rename" 0 -- et apply --ifindex "$idx" --config "$WORK/net.conf"
contains "--ifindex tunes the renamed interface" "renamed4"
lacks "--ifindex touches nothing else" "sysctl"
eq "renamed4: pfifo root" "$(qd renamed4)" "qdisc pfifo e7e8: root limit 321p"
check_rc "unknown --ifindex: exit 1" 1 -- et apply --ifindex 99999 --config "$WORK/net.conf"
contains "unknown --ifindex: says so" "no interface with index 99999"
check_rc "--iface by name" 0 -- et plan --iface renamed4 --config "$WORK/net.conf"

# Issue 14: a udev run asks the kernel for its one interface (its link, its
# root qdisc), never for a dump of every interface: as many netlink calls
# with 400 more interfaces in the namespace. A dump took 4 recvmsg with one
# veth pair and 80 with a thousand.
if command -v strace >/dev/null; then
	nlcalls() { # OPTION VALUE: the apply's sendto, sendmsg and recvmsg calls
		in_ns env ASAN_OPTIONS=detect_leaks=0 strace -f -qq -o "$WORK/nltrace" -e trace=sendto,sendmsg,recvmsg \
			"$ET" apply --only net --profile none --config "$WORK/net.conf" "$@" >/dev/null 2>&1
		grep -cE '(sendto|sendmsg|recvmsg)\(' "$WORK/nltrace"
	}
	few=$(nlcalls --ifindex "$idx")
	few_name=$(nlcalls --iface renamed4)
	for i in $(seq 200); do echo "link add m$i numtxqueues 1 type veth peer name n$i numtxqueues 1"; done >"$WORK/links"
	nsx ip -batch "$WORK/links"
	eq "--ifindex: a handful of netlink calls" "$([ "$few" -ge 2 ] && [ "$few" -le 8 ] && echo yes)" yes
	eq "--ifindex: as many with 400 more interfaces" "$(nlcalls --ifindex "$idx")" "$few"
	eq "--iface: as many with 400 more interfaces" "$(nlcalls --iface renamed4)" "$few_name"
	eq "--ifindex: the interface still holds" "$(qd renamed4)" "qdisc pfifo e7e8: root limit 321p"
	sed 's/^link add \(m[0-9]*\) .*/link del \1/' "$WORK/links" | nsx ip -batch -
fi

# Without CAP_NET_ADMIN: the kernel says no, and earlytune says why.
if command -v setpriv >/dev/null; then
	nsx tc qdisc del dev a1 root
	OUT=$(ip netns exec "$ns" sh -c 'mount --bind "$0" /run/earlytune && exec setpriv --bounding-set=-net_admin --inh-caps=-net_admin "$@"' \
		"$state" "$ET" apply --only net --profile none --iface a1 --config "$WORK/net.conf" 2>&1)
	eq "no CAP_NET_ADMIN: exit 1" "$?" 1
	contains "no CAP_NET_ADMIN: the error says what is needed" "needs CAP_NET_ADMIN"
fi

check_rc "revert" 0 -- et revert
eq "a1: the kernel's default is back" "$(qd a1 | grep -c 'e7e7')" 0
eq "a9: the kernel's default is back" "$(qd a9 | grep -c 'e7e7')" 0
eq "a3: back to the kernel's noqueue" "$(qd a3)" "qdisc noqueue 0: root"
eq "a0: a replacement that is not ours is left alone" "$(qd a0)" "qdisc pfifo 1: root limit 7p"
eq "renamed4: back to noop (down, never up)" "$(qd renamed4)" ""
eq "congestion control restored" "$(nsx cat /proc/sys/net/ipv4/tcp_congestion_control)" "$cc0"
eq "records forgotten" "$(state_records "$state")" ""
eq "the host's qdiscs and sysctls did not change" \
	"$(tc qdisc show; cat /proc/sys/net/ipv4/tcp_congestion_control /proc/sys/net/core/default_qdisc)" "$host_before"

# A failing interface stops no other (defect 11): faults injected with strace.
if command -v strace >/dev/null; then
	nsx ip link add c0 numtxqueues 1 type veth peer name d0 numtxqueues 1
	nsx ip link add c9 numtxqueues 1000 type veth peer name d9 numtxqueues 1000
	nsx ip link add c1 numtxqueues 1 type veth peer name d1 numtxqueues 1
	sed 's/^interfaces = .*/interfaces = c*/' "$WORK/net.conf" >"$WORK/c.conf"
	# LeakSanitizer cannot stop a traced process's threads: no leak check here.
	etrace() {
		in_ns env ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 strace -f -qq -o "$WORK/trace" -e trace=sendto "$@" \
			"$ET" apply --only net --profile none --config "$WORK/c.conf"
	}
	# sendto 1 and 2 are the plan's dumps; 3 carries c0 and c9's first 99
	# requests; 4 only c9's next hundred: that round fails.
	check_rc "a failed round: exit 1" 1 -- etrace -e inject=sendto:error=ENOBUFS:when=4
	contains "the failed round fails its interface" "RTM_NEWQDISC: No buffer space available"
	eq "c9 is the one that failed" "$(printf '%s\n' "$OUT" | grep -c '^net  *c9 .*failed')" 1
	eq "c0 applied all the same" "$(qd c0)" "qdisc pfifo e7e8: root limit 321p"
	eq "c1, after it, applied too" "$(qd c1)" "qdisc pfifo e7e8: root limit 321p"
	check_rc "revert after a partial apply" 0 -- et revert
	eq "nothing of earlytune's left" "$(nsx tc qdisc show | grep -c 'e7e[789]:')" 0

	# An interface deleted between plan and apply: the apply's first round
	# waits 3 s, c1 goes meanwhile (once the plan's two dumps are done).
	: >"$WORK/trace"
	etrace -e inject=sendto:delay_enter=3s:when=3 >"$WORK/out" 2>&1 &
	pid=$!
	for _ in $(seq 50); do
		[ "$(grep -c '^[0-9]* *sendto(.*= [0-9]' "$WORK/trace")" -ge 2 ] && break
		sleep 0.1
	done
	nsx ip link del c1
	wait $pid
	RC=$?
	OUT=$(cat "$WORK/out")
	eq "an interface gone since the plan: exit 1" "$RC" 1
	contains "its item says so" "No such device"
	eq "c0 applied" "$(qd c0)" "qdisc pfifo e7e8: root limit 321p"
	eq "c9 applied, all 1000 children" "$(qd c9 | grep -c 'qdisc pfifo .* parent e7e7:[0-9a-f]* limit 321p')" 1000
	check_rc "revert with an interface gone" 0 -- et revert
	eq "c9 back to the kernel's" "$(qd c9 | grep -c e7e7)" 0
	eq "records forgotten after the fault runs" "$(state_records "$state")" ""
fi

# ---- a qdisc kind this kernel lacks: known before anything is written ----
# This machine's kernel (no module support) says in /proc/config.gz which
# kinds it has; plan of the host is read-only.
if [ -r /proc/config.gz ] && [ ! -e /proc/modules ] && zcat /proc/config.gz | grep -qx '# CONFIG_NET_SCH_FQ_CODEL is not set'; then
	printf '[net]\nqdisc = fq_codel\n' >"$WORK/fqc.conf"
	check_rc "host without fq_codel: plan exits 0" 0 -- "$ET" plan --wide --only net --config "$WORK/fqc.conf"
	contains "host without fq_codel: default_qdisc is a skip, said from the kernel's configuration" \
		"fq_codel not available: sch_fq_codel: not in this kernel (CONFIG_NET_SCH_FQ_CODEL is not set in /proc/config.gz)"
	lacks "host without fq_codel: nothing planned as a change" " change "
else
	skip "host without fq_codel: plan says skip" "this kernel has module support or fq_codel, or no /proc/config.gz"
fi
