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
trap 'schema_report; rm -rf "$WORK"' EXIT

# Every JSON the suite produces is checked against tests/schema (issue 11):
# ET becomes a wrapper that, when --json is among the arguments, passes the
# run's stdout through tests/tools/json-schema-check; schema_report (at exit)
# turns what it found into one pass or fail. ET_BIN stays the binary itself,
# for what needs the file (size, strace). Tools by absolute path: tests run
# earlytune with a PATH of stubs.
ET_BIN=${ET_BIN:-$ET}
{
	echo '#!/bin/sh'
	echo "case \" \$* \" in *\" --json \"*|*\" -j \"*) ;; *) exec '$ET_BIN' \"\$@\" ;; esac"
	echo "_o='$WORK/.json.'\$\$"
	echo "'$ET_BIN' \"\$@\" >\"\$_o\""
	echo "_rc=\$?"
	echo "'$(command -v cat)' \"\$_o\""
	echo "echo checked >>'$WORK/.schema-checked'"
	echo "'$(command -v python3)' '$TESTS_DIR/tools/json-schema-check' \"\$_o\" \"\$@\" >>'$WORK/.schema-failures' 2>&1"
	echo "'$(command -v rm)' -f \"\$_o\""
	echo "exit \$_rc"
} >"$WORK/.et"
chmod +x "$WORK/.et"
ET=$WORK/.et

schema_report() {
	[ -s "$WORK/.schema-checked" ] || return 0
	_n=$(wc -l <"$WORK/.schema-checked")
	if [ -s "$WORK/.schema-failures" ]; then
		fail "every --json output matches its schema in tests/schema ($_n checked)" "$(head -20 "$WORK/.schema-failures")"
	else
		pass "every --json output matches its schema in tests/schema ($_n checked)"
	fi
}

pass() { echo "ok - $_name: $1"; echo pass >>"$RESULTS"; }
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

# The records of a tree (src/state.c): the global ones (originals), then
# each disk's (disks/NAME) and each interface's (links/IFINDEX), by name.
# state_records takes the state directory itself (a netns test's /run/earlytune).
state_records() {
	for _r in "$1/originals" $(ls -d "$1"/disks/* "$1"/links/* 2>/dev/null | sort); do
		[ -f "$_r" ] && cat "$_r"
	done
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
