# SPDX-License-Identifier: LGPL-2.1-or-later
# Fault injection with strace (sourced after common.sh): fail the N-th call of
# one syscall of an earlytune run on a copy of a tree, for every N, then check
# what the run left behind against snapshots of a clean run.
#
# A path is described by variables, then `fx_sweep NAME` runs it:
#   FX_BEFORE   the tree the command starts from (copied for every run)
#   FX_ARGS     earlytune's arguments; the copy's path is appended
#   FX_UNDO     the clean command that must bring every original back
#               ("revert --root", "cmdline remove --root"); the path is appended
#   FX_TARGET   what FX_UNDO must restore: "before" (apply) or "after" (undo
#               commands: the clean run's result)
#   FX_PRE      words put before strace/earlytune (env PATH=... for stub tools)
#   FX_BOOT     1: --boot runs always exit 0, so (c) is not asserted
#   FX_MAX      most positions tried per syscall (evenly spread); 0 = all
# Failures go to $FX_FINDINGS, one line each.
#
# The properties, after each faulty run:
#   (a) every file is wholly old or wholly new: its bytes and mode equal the
#       before- or the after-snapshot of that path; no other file (a temp file)
#       exists; no file present in both snapshots is gone; the state files
#       (run/earlytune/originals, disks/NAME, links/IFINDEX) hold only whole
#       lines of either snapshot, each in its file;
#   (b) FX_UNDO, run cleanly, exits 0 and restores the target snapshot exactly
#       (run/earlytune excepted, whose originals must then hold no record);
#   (c) exit 0 only when the tree is exactly the clean run's result (--boot
#       always exits 0: there, the log must name a failure instead);
#   (d) no crash: no death by a signal, no sanitizer report.

# No -f: earlytune's children are the stub bootloader tools of the tests;
# faults go to earlytune's own calls. strace numbers each syscall separately.
FX_SYSCALLS="openat2 openat read pread64 write pwrite64 ftruncate renameat renameat2 fsync fdatasync mkdirat unlinkat getdents64 readlinkat"
FX_FINDINGS=${FX_FINDINGS:-$WORK/findings}
FX_PRE= FX_BOOT=0 FX_MAX=0

# fx_strace ARGS...: strace after FX_PRE, without LeakSanitizer (it cannot
# run under ptrace; untraced runs, such as the undo, keep it).
fx_strace() {
	$FX_PRE env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace "$@"
}

# fx_list DIR: "path<TAB>content<TAB>mode" of every regular file, the lock
# and the run log's segments (runs, runs.old, runs.new: their records hold
# times; fx_runlog_lines judges them)
# excluded. The content is an md5 sum, but for kernel attributes (under sys/
# and proc/sys/) the active value: a fake selector file holds
# "[mq-deadline] none" before and "mq-deadline" after a revert.
fx_list() {
	(
		cd "$1" || exit 1
		find . -type f ! -path ./run/earlytune/lock ! -path './run/earlytune/runs*' -printf '%p\t%m\n' |
			sort >"$WORK/.modes"
		{
			find . -type f ! -path ./run/earlytune/lock ! -path './run/earlytune/runs*' ! -path './sys/*' \
				! -path './proc/sys/*' -print0 |
				xargs -0 -r md5sum | awk '{ print substr($0, 35) "\t" $1 }'
			find ./sys ./proc/sys -type f -print0 2>/dev/null | xargs -0 -r awk '
				function out() { if (f != "") print f "\tv:" v }
				FNR == 1 { out(); f = FILENAME; v = "" }
				{ v = v (FNR > 1 ? " " : "") $0 }
				END {
					out()
				}' | awk -F'\t' '{
					v = $2
					if (match(v, /\[[^]]*\]/)) v = "v:" substr(v, RSTART + 1, RLENGTH - 2)
					gsub(/[ \t]+$/, "", v)
					print $1 "\t" v
				}'
		} | sort | join -t "$(printf '\t')" -a 2 -e v: -o 0,1.2,2.2 - "$WORK/.modes"
	)
}

