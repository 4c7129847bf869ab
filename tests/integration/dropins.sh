# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 8 defect 10: one drop-in that cannot be read (a directory named
# x.conf, a dangling symlink, a FIFO, a drop-in directory that is a file)
# is skipped and named. --boot applies the rest (exit 0); every other command
# names each bad file, writes nothing and exits 2, as for a bad line.
. "$(dirname "$0")/../lib/common.sh"

t=$WORK/tree
mk_kvm "$t"
mk_net_builtin "$t"
mkdir -p "$t/etc/earlytune.d" "$t/usr/lib/earlytune.d"
printf '[block "virtual"]\nread_ahead_kb = 2048\n' >"$t/etc/earlytune.d/10-good.conf"
mkdir "$t/etc/earlytune.d/20-dir.conf"
ln -s /nonexistent/x.conf "$t/etc/earlytune.d/30-dangling.conf"
mkfifo "$t/etc/earlytune.d/40-fifo.conf"
printf '[thp]\ndefrag = never\n' >"$t/usr/lib/earlytune.d/50-good.conf"
printf 'not a directory\n' >"$t/run/earlytune.d"
before=$(snapshot "$t")

for cmd in plan apply verify config; do
	check_rc "$cmd: exit 2" 2 -- timeout 20 "$ET" $cmd --root "$t"
	contains "$cmd: names the directory x.conf" "$t/etc/earlytune.d/20-dir.conf: not a regular file; skipping this file"
	contains "$cmd: names the dangling symlink" "$t/etc/earlytune.d/30-dangling.conf: cannot open: No such file or directory"
	contains "$cmd: names the FIFO" "$t/etc/earlytune.d/40-fifo.conf: not a regular file"
	contains "$cmd: names the drop-in directory it cannot list" "$t/run/earlytune.d: cannot list: Not a directory"
	contains "$cmd: says what it did" "4 configuration errors (4 files skipped); nothing was written"
done
eq "without --boot: nothing written" "$(snapshot "$t")" "$before"

: >"$t/dev/kmsg"
check_rc "--boot apply: exit 0, no hang on the FIFO" 0 -- timeout 20 "$ET" --boot apply --root "$t"
OUT=$(cat "$t/dev/kmsg")
contains "--boot: names the bad file in the kernel log" "<3>earlytune: $t/etc/earlytune.d/20-dir.conf: not a regular file; skipping this file"
contains "--boot: says the rest applies" "4 configuration errors (4 files skipped); applying the rest"
eq "--boot: the good /etc drop-in applied" "$(cat "$t/sys/block/vda/queue/read_ahead_kb")" 2048
eq "--boot: the good /usr/lib drop-in applied" "$(active "$t/sys/kernel/mm/transparent_hugepage/defrag")" never
"$ET" revert --root "$t" >/dev/null 2>&1
rm -f "$t/run/earlytune.d"

# /etc/earlytune.conf that cannot be read is named, not taken as absent.
mkdir "$t/etc/earlytune.conf"
check_rc "unreadable /etc/earlytune.conf: exit 2" 2 -- "$ET" plan --root "$t"
contains "unreadable /etc/earlytune.conf: named" "$t/etc/earlytune.conf: not a regular file"
