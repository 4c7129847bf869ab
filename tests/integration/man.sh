# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 12: the man pages. They render without a warning, and they describe
# what the binary has: every command, option, domain, profile, backend and
# disk class in earlytune(8), every section, key and value in
# earlytune.conf(5). The lists come from the binary itself (--help and the
# errors that name what is allowed), so a new command, option or key without
# its entry fails here instead of going stale silently.
. "$(dirname "$0")/../lib/common.sh"

MAN=$(cd "$TESTS_DIR/../man" && pwd)
TAGS=$TESTS_DIR/tools/man-tags
P8=$MAN/earlytune.8
P5=$MAN/earlytune.conf.5
t=$WORK/root
mk_base "$t" 6.1.0-30-cloud-amd64 yes "" ""

# ---- rendering -----------------------------------------------------------------
for p in "$P8" "$P5"; do
	n=$(basename "$p")
	OUT=$(LC_ALL=C.UTF-8 groff -ww -z -man "$p" 2>&1)
	RC=$?
	eq "$n: groff -ww -z -man exits 0" "$RC" 0
	eq "$n: groff -ww -z -man prints no warning" "$OUT" ""
	OUT=$(LC_ALL=C.UTF-8 MANWIDTH=80 MANPAGER=cat PAGER=cat man -l "$p" 2>"$WORK/man.err")
	eq "$n: man -l prints nothing on stderr" "$(cat "$WORK/man.err")" ""
	contains "$n: man -l renders its NAME section" "NAME"
	# What lintian runs (manpage-has-errors-from-man).
	OUT=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$p" 2>&1 >/dev/null)
	eq "$n: man --warnings (lintian's check) prints nothing" "$OUT" ""
	# man(7) only: nothing another formatter (mandoc) lacks.
	OUT=$(grep -nE '^\.(TQ|EX|EE|UR|UE|MT|ME|SY|YS|OP|SB|MR)( |$)' "$p")
	eq "$n: no groff-only macros" "$OUT" ""
done

# The page as one line of plain text, for "is this word in it".
plain() { LC_ALL=C.UTF-8 groff -man -Tascii -P-cbou "$1" 2>/dev/null | tr -s ' \n' '  '; }
TXT8=$(plain "$P8")
TXT5=$(plain "$P5")
# each_found GREP_FLAG DESC TEXT WORD...: grep -F GREP_FLAG finds each WORD in TEXT.
each_found() {
	_f=$1 _d=$2 _t=$3 _miss=
	shift 3
	for _w; do
		printf '%s\n' "$_t" | grep -qF "$_f" -e "$_w" || _miss="$_miss $_w"
	done
	eq "$_d" "${_miss# }" ""
}
# has_words DESC TEXT WORD...: each WORD is a whole word of TEXT.
has_words() { each_found -w "$@"; }
# in_list DESC LIST NAME...: each NAME is a line of LIST.
in_list() { each_found -x "$@"; }
# part_of DESC LIST ITEMS: each line of ITEMS is part of some line of LIST.
part_of() {
	_miss=
	IFS='
'
	for _w in $3; do
		printf '%s\n' "$2" | grep -qF -e "$_w" || _miss="$_miss [$_w]"
	done
	unset IFS
	eq "$1" "${_miss# }" ""
}
# after MARKER: the words of the binary's message after MARKER (its last line).
after() { sed -n "s/.*$1//p" | head -1 | tr -d '[]' | tr '|' ' '; }
# conf_err TEXT: the first message of config on a file holding TEXT.
conf_err() {
	printf "$1\n" >"$WORK/probe.conf"
	"$ET" config --root "$t" --profile none --config "$WORK/probe.conf" 2>&1 >/dev/null | head -1
}

# ---- earlytune(8): commands ----------------------------------------------------
# The binary's command table (--list-commands: "cmdline apply" for a
# subcommand); --help and the errors that name the commands print the same table.
all_cmds=$("$ET" --list-commands)
eq "--list-commands: exit 0" "$?" 0
eq "the binary lists its commands (15, subcommands included)" "$(printf '%s\n' "$all_cmds" | wc -l)" 15
tops=$(printf '%s\n' "$all_cmds" | grep -v ' ')
subs=$(printf '%s\n' "$all_cmds" | sed -n 's/^cmdline //p')
help_cmds=$("$ET" --help | sed -n '/^Commands:/,/^$/p' |
	sed -n 's/^  \(cmdline [a-z][a-z]*\|measure [a-z][a-z]*\|[a-z][a-z-]*\).*/\1/p')
