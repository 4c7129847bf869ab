# SPDX-License-Identifier: LGPL-2.1-or-later
# Messages a new user meets (issue 27, point 12): --help's profiles come from
# the profile table, a number with a unit, a key in another domain's section,
# typographic quotes named as look-alikes, no /proc/self/fd/N path of ours in
# a message, a hint beside "Permission denied" when not root, and plan
# mounting nothing for [sched].
. "$(dirname "$0")/../lib/common.sh"

t=$WORK/kvm
mk_kvm "$t"

# first_error NAME CONTENT: `config` exits 2; OUT is its first line.
first_error() {
	printf '%s\n' "$2" >"$WORK/$1.conf"
	check_rc "$1: config exits 2" 2 -- "$ET" config --root "$t" --config "$WORK/$1.conf"
	OUT=$(printf '%s\n' "$OUT" | head -1)
}

# ---- --help: every built-in profile -------------------------------------------
OUT=$("$ET" --help 2>&1)
for p in vps latency throughput none; do
	contains "--help names profile $p" "$p"
done
eq "--help: the profile line lists the table" \
	"$(printf '%s\n' "$OUT" | grep -e '--profile')" \
	"  -p, --profile NAME   built-in profile (vps by default): vps latency throughput none"
check_rc "--profile typo: exit 2" 2 -- "$ET" plan --root "$t" --profile throughput2
contains "--profile typo: lists the table" "built-in profiles: vps latency throughput none"

# ---- a number with a unit -----------------------------------------------------
first_error ra-unit '[block]
read_ahead_kb = 128K'
eq "read_ahead_kb = 128K: a number of KiB without a unit" "$OUT" \
	"earlytune: $WORK/ra-unit.conf:2: read_ahead_kb = '128K': a number of KiB, without a unit: write 128"
first_error ra-mib '[block]
read_ahead_kb = 4 MiB'
contains "read_ahead_kb = 4 MiB: write 4096" "a number of KiB, without a unit: write 4096"
first_error ra-range '[block]
read_ahead_kb = 128K..1M'
contains "read_ahead_kb range with units: said" "numbers of KiB without a unit"
first_error nr-unit '[block]
nr_requests = 1k'
contains "nr_requests = 1k: a whole number without a unit" "nr_requests = '1k': a whole number, without a unit"

# ---- a key in another domain's section ----------------------------------------
first_error wrong-section '[thp]
scheduler = none'
contains "scheduler in [thp]: names [block]" "'scheduler' belongs in [block], not [thp]"
first_error main-key '[block]
profile = latency'
contains "profile in [block]: names [main]" "'profile' belongs in [main], not [block]"
first_error plain-typo '[thp]
enabeld = madvise'
lacks "a typo in the right section: no other section named" "belongs in"
contains "a typo in the right section: did you mean" "did you mean 'enabled'?"

# ---- typographic quotes are look-alikes ---------------------------------------
first_error curly-model '[block "ssd"]
match.model = “Samsung SSD*”'
contains "“ in a glob the check accepts: named" "'“' is U+201C LEFT DOUBLE QUOTATION MARK, not ASCII: write '\"'"
first_error curly-single '[block "ssd"]
match.model = ‘Samsung*’'
contains "‘ in a glob: named" "U+2018 LEFT SINGLE QUOTATION MARK, not ASCII: write '''"
first_error curly-header '[block “ssd”]
match.model = Samsung*'
contains "“ in a section header: named" "malformed section header '[block “ssd”]': '“' is U+201C LEFT DOUBLE QUOTATION MARK"
first_error curly-value '[thp]
enabled = ”madvise”'
contains "” in a value: named" "U+201D RIGHT DOUBLE QUOTATION MARK, not ASCII: write '\"'"

# ---- module paths are the image's, not /proc/self/fd/N -------------------------
need "depmod and objcopy" sh -c 'command -v depmod && command -v objcopy && command -v cc'
m=$WORK/mods
mk_modtree "$m"
printf '[modules]\nload = tcp_bbr\n' >"$WORK/m.conf"
OUT=$("$ET" plan --wide --root "$m" --kernel 6.1.0-et --profile none --config "$WORK/m.conf" 2>&1)
contains "a module under --root: named by the image's path" \
	"would load $m/lib/modules/6.1.0-et/kernel/net/ipv4/tcp_bbr.ko"
lacks "a module under --root: no /proc/self/fd path" "/proc/self/fd"
OUT=$("$ET" plan --json --root "$m" --kernel 6.1.0-et --profile none --config "$WORK/m.conf" 2>&1)
lacks "--json: no /proc/self/fd path" "/proc/self/fd"

# ---- not root: a hint beside Permission denied --------------------------------
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	u=$WORK/user
	mkdir "$u"
	mk_kvm "$u/kvm"
	cp "$ET_BIN" "$u/et"
	chmod 755 "$WORK" "$u"
	chmod -R a+rX "$u"
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	check_rc "not root: apply exits 1" 1 -- as_nobody "$u/et" apply --root "$u/kvm"
	contains "not root: Permission denied with the hint" "Permission denied (not running as root: run earlytune as root)"
	contains "not root: the file that needs it is named" "$u/kvm/run/earlytune"
	check_rc "not root: revert exits 1" 1 -- as_nobody "$u/et" revert --root "$u/kvm"
	contains "not root: revert's Permission denied has the hint" "(not running as root: run earlytune as root)"
	check_rc "root: apply exits 0" 0 -- "$ET" apply --root "$u/kvm"
	lacks "root: no hint" "not running as root"
else
	skip "not root: the Permission denied hint" "needs setpriv and root to drop to nobody"
fi

# ---- plan mounts nothing for [sched] -------------------------------------------
# In a private mount namespace of this test, with nothing on /sys/kernel/debug:
# plan reads what is there (nothing), says unknown, and makes no mount call.
printf '[sched]\nmigration_cost_ns = 400000\n' >"$WORK/s.conf"
if [ "$(id -u)" = 0 ] && command -v strace >/dev/null && unshare -m true 2>/dev/null; then
	OUT=$(unshare -m sh -c 'umount /sys/kernel/debug 2>/dev/null
		strace -f -o "$1/strace" -e trace=mount,umount2 "$2" plan --wide --only sched --profile none \
			--config "$1/s.conf"' sh "$WORK" "$ET_BIN" 2>&1)
	eq "plan [sched]: no mount or umount2 call" "$(grep -c 'mount' "$WORK/strace")" 0
	contains "plan [sched]: the knob is unknown, said why" \
		"debugfs is not mounted on /sys/kernel/debug and plan mounts nothing"
	contains "plan [sched]: a skip" " skip "
	# with debugfs mounted already, plan reads it (and leaves it mounted)
	OUT=$(unshare -m sh -c 'mount -t debugfs none /sys/kernel/debug || exit 9
		strace -f -o "$1/strace" -e trace=mount,umount2 "$2" plan --wide --only sched --profile none \
			--config "$1/s.conf"; grep -c " /sys/kernel/debug " /proc/self/mountinfo' sh "$WORK" "$ET_BIN" 2>&1)
	eq "plan [sched] with debugfs mounted: no mount or umount2 call" "$(grep -c 'mount' "$WORK/strace")" 0
	lacks "plan [sched] with debugfs mounted: not called unmounted" "plan mounts nothing"
	eq "plan [sched] with debugfs mounted: still mounted after" "$(printf '%s\n' "$OUT" | tail -1)" 1
else
	skip "plan [sched] mounts nothing" "needs root, strace and unshare -m"
fi
