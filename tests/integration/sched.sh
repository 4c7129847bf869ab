# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 13, [sched]: the scheduler's knobs on fake trees of three kernels:
# 5.10 (sysctl kernel.sched_*), 6.1 (CFS in debugfs sched/), 6.12 (EEVDF:
# base_slice_ns). apply/verify/revert round trips, the skips and their
# nearest knob, a profile's knobs for the other scheduler (neutral) against
# the user's own (unmet), --kernel picking the mapping, debugfs locked down
# (EPERM injected into the write), --json, and the udev rule for CPU online.
. "$(dirname "$0")/../lib/common.sh"

dbg=sys/kernel/debug/sched

# ---- 5.10: sysctls -----------------------------------------------------------------
t=$WORK/s510
mk_sched510 "$t"
check_rc "5.10: plan exits 0" 0 -- "$ET" plan --wide --only sched --root "$t"
contains "5.10: latency_ns is the sysctl kernel.sched_latency_ns" "sched  sysctl kernel.sched_latency_ns            12000000 4000000 change"
contains "5.10: base_slice_ns is a skip naming the nearest knob" "base_slice_ns is EEVDF's (6.6+); on this CFS kernel the nearest knob is min_granularity_ns"
contains "5.10: each value prints its reason" "CFS: the period in which each runnable task runs once"
contains "5.10: the hotplug note" "the kernel recomputes it when a CPU comes online"
before=$(snapshot "$t")
check_rc "5.10: apply exits 0" 0 -- "$ET" apply --only sched --root "$t"
eq "5.10: latency_ns written to the sysctl" "$(cat "$t/proc/sys/kernel/sched_latency_ns")" 4000000
eq "5.10: min_granularity_ns written" "$(cat "$t/proc/sys/kernel/sched_min_granularity_ns")" 500000
eq "5.10: wakeup_granularity_ns written" "$(cat "$t/proc/sys/kernel/sched_wakeup_granularity_ns")" 500000
eq "5.10: nr_migrate untouched (the profile does not set it)" "$(cat "$t/proc/sys/kernel/sched_nr_migrate")" 32
eq "5.10: three originals recorded" "$(records "$t" | grep -c '^sched	sysctl	kernel.sched_')" 3
check_rc "5.10: verify holds (the EEVDF knob is not applicable)" 0 -- "$ET" verify --only sched --root "$t"
contains "5.10: verify counts" "verify: 3 hold, 0 drifted, 0 unmet, 1 not applicable"
echo 6000000 >"$t/proc/sys/kernel/sched_latency_ns"
check_rc "5.10: verify finds the drift" 1 -- "$ET" verify --only sched --root "$t"
contains "5.10: the drift names the sysctl" "drift: sched sysctl kernel.sched_latency_ns is '6000000', want '4000000'"
check_rc "5.10: revert exits 0" 0 -- "$ET" revert --only sched --root "$t"
eq "5.10: revert restores every original" "$(snapshot "$t")" "$before"
eq "5.10: revert forgets the records" "$(records "$t" | grep -c '^sched' || true)" 0

# Other writers of the sysctls: sysctl.d files are named as for net's, and
# earlytune's guard pins the [sched] sysctls ("-": ignored where 5.13+ has none).
t=$WORK/s510w
mk_sched510 "$t"
mkdir -p "$t/etc/sysctl.d"
printf 'kernel.sched_latency_ns = 18000000\n' >"$t/etc/sysctl.d/10-sched.conf"
printf 'kernel.sched_min_granularity_ns = 2000000\n' >"$t/etc/sysctl.d/99-sched.conf"
check_rc "sysctl.d: plan exits 0" 0 -- "$ET" plan --wide --only sched --root "$t"
contains "sysctl.d: a file before the guard is named, the guard resets it" "also written by /etc/sysctl.d/10-sched.conf:1 kernel.sched_latency_ns = 18000000 (sysctl.d, it sorts before earlytune's guard 60-earlytune.conf, which resets it: earlytune's value stays)"
contains "sysctl.d: a file after the guard wins" "/etc/sysctl.d/99-sched.conf sets kernel.sched_min_granularity_ns = 2000000 and wins: it sorts after earlytune's guard 60-earlytune.conf"
check_rc "sysctl.d: --boot apply (all domains) exits 0" 0 -- "$ET" --boot apply --root "$t"
eq "sysctl.d: the guard pins the [sched] sysctls" "$(grep sched "$t/run/sysctl.d/60-earlytune.conf")" \
	"-kernel.sched_latency_ns = 4000000
