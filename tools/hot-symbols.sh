#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tools/hot-symbols.sh EARLYTUNE > tools/hot-symbols: the functions a udev
# run executes (`--boot apply --device` on a virtio disk, with and without
# its records yet, and again when it is tuned), for the linker to lay out
# side by side at the start of the text; then the small variables, laid out
# before the large ones.
#
# Why: a udev run's cost beside a bare exec is mostly page faults, and each
# first touch of a 64 KiB window of the binary's text is one (the kernel maps
# a window per fault). Scattered over 1.3 MiB, the code of a udev run took
# 16 faults; together it takes 5. The list names glibc's functions as
# well as earlytune's: a static binary's glibc is laid out by the same list.
#
# Callgrind runs the code on its own virtual CPU, whose features pick other
# variants of glibc's string functions than a real CPU does: every variant
# of a function the run called is listed (the CPU picks one at start-up),
# and every IFUNC resolver (all of them run at start-up).
set -eu
et=${1:?usage: tools/hot-symbols.sh EARLYTUNE}
command -v valgrind >/dev/null || { echo "tools/hot-symbols.sh: needs valgrind" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

t=$tmp/root
mkdir -p "$t/run" "$t/proc/sys/kernel"
echo 6.1.0-test >"$t/proc/sys/kernel/osrelease"
echo root=/dev/vda1 >"$t/proc/cmdline"
: >"$t/proc/modules"
for i in 0 1 2 3; do
	d=$t/sys/block/vd$i
	mkdir -p "$d/queue" "$d/device"
	echo '[mq-deadline] kyber none' >"$d/queue/scheduler"
	echo 8192 >"$d/queue/read_ahead_kb"
	echo 1 >"$d/queue/rotational"
	echo $((i + 1)) >"$d/diskseq"
	ln -s ../../../bus/virtio/drivers/virtio_blk "$d/device/driver"
done

run() { # NAME: the functions of one run of vd2, one per line
	valgrind --tool=callgrind --callgrind-out-file="$tmp/$1.cg" "$et" --boot apply --only block --root "$t" --device vd2 \
		>/dev/null 2>&1
	# --boot exits 0 whatever happens: the tree says whether it ran
	[ "$(cat "$t/sys/block/vd2/queue/scheduler")" = none ] || { echo "tools/hot-symbols.sh: $et did not tune vd2" >&2; exit 1; }
	callgrind_annotate --auto=no --threshold=100 "$tmp/$1.cg" |
		sed -n 's/^ *[0-9,][0-9,]* *([ 0-9.]*%) *//p' | sed 's/ \[.*//; s/^.*://; s/\.\(constprop\|isra\|part\|cold\)\.[0-9]*$//' |
		grep -v '^(below\|^0x\|^PROGRAM'
}
untune() { echo '[mq-deadline] kyber none' >"$t/sys/block/vd2/queue/scheduler" && echo 8192 >"$t/sys/block/vd2/queue/read_ahead_kb"; }
{
	run first # no records yet: the first udev event of a boot
	untune
	"$et" apply --only block --root "$t" >/dev/null 2>&1
	untune
	run recorded
	run steady
} >"$tmp/funcs"

nm "$et" | awk '$2 ~ /^[tTiW]$/ { print $3 }' | sort -u >"$tmp/all"
# glibc's variants: __strlen_avx2 → every __strlen_*, strlen_ifunc; they
# come after the rest, grouped by the CPU features that pick them (a CPU
# runs one group: the others stay out of the windows it touches)
variant='_(avx|sse|evex|erms|ssse3)'
grep -E "$variant" "$tmp/funcs" | sed -E "s/^_*([a-z0-9]*)${variant}.*/\\1/" | sort -u >"$tmp/families"
while read -r f; do grep -E "^_*${f}(_|$)" "$tmp/all" || true; done <"$tmp/families" | grep -v '_ifunc$' >"$tmp/variants"
{
	grep -Ev "$variant" "$tmp/funcs" | sort -u
	# start-up and exit code callgrind does not name (their page faults do)
	printf '%s\n' frame_dummy register_tm_clones deregister_tm_clones __do_global_dtors_aux \
		___pthread_mutex_lock ___pthread_mutex_unlock __pthread_mutex_unlock_usercnt
	grep '_ifunc$' "$tmp/all"
	for isa in 'evex|avx512' 'avx' 'sse|ssse3'; do grep -E "_($isa)" "$tmp/variants" || true; done
	cat "$tmp/variants"
} | awk '!seen[$0]++' >"$tmp/listed"
# A name lld finds in more than one object moves them all: glibc's static
# read_int brought vfscanf's 35 KiB along with vfprintf. Such a name is kept
# only when earlytune defines it (its functions have sections of their own).
nm "$et" | awk '$2 ~ /^[tT]$/ { print $3 }' | sort | uniq -d >"$tmp/twice"
while read -r f; do
	if ! grep -qx "$f" "$tmp/twice" || grep -rqE "^[a-z].*[ *]$f\(" "${src:-$(dirname "$0")/../src}"; then echo "$f"; fi
done <"$tmp/listed" >"$tmp/hot"
# Then every small variable (64 bytes or less): they go before the buffers
# and tables, where a run touches a few pages of them and not one page each
# (the log's three flags sat 8 KiB apart, between its buffers).
nm -S "$et" | while read -r _ size type name; do
	case $type in [bBdD]) if [ $((0x$size)) -le 64 ]; then echo "$name"; fi ;; esac
done >"$tmp/small"
# GCC's clones (apply_plan.constprop.0) by the name they were cloned from
sed 's/\.\(constprop\|isra\|part\|cold\)\.[0-9]*$//' "$tmp/all" | paste - "$tmp/all" |
	awk 'NR == FNR { hot[$0] = NR; next } ($1 in hot) { print hot[$1], $2 }' "$tmp/hot" - | sort -n -s -k1,1 | cut -d' ' -f2
cat "$tmp/small"
