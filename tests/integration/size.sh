# SPDX-License-Identifier: LGPL-2.1-or-later
# The shipped binary: statically linked, and at most 1.7 MiB once stripped
# (a libc function can drag hundreds of KB in: glob(3) once did), on amd64
# and on arm64 (make ARCH=arm64, stripped by the cross toolchain's strip).
. "$(dirname "$0")/../lib/common.sh"

OUT=$(file "$ET_BIN")
contains "the binary is statically linked" "statically linked"
case $OUT in
*"ARM aarch64"*) strip=aarch64-linux-gnu-strip ;;
*) strip=strip ;;
esac
max=1782579 bound="1.7 MiB"
need "$strip is installed (.ci/bootstrap)" command -v "$strip"
"$strip" -o "$WORK/et" "$ET_BIN"
size=$(stat -c %s "$WORK/et")
[ "$size" -le "$max" ]; eq "stripped size $size bytes ≤ $bound" $? 0

# tools/hot-symbols, the order lld lays a udev run's functions out in, kept
# up to date: every function of earlytune's such a run calls now
# (tools/hot-symbols.sh on this binary) is on the committed list — else
# `make hot-symbols`. The
# arm64 binary is linked by GNU ld, without the list.
case $OUT in
*"ARM aarch64"*) ;;
*)
	if command -v valgrind >/dev/null; then
		"$TESTS_DIR/../tools/hot-symbols.sh" "$ET_BIN" >"$WORK/hot" 2>"$WORK/hot.err"
		eq "tools/hot-symbols.sh ran on the binary" "$?:$(cat "$WORK/hot.err")" "0:"
		# earlytune's own: which of glibc's internals (_IO_padn) a run calls
		# moves with what it prints
		grep -Fvxf "$TESTS_DIR/../tools/hot-symbols" "$WORK/hot" | grep -v '^_' >"$WORK/missing"
		eq "every function of earlytune's a udev run calls is in tools/hot-symbols (make hot-symbols)" \
			"$(head -5 "$WORK/missing" | tr '\n' ' ')" ""
	fi
	;;
esac