-kernel.sched_min_granularity_ns = 500000
-kernel.sched_wakeup_granularity_ns = 500000"
check_rc "sysctl.d: verify: the file after the guard is drift" 1 -- "$ET" verify --only sched --root "$t"
contains "sysctl.d: verify names it" "drift: sched sysctl kernel.sched_min_granularity_ns is '500000' now, but will not stay"
lacks "sysctl.d: the one before the guard is not drift" "drift: sched sysctl kernel.sched_latency_ns"
OUT=$("$ET" sysctl-conf --json --root "$t" 2>&1)
contains "sysctl-conf --json lists the [sched] sysctls" '{"key":"kernel.sched_latency_ns","value":"4000000","source":"profile latency"}'

# TuneD's scheduler plugin writes the same knobs after earlytune: named.
t=$WORK/s61tuned
mk_sched61 "$t"
mk_tuned_tp "$t"
printf '\n[scheduler]\nsched_min_granularity_ns = 10000000\n' >>"$t/usr/lib/tuned/throughput-performance/tuned.conf"
tuned_enable "$t" throughput-performance
check_rc "TuneD: plan exits 0" 0 -- "$ET" plan --wide --only sched --root "$t"
contains "TuneD: its [scheduler] knob is named, and wins" "also written by /usr/lib/tuned/throughput-performance/tuned.conf:29 [scheduler] sched_min_granularity_ns=10000000 (TuneD, tuned.service runs after earlytune: wins)"

# ---- 6.1: CFS in debugfs ---------------------------------------------------------------
t=$WORK/s61
mk_sched61 "$t"
before=$(snapshot "$t")
check_rc "6.1: apply exits 0" 0 -- "$ET" apply --wide --only sched --root "$t"
contains "6.1: latency_ns is the debugfs file" "sched  debugfs sched/latency_ns"
eq "6.1: latency_ns written to debugfs" "$(cat "$t/$dbg/latency_ns")" 4000000
eq "6.1: min_granularity_ns written" "$(cat "$t/$dbg/min_granularity_ns")" 500000
eq "6.1: wakeup_granularity_ns written" "$(cat "$t/$dbg/wakeup_granularity_ns")" 500000
[ ! -e "$t/$dbg/base_slice_ns" ]; eq "6.1: no base_slice_ns made up" $? 0
eq "6.1: originals recorded with their debugfs paths" \
	"$(records "$t" | grep '^sched' | cut -f4 | tr '\n' ' ')" \
	"$dbg/latency_ns $dbg/min_granularity_ns $dbg/wakeup_granularity_ns "
check_rc "6.1: verify holds" 0 -- "$ET" verify --only sched --root "$t"
echo 24000000 >"$t/$dbg/latency_ns" # what CPU hotplug does: the kernel's own value again
check_rc "6.1: verify finds the recomputed value" 1 -- "$ET" verify --only sched --root "$t"
contains "6.1: the drift names the debugfs file" "drift: sched debugfs sched/latency_ns is '24000000', want '4000000'"
check_rc "6.1: --boot apply --only sched (the udev rule's) exits 0" 0 -- "$ET" --boot apply --only sched --root "$t"
eq "6.1: the udev rule's run writes it again" "$(cat "$t/$dbg/latency_ns")" 4000000
check_rc "6.1: revert exits 0" 0 -- "$ET" revert --wide --only sched --root "$t"
contains "6.1: revert restores through debugfs" "sched  debugfs sched/latency_ns"
eq "6.1: revert restores every original (the first ones, not the recomputed one)" "$(snapshot "$t")" "$before"

