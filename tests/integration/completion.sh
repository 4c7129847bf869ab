# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 12: bash completion (hook/earlytune.bash-completion). Sourced in bash,
# its function is called as bash would (COMP_WORDS, COMP_CWORD) and COMPREPLY
# is compared; its commands come from the binary's table (--list-commands),
# its fixed lists must be the binary's own (--help, main.c's option table,
# the errors that name the allowed words).
. "$(dirname "$0")/../lib/common.sh"

COMPL=$(cd "$TESTS_DIR/../hook" && pwd)/earlytune.bash-completion
BASH=$(command -v bash)
t=$WORK/root
mk_base "$t" 6.1.0-30-cloud-amd64 yes "" ""
mk_disk "$t" vda virtio_blk "[none] mq-deadline" 128 0
mk_disk "$t" vdb virtio_blk "[none] mq-deadline" 128 0
mk_disk "$t" sda sd "[mq-deadline] none" 128 1
mkdir -p "$t/lib/modules/6.1.0-30-cloud-amd64" "$t/lib/modules/6.12.9-cloud-amd64"

# The completion runs the earlytune it completes (COMP_WORDS[0]): this one.
mkdir -p "$WORK/bin"
ln -s "$ET_BIN" "$WORK/bin/earlytune"
export PATH="$WORK/bin:$PATH"

# comp WORD...: the completions, sorted, one line, for the command line
# WORD... with the cursor in its last word (give '' for an empty one).
comp() {
	"$BASH" --norc --noprofile -c '
		. "$1" || exit 1
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		_earlytune
		printf "%s\n" "${COMPREPLY[@]}"' comp "$COMPL" earlytune "$@" 2>&1 | sort | tr '\n' ' ' | sed 's/ $//'
}
words() { printf '%s\n' "$@" | sort | tr '\n' ' ' | sed 's/ $//'; }
after() { sed -n "s/.*$1//p" | head -1 | tr -d '[]' | tr '|' ' '; }

OUT=$("$BASH" --norc --noprofile -c '. "$1" && complete -p earlytune' x "$COMPL" 2>&1)
eq "sourcing it registers the function for earlytune" "$OUT" "complete -F _earlytune earlytune"

