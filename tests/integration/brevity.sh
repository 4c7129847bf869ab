# SPDX-License-Identifier: LGPL-2.1-or-later
# Too much to read (issue 27, point 11): alike skips of many devices are one
# row of the table (--verbose and --json keep each), plan --changes, status
# --last N and --failed, and a [block] section of the administrator's that
# matched no disk listed once.
. "$(dirname "$0")/../lib/common.sh"

# An Ubuntu-like guest with snaps: loop0..loop19, two zram devices.
t=$WORK/snaps
mk_kvm "$t"
for i in $(seq 1 19); do mk_disk "$t" "loop$i" "" "[none] mq-deadline" 128 0 128; done
mk_disk "$t" zram1 "" "" 128 0
rm "$t/sys/devices/virtual/block/zram1/queue/nr_requests"

rows() { printf '%s\n' "$OUT" | awk -v d="$1" '$1 == "block" && $2 ~ d { n++ } END { print n + 0 }'; }

# ---- the table: one row for the loop devices ---------------------------------
check_rc "20 loop devices: plan exits 0" 0 -- "$ET" plan --root "$t"
eq "20 loop devices: one row" "$(rows '^loop')" 1
contains "the row's target is loopN" "block   loopN   -"
contains "its reason names them and how many, the name as loopN" \
	"loop0..loop19 (20): a loop device, loop disk (kernel name loopN): no"
eq "two zram devices: one row" "$(rows '^zram')" 1
contains "two names are listed" "zram0 zram1 (2): a compressed RAM disk, zram disk (kernel name zramN)"
lacks "no loop device by its own name" "block   loop7 "
short=$(printf '%s\n' "$OUT" | wc -l)
eq "every line fits 80 columns" "$(printf '%s\n' "$OUT" | awk 'length($0) > 80')" ""
check_rc "--wide: plan exits 0" 0 -- "$ET" plan --wide --root "$t"
eq "--wide: one row for the loop devices" "$(rows '^loop')" 1
contains "--wide: the reason on the row" "loopN   -                               -           -             skip   loop0..loop19 (20): a loop device"
check_rc "--verbose: plan exits 0" 0 -- "$ET" plan --verbose --root "$t"
eq "--verbose: each loop device its row" "$(rows '^loop[0-9]')" 20
contains "--verbose: loop7 by its name" "a loop device, loop disk (kernel name loop7)"
long=$(printf '%s\n' "$OUT" | grep -cv '^earlytune: ')
[ "$short" -lt $((long - 70)) ]; eq "the grouped table is 19 paragraphs shorter ($short vs $long lines)" $? 0
OUT=$("$ET" plan --json --root "$t" 2>&1)
eq "--json: every loop device its item" "$(printf '%s' "$OUT" | python3 -c 'import json, sys
print(sum(1 for it in json.load(sys.stdin)["items"] if it["target"].startswith("loop")))')" 20
lacks "--json: no loopN" '"loopN"'

# gaps in the numbers: each name listed
g=$WORK/gaps
mk_kvm "$g"
for i in 2 5; do mk_disk "$g" "loop$i" "" "[none] mq-deadline" 128 0 128; done
OUT=$("$ET" plan --root "$g" 2>&1)
contains "loop0 loop2 loop5: each named" "loop0 loop2 loop5 (3): a loop device"
# a skip for another reason is its own row: loop7 tuned by a section
printf '[block "l7"]\nmatch.name = loop7\nread_ahead_kb = 256\n' >"$WORK/l7.conf"
OUT=$("$ET" plan --wide --root "$t" --config "$WORK/l7.conf" 2>&1)
eq "loop7 tuned: its own row" "$(rows '^loop7$')" 1
contains "the others: one row of 19" "loop0 loop1 loop2 loop3 loop4 loop5 loop6 loop8"
contains "the others: counted" "loop19 (19): a loop device"
# apply's table groups too; its results are each item's
a=$WORK/apply
cp -a "$t" "$a"
check_rc "apply on the snaps tree exits 0" 0 -- "$ET" apply --root "$a"
eq "apply: one row for the loop devices" "$(rows '^loop')" 1

# ---- plan --changes -----------------------------------------------------------
check_rc "plan --changes exits 0" 0 -- "$ET" plan --changes --root "$t"
eq "--changes: only change rows" "$(printf '%s\n' "$OUT" | awk 'NR > 1 && /^[a-z]/ && $NF != "change"')" ""
eq "--changes: the 4 changes" "$(printf '%s\n' "$OUT" | awk '/^[a-z]/ && $NF == "change"' | wc -l)" 4
lacks "--changes: no skip" " skip"
OUT=$("$ET" plan --changes --json --root "$t" 2>&1)
json_ok "--changes --json is one valid JSON object"
eq "--changes --json: the 4 changes only" "$(printf '%s' "$OUT" | python3 -c 'import json, sys
d = json.load(sys.stdin)["items"]; print(sorted({it["action"] for it in d}), len(d))')" "['change'] 4"
check_rc "--changes after apply: exits 0" 0 -- "$ET" plan --changes --root "$a"
contains "--changes after apply: nothing, said" "plan: nothing would change or fail ("
f=$WORK/fail
mk_kvm "$f"
ra=$f/sys/devices/virtual/block/vda/queue/read_ahead_kb
rm "$ra" && mkdir "$ra"
check_rc "--changes with an error: exits 1" 1 -- "$ET" plan --changes --wide --root "$f"
contains "--changes: the error is shown" "error"
check_rc "--changes with apply: exit 2" 2 -- "$ET" apply --changes --root "$t"
contains "--changes with apply: said" "--changes: only with plan"

