# SPDX-License-Identifier: LGPL-2.1-or-later
# `earlytune cmdline`: suggestions for a kernel version, the kernel-style
# parsing of /proc/cmdline, and apply → second apply (no byte changes) →
# verify → remove (exactly what was added) on every bootloader layout:
# Ubuntu cloud image and plain Debian GRUB, BLS with grubby, kernel-install,
# a UKI-only /boot and ostree.
#
# Assertions that once caught a bug run through `bug` (they stay: regressions).
. "$(dirname "$0")/../lib/common.sh"

OURS="transparent_hugepage=madvise nvme_core.io_timeout=4294967295"
THP=transparent_hugepage=madvise
NVME=nvme_core.io_timeout=4294967295

bug() { # DESC ASSERTION...
	shift
	"$@"
}

# ---- helpers ---------------------------------------------------------------

# The suggestions in $OUT as "action param" lines, in output order.
suggs() { printf '%s\n' "$OUT" | awk '$1 == "add" || $1 == "remove" { print $1, $2 }'; }

has_sugg() { # DESC ACTION PARAM
	if suggs | grep -qxF "$2 $3"; then
		pass "$1"
	else
		fail "$1" "no '$2 $3' suggestion:" "$(printf '%s\n' "$OUT" | head -20)"
	fi
}

no_sugg() { # DESC ACTION PARAM-PREFIX
	if suggs | awk -v a="$2" -v p="$3" '$1 == a && index($2, p) == 1 { f = 1 } END { exit !f }'; then
		fail "$1" "unexpected '$2 $3...' suggestion:" "$(printf '%s\n' "$OUT" | head -20)"
	else
		pass "$1"
	fi
}

# The whole suggestion line for PARAM (to check its reason).
sugg_line() { printf '%s\n' "$OUT" | awk -v p="$1" '($1 == "add" || $1 == "remove") && $2 == p'; }

# How many times WORD is a whole word of STRING.
count_word() { printf '%s\n' "$1" | tr -s '[:blank:]' '\n' | grep -cxF -- "$2"; }

# Checksums of every file under the named subtrees of ROOT (default: all).
sums() { # ROOT [SUBDIR...]
	_r=$1
	shift
	(cd "$_r" && find "${@:-.}" -type f -exec md5sum {} + 2>/dev/null | LC_ALL=C sort -k2)
}

# Every path (files and directories) of ROOT plus the checksums: "wrote nothing".
listing() { (cd "$1" && find . | LC_ALL=C sort) && sums "$1"; }

