# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 11: `verify --prometheus FILE` writes node_exporter textfile metrics
# that promtool accepts, whatever the device and interface names; the example
# alert rules pass promtool's own tests and use only metrics earlytune writes.
. "$(dirname "$0")/../lib/common.sh"

need "promtool is installed (.ci/bootstrap takes it from Debian's prometheus package)" command -v promtool
REPO=$(cd "$TESTS_DIR/.." && pwd)
PROM=/var/lib/prometheus/node-exporter/earlytune.prom

# promfile DESC TREE: the file is valid text format.
promfile() {
	OUT=$(promtool check metrics <"$2$PROM" 2>&1)
	eq "$1: promtool check metrics" "$?" 0
	[ -z "$OUT" ] || fail "$1: promtool has remarks" "$OUT"
	OUT=$(cat "$2$PROM")
}

t=$WORK/kvm
mk_kvm "$t"
mk_net_builtin "$t"
mkdir -p "$t/var/lib/prometheus/node-exporter"

# Before any apply: drift, and no last apply.
check_rc "before apply: verify exits 1 (drift)" 1 -- "$ET" verify --prometheus "$PROM" --root "$t"
promfile "before apply" "$t"
contains "info" 'earlytune_info{version="0.1.0",profile="vps",kernel="6.1.0-28-cloud-amd64"} 1'
contains "never applied: timestamp 0" "earlytune_last_apply_timestamp_seconds 0.000000000"
contains "before apply: drifted items" "earlytune_drifted_items 6"
contains "before apply: a setting does not hold" 'earlytune_setting_holds{domain="thp",target="thp",setting="enabled"} 0'
contains "items by action" 'earlytune_items{action="change"} 6'
for m in earlytune_info earlytune_setting_holds earlytune_items earlytune_verify_items earlytune_drifted_items \
	earlytune_last_apply_timestamp_seconds earlytune_last_apply_duration_seconds earlytune_failed_items; do
	contains "$m has HELP" "# HELP $m "
	contains "$m has TYPE" "# TYPE $m gauge"
done

# After apply: everything holds; the run log gives the last apply.
"$ET" --boot apply --root "$t" 2>/dev/null
check_rc "after apply: verify exits 0" 0 -- "$ET" verify --prometheus "$PROM" --root "$t"
promfile "after apply" "$t"
contains "after apply: nothing drifted" "earlytune_drifted_items 0"
contains "after apply: the setting holds" 'earlytune_setting_holds{domain="thp",target="thp",setting="enabled"} 1'
lacks "not applicable items are not settings that hold or not" 'target="vda1"'
ts=$(sed -n 's/^earlytune_last_apply_timestamp_seconds //p' "$t$PROM")
now=$(date +%s)
[ "${ts%.*}" -gt $((now - 60)) ] && [ "${ts%.*}" -le "$now" ]
eq "after apply: the timestamp is the apply's ($ts)" $? 0
contains "after apply: no failed items" "earlytune_failed_items 0"
eq "the file is readable by node_exporter" "$(stat -c %a "$t$PROM")" 644
eq "no temporary file is left" "$(ls -A "$t/var/lib/prometheus/node-exporter")" earlytune.prom

# Drift: someone changes a setting.
printf 'always [madvise] never\n' >"$t/sys/kernel/mm/transparent_hugepage/defrag"
check_rc "drift: verify exits 1" 1 -- "$ET" verify --prometheus "$PROM" --root "$t"
promfile "drift" "$t"
contains "drift: counted" "earlytune_drifted_items 1"
contains "drift: the setting is named" 'earlytune_setting_holds{domain="thp",target="thp",setting="defrag"} 0'

# A failure in the newest run of a scope stays counted until that scope
# runs again cleanly; another scope's later run does not hide it.
f=$WORK/fail
mk_kvm "$f"
mkdir -p "$f/var/lib/prometheus/node-exporter"
ra=$f/sys/devices/virtual/block/vda/queue/read_ahead_kb
rm "$ra" && mkdir "$ra"
"$ET" --boot apply --root "$f" 2>/dev/null
"$ET" --boot apply --only thp --root "$f" 2>/dev/null
"$ET" verify --prometheus "$PROM" --root "$f" >/dev/null 2>&1
promfile "failed item" "$f"
contains "failed item: counted" "earlytune_failed_items 1"
contains "unreadable item: an error action" 'earlytune_items{action="error"} 1'
rmdir "$ra" && echo 8192 >"$ra"
"$ET" --boot apply --root "$f" 2>/dev/null
"$ET" verify --prometheus "$PROM" --root "$f" >/dev/null 2>&1
OUT=$(cat "$f$PROM")
contains "failure fixed by the next run of that scope" "earlytune_failed_items 0"

# Hostile names: disks and an interface whose names hold a quote, a
# backslash, a newline, a tab and a byte that is not UTF-8.
h=$WORK/hostile
mk_kvm "$h"
mkdir -p "$h/var/lib/prometheus/node-exporter"
mk_disk "$h" 'vd"q\b' virtio_blk "[mq-deadline] kyber none" 8192 1 256
mk_disk "$h" "$(printf 'vd\tn\nx')" virtio_blk "[mq-deadline] kyber none" 8192 1 256
mk_disk "$h" "$(printf 'vd\377z')" virtio_blk "[mq-deadline] kyber none" 8192 1 256
"$ET" verify --prometheus "$PROM" --root "$h" >/dev/null 2>&1
promfile "hostile names" "$h"
contains "quote and backslash escaped" 'earlytune_setting_holds{domain="block",target="vd\"q\\b",setting="queue/scheduler"} 0'
contains "newline escaped, tab as \\x09" 'earlytune_setting_holds{domain="block",target="vd\\x09n\nx",setting="queue/scheduler"} 0'
contains "a byte that is not UTF-8 as \\xff" 'earlytune_setting_holds{domain="block",target="vd\\xffz",setting="queue/scheduler"} 0'

# FILE: absolute, resolved inside --root, its directory must exist.
check_rc "a relative FILE is refused" 2 -- "$ET" verify --prometheus earlytune.prom --root "$t"
contains "a relative FILE: said" "--prometheus: 'earlytune.prom' is not an absolute path"
check_rc "a missing directory: exit 2" 2 -- "$ET" verify --prometheus /nowhere/earlytune.prom --root "$t"
contains "a missing directory: named" "--prometheus $t/nowhere/earlytune.prom: No such file or directory"
[ ! -e /nowhere ]
eq "a missing directory: nothing created on the host" $? 0

# The example rules: valid, every metric they read is one earlytune writes
# (or node_exporter's own), and each alert fires where its test says.
check_rc "rules: promtool check rules" 0 -- promtool check rules "$REPO/hook/earlytune.rules.yml"
for m in $(grep -o 'earlytune_[a-z_]*' "$REPO/hook/earlytune.rules.yml" | sort -u); do
	case $m in earlytune_verify*) continue ;; esac # the service, not a metric
	grep -q "^# TYPE $m gauge" "$t$PROM"
	eq "rules: $m is a metric earlytune writes" $? 0
done
cp "$REPO/hook/earlytune.rules.yml" "$REPO/tests/prometheus/earlytune.rules.test.yml" "$WORK/"
check_rc "rules: promtool test rules" 0 -- promtool test rules "$WORK/earlytune.rules.test.yml"
