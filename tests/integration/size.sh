# SPDX-License-Identifier: LGPL-2.1-or-later
# The shipped binary: statically linked, and at most 1.7 MiB once stripped
# (a libc function can drag hundreds of KB in: glob(3) once did).
. "$(dirname "$0")/../lib/common.sh"

OUT=$(file "$ET_BIN")
contains "the binary is statically linked" "statically linked"
strip -o "$WORK/et" "$ET_BIN"
size=$(stat -c %s "$WORK/et")
[ "$size" -le 1782579 ]; eq "stripped size $size bytes ≤ 1.7 MiB" $? 0
