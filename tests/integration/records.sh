# SPDX-License-Identifier: LGPL-2.1-or-later
# The records' layout (issue 28): a run about everything keeps every record
# in one file (run/earlytune/records, with an index); a run about one
# device writes that device's override file (disks/NAME, links/N: the
# files an earlier version wrote), which replaces the device's lines of the
# one file, and an empty one is a tombstone; the next run about everything
# folds the overrides into the one file and removes them. Records an earlier
# version left (per-device files, or every record in originals) are kept
# and reverted right, after a full run and after a scoped one.
. "$(dirname "$0")/../lib/common.sh"

# Three disks with a diskseq each (the identity today's kernels give) and THP.
mk_three() {
	mk_base "$1" 6.1.0-28-cloud-amd64 yes QEMU "root=/dev/vda1"
	mk_disk "$1" vda virtio_blk "[mq-deadline] kyber none" 8192 1 256
	mk_disk "$1" vdb virtio_blk "[mq-deadline] kyber none" 4096 1 256
	mk_disk "$1" sda sd "[mq-deadline] none" 4096 1 64
	for _i in 1 2 3; do
		_n=$(echo vda vdb sda | cut -d' ' -f$_i)
		printf '%s\n' $_i >"$1/sys/devices/virtual/block/$_n/diskseq"
	done
	mk_thp "$1"
}
# The files of records (the lock and the run log aside), by name.
files() { (cd "$1/run/earlytune" 2>/dev/null && find . -type f ! -name lock ! -name 'runs*' | sed 's|^\./||' | sort | tr '\n' ' '); }
ra() { cat "$1/sys/block/$2/queue/read_ahead_kb"; }
sched() { active "$1/sys/block/$2/queue/scheduler"; }

t0=$WORK/clean
mk_three "$t0"
before=$(snapshot "$t0")

# ---- a full run: one file, nothing per device -------------------------------
t=$WORK/full
cp -a "$t0" "$t"
check_rc "full: apply" 0 -- "$ET" apply --root "$t"
after=$(snapshot "$t")
records "$t" | sort >"$WORK/full.records"
eq "full: every record in the one file, no file per device" "$(files "$t")" "records "
eq "full: $(wc -l <"$WORK/full.records") records: each disk's two and THP's" \
	"$(cut -f2 "$WORK/full.records" | sort | uniq -c | tr -s ' ' | tr '\n' ',')" " 2 sda, 2 thp, 2 vda, 2 vdb,"
eq "full: its index names each group once, sorted" "$(sed -n '2,5p' "$t/run/earlytune/records" | cut -f1 | tr '\n' ' ')" \
	"disks/sda disks/vda disks/vdb originals "
cp "$t/run/earlytune/records" "$WORK/full.one"
check_rc "full: a second apply" 0 -- "$ET" apply --root "$t"
eq "full: a second apply rewrites nothing" "$(cmp "$t/run/earlytune/records" "$WORK/full.one" && echo same)" same
check_rc "full: revert" 0 -- "$ET" revert --root "$t"
eq "full: revert restores every original" "$(snapshot "$t")" "$before"
eq "full: and leaves no file of records" "$(files "$t")" ""

# ---- the files an earlier version left ----------------------------------
# This version's records, laid out as today's per-device files (each group
# in its file) and as the older all-in-originals (five fields, no identity).
as_files() { # TREE: the one file split into per-device files
	state_keyed "$1/run/earlytune" | awk -F'\t' -v d="$1/run/earlytune" '{
		f = d "/" $1; sub(/^[^\t]*\t/, ""); print > f }'
	rm "$1/run/earlytune/records"
}
for layout in files originals; do
	for first in full scoped; do
		t=$WORK/up-$layout-$first
		cp -a "$WORK/full.tuned" "$t" 2>/dev/null || {
			cp -a "$t0" "$WORK/full.tuned"
			"$ET" apply --root "$WORK/full.tuned" >/dev/null
			cp -a "$WORK/full.tuned" "$t"
		}
		mkdir -p "$t/run/earlytune/disks"
		case $layout in
		files) as_files "$t" ;;
		originals)
			records "$t" | cut -f1-5 >"$WORK/old"
			rm -rf "$t/run/earlytune/records" "$t/run/earlytune/disks"
			cp "$WORK/old" "$t/run/earlytune/originals"
			;;
		esac
		n=$(records "$t" | wc -l)
		case $first in
		full)
			check_rc "upgrade from $layout: a full apply" 0 -- "$ET" apply --root "$t"
			eq "upgrade from $layout: the full apply folds them into the one file" "$(files "$t")" "records "
			eq "upgrade from $layout: every record kept" "$(records "$t" | cut -f1-5 | sort)" \
				"$(cut -f1-5 "$WORK/full.records")"
			;;
		scoped)
			check_rc "upgrade from $layout: --boot apply --device vdb" 0 -- "$ET" --boot apply --root "$t" --device vdb
			eq "upgrade from $layout: after a scoped run, every record kept" "$(records "$t" | wc -l)" "$n"
			check_rc "upgrade from $layout: revert --device vda" 0 -- "$ET" revert --root "$t" --device vda
			eq "upgrade from $layout: vda's originals back" "$(sched "$t" vda) $(ra "$t" vda)" "mq-deadline 8192"
			eq "upgrade from $layout: vdb still tuned" "$(sched "$t" vdb) $(ra "$t" vdb)" "none 1024"
			eq "upgrade from $layout: the others' records kept" "$(records "$t" | wc -l)" $((n - 2))
			;;
		esac
		check_rc "upgrade from $layout, $first run first: revert" 0 -- "$ET" revert --root "$t"
		eq "upgrade from $layout, $first run first: revert restores every original" "$(snapshot "$t")" "$before"
		eq "upgrade from $layout, $first run first: no record left" "$(records "$t")" ""
	done