# The user's own EEVDF key on a CFS kernel: unmet, with the nearest knob.
t=$WORK/s61user
mk_sched61 "$t"
printf '[main]\nprofile = none\n[sched]\nbase_slice_ns = 1000000\nmigration_cost_ns = 250000\n' >"$t/etc/earlytune.conf"
check_rc "6.1: verify of a user's base_slice_ns fails" 1 -- "$ET" verify --only sched --root "$t"
contains "6.1: it is unmet, naming the nearest knob" "unmet: sched sched base_slice_ns: not possible here: base_slice_ns is EEVDF's (6.6+); on this CFS kernel the nearest knob is min_granularity_ns"
contains "6.1: the other key is not applied yet (earlytune has not run)" "not applied: sched debugfs sched/migration_cost_ns is '500000', want '250000'"

# debugfs locked down: the write fails with EPERM.
t=$WORK/s61lock
mk_sched61 "$t"
if strace -o /dev/null true 2>/dev/null; then
	OUT=$(strace -f -o /dev/null -P "$t/$dbg/latency_ns" -e trace=write -e inject=write:error=EPERM \
		"$ET_BIN" apply --wide --only sched --root "$t" 2>&1)
	eq "lockdown: apply exits 1" $? 1
	contains "lockdown: EPERM is said as lockdown" "failed  error: debugfs is locked down (Secure Boot?): writing '4000000' to /$dbg/latency_ns"
	eq "lockdown: the other knobs are written" "$(cat "$t/$dbg/min_granularity_ns")" 500000
	OUT=$(strace -f -o /dev/null -P "$t/$dbg/min_granularity_ns" -e trace=write -e inject=write:error=EPERM \
		"$ET_BIN" revert --wide --only sched --root "$t" 2>&1)
	eq "lockdown: revert exits 1" $? 1
	contains "lockdown: revert says it too" "debugfs is locked down (Secure Boot?): writing '1500000' to /$dbg/min_granularity_ns"
	eq "lockdown: the record of what could not go back is kept" "$(records "$t" | grep -c "$dbg/min_granularity_ns")" 1
else
	echo "# lockdown cases skipped: no strace"
fi

# ---- 6.12: EEVDF -----------------------------------------------------------------
t=$WORK/s612
mk_sched612 "$t"
before=$(snapshot "$t")
check_rc "6.12: plan exits 0" 0 -- "$ET" plan --wide --only sched --root "$t"
contains "6.12: latency_ns is a skip naming base_slice_ns" "EEVDF (6.6+) removed latency_ns (it has no scheduling period); the nearest knob is base_slice_ns"
contains "6.12: min_granularity_ns too" "EEVDF (6.6+) removed min_granularity_ns; the nearest knob is base_slice_ns"
contains "6.12: wakeup_granularity_ns too" "EEVDF (6.6+) removed wakeup_granularity_ns"
contains "6.12: base_slice_ns is the debugfs file" "sched  debugfs sched/base_slice_ns   1500000 500000  change"
check_rc "6.12: apply exits 0" 0 -- "$ET" apply --only sched --root "$t"
eq "6.12: base_slice_ns written" "$(cat "$t/$dbg/base_slice_ns")" 500000
[ ! -e "$t/$dbg/latency_ns" ]; eq "6.12: latency_ns not made up" $? 0
check_rc "6.12: verify holds (the CFS knobs are the profile's, for the other scheduler)" 0 -- "$ET" verify --only sched --root "$t"
contains "6.12: verify counts" "verify: 1 hold, 0 drifted, 0 unmet, 3 not applicable"
OUT=$("$ET" plan --json --only sched --root "$t" 2>&1)
json_ok "6.12: plan --json is one valid JSON object"
eq "6.12: JSON items: the skips with their reasons, the knob kept" "$(printf '%s' "$OUT" | python3 -c 'import json, sys
for it in json.load(sys.stdin)["items"]:
    print(it["domain"], it["target"], it["setting"], it["action"], it["unmet"], it["reason"].split(";")[0])')" \
	"sched sched latency_ns skip False EEVDF (6.6+) removed latency_ns (it has no scheduling period)
