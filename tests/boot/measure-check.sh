# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
#
# Sourced by tests/boot/measure.sh: the assertions over one guest's console
# log (tests/boot/measure-guest.sh's "ETM …" lines). Reads RATE, WMEM, RMEM
# and APP; calls pass and fail.

# The tolerance of measure's own verdict: a prediction holds when the
# throughput measured after is at least this share of it (percent).
TOL=75

# js CASE TAG EXPR: EXPR (python) over the JSON of "ETM CASE TAG=…", with d
# the document and c its first connection (None without one); "ERR: why"
# when there is no such line or it does not parse.
js() {
	python3 - "$L" "$1" "$2" "$3" <<'PY'
import json, sys
log, case, tag, expr = sys.argv[1:5]
pre = "ETM %s %s=" % (case, tag)
lines = [l[len(pre):] for l in open(log, errors="replace").read().replace("\r", "").split("\n") if l.startswith(pre)]
try:
    d = json.loads(lines[-1])
    c = d["connections"][0] if d["connections"] else None
    print(eval(expr))
except Exception as e:
    print("ERR: %s%s" % (type(e).__name__, (": %s" % e) if str(e) else ""))
PY
}
# val CASE KEY: KEY=VALUE of an "ETM CASE …" line (the value up to a space)
val() { grep "^ETM $1 " "$L" | sed -n "s/.* $2=\\([^ ]*\\).*/\\1/p" | tail -1; }
# sysctls CASE: the settings as the guest printed them before/after CASE
sysctls() { sed -n "s/^ETM $1 sysctl //p" "$L" | tail -1; }
# ge A B PCT: A >= B * PCT / 100 (decimals allowed)
ge() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { exit !(a != "" && b != "" && a >= b * p / 100) }'; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.0f", 100 * a / b; else print "-" }'; }
mbit() { awk -v a="$1" 'BEGIN { printf "%.1f", a / 1e6 }'; }
# is NAME GOT WANT: pass when equal
is() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got:  $2" "want: $3"; fi; }
# has NAME PATTERN: a line of the log matches (grep -E)
has() { if grep -Eq "$2" "$L"; then pass "$1"; else fail "$1" "no line matches: $2"; fi; }

# changes_nothing K CASE: --apply ran, said so and left every setting alone
changes_nothing() {
	local k=$1 c=$2
	is "$k: $c: --apply exits 0" "$(val "$c" apply-rc)" 0
	has "$k: $c: --apply says there is nothing to apply" \
		"^ETM $c apply-err: .*measure tcp --apply: nothing to apply: no setting of this host is the limit"
	is "$k: $c: no setting changed, no file written" "$(sysctls "$c-after")" "$(sysctls "$c")"
	is "$k: $c: no sysctl.d file" "$(sysctls "$c-after" | sed 's/.* files=//')" 0
}

check_capacity() { # K
	local cap
	cap=$(val capacity mbits)
	echo "# $1: the path without the rate limit: iperf3 $cap Mbit/s (earlytune: $(js capacity json 'c["limit"], round(c["throughput_bps"] / 1e6, 1), "Mbit/s, min RTT", c["min_rtt_us"], "us"'))"
	if ge "$cap" "$RATE" 200; then
		pass "$1: the emulation sustains at least twice the path's $RATE Mbit/s ($cap Mbit/s)"
	else
		fail "$1: the emulation sustains at least twice the path's $RATE Mbit/s" \
			"$cap Mbit/s: lower ET_MEASURE_RATE, or run it on a quieter machine"
	fi
}

check_wmem() { # K
	local k=$1 p b a new=$((WMEM * 4))
	is "$k: send buffer: measure --apply exits 0" "$(val wmem apply-rc)" 0
	is "$k: send buffer: named" "$(js wmem apply 'c["limit"]')" "send buffer"
	is "$k: send buffer: the change, tcp_wmem's max 4x on this host" \
		"$(js wmem apply 'c["change"]["sysctl"], c["change"]["value"], c["change"]["host"]')" \
		"('net.ipv4.tcp_wmem', '4096 16384 $new', 'this')"
	p=$(js wmem apply 'c["change"]["prediction"]["throughput_bps"]')
	b=$(js wmem apply 'c["throughput_bps"]')
	a=$(js wmem-again json 'c["throughput_bps"]')
	is "$k: send buffer: --apply set it in A" "$(sysctls wmem-after | sed 's/ A.rmem.*//')" "A.wmem=4096 16384 $new"
	has "$k: send buffer: its sysctl.d file, the prediction on a comment line" "^ETM wmem file: # Prediction: [0-9]+ bit/s"
	has "$k: send buffer: its sysctl.d file sets it" "^ETM wmem file: net.ipv4.tcp_wmem = 4096 16384 $new\$"
	echo "# $k: send buffer: before $(mbit "$b") Mbit/s, predicted $(mbit "$p"), after $(mbit "$a") ($(pct "$a" "$p") % of the prediction), the limit now $(js wmem-again json 'c["limit"]'); iperf3 $(val wmem mbits) -> $(val wmem-again mbits) Mbit/s"
	if ge "$a" "$p" "$TOL"; then pass "$k: send buffer: the prediction held: $(mbit "$a") Mbit/s, $(pct "$a" "$p") % of $(mbit "$p") (at least $TOL %)"
	else fail "$k: send buffer: the prediction held (at least $TOL %)" "before $b bit/s, predicted $p, after $a"; fi
	# iperf3's mean over the whole transfer, its start included: a rise
	# of a quarter at least (its own count, not earlytune's)
	if ge "$(val wmem-again mbits)" "$(val wmem mbits)" 125; then pass "$k: send buffer: iperf3's own rate rose by a quarter at least"
	else fail "$k: send buffer: iperf3's own rate rose by a quarter at least" "$(val wmem mbits) -> $(val wmem-again mbits) Mbit/s"; fi
	check_verify "$k"
}

