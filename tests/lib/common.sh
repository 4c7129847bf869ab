# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by every integration test: assertions that count, and temp dirs.
# ET is the earlytune binary under test; RESULTS the file counts go to.

set -u
export LC_ALL=C
# The item table's width: 80 (stdout is not a terminal) unless a test sets it.
unset COLUMNS
TESTS_DIR=$(cd "$(dirname "$0")/.." && pwd)
. "$TESTS_DIR/lib/mktree.sh"

_name=$(basename "$0" .sh)
WORK=$(mktemp -d "/tmp/et-$_name.XXXXXX")
# at_exit CMD: CMD runs at exit, before what was registered earlier; the
# JSON check first, the removal of WORK last.
_at_exit='rm -rf "$WORK"'
at_exit() { _at_exit="$1; $_at_exit"; }
trap 'schema_report; eval "$_at_exit"' EXIT

# Every JSON the suite produces is checked against tests/schema (issue 11):
# ET becomes a wrapper that, when --json is among the arguments, keeps the
# run's stdout and arguments under $WORK/.json; schema_report (at exit)
# checks them all in one tests/tools/json-schema-check process (a python
# start per run cost 0.2 s) and turns what it found into one pass or fail.
# ET_BIN stays the binary itself, for what needs the file (size, strace).
# Tools by absolute path: tests run earlytune with a PATH of stubs.
ET_BIN=${ET_BIN:-$ET}
mkdir "$WORK/.json"
cat >"$WORK/.et" <<EOF
#!/bin/sh
case " \$* " in *" --json "*|*" -j "*) ;; *) exec '$ET_BIN' "\$@" ;; esac
_o='$WORK/.json/'\$\$
while [ -e "\$_o" ]; do _o=\$_o.x; done
printf '%s\\0' "\$@" >"\$_o.args"
'$ET_BIN' "\$@" >"\$_o"
_rc=\$?
'$(command -v cat)' "\$_o"
exit \$_rc
EOF
chmod +x "$WORK/.et"
ET=$WORK/.et

schema_report() {
	[ -d "$WORK/.json" ] || return 0
	_n=$(find "$WORK/.json" -name '*.args' | wc -l)
	[ "$_n" -gt 0 ] || return 0
	if _f=$(python3 "$TESTS_DIR/tools/json-schema-check" --batch "$WORK/.json" 2>&1); then
		pass "every --json output matches its schema in tests/schema ($_n checked)"
	else
		fail "every --json output matches its schema in tests/schema ($_n checked)" "$(printf '%s\n' "$_f" | head -20)"
	fi
}

pass() { echo "ok - $_name: $1"; echo pass >>"$RESULTS"; }
# skip DESC WHY: a check this machine cannot run (not root, a kernel without
# the feature); counted and printed as skipped, never as passed. What the
# suite needs from packages is never a skip: .ci/bootstrap installs it, and
# its absence is a failure (need).
skip() { echo "skip - $_name: $1: $2"; echo skip >>"$RESULTS"; }
# need DESC COMMAND...: COMMAND must succeed, or DESC fails and the script ends.
need() {
	_d=$1
	shift
	"$@" >/dev/null 2>&1 && return 0
	fail "$_d" "this failed: $*"
	exit 1
}
fail() { echo "not ok - $_name: $1"; shift; for l in "$@"; do echo "    $l"; done; echo fail >>"$RESULTS"; }

# check DESC EXPECTED_RC -- CMD...: runs CMD, output in $OUT, asserts the exit code.
check_rc() {
	desc=$1 want=$2
	shift 3
	OUT=$("$@" 2>&1)
	RC=$?
	if [ "$RC" = "$want" ]; then
		pass "$desc"
	else
		fail "$desc" "exit $RC, expected $want: $*" "$(printf '%s\n' "$OUT" | head -20)"
	fi
}

# contains DESC NEEDLE: asserts the last command's output contains NEEDLE.
contains() {
	case $OUT in
	*"$2"*) pass "$1" ;;
	*) fail "$1" "output lacks '$2':" "$(printf '%s\n' "$OUT" | head -20)" ;;
	esac
}

lacks() {
	case $OUT in
	*"$2"*) fail "$1" "output has '$2':" "$(printf '%s\n' "$OUT" | head -20)" ;;
	*) pass "$1" ;;
	esac
}

eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	elif [ "$(printf '%s\n' "$2$3" | wc -l)" -gt 2 ]; then
		fail "$1" "differs (expected < > got):" "$(printf '%s\n' "$3" | diff - "$(printf '%s\n' "$2" >"$WORK/.got"; echo "$WORK/.got")" | head -20)"
	else
		fail "$1" "got '$2', expected '$3'"
	fi
}

# golden NAME FILE GOT: GOT is tests/golden/FILE; UPDATE_GOLDEN=1 (not under
# the sanitizers' run) rewrites the file with GOT first.
golden() {
	_want=$TESTS_DIR/golden/$2
	if [ "${UPDATE_GOLDEN:-}" = 1 ] && [ -z "${SAN:-}" ]; then
		printf '%s\n' "$3" >"$_want"
	fi
	if [ "$3" = "$(cat "$_want" 2>/dev/null)" ]; then
		pass "$1 matches golden/$2"
	else
		fail "$1 matches golden/$2" "$(printf '%s\n' "$3" | diff "$_want" - | head -30)"
	fi
}

