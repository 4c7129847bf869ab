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

# Before any apply: not applied (not drift), and no last apply.
check_rc "before apply: verify exits 1 (not applied)" 1 -- "$ET" verify --prometheus "$PROM" --root "$t"
promfile "before apply" "$t"
contains "info" 'earlytune_info{version="0.1.0",profile="vps",kernel="6.1.0-28-cloud-amd64"} 1'
contains "never applied: timestamp 0" "earlytune_last_apply_timestamp_seconds 0.000000000"
contains "before apply: not applied items" "earlytune_not_applied_items 6"
contains "before apply: no drift" "earlytune_drifted_items 0"
contains "before apply: by verdict" 'earlytune_verify_items{verdict="not_applied"} 6'
contains "before apply: a setting does not hold" 'earlytune_setting_holds{domain="thp",target="thp",setting="enabled"} 0'
contains "items by action" 'earlytune_items{action="change"} 6'
contains "a valid configuration" "earlytune_config_valid 1"
contains "no configuration error" "earlytune_config_errors 0"
contains "not reverted" "earlytune_reverted 0"
for m in earlytune_info earlytune_setting_holds earlytune_items earlytune_verify_items earlytune_drifted_items \
	earlytune_unmet_items earlytune_not_applied_items earlytune_config_valid earlytune_config_errors \
	earlytune_reverted earlytune_last_apply_timestamp_seconds earlytune_last_apply_duration_seconds \
	earlytune_failed_items; do
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

# Drift: someone changes a setting (to a value the kernel offers: one it
# does not offer would be unmet).
printf 'always defer defer+madvise [madvise] never\n' >"$t/sys/kernel/mm/transparent_hugepage/defrag"
check_rc "drift: verify exits 1" 1 -- "$ET" verify --prometheus "$PROM" --root "$t"
promfile "drift" "$t"
contains "drift: counted" "earlytune_drifted_items 1"
contains "drift: the setting is named" 'earlytune_setting_holds{domain="thp",target="thp",setting="defrag"} 0'
contains "drift: nothing unmet" "earlytune_unmet_items 0"

# Issue 27, point 9: what the kernel cannot give is unmet, not drift: the
# drift alert does not fire forever on a kernel without tcp_bbr and sch_fq.
u=$WORK/unmet
mk_kvm "$u"
mkdir -p "$u/var/lib/prometheus/node-exporter"
"$ET" --boot apply --root "$u" 2>/dev/null
check_rc "unmet: verify exits 1" 1 -- "$ET" verify --prometheus "$PROM" --root "$u"
promfile "unmet" "$u"
contains "unmet: not drift" "earlytune_drifted_items 0"
contains "unmet: counted apart" "earlytune_unmet_items 4"
contains "unmet: by verdict" 'earlytune_verify_items{verdict="unmet"} 4'

# A revert is what the system is now: reverted, its settings not applied
# (not drift), the last apply still the one before it.
"$ET" revert --root "$t" >/dev/null 2>&1
check_rc "reverted: verify exits 1" 1 -- "$ET" verify --prometheus "$PROM" --root "$t"
promfile "reverted" "$t"
contains "reverted: said" "earlytune_reverted 1"
contains "reverted: not drift" "earlytune_drifted_items 0"
contains "reverted: not applied" "earlytune_not_applied_items 5"
eq "reverted: the last apply is still the apply's" \
	"$(sed -n 's/^earlytune_last_apply_timestamp_seconds //p' "$t$PROM")" "$ts"
