# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 8 defect 9: verify means "in force". A setting the configuration asks
# for that this kernel cannot give (no tcp_bbr, no scheduler, no knob) is
# unmet: exit 1 with the reason. What does not apply here (a partition, a
# bio-based queue) stays neutral.
. "$(dirname "$0")/../lib/common.sh"

# A KVM guest whose kernel has neither tcp_bbr nor sch_fq.
t=$WORK/nobbr
mk_kvm "$t"
"$ET" apply --root "$t" >/dev/null 2>&1
check_rc "no tcp_bbr: verify exits 1" 1 -- "$ET" verify --root "$t"
contains "no tcp_bbr: the module is named" "unmet: modules tcp_bbr state: not possible here: tcp_bbr: module not found"
contains "no tcp_bbr: the sysctl is named" "unmet: net sysctl net.ipv4.tcp_congestion_control: not possible here: bbr not available"
contains "no tcp_bbr: the summary counts it" "0 drifted, 4 unmet, "
check_rc "no tcp_bbr: verify --json exits 1" 1 -- "$ET" verify --json --root "$t"
json_ok "no tcp_bbr: JSON valid"
contains "no tcp_bbr: JSON marks the item unmet" '"setting":"net.ipv4.tcp_congestion_control","current":"cubic","desired":"bbr","action":"skip"'
contains "no tcp_bbr: JSON unmet flag" '"unmet":true'

# The same guest with BBR and fq built in: everything holds; dm-0 (no
# scheduler file: bio-based) and the netlink-only qdisc are not applicable.
mk_net_builtin "$t"
"$ET" apply --root "$t" >/dev/null 2>&1
check_rc "bbr built in: verify exits 0" 0 -- "$ET" verify --root "$t"
contains "bbr built in: nothing unmet" "0 drifted, 0 unmet, "
check_rc "a partition: verify exits 0" 0 -- "$ET" verify --root "$t" --device vda1
contains "a partition: not applicable" "0 drifted, 0 unmet, 1 not applicable"
check_rc "a bio-based queue: verify exits 0" 0 -- "$ET" verify --root "$t" --device dm-0
contains "a bio-based queue: not applicable" "0 unmet, "

# (A fake tree's selector file reads a bare word after a write; a bare
# "none" is what a bio-based queue prints: give vda its choices back.)
printf '[none] mq-deadline kyber\n' >"$t/sys/devices/virtual/block/vda/queue/scheduler"

# A scheduler the kernel does not have is unmet, and so is the tunable of
# the scheduler that is therefore not active.
cat >"$WORK/bfq.conf" <<'CONF'
[block]
scheduler = bfq
iosched.slice_idle = 0
CONF
check_rc "no bfq: verify exits 1" 1 -- "$ET" verify --root "$t" --profile none --config "$WORK/bfq.conf" --device vda
contains "no bfq: the scheduler is named" "unmet: block vda queue/scheduler: not possible here: none of 'bfq' is available"
contains "no bfq: its tunable is named" "unmet: block vda queue/iosched/slice_idle"
contains "no bfq: summary" "0 drifted, 2 unmet, "

# A knob this kernel lacks on a blk-mq queue is unmet; on dm-0 it is not.
rm "$t/sys/devices/virtual/block/vda/queue/wbt_lat_usec" "$t/sys/devices/virtual/block/dm-0/queue/wbt_lat_usec"
printf '[block]\nwbt_lat_usec = 4000\n' >"$WORK/wbt.conf"
check_rc "no wbt_lat_usec: verify exits 1" 1 -- "$ET" verify --root "$t" --profile none --config "$WORK/wbt.conf" --device vda --device dm-0
contains "no wbt_lat_usec: named for vda" "unmet: block vda queue/wbt_lat_usec: not possible here: kernel has no queue/wbt_lat_usec"
lacks "no wbt_lat_usec: dm-0 is not applicable" "unmet: block dm-0"
contains "no wbt_lat_usec: summary" "0 drifted, 1 unmet, 1 not applicable"

# Drift is still drift.
"$ET" apply --root "$t" >/dev/null 2>&1
echo 4096 >"$t/sys/devices/virtual/block/vda/queue/read_ahead_kb"
check_rc "changed by someone: verify exits 1" 1 -- "$ET" verify --root "$t"
contains "changed by someone: drifted" "1 drifted, 0 unmet"

