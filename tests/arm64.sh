#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The arm64 target, two steps of make check (the unit tests and the golden
# plans under qemu-user are two more, run by tests/run-unit and
# tests/run-integration):
#   tests/arm64.sh build BUILD_DIR  make ARCH=arm64 into BUILD_DIR-arm64: the
#     static binary (aarch64, static, at most 1.7 MiB stripped: size.sh),
#     its profile table byte for byte the native build's, and the ASan/UBSan
#     unit tests; both run here under qemu-user (binfmt, .ci/bootstrap).
#   tests/arm64.sh pkg BUILD_DIR    make deb ARCH=arm64 (a cross
#     dpkg-buildpackage): earlytune_*_arm64.deb, lintian clean, the static
#     aarch64 binary, make install's files, Built-Using naming what the
#     arm64 binary links; make rpm ARCH=arm64 (rpmbuild --target aarch64):
#     the dynamic aarch64 build, rpmlint without an error.
set -u
export LC_ALL=C
top=$(cd "$(dirname "$0")/.." && pwd)
part=${1:-}
build=$(realpath "$2")
arm=$build-arm64
W=$(mktemp -d /tmp/et-arm64.XXXXXX)
TAP_NAME=arm64 TAP_SUMMARY=arm64-$part
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
# The pinned kmod and zstd tarballs the native build fetched: not again.
seed() {
	for d in kmod zstd; do
		mkdir -p "$arm/$d"
		for f in "$build/$d"/*.orig.tar.xz; do
			[ -f "$f" ] && [ ! -f "$arm/$d/${f##*/}" ] && cp "$f" "$arm/$d/"
		done
	done
	return 0
}

build() {
	seed
	units=$(cd "$top/tests/unit" && ls test_*.c | sed "s|^\\(.*\\)\\.c\$|$arm/unit/\\1|")
	t=$(date +%s)
	# shellcheck disable=SC2086
	make -s -C "$top" ARCH=arm64 BUILD="$arm" "$arm/earlytune" $units >"$W/make.out" 2>&1
	ok "make ARCH=arm64: the static binary and $(echo "$units" | wc -w) unit tests ($(($(date +%s) - t)) s)" \
		$? "$(tail -20 "$W/make.out")"
	out=$(file "$arm/earlytune")
	case $out in *"ARM aarch64"*"statically linked"*) true ;; *) false ;; esac
	ok "$arm/earlytune is a static aarch64 executable" $? "$out"
	cmp "$build/gen/profiles.c" "$arm/gen/profiles.c" >/dev/null
	ok "the cross-build's profile table (its generator built for this machine) is the native one's" $?
	v=$("$arm/earlytune" --version 2>&1)
	[ "$v" = "$("$build/earlytune" --version)" ]
	ok "it runs under qemu-user: $v" $? "$v (binfmt_misc: .ci/bootstrap registers qemu-aarch64)"
	SUMMARY_NAME=size SCRIPTS=size "$top/tests/run-integration" "$arm/earlytune" >"$W/size.out" 2>&1
	rc=$?
	grep '^ok\|^not ok' "$W/size.out" | sed 's/^/    /'
	ok "size.sh on the arm64 binary (stripped ≤ 1.7 MiB)" $rc "$(tail -5 "$W/size.out")"
}

