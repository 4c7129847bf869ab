# SPDX-License-Identifier: LGPL-2.1-or-later
# plan output of each modelled machine, compared with tests/golden/<model>.plan
# (the 80-column table: COLUMNS unset, not a terminal) and <model>.wide (--wide).
# UPDATE_GOLDEN=1 rewrites the expected files (review the diff before committing).
. "$(dirname "$0")/../lib/common.sh"

for model in kvm azure metal mthp nothp arm64kvm arm64dt s390kvm graviton laptop raidsrv mpath mdsrv mdvps \
	raidhba ec2nodmi vnvme nvmesq testdevs dmlive legacy416 el7kvm bondhost \
	tuned tunedcustom udevsched sysctld tmpfthp networkd sysfsconf sched510 sched61 sched612; do
	t=$WORK/$model
	"mk_$model" "$t"
	for kind in plan wide; do
		OUT=$("$ET" plan $([ $kind = wide ] && echo --wide) --root "$t" 2>&1)
		RC=$?
		eq "$model: plan ($kind) exits 0" "$RC" 0
		got=$(printf '%s\n' "$OUT" | sed "s#$t#ROOT#g")
		golden "$model: plan" "$model.$kind" "$got"
	done
	# issue 11 defect 1: the table fits 80 columns (tree paths are long: the
	# real output, not the ROOT-substituted one), nothing trails a line
	OUT=$("$ET" plan --root "$t" 2>&1)
	eq "$model: every line of plan fits 80 columns" "$(printf '%s\n' "$OUT" | awk 'length($0) > 80')" ""
	eq "$model: no line ends in a space" "$(printf '%s\n' "$OUT" | grep -c ' $')" 0
	OUT=$(COLUMNS=60 "$ET" plan --root "$t" 2>&1)
	eq "$model: COLUMNS=60: every line fits 60 columns" "$(printf '%s\n' "$OUT" | awk 'length($0) > 60')" ""
	OUT=$("$ET" plan --json --root "$t" 2>&1)
	json_ok "$model: plan --json is one valid JSON object"
	# every block item names its disk's class, as the reason's first word does
	classes=$(printf '%s' "$OUT" | python3 -c 'import json, sys
for it in json.load(sys.stdin)["items"]:
    if it["domain"] != "block":
        continue
    if it["class"] not in "virtual nvme ssd hdd stacked loop zram removable raid unknown other".split():
        print(it["target"], "no class:", it.get("class"))
    elif it["action"] in ("change", "keep") and it["class"] != it["reason"].split(" ")[0]:
        print(it["target"], it["class"], it["reason"])')
	eq "$model: JSON class of each block item agrees with its reason" "$classes" ""
	# issue 11 defect 1: a reason is absent (null) or words: never "", "-" or space-led
	bad=$(printf '%s' "$OUT" | python3 -c 'import json, sys
for it in json.load(sys.stdin)["items"]:
    r = it["reason"]
    if r is not None and (r in ("", "-") or r[0].isspace() or r.startswith("- ")):
        print(it["target"], it["setting"], repr(r))')
	eq "$model: no empty, '-' or space-led reason" "$bad" ""
	contains "$model: JSON carries the kernel release" "\"kernel\":\"$(cat "$t/proc/sys/kernel/osrelease")\""
	before=$(snapshot "$t")
	"$ET" plan --root "$t" >/dev/null 2>&1
	eq "$model: plan writes nothing" "$(snapshot "$t")" "$before"
	[ ! -e "$t/run/earlytune" ]; eq "$model: plan creates no state" $? 0
done