sched sched min_granularity_ns skip False EEVDF (6.6+) removed min_granularity_ns
sched sched wakeup_granularity_ns skip False EEVDF (6.6+) removed wakeup_granularity_ns (a woken task preempts by its virtual deadline)
sched debugfs sched/base_slice_ns keep False EEVDF: the slice a task asks for"
printf '[sched]\nchild_runs_first = 1\nlatency_ns = 4000000\n' >"$t/etc/earlytune.d.conf"
mkdir -p "$t/etc/earlytune.d" && mv "$t/etc/earlytune.d.conf" "$t/etc/earlytune.d/50-user.conf"
check_rc "6.12: the user's own CFS keys: verify fails" 1 -- "$ET" verify --only sched --root "$t"
contains "6.12: child_runs_first is gone, no knob has its meaning" "unmet: sched sched child_runs_first: not possible here: sched_child_runs_first is gone since 6.12 (a no-op from EEVDF, 6.6); no knob has its meaning"
contains "6.12: the user's latency_ns is unmet" "unmet: sched sched latency_ns: not possible here: EEVDF (6.6+) removed latency_ns"
rm -r "$t/etc/earlytune.d"
check_rc "6.12: revert exits 0" 0 -- "$ET" revert --only sched --root "$t"
eq "6.12: revert restores base_slice_ns" "$(snapshot "$t")" "$before"

# --kernel names the target: the 6.1 tree planned for 5.10 maps to the sysctls.
t=$WORK/s61
check_rc "--kernel 5.10: plan exits 0" 0 -- "$ET" plan --wide --only sched --kernel 5.10.0-30-amd64 --root "$t"
contains "--kernel 5.10: the sysctl, not debugfs" "sched  sysctl kernel.sched_latency_ns            -       4000000 skip"
contains "--kernel 5.10: not the running kernel: applied when it boots" "the target kernel 5.10.0-30-amd64 is not the one running here: kernel.sched_latency_ns is applied when it boots"
check_rc "--kernel 6.12: plan exits 0" 0 -- "$ET" plan --wide --only sched --kernel 6.12.1 --root "$t"
contains "--kernel 6.12: base_slice_ns" "sched/base_slice_ns"

# A tree without debugfs: unknown, never mounted on.
t=$WORK/nodebugfs
mk_sched "$t" 6.1.0-28-cloud-amd64 throughput
rm -r "$t/sys/kernel/debug"
check_rc "no debugfs in the tree: plan exits 0" 0 -- "$ET" plan --wide --only sched --root "$t"
contains "no debugfs in the tree: said as unknown" "no /sys/kernel/debug in this tree: whether the kernel has sched/latency_ns is unknown"
[ ! -e "$t/sys/kernel/debug" ]; eq "no debugfs in the tree: nothing made, nothing mounted" $? 0
eq "nothing mounted under the tree" "$(grep -c " $t/" /proc/self/mountinfo)" 0

check_rc "throughput: plan exits 0" 0 -- "$ET" plan --wide --only sched --profile throughput --root "$WORK/s61"
contains "throughput: migration_cost_ns with its reason" "sched/migration_cost_ns     500000   5000000  change a task that ran in the last 5 ms counts as cache-hot"
contains "throughput: longer CFS period" "sched/latency_ns            12000000 24000000 change"