# Active choice of a selector file ("a [b] c" → b; a lone word → itself).
active() {
	v=$(cat "$1")
	case $v in
	*\[*) v=${v#*[}; v=${v%%]*} ;;
	esac
	echo "$v" | tr -d ' \n'
}

# Snapshot of every attribute under sys/ of a tree: path=active-or-value.
snapshot() {
	(cd "$1" && find sys proc/sys -type f 2>/dev/null | sort | while read -r f; do printf '%s=%s\n' "$f" "$(active "$f")"; done)
}

# The records of a tree (src/engine/state.c, state_one.c): each group (the
# global ones: originals; a disk's: disks/NAME; an interface's:
# links/IFINDEX) from its override file when there is one, else from its
# lines of the one file (records: header, index of KEY OFFSET LENGTH, then
# the lines); originals first, then the others by name.
# state_records takes the state directory itself (a netns test's /run/earlytune).
state_records() { state_keyed "$1" | cut -f2-; }
# The same, each line after its group's key and a tab.
state_keyed() {
	(
		cd "$1" 2>/dev/null || exit 0
		_ov=$(find originals disks links -maxdepth 1 -type f ! -name '.*' 2>/dev/null)
		{
			[ -z "$_ov" ] || awk '{ print FILENAME "\t" $0 }' $_ov
			[ ! -f records ] || awk -v ov="$_ov" '
			BEGIN { n = split(ov, o, "\n"); for (i = 1; i <= n; i++) over[o[i]] = 1 }
			NR == 1 { split($0, h, "\t"); ilen = h[3] + 0; pos = 0; g = 1; next }
			pos < ilen { pos += length($0) + 1; split($0, e, "\t"); k[++ne] = e[1]; end[ne] = e[2] + e[3]; next }
			{
				while (g < ne && b >= end[g]) g++
				b += length($0) + 1
				if (!(k[g] in over)) print k[g] "\t" $0
			}' records
		} | awk -F'\t' '{ print ($1 == "originals" ? 0 : 1) "\t" $0 }' | sort -s -t "$(printf '\t')" -k1,2 | cut -f2-
	)
	return 0
}
records() { state_records "$1/run/earlytune"; }

json_ok() {
	if printf '%s' "$OUT" | python3 -m json.tool >/dev/null 2>&1; then pass "$1"; else fail "$1" "not valid JSON" "$OUT"; fi
}

# The real-sysfs captures of ../shared beside the checkout (or one level
# further up, for a worktree); fails when there are none.
real_sysfs_dir() {
	for _up in ../.. ../../..; do
		_d=$(cd "$TESTS_DIR/$_up" 2>/dev/null && pwd)/shared/fixtures/real-sysfs
		[ -d "$_d" ] && { echo "$_d"; return 0; }
	done
	return 1
}

# host_lock: holds, until the script ends, the lock of this machine's block
# devices (loop devices, device-mapper): the scripts that set up real ones
# (realsysfs, originals, stacked, readahead) run in parallel with the
# others, not with each other (losetup -f could take another's loop0; a new
# dm device would show in another's snapshot).
host_lock() {
	exec 9>/run/lock/earlytune-tests-blockdev.lock
	flock 9
}

# netns_setup NAME: a network namespace of the script's own, $ns (NAME-PID,
# deleted at exit), and $state, a directory for its records; the script
# ends, a skip, without root, ip and tc.
netns_setup() {
	if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
		skip "network namespaces" "need root, ip and tc"
		exit 0
	fi
	ns=$1-$$
	state=$WORK/state
	mkdir -p "$state" /run/earlytune
	ip netns add "$ns" || { fail "create a network namespace"; exit 0; }
	at_exit 'ip netns del "$ns" 2>/dev/null'
}
nsx() { ip netns exec "$ns" "$@"; }
# in_ns CMD...: CMD in the namespace, $state bind-mounted over /run/earlytune
# in the private mount namespace `ip netns exec` makes (the host's stays).
in_ns() { ip netns exec "$ns" sh -c 'mount --bind "$0" /run/earlytune && exec "$@"' "$state" "$@"; }

# free_loop: a loop device of loop7..loop2 with no backing file and a
# read-ahead that can be set (under host_lock); nothing when none is.
free_loop() {
	for _n in 7 6 5 4 3 2; do
		if [ -w /sys/block/loop$_n/queue/read_ahead_kb ] &&
			[ -z "$(cat /sys/block/loop$_n/loop/backing_file 2>/dev/null)" ]; then
			echo loop$_n
			return
		fi
	done
}

# writers ITEM_SETTING TARGET: "tool file:line value wins" per writer of the
# item in $OUT, a plan's or verify's --json.
writers() {
	printf '%s' "$OUT" | python3 -c 'import json, sys
for it in json.load(sys.stdin)["items"]:
    if it["setting"] == sys.argv[1] and it["target"] == sys.argv[2]:
        for w in it["writers"]:
            print(w["tool"], "%s:%d" % (w["file"], w["line"]), w["value"], w["wins"])' "$1" "$2"
}
