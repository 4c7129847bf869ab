# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 25: the documentation holds as it stands. README.md is at most 300
# lines and links every docs/*.md; every ```ini block of README.md and of
# docs/*.md parses (`earlytune config`, over the vps profile); none holds a
# U+2212 minus; and every relative link of them — [text](path),
# [text](path#anchor), [text](#anchor) — names a file that exists and, with
# an anchor, a heading of that file, by GitHub's slugs (lowercase, a space
# becomes '-', punctuation but '-' and '_' dropped, a repeated slug gets
# -1, -2, …). Links inside code (fenced blocks, `spans`) are not links.
# The link check runs first on planted files, to show it finds what is broken.
. "$(dirname "$0")/../lib/common.sh"

TOP=$(cd "$TESTS_DIR/.." && pwd)
t=$WORK/kvm
mk_kvm "$t"

# prose FILE: the text of FILE outside fenced code blocks, with `code spans`
# cut (a span may run over a line break), on one line per input line.
prose() {
	awk '/^ *(```|~~~)/ { fence = !fence; print ""; next } { print fence ? "" : $0 }' "$1" |
		awk 'BEGIN { RS = "\001" } { gsub(/`[^`]*`/, ""); printf "%s", $0 }'
}

# link_targets FILE: the target of every inline link of FILE that is not a
# URL (no scheme), one a line, a title ("…") dropped.
link_targets() {
	prose "$1" | awk '{
		s = $0
		while (match(s, /\]\([^)]*\)/)) {
			l = substr(s, RSTART + 2, RLENGTH - 3)
			s = substr(s, RSTART + RLENGTH)
			sub(/^ *</, "", l); sub(/> *$/, "", l); sub(/ +".*"$/, "", l)
			if (l ~ /^[A-Za-z][A-Za-z0-9+.-]*:/) continue
			print l
		}
	}'
}

# slugs FILE: GitHub's anchor of every heading of FILE, in order.
slugs() {
	awk '/^ *(```|~~~)/ { fence = !fence; next }
	!fence && /^##* / && index($0, "####### ") != 1 {
		h = $0
		sub(/^#+ +/, "", h); sub(/ +#+ *$/, "", h); sub(/ +$/, "", h)
		h = tolower(h)
		gsub(/[^a-z0-9 _-]/, "", h)
		gsub(/ /, "-", h)
		s = h
		if (h in seen) s = h "-" seen[h]
		seen[h]++
		print s
	}' "$1"
}

