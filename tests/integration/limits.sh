# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 13, [limits]: service resource limits as systemd drop-ins in /run.
# Which units a glob names (0, 1, many; a template; an instance; a masked
# unit), the manager default, the files' text, verify against the running
# processes' /proc/PID/limits (drift, holds, not running, a process's own
# soft limit), a configuration change that removes what it no longer asks
# for, revert, the fs.nr_open warning, and bad values (exit 2, nothing written).
. "$(dirname "$0")/../lib/common.sh"

t=$WORK/limits
mk_kvm "$t"
mkdir -p "$t/proc/sys/fs"
echo 1048576 >"$t/proc/sys/fs/nr_open"
mk_unit "$t" usr/lib/systemd/system nginx.service
mk_unit "$t" usr/lib/systemd/system postgresql@.service
mk_unit "$t" lib/systemd/system getty@.service
mk_unit "$t" usr/lib/systemd/system a-worker.service
mk_unit "$t" etc/systemd/system a-worker.service
mk_unit "$t" etc/systemd/system b-worker.service
mk_unit "$t" run/systemd/system c-worker.service
mk_unit "$t" usr/lib/systemd/system masked-worker.service
ln -s /dev/null "$t/etc/systemd/system/masked-worker.service"
mk_running "$t" system.slice/nginx.service 4242 1024 524288 500
mk_running "$t" system.slice/nginx.service 4300 1024 524288 900 # a worker, started later
mkdir -p "$t/etc/security/limits.d"
printf '# the usual advice\n*  soft  nofile  65536\n' >"$t/etc/security/limits.d/90-app.conf"
cat >"$t/etc/earlytune.conf" <<'EOF'
[limits]
nofile = 65536

[limits "nginx.service"]
nofile = 4096:8192
memlock = 64M

[limits "postgresql@*.service"]
nofile = infinity

[limits "getty@tty1.service"]
core = 0

[limits "*-worker.service"]
nproc = 512

[limits "nomatch*.service"]
nofile = 10
EOF
D=run/systemd/system
F=50-earlytune-limits.conf
matches() { # DESC REGEX: a line of the last output matches
	if printf '%s\n' "$OUT" | grep -Eq "$2"; then pass "$1"; else fail "$1" "no line matches /$2/" "$(printf '%s\n' "$OUT" | head -20)"; fi
}

check_rc "plan: exit 0" 0 -- "$ET" plan --wide --root "$t" --only limits
contains "plan: no unit matches a glob: skipped, said" "nomatch*.service    units"
contains "plan: nothing written for it" "no unit file matches it in /etc/systemd/system, /run/systemd/system, /usr/lib/systemd/system or /lib/systemd/system: nothing written"
contains "plan: the default" "limits manager             DefaultLimitNOFILE unset       65536"
contains "plan: nginx runs with the old limit (its oldest process)" "LimitNOFILE        1024:524288 4096:8192 change nginx.service runs (PID 4242): systemctl daemon-reload, then restart it, to apply"
contains "plan: memlock with a size suffix, in bytes" "LimitMEMLOCK       8388608     67108864"
contains "plan: a template: its drop-in serves every instance" "postgresql@.service LimitNOFILE        unset       infinity"
contains "plan: nofile above fs.nr_open warned" "warning: above fs.nr_open (1048576): the kernel refuses a nofile limit above it"
contains "plan: an instance of a template unit" "getty@tty1.service  LimitCORE"
contains "plan: a glob naming many: /usr/lib and /etc" "a-worker.service    LimitNPROC"
contains "plan: a glob naming many: /etc" "b-worker.service    LimitNPROC"
contains "plan: a glob naming many: /run" "c-worker.service    LimitNPROC"
lacks "plan: a masked unit is not named" "masked-worker"
eq "plan: a unit in /etc and /usr/lib is one unit" "$(printf '%s\n' "$OUT" | grep -c 'a-worker.service')" 1
contains "plan: a unit not running" "not running: applies at its next start once systemd has read the drop-in (at boot, or systemctl daemon-reload)"
contains "plan: limits.conf named: it never reaches a service" "(/etc/security/limits.d/90-app.conf:2 sets nofile for login sessions, through pam_limits: it never reaches a service)"
lacks "plan: limits.conf sets no nproc" "sets nproc for login"
eq "plan writes nothing" "$(find "$t/run" -name "$F" | wc -l)" 0

