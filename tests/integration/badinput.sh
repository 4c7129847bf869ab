# SPDX-License-Identifier: LGPL-2.1-or-later
# Bad input: every case gets a clear message, the right exit code, and
# nothing half-written.
. "$(dirname "$0")/../lib/common.sh"

t=$WORK/kvm
mk_kvm "$t"
before=$(snapshot "$t")

# bad_config NAME NEEDLE CONTENT: exit 2, FILE:LINE and NEEDLE in the message, nothing written.
bad_config() {
	printf '%s\n' "$3" >"$WORK/$1.conf"
	check_rc "config $1: apply exits 2" 2 -- "$ET" apply --root "$t" --config "$WORK/$1.conf"
	contains "config $1: message names FILE:LINE" "$WORK/$1.conf:"
	contains "config $1: message says what is wrong" "$2"
	eq "config $1: nothing written" "$(snapshot "$t")" "$before"
	[ ! -e "$t/run/earlytune/originals" ]; eq "config $1: no records" $? 0
}

bad_config section "unknown section [blok]" '[blok]
scheduler = none'
bad_config key "unknown key 'read_ahead' in [block]" '[block]
read_ahead = 128'
bad_config sched-typo "did you mean 'deadline'" '[block "x"]
scheduler = dedline'
bad_config unknown-sched "unknown scheduler 'turbo'; allowed: none mq-deadline kyber bfq" '[block]
scheduler = turbo'
bad_config range "nr_requests = '2' is out of the kernel's range" '[block]
nr_requests = 2'
bad_config ra-range "must be A..B" '[block]
read_ahead_kb = 1024..128'
bad_config ra-big "out of the kernel's range" '[block]
read_ahead_kb = 4294967296'
bad_config thp "allowed: always madvise never" '[thp]
enabled = sometimes'
bad_config mthp-size "size.NkB.enabled" '[thp]
size.12kB.enabled = always'
bad_config header "malformed section header" '[block "x"
scheduler = none'
bad_config outside "outside a valid section" 'scheduler = none'
bad_config noeq "expected 'key = value'" '[block]
scheduler none'
bad_config class "matches no class" '[block "x"]
match.class = floppy'
bad_config profile "unknown profile 'desktop'" '[main]
profile = desktop'
bad_config thp-name "takes no name" '[thp "x"]
enabled = never'

printf '[block]\nscheduler = none\n\0[thp]\n' >"$WORK/nul.conf"
check_rc "config with a NUL byte: exit 2" 2 -- "$ET" apply --root "$t" --config "$WORK/nul.conf"
contains "config with a NUL byte: says so" "NUL byte"
eq "config with a NUL byte: nothing written" "$(snapshot "$t")" "$before"

head -c 200000 /dev/urandom >"$WORK/random.conf"
check_rc "random bytes as config: exit 2" 2 -- "$ET" plan --root "$t" --config "$WORK/random.conf"

awk 'BEGIN { printf "[block]\nscheduler = "; for (i = 0; i < 5000; i++) printf "none "; printf "\n" }' >"$WORK/long.conf"
check_rc "very long value: handled" 0 -- "$ET" plan --root "$t" --config "$WORK/long.conf"

check_rc "missing --config file: exit 2" 2 -- "$ET" plan --root "$t" --config "$WORK/nope.conf"
contains "missing --config file: names it" "nope.conf: cannot open"

# --boot: the bad line is skipped and logged, the rest applies, exit 0.
: >"$t/dev/kmsg"
printf '[thp]\nenabled = sometimes\ndefrag = never\n' >"$WORK/boot.conf"
check_rc "boot with a bad line: exit 0" 0 -- "$ET" --boot apply --root "$t" --config "$WORK/boot.conf"
OUT=$(cat "$t/dev/kmsg")
contains "boot with a bad line: logged to the kernel log with FILE:LINE" "boot.conf:2:"
eq "boot with a bad line: the good line applied" "$(cat "$t/sys/kernel/mm/transparent_hugepage/defrag")" never
eq "boot with a bad line: the bad line did not" "$(active "$t/sys/kernel/mm/transparent_hugepage/enabled")" madvise
"$ET" revert --root "$t" >/dev/null 2>&1
eq "boot: revert restores" "$(snapshot "$t")" "$before"

# Hostile device names are refused before any path is built.
for name in "" "../etc" "a/b" "." ".." "$(printf 'vd\na')" "$(printf 'vd\033a')" "$(printf '%0300d' 0)"; do
	check_rc "device name '$(printf '%s' "$name" | tr -c '[:print:]' '?' | cut -c1-20)': exit 2" 2 -- "$ET" apply --root "$t" --device "$name"
	contains "device name refused with a reason" "invalid device name"
done
check_rc "a partition: not applicable, exit 0" 0 -- "$ET" apply --root "$t" --device vda1
contains "a partition: names its disk" "'vda1' is a partition of 'vda'"
check_rc "an unknown disk: exit 1" 1 -- "$ET" apply --root "$t" --device sdz
contains "an unknown disk: says so" "'sdz' is not a disk"
eq "hostile names: nothing written" "$(snapshot "$t")" "$before"
check_rc "--device tunes that disk only" 0 -- "$ET" apply --json --root "$t" --device vda
lacks "--device: no THP items" '"domain":"thp"'
"$ET" revert --root "$t" >/dev/null 2>&1

