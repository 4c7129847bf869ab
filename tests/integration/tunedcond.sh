# SPDX-License-Identifier: LGPL-2.1-or-later
# TuneD's conditions (issue 27, point 14): other-writer detection evaluates
# what TuneD evaluates before it tunes (tuned/units/manager.py,
# profiles/unit.py, the virt_check and cpuinfo_check functions), so that a
# profile section this machine would not run is not listed: uname_regex in
# " ".join(os.uname()), cpuinfo_regex in /proc/cpuinfo, enabled= and
# replace= as TuneD reads them, drop=. A condition that cannot be judged
# leaves the entry in as "may apply", with the reason.
. "$(dirname "$0")/../lib/common.sh"

writers() { # SETTING TARGET: "file:line value wins why" per writer, from $OUT (JSON)
	printf '%s' "$OUT" | python3 -c 'import json, sys
for it in json.load(sys.stdin)["items"]:
    if it["setting"] == sys.argv[1] and it["target"] == sys.argv[2]:
        for w in it["writers"]:
            print("%s:%d" % (w["file"], w["line"]), w["value"], w["wins"], w["why"])' "$1" "$2"
}
tp=usr/lib/tuned/throughput-performance/tuned.conf

# throughput-performance as TuneD ships it: [vm.thunderx] for aarch64
# ThunderX only (its line 33 sets THP never).
thunderx() { # ROOT
	cat >>"$1/$tp" <<'EOT'

# Marvell ThunderX
[vm.thunderx]
type=vm
uname_regex=aarch64
cpuinfo_regex=${thunderx_cpuinfo_regex}
transparent_hugepages=never
EOT
}
plan_json() { OUT=$("$ET" plan --json --root "$1" 2>/dev/null); }

# ---- x86_64: [vm.thunderx] is not TuneD's on this machine -----------------------
t=$WORK/x86
mk_tuned "$t"
thunderx "$t"
echo x86_64 >"$t/proc/sys/kernel/arch"
plan_json "$t"
eq "x86_64: only [vm] writes THP" "$(writers enabled thp | cut -d' ' -f1-3)" "/$tp:17 always True"
# the machine from the tree's shell when the kernel does not say it
rm "$t/proc/sys/kernel/arch"
mkdir -p "$t/bin"
cp "$ET_BIN" "$t/bin/sh"
plan_json "$t"
eq "x86_64 from bin/sh's ELF header: only [vm] writes THP" "$(writers enabled thp | cut -d' ' -f1-3)" "/$tp:17 always True"
# neither: a section with only uname_regex is not judged, said, and left in
# as "may apply"; the ThunderX one is decided by its cpuinfo_regex alone
rm "$t/bin/sh"
printf '\n[sysctl.arm]\ntype=sysctl\nuname_regex=aarch64\nnet.core.default_qdisc=fq_codel\n' >>"$t/$tp"
plan_json "$t"
eq "no machine in the tree: the ThunderX line is not TuneD's (cpuinfo)" "$(writers enabled thp | cut -d' ' -f1-3)" "/$tp:17 always True"
contains "no machine in the tree: uname_regex alone may apply" "may apply: "
contains "no machine in the tree: why" "uname_regex=aarch64 not judged: the tree does not show the machine"

# ---- aarch64 -------------------------------------------------------------------
a=$WORK/arm
mk_tuned "$a"
thunderx "$a"
echo aarch64 >"$a/proc/sys/kernel/arch"
printf 'processor\t: 0\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n\n' >"$a/proc/cpuinfo"
plan_json "$a"
eq "aarch64, not a ThunderX (Neoverse N1): only [vm]" "$(writers enabled thp | cut -d' ' -f1-3)" "/$tp:17 always True"
printf 'processor\t: 0\nFeatures\t: fp asimd\nCPU implementer\t: 0x43\nCPU part\t: 0x0af\n\n' >"$a/proc/cpuinfo"
plan_json "$a"
eq "aarch64 ThunderX2: [vm.thunderx] writes THP too" "$(writers enabled thp | cut -d' ' -f1-2 | sort)" \
	"/$tp:17 always