check_rc "apply: exit 0" 0 -- "$ET" apply --root "$t" --only limits
eq "nginx's drop-in" "$(grep -v '^#' "$t/$D/nginx.service.d/$F" 2>&1)" "[Service]
LimitNOFILE=4096:8192
LimitMEMLOCK=67108864"
eq "the template's drop-in" "$(grep -v '^#' "$t/$D/postgresql@.service.d/$F" 2>&1)" "[Service]
LimitNOFILE=infinity"
eq "the instance's drop-in" "$(grep -v '^#' "$t/$D/getty@tty1.service.d/$F" 2>&1)" "[Service]
LimitCORE=0"
eq "the default's drop-in" "$(grep -v '^#' "$t/run/systemd/system.conf.d/$F" 2>&1)" "[Manager]
DefaultLimitNOFILE=65536"
eq "one drop-in for each unit the globs name" \
	"$(cd "$t/$D" && ls -d *.d | tr '\n' ' ')" "a-worker.service.d b-worker.service.d c-worker.service.d getty@tty1.service.d nginx.service.d postgresql@.service.d "
eq "no temporary file left" "$(find "$t/run/systemd" -name '.*' | wc -l)" 0
eq "one record for each file written" "$(records "$t" | grep -c '^limits')" 7

check_rc "verify: nginx still runs with the old limit: exit 1" 1 -- "$ET" verify --root "$t" --only limits
contains "verify: drift, restart to apply" "drift: limits nginx.service LimitNOFILE is '1024:524288', want '4096:8192': nginx.service (PID 4242) started before the drop-in: restart nginx.service to apply"
# nginx restarted: its processes have the drop-in's limits.
rm -r "$t/sys/fs/cgroup/system.slice/nginx.service"
mk_running "$t" system.slice/nginx.service 5000 4096 8192 2000
sed -i 's/^Max locked memory .*/Max locked memory         67108864             67108864             bytes     /' "$t/proc/5000/limits"
check_rc "verify: restarted, nginx holds; a nofile above fs.nr_open is unmet: exit 1" 1 -- "$ET" verify --root "$t" --only limits
contains "verify: the counts" "verify: 7 hold, 0 drifted, 1 unmet, 1 not applicable"
contains "verify: the limit above fs.nr_open named" "unmet: limits postgresql@.service LimitNOFILE: not possible here: not running: applies at its next start warning: above fs.nr_open (1048576): the kernel refuses a nofile limit above it"
# A process may raise its own soft limit up to the hard one (Go does).
sed -i 's/^Max open files .*/Max open files            8192                 8192                 files     /' "$t/proc/5000/limits"
check_rc "verify: a process's own soft limit: holds" 1 -- "$ET" verify --root "$t" --only limits
contains "verify: a process's own soft limit: holds (the counts)" "verify: 7 hold, 0 drifted, 1 unmet, 1 not applicable"
OUT=$("$ET" plan --wide --root "$t" --only limits 2>&1)
contains "plan: says the process set its own soft limit" "nginx.service (PID 5000) set its own soft limit (allowed up to the hard one)"
check_rc "apply again: exit 0" 0 -- "$ET" apply --root "$t" --only limits
matches "apply again: nothing to change" "^limits nginx.service +LimitNOFILE +8192 +4096:8192 keep"
check_rc "--json verify: exit 1 (unmet)" 1 -- "$ET" verify --json --root "$t" --only limits
contains "--json verify: unmet" '"target":"postgresql@.service","setting":"LimitNOFILE","current":"infinity","desired":"infinity","action":"keep"'
matches "--json verify: its verdict" '"unmet":true,("writers":\[[^]]*\],)?"verdict":"unmet","holds":false'

check_rc "--json plan: exit 0" 0 -- "$ET" plan --json --root "$t" --only limits
contains "--json plan: the limits domain" '"domain":"limits","target":"nginx.service","setting":"LimitNOFILE"'

