# SPDX-License-Identifier: LGPL-2.1-or-later
# Records of two network namespaces in one /run/earlytune (qdiscs, and
# [sysfs] attributes of interfaces): interface indexes repeat across
# namespaces, so a record names its namespace too (the inode of
# /proc/self/ns/net), and a run in one namespace neither reverts, forgets
# nor drops as stale a record of the other. Two real
# namespaces with veth pairs of equal ifindex; both bind-mount the same
# records directory of the test's over /run/earlytune inside the private
# mount namespace `ip netns exec` makes: nothing of the host changes.
. "$(dirname "$0")/../lib/common.sh"

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
	skip "network namespaces" "need root, ip and tc"
	exit 0
fi
A=et-nsa-$$ B=et-nsb-$$
state=$WORK/state
mkdir -p "$state" /run/earlytune
ip netns add "$A" && ip netns add "$B" || { fail "create two network namespaces"; exit 0; }
at_exit 'ip netns del "$A" 2>/dev/null; ip netns del "$B" 2>/dev/null'
# et NS ARGS…: earlytune in namespace NS, net domain only, the shared records.
et() {
	_ns=$1
	shift
	ip netns exec "$_ns" sh -c 'mount --bind "$0" /run/earlytune && exec "$@"' "$state" "$ET" "$@" \
		--only net --profile none --wide --config "$WORK/net.conf"
}
qd() { ip -n "$1" -o link show "$2" >/dev/null && ip netns exec "$1" tc qdisc show dev "$2" | awk '$4 == "root" { print $2, $3 }'; }
idx() { ip netns exec "$1" cat "/sys/class/net/$2/ifindex"; }
nsino() { ip netns exec "$1" readlink /proc/self/ns/net | tr -dc 0-9; }
# recs PATTERN: the records whose path matches PATTERN (awk), one line each
recs() { state_records "$state" | awk -F'\t' -v re="$1" '$4 ~ re { print $2, $4 }'; }

# The same interfaces, created in the same order: the same indexes. A has
# one pair more, at indexes B does not have.
for ns in "$A" "$B"; do
	for i in 0 1; do ip -n "$ns" link add "a$i" numtxqueues 1 type veth peer name "b$i" numtxqueues 1; done
done
ip -n "$A" link add c0 numtxqueues 1 type veth peer name d0 numtxqueues 1
# Up, so that the kernel's own root is noqueue (a down veth's is noop, shown as nothing).
for ns in "$A" "$B"; do
	for l in $(ip -n "$ns" -o link show | awk -F': ' '{ sub("@.*", "", $2); print $2 }'); do ip -n "$ns" link set "$l" up; done
done
printf '[net]\nqdisc = pfifo\ninterfaces = a* c*\n' >"$WORK/net.conf"
need "a0 has the same ifindex in both namespaces" test "$(idx "$A" a0)" = "$(idx "$B" a0)"
ia=$(nsino "$A") ib=$(nsino "$B") i0=$(idx "$A" a0) i1=$(idx "$A" a1) ic=$(idx "$A" c0)
need "c0's index is none of B's" sh -c "! ip netns exec '$B' sh -c 'grep -qx $ic /sys/class/net/*/ifindex'"

check_rc "apply in A" 0 -- et "$A" apply
check_rc "apply in B" 0 -- et "$B" apply
contains "apply in B: a0 changed there" "a0     qdisc"
eq "B: a0 has earlytune's pfifo" "$(qd "$B" a0)" "pfifo e7e8:"
eq "a0 has a record in each namespace, each naming its namespace" "$(recs "/ifindex/$i0\$" | sort)" \
	"$(printf 'a0 netlink/netns/%s/ifindex/%s\na0 netlink/netns/%s/ifindex/%s' "$ia" "$i0" "$ib" "$i0" | sort)"
eq "every qdisc record names a namespace" "$(recs '^netlink/ifindex/')" ""