# fx_kernel_keeps RUN START: earlytune opens an attribute with O_TRUNC (sysfs
# ignores it); a fake attribute whose write then failed is empty, where a
# kernel keeps the value it had. Put that value back before judging.
fx_kernel_keeps() {
	(cd "$1" && find ./sys ./proc/sys -type f -empty 2>/dev/null) | while read -r _f; do
		if [ -s "$2/$_f" ]; then cp -p "$2/$_f" "$1/$_f"; fi
	done
}

# fx_mixed BEFORE.lst AFTER.lst RUN.lst: property (a) on the listings, one
# line per offending path (nothing when it holds). The state file is judged
# by fx_state_lines.
fx_mixed() {
	awk -F'\t' '
	FILENAME == ARGV[1] { b[$1] = $2 " " $3; next }
	FILENAME == ARGV[2] { a[$1] = $2 " " $3; next }
	{
		seen[$1] = 1
		# A state file may hold a rewrite between the snapshots:
		# fx_state_lines judges it; its mode is one of theirs.
		if ($1 ~ /^\.\/run\/earlytune\/(originals|records|(disks|links)\/[^.][^\/]*)$/) {
			split(b[$1], bm, " "); split(a[$1], am, " ")
			if (!($1 in b && $3 == bm[2]) && !($1 in a && $3 == am[2]))
				print "mode neither old nor new: " $1
			next
		}
		v = $2 " " $3
		if (!($1 in b) && !($1 in a)) print "left behind: " $1
		else if (v != b[$1] && v != a[$1]) print "neither old nor new: " $1
	}
	END { for (p in b) if ((p in a) && !(p in seen)) print "gone: " p }' "$@"
}

# fx_state_files DIR: the state files of tree DIR, relative to it.
fx_state_files() {
	(cd "$1" && ls -d run/earlytune/originals run/earlytune/records run/earlytune/disks/* run/earlytune/links/* 2>/dev/null)
}

# fx_one_index FILE: the one file (src/engine/state_one.c) is one a whole
# write made: its header, then index lines of exactly the length the header
# says, each group starting where the one before ended, on a line's start,
# and the last ending at the end of the file.
fx_one_index() {
	awk -v f="$1" '
	function bad(why) { if (!done++) print "bad index in run/earlytune/records: " why }
	NR == 1 { if (split($0, h, "\t") != 3 || h[1] != "earlytune-records" || h[2] != "1" || h[3] !~ /^[0-9]+$/) bad("header")
		ilen = h[3] + 0; next }
	pos < ilen { pos += length($0) + 1; n = split($0, e, "\t")
		if (n != 3 || e[2] + 0 != off) bad("group " e[1] " at " e[2] ", not " off)
		off += e[3]; ends[off] = 1; next }
	{ if (pos != ilen) bad("index length"); pos = ilen; b += length($0) + 1; lb[b] = 1 }
	END {
		if (pos != ilen) bad("index length")
		if (b != off) bad("body of " b " bytes, index says " off)
		for (x in ends) if (!(x in lb)) bad("a group ends mid-line at " x)
	}' "$1"
}

# fx_state_lines RUN BEFORE AFTER: each state file of RUN is one that a
# whole rewrite made (src/engine/state.c: every change is an atomic rewrite of a
# file): it ends with a newline, the one file's index is whole, and the
# records in force (an override's, else the one file's) are only lines of
# six fields (domain, target, setting, path, value, identity) that one of
# the snapshots has, each in its group (a disk's in disks/NAME, an
# interface's in links/IFINDEX), each path once in all, and an identity of
# the form its domain has.
fx_state_lines() {
	{ state_records "$2/run/earlytune"; state_records "$3/run/earlytune"; } >"$WORK/.ok"
	for _s in $(fx_state_files "$1"); do
		[ -f "$1/$_s" ] || continue
		if [ -n "$(tail -c 1 "$1/$_s")" ]; then
			echo "torn last line in $_s"
		fi
	done
	[ ! -f "$1/run/earlytune/records" ] || fx_one_index "$1/run/earlytune/records"
	state_keyed "$1/run/earlytune" >"$WORK/.keyed"
	[ -s "$WORK/.keyed" ] || return 0
	awk -F'\t' '
	FILENAME == ARGV[1] { ok[$0] = 1; next }
	{ s = "run/earlytune/" $1; line = substr($0, length($1) + 2) }
	NF != 7 { print "malformed line in " s ": " line; next }
	($2 == "block" && $7 !~ /^(diskseq:[0-9]+|dev:[0-9a-f]+)$/) ||
	($2 == "net" && $4 == "qdisc" && $7 !~ /^ifindex:[1-9][0-9]*$/) ||
	($2 != "block" && !($2 == "net" && $4 == "qdisc") && $7 != "") {
		print "identity of the wrong form in " s ": " line; next
	}
	seen[$5]++ == 1 { print "path recorded twice in " s ": " $5 }
	!(line in ok) { print "line of neither snapshot in " s ": " line; next }
	s != ($2 == "block" ? "run/earlytune/disks/" $3 : \
	      $2 == "net" && $4 == "qdisc" ? "run/earlytune/links/" substr($5, 17) : "run/earlytune/originals") {
		print "record in another file than its own, " s ": " line
	}' "$WORK/.ok" "$WORK/.keyed"
}

# fx_runlog_lines RUN: each segment of the run log of RUN (src/engine/runlog.c) is
# one an append or a rotation made: the version line first, then only whole
# run, carried run and item records and the empty line before each run, the
# last line ended (a failed append cuts what it wrote; only a death inside
# write(2) could tear a line).
fx_runlog_lines() {
	for _l in "$1"/run/earlytune/runs "$1"/run/earlytune/runs.old "$1"/run/earlytune/runs.new; do
		[ -f "$_l" ] || continue
		_n=${_l##*/}
		[ -z "$(tail -c 1 "$_l")" ] || echo "torn last line in run/earlytune/$_n"
		head -1 "$_l" | grep -q '^V	2	[0-9]*$' || echo "run/earlytune/$_n does not start with its version"
		grep -v '^[RPI]	\|^$' "$_l" | tail -n +2 | head -1 | sed "s|^|malformed line in run/earlytune/$_n: |"
	done
}