done

# ---- an override wins; an empty one is a tombstone ------------------------------
t=$WORK/override
cp -a "$WORK/full.tuned" "$t"
mkdir -p "$t/run/earlytune/disks"
grep "	vda	queue/read_ahead_kb	" "$WORK/full.records" | sed 's/\t8192\t/\t2222\t/' >"$t/run/earlytune/disks/vda"
eq "override: vda's records are its override's" "$(records "$t" | grep '	vda	' | cut -f3,5 | tr '\t\n' '= ')" \
	"queue/read_ahead_kb=2222 "
check_rc "override: revert --device vda" 0 -- "$ET" revert --root "$t" --device vda
eq "override: the override's original written, the one file's lines not" "$(sched "$t" vda) $(ra "$t" vda)" "none 2222"
eq "override: vda's lines are gone: its file says so (empty)" "$(files "$t"; wc -c <"$t/run/earlytune/disks/vda")" \
	"disks/vda records 0"
check_rc "override: revert" 0 -- "$ET" revert --root "$t"
eq "override: the others restored, vda left alone" "$(sched "$t" vdb) $(ra "$t" vdb) $(sched "$t" vda) $(ra "$t" vda)" \
	"mq-deadline 4096 none 2222"
eq "override: no file of records left" "$(files "$t")" ""

t=$WORK/tombstone
cp -a "$WORK/full.tuned" "$t"
check_rc "tombstone: forget --device vda" 0 -- "$ET" --boot forget --root "$t" --device vda
eq "tombstone: vda's file, empty, beside the one file with vda's lines" \
	"$(files "$t"; wc -c <"$t/run/earlytune/disks/vda"; grep -c '	vda	' "$t/run/earlytune/records")" "disks/vda records 0
2"
eq "tombstone: vda has no records" "$(records "$t" | grep -c '	vda	')" 0
check_rc "tombstone: a full apply" 0 -- "$ET" apply --root "$t"
eq "tombstone: folded: the one file alone, vda's lines gone" \
	"$(files "$t"; grep -c '	vda	' "$t/run/earlytune/records")" "records 0"
check_rc "tombstone: revert" 0 -- "$ET" revert --root "$t"
eq "tombstone: vda left as it is, the others restored" "$(sched "$t" vda) $(ra "$t" vda) $(sched "$t" vdb)" \
	"none 1024 mq-deadline"

# ---- a scoped run's override, folded by the next full run ------------------------
t=$WORK/fold
cp -a "$WORK/full.tuned" "$t"
"$ET" --boot forget --root "$t" --device vdb 2>/dev/null
printf '[mq-deadline] kyber none\n' >"$t/sys/block/vdb/queue/scheduler"
printf '3072\n' >"$t/sys/block/vdb/queue/read_ahead_kb"
check_rc "fold: --boot apply --device vdb" 0 -- "$ET" --boot apply --root "$t" --device vdb
eq "fold: vdb's records in its override" "$(files "$t"; cut -f5 "$t/run/earlytune/disks/vdb" | tr '\n' ' ')" \
	"disks/vdb records mq-deadline 3072 "
if command -v strace >/dev/null; then
	# Killed after the one file's rename, before the override's unlink:
	# the override stays and still wins, with the same lines.
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -o /dev/null \
		-e inject=unlinkat:signal=SIGKILL:when=1 "$ET_BIN" apply --root "$t" >/dev/null 2>&1
	eq "fold: killed at the override's unlink: both there" "$(files "$t")" "disks/vdb records "
	eq "fold: …holding the same lines" "$(grep '	vdb	' "$t/run/earlytune/records" | cut -f5 | tr '\n' ' ')" \
		"mq-deadline 3072 "