/$tp:33 never"
rm "$a/proc/cpuinfo"
plan_json "$a"
contains "aarch64 without /proc/cpuinfo: not judged, said" "cpuinfo_regex=CPU part"

# ---- Python's patterns, as Python reads them ------------------------------------
p=$WORK/py
mk_tuned "$p"
echo x86_64 >"$p/proc/sys/kernel/arch"
printf '\n[sysctl.lookahead]\ntype=sysctl\nuname_regex=x86(?=_64)\nnet.core.default_qdisc=fq_codel\n' >>"$p/$tp"
plan_json "$p"
contains "a look-ahead: may apply, said" "uname_regex=x86(?=_64) not judged: a pattern earlytune does not read (flags, look-arounds, backreferences)"
sed -i 's/^uname_regex=x86(?=_64)$/uname_regex=^Linux \\S* \\d+\\.\\d+\\.\\d+-28-cloud-amd64 .* x86_64$/' "$p/$tp"
plan_json "$p"
eq "\\S, \\d and anchors over the whole uname: met" "$(writers net.core.default_qdisc sysctl | cut -d' ' -f2)" fq_codel
lacks "\\S, \\d: judged" "not judged"
sed -i 's/-28-cloud-amd64/-99-other/' "$p/$tp"
plan_json "$p"
eq "another release in uname_regex: not met, not listed" "$(writers net.core.default_qdisc sysctl)" ""
sed -i 's/^uname_regex=.*/uname_regex=^Linux .*?(?P<arch>x86_64)$/' "$p/$tp"
plan_json "$p"
eq "a lazy repeat and a named group (no POSIX form): judged, met" "$(writers net.core.default_qdisc sysctl | cut -d' ' -f2)" fq_codel

# ---- enabled=, replace=, drop= as TuneD reads them --------------------------------
e=$WORK/flags
mk_tuned "$e"
printf '\n[sysctl.off]\ntype=sysctl\nenabled=yes\nnet.core.default_qdisc=fq_codel\n' >>"$e/$tp"
plan_json "$e"
eq "enabled=yes: TuneD takes only True, true or 1: not listed" "$(writers net.core.default_qdisc sysctl)" ""
sed -i 's/^enabled=yes$/enabled=true/' "$e/$tp"
plan_json "$e"
eq "enabled=true: listed" "$(writers net.core.default_qdisc sysctl | cut -d' ' -f2)" fq_codel
mkdir -p "$e/etc/tuned/profiles/mine"
printf '[main]\ninclude=throughput-performance\n[vm]\nreplace=true\n[disk]\ndrop=readahead\n' \
	>"$e/etc/tuned/profiles/mine/tuned.conf"
tuned_enable "$e" mine
plan_json "$e"
eq "replace=true: the included [vm] is gone" "$(writers enabled thp)" ""
eq "drop=readahead: the included readahead is gone" "$(writers queue/read_ahead_kb vda)" ""

# ---- virt_check and cpuinfo_check ----------------------------------------------------
v=$WORK/virt
mk_tuned "$v"
printf '\n[sysctl.fn]\ntype=sysctl\nnet.core.default_qdisc=${f:virt_check:fq:fq_codel}\n' >>"$v/$tp"
sed -i 's/^transparent_hugepages=always$/transparent_hugepages=${f:cpuinfo_check:GenuineIntel:madvise:never}/' "$v/$tp"
plan_json "$v"
eq "virt_check on a KVM guest: the VM's value" "$(writers net.core.default_qdisc sysctl | cut -d' ' -f2)" fq
eq "cpuinfo_check GenuineIntel: its value" "$(writers enabled thp | cut -d' ' -f2)" madvise
lacks "both judged: not 'computed by TuneD'" "computed by TuneD"
b=$WORK/metal
mk_metal "$b"
mk_tuned_tp "$b"
tuned_enable "$b" throughput-performance
printf '\n[sysctl.fn]\ntype=sysctl\nnet.core.default_qdisc=${f:virt_check:fq:fq_codel}\n' >>"$b/$tp"
plan_json "$b"
eq "virt_check on bare metal: the other value" "$(writers net.core.default_qdisc sysctl | cut -d' ' -f2)" fq_codel