# A measured setting (its own file) and a measurement since the revert:
# still reverted; the setting's prediction, before, check and verdict.
lacks "no measured setting: no gauges for them" "earlytune_measured_"
mk_measured "$t" held
"$ET" measure tcp --verify --root "$t" >/dev/null 2>&1
"$ET" verify --prometheus "$PROM" --root "$t" >/dev/null 2>&1
promfile "measured" "$t"
contains "measured: still reverted" "earlytune_reverted 1"
contains "measured: predicted" 'earlytune_measured_predicted{kind="tcp",setting="net.ipv4.tcp_wmem",quantity="throughput_bps"} 38100000'
contains "measured: before" 'earlytune_measured_before{kind="tcp",setting="net.ipv4.tcp_wmem",quantity="throughput_bps"} 10500000'
contains "measured: after" 'earlytune_measured_after{kind="tcp",setting="net.ipv4.tcp_wmem",quantity="throughput_bps"} 36700000'
contains "measured: held" 'earlytune_measured_held{kind="tcp",setting="net.ipv4.tcp_wmem",quantity="throughput_bps"} 1'
mk_measured "$t" failed
"$ET" verify --prometheus "$PROM" --root "$t" >/dev/null 2>&1
promfile "measured, failed" "$t"
contains "measured, failed: held 0" 'earlytune_measured_held{kind="tcp",setting="net.ipv4.tcp_wmem",quantity="throughput_bps"} 0'
mk_measured "$t" none
"$ET" verify --prometheus "$PROM" --root "$t" >/dev/null 2>&1
promfile "measured, no check" "$t"
lacks "measured, no check: no after" 'earlytune_measured_after{'
lacks "measured, no check: no verdict" 'earlytune_measured_held{'
# measure readahead's beside it: the same gauges, its kind, a quantity each
mk_measured_readahead "$t" failed
"$ET" verify --prometheus "$PROM" --root "$t" >/dev/null 2>&1
promfile "measured readahead" "$t"
contains "readahead: tcp's still there" 'earlytune_measured_predicted{kind="tcp",setting="net.ipv4.tcp_wmem",quantity="throughput_bps"} 38100000'
contains "readahead: the amplification predicted" 'earlytune_measured_predicted{kind="readahead",setting="block/vdb/queue/read_ahead_kb",quantity="amplification"} 248.5'
contains "readahead: the amplification before" 'earlytune_measured_before{kind="readahead",setting="block/vdb/queue/read_ahead_kb",quantity="amplification"} 1934.9'
contains "readahead: the amplification after" 'earlytune_measured_after{kind="readahead",setting="block/vdb/queue/read_ahead_kb",quantity="amplification"} 600'
contains "readahead: sequential, predicted" 'earlytune_measured_predicted{kind="readahead",setting="block/vdb/queue/read_ahead_kb",quantity="sequential_mibps"} 1239.7'
contains "readahead: failed: held 0" 'earlytune_measured_held{kind="readahead",setting="block/vdb/queue/read_ahead_kb",quantity="amplification"} 0'
eq "readahead: two quantities, one gauge line each" "$(grep -c '^earlytune_measured_held{kind="readahead"' "$t$PROM")" 2
rm -r "$t/etc/sysctl.d" "$t/proc/sys/net/ipv4/tcp_wmem" "$t/etc/earlytune.d"
"$ET" --boot apply --root "$t" 2>/dev/null

# A configuration error: verify exits 2 and judges nothing, but the file is
# rewritten and says so, with the error's file and line; the last good file
# does not stay green.
c=$WORK/conf
mk_kvm "$c"
mk_net_builtin "$c"
mkdir -p "$c/var/lib/prometheus/node-exporter" "$c/etc/earlytune.d"
"$ET" --boot apply --root "$c" 2>/dev/null
"$ET" verify --prometheus "$PROM" --root "$c" >/dev/null 2>&1
OUT=$(cat "$c$PROM")
contains "config: the good file first" "earlytune_config_valid 1"
printf '[block]\nread_ahead_kb = 1024\nbogus_key = 1\n' >"$c/etc/earlytune.d/50-bad.conf"
check_rc "config error: verify exits 2" 2 -- "$ET" verify --prometheus "$PROM" --root "$c"
contains "config error: said" "$c/etc/earlytune.d/50-bad.conf:3: "
promfile "config error" "$c"
contains "config error: invalid, with the first error's file and line" \
	"earlytune_config_valid{file=\"$c/etc/earlytune.d/50-bad.conf\",line=\"3\",message=\""