check_verify() { # K
	local k=$1
	sed -n 's/^ETM wmem-verify text: /# wmem-verify: /p' "$L"
	is "$k: send buffer: --verify exits 0 (held)" "$(val wmem-verify verify-rc)" 0
	has "$k: send buffer: --verify keeps its verdict in the file" "^ETM wmem-verify file: # Verified: held "
}

check_rmem() { # K
	local k=$1 p a
	is "$k: receive window: named" "$(js rmem apply 'c["limit"]')" "receive window"
	is "$k: receive window: the change is tcp_rmem on the receiving host" \
		"$(js rmem apply 'c["change"]["sysctl"], c["change"]["host"]')" "('net.ipv4.tcp_rmem', 'peer')"
	changes_nothing "$k" rmem
	p=$(js rmem apply 'c["change"]["prediction"]["throughput_bps"]')
	a=$(js rmem-again json 'c["throughput_bps"]')
	echo "# $k: receive window: before $(mbit "$(js rmem apply 'c["throughput_bps"]')") Mbit/s, B's tcp_rmem set to $(sed -n 's/^ETM rmem suggested //p' "$L"), predicted $(mbit "$p"), after $(mbit "$a") ($(pct "$a" "$p") %), the limit now $(js rmem-again json 'c["limit"]'); iperf3 $(val rmem mbits) -> $(val rmem-again mbits) Mbit/s"
	if ge "$a" "$p" "$TOL"; then pass "$k: receive window: the prediction held once the receiver had it ($(pct "$a" "$p") %)"
	else fail "$k: receive window: the prediction held once the receiver had it (at least $TOL %)" "predicted $p, after $a"; fi
	if ge "$(val rmem-again mbits)" "$(val rmem mbits)" 200; then pass "$k: receive window: iperf3's own rate at least doubled"
	else fail "$k: receive window: iperf3's own rate at least doubled" "$(val rmem mbits) -> $(val rmem-again mbits) Mbit/s"; fi
}

check_nothing() { # K
	local k=$1 t
	is "$k: application: named, no change" "$(js app apply 'c["limit"], c["change"]')" "('application', None)"
	changes_nothing "$k" app
	t=$(js app apply 'c["throughput_bps"]')
	echo "# $k: application: iperf3 -b ${APP}M measured at $(mbit "$t") Mbit/s; iperf3 $(val app mbits)"
	if ge "$t" "$((APP * 1000000))" 75 && ge "$((APP * 1000000))" "$t" 75; then pass "$k: application: the rate it measured is the application's (${APP} Mbit/s within 25 %)"
	else fail "$k: application: the rate it measured is the application's (${APP} Mbit/s within 25 %)" "$t bit/s"; fi
	is "$k: the link's rate under bbr: the congestion window, no change" "$(js link apply 'c["limit"], c["congestion_control"], c["change"]')" \
		"('congestion window', 'bbr', None)"
	has "$k: the link's rate: nothing a setting controls" "^ETM link text:   why: .*nothing a setting controls"
	changes_nothing "$k" link
	t=$(js link apply 'c["throughput_bps"]')
	echo "# $k: the link: $(mbit "$t") Mbit/s measured on the $RATE Mbit/s path; iperf3 $(val link mbits), $(val link retr) retransmits"
	if ge "$t" "$((RATE * 1000000))" 70; then pass "$k: the link: at least 70 % of its $RATE Mbit/s ($(mbit "$t"))"
	else fail "$k: the link: at least 70 % of its $RATE Mbit/s" "$t bit/s"; fi
}

# check_kernel K LOG: every assertion on that guest's log
check_kernel() {
	guest_log "$1" "$2" ETM-DONE || return
	is "$1: no step of the guest failed" "$(grep -E '^ETM ([a-z-]+ )?error' "$L")" ""
	sed -n 's/^ETM \(kernel=.*\)/# \1/p; s/^ETM \(path .*\)/# \1/p' "$L"
	sed -n 's/^ETM \(wmem\|wmem-again\|rmem\|app\|link\) text: /# \1: /p' "$L"
	check_capacity "$1"
	check_wmem "$1"
	check_rmem "$1"
	check_nothing "$1"
}