eq "--help names every command of the table, in its order" "$help_cmds" "$all_cmds"
eq "the unknown-command error names the table's commands" \
	"$("$ET" no-such-command --root "$t" 2>&1 | after 'commands: ')" "$(echo $tops)"
eq "the unknown-subcommand error names the table's subcommands" \
	"$("$ET" cmdline no-such-sub --root "$t" 2>&1 | after 'cmdline ')" "$(echo $subs)"
IFS='
'
in_list "earlytune.8: every command has its entry in COMMANDS" "$("$TAGS" "$P8" COMMANDS)" $all_cmds
in_list "earlytune.8: every command has its exit status in EXIT STATUS" "$("$TAGS" "$P8" "EXIT STATUS")" $all_cmds
unset IFS

# ---- earlytune(8): options ---------------------------------------------------------
# The long options of --help and of main.c's option table (one --help only
# mentions in passing, such as --diskseq, still needs its entry).
longs=$( { "$ET" --help | grep -oE -- '--[a-z][a-z-]+'
	grep -oE '\{ "[a-z][a-z-]*", (no|required|optional)_argument' "$TESTS_DIR/../src/main.c" |
		sed 's/{ "\([^"]*\)".*/--\1/'; } | sort -u)
eq "main.c's option table was read" "$(printf '%s\n' "$longs" | grep -c -- '--diskseq')" 1
in_list "earlytune.8: every long option has its entry in OPTIONS" "$("$TAGS" "$P8" OPTIONS)" $longs
# Each short option with its long one in the same entry, as --help pairs them.
pairs=$("$ET" --help | grep -oE -- '-[A-Za-z], --[a-z][a-z-]+')
part_of "earlytune.8: every short option is in the entry of its long one" "$("$TAGS" --raw "$P8" OPTIONS)" "$pairs"
eq "--help pairs the short options (at least 12 found)" "$([ "$(printf '%s\n' "$pairs" | wc -l)" -ge 12 ] && echo yes)" yes

# ---- earlytune(8): domains, profiles, backends, classes --------------------------
domains=$("$ET" --only no-such-domain 2>&1 | after 'domains: ')
eq "the binary names its domains" "$domains" "modules thp nic net block initramfs limits sched sysfs"
in_list "earlytune.8: every domain has its entry under Domains" "$("$TAGS" "$P8" DESCRIPTION Domains)" $domains
profiles=$("$ET" plan --root "$t" --profile no-such-profile 2>&1 | after 'built-in profiles: ')
eq "the binary names its profiles" "$(echo $profiles | wc -w)" 4
has_words "earlytune.8 names every profile" "$TXT8" $profiles
in_list "earlytune.conf.5: every profile has its entry in PROFILES" "$("$TAGS" "$P5" PROFILES)" $profiles
backends=$("$ET" cmdline apply --backend no-such-backend --root "$t" 2>&1 | after 'backends: ')
eq "the binary names its backends" "$(echo $backends | wc -w)" 5
has_words "earlytune.8 names every cmdline backend" "$TXT8" $backends
classes=$(conf_err '[block "x"]\nmatch.class = no-such-class' | after 'classes: ')
eq "the binary names its disk classes" "$(echo $classes | wc -w)" 11
in_list "earlytune.8: every disk class has its entry under Disk classes" \
	"$("$TAGS" "$P8" DESCRIPTION "Disk classes")" $classes
has_words "earlytune.conf.5 names every disk class" "$TXT5" $classes
has_words "earlytune.8 names the kernel parameters that switch it off" "$TXT8" earlytune=0 rd.earlytune=0 COLUMNS