check_rc "B: revert --iface a0" 0 -- et "$B" revert --iface a0
eq "B: a0 handed back to the kernel" "$(qd "$B" a0)" "noqueue 0:"
eq "A: a0 keeps its pfifo" "$(qd "$A" a0)" "pfifo e7e8:"
eq "A: a0's record kept" "$(recs "^netlink/netns/$ia/ifindex/$i0\$")" "a0 netlink/netns/$ia/ifindex/$i0"
ip -n "$B" link del a1
check_rc "B: forget --ifindex $i1 (udev's remove of a1)" 0 -- et "$B" forget --ifindex "$i1"
eq "A: a1's record kept" "$(recs "^netlink/netns/$ia/ifindex/$i1\$")" "a1 netlink/netns/$ia/ifindex/$i1"
eq "B: a1's record forgotten" "$(recs "^netlink/netns/$ib/")" ""
check_rc "B: apply again" 0 -- et "$B" apply
check_rc "B: revert everything" 0 -- et "$B" revert
lacks "B: revert names none of A's interfaces" "c0"
lacks "B: revert drops no record as stale" "record dropped"
eq "B: a0 handed back" "$(qd "$B" a0)" "noqueue 0:"
eq "B: no record left" "$(recs "^netlink/netns/$ib/")" ""
eq "A: c0's record (an index B lacks) is not stale from B" "$(recs "^netlink/netns/$ia/ifindex/$ic\$")" \
	"c0 netlink/netns/$ia/ifindex/$ic"
eq "A: all three records kept" "$(recs "^netlink/netns/$ia/" | wc -l)" 3
eq "A: every qdisc still earlytune's" "$(qd "$A" a0; qd "$A" a1; qd "$A" c0)" \
	"$(printf 'pfifo e7e8:\npfifo e7e8:\npfifo e7e8:')"
check_rc "A: revert everything" 0 -- et "$A" revert
eq "A: every root handed back" "$(qd "$A" a0; qd "$A" a1; qd "$A" c0)" \
	"$(printf 'noqueue 0:\nnoqueue 0:\nnoqueue 0:')"
eq "no record left" "$(state_records "$state")" ""

# A record of an earlier version names no namespace: it is the namespace's
# that reads it, and its interface keeps it (no second record).
check_rc "A: apply" 0 -- et "$A" apply
# As an earlier version left them: each interface's in its file (links/N),
# which overrides its lines of the one file.
mkdir -p "$state/links"
state_records "$state" | grep "	netlink/netns/$ia/ifindex/" | sed "s|netlink/netns/$ia/ifindex/|netlink/ifindex/|" |
	awk -F'\t' -v d="$state/links" '{ n = $4; sub(/.*\//, "", n); print > (d "/" n) }'
eq "the records now in the earlier form" "$(recs '^netlink/ifindex/' | wc -l)" 3
printf '[net]\nqdisc = pfifo\nqdisc.limit = 77\ninterfaces = a* c*\n' >"$WORK/net.conf"
check_rc "A: apply a changed configuration over the earlier records" 0 -- et "$A" apply
eq "A: a0 changed" "$(ip netns exec "$A" tc qdisc show dev a0 | grep -c 'limit 77p')" 1
eq "A: no second record of a0" "$(recs "/ifindex/$i0\$")" "a0 netlink/ifindex/$i0"
check_rc "A: revert --iface a0 takes the earlier record" 0 -- et "$A" revert --iface a0
eq "A: a0 handed back" "$(qd "$A" a0)" "noqueue 0:"
eq "A: a0's record gone, the others kept" "$(recs '^netlink/' | wc -l)" 2
check_rc "A: revert" 0 -- et "$A" revert
eq "A: a1 and c0 handed back" "$(qd "$A" a1; qd "$A" c0)" "$(printf 'noqueue 0:\nnoqueue 0:')"
eq "no record left at the end" "$(state_records "$state")" ""