# The configuration changes: what it no longer asks for goes.
cat >"$t/etc/earlytune.conf" <<'EOF'
[limits "nginx.service"]
nofile = 4096:8192
EOF
check_rc "changed configuration: plan names what goes" 0 -- "$ET" plan --wide --root "$t" --only limits
matches "plan: a line of a drop-in no longer asked for" "^limits nginx.service +LimitMEMLOCK +67108864 +unset +change earlytune's drop-in sets it, the configuration no longer does: removed"
matches "plan: the default no longer asked for" "^limits manager +DefaultLimitNOFILE +65536 +unset +change"
eq "plan: each line no longer asked for" "$(printf '%s\n' "$OUT" | grep -c 'no longer does: removed')" 7
check_rc "verify: what goes is drift" 1 -- "$ET" verify --root "$t" --only limits
check_rc "apply the changed configuration: exit 0" 0 -- "$ET" apply --json --root "$t" --only limits
eq "nginx's drop-in keeps only what is asked" "$(grep -v '^#' "$t/$D/nginx.service.d/$F" 2>&1)" "[Service]
LimitNOFILE=4096:8192"
eq "the other units' drop-ins and directories are gone" "$(cd "$t/$D" && ls -d *.d | tr '\n' ' ')" "nginx.service.d "
[ ! -e "$t/run/systemd/system.conf.d/$F" ]; eq "the default's drop-in is gone" $? 0
check_rc "verify: holds again" 0 -- "$ET" verify --root "$t" --only limits

# Revert removes what earlytune wrote, and only that.
printf '[Service]\nNice=5\n' >"$t/$D/nginx.service.d/10-admin.conf"
check_rc "revert: exit 0" 0 -- "$ET" revert --json --root "$t" --only limits
contains "revert: says what it removed and what restarts" "removed: systemd forgets it at the next daemon-reload; restart nginx.service"
[ ! -e "$t/$D/nginx.service.d/$F" ]; eq "revert: nginx's drop-in removed" $? 0
eq "revert: the admin's drop-in stays" "$(cat "$t/$D/nginx.service.d/10-admin.conf")" "[Service]
Nice=5"
eq "revert: no drop-in of earlytune left" "$(find "$t/run/systemd" -name "$F" | wc -l)" 0
eq "revert: the records are gone" "$(records "$t" | grep -c '^limits')" 0
check_rc "revert again: nothing to do" 0 -- "$ET" revert --root "$t" --only limits
contains "revert again: no item, said so" "revert: nothing to revert: no originals recorded in $t/run/earlytune"

# --boot, as the generator runs it: exit 0, the drop-ins written.
check_rc "--boot apply --only limits (the generator): exit 0" 0 -- "$ET" --boot apply --root "$t" --only limits
[ -f "$t/$D/nginx.service.d/$F" ]; eq "--boot: the drop-in written" $? 0
"$ET" revert --root "$t" >/dev/null 2>&1

# Bad values and keys: named with the fix, exit 2, nothing written.
bad() { # DESC CONFIG MESSAGE
	printf '%s\n' "$2" >"$t/etc/earlytune.conf"
	check_rc "$1: exit 2" 2 -- "$ET" apply --root "$t" --only limits
	contains "$1: said" "$3"
	eq "$1: nothing written" "$(find "$t/run/systemd" -name "$F" | wc -l)" 0
}
bad "soft above hard" '[limits "nginx.service"]
nofile = 8192:4096' "[limits] nofile = '8192:4096': the soft limit is above the hard one"
bad "not a number" '[limits "nginx.service"]
nofile = lots' "[limits] nofile = 'lots': not a limit; expected SOFT[:HARD], each a whole number or 'infinity'"
bad "a suffix on a count" '[limits "nginx.service"]
nproc = 64K' "[limits] nproc = '64K': not a limit"
bad "an unknown suffix" '[limits]
memlock = 64Q' "[limits] memlock = '64Q': not a limit; expected SOFT[:HARD], each a whole number of bytes (suffixes K, M, G, T, P, E: 1024-based) or 'infinity'"
bad "too large" '[limits]
core = 20E' "[limits] core = '20E': too large"
bad "a key typo" '[limits]
nofiles = 4096' "unknown key 'nofiles' in [limits]; did you mean 'nofile'? allowed: nofile nproc memlock core"
bad "systemd's spelling of a key" '[limits "nginx.service"]
LimitNOFILE = 4096' "unknown key 'LimitNOFILE' in [limits]; did you mean 'nofile'?"
bad "a unit without .service" '[limits "nginx"]
nofile = 4096' "[limits \"nginx\"]: limits are set on services: a unit name ending in .service (\"nginx.service\"?)"
bad "a glob without .service" '[limits "postgresql@*"]
nofile = 4096' "end the glob in .service (\"postgresql@*.service\")"
bad "an unclosed glob" '[limits "ngin[x.service"]
nofile = 4096' "'[' opens a character class that no ']' closes"