# GRUB_CMDLINE_LINUX_DEFAULT as grub-mkconfig ends up with it: /etc/default/grub,
# then /etc/default/grub.d/*.cfg in glob (sorted, C locale) order, in a subshell.
grub_default() { # ROOT
	sh -c 'set -e
		. "$1/etc/default/grub"
		for x in "$1"/etc/default/grub.d/*.cfg; do
			if [ -e "$x" ]; then . "$x"; fi
		done
		printf "%s" "$GRUB_CMDLINE_LINUX_DEFAULT"' sh "$1"
}

# 0 when VALUE, put on grub.cfg's linux line as 10_linux does (unquoted),
# stays one command: no unquoted, unescaped GRUB metacharacter ; | & < > { }.
grub_line_safe() { # VALUE
	printf '%s\n' "$1" | awk '{
		q = ""
		for (i = 1; i <= length($0); i++) {
			c = substr($0, i, 1)
			if (q == "" && c == "\\") { i++; continue }
			if (q == "") {
				if (c == "\"" || c == "\047") q = c
				else if (index(";|&<>{}", c)) bad = 1
			} else if (c == q) q = ""
		}
	} END { exit bad }'
}

# ---- layouts and stub tools: tests/lib/cmdroot.sh -------------------------

. "$TESTS_DIR/lib/cmdroot.sh"
mk_bootloader_stubs

# ---- 1. Ubuntu cloud image: GRUB drop-in after 50-cloudimg-settings.cfg ----

t=$WORK/ubuntu
mk_ubuntu "$t"
etc0=$(sums "$t" etc)
check_rc "ubuntu: suggestions exit 0" 0 -- "$ET" cmdline --wide --root "$t"
has_sugg "ubuntu: THP madvise suggested (compiled default always)" add "$THP"
has_sugg "ubuntu: EC2 + NVMe: io_timeout suggested" add "$NVME"
contains "ubuntu: the THP reason names the kernel config" "compiled default: always; /boot/config-6.8.0-1015-aws"
# Without --wide the suggestions are rows like the item table's: the reason
# and source wrapped below, every line within the width.
wide=$OUT
for cols in 80 60; do
	out=$(COLUMNS=$cols "$ET" cmdline --root "$t" 2>/dev/null)
	eq "ubuntu: COLUMNS=$cols: no line is wider" "$(printf '%s\n' "$out" | awk -v c=$cols 'length > c' | wc -l)" 0
	eq "ubuntu: COLUMNS=$cols: the same words as --wide" "$(printf '%s\n' "$out" | tr -s ' \n' '\n\n' | sort | tr '\n' ' ')" \
		"$(printf '%s\n' "$wide" | grep -v '^earlytune: ' | tr -s ' \n' '\n\n' | sort | tr '\n' ' ')"
done
check_rc "ubuntu: apply exits 0" 0 -- stubs "$ET" cmdline apply --root "$t"
contains "ubuntu: apply detected grub" "grub: added $OURS"
contains "ubuntu: apply says to run update-grub in the image" "(in the image) update-grub"
[ -f "$t/etc/default/grub.d/99-earlytune.cfg" ]; eq "ubuntu: drop-in written" $? 0
eq "ubuntu: /etc/default/grub untouched" "$(sums "$t" etc/default/grub)" "$(printf '%s\n' "$etc0" | grep ' etc/default/grub$')"
eq "ubuntu: cloud image drop-in untouched" "$(sums "$t" etc/default/grub.d/50-cloudimg-settings.cfg)" \
	"$(printf '%s\n' "$etc0" | grep 50-cloudimg)"
final=$(grub_default "$t")
eq "ubuntu: sourced as grub-mkconfig does: cloud console kept, ours appended" "$final" "console=tty1 console=ttyS0 $OURS"
for p in $OURS console=tty1 console=ttyS0; do
	eq "ubuntu: $p exactly once in GRUB_CMDLINE_LINUX_DEFAULT" "$(count_word "$final" "$p")" 1
done
eq "ubuntu: state records backend and params" "$(cat "$t/var/lib/earlytune/cmdline.state")" "$(printf 'grub\t%s' "$OURS")"
after1=$(sums "$t" etc var)
check_rc "ubuntu: second apply exits 0" 0 -- stubs "$ET" cmdline apply --root "$t"
contains "ubuntu: second apply: already in place" "already in place"
eq "ubuntu: second apply changes no byte" "$(sums "$t" etc var)" "$after1"
check_rc "ubuntu: verify before reboot exits 1" 1 -- "$ET" cmdline verify --root "$t"
contains "ubuntu: verify says pending" "pending: $NVME"
check_rc "ubuntu: remove exits 0" 0 -- "$ET" cmdline remove --root "$t"
contains "ubuntu: remove names what it removed" "grub: removed $OURS"
# The same next step as apply's, the image named the same way (issue 11).
contains "ubuntu: remove says to run update-grub in the image, as apply does" \
	"run (in the image) update-grub to regenerate grub.cfg; the removal takes effect at the next boot"
eq "ubuntu: remove restores every byte under etc/" "$(sums "$t" etc)" "$etc0"
[ ! -e "$t/var/lib/earlytune/cmdline.state" ]; eq "ubuntu: state gone after remove" $? 0
eq "ubuntu: sourced value back to the cloud image's" "$(grub_default "$t")" "console=tty1 console=ttyS0"
check_rc "ubuntu: second remove exits 0" 0 -- "$ET" cmdline remove --root "$t"
contains "ubuntu: second remove: nothing recorded" "nothing earlytune added is recorded"

# After the reboot that put our parameters in force, a newly configured one is
# applied: the drop-in must still carry the earlier ones.
check_rc "ubuntu: apply again" 0 -- "$ET" cmdline apply --root "$t"
sed -i "s/\$/ $OURS/" "$t/proc/cmdline"
printf '[cmdline]\nadd = nowatchdog\n' >"$WORK/nowd.conf"
check_rc "ubuntu: apply after reboot with a new parameter" 0 -- "$ET" cmdline apply --root "$t" --config "$WORK/nowd.conf"
final=$(grub_default "$t")
# Regression (fixed): src/cmdline/kcmdline.c apply_backend() (grub's update) + wanted_params(): after a
# reboot, parameters already in /proc/cmdline are not "wanted", and the grub
# branch rewrites the drop-in (and the state, snprintf instead of append) from
# the new parameters only. Input: apply (THP+NVMe), reboot with them, then
# `[cmdline] add = nowatchdog` and apply. Expected GRUB_CMDLINE_LINUX_DEFAULT
# "console=tty1 console=ttyS0 transparent_hugepage=madvise
# nvme_core.io_timeout=4294967295 nowatchdog"; actual "console=tty1
# console=ttyS0 nowatchdog": the next boot loses THP and the NVMe timeout (and
# the apply after that drops nowatchdog: they flip-flop).
bug "ubuntu: re-apply after reboot keeps the earlier parameters" \
	eq "ubuntu: re-apply after reboot keeps the earlier parameters" "$final" "console=tty1 console=ttyS0 $OURS nowatchdog"
bug "ubuntu: re-apply after reboot: state keeps the earlier parameters" \
	eq "ubuntu: re-apply after reboot: state keeps the earlier parameters" \
	"$(cat "$t/var/lib/earlytune/cmdline.state")" "$(printf 'grub\t%s nowatchdog' "$OURS")"
check_rc "ubuntu: remove after re-apply" 0 -- "$ET" cmdline remove --root "$t"
eq "ubuntu: remove after re-apply restores etc/" "$(sums "$t" etc)" "$etc0"

# ---- 2. Debian: /etc/default/grub only --------------------------------------

t=$WORK/debian
mk_debian "$t"
etc0=$(sums "$t" etc)
check_rc "debian: suggestions exit 0" 0 -- "$ET" cmdline --root "$t"
has_sugg "debian: GCE + NVMe: io_timeout suggested" add "$NVME"
has_sugg "debian: THP madvise suggested" add "$THP"
check_rc "debian: apply --update exits 0" 0 -- stubs "$ET" cmdline apply --update --root "$t"
[ ! -e "$LOG.update-grub" ]; eq "debian: --update never runs update-grub for another root" $? 0
contains "debian: says to run update-grub in the image" "(in the image) update-grub"
[ -f "$t/etc/default/grub.d/99-earlytune.cfg" ]; eq "debian: apply created grub.d and the drop-in" $? 0
eq "debian: sourced result is quiet + ours" "$(grub_default "$t")" "quiet $OURS"
after1=$(sums "$t" etc var)
check_rc "debian: second apply exits 0" 0 -- "$ET" cmdline apply --root "$t"
eq "debian: second apply changes no byte" "$(sums "$t" etc var)" "$after1"
check_rc "debian: remove exits 0" 0 -- "$ET" cmdline remove --root "$t"
eq "debian: remove restores every file under etc/" "$(sums "$t" etc)" "$etc0"
eq "debian: sourced result back to quiet" "$(grub_default "$t")" "quiet"
[ ! -e "$t/var/lib/earlytune/cmdline.state" ]; eq "debian: state gone after remove" $? 0

# thp_anon= with two sizes has a ';', a GRUB script metacharacter.
printf '[thp]\nsize.64kB.enabled = madvise\nsize.2048kB.enabled = always\n' >"$WORK/mthp2.conf"
check_rc "debian, 6.12, two mTHP sizes: apply exits 0" 0 -- "$ET" cmdline apply --root "$t" --kernel 6.12.9-cloud-amd64 --config "$WORK/mthp2.conf"
final=$(grub_default "$t")
# Quoted for GRUB's script language, which strips the quotes again.
eq "debian, 6.12, two mTHP sizes: thp_anon= in the drop-in, quoted for GRUB" "$(count_word "$final" '"thp_anon=64K:madvise;2048K:always"')" 1
grub_line_safe "console=tty0 quiet"; eq "grub_line_safe accepts a plain line" $? 0
grub_line_safe 'a "x;y" b\;c'; eq "grub_line_safe accepts quoted and escaped ;" $? 0
grub_line_safe "a x;y"; eq "grub_line_safe refuses a bare ;" $? 1
# Regression (fixed): src/cmdline/grub.c grub_add(): parameters go into
# GRUB_CMDLINE_LINUX_DEFAULT unquoted, and 10_linux copies that verbatim onto
# grub.cfg's linux line, where ';' separates commands (GRUB manual, Shell-like
# scripting). Input: kernel 6.12, [thp] size.64kB.enabled = madvise and
# size.2048kB.enabled = always, grub backend. Expected the thp_anon= word quoted
# or its ';' escaped for GRUB; actual "thp_anon=64K:madvise;2048K:always", so
# GRUB boots with thp_anon=64K:madvise and fails on a command "2048K:always".
grub_line_safe "$final"
bug "debian, 6.12, two mTHP sizes: the linux line stays one GRUB command" \
	eq "debian, 6.12, two mTHP sizes: the linux line stays one GRUB command" $? 0
check_rc "debian, 6.12, two mTHP sizes: remove" 0 -- "$ET" cmdline remove --root "$t"
eq "debian, 6.12, two mTHP sizes: remove restores etc/" "$(sums "$t" etc)" "$etc0"

# ---- 3. BLS entries with grubby ----------------------------------------------

t=$WORK/bls
mk_bls "$t"
: >"$LOG"; : >"$LOG.dir"
boot0=$(sums "$t" boot etc)
check_rc "bls: apply exits 0" 0 -- stubs "$ET" cmdline apply --root "$t"
contains "bls: apply detected BLS" "bls: added"
# Under --root grubby gets the image's directories as inherited fds opened
# inside the root, the image's grubenv and --no-etc-grub-update (issue 8, 2).
GRUBBY_ROOT="--bls-directory=/proc/self/fd/N|--env=/proc/self/fd/N/grubenv|--no-etc-grub-update"
grubby_log() { sed 's,/proc/self/fd/[0-9]*,/proc/self/fd/N,g' "$LOG"; }
eq "bls: grubby called once, by argv, only with what no entry has" "$(grubby_log)" \
	"grubby|--update-kernel=ALL|--args=$THP|$GRUBBY_ROOT"
OUT=$(cat "$LOG")
contains "bls: --update-kernel=ALL" "|--update-kernel=ALL|"
contains "bls: --args= carries the THP parameter" "|--args=$THP"
eq "bls: --bls-directory= is the root's entries directory" "$(cat "$LOG.dir")" "$(cd "$t/boot/loader/entries" && pwd -P)"
lacks "bls: a parameter an entry's options line has is not passed" "$NVME"
eq "bls: state records only what was added" "$(cat "$t/var/lib/earlytune/cmdline.state")" "$(printf 'bls\t%s' "$THP")"
eq "bls: entry a got the parameter" "$(grep '^options' "$t/boot/loader/entries/a.conf")" \
	"options root=UUID=77aa ro rootflags=subvol=root rhgb quiet $THP"
after1=$(sums "$t" boot etc var)
: >"$LOG"
check_rc "bls: second apply exits 0" 0 -- stubs "$ET" cmdline apply --root "$t"
eq "bls: second apply does not call grubby" "$(cat "$LOG")" ""
eq "bls: second apply changes no byte" "$(sums "$t" boot etc var)" "$after1"
check_rc "bls: remove exits 0" 0 -- stubs "$ET" cmdline remove --root "$t"
eq "bls: grubby --remove-args= with exactly the added parameters" "$(grubby_log)" \
	"grubby|--update-kernel=ALL|--remove-args=$THP|$GRUBBY_ROOT"
eq "bls: entries back to their original bytes" "$(sums "$t" boot etc)" "$boot0"
grep -q "$NVME" "$t/boot/loader/entries/b.conf"; eq "bls: the user's own parameter stays" $? 0
[ ! -e "$t/var/lib/earlytune/cmdline.state" ]; eq "bls: state gone after remove" $? 0

# grubby failing or missing: exit 1, nothing recorded.
check_rc "bls: grubby failing: apply exits 1" 1 -- stubs env GRUBBY_FAIL=1 "$ET" cmdline apply --root "$t"
contains "bls: grubby failing: says so" "grubby --update-kernel=ALL --args="
[ ! -e "$t/var/lib/earlytune/cmdline.state" ]; eq "bls: grubby failing: no state" $? 0
mkdir -p "$WORK/nobin"
check_rc "bls: no grubby: apply exits 1" 1 -- env PATH="$WORK/nobin" "$ET" cmdline apply --root "$t"
[ ! -e "$t/var/lib/earlytune/cmdline.state" ]; eq "bls: no grubby: no state" $? 0
eq "bls: failures wrote nothing" "$(sums "$t" boot etc)" "$boot0"

# ---- 4. kernel-install: /etc/kernel/cmdline ----------------------------------

t=$WORK/kinstall
mk_kinstall "$t"
orig=$(cat "$t/etc/kernel/cmdline")
sum0=$(sums "$t" etc)
check_rc "kernel-install: apply exits 0" 0 -- "$ET" cmdline apply --root "$t"
contains "kernel-install: detected" "kernel-install: added $OURS"
eq "kernel-install: parameters appended once" "$(cat "$t/etc/kernel/cmdline")" "root=UUID=x ro quiet $OURS"
after1=$(sums "$t" etc var)
check_rc "kernel-install: second apply exits 0" 0 -- "$ET" cmdline apply --root "$t"
eq "kernel-install: second apply changes no byte" "$(sums "$t" etc var)" "$after1"
check_rc "kernel-install: remove exits 0" 0 -- "$ET" cmdline remove --root "$t"
eq "kernel-install: remove restores the original bytes" "$(sums "$t" etc)" "$sum0"
eq "kernel-install: content back" "$(cat "$t/etc/kernel/cmdline")" "$orig"

t=$WORK/kinstall-user
mk_kinstall "$t" "root=UUID=x ro quiet $THP"
sum0=$(sums "$t" etc)
check_rc "kernel-install, user has THP: apply exits 0" 0 -- "$ET" cmdline apply --root "$t"
eq "kernel-install, user has THP: not duplicated" "$(cat "$t/etc/kernel/cmdline")" "root=UUID=x ro quiet $THP $NVME"
eq "kernel-install, user has THP: state records only ours" "$(cat "$t/var/lib/earlytune/cmdline.state")" \
	"$(printf 'kernel-install\t%s' "$NVME")"
check_rc "kernel-install, user has THP: remove exits 0" 0 -- "$ET" cmdline remove --root "$t"
eq "kernel-install, user has THP: remove keeps the user's parameter" "$(cat "$t/etc/kernel/cmdline")" "root=UUID=x ro quiet $THP"
eq "kernel-install, user has THP: original bytes" "$(sums "$t" etc)" "$sum0"

# A hand-written file: two spaces, no final newline.
t=$WORK/kinstall-hand
mk_kinstall "$t"
printf 'root=UUID=x  ro quiet' >"$t/etc/kernel/cmdline"
orig=$(od -An -c "$t/etc/kernel/cmdline")
check_rc "kernel-install, hand-written file: apply exits 0" 0 -- "$ET" cmdline apply --root "$t"
check_rc "kernel-install, hand-written file: remove exits 0" 0 -- "$ET" cmdline remove --root "$t"
# Regression (fixed): src/cmdline/kinstall.c kinstall_add(): the file is rebuilt word by word (single
# spaces, a newline added), so remove does not remove "exactly those tokens".
# Input: /etc/kernel/cmdline "root=UUID=x  ro quiet" (two spaces, no final
# newline), apply, remove. Expected the original bytes; actual
# "root=UUID=x ro quiet\n".
bug "kernel-install, hand-written file: remove restores the original bytes" \
	eq "kernel-install, hand-written file: remove restores the original bytes" "$(od -An -c "$t/etc/kernel/cmdline")" "$orig"

# ---- 5. UKI-only /boot -----------------------------------------------------------

t=$WORK/uki
mk_uki "$t"
before=$(listing "$t")
check_rc "uki: apply exits 1" 1 -- "$ET" cmdline apply --root "$t"
contains "uki: refuses: the command line is inside the UKI" "unified kernel images embed their command line"
contains "uki: says how: ukify" "ukify --cmdline"
contains "uki: names the parameters to build in" "$OURS"
eq "uki: wrote nothing" "$(listing "$t")" "$before"
mkdir -p "$WORK/uki-efi/efi/EFI/Linux"
mk_cmdroot "$WORK/uki-efi" 6.12.9-arch1-1 QEMU "root=UUID=x ro"
: >"$WORK/uki-efi/efi/EFI/Linux/arch-linux.efi"
check_rc "uki under /efi: apply exits 1" 1 -- "$ET" cmdline apply --root "$WORK/uki-efi"
contains "uki under /efi: refuses" "ukify"

# ---- 6. ostree ----------------------------------------------------------------------

t=$WORK/ostree
mk_ostree "$t" run
before=$(listing "$t")
check_rc "ostree: apply exits 0" 0 -- "$ET" cmdline apply --root "$t"
contains "ostree: prints the rpm-ostree command" "rpm-ostree kargs --append-if-missing=$THP --append-if-missing=$NVME"
eq "ostree: wrote nothing (no state either)" "$(listing "$t")" "$before"
check_rc "ostree: verify exits 1 (nothing integrated)" 1 -- "$ET" cmdline verify --root "$t"
contains "ostree: verify says missing" "missing: $THP"
t=$WORK/ostree-repo
mk_ostree "$t" repo
check_rc "ostree (ostree/repo): apply exits 0" 0 -- "$ET" cmdline apply --root "$t"
contains "ostree (ostree/repo): detected" "rpm-ostree kargs"
[ ! -e "$t/var/lib/earlytune/cmdline.state" ]; eq "ostree (ostree/repo): no state" $? 0

# The printed command is meant to be pasted into a shell: it must reach
# rpm-ostree intact, also with a multi-size thp_anon= (which has ';').
check_rc "ostree, two mTHP sizes: apply exits 0" 0 -- "$ET" cmdline apply --root "$t" --config "$WORK/mthp2.conf"
cmd=$(printf '%s\n' "$OUT" | sed -n 's/^ *\(rpm-ostree kargs .*\)$/\1/p')
rm -f "$LOG.rpm-ostree"
stubs sh -c "$cmd" >/dev/null 2>&1
# Regression (fixed): src/cmdline/ostree.c ostree_add(): the printed command is
# not shell-quoted. Input: kernel 6.12, [thp] size.64kB.enabled = madvise and
# size.2048kB.enabled = always. Expected rpm-ostree to get
# --append-if-missing=thp_anon=64K:madvise;2048K:always as one argument;
# actual: the shell ends the command at ';' and runs "2048K:always" (the
# same ';' unquoted in GRUB_CMDLINE_LINUX_DEFAULT ends the linux line in grub.cfg).
bug "ostree, two mTHP sizes: the printed command is shell-safe" \
	eq "ostree, two mTHP sizes: the printed command is shell-safe" "$(cat "$LOG.rpm-ostree" 2>/dev/null)" \
	"rpm-ostree|kargs|--append-if-missing=$THP|--append-if-missing=thp_anon=64K:madvise;2048K:always|--append-if-missing=$NVME"

# ---- 7. detection order and --backend ---------------------------------------------

t=$WORK/multi
mk_kinstall "$t"
mkdir -p "$t/etc/default"
printf '%s\n' 'GRUB_CMDLINE_LINUX_DEFAULT="quiet"' >"$t/etc/default/grub"
kc0=$(cat "$t/etc/kernel/cmdline")
check_rc "--backend kernel-install on a grub tree: exit 0" 0 -- "$ET" cmdline apply --backend kernel-install --root "$t"
eq "--backend kernel-install: /etc/kernel/cmdline edited" "$(cat "$t/etc/kernel/cmdline")" "$kc0 $OURS"
[ ! -e "$t/etc/default/grub.d/99-earlytune.cfg" ]; eq "--backend kernel-install: no grub drop-in" $? 0
check_rc "apply with another backend than recorded: exit 1" 1 -- "$ET" cmdline apply --backend grub --root "$t"
contains "another backend than recorded: says remove first" "earlytune cmdline remove"
[ ! -e "$t/etc/default/grub.d/99-earlytune.cfg" ]; eq "another backend than recorded: nothing written" $? 0
check_rc "--backend kernel-install: remove" 0 -- "$ET" cmdline remove --root "$t"
eq "--backend kernel-install: remove restores" "$(cat "$t/etc/kernel/cmdline")" "$kc0"
check_rc "unknown --backend: exit 2" 2 -- "$ET" cmdline apply --backend lilo --root "$t"
contains "unknown --backend: lists the backends" "ostree bls grub kernel-install uki"
check_rc "unknown cmdline subcommand: exit 2" 2 -- "$ET" cmdline frob --root "$t"

# Without /etc/kernel/cmdline, kernel-install takes /proc/cmdline; a file with
# only our parameters would replace root= and the rest.
t=$WORK/kinstall-nofile
mk_cmdroot "$t" 6.12.9-arch1-1 "Amazon EC2" "initrd=\\initramfs-linux.img root=UUID=x ro quiet" nvme
mkdir -p "$t/etc/default"
printf '%s\n' 'GRUB_CMDLINE_LINUX_DEFAULT="quiet"' >"$t/etc/default/grub"
before=$(listing "$t")
"$ET" cmdline apply --backend kernel-install --root "$t" >/dev/null 2>&1
rc=$?
# Regression (fixed): src/cmdline/kinstall.c kinstall_add(): a missing /etc/kernel/cmdline is taken
# as empty. Input: --backend kernel-install, no etc/kernel/cmdline, /proc/cmdline
# "... root=UUID=x ro quiet". Expected: refuse, or seed the file from
# /proc/cmdline as kernel-install would (root= kept); actual: exit 0 and a file
# holding only "transparent_hugepage=madvise nvme_core.io_timeout=4294967295",
# so the next kernel installed boots without root=. remove then leaves an
# empty /etc/kernel/cmdline behind instead of deleting the file it created.
bug "--backend kernel-install without the file: root= kept or refused" \
	eq "--backend kernel-install without the file: root= kept or refused" \
	"$([ "$rc" != 0 ] || grep -q 'root=UUID=x' "$t/etc/kernel/cmdline" 2>/dev/null && echo ok)" ok
"$ET" cmdline remove --root "$t" >/dev/null 2>&1
bug "--backend kernel-install without the file: remove leaves the tree as it was" \
	eq "--backend kernel-install without the file: remove leaves the tree as it was" \
	"$(listing "$t" | grep -v '\./var')" "$(printf '%s\n' "$before" | grep -v '\./var')"

# Detection order: ostree → bls → grub → kernel-install → uki.
t=$WORK/order
mk_ostree "$t" run
mkdir -p "$t/boot/loader/entries" "$t/etc/default" "$t/etc/kernel" "$t/boot/EFI/Linux"
printf 'title x\noptions root=UUID=x ro\n' >"$t/boot/loader/entries/x.conf"
printf '%s\n' 'GRUB_CMDLINE_LINUX_DEFAULT="quiet"' >"$t/etc/default/grub"
printf 'root=UUID=x ro\n' >"$t/etc/kernel/cmdline"
: >"$t/boot/EFI/Linux/linux.efi"
order_is() { # DESC NEEDLE EXIT: apply finds the backend, then remove
	: >"$LOG"
	check_rc "detection: $1: apply exits as expected" "$3" -- stubs "$ET" cmdline apply --root "$t"
	contains "detection: $1" "$2"
	stubs "$ET" cmdline remove --root "$t" >/dev/null 2>&1
}
order_is "ostree first" "rpm-ostree kargs" 0
rm "$t/run/ostree-booted"
order_is "then BLS" "bls: added" 0
rm -r "$t/boot/loader"
order_is "then grub" "grub: added" 0
rm "$t/etc/default/grub"
order_is "then kernel-install" "kernel-install: added" 0
rm "$t/etc/kernel/cmdline"
order_is "then uki" "ukify" 1
rm "$t/boot/EFI/Linux/linux.efi"
check_rc "detection: nothing found: exit 1" 1 -- "$ET" cmdline apply --root "$t"
contains "detection: nothing found: says to name one" "name one with --backend"

# ---- 8. kernel versions --------------------------------------------------------------

t=$WORK/kver
mk_cmdroot "$t" 4.19.0-27-amd64 QEMU "BOOT_IMAGE=/vmlinuz root=UUID=x ro"
printf '[thp]\nsize.64kB.enabled = madvise\n' >"$WORK/mthp.conf"
for v in 5.4.0-150-generic 6.1.0-28-cloud-amd64 6.12.9-cloud-amd64 6.18.1; do
	case $v in 6.1[28]*) anon=yes ;; *) anon=no ;; esac
	for how in osrelease --kernel; do
		if [ "$how" = osrelease ]; then
			printf '%s\n' "$v" >"$t/proc/sys/kernel/osrelease"
			set -- --root "$t"
		else
			printf '4.19.0-27-amd64\n' >"$t/proc/sys/kernel/osrelease"
			set -- --root "$t" --kernel "$v"
		fi
		check_rc "$v ($how): exit 0" 0 -- "$ET" cmdline --wide "$@" --config "$WORK/mthp.conf"
		if [ "$anon" = yes ]; then
			has_sugg "$v ($how): thp_anon= suggested" add "thp_anon=64K:madvise"
		else
			no_sugg "$v ($how): no thp_anon= before 6.12" add "thp_anon="
		fi
		if [ "$how" = osrelease ]; then
			has_sugg "$v ($how): THP madvise (no config, THP in sys/kernel/mm: compiled default always)" add "$THP"
			contains "$v ($how): says the default was assumed" "no /boot/config-$v: assuming the Kconfig default"
		else
			# The running kernel's sys/kernel/mm says nothing of another one.
			no_sugg "$v ($how): no config: THP support unknown, nothing suggested" add "$THP"
			contains "$v ($how): says it is unknown" "earlytune: unknown: transparent_hugepage= not suggested: no /boot/config-$v: whether kernel $v has transparent huge pages is unknown"
		fi
	done
	mk_kconfig "$t" "$v" madvise
	check_rc "$v, config MADVISE=y: exit 0" 0 -- "$ET" cmdline --root "$t" --kernel "$v" --config "$WORK/mthp.conf"
	no_sugg "$v, config MADVISE=y: no transparent_hugepage=" add "transparent_hugepage="
	if [ "$anon" = yes ]; then
		has_sugg "$v, config MADVISE=y: thp_anon= still suggested" add "thp_anon=64K:madvise"
	fi
	rm "$t/boot/config-$v"
done
v=6.12.9-cloud-amd64
mk_kconfig "$t" "$v" always
check_rc "$v, config ALWAYS=y: exit 0" 0 -- "$ET" cmdline --wide --root "$t" --kernel "$v"
has_sugg "$v, config ALWAYS=y: THP madvise" add "$THP"
contains "$v, config ALWAYS=y: reason names the config" "compiled default: always; /boot/config-$v"
mk_kconfig "$t" "$v" never
printf '[thp]\nenabled = never\n' >"$WORK/never.conf"
check_rc "$v, config NEVER=y, [thp] enabled = never: exit 0" 0 -- "$ET" cmdline --root "$t" --kernel "$v" --config "$WORK/never.conf"
no_sugg "$v, NEVER=y and never configured: nothing to add" add "transparent_hugepage="
mk_kconfig "$t" "$v" off
check_rc "$v, THP not built: exit 0" 0 -- "$ET" cmdline --root "$t" --kernel "$v"
no_sugg "$v, THP not built: no transparent_hugepage=" add "transparent_hugepage="
# MADVISE=y on the config's very first line.
printf 'CONFIG_TRANSPARENT_HUGEPAGE_MADVISE=y\nCONFIG_TRANSPARENT_HUGEPAGE=y\n' >"$t/boot/config-$v"
check_rc "$v, MADVISE=y on the first line: exit 0" 0 -- "$ET" cmdline --root "$t" --kernel "$v"
no_sugg "$v, MADVISE=y on the first line: no transparent_hugepage=" add "transparent_hugepage="
# "=m" or a longer name is not "=y".
printf 'CONFIG_TRANSPARENT_HUGEPAGE=y\nCONFIG_TRANSPARENT_HUGEPAGE_MADVISE=yes\n' >"$t/boot/config-$v"
check_rc "$v, MADVISE=yes is not =y: exit 0" 0 -- "$ET" cmdline --root "$t" --kernel "$v"
has_sugg "$v, MADVISE=yes is not =y: default always" add "$THP"
rm "$t/boot/config-$v"
printf '[thp]\nsize.16kB.enabled = always\nsize.64kB.enabled = never\nsize.2048kB.enabled = inherit\n' >"$WORK/mthp3.conf"
check_rc "$v, three sizes: exit 0" 0 -- "$ET" cmdline --root "$t" --kernel "$v" --config "$WORK/mthp3.conf"
has_sugg "$v, three sizes: never sizes left out" add "thp_anon=16K:always;2048K:inherit"

# ---- 9. removals and hostile /proc/cmdline -----------------------------------------

t=$WORK/hostile
mk_cmdroot "$t" 6.1.0-28-cloud-amd64 QEMU "root=UUID=x"
on() { # CMDLINE: run the suggestions against this /proc/cmdline
	printf '%s\n' "$1" >"$t/proc/cmdline"
	OUT=$("$ET" cmdline --wide --root "$t" 2>&1)
	RC=$?
	eq "cmdline '$(printf '%s' "$1" | cut -c1-60)': exit 0" "$RC" 0
}
on "BOOT_IMAGE=/vmlinuz root=UUID=x ro elevator=deadline quiet"
has_sugg "elevator=deadline: remove" remove elevator=deadline
case $(sugg_line elevator=deadline) in *"Linux 5.0"*) r=0 ;; *) r=1 ;; esac
eq "elevator=deadline: the reason mentions Linux 5.0" $r 0
eq "elevator=deadline: exactly the expected suggestions" "$(suggs)" "add $THP
remove elevator=deadline"
on "root=UUID=x scsi_mod.use_blk_mq=1 dm_mod.use_blk_mq=y"
has_sugg "scsi_mod.use_blk_mq=1: remove" remove scsi_mod.use_blk_mq=1
has_sugg "dm_mod.use_blk_mq=y: remove" remove dm_mod.use_blk_mq=y
on "root=UUID=x scsi-mod.use-blk-mq=0"
has_sugg "'-' and '_' alike in keys: scsi-mod.use-blk-mq=0: remove" remove scsi-mod.use-blk-mq=0
on "root=UUID=x transparent_hugepage=always"
has_sugg "transparent_hugepage=always: remove" remove transparent_hugepage=always
case $(sugg_line transparent_hugepage=always) in *contradicts*) r=0 ;; *) r=1 ;; esac
eq "transparent_hugepage=always: says it contradicts the config" $r 0
has_sugg "transparent_hugepage=always: madvise suggested instead" add "$THP"
on "root=UUID=x transparent_hugepage=madvise"
eq "transparent_hugepage=madvise in force: nothing suggested" "$(suggs)" ""
on 'root=UUID=x transparent_hugepage="madvise"'
eq "transparent_hugepage=\"madvise\" (quoted) is in force" "$(suggs)" ""
on "root=UUID=x transparent-hugepage=madvise"
no_sugg "transparent-hugepage=madvise (dash) counts as in force" add transparent_hugepage=
on 'root=UUID=x foo="a b c" elevator=noop'
eq "quoted value: exactly the expected suggestions" "$(suggs)" "add $THP
remove elevator=noop"
on 'root=UUID=x foo="elevator=deadline bar" quiet'
no_sugg "elevator= inside a quoted value: not a parameter" remove elevator
on 'root=UUID=x "elevator=deadline" quiet'
has_sugg "a wholly quoted elevator=deadline: remove (quotes stripped)" remove elevator=deadline
on 'root=UUID=x foo=a"b c"d elevator=noop'
has_sugg "quote opening mid-word: parsing goes on" remove elevator=noop
long=$(awk 'BEGIN { for (i = 0; i < 5000; i++) printf "A" }')
on "root=UUID=x foo=$long elevator=noop transparent_hugepage=madvise"
has_sugg "a 5000-character value: later parameters still parsed (elevator)" remove elevator=noop
no_sugg "a 5000-character value: later parameters still parsed (THP in force)" add transparent_hugepage=
on "root=UUID=x $(awk 'BEGIN { for (i = 0; i < 300; i++) printf "k%d=v%d ", i, i }') elevator=noop"
has_sugg "300 parameters: the last one still seen" remove elevator=noop
on "root=UUID=x transparent_hugepage=madvise transparent_hugepage=madvise"
eq "repeated transparent_hugepage=madvise: nothing suggested" "$(suggs)" ""
on "root=UUID=x transparent_hugepage=never transparent_hugepage=madvise"
no_sugg "never then madvise: the last wins, madvise is in force" add transparent_hugepage=
# Regression (fixed): src/cmdline/suggest.c check_stale() (via kparam_each): every occurrence of
# transparent_hugepage= is judged, not the last one that wins. Input
# /proc/cmdline "transparent_hugepage=never transparent_hugepage=madvise" with
# [thp] enabled = madvise. Expected no suggestion at all; actual "remove
# transparent_hugepage=never ... contradicts [thp] enabled = madvise (and makes
# earlytune skip it)", which is false: madvise is in force.
bug "never then madvise: no removal" no_sugg "never then madvise: no removal" remove transparent_hugepage=
on "root=UUID=x transparent_hugepage=madvise transparent_hugepage=never"
has_sugg "madvise then never: never wins: remove it" remove transparent_hugepage=never
has_sugg "madvise then never: add madvise" add "$THP"
on "root=UUID=x quiet -- elevator=deadline transparent_hugepage=madvise"
no_sugg "after --: elevator= is init's, no removal" remove elevator
has_sugg "after --: transparent_hugepage= is init's, still suggested" add "$THP"
on 'root=UUID=x foo="abc elevator=deadline'
no_sugg "unterminated quote: the rest is one value, no removal" remove elevator
on 'root=UUID=x elevator=noop "'
has_sugg "a lone quote at the end: no crash, earlier parameters kept" remove elevator=noop
on '"'
eq "a command line of one quote: nothing but THP" "$(suggs)" "add $THP"
on '="" = == "=" --'
eq "only '=' and quotes: nothing but THP" "$(suggs)" "add $THP"
on ""
eq "an empty command line: THP only" "$(suggs)" "add $THP"
printf 'root=x elevator=a\\b"c d" scsi_mod.use_blk_mq=\001 dm_mod.use_blk_mq=caf\303\251\n' >"$t/proc/cmdline"
check_rc "backslash, quotes, control and UTF-8 bytes: --json exit 0" 0 -- "$ET" cmdline --json --root "$t"
json_ok "backslash, quotes, control and UTF-8 bytes: JSON valid"
r=$(printf '%s' "$OUT" | python3 -c 'import json, sys
d = json.loads(sys.stdin.buffer.read().decode("utf-8"))
print(json.dumps(sorted(x["parameter"] for x in d["suggestions"] if x["action"] == "remove")))' 2>&1)
eq "backslash, quotes, control and UTF-8 bytes: parameters round-trip" "$r" \
	'["dm_mod.use_blk_mq=caf\u00e9", "elevator=a\\b\"c d\"", "scsi_mod.use_blk_mq=\u0001"]'
rm "$t/proc/cmdline"
check_rc "no /proc/cmdline: exit 0" 0 -- "$ET" cmdline --root "$t"
has_sugg "no /proc/cmdline: THP still suggested" add "$THP"
printf 'root=UUID=x elevator=noop\0transparent_hugepage=madvise\n' >"$t/proc/cmdline"
check_rc "a NUL byte in /proc/cmdline: exit 0" 0 -- "$ET" cmdline --root "$t"
head -c 60000 /dev/urandom | tr -d '\0' >"$t/proc/cmdline"
check_rc "60000 random bytes as /proc/cmdline: no crash" 0 -- "$ET" cmdline --root "$t"
check_rc "60000 random bytes as /proc/cmdline: --json no crash" 0 -- "$ET" cmdline --json --root "$t"
json_ok "60000 random bytes as /proc/cmdline: JSON still valid"

# ---- 10. rules and security-relevant parameters ------------------------------------

t=$WORK/rules
mk_cmdroot "$t" 6.1.0-28-cloud-amd64 "Amazon EC2" "root=UUID=x"
check_rc "EC2 without an NVMe disk: exit 0" 0 -- "$ET" cmdline --root "$t"
no_sugg "EC2 without an NVMe disk: no io_timeout" add nvme_core.io_timeout
mk_disk "$t" nvme1n1 nvme "[none] mq-deadline" 128 0
check_rc "EC2 with nvme1n1: exit 0" 0 -- "$ET" cmdline --root "$t"
has_sugg "EC2 with nvme1n1: io_timeout" add "$NVME"
printf 'QEMU\n' >"$t/sys/class/dmi/id/sys_vendor"
check_rc "QEMU with NVMe: exit 0" 0 -- "$ET" cmdline --root "$t"
no_sugg "QEMU with NVMe: no io_timeout" add nvme_core.io_timeout
check_rc "--profile none: exit 0" 0 -- "$ET" cmdline --root "$t" --profile none
eq "--profile none: no suggestions" "$(suggs)" ""
printf 'c7i.large\n' >"$t/sys/class/dmi/id/product_name"
cat >"$WORK/rules.conf" <<'EOF'
[cmdline "c7"]
match.product = c7i.* m7i.*
match.disk = nvme* sd[a-z]
# the reason comes from the comment
add = nowatchdog foo.bar=1
[cmdline "m5"]
match.product = m5.*
add = never_this=1
EOF
check_rc "rules: exit 0" 0 -- "$ET" cmdline --root "$t" --config "$WORK/rules.conf"
has_sugg "rules: product glob matched: nowatchdog" add nowatchdog
has_sugg "rules: product glob matched: foo.bar=1" add foo.bar=1
contains "rules: the comment is the reason" "the reason comes from the comment"
contains "rules: the source names file:line" "rules.conf:5"
no_sugg "rules: a product not matching adds nothing" add never_this
printf '[cmdline]\nadd = ok=1 "bad"\n' >"$WORK/quote.conf"
check_rc "[cmdline] add with a quote: exit 2" 2 -- "$ET" cmdline --root "$t" --config "$WORK/quote.conf"
contains "[cmdline] add with a quote: says why" "is not a kernel parameter"

check_rc "security: not configured: exit 0" 0 -- "$ET" cmdline --root "$t"
no_sugg "security: mitigations= never suggested unasked" add mitigations
lacks "security: no warning unasked" "warning:"
printf '[cmdline]\nadd = mitigations=off\n' >"$WORK/sec.conf"
check_rc "security: configured: exit 0" 0 -- "$ET" cmdline --root "$t" --config "$WORK/sec.conf"
has_sugg "security: mitigations=off suggested" add mitigations=off
case $(sugg_line mitigations=off) in *"high: security"*) r=0 ;; *) r=1 ;; esac
eq "security: risk says high: security" $r 0
if printf '%s\n' "$OUT" | grep -q '^warning: mitigations=off'; then pass "security: a line starting with warning:"; else fail "security: a line starting with warning:" "$OUT"; fi
printf '[cmdline]\nadd = init_on_free=0 nosmt init-on-alloc=0 nowatchdog\n' >"$WORK/sec2.conf"
check_rc "security: several: exit 0" 0 -- "$ET" cmdline --root "$t" --config "$WORK/sec2.conf"
eq "security: one warning per security parameter" "$(printf '%s\n' "$OUT" | grep -c '^warning:')" 3
lacks "security: no warning for nowatchdog" "warning: nowatchdog"
check_rc "security: --json exit 0" 0 -- "$ET" cmdline --json --root "$t" --config "$WORK/sec.conf"
json_ok "security: --json is valid JSON"
r=$(printf '%s' "$OUT" | python3 -c 'import json, sys
d = json.load(sys.stdin)
s = {x["parameter"]: x for x in d["suggestions"]}
print(s["mitigations=off"]["security"] is True and s["mitigations=off"]["action"] == "add"
      and s["transparent_hugepage=madvise"]["security"] is False)' 2>&1)
eq "security: --json has suggestions, security true for mitigations=off only" "$r" True
printf '%s\n' "root=UUID=x mitigations=off" >"$t/proc/cmdline"
check_rc "security: already booted: exit 0" 0 -- "$ET" cmdline --root "$t" --config "$WORK/sec.conf"
no_sugg "security: already booted: not suggested" add mitigations
lacks "security: already booted: no warning" "warning:"

# ---- 11. verify -------------------------------------------------------------------------

t=$WORK/verify
mk_debian "$t"
check_rc "verify before apply: exit 1" 1 -- "$ET" cmdline verify --root "$t"
contains "verify before apply: missing" "missing: $THP"
check_rc "verify: apply" 0 -- "$ET" cmdline apply --root "$t"
check_rc "verify after apply, before reboot: exit 1" 1 -- "$ET" cmdline verify --root "$t"
contains "verify after apply: pending" "pending: $THP"
contains "verify after apply: pending names the backend" "in the grub configuration"
printf '%s\n' "BOOT_IMAGE=/boot/vmlinuz-6.1.0-28-cloud-amd64 root=UUID=2f4e ro quiet $OURS" >"$t/proc/cmdline"
check_rc "verify after reboot with the parameters: exit 0" 0 -- "$ET" cmdline verify --root "$t"
contains "verify after reboot: in force" "cmdline: in force"
check_rc "after reboot: suggestions exit 0" 0 -- "$ET" cmdline --root "$t"
eq "after reboot: nothing left to suggest" "$(suggs)" ""
check_rc "after reboot: apply has nothing to add" 0 -- "$ET" cmdline apply --root "$t"
contains "after reboot: apply says so" "nothing to add"
printf '%s\n' "BOOT_IMAGE=/boot/vmlinuz-6.1.0-28-cloud-amd64 root=UUID=2f4e ro quiet $THP" >"$t/proc/cmdline"
check_rc "verify with one parameter not booted: exit 1" 1 -- "$ET" cmdline verify --root "$t"
contains "verify with one parameter not booted: names it" "pending: $NVME"

# verify --json: one object, what is pending and what is missing.
t=$WORK/verify-json
mk_debian "$t"
check_rc "verify --json before apply: exit 1" 1 -- "$ET" cmdline verify --json --root "$t"
json_ok "verify --json is valid JSON"
contains "verify --json lists the missing parameter" '"missing":["transparent_hugepage=madvise",'
"$ET" cmdline apply --root "$t" >/dev/null 2>&1
check_rc "verify --json after apply: exit 1 (reboot pending)" 1 -- "$ET" cmdline verify --json --root "$t"
contains "verify --json lists the pending parameter" '"pending":["transparent_hugepage=madvise",'
contains "verify --json names the backend" '"backend":"grub"'

# apply and remove --json: one object each.
t=$WORK/json-apply
mk_debian "$t"
check_rc "apply --json exits 0" 0 -- "$ET" cmdline apply --json --root "$t"
json_ok "apply --json is valid JSON"
contains "apply --json names what it added, as an array" '"added":["transparent_hugepage=madvise",'
contains "apply --json says it changed something" '"changed":true'
contains "apply --json says what comes next" '"next":"update-grub"'
# issue 11 defect 3: a second apply added nothing, and its JSON says so
# (it said "added" with every parameter while the text said "already in place")
check_rc "second apply --json exits 0" 0 -- "$ET" cmdline apply --json --root "$t"
contains "second apply --json: nothing added" '"added":[]'
contains "second apply --json: nothing changed" '"changed":false'
contains "second apply --json: what it wants is still listed" '"wanted":["transparent_hugepage=madvise",'
check_rc "second apply: the text says already in place" 0 -- "$ET" cmdline apply --root "$t"
contains "second apply: already in place" "already in place"
check_rc "remove --json exits 0" 0 -- "$ET" cmdline remove --json --root "$t"
json_ok "remove --json is valid JSON"
contains "remove --json names what it removed, as an array" '"removed":["transparent_hugepage=madvise",'

# ---- 12. issue 8: nothing escapes the image, nothing lost, no failure as success ----

# A grubby stand-in that behaves as grubby does beyond the entries (grubby(8)):
# --update-kernel=ALL also rewrites GRUB_CMDLINE_LINUX in /etc/default/grub
# unless --no-etc-grub-update, and kernelopts in the grubenv
# (/boot/grub2/grubenv unless --env=FILE). It follows whatever paths it gets.
mkdir -p "$WORK/realbin"
cat >"$WORK/realbin/grubby" <<'STUB'
#!/bin/sh
dir=/boot/loader/entries env=/boot/grub2/grubenv etc=yes add= del=
for a; do
	case $a in
	--args=*) add=${a#--args=} ;;
	--remove-args=*) del=${a#--remove-args=} ;;
	--bls-directory=*) dir=${a#--bls-directory=} ;;
	--env=*) env=${a#--env=} ;;
	--no-etc-grub-update) etc=no ;;
	esac
done
for f in "$dir"/*.conf; do
	[ -e "$f" ] || continue
	awk -v add="$add" -v del="$del" -f "${0%/*}/../options.awk" "$f" >"$f.new" && cat "$f.new" >"$f" && rm -f "$f.new"
done
if [ "$etc" = yes ] && [ -f /etc/default/grub ]; then
	sed -i "s|^GRUB_CMDLINE_LINUX=\"\(.*\)\"|GRUB_CMDLINE_LINUX=\"\1 $add\"|" /etc/default/grub
fi
printf 'kernelopts=%s\n' "$add$del" >>"$env"
STUB
chmod +x "$WORK/realbin/grubby"

# ns_host CMD...: runs CMD (with the stand-in first on PATH) in a private mount
# namespace whose /etc/default and /boot are tmpfs holding a host's GRUB
# files and BLS entries; prints "rc=N" and whether those host files changed.
# Nothing on the real host can change.
ns_host() {
	PATH="$WORK/realbin:$PATH" unshare -m --propagation private sh -c '
		mount -t tmpfs none /etc/default && mount -t tmpfs none /boot || { echo no-namespace; exit; }
		mkdir -p /boot/grub2 /boot/host-loader/entries
		printf "GRUB_CMDLINE_LINUX=\"rhgb\"\n" >/etc/default/grub
		printf "# GRUB Environment Block\nkernelopts=root=host\n" >/boot/grub2/grubenv
		printf "title host\noptions root=host\n" >/boot/host-loader/entries/h.conf
		host() { cat /etc/default/grub /boot/grub2/grubenv /boot/host-loader/entries/h.conf | md5sum; }
		before=$(host)
		"$@" >/dev/null 2>&1
		echo "rc=$?"
		if [ "$(host)" = "$before" ]; then echo host-untouched; else echo host-changed; fi' sh "$@"
}

# Issue 8, defect 2: under --root grubby must not rewrite the host's
# /etc/default/grub and grubenv (--no-etc-grub-update, --env in the image).
t=$WORK/bls-host
mk_bls "$t"
mkdir -p "$t/boot/grub2"
printf '# GRUB Environment Block\nkernelopts=root=UUID=77aa\n' >"$t/boot/grub2/grubenv"
eq "bls, real grubby behaviour: apply leaves the host's /etc/default/grub and grubenv alone" \
	"$(ns_host "$ET" cmdline apply --root "$t")" "rc=0
host-untouched"
grep -q "^options .*$THP" "$t/boot/loader/entries/a.conf"; eq "bls, real grubby behaviour: the image's entry edited" $? 0
grep -q "^kernelopts=$THP" "$t/boot/grub2/grubenv"; eq "bls, real grubby behaviour: the image's grubenv is the one grubby got" $? 0
eq "bls, real grubby behaviour: remove leaves the host alone" \
	"$(ns_host "$ET" cmdline remove --root "$t")" "rc=0
host-untouched"

# Issue 8, defect 2: boot/loader an absolute symlink in the image. A path
# string would lead grubby to the host's /boot/host-loader/entries.
t=$WORK/bls-link
mk_bls "$t"
mv "$t/boot/loader" "$t/boot/host-loader"
ln -s /boot/host-loader "$t/boot/loader"
eq "bls, boot/loader -> /boot/host-loader in the image: apply stays in the image" \
	"$(ns_host "$ET" cmdline apply --root "$t")" "rc=0
host-untouched"
grep -q "^options .*$THP" "$t/boot/host-loader/entries/a.conf"; eq "bls, absolute symlink: the image's entry edited" $? 0

# An entry that is itself an absolute symlink: grubby would follow it out.
t=$WORK/bls-entrylink
mk_bls "$t"
mkdir -p "$t/boot/host-loader/entries"
printf 'title x\noptions root=x\n' >"$t/boot/host-loader/entries/h.conf"
ln -s /boot/host-loader/entries/h.conf "$t/boot/loader/entries/z.conf"
before=$(listing "$t")
eq "bls, an entry that is an absolute symlink: refused, host untouched" \
	"$(ns_host "$ET" cmdline apply --root "$t")" "rc=1
host-untouched"
check_rc "bls, an entry that is an absolute symlink: apply exits 1" 1 -- env PATH="$WORK/realbin:$PATH" "$ET" cmdline apply --root "$t"
contains "bls, an entry that is an absolute symlink: says why" "is a symbolic link: grubby would follow it out of the image"
eq "bls, an entry that is an absolute symlink: nothing written" "$(listing "$t")" "$before"

# Issue 8, defect 5: a file earlytune created, edited by the administrator
# afterwards: remove takes out only earlytune's words.
t=$WORK/ki-created
mk_cmdroot "$t" 6.12.9-arch1-1 "Amazon EC2" "initrd=\\initramfs-linux.img root=UUID=x ro quiet" nvme
check_rc "kernel-install, created by apply: exit 0" 0 -- "$ET" cmdline apply --backend kernel-install --root "$t"
eq "kernel-install, created by apply: seeded from /proc/cmdline" "$(cat "$t/etc/kernel/cmdline")" "root=UUID=x ro quiet $OURS"
sed -i 's/quiet/quiet rd.luks.uuid=abc/' "$t/etc/kernel/cmdline"
check_rc "kernel-install, created then edited: remove exits 0" 0 -- "$ET" cmdline remove --root "$t"
eq "kernel-install, created then edited: the administrator's edit kept, byte for byte" \
	"$(od -An -c "$t/etc/kernel/cmdline" 2>&1)" "$(printf 'root=UUID=x ro quiet rd.luks.uuid=abc\n' | od -An -c)"
# Unedited, the file earlytune created goes again.
check_rc "kernel-install, created, unedited: apply" 0 -- "$ET" cmdline apply --root "$t"
check_rc "kernel-install, created, unedited: remove" 0 -- "$ET" cmdline remove --root "$t"
eq "kernel-install, edited file: remove after a second apply restores it" "$(cat "$t/etc/kernel/cmdline")" "root=UUID=x ro quiet rd.luks.uuid=abc"

# Issue 8, defect 5: the GRUB drop-in edited by someone after apply is neither
# overwritten by apply nor deleted by remove.
t=$WORK/grub-edited
mk_debian "$t"
check_rc "grub, edited drop-in: first apply" 0 -- "$ET" cmdline apply --root "$t"
printf 'GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT mine=1"\n' >>"$t/etc/default/grub.d/99-earlytune.cfg"
edited=$(sums "$t" etc var)
check_rc "grub, edited drop-in: apply exits 1" 1 -- "$ET" cmdline apply --root "$t" --config "$WORK/nowd.conf"
contains "grub, edited drop-in: says it was changed" "was changed since earlytune wrote it"
check_rc "grub, edited drop-in: remove exits 1" 1 -- "$ET" cmdline remove --root "$t"
eq "grub, edited drop-in: apply and remove left every byte" "$(sums "$t" etc var)" "$edited"

# Issue 8, defect 8: a file of only blanks: apply → remove gives back every byte.
i=0
for content in '   \n' '\n' '\t \r\n' ''; do
	i=$((i + 1))
	t=$WORK/ki-blank
	rm -rf "$t"
	mk_kinstall "$t"
	printf "$content" >"$t/etc/kernel/cmdline"
	want=$(od -An -c "$t/etc/kernel/cmdline")
	"$ET" cmdline apply --root "$t" >/dev/null 2>&1
	"$ET" cmdline remove --root "$t" >/dev/null 2>&1
	eq "kernel-install, blank file $i of 4: apply → remove keeps every byte" "$(od -An -c "$t/etc/kernel/cmdline" 2>&1)" "$want"
done

# Issue 8, defect 8: parameters beyond 2,047 bytes and suggestions beyond 64.
t=$WORK/ki-many
mk_kinstall "$t"
many=$(awk 'BEGIN { for (i = 0; i < 100; i++) printf "%sp%03d.%s=1", i ? " " : "", i, sprintf("%0100d", 0) }')
printf '[cmdline]\nadd = %s\n' "$many" >"$WORK/many.conf"
check_rc "100 parameters of 110 bytes: suggestions exit 0" 0 -- "$ET" cmdline --root "$t" --config "$WORK/many.conf" --profile none
eq "100 parameters of 110 bytes: all 100 suggested" "$(suggs | grep -c '^add p')" 100
check_rc "100 parameters of 110 bytes: apply exits 0" 0 -- "$ET" cmdline apply --root "$t" --config "$WORK/many.conf" --profile none
eq "100 parameters of 110 bytes: the file has every one, uncut" "$(cat "$t/etc/kernel/cmdline")" "root=UUID=x ro quiet $many"
eq "100 parameters of 110 bytes: the state has every one" "$(cut -f2 "$t/var/lib/earlytune/cmdline.state")" "$many"
check_rc "100 parameters of 110 bytes: remove exits 0" 0 -- "$ET" cmdline remove --root "$t"
eq "100 parameters of 110 bytes: remove restores the file" "$(cat "$t/etc/kernel/cmdline")" "root=UUID=x ro quiet"

# Issue 8, defect 7: a file of 64 KiB or more is not "missing".
t=$WORK/ki-big
mk_kinstall "$t"
{ printf 'rd.luks.uuid=abc root=UUID=x'; awk 'BEGIN { for (i = 0; i < 7000; i++) printf " k%04d=val", i }'; printf ' quiet\n'; } >"$t/etc/kernel/cmdline"
big0=$(md5sum <"$t/etc/kernel/cmdline")
check_rc "kernel-install, a 77 KB file: apply exits 0" 0 -- "$ET" cmdline apply --root "$t"
case $(head -c 40 "$t/etc/kernel/cmdline") in "rd.luks.uuid=abc root=UUID=x k0000=val"*) r=0 ;; *) r=1 ;; esac
eq "kernel-install, a 77 KB file: kept, not rebuilt from /proc/cmdline" $r 0
check_rc "kernel-install, a 77 KB file: remove exits 0" 0 -- "$ET" cmdline remove --root "$t"
eq "kernel-install, a 77 KB file: remove restores it" "$(md5sum <"$t/etc/kernel/cmdline")" "$big0"
head -c 1100000 /dev/zero | tr '\0' 'a' >"$t/etc/kernel/cmdline"
before=$(listing "$t")
check_rc "kernel-install, a file over 1 MiB: apply exits 1" 1 -- "$ET" cmdline apply --root "$t"
contains "kernel-install, a file over 1 MiB: says so" "larger than 1 MiB"
eq "kernel-install, a file over 1 MiB: nothing written" "$(listing "$t")" "$before"

# Issue 8, defect 7: no /etc/kernel/cmdline and /proc/cmdline unreadable: no
# file without root=. Unreadable for good, the setup already fails (exit 2,
# as every command); a read that fails only in the backend (strace: the
# setup reads the file twice, the backend next) exits 1 and says what to do.
t=$WORK/ki-noproc
mk_cmdroot "$t" 6.12.9-arch1-1 "Amazon EC2" "root=UUID=x ro" nvme
if command -v strace >/dev/null; then
	check_rc "kernel-install, no file, /proc/cmdline read fails: apply exits 1" 1 -- \
		env ASAN_OPTIONS=detect_leaks=0 strace -o /dev/null -P "$t/proc/cmdline" -e trace=read \
		-e inject=read:error=EIO:when=3 "$ET_BIN" cmdline apply --backend kernel-install --root "$t"
	contains "kernel-install, no file, /proc/cmdline read fails: says what to do" "create /etc/kernel/cmdline"
	[ ! -e "$t/etc/kernel/cmdline" ]; eq "kernel-install, no file, /proc/cmdline read fails: no file created" $? 0
fi
rm "$t/proc/cmdline"
mkdir "$t/proc/cmdline"
# The kernel probe reads it first: the whole command stops there (exit 2).
check_rc "kernel-install, no file, /proc/cmdline unreadable: apply exits 2" 2 -- "$ET" cmdline apply --backend kernel-install --root "$t"
contains "kernel-install, no file, /proc/cmdline unreadable: says so" "proc/cmdline: Is a directory; nothing was done"
[ ! -e "$t/etc/kernel/cmdline" ]; eq "kernel-install, no file, /proc/cmdline unreadable: no file created" $? 0

# Issue 8, defect 7: an unreadable state file is not "nothing recorded" (and
# the state is written before the bootloader: nothing changes).
t=$WORK/ki-badstate
mk_kinstall "$t"
mkdir -p "$t/var/lib/earlytune/cmdline.state"
before=$(listing "$t")
check_rc "unreadable state: apply exits 1" 1 -- "$ET" cmdline apply --root "$t"
eq "unreadable state: nothing written" "$(listing "$t")" "$before"
check_rc "unreadable state: remove exits 1" 1 -- "$ET" cmdline remove --root "$t"
check_rc "unreadable state: verify exits 1" 1 -- "$ET" cmdline verify --root "$t"

# Issue 8, defect 7: an unreadable BLS entry is not "an entry without options".
t=$WORK/bls-unreadable
mk_bls "$t"
mkdir "$t/boot/loader/entries/c.conf"
: >"$LOG"
before=$(listing "$t")
check_rc "bls, an unreadable entry: apply exits 1" 1 -- stubs "$ET" cmdline apply --root "$t"
contains "bls, an unreadable entry: names it" "boot/loader/entries/c.conf"
eq "bls, an unreadable entry: grubby not run" "$(cat "$LOG")" ""
eq "bls, an unreadable entry: nothing written" "$(listing "$t")" "$before"

# Issue 8: detection with root_access: a path that cannot be examined
# (a symlink loop) is an error, not "no GRUB here".
t=$WORK/detect-loop
mk_kinstall "$t"
mkdir -p "$t/etc/default"
ln -s grub "$t/etc/default/grub"
before=$(listing "$t")
check_rc "detection, etc/default/grub a symlink loop: exit 1" 1 -- "$ET" cmdline apply --root "$t"
contains "detection, symlink loop: names the path" "etc/default/grub"
eq "detection, symlink loop: nothing written" "$(listing "$t")" "$before"

# Issue 8, defect 7: an unreadable DMI file or sys/block is not "no match".
t=$WORK/dmi-unreadable
mk_cmdroot "$t" 6.1.0-28-cloud-amd64 "Amazon EC2" "root=UUID=x" nvme
rm "$t/sys/class/dmi/id/sys_vendor"
mkdir "$t/sys/class/dmi/id/sys_vendor"
check_rc "unreadable DMI sys_vendor: suggestions exit 1" 1 -- "$ET" cmdline --root "$t"
contains "unreadable DMI sys_vendor: names it" "sys/class/dmi/id/sys_vendor"

# Fault injection (strace): the N-th read, open, rename, fsync or write fails,
# for every N along apply and along remove, on kernel-install and GRUB. After
# each: exit 0 only with the parameters in place, the user's rd.luks.uuid=
# always kept, and a clean remove gives back every original byte.
setup_ki() { mk_kinstall "$1" "rd.luks.uuid=abc root=UUID=x ro quiet"; }
setup_grub() { mk_debian "$1"; }
inject() { # SYSCALL N CMD...
	fi_sc=$1 fi_n=$2
	shift 2
	strace -f -o /dev/null -e inject="$fi_sc":error=EIO:when="$fi_n" "$@" >/dev/null 2>&1
}
faults() { # BACKEND SETUP FILE PHASE(apply|remove) SYSCALL MAX
	fi_bad=
	for fi_n in $(seq 1 "$6"); do
		fi_d=$WORK/fault
		rm -rf "$fi_d"
		$2 "$fi_d"
		fi_s0=$(sums "$fi_d" etc)
		if [ "$4" = remove ]; then
			"$ET" cmdline apply --root "$fi_d" >/dev/null 2>&1
			inject "$5" "$fi_n" "$ET_BIN" cmdline remove --root "$fi_d"
		else
			inject "$5" "$fi_n" "$ET_BIN" cmdline apply --root "$fi_d"
			fi_rc=$?
			[ "$fi_rc" = 0 ] && ! grep -q "$NVME" "$fi_d/$3" && fi_bad="$fi_bad $fi_n:exit-0-without-parameters"
		fi
		grep -q rd.luks.uuid=abc "$fi_d/etc/kernel/cmdline" 2>/dev/null || [ "$1" != kernel-install ] ||
			fi_bad="$fi_bad $fi_n:rd.luks.uuid-lost"
		"$ET" cmdline remove --root "$fi_d" >/dev/null 2>&1
		[ "$(sums "$fi_d" etc)" = "$fi_s0" ] || fi_bad="$fi_bad $fi_n:not-restored"
	done
	eq "fault injection, $1, $4, $5 failing at every N to $6: nothing lost" "${fi_bad:-none}" none
}
if strace -f -o /dev/null -e inject=read:error=EIO:when=1000 true 2>/dev/null; then
	for phase in apply remove; do
		faults kernel-install setup_ki etc/kernel/cmdline $phase read 16
		faults kernel-install setup_ki etc/kernel/cmdline $phase openat2 30
		faults kernel-install setup_ki etc/kernel/cmdline $phase renameat 3
		faults kernel-install setup_ki etc/kernel/cmdline $phase fsync 5
		faults kernel-install setup_ki etc/kernel/cmdline $phase write 4
		faults grub setup_grub etc/default/grub.d/99-earlytune.cfg $phase read 16
		faults grub setup_grub etc/default/grub.d/99-earlytune.cfg $phase renameat 3
		faults grub setup_grub etc/default/grub.d/99-earlytune.cfg $phase unlinkat 2
	done
	# Suggestions: an injected read failure is exit 1, or the same output
	# (reads 1-3 are kernel_probe's osrelease and /proc/cmdline, src/base/kernel.c).
	t=$WORK/sugg-faults
	mk_cmdroot "$t" 6.1.0-28-cloud-amd64 "Amazon EC2" "root=UUID=x" nvme
	want=$("$ET" cmdline --root "$t" 2>&1)
	bad=
	for n in $(seq 4 20); do
		got=$(strace -f -o /dev/null -e inject=read:error=EIO:when="$n" "$ET_BIN" cmdline --root "$t" 2>&1)
		rc=$?
		[ "$rc" = 0 ] && [ "$got" != "$want" ] && bad="$bad $n"
	done
	eq "fault injection, suggestions: a failed read is exit 1, never fewer suggestions" "${bad:-none}" none
else
	fail "fault injection: strace -e inject unavailable" "install strace (>= 4.16)"
fi
