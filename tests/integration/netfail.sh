# SPDX-License-Identifier: LGPL-2.1-or-later
# An apply that fails part-way leaves every item wholly applied or
# untouched. A NIC of 150 TX queues takes an mq root and 150 children: two
# rounds of requests (NL_BATCH_REQS is 100). strace fails the second
# round's sendto, so the kernel holds the mq root and 98 of earlytune's
# children beside 52 of its own: that interface is rolled back to the
# kernel's own root, and says so; the single-queue one beside it stays
# applied. Real rtnetlink in a network namespace of the test's own, records
# in a directory of the test's (as net.sh).
. "$(dirname "$0")/../lib/common.sh"

netns_setup et-fail
need "strace is installed (.ci/bootstrap)" command -v strace
# et [STRACE ARGS… --] ARGS…: earlytune in the namespace, our records.
et() {
	_pre=
	if [ "$1" = strace ]; then
		# LeakSanitizer cannot run under ptrace (an ASan build)
		_pre="env ASAN_OPTIONS=detect_leaks=0 strace -f -qq -o $WORK/trace $2"
		shift 2
	fi
	in_ns $_pre "$ET_BIN" "$@" --only net --profile none --wide --config "$WORK/net.conf"
}
root_of() { nsx tc qdisc show dev "$1" | awk '$4 == "root" { print $2, $3 }'; }
children() { nsx tc qdisc show dev "$1" | grep -c "qdisc $2 .* parent e7e7:"; }

# a1 first: its one request goes in the first round, before a0's.
nsx ip link add a1 numtxqueues 1 type veth peer name b1 numtxqueues 1
nsx ip link add a0 numtxqueues 150 type veth peer name b0 numtxqueues 150
for l in a0 b0 a1 b1; do nsx ip link set "$l" up; done
printf '[net]\nqdisc = pfifo\nqdisc.limit = 321\ninterfaces = a*\n' >"$WORK/net.conf"
before=$(root_of a0)
need "a0 starts with the kernel's own root" test "$before" = "noqueue 0:"

# Which sendto carries the second round: a traced apply, then its revert.
check_rc "a traced apply" 0 -- et strace "-e trace=sendto" apply
r2=$(grep 'sendto(' "$WORK/trace" | grep -n 'RTM_NEWQDISC' | sed -n 2p | cut -d: -f1)
need "the traced apply sent two rounds of RTM_NEWQDISC" test "$(grep 'sendto(' "$WORK/trace" | grep -c RTM_NEWQDISC)" = 2
check_rc "its revert" 0 -- et revert
eq "a0 back to the kernel's root" "$(root_of a0)" "noqueue 0:"

check_rc "apply whose last round fails: exit 1" 1 -- et strace "-e trace=sendto -e inject=sendto:error=ENOBUFS:when=$r2" apply
contains "a0: the failure named" "a0     qdisc"
contains "a0: the lost round's error" "RTM_NEWQDISC: No buffer space available"
contains "a0: rolled back, said" "rolled back: the kernel's own root again, now 'noqueue'"
eq "a0: the kernel's own root again" "$(root_of a0)" "noqueue 0:"
eq "a0: none of earlytune's children left" "$(children a0 pfifo)" 0
eq "a1: applied beside it" "$(root_of a1)" "pfifo e7e8:"
contains "a1: applied, said" "applied"
check_rc "verify: a0 not in force" 1 -- et verify
check_rc "apply again: a0 applied whole" 0 -- et apply
eq "a0: earlytune's mq root" "$(root_of a0)" "mq e7e7:"
eq "a0: a pfifo child on each of its 150 queues" "$(children a0 pfifo)" 150
check_rc "revert" 0 -- et revert
eq "a0 handed back at the end" "$(root_of a0)" "noqueue 0:"
eq "a1 handed back at the end" "$(root_of a1)" "noqueue 0:"
eq "no record left" "$(state_records "$state")" ""

# One interface refused among others of the same round: the kernel tells a
# failed request whatever its flags, so only a round's last request asks
# for an ACK. c2 holds htb with a child under e7e8:, the handle its new root
# takes: the kernel will not move that child to the root ("Cannot move an
# existing qdisc to a different parent"). c2 fails with its own error,
# named; the others, before and after it in the round, apply.
for i in 0 1 2 3 4; do
	nsx ip link add c$i numtxqueues 1 type veth peer name d$i numtxqueues 1
	nsx ip link set c$i up && nsx ip link set d$i up
done
nsx tc qdisc add dev c2 root handle 1: htb
nsx tc class add dev c2 parent 1: classid 1:1 htb rate 1mbit
nsx tc qdisc add dev c2 parent 1:1 handle e7e8: bfifo
printf '[net]\nqdisc = pfifo\nqdisc.limit = 321\ninterfaces = c*\nforce = yes\n' >"$WORK/net.conf"
check_rc "apply with c2 refused in the round: exit 1" 1 -- et strace "-e trace=recvmsg" apply
contains "c2: its own error, named" "c2     qdisc"
contains "c2: the kernel's reason" "RTM_NEWQDISC: Invalid argument: Cannot move an existing qdisc"
eq "c2: its htb root kept" "$(root_of c2)" "htb 1:"
for i in 0 1 3 4; do eq "c$i: applied beside it" "$(root_of c$i)" "pfifo e7e8:"; done
eq "one failed request, one round: two answers (c2's error, the round's ACK), not five" \
	"$(grep -o 'nlmsg_type=NLMSG_ERROR' "$WORK/trace" | wc -l)" 2
check_rc "revert" 0 -- et revert
for i in 0 1 3 4; do eq "c$i handed back" "$(root_of c$i)" "noqueue 0:"; done