fi
check_rc "fold: a full apply" 0 -- "$ET" apply --root "$t"
eq "fold: the override folded into the one file and removed" \
	"$(files "$t"; grep '	vdb	' "$t/run/earlytune/records" | cut -f5 | tr '\n' ' ')" "records mq-deadline 3072 "
check_rc "fold: revert" 0 -- "$ET" revert --root "$t"
eq "fold: vdb's override original restored" "$(sched "$t" vdb) $(ra "$t" vdb)" "mq-deadline 3072"

# ---- the one file is ours: one we did not write is an error, not "nothing" ------
t=$WORK/bad
cp -a "$WORK/full.tuned" "$t"
sed -i '1s/\t1\t/\t9\t/' "$t/run/earlytune/records"
printf '8192\n' >"$t/sys/block/vda/queue/read_ahead_kb"
check_rc "bad: apply over a file of records it cannot read fails" 1 -- "$ET" apply --root "$t"
contains "bad: says why" "Bad message"
check_rc "bad: so does apply --device" 1 -- "$ET" apply --root "$t" --device vda
eq "bad: nothing written" "$(ra "$t" vda)" 8192

# ---- a scoped run's new records: appended, or a new file; taken back on failure ---
# A record is written before its change, so an append that a crash tears
# tears the line of a change never made: the reader drops it. Without
# strace there is no telling an append from a rename: those cases need it.
renames() { strace -f -o "$WORK/rn" -e trace=rename,renameat,renameat2 "$@" >/dev/null 2>&1; grep -c '^[0-9]* *rename' "$WORK/rn"; }
t=$WORK/append
cp -a "$WORK/full.tuned" "$t"
"$ET" --boot forget --root "$t" --device vdb 2>/dev/null
grep "	vdb	queue/scheduler	" "$WORK/full.records" >"$t/run/earlytune/disks/vdb"
cp "$t/run/earlytune/disks/vdb" "$WORK/vdb.one"
printf '3072\n' >"$t/sys/block/vdb/queue/read_ahead_kb"
if command -v strace >/dev/null; then
	eq "append: a run that adds a record to its disk's file renames nothing" \
		"$(renames "$ET_BIN" --boot apply --root "$t" --device vdb)" 0
	eq "append: the file's line kept byte for byte, the new one after it" \
		"$(head -n 1 "$t/run/earlytune/disks/vdb" | cmp - "$WORK/vdb.one" && tail -n +2 "$t/run/earlytune/disks/vdb" | cut -f3,5)" \
		"queue/read_ahead_kb	3072"
	mk_disk "$t" vdc virtio_blk "[mq-deadline] kyber none" 2048 1 256
	eq "new: a disk no file has a line of gets its own, not through a rename" \
		"$(renames "$ET_BIN" --boot apply --root "$t" --device vdc)" 0
	eq "new: its two records" "$(cut -f3,5 "$t/run/earlytune/disks/vdc" | tr '\t\n' '= ')" \
		"queue/scheduler=mq-deadline queue/read_ahead_kb=2048 "
	# /run full at the append: what it added is taken back, nothing is tuned
	"$ET" --boot forget --root "$t" --device vdb 2>/dev/null
	grep "	vdb	queue/scheduler	" "$WORK/full.records" >"$t/run/earlytune/disks/vdb"
	printf '[mq-deadline] kyber none\n' >"$t/sys/block/vdb/queue/scheduler"
	printf '3072\n' >"$t/sys/block/vdb/queue/read_ahead_kb"
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -o /dev/null \
		-e inject=write:error=ENOSPC:when=1 "$ET_BIN" apply --root "$t" --device vdb >/dev/null 2>&1
	eq "full /run: the file as it was" "$(cmp "$t/run/earlytune/disks/vdb" "$WORK/vdb.one" && echo same)" same
	eq "full /run: vdb not tuned" "$(sched "$t" vdb) $(ra "$t" vdb)" "mq-deadline 3072"
	printf '[mq-deadline] kyber none\n' >"$t/sys/block/vdc/queue/scheduler"
	"$ET" --boot forget --root "$t" --device vdc 2>/dev/null
	rm -f "$t/run/earlytune/disks/vdc"
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -o /dev/null \
		-e inject=write:error=ENOSPC:when=1 "$ET_BIN" apply --root "$t" --device vdc >/dev/null 2>&1
	eq "full /run: a new file that cannot be written whole is not left" "$(files "$t")" "disks/vdb records "
	eq "full /run: vdc not tuned" "$(sched "$t" vdc)" mq-deadline