# ---- issue 27, point 10: verify's words and streams ----
# Where earlytune never ran (no run log, no records), a value it would set
# is "not applied", not drift; every item line and the summary are on
# stdout, nothing on stderr, so that `verify | grep vda` finds vda's.
n=$WORK/never
mk_kvm "$n"
mk_net_builtin "$n"
"$ET" verify --root "$n" >"$WORK/v.out" 2>"$WORK/v.err"
eq "never ran: verify exits 1" $? 1
OUT=$(cat "$WORK/v.out")
contains "never ran: a difference is not applied" "not applied: block vda queue/read_ahead_kb is '8192', want '1024' [profile vps]"
lacks "never ran: not called drift" "drift:"
contains "never ran: said why, and what sets them" "verify: 6 not applied: earlytune has not run since boot (no $n/run/earlytune/runs, no records); earlytune apply sets them"
eq "never ran: the summary is the last line" "$(tail -n 1 "$WORK/v.out")" "verify: 2 hold, 0 drifted, 0 unmet, 5 not applicable, 6 not applied"
eq "never ran: nothing on stderr" "$(cat "$WORK/v.err")" ""
eq "verify | grep vda: vda's items" "$("$ET" verify --root "$n" 2>/dev/null | grep -c ' vda ')" 2
check_rc "never ran: verify --json exits 1" 1 -- "$ET" verify --json --root "$n"
contains "never ran: JSON verdict not_applied" '"verdict":"not_applied","holds":false'
contains "never ran: JSON summary counts them" '"not_applied":6,"in_force":false'
[ ! -e "$n/run/earlytune" ]
eq "verify wrote no record" $? 0
# Applied, then changed by someone: drift, on stdout.
"$ET" apply --root "$n" >/dev/null 2>&1
echo 4096 >"$n/sys/devices/virtual/block/vda/queue/read_ahead_kb"
"$ET" verify --root "$n" >"$WORK/v.out" 2>"$WORK/v.err"
eq "applied, then changed: exit 1" $? 1
OUT=$(cat "$WORK/v.out")
contains "applied, then changed: drift" "drift: block vda queue/read_ahead_kb is '4096', want '1024' [profile vps]"
lacks "applied, then changed: not 'not applied'" "not applied"
eq "applied, then changed: the summary" "$(tail -n 1 "$WORK/v.out")" "verify: 6 hold, 1 drifted, 0 unmet, 6 not applicable"
eq "applied, then changed: nothing on stderr" "$(cat "$WORK/v.err")" ""
# Reverted: not applied again, and said so.
"$ET" revert --root "$n" >/dev/null 2>&1
check_rc "reverted: verify exits 1" 1 -- "$ET" verify --root "$n"
contains "reverted: not applied" "not applied: thp thp enabled is 'always', want 'madvise'"
lacks "reverted: not drift" "drift:"
contains "reverted: said so" "earlytune's settings were reverted ($n/run/earlytune/runs); earlytune apply sets them again"
# A partial apply after the revert: what it set can drift again.
"$ET" apply --only thp --root "$n" >/dev/null 2>&1
check_rc "applied after the revert: verify exits 0" 0 -- "$ET" verify --only thp --root "$n"
contains "applied after the revert: holds" "verify: 2 hold, 0 drifted"
# --boot verify: the lines go to the kernel log, not stdout.
check_rc "--boot verify: exit 0" 0 -- "$ET" --boot verify --only thp --root "$n"
eq "--boot verify: nothing on stdout" "$("$ET" --boot verify --only thp --root "$n" 2>/dev/null)" ""

# "nothing to revert" is a sentence, not an empty table's header.
e=$WORK/empty
mk_kvm "$e"
"$ET" revert --root "$e" >"$WORK/r.out" 2>&1
eq "nothing to revert: exit 0" $? 0
eq "nothing to revert: one clear line" "$(cat "$WORK/r.out")" \
	"revert: nothing to revert: no originals recorded in $e/run/earlytune (earlytune changed nothing here since boot, or it was reverted)"
check_rc "nothing to revert for a disk: exit 0" 0 -- "$ET" revert --root "$e" --device vda
contains "nothing to revert for a disk: named" "revert: nothing to revert for vda: "
