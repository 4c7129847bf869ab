# SPDX-License-Identifier: LGPL-2.1-or-later
# The shipped binary links zstd's decoder built small (no legacy formats, no
# BMI2 twins; see the Makefile): it must decode what zstd(1) makes at the
# levels distributions compress kernel modules with (Ubuntu, Arch: -19 and
# --ultra -22 with long windows off; the kernel's Makefile: -T0 --ultra -22).
. "$(dirname "$0")/../lib/common.sh"

zcat=$(dirname "$ET_BIN")/zstdcat
[ -x "$zcat" ] || zcat=$(dirname "$ET_BIN")/../zstdcat
[ -x "$zcat" ] || { fail "build/zstdcat is built by make check"; exit 0; }
command -v zstd >/dev/null || { fail "zstd is installed (.ci/bootstrap)"; exit 0; }

# A real ELF of the size of a large module, and text.
cp "$ET_BIN" "$WORK/sample"
for level in -3 -19 "--ultra -22"; do
	# shellcheck disable=SC2086
	zstd -q -f $level -o "$WORK/sample.zst" "$WORK/sample"
	"$zcat" <"$WORK/sample.zst" >"$WORK/out"
	eq "decodes a frame made with zstd $level" "$?:$(cmp -s "$WORK/sample" "$WORK/out"; echo $?)" "0:0"
done
head -c 100000 "$WORK/sample.zst" >"$WORK/cut.zst"
"$zcat" <"$WORK/cut.zst" >/dev/null 2>&1
[ $? -ne 0 ]; eq "a truncated frame is an error" $? 0
