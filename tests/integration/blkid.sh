# SPDX-License-Identifier: LGPL-2.1-or-later
# match.fstype/uuid/label/partuuid through libblkid, on real images: the
# fake tree's dev/vda is a GPT disk image, dev/vda1 an ext4 image.
. "$(dirname "$0")/../lib/common.sh"

for tool in mkfs.ext4 sfdisk; do
	need "$tool is installed (.ci/bootstrap)" command -v $tool
done
t=$WORK/kvm
mk_kvm "$t"
mk_disk "$t" vdb virtio_blk "[mq-deadline] kyber none" 8192 1 256
truncate -s 8M "$t/dev/vda"
printf 'label: gpt\nstart=2048, size=8192, uuid=6f0b1b1e-5d0c-4a4f-9d6e-2a1f0c3b4d5e\n' | sfdisk -q "$t/dev/vda" >/dev/null
truncate -s 4M "$t/dev/vda1"
mkfs.ext4 -q -F -L pgdata -U 3b2f6c1a-0e7d-4c55-8a3b-1d2e3f4a5b6c "$t/dev/vda1"
truncate -s 4M "$t/dev/vdb"

cat >"$WORK/match.conf" <<'CONF'
[block "pg"]
match.label = pg*
read_ahead_kb = 256
[block "by-uuid"]
match.uuid = 3b2f6c1a-*
nr_requests = 64
[block "by-part"]
match.partuuid = 6f0b1b1e-5d0c-4a4f-9d6e-2a1f0c3b4d5e
rq_affinity = 2
[block "by-type"]
match.fstype = ext4 xfs
add_random = 1
[block "nothing"]
match.fstype = btrfs
wbt_lat_usec = 0
CONF
check_rc "blkid matches: plan exits 0" 0 -- "$ET" plan --json --profile none --root "$t" --config "$WORK/match.conf"
printf '%s' "$OUT" | python3 -c 'import json, sys
for it in json.load(sys.stdin)["items"]:
    print(it["target"], it["setting"], it["desired"], it["action"], it["reason"])' >"$WORK/items"
OUT=$(cat "$WORK/items")
contains "match.label on a partition's ext4 label" "vda queue/read_ahead_kb 256"
contains "match.uuid with a glob" "vda queue/nr_requests 64"
contains "match.partuuid from the GPT of the whole disk" "vda queue/rq_affinity 2"
contains "match.fstype, any of two values" "vda queue/add_random 1"
lacks "a non-matching fstype applies nothing" "wbt_lat_usec"
lacks "the empty disk vdb matches none" "vdb queue/"
contains "vdb's line says which match rules out each section" "vdb - None skip virtual disk (driver virtio_blk): no [block] section matches it, so nothing applies (pg needs match.label = pg*; by-uuid needs match.uuid = 3b2f6c1a-*; by-part needs match.partuuid = 6f0b1b1e-5d0c-4a4f-9d6e-2a1f0c3b4d5e; by-type needs match.fstype = ext4 xfs; nothing needs match.fstype = btrfs)"
lacks "the partition is never a target" "vda1 "
