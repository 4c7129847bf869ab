# SPDX-License-Identifier: LGPL-2.1-or-later
# The result lines of a step script that tests/check runs whole
# (tests/package.sh, tests/arm64.sh): "ok - NAME: …", "not ok - NAME: …"
# with its detail lines indented, skips marked "# SKIP", and at exit W (the
# script's temporary directory) removed and the summary "SUMMARY: N passed,
# N failed[, N skipped]"; the exit status 0 only when something passed and
# nothing failed. Sourced after setting TAP_NAME, TAP_SUMMARY and W.
PASS=0 FAIL=0 SKIP=0
skip() { echo "ok - $TAP_NAME: $1 # SKIP $2"; SKIP=$((SKIP + 1)); }
pass() { echo "ok - $TAP_NAME: $1"; PASS=$((PASS + 1)); }
fail() { echo "not ok - $TAP_NAME: $1"; shift; for l in "$@"; do echo "    $l"; done; FAIL=$((FAIL + 1)); }
ok() { # DESC STATUS [DETAIL…]: pass when STATUS is 0
	d=$1 s=$2
	shift 2
	if [ "$s" = 0 ]; then pass "$d"; else fail "$d" "$@"; fi
}
finish() {
	rm -rf "$W"
	if [ "$SKIP" -gt 0 ]; then
		echo "$TAP_SUMMARY: $PASS passed, $FAIL failed, $SKIP skipped"
	else
		echo "$TAP_SUMMARY: $PASS passed, $FAIL failed"
	fi
	[ "$FAIL" = 0 ] && [ "$PASS" -gt 0 ]
}
trap 'finish; exit $?' EXIT