deb_pkg() {
	seed
	t=$(date +%s)
	make -s -C "$top" ARCH=arm64 BUILD="$arm" deb >"$W/deb.out" 2>&1
	ok "make deb ARCH=arm64: dpkg-buildpackage -a arm64 ($(($(date +%s) - t)) s)" $? "$(tail -20 "$W/deb.out")"
	deb=$(ls "$arm"/deb/earlytune_*_arm64.deb 2>/dev/null | head -1)
	[ -f "$deb" ] || { fail "earlytune_*_arm64.deb is in $arm/deb" "$(ls "$arm/deb")"; return 0; }
	pass "$(basename "$deb") built"
	[ "$(dpkg-deb -f "$deb" Architecture)" = arm64 ]
	ok "its Architecture is arm64" $? "$(dpkg-deb -f "$deb" Architecture)"
	out=$(lintian --allow-root --fail-on error "$arm"/deb/*.changes 2>&1)
	ok "lintian: no error" $? "$out"
	[ -z "$out" ]
	ok "lintian: no warning either" $? "$out"
	dpkg-deb -x "$deb" "$W/root"
	out=$(file "$W/root/usr/sbin/earlytune")
	case $out in *"ARM aarch64"*"statically linked"*stripped*) true ;; *) false ;; esac
	ok "its binary is static, aarch64 and stripped" $? "$out"
	size=$(stat -c %s "$W/root/usr/sbin/earlytune")
	[ "$size" -le 1782579 ]
	ok "its binary (Debian's hardening flags, -Os) is $size bytes ≤ 1.7 MiB" $?
	"$W/root/usr/sbin/earlytune" --version >/dev/null 2>&1
	ok "its binary runs under qemu-user" $?
	# The files of the package: what make install puts there, as for amd64.
	vars=$(make -s -C "$top" -f debian/rules print-install-vars)
	# shellcheck disable=SC2086
	make -s -C "$top" print-installed $vars | sed 's|^\(/usr/share/man/.*\)|\1.gz|' |
		{ cat; printf '%s\n' /usr/share/doc/earlytune/copyright /usr/share/doc/earlytune/changelog.Debian.gz \
			/usr/share/lintian/overrides/earlytune; } | sort >"$W/want"
	dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print substr($6, 2) }' | sort >"$W/have"
	diff "$W/want" "$W/have" >"$W/diff"
	ok "its files are make install's INSTALLED list" $? "$(cat "$W/diff")"
	bu=$(dpkg-deb -f "$deb" Built-Using)
	for p in libblkid-dev:arm64 liblzma-dev:arm64 zlib1g-dev:arm64 \
		"$(dpkg-query -S "$(realpath "$(aarch64-linux-gnu-gcc -print-file-name=libc.a)")" | sed 's/: .*//')"; do
		want=$(dpkg-query -W -f='${source:Package} (= ${source:Version})' "$p")
		case ", $bu," in *", $want,"*) pass "Built-Using names $want ($p)" ;;
		*) fail "Built-Using names $want ($p)" "Built-Using: $bu" ;; esac
	done
	case $bu in *", , "* | *"(= )"*) false ;; *) [ "$(echo "$bu" | tr ',' '\n' | sort | uniq -d)" = "" ] ;; esac
	ok "Built-Using names each source once" $? "$bu"
}

# The RPM for aarch64: rpmbuild --target aarch64 of the source RPM, the
# spec's cross-build (the dynamic build, against arm64's libraries here);
# its %check is the arm64-unit step's.
rpm_pkg() {
	t=$(date +%s)
	make -s -C "$top" ARCH=arm64 BUILD="$arm" RPMBUILD_FLAGS=--nocheck rpm >"$W/rpm.out" 2>&1
	ok "make rpm ARCH=arm64: rpmbuild --rebuild --target aarch64 ($(($(date +%s) - t)) s)" $? "$(tail -20 "$W/rpm.out")"
	rpm=$(ls "$arm"/rpm/RPMS/aarch64/earlytune-*.aarch64.rpm 2>/dev/null | head -1)
	[ -f "$rpm" ] || { fail "earlytune-*.aarch64.rpm is in $arm/rpm/RPMS/aarch64" "$(ls -R "$arm/rpm/RPMS")"; return 0; }
	pass "$(basename "$rpm") built"
	mkdir "$W/rpmroot" && (cd "$W/rpmroot" && rpm2cpio "$rpm" | cpio -id --quiet)
	out=$(file "$W/rpmroot/usr/sbin/earlytune")
	case $out in *"ARM aarch64"*"dynamically linked"*"ld-linux-aarch64"*) true ;; *) false ;; esac
	ok "its binary is the dynamic aarch64 build" $? "$out"
	rpm -qp --requires "$rpm" 2>/dev/null | grep -q 'libkmod.so.2()(64bit)'
	ok "it requires libkmod.so.2 (64-bit)" $? "$(rpm -qp --requires "$rpm" 2>&1)"
	out=$(rpmlint -r "$top/earlytune.rpmlintrc" "$rpm" "$top/earlytune.spec" 2>&1)
	echo "$out" | grep -q ' 0 errors,'
	ok "rpmlint: no error" $? "$(echo "$out" | grep -E ': (E|W): ')"
}

case $part in
build) build ;;
pkg) deb_pkg; rpm_pkg ;;
*) echo "usage: tests/arm64.sh build|pkg BUILD_DIR" >&2; part=usage; exit 2 ;;
esac
