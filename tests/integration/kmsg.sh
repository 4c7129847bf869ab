# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 8 defect 12: printk's /dev/kmsg ratelimit (printk.devkmsg=ratelimit,
# the default) lets 10 lines per open file through every 5 s. A --boot apply
# with 60 change lines must still put every one of them, and the summary,
# into the real kernel log. The tree's dev/kmsg is the machine's own device
# node; the tree's path is the marker that finds our lines.
. "$(dirname "$0")/../lib/common.sh"

if [ "$(id -u)" != 0 ] || ! command -v dmesg >/dev/null || ! dmesg >/dev/null 2>&1; then
	skip "the real kernel log" "needs root"
	exit 0
fi
echo "# printk_devkmsg: $(cat /proc/sys/kernel/printk_devkmsg 2>/dev/null || echo unknown)"

t=$WORK/kmsg-$$-$(date +%s%N)
mk_base "$t" 6.1.0-28-cloud-amd64 yes QEMU "root=/dev/vda1"
i=0
while [ $i -lt 30 ]; do
	mk_disk "$t" "vd$i" virtio_blk "[none] mq-deadline" 8192 1 256
	i=$((i + 1))
done
if ! mknod "$t/dev/kmsg" c 1 11 2>/dev/null || ! : >>"$t/dev/kmsg" 2>/dev/null; then
	skip "the real kernel log" "cannot make a /dev/kmsg node in $WORK (nodev?)"
	exit 0
fi
printf '[block]\nread_ahead_kb = 1024\nnr_requests = 64\n' >"$t/etc/kmsg-test.conf"

check_rc "30 disks, --boot apply: exit 0" 0 -- "$ET" --boot apply --profile none --only block --root "$t" --config "$t/etc/kmsg-test.conf"
lacks "nothing fell back to stderr" "earlytune"
dmesg >"$WORK/dmesg"
eq "every read-ahead change line reached the kernel log" \
	"$(grep -F "$t/etc/kmsg-test.conf" "$WORK/dmesg" | grep -c 'queue/read_ahead_kb: 8192 -> 1024')" 30
eq "every nr_requests change line reached the kernel log" \
	"$(grep -F "$t/etc/kmsg-test.conf" "$WORK/dmesg" | grep -c 'queue/nr_requests: 256 -> 64')" 30
eq "the summary reached the kernel log" \
	"$(grep -cF "earlytune: apply --root $t: 60 changed, 0 kept, 0 skipped, 0 failed" "$WORK/dmesg")" 1

# Issue 11 defect 5: every skipped item reaches the kernel log with its
# reason, one line each: information for a neutral skip (no section for a
# loop disk), a warning for an unmet one (a module the kernel lacks).
u=$WORK/kskip-$$-$(date +%s%N)
lname=loop$(( $$ % 100000 ))
mk_base "$u" 6.1.0-28-cloud-amd64 yes QEMU "root=/dev/vda1"
mk_disk "$u" vd0 virtio_blk "[none] mq-deadline" 8192 1 256
mk_disk "$u" "$lname" loop "[none] mq-deadline" 128 0 128
mknod "$u/dev/kmsg" c 1 11
printf '[block "v"]\nmatch.class = virtual\nread_ahead_kb = 1024\n[modules]\nload = et_nosuch_%s\n' "$$" >"$u/etc/kskip.conf"
check_rc "skips, --boot apply: exit 0" 0 -- "$ET" --boot apply --profile none --only block,modules --root "$u" --config "$u/etc/kskip.conf"
dmesg -r >"$WORK/dmesg-raw"
# (the levels, info and warning, are not asserted: some kernels' dmesg
# reports them shifted)
eq "the neutral skip reached the kernel log" \
	"$(grep -c "earlytune: block $lname -: skipped: a loop device, loop disk (kernel name $lname, driver loop): no \[block\] section matches it" "$WORK/dmesg-raw")" 1
eq "the unmet skip reached the kernel log" \
	"$(grep -c "earlytune: modules et_nosuch_$$ state: not applied: et_nosuch_$$: module not found under /lib/modules/6.1.0-28-cloud-amd64 \[$u/etc/kskip.conf:5\]" "$WORK/dmesg-raw")" 1
eq "the summary counts both skips" \
	"$(grep -cF "earlytune: apply --root $u: 1 changed, 0 kept, 2 skipped, 0 failed" "$WORK/dmesg-raw")" 1

# Argument errors of a --boot run (a bad udev rule, an empty $env{DISKSEQ})
# reach the kernel log like its other messages, udev dropping its stderr:
# every option is read first, an error before --root included.
m=$$-$(date +%s%N)
empty_seq="earlytune: --diskseq: '' is not a disk sequence number"
before=$(dmesg | grep -cF "$empty_seq")
check_rc "--boot, an empty --diskseq: exit 0" 0 -- "$ET" --boot forget --device vd0 --diskseq "" --root "$u"
eq "--boot, an empty --diskseq: nothing on stderr" "$OUT" ""
check_rc "--boot, a bad --ifindex before --root: exit 0" 0 -- "$ET" --boot --ifindex "bad$m" apply --root "$u"
eq "--boot, a bad --ifindex before --root: nothing on stderr" "$OUT" ""
check_rc "--boot, an unknown option: exit 0" 0 -- "$ET" --boot "--frob-$m" apply --root "$u"
eq "--boot, an unknown option: nothing on stderr" "$OUT" ""
dmesg >"$WORK/dmesg-args"
eq "the empty --diskseq reached the kernel log" "$(($(grep -cF "$empty_seq" "$WORK/dmesg-args") - before))" 1
eq "the bad --ifindex reached the kernel log" \
	"$(grep -cF "earlytune: --ifindex: 'bad$m' is not an interface index (a positive number)" "$WORK/dmesg-args")" 1
eq "the unknown option reached the kernel log" \
	"$(grep -cF "earlytune: unrecognized option '--frob-$m'; see --help" "$WORK/dmesg-args")" 1
