# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 9, "unknown is unknown": where a tree lacks the file that would decide
# a fact, plan says what is missing and never states a kernel property it did
# not read. A fact is said only from the nearest part of the path the tree
# has: sys/kernel/mm without transparent_hugepage is "no THP", a tree without
# sys/kernel is not. Each reason is asserted exactly, in text and in JSON.
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

cc=net.ipv4.tcp_congestion_control
dq=net.core.default_qdisc

# ---- no proc/ at all: nothing about modules, sysctls or the release ----
t=$WORK/noproc
mk_kvm "$t"
rm -rf "$t/proc"
says "no proc/: modules" "$t" tcp_bbr "tcp_bbr: built in, loadable or absent is unknown: no /proc in this tree"
says "no proc/: congestion control" "$t" $cc "no /proc in this tree: whether the kernel has TCP/IP sysctls is unknown"
says "no proc/: default_qdisc" "$t" $dq "no /proc in this tree: whether the kernel has net.core.default_qdisc is unknown"

# ---- proc/ without sys: a capture, not a kernel without sysctls ----
t=$WORK/nosys
mk_kvm "$t"
rm -rf "$t/proc/sys"
says "proc/ without sys: congestion control" "$t" $cc "no /proc/sys in this tree: whether the kernel has TCP/IP sysctls is unknown"
says "proc/ without sys: default_qdisc" "$t" $dq "no /proc/sys in this tree: whether the kernel has net.core.default_qdisc is unknown"
# proc/modules is there, the release is not: the lookup cannot name a tree.
says "proc/ without sys: the release is unknown" "$t" tcp_bbr "tcp_bbr: module not found: the kernel release is unknown (no /proc/sys/kernel/osrelease or /proc/version in this tree)"

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

# ---- modules: proc/ without proc/modules is a kernel without module support ----
t=$WORK/nomods
mk_kvm "$t"
rm "$t/proc/modules"
says "no proc/modules, no lib/modules" "$t" tcp_bbr "tcp_bbr: kernel has no module support (no /proc/modules), and built in or not is unknown: no /lib/modules/$rel/modules.builtin in this tree"
_attr "$t/lib/modules/$rel/modules.builtin" "kernel/net/ipv4/tcp_bbr.ko"
says "no proc/modules, modules.builtin without sch_fq" "$t" sch_fq "sch_fq: kernel has no module support (no /proc/modules) and does not have it built in"
got=$("$ET" plan --wide --json --root "$t" --only modules 2>/dev/null | python3 -c 'import json, sys
print(*[it["current"] + " " + it["action"] for it in json.load(sys.stdin)["items"] if it["target"] == "tcp_bbr"])')
eq "no proc/modules, modules.builtin listing tcp_bbr: built in, kept" "$got" "builtin keep"

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
