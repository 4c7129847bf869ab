# SPDX-License-Identifier: LGPL-2.1-or-later
# The sysctl guard (issue 12, "nothing frozen at build time"): apply writes
# ROOT/run/sysctl.d/60-earlytune.conf from the configuration it read, at
# every boot, so a changed [net] qdisc is what systemd-sysctl applies next.
. "$(dirname "$0")/../lib/common.sh"

g=run/sysctl.d/60-earlytune.conf
t=$WORK/guard
mk_kvm "$t"
printf '[net]\nqdisc = fq_codel\ncongestion_control = cubic\n' >"$t/etc/earlytune.conf"
check_rc "--boot apply exits 0" 0 -- "$ET" --boot apply --only modules,thp,net --root "$t"
[ -f "$t/$g" ]; eq "--boot apply writes /$g" $? 0
eq "the guard holds the configuration's qdisc" "$(grep default_qdisc "$t/$g" 2>/dev/null)" "net.core.default_qdisc = fq_codel"
eq "the guard holds the configuration's congestion control" \
	"$(grep tcp_congestion_control "$t/$g" 2>/dev/null)" "net.ipv4.tcp_congestion_control = cubic"
check_rc "sysctl-conf prints the same guard" 0 -- "$ET" sysctl-conf --root "$t"
eq "sysctl-conf = the file apply wrote" "$OUT" "$(cat "$t/$g" 2>/dev/null)"

# The configuration changes: the next boot's guard follows it.
printf '[net]\nqdisc = pfifo_fast\ncongestion_control = reno\n' >"$t/etc/earlytune.conf"
OUT=$("$ET" plan --wide --root "$t" 2>&1)
contains "before the next boot: the stale guard is named" "/$g, earlytune's guard, sets net.core.default_qdisc = fq_codel: written from an older configuration"
check_rc "--boot apply again exits 0" 0 -- "$ET" --boot apply --only modules,thp,net --root "$t"
eq "the guard follows the changed qdisc" "$(grep default_qdisc "$t/$g" 2>/dev/null)" "net.core.default_qdisc = pfifo_fast"
eq "the guard follows the changed congestion control" \
	"$(grep tcp_congestion_control "$t/$g" 2>/dev/null)" "net.ipv4.tcp_congestion_control = reno"
OUT=$("$ET" plan --wide --root "$t" 2>&1)
lacks "after the boot: the guard is no longer called stale" "older configuration"

# A device or interface apply (udev) leaves the guard alone.
rm -f "$t/$g"
check_rc "--boot apply --ifindex exits 0" 0 -- "$ET" --boot apply --ifindex 2 --root "$t"
[ -e "$t/$g" ]; eq "an interface's apply writes no guard" $? 1

# earlytune=0: an empty guard, nothing pinned.
printf 'root=/dev/vda1 earlytune=0\n' >"$t/proc/cmdline"
check_rc "earlytune=0: --boot apply exits 0" 0 -- "$ET" --boot apply --only modules,thp,net --root "$t"
[ -f "$t/$g" ] && [ ! -s "$t/$g" ]; eq "earlytune=0: the guard is an empty file" $? 0
printf 'root=/dev/vda1\n' >"$t/proc/cmdline"

# A file of the same name elsewhere shadows the guard: named, with the fix.
mkdir -p "$t/etc/sysctl.d"
printf 'net.core.default_qdisc = fq_codel\n' >"$t/etc/sysctl.d/60-earlytune.conf"
OUT=$("$ET" plan --wide --root "$t" 2>&1)
contains "an /etc copy of the guard is named as shadowing it" "/etc/sysctl.d/60-earlytune.conf sets net.core.default_qdisc = fq_codel and shadows earlytune's guard"
rm "$t/etc/sysctl.d/60-earlytune.conf"

# The guard cannot be written (run/sysctl.d is a file): --boot goes on, exit 0.
rm -rf "$t/run/sysctl.d"
: >"$t/run/sysctl.d"
check_rc "an unwritable guard: --boot apply still exits 0" 0 -- "$ET" --boot apply --only modules,thp,net --root "$t"
contains "an unwritable guard: logged" "cannot write the sysctl guard"

# No install-time guard any more.
grep -n 'sysctl-conf' "$TESTS_DIR/../Makefile" >/dev/null
eq "make install generates no guard" $? 1
