# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 11: output for people and JSON everywhere. Every --json run here is
# also checked against tests/schema by common.sh's wrapper.
. "$(dirname "$0")/../lib/common.sh"

t=$WORK/kvm
mk_kvm "$t"
J() { printf '%s' "$OUT" | python3 -c "import json, sys; o = json.load(sys.stdin); print($1)"; }

# ---- defect 3: every command honours --json ----------------------------------
for cmd in config modules sysctl-conf; do
	check_rc "$cmd --json exits 0" 0 -- "$ET" "$cmd" --json --root "$t"
	json_ok "$cmd --json prints one JSON object (it printed text)"
	contains "$cmd --json names its command" "\"command\":\"$cmd\""
done
OUT=$("$ET" config --json --root "$t" 2>/dev/null)
eq "config --json: profile vps's qdisc entry, with its source" \
	"$(J '[e["value"] + " " + e["source"] for e in o["entries"] if e["key"] == "qdisc"][0]')" "fq profile vps"
OUT=$("$ET" modules --json --root "$t" 2>/dev/null)
eq "modules --json: the modules are an array of objects" "$(J '" ".join(m["module"] for m in o["modules"])')" "tcp_bbr sch_fq mq-deadline bfq"
OUT=$("$ET" sysctl-conf --json --root "$t" 2>/dev/null)
eq "sysctl-conf --json: both sysctls" "$(J '" ".join(s["key"] + "=" + s["value"] for s in o["sysctls"])')" \
	"net.core.default_qdisc=fq net.ipv4.tcp_congestion_control=bbr"

# ---- defect 3: an error under --json is a JSON object on stdout too -----------
printf '[block]\nread_ahead_kb = 1024\nbogus_key = 1\n' >"$WORK/bad.conf"
OUT=$("$ET" plan --json --profile none --config "$WORK/bad.conf" --root "$t" 2>"$WORK/err")
RC=$?
eq "a bad line under --json: exit 2" "$RC" 2
json_ok "a bad line under --json: stdout is one JSON object (it was empty)"
eq "the error object names file, line and exit code" "$(J 'o["errors"][0]["file"], o["errors"][0]["line"], o["exit"]')" \
	"$WORK/bad.conf 3 2"
eq "the error object carries the message" "$(J '"bogus_key" in o["errors"][0]["message"]')" "True"
OUT=$(cat "$WORK/err")
contains "the message is on stderr as well" "$WORK/bad.conf:3: "
OUT=$("$ET" plan --json --bogus-option 2>/dev/null)
json_ok "an unknown option under --json: a JSON object"
contains "an unknown option under --json: exit 2 in it" '"exit":2'

# ---- defect 3: verify --json: summary and per-item holds ----------------------
check_rc "verify --json (nothing applied): exit 1" 1 -- "$ET" verify --json --root "$t"
OUT=$("$ET" verify --json --root "$t" 2>/dev/null)
TEXT=$("$ET" verify --root "$t" 2>/dev/null | tail -n 1)
eq "verify --json summary: the text line's counts" \
	"$(J '"verify: %d hold, %d drifted, %d unmet, %d not applicable, %d not applied" % tuple(o["summary"][k] for k in ("hold", "drifted", "unmet", "not_applicable", "not_applied"))')" "$TEXT"
eq "verify --json: every item says whether it holds" "$(J 'all(isinstance(i["holds"], bool) for i in o["items"])')" True
eq "verify --json: holds agrees with the verdict" "$(J 'all(i["holds"] == (i["verdict"] == "holds") for i in o["items"])')" True
eq "verify --json: in_force false while something is unmet" "$(J 'o["summary"]["in_force"]')" False

# ---- defect 2: qdisc parameters in desired ------------------------------------
printf '[net]\nqdisc = fq\nqdisc.flow_limit = 200\nqdisc.maxrate = 1000mbit\nqdisc.horizon = 10ms\n' >"$WORK/fq.conf"
OUT=$("$ET" plan --wide --only net --profile none --config "$WORK/fq.conf" --root "$t" 2>&1)
contains "plan: desired shows the qdisc's parameters" "fq flow_limit=200 maxrate=1gbit horizon=10ms"
OUT=$("$ET" plan --json --only net --profile none --config "$WORK/fq.conf" --root "$t" 2>/dev/null)
eq "plan --json: desired shows the qdisc's parameters" "$(J '[i["desired"] for i in o["items"] if i["setting"] == "qdisc"][0]')" \
	"fq flow_limit=200 maxrate=1gbit horizon=10ms"

# ---- defect 1: no space-led or "-" reason -------------------------------------
# A range without a comment above it gave " [range …]"; a wbt -1 gave "- [-1: …]".
printf '[block "virtual"]\nread_ahead_kb = 128..1024\nwbt_lat_usec = -1\n' >"$WORK/range.conf"
OUT=$("$ET" plan --json --only block --profile none --config "$WORK/range.conf" --root "$t" 2>/dev/null)
eq "a range's reason starts with its words" "$(J '[i["reason"] for i in o["items"] if i["target"] == "vda" and i["setting"] == "queue/read_ahead_kb"][0]')" \
	"virtual disk (driver virtio_blk) [range 128..1024: raise below 128, cap above 1024]"
eq "no reason is empty, '-' or space-led" \
	"$(J '[i["reason"] for i in o["items"] if i["reason"] is not None and (i["reason"][:1] in ("", " ", "-"))]')" "[]"

# ---- defect 1: the table fits COLUMNS; --wide is one line per item ------------
OUT=$(COLUMNS=100 "$ET" plan --root "$t" 2>/dev/null)
eq "COLUMNS=100: no line over 100" "$(printf '%s\n' "$OUT" | awk 'length($0) > 100')" ""
eq "COLUMNS=100: reason lines use the width" "$(printf '%s\n' "$OUT" | awk 'length($0) > 80 { n++ } END { print (n > 0) }')" 1
OUT=$("$ET" plan --wide --root "$t" 2>/dev/null)
eq "--wide: a line per item and the header" "$(printf '%s\n' "$OUT" | wc -l)" \
	"$(( $("$ET" plan --json --root "$t" 2>/dev/null | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["items"]))') + 1 ))"