# The udev rule re-applies [sched] on CPU online.
rules=$TESTS_DIR/../udev/70-earlytune.rules
eq "udev: a rule for CPU online runs --only sched" \
	"$(grep -c '^SUBSYSTEM=="cpu", ACTION=="online", RUN+="/usr/sbin/earlytune --boot apply --only sched"$' "$rules")" 1
eq "udev: after the earlytune=0 check" \
	"$(awk '/ENV[{]earlytune[}]=="0"/ { z = NR } /SUBSYSTEM=="cpu"/ { c = NR } END { print (z && c > z) ? "yes" : "no" }' "$rules")" yes
for f in dracut-module/50earlytune/earlytune-pre-udev.sh initramfs-tools/scripts/init-top/earlytune hook/earlytune.service; do
	eq "$f applies sched at boot" "$(grep -c -- '--only [a-z,]*sched' "$TESTS_DIR/../$f")" 1
done

# "/" is the running system's (a chroot: the static binary alone in a tree):
# earlytune mounts debugfs for the knobs only when nothing is mounted there,
# and unmounts only what it mounted. A private mount namespace; plan only
# reads. The kernel's answer is its own: a value, or EPERM where debugfs is
# locked down (said as such).
if [ -z "${SAN:-}" ] && [ "$(id -u)" = 0 ] && command -v unshare >/dev/null &&
	unshare -m sh -c "mount -t debugfs none '$WORK' && umount '$WORK'" 2>/dev/null; then
	t=$WORK/chroot
	mk_sched612 "$t"
	rm -r "$t/sys/kernel/debug" && mkdir -p "$t/sys/kernel/debug" "$t/usr/sbin"
	cp "$ET_BIN" "$t/usr/sbin/earlytune"
	printf '[main]\nprofile = none\n[sched]\nnr_migrate = 32\n' >"$t/etc/earlytune.conf"
	mnt=" $t/sys/kernel/debug "
	# plan reads only: nothing mounted, the value unknown (issue 27, point 12)
	OUT=$(unshare -m sh -c "chroot '$t' /usr/sbin/earlytune plan --wide --verbose --only sched 2>&1
		echo mounts=\$(grep -c '$mnt' /proc/self/mountinfo)")
	lacks "host root, debugfs not mounted: plan mounts nothing" "mounted debugfs"
	contains "host root, debugfs not mounted: plan says unknown" \
		"debugfs is not mounted on /sys/kernel/debug and plan mounts nothing: the value of sched/nr_migrate is unknown"
	contains "host root: plan leaves nothing mounted" "mounts=0"
	OUT=$(unshare -m sh -c "chroot '$t' /usr/sbin/earlytune verify --wide --verbose --only sched 2>&1
		echo mounts=\$(grep -c '$mnt' /proc/self/mountinfo)")
	contains "host root, debugfs not mounted: verify mounts it" "mounted debugfs on /sys/kernel/debug for the scheduler's knobs"
	contains "host root: unmounted after" "mounts=0"
	case $OUT in
	*"hold"*"nr_migrate"* | *"drift"*"sched/nr_migrate"*) pass "host root: the kernel's value read through debugfs" ;;
	*"debugfs is locked down (Secure Boot?): cannot read /sys/kernel/debug/sched/nr_migrate"*)
		pass "host root: EPERM said as lockdown" ;;
	*) fail "host root: a value or lockdown" "$OUT" ;;
	esac
	OUT=$(unshare -m sh -c "mount -t debugfs none '$t/sys/kernel/debug' &&
		chroot '$t' /usr/sbin/earlytune plan --wide --verbose --only sched 2>&1
		echo mounts=\$(grep -c '$mnt' /proc/self/mountinfo)")
	lacks "host root, debugfs mounted already: not mounted again" "mounted debugfs"
	contains "host root: the mount earlytune did not make stays" "mounts=1"
elif [ -z "${SAN:-}" ]; then
	skip "host-root debugfs checks" "need root and a kernel with debugfs"
fi
