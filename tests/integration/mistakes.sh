# SPDX-License-Identifier: LGPL-2.1-or-later
# The configuration mistakes a new user makes (issue 11), each with its exact
# message, FILE:LINE and exit code. That every ```ini block of README.md and
# docs/*.md parses as it stands is checked by docs.sh.
. "$(dirname "$0")/../lib/common.sh"

t=$WORK/kvm
mk_kvm "$t"

# mistake NAME LINE MESSAGE CONTENT: `config` exits 2 and its first line is
# exactly "earlytune: FILE:LINE: MESSAGE".
mistake() {
	f=$WORK/$1.conf
	printf '%s\n' "$4" >"$f"
	check_rc "$1: config exits 2" 2 -- "$ET" config --root "$t" --config "$f"
	eq "$1: exact message at FILE:LINE" "$(printf '%s\n' "$OUT" | head -1)" "earlytune: $f:$2: $3"
}

# good NAME CONTENT KEY VALUE: parses, and the effective KEY reads VALUE.
good() {
	f=$WORK/$1.conf
	printf '%s\n' "$2" >"$f"
	check_rc "$1: config exits 0" 0 -- "$ET" config --root "$t" --profile none --config "$f"
	contains "$1: $3 = $4" "
$3 = $4"
}

# ---- inline comments, quotes, BOM (defects: README's sample did not parse) --
good inline-comment '[thp]
enabled = madvise            # huge pages only where a program asks' enabled madvise
OUT=$("$ET" config --root "$t" --profile none --config "$WORK/inline-comment.conf" 2>&1)
contains "inline comment: is the reason without comment lines above" "inline-comment.conf:2: huge pages only where a program asks"
good inline-comment-lines '[thp]
# the comment lines win
enabled = never  ; not this one' enabled never
contains "inline comment: comment lines above win" ":3: the comment lines win"
lacks "inline comment: not both" "not this one"
good header-comment '[block "x"]   # a header comment
match.name = vd*
read_ahead_kb = 256' read_ahead_kb 256
good quoted '[block "x"]
match.model = "ACME #7" # a model with a hash' match.model '"ACME #7"'
printf '\357\273\277[thp]\nenabled = never\n' >"$WORK/bom.conf"
check_rc "BOM: config exits 0" 0 -- "$ET" config --root "$t" --profile none --config "$WORK/bom.conf"
contains "BOM: the first key is read" "
enabled = never"

mistake glued-hash 2 "value of 'scheduler': '#' inside a value: write the value in double quotes (\"…#…\"), or put a space before a comment" '[block]
scheduler = none#fast'
mistake unterminated-quote 3 "value of 'match.model': unterminated quote: a value that starts with '\"' must end with '\"'" '[block "x"]
match.name = sda
match.model = "ACME'
mistake after-quote 2 "value of 'match.model': 'x' after the closing quote; only a comment ('# …') may follow it" '[block "x"]
match.model = "ACME" x'
mistake bad-escape 2 "value of 'match.model': unknown escape '\\n' in a quoted value; the escapes are \\\" and \\\\" '[block "x"]
match.model = "a\nb"'

# ---- non-ASCII ----------------------------------------------------------------
mistake unicode-minus 2 "[block] wbt_lat_usec = '−1': '−' is U+2212 MINUS SIGN, not ASCII: write '-'" '[block]
wbt_lat_usec = −1'
mistake en-dash-range 2 "[block] read_ahead_kb = '128–1024': '–' is U+2013 EN DASH, not ASCII: write '-'" '[block]
read_ahead_kb = 128–1024'
nbsp=$(printf '\302\240')
mistake nbsp 2 "[thp] enabled = 'never$nbsp': '$nbsp' is U+00A0 NO-BREAK SPACE, not ASCII: write ' '" "[thp]
enabled = never$nbsp"
printf '[thp]\n\357\273\277enabled = never\n' >"$WORK/bom2.conf"
check_rc "BOM inside: exit 2" 2 -- "$ET" config --root "$t" --config "$WORK/bom2.conf"
eq "BOM inside: named" "$(printf '%s\n' "$OUT" | head -1)" "earlytune: $WORK/bom2.conf:2: malformed key '﻿enabled': '﻿' is U+FEFF ZERO WIDTH NO-BREAK SPACE (a byte order mark), not ASCII: write nothing"