# ---- [sysfs]: an interface's attribute is recorded by namespace and index too
# (sysfs/netns/INODE/ifindex/N/ATTR): a0 has the same name and index in both.
ets() {
	_ns=$1
	shift
	ip netns exec "$_ns" sh -c 'mount --bind "$0" /run/earlytune && exec "$@"' "$state" "$ET" "$@" \
		--only sysfs --profile none --wide --config "$WORK/sysfs.conf"
}
gft() { ip netns exec "$1" cat "/sys/class/net/$2/gro_flush_timeout"; }
printf '[sysfs "gft"]\npath = /sys/class/net/a*/gro_flush_timeout\nvalue = 20000\n' >"$WORK/sysfs.conf"
key() { echo "sysfs/netns/$1/ifindex/$2/gro_flush_timeout"; }
need "a0's gro_flush_timeout starts at 0 in both" test "$(gft "$A" a0) $(gft "$B" a0)" = "0 0"
check_rc "sysfs: apply in A" 0 -- ets "$A" apply
check_rc "sysfs: apply in B" 0 -- ets "$B" apply
contains "sysfs: apply in B changed a0 there (A's record is not B's)" "class/net/a0/gro_flush_timeout 0       20000   change applied"
eq "sysfs: a0 written in both" "$(gft "$A" a0) $(gft "$B" a0)" "20000 20000"
eq "sysfs: a0 has a record in each namespace, each naming its namespace" "$(recs "/ifindex/$i0/" | sort)" \
	"$(printf 'gft %s\ngft %s' "$(key "$ia" "$i0")" "$(key "$ib" "$i0")" | sort)"
eq "sysfs: every interface's record names a namespace" "$(recs '^sys/class/net/')" ""
check_rc "sysfs: B: revert" 0 -- ets "$B" revert
eq "sysfs: B: a0's original back" "$(gft "$B" a0)" 0
eq "sysfs: A: a0 keeps earlytune's value" "$(gft "$A" a0)" 20000
eq "sysfs: A: its records kept, B's gone" "$(recs '^sysfs/' | sort)" \
	"$(printf 'gft %s\ngft %s' "$(key "$ia" "$i0")" "$(key "$ia" "$i1")" | sort)"
check_rc "sysfs: B: apply again" 0 -- ets "$B" apply
check_rc "sysfs: B: forget --ifindex $i0 (udev's remove of a0)" 0 -- ets "$B" forget --ifindex "$i0"
eq "sysfs: A: a0's record kept" "$(recs "/ifindex/$i0/")" "gft $(key "$ia" "$i0")"
# A rename: the record is the index's, and revert finds the file by it.
ip -n "$A" link set a0 down && ip -n "$A" link set a0 name r0 && ip -n "$A" link set r0 up
check_rc "sysfs: A: revert --ifindex $i0 after a0 became r0" 0 -- ets "$A" revert --ifindex "$i0"
eq "sysfs: A: r0's original back" "$(gft "$A" r0)" 0
ip -n "$A" link set r0 down && ip -n "$A" link set r0 name a0 && ip -n "$A" link set a0 up
check_rc "sysfs: A: revert" 0 -- ets "$A" revert
check_rc "sysfs: B: revert" 0 -- ets "$B" revert
eq "sysfs: no record left" "$(state_records "$state")" ""

# A record of an earlier version is under the file's path: the namespace's
# that reads it, and its interface keeps it (no second original).
check_rc "sysfs: A: apply" 0 -- ets "$A" apply
old=$(state_records "$state" | grep "	$(key "$ia" "$i0")	" | sed "s|	$(key "$ia" "$i0")	|	sys/class/net/a0/gro_flush_timeout	|")
printf '%s\n' "$old" >"$state/links/$i0" # overrides a0's lines of the one file
eq "sysfs: a0's record now in the earlier form" "$(recs "a0/gro_flush_timeout\$")" "gft sys/class/net/a0/gro_flush_timeout"
printf '[sysfs "gft"]\npath = /sys/class/net/a*/gro_flush_timeout\nvalue = 30000\n' >"$WORK/sysfs.conf"
check_rc "sysfs: A: apply a changed configuration over it" 0 -- ets "$A" apply
eq "sysfs: A: a0 changed" "$(gft "$A" a0)" 30000
eq "sysfs: A: no second record of a0" "$(recs "(a0/|/$i0/)")" "gft sys/class/net/a0/gro_flush_timeout"
check_rc "sysfs: A: revert takes the earlier record" 0 -- ets "$A" revert
eq "sysfs: A: a0 and a1 handed back" "$(gft "$A" a0) $(gft "$A" a1)" "0 0"
eq "sysfs: no record left at the end" "$(state_records "$state")" ""
