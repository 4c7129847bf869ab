# SPDX-License-Identifier: LGPL-2.1-or-later
# Unknown is one thing: where a tree lacks the file that would decide a fact,
# plan says what is missing and never states a kernel property it did not
# read. A fact is said only from the nearest part of the path the tree has:
# sys/kernel/mm without transparent_hugepage is "no THP", a tree without
# sys/kernel is not. Each reason is asserted exactly, in text and in JSON;
# and every domain gives what the tree does not show the same verdict —
# unknown (a skip, never unmet or not applicable) in plan, its JSON and
# verify (its own verdict and summary count, not drift) — and `cmdline`
# suggests nothing on it.
. "$(dirname "$0")/../lib/common.sh"

rel=6.1.0-28-cloud-amd64

# reason TREE SETTING: the JSON reason of the item whose setting is SETTING.
reason() {
	"$ET" plan --wide --json --root "$1" --only modules,thp,net 2>/dev/null | python3 -c 'import json, sys
for it in json.load(sys.stdin)["items"]:
    if it["setting"] == sys.argv[1] or (it["domain"] == "modules" and it["target"] == sys.argv[1]):
        print(it["reason"])' "$2"
}

# says DESC TREE SETTING REASON: plan's text and its JSON give REASON exactly.
says() {
	check_rc "$1: plan exits 0" 0 -- "$ET" plan --wide --root "$2" --only modules,thp,net
	contains "$1: plan says so" " $4 [profile vps]"
	eq "$1: plan --json says so" "$(reason "$2" "$3")" "$4"
}

# unknown DESC TREE SETTING...: each item is unknown everywhere: plan --json
# (a skip, unknown, not unmet), verify --json (verdict unknown), verify's
# text ("unknown:" line, not "unmet:"/"drift:"), its summary, exit 1.
unknown() {
	_d=$1 _t=$2
	shift 2
	_plan=$("$ET" plan --wide --json --root "$_t" --only modules,thp,net,sched --config "$CONF" 2>/dev/null)
	_ver=$("$ET" verify --json --root "$_t" --only modules,thp,net,sched --config "$CONF" 2>/dev/null)
	_txt=$("$ET" verify --root "$_t" --only modules,thp,net,sched --config "$CONF" 2>&1)
	check_rc "$_d: verify exits 1 (not known to be in force)" 1 -- "$ET" verify --root "$_t" --only modules,thp,net,sched --config "$CONF"
	for _s in "$@"; do
		eq "$_d: $_s: plan --json: skip, unknown, not unmet" "$(printf '%s' "$_plan" | python3 -c 'import json, sys
print(*[it["action"] + " " + str(it["unknown"]) + " " + str(it["unmet"]) for it in json.load(sys.stdin)["items"] if sys.argv[1] in (it["setting"], it["target"]) or it["setting"].endswith(("_" + sys.argv[1], "/" + sys.argv[1]))])' "$_s")" "skip True False"
		eq "$_d: $_s: verify --json: verdict unknown" "$(printf '%s' "$_ver" | python3 -c 'import json, sys
print(*[it["verdict"] for it in json.load(sys.stdin)["items"] if sys.argv[1] in (it["setting"], it["target"]) or it["setting"].endswith(("_" + sys.argv[1], "/" + sys.argv[1]))])' "$_s")" "unknown"
		eq "$_d: $_s: verify says unknown" "$(printf '%s\n' "$_txt" | grep -c "^unknown: [^:]*[ _/]$_s[: ]")" 1
	done
	eq "$_d: no unknown called unmet" "$(printf '%s\n' "$_txt" | grep 'not possible here.*is unknown')" ""
	eq "$_d: verify --json: the summary counts them" "$(printf '%s' "$_ver" | python3 -c 'import json, sys
s = json.load(sys.stdin)["summary"]; print(s["unknown"], s["in_force"])')" "$# False"
	contains "$_d: verify's summary line counts them" ", $# unknown"
}
CONF=$WORK/all.conf
printf '[main]\nprofile = vps\n[sched]\nnr_migrate = 64\n' >"$CONF"

cc=net.ipv4.tcp_congestion_control
dq=net.core.default_qdisc

