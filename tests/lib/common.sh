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
trap 'rm -rf "$WORK"' EXIT

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
