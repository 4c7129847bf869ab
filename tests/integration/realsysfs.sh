# SPDX-License-Identifier: LGPL-2.1-or-later
# The real kernel: this machine's loop devices, through a root whose sys/ is
# the real /sys (bind-mounted in a private mount namespace) and whose run/ is
# ours. Every value is restored; nothing but loop devices is touched.
. "$(dirname "$0")/../lib/common.sh"

if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null || [ ! -w /sys/block/loop0/queue/read_ahead_kb ]; then
	skip "this machine's loop devices" "needs root and a writable /sys/block/loop0"
	exit 0
fi
for d in loop0 loop1; do [ -e /sys/block/$d ] || { skip "this machine's loop devices" "no $d"; exit 0; }; done
host_lock

real_snapshot() {
	for d in loop0 loop1; do
		for a in scheduler read_ahead_kb nr_requests rq_affinity add_random wbt_lat_usec; do
			f=/sys/block/$d/queue/$a
			[ -e "$f" ] && printf '%s/%s=%s\n' "$d" "$a" "$(active "$f")"
		done
	done
}
other_snapshot() { # everything that must never change
	for f in /sys/block/*/queue/scheduler /sys/block/*/queue/read_ahead_kb /sys/kernel/mm/transparent_hugepage/enabled; do
		case $f in /sys/block/loop*) continue ;; esac
		printf '%s=%s\n' "$f" "$(cat "$f")"
	done
}

t=$WORK/root
mkdir -p "$t/sys" "$t/proc" "$t/run" "$t/dev"
cat >"$WORK/loop.conf" <<'CONF'
[block "loops"]
match.class = loop
match.name = loop0 loop1
# the test switches away from the loop default and back
scheduler = mq-deadline
nr_requests = 64
# 200 ms is a whole number of jiffies at HZ 100, 250, 300 and 1000
iosched.read_expire = 200
rq_affinity = 2
read_ahead_kb = 512
CONF
before=$(real_snapshot)
others=$(other_snapshot)

inroot() { unshare -m sh -c "mount --bind /sys '$t/sys' && mount --bind /proc '$t/proc' && $*"; }

OUT=$(inroot "'$ET' plan --profile none --config '$WORK/loop.conf' --root '$t' --device loop0 --device loop1" 2>&1)
contains "real: plan classifies loop0 as loop" "loop disk"
OUT=$(inroot "'$ET' apply --profile none --config '$WORK/loop.conf' --root '$t' --device loop0 --device loop1" 2>&1)
RC=$?
eq "real: apply on loop0 loop1 exits 0" "$RC" 0
[ "$RC" = 0 ] || printf '%s\n' "$OUT"
eq "real: loop0 scheduler is mq-deadline" "$(active /sys/block/loop0/queue/scheduler)" mq-deadline
eq "real: iosched tunable of the new scheduler set after the switch" "$(cat /sys/block/loop0/queue/iosched/read_expire)" 200
eq "real: nr_requests set after the switch reset it" "$(cat /sys/block/loop0/queue/nr_requests)" 64
eq "real: read-ahead set" "$(cat /sys/block/loop1/queue/read_ahead_kb)" 512
OUT=$(inroot "'$ET' verify --profile none --config '$WORK/loop.conf' --root '$t' --device loop0 --device loop1" 2>&1)
eq "real: verify holds" "$?" 0
OUT=$(inroot "'$ET' apply --json --profile none --config '$WORK/loop.conf' --root '$t' --device loop0 --device loop1" 2>&1)
lacks "real: second apply writes nothing" '"result":"applied"'
echo 4096 >/sys/block/loop1/queue/read_ahead_kb
OUT=$(inroot "'$ET' verify --profile none --config '$WORK/loop.conf' --root '$t' --device loop0 --device loop1" 2>&1)
eq "real: verify sees drift" "$?" 1
contains "real: drift line" "loop1 queue/read_ahead_kb is '4096', want '512'"
# The kernel rejects what it cannot store: nr_requests below its minimum.
# Without a scheduler nr_requests is capped by the hardware queue depth (128 for loop).
printf '[block "loops"]\nmatch.class = loop\nscheduler = none\nnr_requests = 2048\n' >"$WORK/bad.conf"
OUT=$(inroot "'$ET' apply --profile none --config '$WORK/bad.conf' --root '$t' --device loop1 2>&1")
RC=$?
eq "real: a value the kernel refuses fails the item (exit 1)" "$RC" 1
contains "real: the error carries the kernel's errno" "Invalid argument"
OUT=$(inroot "'$ET' revert --root '$t'" 2>&1)
eq "real: revert exits 0" "$?" 0
eq "real: every loop value restored" "$(real_snapshot)" "$before"
eq "real: nothing else on this machine changed" "$(other_snapshot)" "$others"