# fx_undone RUN TARGET.lst [TARGET_STATE]: property (b) after FX_UNDO ran on
# RUN: the records left are those of TARGET_STATE (none when it is absent:
# a revert or cmdline remove forgets all, a forget those of its device).
fx_undone() {
	if ! state_records "$1/run/earlytune" | cmp -s - "${3:-/dev/null}"; then
		echo "records left after the undo: $(state_records "$1/run/earlytune" | head -c 200 | tr '\t\n' ' |')"
	fi
	# run/earlytune is left holding the lock, the run log (runs, and
	# runs.old once it rotated), the state files of the records left and at
	# most an empty originals: a temp file of a killed rewrite, too, is gone.
	(cd "$1" && find ./run/earlytune \( -name '.*' -o ! -type d ! -name lock ! -name originals ! -name records ! -name runs \
		! -name runs.old ! -path './run/earlytune/disks/*' ! -path './run/earlytune/links/*' \) 2>/dev/null) |
		sed 's/^/left behind after the undo: /'
	fx_list "$1" | grep -v '^\./run/earlytune/' >"$WORK/.undone"
	grep -v '^\./run/earlytune/' "$2" | diff - "$WORK/.undone" | grep '^[<>]' | head -5 |
		sed 's/^</missing or different (expected):/; s/^>/unexpected (got):/'
}

# fx_crashed RC OUTFILE [SIG]: property (d).
fx_crashed() {
	if [ "$1" -ge 128 ] && [ "$1" != "${3:-none}" ]; then
		echo "died of signal $(($1 - 128))"
	fi
	grep -m 3 -E 'Sanitizer|runtime error|Segmentation fault|core dumped|Aborted|^strace: ' "$2"
}

