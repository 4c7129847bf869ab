# SPDX-License-Identifier: LGPL-2.1-or-later
# The shape of src/: no circle of calls between object files (a table's
# function pointers count as calls: tests/tools/objgraph), no function over
# 60 lines, no file over 500, earlytune.h (the types every layer shares)
# under 150 lines, no domain named in engine/ or base/. Each check is first
# shown to fail on a planted case.
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

# over_500 FILE...: "FILE: N lines" of each file over 500 lines
over_500() { wc -l "$@" | awk '$2 != "total" && $1 > 500 { sub(".*/", "", $2); print $2 ": " $1 " lines" }'; }
awk 'BEGIN { for (i = 0; i < 501; i++) print "x" }' >"$WORK/big.c"
eq "the size check sees a planted 501-line file" "$(over_500 "$WORK/big.c" "$WORK/long.c")" "big.c: 501 lines"
eq "no source file of src/ over 500 lines" "$(over_500 "$SRC"/*.[ch] "$SRC"/*/*.[ch])" ""

n=$(wc -l <"$SRC/earlytune.h")
[ "$n" -lt 150 ] && pass "earlytune.h: $n lines, under 150" || fail "earlytune.h under 150 lines" "$n lines"

# The engine and base know no domain: no domain's name as a string, no
# include of a domain's folder, no DOM_* bit, no call into a domain's
# objects. The domains are the folders src/domains.c (the table, which sits
# above them) includes.
DOMAIN_DIRS=$(sed -n 's|^#include "\([a-z]*\)/.*|\1|p' "$SRC/domains.c" | sort -u | grep -vx 'engine' | tr '\n' ' ')
DOMAIN_NAMES=$(sed -n 's|.*\.name = "\([a-z]*\)".*|\1|p' "$SRC/domains.c" | tr '\n' ' ')
need "src/domains.c names its domains and their folders" test -n "$DOMAIN_DIRS" -a -n "$DOMAIN_NAMES"
# names_domain FILE...: "FILE: line" of each code line (comments stripped) naming a domain
names_domain() {
	local f re
	re="\"($(echo $DOMAIN_NAMES | tr ' ' '|'))\"|#include \"($(echo $DOMAIN_DIRS | tr ' ' '|'))/|\bDOM_[A-Z]+"
	for f in "$@"; do
		gcc -fpreprocessed -dD -E -P "$f" 2>/dev/null | grep -E "$re" | sed "s|^|${f##*/}: |"
	done
}
# calls_domain OBJDIR: "OBJ: SYMBOL" of each engine/ or base/ object using a
# symbol a domain's object defines
calls_domain() {
	local d o
	for d in $DOMAIN_DIRS; do [ -d "$1/$d" ] && nm --defined-only "$1/$d"/*.o; done |
		awk '$2 ~ /^[TDBR]$/ { print $3 }' | sort -u >"$WORK/domain-symbols"
	for o in "$1"/engine/*.o "$1"/base/*.o; do
		[ -e "$o" ] || continue
		nm --undefined-only "$o" | awk '{ print $2 }' | sort -u | comm -12 - "$WORK/domain-symbols" |
			sed "s|^|${o#$1/}: |"
	done
}
printf 'static const char *d = "%s";\n/* "%s" in a comment is fine */\n' "${DOMAIN_NAMES%% *}" "${DOMAIN_NAMES%% *}" >"$WORK/planted.c"
eq "the domain check sees a planted domain name" "$(names_domain "$WORK/planted.c")" \
	"planted.c: static const char *d = \"${DOMAIN_NAMES%% *}\";"
first_dir=${DOMAIN_DIRS%% *}
mkdir -p "$WORK/pobj/engine" "$WORK/pobj/$first_dir"
printf 'int dom_fn(void) { return 1; }\n' >"$WORK/dom.c"
printf 'int dom_fn(void);\nint eng(void) { return dom_fn(); }\n' >"$WORK/eng.c"
cc -c -o "$WORK/pobj/$first_dir/dom.o" "$WORK/dom.c" && cc -c -o "$WORK/pobj/engine/eng.o" "$WORK/eng.c"
eq "the domain check sees a planted call from engine/ into $first_dir/" "$(calls_domain "$WORK/pobj")" "engine/eng.o: dom_fn"
eq "no file of engine/ or base/ names a domain ($DOMAIN_NAMES)" \
	"$(names_domain "$SRC"/engine/*.[ch] "$SRC"/base/*.[ch])" ""
eq "no object of engine/ or base/ calls into a domain's folder ($DOMAIN_DIRS)" "$(calls_domain "$OBJ")" ""
