# SPDX-License-Identifier: LGPL-2.1-or-later
# The system calls a disk costs a first apply (strace), on trees laid out as
# the kernel lays sys/block out (a link per disk into sys/devices): with
# diskseq (5.15+) and without it. sys/block is opened once, each disk's
# directory once (its attributes opened below it), each attribute read
# through the file that later writes and reads it back, the link read only
# where needed (a disk without diskseq: its identity hashes it) and then
# once: 31 and 41 calls a disk before, 25 and 33 after (6 of them the
# disk's records file). A disk's cost is the difference
# between a tree of 2N disks and one of N, so a run's own calls cancel out.
# Then the file limit: past what it allows, values are written by path.
. "$(dirname "$0")/../lib/common.sh"

need "strace is installed (.ci/bootstrap)" command -v strace
printf '[block "v"]\nmatch.class = virtual\nscheduler = none\nread_ahead_kb = 1024\n' >"$WORK/v.conf"

# tree ROOT N seq|noseq: N virtio disks, each with diskseq or with dev only
tree() {
	mk_base "$1" 6.1.0-28-cloud-amd64 yes QEMU root=/dev/vda1
	_i=0
	while [ "$_i" -lt "$2" ]; do
		mk_disk "$1" "vd$_i" virtio_blk "[mq-deadline] kyber none" 8192 1 256
		if [ "$3" = seq ]; then
			_attr "$1/sys/devices/virtual/block/vd$_i/diskseq" $((_i + 1))
		else
			_attr "$1/sys/devices/virtual/block/vd$_i/dev" "252:$((16 * _i))"
		fi
		_i=$((_i + 1))
	done
}

# calls ROOT: the system calls of a first apply of ROOT
calls() {
	strace -o "$WORK/trace" "$ET_BIN" apply --only block --profile none --config "$WORK/v.conf" \
		--root "$1" >/dev/null 2>&1 || echo "apply failed" >&2
	grep -vc '^+++\|^---' "$WORK/trace"
}

N=8
for kind in seq noseq; do
	tree "$WORK/$kind.1" $N $kind
	tree "$WORK/$kind.2" $((2 * N)) $kind
	a=$(calls "$WORK/$kind.1")
	b=$(calls "$WORK/$kind.2")
	per=$(((b - a) / N))
	max=25
	[ $kind = noseq ] && max=33
	if [ "$per" -le "$max" ]; then
		pass "$kind: a first apply costs $per system calls a disk (at most $max)"
	else
		fail "$kind: a first apply costs $per system calls a disk, more than $max" "$N disks: $a, $((2 * N)): $b"
	fi
	eq "$kind: every disk tuned" "$(cat "$WORK/$kind.2"/sys/block/*/queue/scheduler | sort -u)" none
	[ $kind = seq ] && eq "seq: no link of sys/block read" "$(grep -c 'readlinkat([0-9]*, "vd[0-9]*"' "$WORK/trace")" 0
done
eq "seq: the identity is the diskseq" "$(records "$WORK/seq.2" | grep '^block	vd3	' | cut -f6)" "diskseq:4
diskseq:4"
eq "noseq: the identity is the hash" "$(records "$WORK/noseq.2" | grep '^block	vd3	' | grep -c "	dev:[0-9a-f]\{16\}\$")" 2

# The identity reuses the link the classification read: each link is read
# once per disk, in sys/block held open.
eq "noseq: each disk's link read once" \
	"$(grep -c 'readlinkat([0-9]*, "vd[0-9]*"' "$WORK/trace")" $((2 * N))
eq "noseq: sys/block opened for its disks once" \
	"$(grep -c '"sys/block", {flags=[^}]*O_PATH' "$WORK/trace")" 1

# Held files past the file limit: a hard limit of 80 leaves room for 16
# (80 less a reserve of 64); the other disks' values are written by path,
# and every disk ends tuned with its originals recorded.
for lim in -n -Sn; do
	t=$WORK/lim$lim
	tree "$t" 20 seq
	sh -c "ulimit $lim 80 && exec \"$ET_BIN\" apply --only block --profile none --config \"$WORK/v.conf\" \
		--root \"$t\"" >"$WORK/lim.out" 2>&1
	eq "ulimit $lim 80: apply exits 0" "$?" 0
	eq "ulimit $lim 80: every disk tuned" \
		"$(cat "$t"/sys/block/*/queue/scheduler "$t"/sys/block/*/queue/read_ahead_kb | sort | uniq -c |
			awk '{ printf "%s %s;", $1, $2 }')" "20 1024;20 none;"
	eq "ulimit $lim 80: 40 originals recorded" "$(records "$t" | wc -l)" 40
done
# run LIMIT ROOT: apply under strace with the file limit LIMIT ("-n 80")
run() {
	strace -f -o "$WORK/ltrace" sh -c "ulimit $1 && exec \"$ET_BIN\" apply --only block --profile none \
		--config \"$WORK/v.conf\" --root \"$2\"" >/dev/null 2>&1
}
held() { grep -c '^[0-9]* *pwrite64(' "$WORK/ltrace"; } # a write through the file read
bypath() { grep -c 'O_RDWR|O_TRUNC|O_CLOEXEC, resolve' "$WORK/ltrace"; }
run "-n 80" "$WORK/lim-n"
eq "ulimit -n 80, applied again: nothing written" "$(held) $(bypath)" "0 0"
for f in "$WORK"/lim-n/sys/block/*/queue/scheduler; do echo '[mq-deadline] kyber none' >"$f"; done
rm -rf "$WORK/lim-n/run/earlytune"
run "-n 80" "$WORK/lim-n"
eq "ulimit -n 80: 16 files held for their write" "$(held)" 16
eq "ulimit -n 80: the other 4 written by path" "$(bypath)" 4
for f in "$WORK"/lim-Sn/sys/block/*/queue/scheduler; do echo '[mq-deadline] kyber none' >"$f"; done
rm -rf "$WORK/lim-Sn/run/earlytune"
run "-Sn 80" "$WORK/lim-Sn"
eq "ulimit -Sn 80: the soft limit raised, all 20 files held" "$(held) $(bypath)" "20 0"