# ---- no proc/ at all: nothing about modules, sysctls or the release ----
t=$WORK/noproc
mk_kvm "$t"
rm -rf "$t/proc" "$t/lib"
says "no proc/: modules" "$t" tcp_bbr "tcp_bbr: built in, loadable or absent is unknown: no /proc in this tree"
says "no proc/: congestion control" "$t" $cc "no /proc in this tree: whether the kernel has TCP/IP sysctls is unknown"
says "no proc/: default_qdisc" "$t" $dq "no /proc in this tree: whether the kernel has net.core.default_qdisc is unknown"
# Congestion control and default qdisc alike: one verdict for one unknown.
unknown "no proc/" "$t" tcp_bbr sch_fq $cc $dq nr_migrate

# ---- proc/ without sys: a capture, not a kernel without sysctls ----
t=$WORK/nosys
mk_kvm "$t"
rm -rf "$t/proc/sys" "$t/lib"
says "proc/ without sys: congestion control" "$t" $cc "no /proc/sys in this tree: whether the kernel has TCP/IP sysctls is unknown"
says "proc/ without sys: default_qdisc" "$t" $dq "no /proc/sys in this tree: whether the kernel has net.core.default_qdisc is unknown"
# proc/modules is there, the release is not: the lookup cannot name a tree.
says "proc/ without sys: the release is unknown" "$t" tcp_bbr "tcp_bbr: built in, loadable or absent is unknown: the kernel release is unknown (no /proc/sys/kernel/osrelease or /proc/version in this tree)"
unknown "proc/ without sys" "$t" tcp_bbr sch_fq $cc $dq nr_migrate

# ---- proc/sys without net: the kernel has no networking ----
t=$WORK/nonet
mk_kvm "$t"
rm -rf "$t/proc/sys/net"
says "proc/sys without net: congestion control" "$t" $cc "no /proc/sys/net here: the kernel has no network sysctls"

# ---- proc/sys/net without ipv4: no TCP/IP; net/core says the namespace ----
t=$WORK/noipv4
mk_kvm "$t"
rm -rf "$t/proc/sys/net/ipv4"
says "proc/sys/net without ipv4: congestion control" "$t" $cc "no /proc/sys/net/ipv4 here: the kernel has no TCP/IP sysctls"

# ---- ipv4 without the file ----
t=$WORK/nocc
mk_kvm "$t"
rm "$t/proc/sys/net/ipv4/tcp_congestion_control"
says "ipv4 without tcp_congestion_control" "$t" $cc "no /proc/sys/net/ipv4/tcp_congestion_control here: the kernel has no TCP congestion control sysctl"

# ---- default_qdisc: another network namespace only when net/core is there ----
t=$WORK/nocore
mk_kvm "$t"
rm -rf "$t/proc/sys/net/core"
says "proc/sys/net without core" "$t" $dq "no /proc/sys/net/core in this tree: whether the kernel has net.core.default_qdisc is unknown"
t=$WORK/emptycore
mk_kvm "$t"
rm "$t/proc/sys/net/core/default_qdisc"
says "net/core with nothing in it" "$t" $dq "no /proc/sys/net/core/default_qdisc nor /proc/sys/net/core/somaxconn in this tree: whether this is another network namespace is unknown"
# The true case stays: net/core with its other sysctls but no default_qdisc.
_attr "$t/proc/sys/net/core/somaxconn" 4096
says "net/core without default_qdisc (another netns)" "$t" $dq "no /proc/sys/net/core/default_qdisc here: it exists only in the initial network namespace"

