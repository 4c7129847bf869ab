# SPDX-License-Identifier: LGPL-2.1-or-later
# plan → apply → verify (0) → second apply writes nothing → tamper → verify (1)
# → revert restores every original, on each modelled machine.
. "$(dirname "$0")/../lib/common.sh"

cat >"$WORK/extra.conf" <<'CONF'
[thp]
size.64kB.enabled = madvise
khugepaged.max_ptes_none = 255
[block "virtual"]
nr_requests = 128
CONF

lifecycle() { # MODEL [--config FILE]
	model=$1
	shift
	t=$WORK/$model
	"mk_$model" "$t"
	mk_net_builtin "$t"
	before=$(snapshot "$t")
	check_rc "$model: apply succeeds" 0 -- "$ET" apply --root "$t" "$@"
	contains "$model: apply reports applied items" "applied"
	check_rc "$model: verify holds after apply" 0 -- "$ET" verify --root "$t" "$@"
	contains "$model: verify counts no drift" "0 drifted"
	check_rc "$model: second apply succeeds" 0 -- "$ET" apply --json --root "$t" "$@"
	lacks "$model: second apply writes nothing" '"result":"applied"'
	after=$(snapshot "$t")
	[ "$after" != "$before" ]; eq "$model: apply changed the tree" $? 0
	rec=$(records "$t" | wc -l)
	changed=$(printf '%s\n' "$before" | diff - "$(printf '%s\n' "$after" >"$WORK/a"; echo "$WORK/a")" | grep -c '^>')
	[ "$rec" -ge "$changed" ]; eq "$model: every changed attribute has a recorded original ($rec ≥ $changed)" $? 0
}

tamper_and_revert() { # MODEL FILE VALUE [--config FILE]
	model=$1 f=$2 v=$3
	shift 3
	t=$WORK/$model
	printf '%s\n' "$v" >"$t/$f"
	check_rc "$model: verify detects drift" 1 -- "$ET" verify --root "$t" "$@"
	contains "$model: drift line names the attribute" "$(basename "$f") is '$(printf '%s\n' "$v" >"$WORK/v"; active "$WORK/v")'"
	check_rc "$model: revert succeeds" 0 -- "$ET" revert --root "$t" "$@"
	eq "$model: revert restores every original value" "$(snapshot "$t")" "$before"
	eq "$model: revert forgets the records" "$(records "$t")" ""
	check_rc "$model: a second revert has nothing to do" 0 -- "$ET" revert --root "$t" "$@"
}

lifecycle kvm
tamper_and_revert kvm sys/block/vda/queue/read_ahead_kb 4096
eq "kvm: tamper was on an applied item, revert restored 8192" "$(cat "$WORK/kvm/sys/block/vda/queue/read_ahead_kb")" 8192
eq "kvm: scheduler's original active choice is back" "$(active "$WORK/kvm/sys/block/vda/queue/scheduler")" mq-deadline

lifecycle azure
tamper_and_revert azure sys/block/nvme0n1/queue/read_ahead_kb 65536

lifecycle metal
tamper_and_revert metal sys/block/sdb/queue/scheduler "[mq-deadline] kyber bfq none"

lifecycle mthp --config "$WORK/extra.conf"
eq "mthp: size 64kB set" "$(cat "$WORK/mthp/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled")" madvise
eq "mthp: enabled left alone (set on the command line)" "$(active "$WORK/mthp/sys/kernel/mm/transparent_hugepage/enabled")" always
tamper_and_revert mthp sys/kernel/mm/transparent_hugepage/khugepaged/max_ptes_none 511 --config "$WORK/extra.conf"

# A scheduler switch resets nr_requests and replaces iosched/: they are set after it.
t=$WORK/switch
mk_nothp "$t"
printf '[none] mq-deadline\n' >"$t/sys/block/vda/queue/scheduler"
cat >"$WORK/switch.conf" <<'CONF'
[block "virtual"]
scheduler = mq-deadline
nr_requests = 64
iosched.read_expire = 250
CONF
before=$(snapshot "$t")
check_rc "switch: apply with a scheduler switch" 1 -- "$ET" apply --root "$t" --config "$WORK/switch.conf"
contains "switch: iosched tunable of the new scheduler is checked after the switch" "queue/iosched/read_expire is missing after the scheduler switch"
contains "switch: nr_requests still applied" "queue/nr_requests"
eq "switch: nr_requests written" "$(cat "$t/sys/block/vda/queue/nr_requests")" 64
check_rc "switch: revert" 0 -- "$ET" revert --root "$t" --config "$WORK/switch.conf"
eq "switch: revert restores" "$(snapshot "$t")" "$before"

# earlytune=0 on the command line: apply writes nothing, plan still works.
t=$WORK/off
mk_kvm "$t"
printf 'root=/dev/vda1 earlytune=0\n' >"$t/proc/cmdline"
before=$(snapshot "$t")
check_rc "earlytune=0: apply exits 0" 0 -- "$ET" apply --root "$t"
contains "earlytune=0: says why" "earlytune=0"
eq "earlytune=0: nothing written" "$(snapshot "$t")" "$before"
[ -f "$t/run/sysctl.d/60-earlytune.conf" ] && [ ! -s "$t/run/sysctl.d/60-earlytune.conf" ]
eq "earlytune=0: the sysctl guard is masked for this boot (empty /run/sysctl.d file)" $? 0
check_rc "earlytune=0: plan still works" 0 -- "$ET" plan --root "$t"
contains "earlytune=0: plan shows changes" "change"
printf 'root=/dev/vda1 "rd.earlytune=0"\n' >"$t/proc/cmdline"
check_rc "rd.earlytune=0 (quoted): apply exits 0" 0 -- "$ET" apply --root "$t"
eq "rd.earlytune=0: nothing written" "$(snapshot "$t")" "$before"

# --boot: kernel log lines, a summary with the time taken, exit 0.
t=$WORK/boot
mk_kvm "$t"
: >"$t/dev/kmsg"
check_rc "boot: apply exits 0" 0 -- "$ET" --boot apply --root "$t"
OUT=$(cat "$t/dev/kmsg")
contains "boot: change lines in the kernel log" "<5>earlytune: block vda queue/read_ahead_kb: 8192 -> 1024"
contains "boot: summary line with counts and time" "earlytune: apply --root $t: 4 changed"
contains "boot: summary carries the time" " ms"