# ---- did you mean ---------------------------------------------------------------
# An unknown [limits] key far from every key: the whole message, no stray bytes
# (the hint buffer was printed unset when nothing was near).
mistake limits-far-key 2 "unknown key 'zzzzzz' in [limits]; allowed: nofile nproc memlock core" '[limits]
zzzzzz = 1'
mistake limits-systemd-key 2 "unknown key 'LimitNOFILE' in [limits]; did you mean 'nofile'? allowed: nofile nproc memlock core" '[limits]
LimitNOFILE = 1'
mistake section-typo 1 "unknown section [blok]; did you mean [block]? allowed: [main] [modules] [thp] [net] [net \"NAME\"] [block] [block \"NAME\"] [limits] [limits \"NAME\"] [sched] [sysfs] [sysfs \"NAME\"] [cmdline] [cmdline \"NAME\"]" '[blok]'
mistake key-typo 2 "unknown key 'read_ahed_kb' in [block]; did you mean 'read_ahead_kb'? allowed: scheduler nr_requests rq_affinity add_random wbt_lat_usec io_timeout read_ahead_kb iosched.NAME match.*" '[block]
read_ahed_kb = 128'
mistake value-typo 2 "[thp] enabled = 'madivse' is not allowed; did you mean 'madvise'? allowed: always madvise never" '[thp]
enabled = madivse'
mistake sched-typo 2 "unknown scheduler 'kyper'; did you mean 'kyber'? allowed: none mq-deadline kyber bfq noop deadline cfq" '[block]
scheduler = kyper'
# [sched]: a typo of a knob, a knob with the sysctl's own name, and
# latency_nice, which never existed in mainline.
mistake sched-key-typo 2 "unknown key 'latency_n' in [sched]; did you mean 'latency_ns'? allowed: latency_ns min_granularity_ns wakeup_granularity_ns migration_cost_ns nr_migrate base_slice_ns child_runs_first" '[sched]
latency_n = 4000000'
mistake sched-latency-nice 2 "[sched] latency_nice never existed in mainline Linux (the latency-nice patches were not merged): weight groups of tasks with the cgroup v2 cpu.weight instead" '[sched]
latency_nice = -5'
mistake sched-range 2 "[sched] min_granularity_ns = '50' is out of range: a whole number from 100000 to 1000000000" '[sched]
min_granularity_ns = 50'
mistake far-off 2 "unknown key 'colour' in [net]; allowed: congestion_control qdisc qdisc.PARAM interfaces force rps_sock_flow_entries" '[net]
colour = blue'

