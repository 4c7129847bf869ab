# SPDX-License-Identifier: LGPL-2.1-or-later
# A disk's plan opens each file it decides on once: queue/scheduler (bio-based?,
# the scheduler item, the scheduler iosched.KEY tunes) and, for a SCSI disk,
# queue/rotational (its class, wbt_lat_usec = -1) were read two or three times.
. "$(dirname "$0")/../lib/common.sh"

need "strace is installed (.ci/bootstrap)" command -v strace
t=$WORK/metal
mk_metal "$t"
printf '[block "x"]\nmatch.class = *\nscheduler = mq-deadline\nwbt_lat_usec = -1\niosched.fifo_batch = 8\n' >"$WORK/x.conf"
opens() { # FILE: how often the plan of sdb opens sys/block/sdb/FILE (by that path, or as FILE in
	# sdb's directory held open)
	strace -f -e trace=open,openat,openat2 "$ET" plan --only block --profile none --config "$WORK/x.conf" \
		--root "$t" --device sdb 2>&1 >/dev/null | grep -cE "(\"|sys/block/sdb/)$1\""
}
# strace must see the plan's opens at all, or the counts below prove nothing.
eq "strace sees queue/wbt_lat_usec opened" "$(opens queue/wbt_lat_usec)" 1
eq "queue/scheduler is read once" "$(opens queue/scheduler)" 1
eq "queue/rotational is read once" "$(opens queue/rotational)" 1
printf '[block "x"]\nmatch.class = *\niosched.fifo_batch = 8\n' >"$WORK/x.conf"
eq "queue/scheduler is read once without a scheduler key" "$(opens queue/scheduler)" 1

# A disk's identity on a kernel without diskseq (before 5.15): one listing of
# its directory tells which identifiers it has; none it lacks is opened (six
# failed opens per disk before: wwid, serial, dm/uuid, loop/backing_file and
# the device/ pair, which only a disk with a device/ link is asked for).
_attr "$t/sys/devices/virtual/block/sdb/dev" 8:16
printf '[block "x"]\nmatch.class = *\nread_ahead_kb = 512\n' >"$WORK/ra.conf"
probes=$(strace -f -e trace=open,openat,openat2 -e status=failed "$ET" apply --only block --profile none \
	--config "$WORK/ra.conf" --root "$t" --device sdb 2>&1 >/dev/null |
	grep -cE '("|sys/block/sdb/)(wwid|serial|dm/uuid|loop/backing_file)"' || true)
eq "no failed open of an identifier sdb lacks" "$probes" 0
check_rc "sdb's original recorded with its hash" 0 -- grep -c "	dev:[0-9a-f]\{16\}\$" "$t/run/earlytune/disks/sdb"
