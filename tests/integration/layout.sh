# SPDX-License-Identifier: LGPL-2.1-or-later
# The shape of src/: no circle of calls between object files (a table's
# function pointers count as calls: tests/tools/objgraph), no function over
# 60 lines, earlytune.h (the types every layer shares) under 150 lines. Each
# check is first shown to fail on a planted case.
. "$(dirname "$0")/../lib/common.sh"

SRC=$TESTS_DIR/../src
# The objects of the binary under test: BUILD/obj beside BUILD/earlytune.
OBJ=$(dirname "$ET_BIN")/obj
need "the objects of $ET_BIN are in $OBJ" test -d "$OBJ/engine"

# Two objects that call each other: a circle objgraph must report.
mkdir -p "$WORK/objs/a" "$WORK/objs/b"
printf 'int b(int);\nint a(int x) { return x ? b(x - 1) : 0; }\n' >"$WORK/a.c"
printf 'int a(int);\nint b(int x) { return x ? a(x - 1) : 1; }\n' >"$WORK/b.c"
cc -c -o "$WORK/objs/a/a.o" "$WORK/a.c" && cc -c -o "$WORK/objs/b/b.o" "$WORK/b.c"
OUT=$("$TESTS_DIR/tools/objgraph" "$WORK/objs" 2>&1)
eq "objgraph reports a planted circle (exit 1)" "$?" 1
contains "objgraph names the planted circle" "circle of 2: a/a b/b"
OUT=$("$TESTS_DIR/tools/objgraph" "$OBJ" 2>&1)
RC=$?
eq "no circle of calls between the objects of src/" "$RC $OUT" "0 "

# long_functions FILE...: "FILE: N lines: signature" of each function body
# over 60 lines (the style puts a function's braces alone on their lines).
long_functions() {
	awk 'FNR == 1 { inside = 0 }
	!inside { sig2 = sig1; sig1 = $0 }
	/^\{$/ && !inside { inside = 1; start = FNR; name = sig2 }
	/^\}/ && inside { inside = 0; n = FNR - start - 1; if (n > 60) print FILENAME ": " n " lines: " name }' "$@"
}
awk 'BEGIN { print "static int f(void)"; print "{"; for (i = 0; i < 61; i++) print "\tx();"; print "}" }' >"$WORK/long.c"
eq "the length check sees a planted 61-line function" "$(long_functions "$WORK/long.c" | sed 's|.*/||')" \
	"long.c: 61 lines: static int f(void)"
eq "no function of src/ over 60 lines" "$(long_functions "$SRC"/*.c "$SRC"/*/*.c)" ""

n=$(wc -l <"$SRC/earlytune.h")
[ "$n" -lt 150 ] && pass "earlytune.h: $n lines, under 150" || fail "earlytune.h under 150 lines" "$n lines"