fi
# A disk the one file has lines of, with a record to add: its file is made
# by a replace, never created empty first (killed between the create and
# the write, that empty file would be a tombstone: its lines gone).
if command -v strace >/dev/null; then
	k=$WORK/kill
	cp -a "$t0" "$k"
	printf '%s\n' "$(ra "$WORK/full.tuned" vdb)" >"$k/sys/block/vdb/queue/read_ahead_kb"
	"$ET" apply --root "$k" >/dev/null 2>&1
	printf '3072\n' >"$k/sys/block/vdb/queue/read_ahead_kb"
	eq "kill: vdb has one line in the one file" "$(records "$k" | grep '	vdb	' | cut -f3,5)" "queue/scheduler	mq-deadline"
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -o /dev/null \
		-e inject=write:signal=SIGKILL:when=1 "$ET_BIN" apply --root "$k" --device vdb >/dev/null 2>&1
	eq "kill: killed at the write of vdb's new record: its line still there" \
		"$(records "$k" | grep '	vdb	' | cut -f3,5)" "queue/scheduler	mq-deadline"
	check_rc "kill: apply --device vdb again" 0 -- "$ET" apply --root "$k" --device vdb
	# a disk no file has a line of: its file is created, and killed before
	# its write it stays empty, which hides nothing
	mk_disk "$k" vdc virtio_blk "[mq-deadline] kyber none" 2048 1 256
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -o /dev/null \
		-e inject=write:signal=SIGKILL:when=1 "$ET_BIN" apply --root "$k" --device vdc >/dev/null 2>&1
	eq "kill: killed at the write of a new disk's file: vdc untuned" "$(sched "$k" vdc) $(ra "$k" vdc)" "mq-deadline 2048"
	check_rc "kill: apply --device vdc again" 0 -- "$ET" apply --root "$k" --device vdc
	check_rc "kill: revert" 0 -- "$ET" revert --root "$k"
	eq "kill: vdb's and vdc's originals back" "$(sched "$k" vdb) $(ra "$k" vdb) $(sched "$k" vdc) $(ra "$k" vdc)" \
		"mq-deadline 3072 mq-deadline 2048"
fi
# The first run of a boot (the lock makes run/earlytune, no holder came
# before) reads no file of records; a lock file removed by hand beside
# records is not that: they are read.
if command -v strace >/dev/null; then
	f=$WORK/first
	cp -a "$t0" "$f"
	strace -f -o "$WORK/first.trace" -e trace=openat,openat2 "$ET_BIN" --boot apply --root "$f" --device vda >/dev/null 2>&1
	eq "first run of a boot: no file of records looked for" \
		"$(grep -cE '"run/earlytune/(records|originals|disks(/vda)?)", \{flags=O_RDONLY' "$WORK/first.trace")" 0
	eq "first run of a boot: vda's records written" "$(records "$f" | grep -c '	vda	')" 2
	rm "$f/run/earlytune/lock"
	printf '[mq-deadline] kyber none\n' >"$f/sys/block/vda/queue/scheduler"
	check_rc "no lock file, records there: apply --device vda" 0 -- "$ET" apply --root "$f" --device vda
	eq "no lock file, records there: vda's first originals kept" "$(records "$f" | grep '	vda	' | cut -f3,5 | tr '\t\n' '= ')" \
		"queue/scheduler=mq-deadline queue/read_ahead_kb=8192 "
fi
# a crash mid-append: the torn line dropped, the file rewritten whole
printf '[mq-deadline] kyber none\n' >"$t/sys/block/vdb/queue/scheduler"
printf '3072\n' >"$t/sys/block/vdb/queue/read_ahead_kb"
cp "$WORK/vdb.one" "$t/run/earlytune/disks/vdb"
printf 'block\tvdb\tqueue/read_ahead_kb\tsys/block/vdb/queue/read_ah' >>"$t/run/earlytune/disks/vdb"
check_rc "torn: apply --device vdb" 0 -- "$ET" apply --root "$t" --device vdb
eq "torn: the file whole again: its line, the new one" \
	"$(cut -f3,5 "$t/run/earlytune/disks/vdb" | tr '\t\n' '= '; tail -c 1 "$t/run/earlytune/disks/vdb" | od -An -c | tr -d ' ')" \
	"queue/scheduler=mq-deadline queue/read_ahead_kb=3072 \n"
check_rc "append: revert" 0 -- "$ET" revert --root "$t"
eq "append: every original back" "$(sched "$t" vda) $(ra "$t" vda) $(sched "$t" vdb) $(ra "$t" vdb)" \
	"mq-deadline 8192 mq-deadline 3072"
eq "append: no file of records left" "$(files "$t")" ""