# Sampling: FX_EVERY=K keeps, of each syscall's positions, the first, the
# last and every K-th from FX_OFFSET on. make check samples (K = 4, 8 under
# the sanitizers) with the offset of the commit's number in the history, so
# that any K commits in a row together try every position; make check-faults
# tries them all (K = 1).
FX_EVERY=${FX_EVERY:-1}
if [ -z "${FX_OFFSET:-}" ]; then
	FX_OFFSET=$(git -C "$TESTS_DIR" rev-list --count HEAD 2>/dev/null || echo 0)
fi
FX_OFFSET=$((FX_OFFSET % FX_EVERY))

# fx_sampling: how the positions were chosen, for the report lines
fx_sampling() {
	if [ "$FX_EVERY" -gt 1 ]; then echo "sampled: first, last and 1 in $FX_EVERY from $FX_OFFSET"; else echo "every position"; fi
}

# fx_positions COUNT FIRST: COUNT positions from FIRST on, at most FX_MAX of
# them, evenly spread, then sampled by FX_EVERY; the first and the last
# always included.
fx_positions() {
	awk -v c="$1" -v f="$2" -v m="$FX_MAX" -v k="$FX_EVERY" -v o="$FX_OFFSET" 'BEGIN {
		if (m <= 0 || c <= m) { for (i = 0; i < c; i++) p[n++] = f + i }
		else for (j = 0; j < m; j++) p[n++] = f + int(j * (c - 1) / (m - 1) + 0.5)
		for (i = 0; i < n; i++) if (i == 0 || i == n - 1 || (p[i] - f) % k == o) print p[i]
	}' | uniq
}

# fx_count: "count syscall first" of a clean run under strace: the calls
# from earlytune's opening of the root on (a dynamic sanitizer build first
# loads libraries: failing those reads tests ld.so, not earlytune).
fx_count() {
	rm -rf "$WORK/fx.count"
	cp -a "$FX_BEFORE" "$WORK/fx.count"
	fx_strace -s 256 -o "$WORK/fx.trace" "$ET_BIN" $FX_ARGS "$WORK/fx.count" >/dev/null 2>&1
	awk -v root="openat(AT_FDCWD, \"$WORK/fx.count\"," '
	!started && index($0, root) == 1 { started = 1 }
	{ sc = $0; sub(/\(.*/, "", sc); if (sc !~ /^[a-z0-9_]+$/) next }
	!started { skip[sc]++; next }
	{ n[sc]++ }
	END { for (sc in n) print n[sc], sc, skip[sc] + 1 }' "$WORK/fx.trace" | sort -k2 >"$WORK/fx.counts"
}

# fx_one NAME SYSCALL ERRNO N: one faulty run and its checks; prints what
# went wrong (nothing when every property held).
fx_one() {
	_run=$WORK/fx.run
	rm -rf "$_run"
	cp -a "$FX_BEFORE" "$_run"
	fx_strace -o /dev/null -e "inject=$2:error=$3:when=$4" "$ET_BIN" $FX_ARGS "$_run" >"$WORK/fx.out" 2>&1
	_rc=$?
	fx_kernel_keeps "$_run" "$FX_BEFORE"
	fx_list "$_run" >"$WORK/fx.run.lst"
	(
		fx_crashed "$_rc" "$WORK/fx.out" | sed 's/^/(d) /'
		fx_mixed "$WORK/fx.before.lst" "$WORK/fx.after.lst" "$WORK/fx.run.lst" | sed 's/^/(a) /'
		fx_state_lines "$_run" "$FX_BEFORE" "$WORK/fx.after" | sed 's/^/(a) /'
		fx_runlog_lines "$_run" | sed 's/^/(a) /'
		if [ "$FX_BOOT" != 1 ] && [ "$_rc" = 0 ] && ! cmp -s "$WORK/fx.run.lst" "$WORK/fx.after.lst"; then
			echo "(c) exit 0 but the tree is not the clean result: $(diff "$WORK/fx.after.lst" "$WORK/fx.run.lst" |
				grep '^[<>]' | cut -f1 | head -3 | tr '\n' ' ')"
			grep -m 2 -iE 'error|cannot|fail' "$WORK/fx.out" | sed 's/^/    output: /'
		fi
		if [ "$FX_BOOT" = 1 ] && ! cmp -s "$WORK/fx.run.lst" "$WORK/fx.after.lst" &&
			! grep -qE '[1-9][0-9]* failed|[Ee]rror|cannot' "$WORK/fx.out"; then
			echo "(c) --boot: the tree is not the clean result and the log names no failure: $(tail -n 1 "$WORK/fx.out")"
		fi
		# Left as the undo would leave it: nothing to undo (a run failing
		# early, or an undo command that completed).
		cmp -s "$WORK/fx.run.lst" "$WORK/fx.target.lst" && exit 0
		$FX_PRE "$ET_BIN" $FX_UNDO "$_run" >"$WORK/fx.undo.out" 2>&1
		_urc=$?
		[ "$_urc" = 0 ] || echo "(b) the clean undo exits $_urc: $(grep -m 2 -iE 'error|cannot|fail' "$WORK/fx.undo.out" | tr '\n' '|')"
		fx_crashed "$_urc" "$WORK/fx.undo.out" | sed 's/^/(d) undo: /'
		fx_undone "$_run" "$WORK/fx.target.lst" "$WORK/fx.target.state" | sed 's/^/(b) /'
	) >"$WORK/fx.bad"
	if [ -s "$WORK/fx.bad" ]; then
		_why=$(grep -v '^    output' "$WORK/fx.bad" | head -1)
		# The call that failed, as the clean run made it.
		_call=$(grep "^$2(" "$WORK/fx.trace" | sed -n "$4p" | cut -c1-110)
		printf '%s: %s N=%s %s [%s]: rc=%s: %s\n' "$1" "$2" "$4" "$3" "$_call" "$_rc" \
			"$(tr '\n' ' ' <"$WORK/fx.bad" | cut -c1-600)" >>"$FX_FINDINGS"
		echo "$2 N=$4 $3 rc=$_rc: $_why"
	fi
}