# check_links FILE: one line per relative link of FILE: "ok TARGET",
# "nofile TARGET" (no such file or directory) or "noanchor TARGET" (the file
# has no heading of that slug).
check_links() {
	_dir=$(dirname "$1")
	link_targets "$1" | while IFS= read -r _l; do
		_p=${_l%%#*} _a=
		case $_l in *'#'*) _a=${_l#*#} ;; esac
		if [ -z "$_p" ]; then _f=$1; else _f=$_dir/$_p; fi
		if [ ! -e "$_f" ]; then
			echo "nofile $_l"
		elif [ -n "$_a" ] && { [ ! -f "$_f" ] || ! slugs "$_f" | grep -qxF -e "$_a"; }; then
			echo "noanchor $_l"
		else
			echo "ok $_l"
		fi
	done
}

# links_hold NAME FILE: FILE's links to files, and its anchors, each one check.
links_hold() {
	_r=$(check_links "$2")
	_n=$(printf '%s\n' "$_r" | grep -c '^[a-z]')
	_bad=$(printf '%s\n' "$_r" | grep '^nofile ' | sed 's/^nofile //')
	if [ -z "$_bad" ]; then pass "$1: its $_n relative links name files that exist"
	else fail "$1: its $_n relative links name files that exist" "no such file:" $_bad; fi
	_na=$(printf '%s\n' "$_r" | grep -c '^[a-z]* [^ ]*#')
	_bad=$(printf '%s\n' "$_r" | grep '^noanchor ' | sed 's/^noanchor //')
	if [ -z "$_bad" ]; then pass "$1: its $_na #anchors name headings of their files"
	else fail "$1: its $_na #anchors name headings of their files" "no such heading:" $_bad; fi
}

# ---- the link check finds what is broken, and only that ------------------------
p=$WORK/planted
mkdir -p "$p/docs"
cat >"$p/docs/x.md" <<'EOF'
# X
## Section two
## Section two
## The `vps` profile: a, b & c_d
EOF
cat >"$p/README.md" <<'EOF'
# Top
## Where: here
[ok](docs/x.md#section-two) [ok](docs/x.md#section-two-1) [ok](#where-here)
[ok](docs/x.md#the-vps-profile-a-b--c_d) [ok](docs/) [ok](https://example.org/no)
[missing file](docs/missing.md) [missing
heading](docs/x.md#section-three) `[in a span](span.md)` and `a span
over a line break [in it](span2.md)`
```
[in a fence](fence.md)
```
[missing anchor here](#nowhere)
EOF
eq "planted: the slugs of GitHub" "$(slugs "$p/docs/x.md" | tr '\n' ' ')" "x section-two section-two-1 the-vps-profile-a-b--c_d "
eq "planted: code spans and fences hold no links" "$(link_targets "$p/README.md" | grep -c 'span\|fence')" 0
eq "planted: every broken link found, and only those" "$(check_links "$p/README.md" | grep -v '^ok ' | tr '\n' ' ')" \
	"nofile docs/missing.md noanchor docs/x.md#section-three noanchor #nowhere "
eq "planted: the good links pass" "$(check_links "$p/README.md" | grep -c '^ok ')" 5
OUT=$(RESULTS=/dev/null; links_hold planted "$p/README.md")
contains "planted: links_hold fails on a missing file, naming it" "not ok - docs: planted: its 8 relative links name files that exist
    no such file:
    docs/missing.md"
contains "planted: links_hold fails on a missing heading, naming it" "not ok - docs: planted: its 6 #anchors name headings of their files
    no such heading:
    docs/x.md#section-three
    #nowhere"

# ---- README: short, and the way into docs/ --------------------------------------
readme=$TOP/README.md
n=$(wc -l <"$readme")
[ "$n" -le 300 ]; eq "README.md is at most 300 lines ($n)" $? 0
docs=$(cd "$TOP" && ls docs/*.md)
[ "$(echo $docs | wc -w)" -ge 5 ]; eq "docs/ holds the documents ($(echo $docs | wc -w))" $? 0
miss=
for d in $docs; do
	link_targets "$readme" | sed 's/#.*//' | grep -qxF -e "$d" || miss="$miss $d"
done
eq "README.md links every docs/*.md" "${miss# }" ""

# ---- every relative link and anchor ------------------------------------------------
total=0
for f in README.md $docs; do
	links_hold "$f" "$TOP/$f"
	total=$((total + $(link_targets "$TOP/$f" | wc -l)))
done
[ "$total" -ge 50 ]; eq "the links were read (at least 50: $total)" $? 0

# ---- every ```ini block parses as it stands ------------------------------------------
for f in README.md $docs; do
	b=$WORK/ini/$(echo "$f" | tr / _)
	mkdir -p "$b"
	n=$(awk -v dir="$b" '/^```ini$/ { n++; f = sprintf("%s/%02d-line%d.conf", dir, n, NR + 1); on = 1; next }
		/^```/ { on = 0 } on { print > f } END { print n + 0 }' "$TOP/$f")
	[ "$n" = 0 ] && continue
	for c in "$b"/*.conf; do
		check_rc "$f: ini block at line $(basename "$c" .conf | sed 's/.*-line//') parses" 0 -- \
			"$ET" config --root "$t" --config "$c"
	done
done
blocks=$(find "$WORK/ini" -name '*.conf' | wc -l)
[ "$(grep -c '^```ini$' "$readme")" -ge 1 ]; eq "README.md has an ini block" $? 0
[ "$blocks" -ge 3 ]; eq "the ini blocks were read (at least 3: $blocks)" $? 0

# ---- no look-alike minus ---------------------------------------------------------------------
for f in README.md $docs; do
	if grep -n '−' "$TOP/$f" >/dev/null; then fail "$f has no U+2212 minus" "$(grep -n '−' "$TOP/$f")"
	else pass "$f has no U+2212 minus"; fi
done