# ---- the fixed lists are the binary's -------------------------------------------------
cmds=$("$ET" --list-commands | grep -v ' ')
eq "commands: every command of the binary's table" "$(comp '')" "$(words $cmds)"
eq "the table was read (10 commands)" "$(echo $cmds | wc -w)" 10
subs=$("$ET" --list-commands | sed -n 's/^cmdline //p')
eq "cmdline's subcommands" "$(comp cmdline '')" "$(words $subs)"
# The commands are the table of the binary being completed, not a copy.
printf '#!/bin/sh\n[ "$1" = --list-commands ] && printf "plan\\nfrob\\nfrob twiddle\\n"\n' >"$WORK/fake-et"
chmod +x "$WORK/fake-et"
OUT=$("$BASH" --norc --noprofile -c '. "$1"; COMP_WORDS=("$2" ""); COMP_CWORD=1; _earlytune; echo "${COMPREPLY[*]}"
	COMP_WORDS=("$2" frob ""); COMP_CWORD=2; _earlytune; echo "${COMPREPLY[*]}"' x "$COMPL" "$WORK/fake-et" 2>&1)
eq "a binary's own commands and subcommands are offered (its --list-commands)" "$OUT" "plan frob
twiddle"
longs=$( { "$ET" --help | grep -oE -- '--[a-z][a-z-]+'
	grep -oE '\{ "[a-z][a-z-]*", (no|required|optional)_argument' "$TESTS_DIR/../src/main.c" |
		sed 's/{ "\([^"]*\)".*/--\1/'; } | sort -u)
eq "options: every long option of --help and main.c" "$(comp --)" "$(words $longs)"
domains=$("$ET" --only no-such-domain 2>&1 | after 'domains: ')
eq "--only: the domains" "$(comp --only '')" "$(words $domains)"
profiles=$("$ET" plan --root "$t" --profile no-such-profile 2>&1 | after 'built-in profiles: ')
eq "--profile: the built-in profiles" "$(comp --profile '')" "$(words $profiles)"
backends=$("$ET" cmdline apply --backend no-such-backend --root "$t" 2>&1 | after 'backends: ')
eq "--backend: the backends" "$(comp cmdline apply --backend '')" "$(words $backends)"
platforms=$("$ET" cmdline --root "$t" --platform no-such-platform 2>&1 | after 'platforms: ')
eq "--platform: the platforms of the binary" "$(comp cmdline --platform '')" "$(words $platforms)"
eq "--platform: four of them were read" "$(echo $platforms | wc -w)" 4

# ---- prefixes ---------------------------------------------------------------------------
eq "'ap' completes to apply" "$(comp ap)" "apply"
eq "'s' completes to status and sysctl-conf" "$(comp s)" "status sysctl-conf"
eq "after an option and its argument, still the command" "$(comp --root "$t" ve)" "verify"
eq "after the command, no second command" "$(comp plan '')" ""
eq "cmdline 're' completes to remove" "$(comp --json cmdline re)" "remove"
eq "'--pr' completes to --profile and --prometheus" "$(comp plan --pr)" "--profile --prometheus"
eq "'--only thp,ne' completes the last domain" "$(comp --only thp,ne)" "thp,net"
eq "'--only thp,n' completes the domains that start so" "$(comp --only thp,n)" "thp,net thp,nic"
eq "'--only=' completes domains too (bash splits at =)" "$(comp --only = b)" "block"
eq "'--profile v' completes to vps" "$(comp -p v)" "vps"
eq "'--backend k' completes to kernel-install" "$(comp cmdline apply --backend k)" "kernel-install"
eq "'--platform a' completes to aws and azure" "$(comp cmdline --platform a)" "aws azure"
eq "'--platform=g' completes (bash splits at =)" "$(comp cmdline --platform = g)" "gce generic"
eq "after --platform and its argument, still the command" "$(comp --platform aws ve)" "verify"
eq "'verify --im' completes to --image" "$(comp verify --im)" "--image"

# ---- names from the (root's) sys and lib/modules -----------------------------------------
eq "--device: the disks of --root's sys/block" "$(comp --root "$t" apply --device '')" "sda vda vdb"
eq "--device v: the vd disks" "$(comp -r "$t" apply -d v)" "vda vdb"
eq "--root=DIR is followed too" "$(comp --root = "$t" apply --device s)" "sda"
eq "measure readahead: the disks of --root's sys/block" "$(comp --root "$t" measure readahead v)" "vda vdb"
echo bond0 >"$t/sys/class/net/bonding_masters"
eq "--iface: the interfaces of --root's sys/class/net, not its file bonding_masters" \
	"$(comp --root "$t" plan --iface '')" "eth0 lo"
eq "--ifindex: their indexes" "$(comp --root "$t" plan --ifindex '')" "1 2"
eq "--kernel: the kernels of --root's lib/modules" "$(comp --root "$t" modules --kernel 6.1.)" "6.1.0-30-cloud-amd64"
if [ -d /sys/block ]; then
	eq "--device without --root: this machine's /sys/block" "$(comp --device '')" "$(words $(ls /sys/block))"
fi
if [ -d /sys/class/net ]; then
	eq "--iface without --root: this machine's /sys/class/net" "$(comp --iface '')" \
		"$(words $(cd /sys/class/net && for f in *; do [ -d "$f" ] && echo "$f"; done))"
fi
eq "--diskseq: nothing to offer" "$(comp forget --diskseq '')" ""
OUT=$(comp --config "$WORK/ro")
eq "--config: file names" "$OUT" "$WORK/root"
# A name with a space is one completion, not two.
: >"$WORK/with space.conf"
OUT=$("$BASH" --norc --noprofile -c '. "$1"; COMP_WORDS=(earlytune --config "$2"); COMP_CWORD=2; _earlytune
	echo "${#COMPREPLY[@]}:${COMPREPLY[0]}"' x "$COMPL" "$WORK/with" 2>&1)
eq "--config: a file name with a space is one completion" "$OUT" "1:$WORK/with space.conf"