eq "config error: and its words" "$(grep -c '^earlytune_config_valid{.*message="[^"]*bogus_key[^"]*"} 0$' "$c$PROM")" 1
contains "config error: counted" "earlytune_config_errors 1"
lacks "config error: no verdicts on a configuration verify will not judge by" "earlytune_setting_holds"
lacks "config error: nor drift counts" "earlytune_drifted_items"
contains "config error: the run log still" "earlytune_failed_items 0"
# An unreadable file is an error of the file as a whole: line 0.
rm "$c/etc/earlytune.d/50-bad.conf"
mkdir "$c/etc/earlytune.d/60-dir.conf"
check_rc "unreadable file: verify exits 2" 2 -- "$ET" verify --prometheus "$PROM" --root "$c"
promfile "unreadable file" "$c"
contains "unreadable file: named, line 0" "earlytune_config_valid{file=\"$c/etc/earlytune.d/60-dir.conf\",line=\"0\","
rmdir "$c/etc/earlytune.d/60-dir.conf"
# --boot verify applies the rest, as --boot apply does: verdicts, and the error.
printf '[block]\nbogus_key = 1\n' >"$c/etc/earlytune.d/50-bad.conf"
check_rc "--boot verify with an error: exit 0" 0 -- "$ET" --boot verify --prometheus "$PROM" --root "$c"
promfile "--boot, config error" "$c"
contains "--boot, config error: invalid" "earlytune_config_valid{file=\"$c/etc/earlytune.d/50-bad.conf\",line=\"2\","
contains "--boot, config error: the rest judged" "earlytune_drifted_items 0"
rm "$c/etc/earlytune.d/50-bad.conf"

# --prometheus auto: [main] textfile_dir, else the first usual textfile
# directory there is (those the units' conditions name), else exit 2.
a=$WORK/auto
mk_kvm "$a"
mk_net_builtin "$a"
check_rc "auto, no directory: exit 2" 2 -- "$ET" verify --prometheus auto --root "$a"
contains "auto, no directory: said, with the remedy" \
	"--prometheus auto: no textfile directory in $a/: none of /var/lib/prometheus/node-exporter, /var/lib/node_exporter/textfile_collector, /var/lib/node_exporter; set [main] textfile_dir"
conds=$(sed -n 's/^ConditionPathIsDirectory=|//p' "$REPO/hook/earlytune-verify.service")
eq "the timer has the service's conditions" "$(sed -n 's/^ConditionPathIsDirectory=|//p' "$REPO/hook/earlytune-verify.timer")" "$conds"
grep -q '^ExecStart=/usr/sbin/earlytune verify --prometheus auto$' "$REPO/hook/earlytune-verify.service"
eq "the service writes where auto finds" $? 0
for d in $(printf '%s\n' "$conds" | tac); do
	mkdir -p "$a$d"
	"$ET" verify --prometheus auto --root "$a" >/dev/null 2>&1
	[ -s "$a$d/earlytune.prom" ]
	eq "auto: a unit's directory, $d, is found (before those after it)" $? 0
	rm -f "$a$d/earlytune.prom"
done
"$ET" verify --prometheus auto --root "$a" >/dev/null 2>&1
eq "auto: one file, in the first directory" "$(cd "$a" && find var -name earlytune.prom)" "var/lib/prometheus/node-exporter/earlytune.prom"
mkdir -p "$a/srv/textfile" "$a/etc"
printf '[main]\ntextfile_dir = /srv/textfile\n' >"$a/etc/earlytune.conf"
"$ET" verify --prometheus auto --root "$a" >/dev/null 2>&1
promfile "auto: [main] textfile_dir" "$a"
contains "auto: [main] textfile_dir wins" "earlytune_config_valid 1"
[ -s "$a/srv/textfile/earlytune.prom" ]
eq "auto: written in [main] textfile_dir" $? 0
printf '[main]\ntextfile_dir = srv/textfile\n' >"$a/etc/earlytune.conf"
check_rc "textfile_dir must be absolute" 2 -- "$ET" verify --root "$a"
contains "textfile_dir must be absolute: said" "[main] textfile_dir = 'srv/textfile': not an absolute path"

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
contains "a relative FILE: said" "--prometheus: 'earlytune.prom' is not an absolute path (or auto)"
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
