# SPDX-License-Identifier: LGPL-2.1-or-later
# The udev path: a one-device `--boot apply --device` does what the job needs
# and little else. The lock is opened first and its directory made only when
# the open says it is missing (no mkdir of directories that exist); the disk
# is looked up as sys/block/NAME without a look at sys/block first; the run
# log is appended with one fstat (from the check that it is a regular file);
# the built-in profile comes parsed at build time, not from its text, and
# its strings are not copied; no terminal is asked for a width and no
# geteuid() made for lines that need neither.
. "$(dirname "$0")/../lib/common.sh"

need "strace is installed (.ci/bootstrap)" command -v strace
t=$WORK/kvm
mk_kvm "$t"
calls() { # FILE ARGS…: the run's system calls, one a line
	_f=$1
	shift
	strace -f -o "$_f" "$ET_BIN" "$@" >/dev/null 2>&1
	RC=$?
}

# A boot's first run: no run/ at all. The lock's open fails, the directories
# are made, the lock is taken and the originals recorded.
calls "$WORK/first" --boot apply --root "$t" --device vda
eq "a first run applies" "$RC" 0
eq "a first run records vda's originals" "$(cut -f2 "$t/run/earlytune/disks/vda" | sort -u)" vda
eq "a first run opens the lock, finds no directory, makes it and opens the lock again" \
	"$(grep -c 'run/earlytune/lock' "$WORK/first")" 2

# Every later run: the directories are there.
echo 8192 >"$t/sys/devices/virtual/block/vda/queue/read_ahead_kb"
calls "$WORK/later" --boot apply --root "$t" --device vda
eq "a later run applies" "$RC" 0
eq "strace sees the later run take the lock" "$(grep -c 'run/earlytune/lock' "$WORK/later")" 1
eq "a later run makes no directory" "$(grep -c 'mkdir' "$WORK/later")" 0
eq "a later run reaches run/earlytune first through its lock" \
	"$(grep -o '"run/earlytune/[^"]*"' "$WORK/later" | head -1)" '"run/earlytune/lock"'
eq "a --device run does not look at sys/block before sys/block/vda" \
	"$(grep -c '"sys/block", {flags=[^}]*O_PATH' "$WORK/later")" 0
# It prints no table: no terminal is asked for its width. Its lines are
# not refusals: no geteuid() for the not-root hint.
eq "a --boot run asks no terminal its width" "$(grep -c 'ioctl(' "$WORK/later")" 0
eq "a --boot run's lines ask no geteuid()" "$(grep -c 'geteuid(' "$WORK/later")" 0
log=$(sed -n '/"run\/earlytune\/runs"/,/^[0-9]* *close(/p' "$WORK/later")
eq "the run log: open, fstat, write, close (nothing of it read)" \
	"$(printf '%s\n' "$log" | sed 's/^[0-9]* *\([a-z0-9]*\)(.*/\1/' | tr '\n' ' ')" \
	"openat2 newfstatat write close "

# A --device that is not there: the tree without sys/block still lists its
# disks under sys/devices; one with it says the disk is not there.
check_rc "a --device that is not there exits 1" 1 -- "$ET" apply --root "$t" --device vdz
contains "…and names it" vdz
t2=$WORK/nosysblock
cp -a "$t" "$t2"
rm -rf "$t2/sys/block" "$t2/run"
echo 8192 >"$t2/sys/devices/virtual/block/vda/queue/read_ahead_kb"
check_rc "a tree without sys/block: --device vda found under sys/devices" 0 -- \
	"$ET" --boot apply --root "$t2" --device vda
eq "…and tuned" "$(cat "$t2/sys/devices/virtual/block/vda/queue/read_ahead_kb")" 1024

# The built-in profile is not parsed at run time; a configuration file is.
if ! command -v valgrind >/dev/null; then
	skip "the built-in profile parsed at build time" "no valgrind"
	exit 0
fi
parsed() { # ARGS…: the functions the run called, by callgrind
	valgrind --tool=callgrind --callgrind-out-file="$WORK/cg" "$ET_BIN" "$@" >/dev/null 2>&1
	grep -c 'config_parse_text$' "$WORK/cg"
}
printf '[thp]\nenabled = madvise\n' >"$WORK/x.conf"
eq "callgrind sees a configuration file parsed from text" \
	"$(parsed --boot apply --root "$t" --device vda --profile none --config "$WORK/x.conf")" 1
eq "the built-in profile is not parsed from text" "$(parsed --boot apply --root "$t" --device vda)" 0
# calls FROM TO: how often the last run under callgrind called TO from FROM
# (function names as callgrind writes them uncompressed)
cg_calls() {
	awk -v from="$1" -v to="$2" '/^fn=/ { f = substr($0, 4) } /^cfn=/ { t = substr($0, 5) }
		/^calls=/ && f == from && t == to { split($1, a, "="); n += a[2] } END { print n + 0 }' "$WORK/cg"
}
valgrind --tool=callgrind --compress-strings=no --callgrind-out-file="$WORK/cg" "$ET_BIN" --boot apply \
	--root "$t" --device vda >/dev/null 2>&1
eq "the built-in profile's strings are used in place, not copied" "$(cg_calls config_use_profile strdup)" 1
eq "the [block] sections are compiled in one pass, no config_get per section and key" \
	"$(cg_calls bconf_new config_get)" 0
check_rc "config --profile still prints the profile's text" 0 -- "$ET" config --profile vps --root "$t"
contains "…with its reasons" "# profile vps: BBR and fq must be loaded"