# fx_points: "syscall errno position" of every faulty run of a sweep (after
# fx_count): every class, EIO (and ENOSPC for write), FX_MAX positions.
fx_points() {
	for _sc in $FX_SYSCALLS; do
		_n=$(awk -v s="$_sc" '$2 == s { print $1 }' "$WORK/fx.counts")
		[ -n "$_n" ] || continue
		_first=$(awk -v s="$_sc" '$2 == s { print $3 }' "$WORK/fx.counts")
		for _e in EIO $([ "$_sc" = write ] && echo ENOSPC); do
			fx_positions "$_n" "$_first" | sed "s/^/$_sc $_e /"
		done
	done
}

# fx_report NAME RUNS: pass or fail a sweep by the findings in fx.bads.
fx_report() {
	_bad=$(grep -c . "$WORK/fx.bads")
	_classes=$(awk -v l="$FX_SYSCALLS" 'BEGIN { n = split(l, s, " "); for (i = 1; i <= n; i++) w[s[i]] = 1 }
		$2 in w { printf "%s%s×%s", sep, $2, $1; sep = " " }' "$WORK/fx.counts")
	if [ "$_bad" = 0 ]; then
		pass "$1: $2 runs, 0 failures ($_classes; $(fx_sampling))"
	else
		fail "$1: $2 runs, $_bad failures ($_classes; $(fx_sampling))" "$(head -12 "$WORK/fx.bads")"
	fi
	FX_RUNS=$((${FX_RUNS:-0} + $2))
}

# fx_sweep NAME: the clean run, then every syscall class at every position.
fx_sweep() {
	_fxn=$1 _runs=0
	rm -rf "$WORK/fx.after"
	cp -a "$FX_BEFORE" "$WORK/fx.after"
	$FX_PRE "$ET_BIN" $FX_ARGS "$WORK/fx.after" >"$WORK/fx.out" 2>&1
	_rc=$?
	fx_list "$FX_BEFORE" >"$WORK/fx.before.lst"
	fx_list "$WORK/fx.after" >"$WORK/fx.after.lst"
	if [ "$_rc" != 0 ] || cmp -s "$WORK/fx.before.lst" "$WORK/fx.after.lst"; then
		fail "$_fxn: the clean run exits 0 and changes the tree" "exit $_rc" "$(head -5 "$WORK/fx.out")"
		return
	fi
	if [ "$FX_TARGET" = before ]; then
		cp "$WORK/fx.before.lst" "$WORK/fx.target.lst"
		_ts=$FX_BEFORE
	else
		cp "$WORK/fx.after.lst" "$WORK/fx.target.lst"
		_ts=$WORK/fx.after
	fi
	state_records "$_ts/run/earlytune" >"$WORK/fx.target.state"
	fx_count
	: >"$WORK/fx.bads"
	fx_points >"$WORK/fx.points"
	while read -r _sc _e _i; do
		_runs=$((_runs + 1))
		fx_one "$_fxn" "$_sc" "$_e" "$_i" >>"$WORK/fx.bads"
	done <"$WORK/fx.points"
	fx_report "$_fxn" "$_runs"
}

# fx_same_verdict RC OUT CLEAN_OUT CALL: property (c) of a read-only run
# whose clean run exited 0 (one line when it fails). A failed write of the
# report itself (CALL a write to stdout or stderr) loses text, not the
# verdict: only the exit status is judged then.
fx_same_verdict() {
	case $4 in write\([12],*) return 0 ;; esac
	if [ "$1" = 0 ] && ! cmp -s "$2" "$3"; then
		echo "exit 0, but not the clean run's output: $(diff "$3" "$2" | grep '^[<>]' | head -2 | tr '\n' ' ')"
	fi
}

# fx_readonly NAME: a command that writes nothing (verify), whose clean run
# exits 0: after each faulty run the tree is unchanged, nothing crashed, and
# an exit 0 comes with the clean run's very output (every item counted as
# it was: a failed read is never "holds" nor "not applicable").
fx_readonly() {
	_fxn=$1 _runs=0
	$FX_PRE "$ET_BIN" $FX_ARGS "$FX_BEFORE" >"$WORK/fx.clean.out" 2>&1
	_rc=$?
	fx_list "$FX_BEFORE" >"$WORK/fx.before.lst"
	if [ "$_rc" != 0 ]; then
		fail "$_fxn: the clean run exits 0" "exit $_rc" "$(head -5 "$WORK/fx.clean.out")"
		return
	fi
	fx_count
	: >"$WORK/fx.bads"
	fx_points >"$WORK/fx.points"
	while read -r _sc _e _i; do
		_runs=$((_runs + 1))
		rm -rf "$WORK/fx.run"
		cp -a "$FX_BEFORE" "$WORK/fx.run"
		fx_strace -o /dev/null -e "inject=$_sc:error=$_e:when=$_i" "$ET_BIN" $FX_ARGS "$WORK/fx.run" >"$WORK/fx.out" 2>&1
		_rc=$?
		sed -i "s|$WORK/fx.run|$FX_BEFORE|g" "$WORK/fx.out"
		_why=$(
			fx_crashed "$_rc" "$WORK/fx.out" | sed 's/^/(d) /'
			fx_list "$WORK/fx.run" | diff "$WORK/fx.before.lst" - | grep '^[<>]' | head -2 | sed 's/^/(a) wrote: /'
			fx_same_verdict "$_rc" "$WORK/fx.out" "$WORK/fx.clean.out" \
				"$(grep "^$_sc(" "$WORK/fx.trace" | sed -n "${_i}p")" | sed 's/^/(c) /'
		)
		if [ -n "$_why" ]; then
			printf '%s: %s N=%s %s [%s]: rc=%s: %s\n' "$_fxn" "$_sc" "$_i" "$_e" \
				"$(grep "^$_sc(" "$WORK/fx.trace" | sed -n "${_i}p" | cut -c1-110)" "$_rc" \
				"$(printf '%s\n' "$_why" | tr '\n' ' ' | cut -c1-600)" >>"$FX_FINDINGS"
			echo "$_sc N=$_i $_e rc=$_rc: $(printf '%s\n' "$_why" | head -1)" >>"$WORK/fx.bads"
		fi
	done <"$WORK/fx.points"
	fx_report "$_fxn" "$_runs"
}