# ---- [net]: names, globs, parameters against the kind -----------------------------
mistake bbr2 2 "[net] congestion_control = 'bbr2' is not a congestion control of Linux; did you mean 'bbr'? known: reno cubic bbr bic cdg dctcp highspeed htcp hybla illinois lp nv scalable vegas veno westwood yeah" '[net]
congestion_control = bbr2'
mistake qdisc-unknown 2 "[net] qdisc = 'fq_codle' is not a qdisc of Linux; did you mean 'fq_codel'? it sets: fq fq_codel fq_pie cake codel pie sfq pfifo bfifo pfifo_head_drop pfifo_fast" '[net]
qdisc = fq_codle'
mistake qdisc-needs-params 2 "[net] qdisc = 'tbf' needs parameters or classes earlytune does not set; it sets: fq fq_codel fq_pie cake codel pie sfq pfifo bfifo pfifo_head_drop pfifo_fast" '[net]
qdisc = tbf'
mistake bad-glob 2 "[net] interfaces 'eth[': '[' opens a character class that no ']' closes" '[net]
interfaces = eth['
mistake bad-glob-negated 2 "[net] interfaces 'veth[0-': '[' opens a character class that no ']' closes" '[net]
interfaces = eth* !veth[0-'
mistake bad-match-glob 3 "match.name 'sd[a': '[' opens a character class that no ']' closes" '[block "x"]
# a reason
match.name = sd[a'
mistake fq-param-under-fq_codel 3 "qdisc fq_codel ($WORK/fq-param-under-fq_codel.conf:4) has no parameter 'flow_limit'; earlytune sets limit flows quantum target interval ecn ce_threshold memory_limit of fq_codel" '[net]
qdisc.limit = 1000
qdisc.flow_limit = 200
qdisc = fq_codel'
mistake cake-param 3 "qdisc cake ($WORK/cake-param.conf:2) has no parameter 'maxrate'; earlytune sets no parameters of cake" '[net]
qdisc = cake
qdisc.maxrate = 1gbit'
mistake param-without-qdisc 4 "[net] qdisc.limit is set but no [net] qdisc is: a parameter needs its qdisc" '[main]
profile = none
[net]
qdisc.limit = 100'
mistake param-typo 3 "qdisc fq ($WORK/param-typo.conf:2) has no parameter 'flow_limt'; did you mean 'flow_limit'? earlytune sets limit flow_limit quantum initial_quantum maxrate pacing buckets orphan_mask low_rate_threshold ce_threshold timer_slack horizon horizon_drop of fq" '[net]
qdisc = fq
qdisc.flow_limt = 5'

# The kind may come from another file: the parameter's own line is named.
mkdir -p "$t/etc/earlytune.d"
printf '[net]\nqdisc = fq_codel\n' >"$t/etc/earlytune.d/10-kind.conf"
printf '[net]\n# pacing\nqdisc.maxrate = 1gbit\n' >"$t/etc/earlytune.d/20-param.conf"
check_rc "param in another file: exit 2" 2 -- "$ET" config --root "$t"
contains "param in another file: its own FILE:LINE" "$t/etc/earlytune.d/20-param.conf:3: qdisc fq_codel ($t/etc/earlytune.d/10-kind.conf:2) has no parameter 'maxrate'"
check_rc "param in another file: plan exits 2 too" 2 -- "$ET" plan --root "$t"
rm -r "$t/etc/earlytune.d"

# A known name the kernel lacks is a skip with its reason at plan time.
printf '[net]\ncongestion_control = vegas\nqdisc = cake\n' >"$WORK/lacks.conf"
check_rc "cake/vegas: config accepts known names" 0 -- "$ET" config --root "$t" --config "$WORK/lacks.conf"
check_rc "cake/vegas: plan runs" 0 -- "$ET" plan --root "$t" --config "$WORK/lacks.conf"
contains "vegas: plan says skip with the reason" "vegas not available"
contains "cake: plan says skip with the reason" "cake not available"

# ---- the sysctl.d file that wins, and the fix that works (issue 11) ----------------
t=$WORK/sysctl
mk_kvm "$t"
mkdir -p "$t/etc/sysctl.d"
# The kernel holds fq now; a later sysctl.d file would set fq_codel again.
echo fq >"$t/proc/sys/net/core/default_qdisc"
cur=fq_codel
printf 'net.core.default_qdisc = %s\n' "$cur" >"$t/etc/sysctl.d/99-custom.conf"
printf '[net]\nqdisc = fq\n' >"$WORK/fq.conf"
OUT=$("$ET" plan --wide --root "$t" --config "$WORK/fq.conf" 2>&1)
contains "99-custom wins: named as the winner" "/etc/sysctl.d/99-custom.conf sets net.core.default_qdisc = $cur and wins: it sorts after earlytune's guard 60-earlytune.conf"
contains "99-custom wins: the fix is to edit or mask it" "mask it (ln -s /dev/null /etc/sysctl.d/99-custom.conf)"
lacks "99-custom wins: no 60- guard advised" "install the guard (earlytune sysctl-conf"
OUT=$("$ET" verify --root "$t" --config "$WORK/fq.conf" 2>&1)
lacks "verify: no 'is fq, want fq'" "is 'fq', want 'fq'"
contains "verify: says it holds now but will not stay" "is 'fq' now, but will not stay: "
mv "$t/etc/sysctl.d/99-custom.conf" "$t/etc/sysctl.d/40-custom.conf"
OUT=$("$ET" plan --wide --root "$t" --config "$WORK/fq.conf" 2>&1)
contains "40-custom: the missing guard is the cause" "/etc/sysctl.d/40-custom.conf sets net.core.default_qdisc = $cur and systemd-sysctl applies it after earlytune: earlytune's guard /run/sysctl.d/60-earlytune.conf, which apply writes at every boot and sorts after it, is missing"
