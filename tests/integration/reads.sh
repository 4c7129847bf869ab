# SPDX-License-Identifier: LGPL-2.1-or-later
# A disk's plan opens each file it decides on once: queue/scheduler (bio-based?,
# the scheduler item, the scheduler iosched.KEY tunes) and, for a SCSI disk,
# queue/rotational (its class, wbt_lat_usec = -1) were read two or three times.
. "$(dirname "$0")/../lib/common.sh"

need "strace is installed (.ci/bootstrap)" command -v strace
t=$WORK/metal
mk_metal "$t"
printf '[block "x"]\nmatch.class = *\nscheduler = mq-deadline\nwbt_lat_usec = -1\niosched.fifo_batch = 8\n' >"$WORK/x.conf"
opens() { # FILE: how often the plan of sdb opens sys/block/sdb/FILE
	strace -f -e trace=open,openat,openat2 "$ET" plan --only block --profile none --config "$WORK/x.conf" \
		--root "$t" --device sdb 2>&1 >/dev/null | grep -c "sys/block/sdb/$1\""
}
# strace must see the plan's opens at all, or the counts below prove nothing.
eq "strace sees queue/wbt_lat_usec opened" "$(opens queue/wbt_lat_usec)" 1
eq "queue/scheduler is read once" "$(opens queue/scheduler)" 1
eq "queue/rotational is read once" "$(opens queue/rotational)" 1
printf '[block "x"]\nmatch.class = *\niosched.fifo_batch = 8\n' >"$WORK/x.conf"
eq "queue/scheduler is read once without a scheduler key" "$(opens queue/scheduler)" 1