# ---- status --last N, --failed -------------------------------------------------
"$ET" apply --root "$f" >/dev/null 2>&1
rm -r "$ra" && echo 8192 >"$ra"
"$ET" apply --root "$f" >/dev/null 2>&1
"$ET" apply --only thp --root "$f" >/dev/null 2>&1
check_rc "status: 3 runs, one failed: exit 1" 1 -- "$ET" status --root "$f"
eq "status: 3 runs" "$(printf '%s\n' "$OUT" | grep -c '^[0-9].*  apply')" 3
check_rc "status --last 1: the newest run did all: exit 0" 0 -- "$ET" status --last 1 --root "$f"
eq "--last 1: one run" "$(printf '%s\n' "$OUT" | grep -c '^[0-9].*  apply')" 1
contains "--last 1: the newest" "  apply --only thp: "
contains "--last 1: the header says what is shown" "3 runs since boot, oldest first; 1 shown"
check_rc "status --last 2 --json: exit 0" 0 -- "$ET" status --last 2 --json --root "$f"
eq "--last 2 --json: two runs" "$(printf '%s' "$OUT" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["runs"]))')" 2
check_rc "status --failed: exit 1" 1 -- "$ET" status --failed --root "$f"
eq "--failed: the one run" "$(printf '%s\n' "$OUT" | grep -c '^[0-9].*  apply')" 1
contains "--failed: its failure" "  failed   block vda queue/read_ahead_kb: cannot read"
eq "--failed: nothing but failures" "$(printf '%s\n' "$OUT" | grep '^  ' | grep -vc '^  failed ')" 0
contains "--failed: the header says so" "1 shown (the runs with a failed item: their failures)"
check_rc "status --failed --json: exit 1" 1 -- "$ET" status --failed --json --root "$f"
eq "--failed --json: failed items only" "$(printf '%s' "$OUT" | python3 -c 'import json, sys
d = json.load(sys.stdin); print(len(d["runs"]), sorted({i["outcome"] for r in d["runs"] for i in r["items"]}))')" "1 ['failed']"
check_rc "status --failed, none failed: exit 0" 0 -- "$ET" status --failed --root "$a"
contains "--failed, none: 0 shown" "; 0 shown"
check_rc "--last 0: exit 2" 2 -- "$ET" status --last 0 --root "$f"
contains "--last 0: said" "--last: '0' is not a number of runs"
check_rc "--last with plan: exit 2" 2 -- "$ET" plan --last 2 --root "$f"
check_rc "--failed with verify: exit 2" 2 -- "$ET" verify --failed --root "$f"

# ---- a [block] section that matched no disk -------------------------------------
u=$WORK/user
mk_kvm "$u"
printf '[block "fast"]\n# the SSDs\nmatch.model = Samsng*\nread_ahead_kb = 256\n[block "virt"]\nmatch.class = virtual\nnr_requests = 64\n[block "spin"]\nmatch.class = hdd\nread_ahead_kb = 4096\n' >"$WORK/u.conf"
check_rc "a section that matches nothing: plan exits 0" 0 -- "$ET" plan --wide --root "$u" --config "$WORK/u.conf"
contains "it is listed, with its match keys and source" \
	"block   [block \"fast\"] -                               -           -             skip   no disk here matches this section (match.model = Samsng*), so its settings apply to none [$WORK/u.conf:3]"
eq "listed once" "$(printf '%s\n' "$OUT" | grep -c '^block   \[block "fast"\]')" 1
lacks "a section that matched is not listed" '[block "virt"]'
lacks "a section for a class this machine lacks is not listed" '[block "spin"]'
lacks "the profile's sections for other classes are not listed" '[block "ssd"]'
check_rc "--device vda: plan exits 0" 0 -- "$ET" plan --wide --root "$u" --config "$WORK/u.conf" --device vda
lacks "--device: a section is not judged by one disk" '[block "fast"]'
check_rc "verify: the unmatched section is neutral" 1 -- "$ET" verify --root "$u" --config "$WORK/u.conf"
lacks "verify: not called drift" 'fast'
OUT=$("$ET" plan --root "$u" 2>&1)
lacks "the profile alone: no section listed" 'block   [block'
