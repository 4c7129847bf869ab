# SPDX-License-Identifier: LGPL-2.1-or-later
# udev runs one earlytune per device in parallel: 64 concurrent
# `apply --device` on one tree must not lose or corrupt a record.
. "$(dirname "$0")/../lib/common.sh"

t=$WORK/many
mk_base "$t" 6.1.0-28-cloud-amd64 yes QEMU "root=/dev/vda1"
i=0
while [ $i -lt 64 ]; do
	mk_disk "$t" "vd$i" virtio_blk "[mq-deadline] kyber none" $((2048 + i * 64)) 1 256
	i=$((i + 1))
done
before=$(snapshot "$t")

i=0
while [ $i -lt 64 ]; do
	("$ET" apply --root "$t" --device "vd$i" >"$WORK/out.$i" 2>&1; echo $? >"$WORK/rc.$i") &
	i=$((i + 1))
done
wait
failed=$(cat "$WORK"/rc.* | grep -vc '^0$')
eq "64 concurrent applies all succeed" "$failed" 0
eq "64 × 2 originals recorded" "$(wc -l <"$t/run/earlytune/originals")" 128
eq "records are well-formed" "$(awk -F'\t' 'NF != 5' "$t/run/earlytune/originals" | wc -l)" 0
eq "each record appears once" "$(cut -f4 "$t/run/earlytune/originals" | sort | uniq -d | wc -l)" 0
eq "vd63's read-ahead original recorded exactly" \
	"$(awk -F'\t' '$2 == "vd63" && $3 == "queue/read_ahead_kb" { print $5 }' "$t/run/earlytune/originals")" $((2048 + 63 * 64))
check_rc "verify after concurrent applies" 0 -- "$ET" verify --only block --root "$t"
check_rc "revert all" 0 -- "$ET" revert --root "$t"
eq "every original came back" "$(snapshot "$t")" "$before"
