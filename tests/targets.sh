#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Every documented make target starts from a fresh clone. Each runs in a copy
# of its own of the tree as git sees it (tracked and new files, not the
# ignored ones, so no build/; a git repository again, since make deb and make
# rpm package what git lists), as far as make check can afford:
#
#   bench, bench-sched, bench-workload: make TARGET BENCH_DRY=1, the
#     benchmarks' dry runs (bench/lib.sh)
#   fuzz: make fuzz FUZZ_SECONDS=1, every harness linked and fuzzed a second
#   deb: make deb: the kmod and zstd tarballs fetched with apt-get source,
#     the source package made with them as its components, dpkg-buildpackage
#     in the tree unpacked from it, up to its build, where a hook checks the
#     tree it builds from and stops it
#   rpm: make rpm: the tarball, rpmbuild's %prep, then in place of %build a
#     check of the unpacked tree that stops it
#
# tests/package.sh builds both packages in full; this only proves that they
# start from nothing. The copies that compile get BUILD_DIR's objects and
# archives (obj, fuzzobj, the kmod and zstd archives), timestamps kept: make
# links, and rebuilds only what is older than its sources, as in a clone
# where `make` ran first. The deb and rpm copies get nothing.
#
# Needs root (the benchmarks' dry runs) and the network (apt-get source).
# Usage: tests/targets.sh BUILD_DIR [TARGET…]   (the six above by default)
# One "ok - targets: …" or "not ok - targets: …" per target, then
# "targets: N passed, N failed"; exit status 0 when all passed.
set -u
export LC_ALL=C
top=$(cd "$(dirname "$0")/.." && pwd)
[ -d "${1:-}" ] || { echo "usage: $0 BUILD_DIR [TARGET...]" >&2; exit 2; }
build=$(realpath "$1")
shift
[ $# -gt 0 ] || set -- bench bench-sched bench-workload fuzz deb rpm
version=$(sed -n 's/^VERSION *:= *//p' "$top/Makefile")
W=$(mktemp -d /tmp/et-targets.XXXXXX)
PASS=0 FAIL=0 start=$SECONDS
finish() {
	rm -rf --one-file-system "$W"
	echo "# targets: $((SECONDS - start)) s"
	echo "targets: $PASS passed, $FAIL failed"
	[ "$FAIL" = 0 ] && [ "$PASS" -gt 0 ]
}
trap 'finish; exit $?' EXIT
trap 'exit 130' INT TERM
pass() { echo "ok - targets: $1"; PASS=$((PASS + 1)); }
fail() { echo "not ok - targets: $1"; shift; printf '%s\n' "$@" | sed 's/^/    /'; FAIL=$((FAIL + 1)); }

# fresh NAME: $W/NAME, a clean copy of the tree (the Makefile's TREE_TAR),
# every file in git's index
fresh() {
	local d=$W/$1
	mkdir -p "$d" || return 1
	(cd "$top" && git ls-files -z --cached --others --exclude-standard |
		tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -C "$d" -xf - || return 1
	git -C "$d" init -q && git -C "$d" add .
}
# seed NAME PATH…: BUILD_DIR/PATH into the copy's build/, timestamps kept
seed() {
	local d=$W/$1 p
	shift
	for p; do
		[ -e "$build/$p" ] || continue
		mkdir -p "$(dirname "$d/build/$p")" && cp -a "$build/$p" "$d/build/$p" || return 1
	done
}
# mk NAME ARGS…: make ARGS in the copy NAME, with none of the variables of a
# make this script may run under (BUILD=… among them), as from a new shell;
# its output in $W/NAME.log
mk() {
	local name=$1
	shift
	(cd "$W/$name" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u BUILD \
		-u BENCH_DRY -u FUZZ_SECONDS -u RPMBUILD_FLAGS make -s -j"$(nproc)" "$@") >"$W/$name.log" 2>&1
}
# judge NAME DESC STATUS [WHY]: the target's line; on failure WHY and the
# tail of its log
judge() {
	if [ "$3" = 0 ]; then
		pass "$2"
	else
		fail "$2" ${4:+"$4"} "$(tail -15 "$W/$1.log")"
	fi
}

# dry TARGET SCRIPT…: make TARGET BENCH_DRY=1 ran each SCRIPT's dry run
dry() {
	local name=$1 t=$SECONDS rc s why=
	shift
	if ! { fresh "$name" && seed "$name" obj kmod/libkmod.a zstd/libzstd.a; }; then
		fail "make $name: copying the tree"
		return
	fi
	mk "$name" "$name" BENCH_DRY=1
	rc=$?
	for s; do
		grep -q "^bench/$s: dry run: " "$W/$name.log" || why="${why:+$why; }bench/$s printed no dry run line"
	done
	[ -z "$why" ] || [ "$rc" != 0 ] || rc=1
	[ "$rc" = 0 ] && sed -n 's|^bench/\([^:]*\): dry run: |#   \1: |p' "$W/$name.log"
	judge "$name" "make $name BENCH_DRY=1 in a fresh clone: the dry run of $* ($((SECONDS - t)) s)" "$rc" "$why"
}

t_fuzz() {
	local t=$SECONDS rc line
	if ! { fresh fuzz && seed fuzz fuzzobj; }; then
		fail "make fuzz: copying the tree"
		return
	fi
	mk fuzz fuzz FUZZ_SECONDS=1
	rc=$?
	line=$(grep -E '^fuzz: [0-9]+ passed, [0-9]+ failed$' "$W/fuzz.log" | tail -1)
	case $line in "" | "fuzz: 0 passed"*) [ "$rc" != 0 ] || rc=1 ;; esac
	judge fuzz "make fuzz FUZZ_SECONDS=1 in a fresh clone: every harness linked and run (${line:-no summary}, $((SECONDS - t)) s)" "$rc"
}

# make deb up to dpkg-buildpackage's build: a hook there (dpkg-buildpackage
# reads it from XDG_CONFIG_HOME) checks the tree the package is built from
# (every file of the clone, kmod's and zstd's sources as the source package's
# components, nothing of a build), then stops the build.
t_deb() {
	local t=$SECONDS rc=0 why=
	fresh deb || { fail "make deb: copying the tree"; return; }
	mkdir -p "$W/xdg/dpkg"
	echo "hook-build = sh $W/deb-hook.sh" >"$W/xdg/dpkg/buildpackage.conf"
	cat >"$W/deb-hook.sh" <<'EOF'
set -u
bad= pkg=$(pwd)
for f in kmod/configure.ac kmod/libkmod/libkmod.c zstd/lib/zstd.h zstd/lib/decompress/zstd_decompress.c; do
	[ -f "$f" ] || bad="$bad no $f (the source package's components);"
done
[ ! -e build ] || bad="$bad the tree holds a build/: $(find build | head -5);"
missing=$(cd "$TARGETS_CLONE" && git ls-files | while read -r f; do [ -e "$pkg/$f" ] || echo "$f"; done)
[ -z "$missing" ] || bad="$bad files of the clone missing: $missing;"
if [ -n "$bad" ]; then echo "targets: the package's tree:$bad"; exit 1; fi
echo "targets: the package's tree is the clone's with kmod/ and zstd/; the build stops here"
touch "$TARGETS_CLONE.ok"
exit 1
EOF
	XDG_CONFIG_HOME=$W/xdg TARGETS_CLONE=$W/deb mk deb deb
	ls "$W"/deb/build/kmod/kmod_*.orig.tar.* "$W"/deb/build/zstd/libzstd_*.orig.tar.* >/dev/null 2>&1 ||
		rc=1 why="the kmod and zstd sources were not fetched (apt-get source)"
	ls "$W"/deb/build/deb/earlytune_"$version"-*.dsc >/dev/null 2>&1 ||
		rc=1 why="${why:+$why; }no source package (.dsc)"
	[ -e "$W/deb.ok" ] || rc=1 why="${why:+$why; }dpkg-buildpackage did not reach its build, or its tree failed the check"
	judge deb "make deb in a fresh clone: kmod and zstd from apt-get source, the source package with them as components, dpkg-buildpackage in the tree unpacked from it up to its build ($((SECONDS - t)) s)" "$rc" "$why"
}

# make rpm up to rpmbuild's %build: rpmbuild runs this in place of the %build
# script (__spec_build_cmd): the tree %prep unpacked from make rpm's tarball
# is the clone's, without build/, and the %build script parses and runs make;
# then it stops the build.
t_rpm() {
	local t=$SECONDS rc=0
	fresh rpm || { fail "make rpm: copying the tree"; return; }
	cat >"$W/rpm-stop.sh" <<'EOF'
set -u
bad= src=$TARGETS_RPM_TREE
[ -d "$src" ] || { echo "targets: %prep unpacked no $src"; exit 1; }
[ ! -e "$src/build" ] || bad="$bad the tarball holds build/;"
missing=$(cd "$TARGETS_CLONE" && git ls-files | while read -r f; do [ -e "$src/$f" ] || echo "$f"; done)
[ -z "$missing" ] || bad="$bad files of the clone missing: $missing;"
sh -n "$1" || bad="$bad the %build script does not parse;"
grep -q 'make' "$1" || bad="$bad the %build script runs no make;"
if [ -n "$bad" ]; then echo "targets: %prep's tree:$bad"; exit 1; fi
echo "targets: %prep unpacked the clone's tree; the build stops here"
touch "$TARGETS_CLONE.ok"
exit 1
EOF
	TARGETS_CLONE=$W/rpm TARGETS_RPM_TREE=$W/rpm/build/rpm/BUILD/earlytune-$version \
		mk rpm rpm "RPMBUILD_FLAGS=--define '__spec_build_cmd sh $W/rpm-stop.sh'"
	[ -e "$W/rpm.ok" ] || rc=1
	judge rpm "make rpm in a fresh clone: the tarball, rpmbuild's %prep, up to its %build ($((SECONDS - t)) s)" "$rc" \
		"rpmbuild did not reach %build, or %prep's tree failed the check"
}

for target; do
	case $target in
	bench) dry bench block.sh net.sh ;;
	bench-sched) dry bench-sched sched.sh ;;
	bench-workload) dry bench-workload workload.sh ;;
	fuzz) t_fuzz ;;
	deb) t_deb ;;
	rpm) t_rpm ;;
	*) fail "$target: no such target here (bench bench-sched bench-workload fuzz deb rpm)" ;;
	esac
done
