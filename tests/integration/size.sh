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