# ---- modules: proc/sys/kernel without proc/modules and modprobe is a kernel without module support ----
t=$WORK/nomods
mk_kvm "$t"
rm "$t/proc/modules"
nomod="the kernel cannot load modules: no /proc/modules nor /proc/sys/kernel/modprobe"
says "no proc/modules, no lib/modules" "$t" sch_fq "sch_fq: built in or absent is unknown: no /lib/modules/$rel/modules.builtin in this tree (nor the kernel's configuration; $nomod)"
# Without module support, the congestion controls the kernel lists are all it has.
says "no proc/modules: tcp_bbr from the list" "$t" tcp_bbr "tcp_bbr: not in this kernel (bbr is not in /proc/sys/net/ipv4/tcp_available_congestion_control, and $nomod)"
says "no proc/modules: congestion control from the list" "$t" $cc "bbr not available: tcp_bbr: not in this kernel (bbr is not in /proc/sys/net/ipv4/tcp_available_congestion_control, and $nomod)"
says "no proc/modules: default_qdisc unknown" "$t" $dq "fq not offered now, and sch_fq: built in or absent is unknown: no /lib/modules/$rel/modules.builtin in this tree (nor the kernel's configuration; $nomod)"
unknown "no proc/modules, no modules.builtin" "$t" sch_fq $dq nr_migrate
# The kernel's configuration tells what modules.builtin would.
mkdir -p "$t/boot"
printf 'CONFIG_NET_SCH_FQ=y\n' >"$t/boot/config-$rel"
got=$("$ET" plan --wide --json --root "$t" --only modules 2>/dev/null | python3 -c 'import json, sys
print(*[it["current"] + " " + it["action"] for it in json.load(sys.stdin)["items"] if it["target"] == "sch_fq"])')
eq "no proc/modules, CONFIG_NET_SCH_FQ=y: built in, kept" "$got" "builtin keep"
printf '# CONFIG_NET_SCH_FQ is not set\n' >"$t/boot/config-$rel"
says "no proc/modules, CONFIG_NET_SCH_FQ not set" "$t" sch_fq "sch_fq: not in this kernel (CONFIG_NET_SCH_FQ is not set in /boot/config-$rel)"
# A qdisc the kernel lacks is known before anything is written: skip, not change.
says "no proc/modules, CONFIG_NET_SCH_FQ not set: default_qdisc" "$t" $dq "fq not available: sch_fq: not in this kernel (CONFIG_NET_SCH_FQ is not set in /boot/config-$rel)"
rm -r "$t/boot"
# A capture that kept proc/sys/kernel/modprobe only lacks the list: unknown.
_attr "$t/proc/sys/kernel/modprobe" /sbin/modprobe
says "no proc/modules, modprobe there" "$t" tcp_bbr "tcp_bbr: built in, loadable or absent is unknown: no /proc/modules in this tree"
unknown "no proc/modules, modprobe there" "$t" tcp_bbr sch_fq $cc $dq nr_migrate
rm "$t/proc/sys/kernel/modprobe"
_attr "$t/lib/modules/$rel/modules.builtin" "kernel/net/ipv4/tcp_bbr.ko"
says "no proc/modules, modules.builtin without sch_fq" "$t" sch_fq "sch_fq: kernel has no module support (no /proc/modules nor /proc/sys/kernel/modprobe) and does not have it built in"
got=$("$ET" plan --wide --json --root "$t" --only modules 2>/dev/null | python3 -c 'import json, sys
print(*[it["current"] + " " + it["action"] for it in json.load(sys.stdin)["items"] if it["target"] == "tcp_bbr"])')
eq "no proc/modules, modules.builtin listing tcp_bbr: built in, kept" "$got" "builtin keep"

# ---- a kernel that loads modules, without its module tree in this tree ----
t=$WORK/nomodtree
mk_kvm "$t"
rm -rf "$t/lib"
says "no lib/modules/VER" "$t" tcp_bbr "tcp_bbr: built in, loadable or absent is unknown: no /lib/modules/$rel/modules.dep in this tree"
unknown "no lib/modules/VER" "$t" tcp_bbr sch_fq $cc $dq nr_migrate
# A scheduler the queue does not offer, whose module the tree cannot show:
# unknown too (a spinning disk on bare metal wants bfq, else mq-deadline).
t=$WORK/nomodtree-metal
mk_metal "$t"
rm -rf "$t/lib"
_attr "$t/sys/devices/virtual/block/sdb/queue/scheduler" "[none] kyber"
"$ET" plan --wide --json --root "$t" --only block --device sdb >"$WORK/blk.json" 2>/dev/null
eq "no lib/modules/VER: the HDD's bfq is unknown, not unmet" "$(python3 -c 'import json, sys
print(*[(it["action"], it.get("unknown"), it.get("unmet")) for it in json.load(open(sys.argv[1]))["items"] if it["setting"] == "queue/scheduler"])' "$WORK/blk.json")" "('skip', True, False)"
mkdir -p "$t/lib/modules/6.1.0-28-amd64" && : >"$t/lib/modules/6.1.0-28-amd64/modules.dep"
"$ET" plan --wide --json --root "$t" --only block --device sdb >"$WORK/blk.json" 2>/dev/null
eq "a module tree without bfq: the HDD's bfq is unmet" "$(python3 -c 'import json, sys
print(*[(it["action"], it.get("unknown"), it.get("unmet")) for it in json.load(open(sys.argv[1]))["items"] if it["setting"] == "queue/scheduler"])' "$WORK/blk.json")" "('skip', False, True)"

# ---- modules --kernel VER: the tree's lib/modules/VER decides ----
printf '[modules]\nload = tcp_bbr\n' >"$WORK/m.conf"
# The kernel hook still warns (and exits 1): what it cannot confirm, said as such.
check_rc "modules --kernel --check without lib/modules/VER: exit 1" 1 -- "$ET" modules --root "$t" --kernel 6.9.0-et --config "$WORK/m.conf" --check
contains "modules --kernel without lib/modules/VER: unknown, not missing" "tcp_bbr	unknown"
# The cause is said once, naming the missing directory, not once per module (issue 11).
contains "modules --kernel --check without lib/modules/VER: the warning names the cause" "earlytune: kernel 6.9.0-et is not installed: no /lib/modules/6.9.0-et, so none of its modules can be checked"
eq "modules --kernel --check without lib/modules/VER: said once" "$(printf '%s\n' "$OUT" | grep -c 'earlytune: ')" 1
lacks "modules --kernel --check without lib/modules/VER: not per module" "cannot tell whether kernel"
mkdir -p "$t/lib/modules/6.9.0-et"
check_rc "modules --kernel --check with an empty lib/modules/VER: exit 1" 1 -- "$ET" modules --root "$t" --kernel 6.9.0-et --config "$WORK/m.conf" --check
contains "modules --kernel --check with an empty lib/modules/VER: per module" "cannot tell whether kernel 6.9.0-et has module tcp_bbr"
rmdir "$t/lib/modules/6.9.0-et"
lacks "modules --kernel --check without lib/modules/VER: no invented fact" "has no module tcp_bbr"

# ---- THP: sys/kernel/mm decides ----
t=$WORK/nothp
mk_kvm "$t"
rm -rf "$t/sys/kernel/mm/transparent_hugepage"
says "sys/kernel/mm without transparent_hugepage" "$t" enabled "kernel has no transparent huge pages (no /sys/kernel/mm/transparent_hugepage)"
rm -rf "$t/sys/kernel/mm"
says "sys/kernel without mm" "$t" enabled "no /sys/kernel/mm in this tree: whether the kernel has transparent huge pages is unknown"
unknown "sys/kernel without mm" "$t" enabled defrag nr_migrate
# cmdline: no THP default to change where THP support is unknown.
check_rc "sys/kernel without mm: cmdline exits 0" 0 -- "$ET" cmdline --wide --root "$t"
lacks "sys/kernel without mm: cmdline suggests no transparent_hugepage=" "add    transparent_hugepage="
contains "sys/kernel without mm: cmdline says why" "earlytune: unknown: transparent_hugepage= not suggested: no /boot/config-$rel nor /sys/kernel/mm in this tree: whether kernel $rel has transparent huge pages is unknown"
OUT=$("$ET" cmdline --json --root "$t" 2>/dev/null)
lacks "sys/kernel without mm: cmdline --json suggests no transparent_hugepage=" "transparent_hugepage="
mk_thp "$t"
check_rc "THP there, no config: cmdline exits 0" 0 -- "$ET" cmdline --wide --root "$t"
contains "THP there, no config: the Kconfig default assumed" "add    transparent_hugepage=madvise"
rm -rf "$t/sys/kernel/mm/transparent_hugepage"
check_rc "sys/kernel/mm without THP: cmdline exits 0" 0 -- "$ET" cmdline --wide --root "$t"
lacks "sys/kernel/mm without THP: nothing suggested" "transparent_hugepage="
rm -rf "$t/sys/kernel/mm"
rm -rf "$t/sys/kernel"
says "no sys/kernel" "$t" defrag "no /sys/kernel in this tree: whether the kernel has transparent huge pages is unknown"

# ---- a read error is no absence ----
t=$WORK/loop
mk_kvm "$t"
rm -rf "$t/sys/kernel/mm"
ln -s mm "$t/sys/kernel/mm"
check_rc "sys/kernel/mm that cannot be looked up: plan exits 1" 1 -- "$ET" plan --wide --root "$t" --only thp
contains "sys/kernel/mm that cannot be looked up: named" "Too many levels of symbolic links"
lacks "sys/kernel/mm that cannot be looked up: no fact, no unknown" "transparent huge pages"