# A template's running instances: their cgroups are in the template's slice,
# its name escaped as systemd does (worker-pool@ → system-worker\x2dpool.slice).
w=$WORK/template
mk_kvm "$w"
mk_unit "$w" usr/lib/systemd/system worker-pool@.service
mk_running "$w" 'system.slice/system-worker\x2dpool.slice/worker-pool@1.service' 700 2048 2048 300
mk_running "$w" 'system.slice/system-worker\x2dpool.slice/worker-pool@2.service' 800 1024 524288 400
printf '[limits "worker-pool@*.service"]\nnofile = 2048\n' >"$w/etc/earlytune.conf"
check_rc "template: apply" 0 -- "$ET" apply --root "$w" --only limits
check_rc "template: an instance still has the old limit: exit 1" 1 -- "$ET" verify --root "$w" --only limits
contains "template: the instance named, restart it" "drift: limits worker-pool@.service LimitNOFILE is '1024:524288', want '2048': worker-pool@2.service (PID 800) started before the drop-in: restart worker-pool@2.service to apply"
rm -r "$w/sys/fs/cgroup/system.slice/system-worker\\x2dpool.slice/worker-pool@2.service"
check_rc "template: the other instance restarted: holds" 0 -- "$ET" verify --root "$w" --only limits

# /proc/PID/limits that cannot be read: the drop-in is written all the same;
# once it is in place, what is in force is unknown: an error for verify.
u=$WORK/unreadable
mk_kvm "$u"
mk_unit "$u" usr/lib/systemd/system a.service
mk_running "$u" system.slice/a.service 99 1024 4096
sed -i '/^Max open files/d' "$u/proc/99/limits"
printf '[limits "a.service"]\nnofile = 10\n' >"$u/etc/earlytune.conf"
check_rc "unreadable limits: apply writes the drop-in" 0 -- "$ET" apply --root "$u" --only limits
contains "unreadable limits: said" "cannot read 'Max open files' in /proc/99/limits: no such line"
[ -f "$u/$D/a.service.d/$F" ]; eq "unreadable limits: the drop-in is there" $? 0
check_rc "unreadable limits: verify fails" 1 -- "$ET" verify --root "$u" --only limits
contains "unreadable limits: verify names it" "drift: limits a.service LimitNOFILE: cannot read 'Max open files' in /proc/99/limits: no such line"

# A changed value is a change: the drop-in's old value is not the new one
# (the QEMU boot found plan comparing the new value with itself: the drop-in
# kept the old limit after a configuration change and a daemon-reload).
v=$WORK/value
mk_kvm "$v"
mk_unit "$v" etc/systemd/system ettest-limits.service
mkdir -p "$v/etc/earlytune.d" "$v/run/earlytune.d"
printf '[limits "ettest-limits.service"]\nnofile = 4096:8192\n' >"$v/etc/earlytune.d/50-a.conf"
check_rc "changed value: the first apply" 0 -- "$ET" --boot apply --root "$v" --only limits
printf '[limits "ettest-limits.service"]\nnofile = 5000:10000\n' >"$v/run/earlytune.d/60-b.conf"
check_rc "changed value: plan" 0 -- "$ET" plan --wide --root "$v" --only limits
matches "changed value: the drop-in's value against the new one" "^limits ettest-limits.service LimitNOFILE +4096:8192 +5000:10000 +change"
check_rc "changed value: verify says drift" 1 -- "$ET" verify --root "$v" --only limits
check_rc "changed value: --boot apply (the generator at daemon-reload)" 0 -- "$ET" --boot apply --root "$v" --only limits
eq "changed value: the drop-in has the new value" "$(grep '^Limit' "$v/$D/ettest-limits.service.d/$F")" "LimitNOFILE=5000:10000"
check_rc "changed value: verify holds" 0 -- "$ET" verify --root "$v" --only limits