# Usage errors.
check_rc "unknown command: exit 2" 2 -- "$ET" frobnicate --root "$t"
check_rc "unknown option: exit 2" 2 -- "$ET" plan --frob
check_rc "unknown --only domain: exit 2" 2 -- "$ET" plan --only block,gpu --root "$t"
# A list without a domain is an error that says so, not a silent exit 2.
for only in , '' ',,'; do
	check_rc "--only '$only': exit 2" 2 -- "$ET" plan --only "$only" --root "$t"
	eq "--only '$only': one line names the domains" "$OUT" \
		"earlytune: --only: no domain given ('$only'); domains: modules thp nic net block initramfs limits sched sysfs"
done
check_rc "unknown --profile: exit 2" 2 -- "$ET" plan --profile turbo --root "$t"
check_rc "missing --root: exit 2" 2 -- "$ET" plan --root "$WORK/nonexistent"
check_rc "--help: exit 0" 0 -- "$ET" --help
contains "--help explains the commands" "revert"
t=$WORK/fresh
mk_kvm "$t"
check_rc "options after the command" 0 -- "$ET" plan --root "$t" --only thp
lacks "--only thp: no block items" "queue/"

# An attribute the kernel rejects: errors are gathered, the rest still applies.
t2=$WORK/reject
mk_metal "$t2"
rm "$t2/sys/block/sdb/queue/read_ahead_kb"
mkdir "$t2/sys/block/sdb/queue/read_ahead_kb"
check_rc "write rejected: apply exits 1" 1 -- "$ET" apply --root "$t2"
contains "write rejected: the item says why" "Is a directory"
eq "write rejected: other items still applied" "$(active "$t2/sys/block/sdb/queue/scheduler")" bfq

# A missing attribute is a skip with the reason.
t3=$WORK/missing
mk_kvm "$t3"
printf '[block "virtual"]\nio_timeout = 30000\n' >"$WORK/io.conf"
check_rc "missing attribute: plan exits 0" 0 -- "$ET" plan --root "$t3" --config "$WORK/io.conf"
contains "missing attribute: skip with the reason" "kernel has no queue/io_timeout for this queue"

# A scheduler the queue does not offer and no module can bring.
printf '[block "virtual"]\nscheduler = bfq\n' >"$WORK/bfq.conf"
check_rc "unavailable scheduler: plan exits 0" 0 -- "$ET" plan --root "$t3" --config "$WORK/bfq.conf"
contains "unavailable scheduler: skip naming what the queue offers" "none of 'bfq' is available: the queue offers '[mq-deadline] kyber none'"
contains "unavailable scheduler: says where modules were looked for" "bfq: module not found under /lib/modules/6.1.0-28-cloud-amd64"

# Read-only attributes and a read-only /run, with real read-only bind mounts.
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	t4=$WORK/ro
	mk_kvm "$t4"
	before4=$(snapshot "$t4")
	OUT=$(unshare -m sh -c "mount --bind '$t4/sys/devices/virtual/block/vda/queue' '$t4/sys/devices/virtual/block/vda/queue' &&
		mount -o remount,bind,ro '$t4/sys/devices/virtual/block/vda/queue' && '$ET' apply --root '$t4'" 2>&1)
	RC=$?
	eq "read-only queue: apply exits 1" "$RC" 1
	contains "read-only queue: the error names the file system" "Read-only file system"
	eq "read-only queue: THP still applied" "$(active "$t4/sys/kernel/mm/transparent_hugepage/enabled")" madvise
	"$ET" revert --root "$t4" >/dev/null 2>&1
	eq "read-only queue: revert restores" "$(snapshot "$t4")" "$before4"
	OUT=$(unshare -m sh -c "mount --bind '$t4/run' '$t4/run' && mount -o remount,bind,ro '$t4/run' && '$ET' apply --root '$t4'" 2>&1)
	RC=$?
	eq "read-only /run: apply exits 1" "$RC" 1
	contains "read-only /run: says originals cannot be recorded" "run/earlytune"
	eq "read-only /run: nothing written" "$(snapshot "$t4")" "$before4"
else
	skip "read-only bind mounts" "need root"
fi

# An attribute that is not a number: a range cannot clamp it, nothing is written.
t5=$WORK/garbage
mk_kvm "$t5"
printf 'lots\n' >"$t5/sys/block/vda/queue/read_ahead_kb"
check_rc "read-ahead that is not a number: apply exits 1" 1 -- "$ET" apply --only block --root "$t5"
contains "read-ahead that is not a number: says so" "queue/read_ahead_kb reads 'lots', not a number"
eq "read-ahead that is not a number: left as it was" "$(cat "$t5/sys/block/vda/queue/read_ahead_kb")" lots