# ---- earlytune.conf(5): sections and keys ---------------------------------------------
sections=$(conf_err '[no-such-section]' | sed -n 's/.*allowed: //p' | grep -oE '\[[a-z]+( "NAME")?\]')
eq "the binary names its sections" "$(printf '%s\n' "$sections" | wc -l)" 14
part_of "earlytune.conf.5: every section has its subsection in SECTIONS" "$("$TAGS" "$P5" --ss SECTIONS)" "$sections"
matches=$(conf_err '[block "x"]\nmatch.no_such_match = 1' | after 'allowed: ')
eq "the binary names the match keys of [block]" "$(echo $matches | wc -w)" 12
for sec in main block thp modules net cmdline limits sched; do
	keys=$(conf_err "[$sec]\nno_such_key = 1" | after 'allowed: ' | sed "s/match\.\*/$matches/")
	eq "the binary names the keys of [$sec]" "$([ -n "$keys" ] && echo yes)" yes
	in_list "earlytune.conf.5: every key of [$sec] has its entry" "$("$TAGS" "$P5" SECTIONS "[$sec]")" $keys
done
keys=$(conf_err '[net "x"]\nno_such_key = 1' | after 'allowed: ')
eq "the binary names the keys of [net \"NAME\"]" "$([ -n "$keys" ] && echo yes)" yes
in_list "earlytune.conf.5: every key of [net \"NAME\"] has its entry" "$("$TAGS" "$P5" SECTIONS '[net "NAME"]')" $keys
keys=$(conf_err '[sysfs "x"]\nno_such_key = 1' | after 'allowed: ')
eq "the binary names the keys of [sysfs \"NAME\"]" "$([ -n "$keys" ] && echo yes)" yes
in_list "earlytune.conf.5: every key of [sysfs \"NAME\"] has its entry" "$("$TAGS" "$P5" SECTIONS '[sysfs "NAME"]')" $keys
# khugepaged/ files: no message lists them; thp.c's table does.
khp=$(sed -n 's/.*{ "khugepaged\.\([a-z_]*\)".*/\1/p' "$TESTS_DIR/../src/thp/thp.c")
eq "thp.c's khugepaged keys were read" "$([ "$(echo $khp | wc -w)" -ge 7 ] && echo yes)" yes
has_words "earlytune.conf.5 names every khugepaged key" "$TXT5" $khp

# ---- earlytune.conf(5): the values the binary accepts --------------------------------
for probe in '[block]\nscheduler = x|allowed: ' '[thp]\nenabled = x|allowed: ' '[thp]\ndefrag = x|allowed: ' \
	'[thp]\nshmem_enabled = x|allowed: ' '[thp]\nsize.64kB.enabled = x|allowed: ' \
	'[net]\ncongestion_control = x|known: ' '[net]\nqdisc = x|it sets: ' \
	'[net]\nqdisc = fq\nqdisc.x = 1|earlytune sets ' '[net]\nqdisc = fq_codel\nqdisc.x = 1|earlytune sets ' \
	'[net]\nqdisc = pfifo\nqdisc.x = 1|earlytune sets '; do
	vals=$(conf_err "${probe%|*}" | after "${probe#*|}" | sed 's/ of [a-z_]*$//' | tr -d "'")
	what=$(printf '%s' "${probe%|*}" | sed 's/\\n/; /g')
	eq "the binary names the values of: $what" "$([ -n "$vals" ] && echo yes)" yes
	has_words "earlytune.conf.5 names the values of: $what" "$TXT5" $vals
done

# ---- earlytune.conf(5): the configuration table of docs/configuration.md ----------
# Every key and word in backquotes in its rows; a placeholder (N, NAME, MOD…)
# is checked by what comes before it ("options." for options.MOD).
table=$(sed -n '/^| section | keys |/,/^$/p' "$TESTS_DIR/../docs/configuration.md" | grep -oE '`[^`]+`' | tr -d '`' |
	sed 's/ *=.*//' | tr ' ' '\n' | sed 's/[A-Z].*//; s/…//g' | grep -E '^[a-z][a-z0-9_.+-]*$' | sort -u)
eq "docs/configuration.md's table of sections and keys was read" "$([ "$(echo $table | wc -w)" -ge 60 ] && echo yes)" yes
miss=
for w in $table; do
	case $w in
	*.) printf '%s\n' "$TXT5" | grep -qF -e "$w" || miss="$miss $w" ;;
	*) printf '%s\n' "$TXT5" | grep -qFw -e "$w" || miss="$miss $w" ;;
	esac
done
eq "earlytune.conf.5 names every key and value of docs/configuration.md's table" "${miss# }" ""
