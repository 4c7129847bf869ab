#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The packages and the installation: the .deb (make deb: dpkg-buildpackage,
# the static build) checked by lintian and against `make install`'s file
# list; the .rpm (make rpm: Debian's rpmbuild, the dynamic build, the unit
# tests in %check) checked by rpmlint and against the same list; enablement
# through the preset in a DESTDIR root (systemctl --root); systemd-analyze
# verify on the installed units; PREFIX=/usr/local honoured by every file.
# Usage: tests/package.sh BUILD_DIR     (packages in BUILD_DIR/deb, BUILD_DIR/rpm)
set -u
export LC_ALL=C
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "$1")
W=$(mktemp -d /tmp/et-package.XXXXXX)
TAP_NAME=package TAP_SUMMARY=package
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
mk() { make -s -C "$top" BUILD="$build" "$@"; }
version=$(sed -n 's/^VERSION *:= *//p' "$top/Makefile")
sctl() { # ROOT ARGS…: systemctl on that root
	r=$1
	shift
	SYSTEMD_LOG_LEVEL=err systemctl --root="$r" "$@"
}

# A list of installed paths with a name: the files under a root, or a package's.
files_of_root() { (cd "$1" && find . ! -type d | sed 's|^\.||' | sort); }
# same_list DESC EXPECTED ACTUAL: the two lists (files, one a line) match.
same_list() {
	missing=$(comm -23 "$2" "$3") extra=$(comm -13 "$2" "$3")
	[ -z "$missing$extra" ]
	ok "$1" $? "missing: $missing" "extra: $extra"
}

# Both packages build with the network cut off (a network namespace of their
# own, only a loopback that is down), as sbuild, pbuilder and mock build:
# from their source packages and build dependencies alone. The kmod and zstd
# tarballs `make deb` puts into the Debian source package are the pinned
# ones make already fetched into BUILD_DIR (check-package depends on them).
offline() {
	if [ "$(id -u)" = 0 ]; then unshare -n "$@"; else "$@"; fi
}
if [ "$(id -u)" = 0 ]; then
	eq_net=$(unshare -n ip -o link 2>&1 | awk -F': ' '{ print $2 }')
	[ "$eq_net" = lo ]
	ok "the offline builds' namespace has no interface but lo" $? "$eq_net"
else
	skip "the packages built with the network cut off (unshare -n)" "needs root"
fi

# ---- the .deb ---------------------------------------------------------------
t=$(date +%s)
offline make -s -C "$top" BUILD="$build" deb >"$W/deb.out" 2>&1
ok "make deb, offline: the source package, then dpkg-buildpackage in the tree dpkg-source -x unpacked from it ($(($(date +%s) - t)) s)" \
	$? "$(tail -20 "$W/deb.out")"
deb=$(ls "$build"/deb/earlytune_"$version"-*_*.deb 2>/dev/null | head -1)
[ -f "$deb" ] || { fail "the .deb is in $build/deb"; exit; }
# The source package: 3.0 (quilt), earlytune's tarball and kmod's and zstd's
# as its components, each the pinned tarball byte for byte.
dsc=$(ls "$build"/deb/earlytune_"$version"-*.dsc 2>/dev/null | head -1)
grep -qx 'Format: 3.0 (quilt)' "$dsc"
ok "the source package is 3.0 (quilt): $(basename "$dsc")" $? "$(head -3 "$dsc" 2>&1)"
for c in KMOD:kmod ZSTD:zstd; do
	sum=$(sed -n "s/^${c%:*}_SHA256 *:= *//p" "$top/Makefile")
	grep -qx " $sum [0-9]* earlytune_$version.orig-${c#*:}.tar.xz" "$dsc"
	ok "the .dsc carries orig-${c#*:}.tar.xz with the pinned SHA-256 (${sum%"${sum#????????????}"}…)" $? \
		"$(sed -n '/^Checksums-Sha256:/,/^[^ ]/p' "$dsc")"
done
grep -q " earlytune_$version.orig.tar.gz$" "$dsc" && grep -q " earlytune_$version-[^ ]*.debian.tar.xz$" "$dsc"
ok "the .dsc carries earlytune's own tarball and debian/'s" $? "$(cat "$dsc")"
grep -q '^rm -rf build/kmod/src && mkdir -p build/kmod/src && cp -a kmod/. build/kmod/src$' "$build/deb/build.log" &&
	grep -q '^rm -rf build/zstd/src && mkdir -p build/zstd/src && cp -a zstd/. build/zstd/src$' "$build/deb/build.log" &&
	! grep -q 'apt-get' "$build/deb/build.log"
ok "the package's build compiled kmod and zstd from the components kmod/ and zstd/, no apt-get" $? \
	"$(grep -n 'kmod\|zstd\|apt-get' "$build/deb/build.log" | head -5)"
out=$(lintian --allow-root --fail-on error "$build"/deb/*.changes 2>&1)
ok "lintian: no error (overrides each give their reason)" $? "$out"
[ -z "$out" ]
ok "lintian: no warning either" $? "$out"
git -C "$top" status --porcelain --ignored=matching debian 2>/dev/null | grep -q . &&
	fail "building the .deb leaves the tree clean" "$(git -C "$top" status --porcelain --ignored=matching debian)" ||
	pass "building the .deb leaves the tree clean"

# The package holds what `make install` installs with debian/rules' variables
# (man pages compressed), plus copyright, changelog and lintian overrides.
vars=$(make -s -C "$top" -f debian/rules print-install-vars)
# shellcheck disable=SC2086
mk print-installed $vars | sed 's|^\(/usr/share/man/.*\)|\1.gz|' |
	{ cat; printf '%s\n' /usr/share/doc/earlytune/copyright /usr/share/doc/earlytune/changelog.Debian.gz \
		/usr/share/lintian/overrides/earlytune; } | sort >"$W/deb.want"
dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print substr($6, 2) }' | sort >"$W/deb.have"
same_list ".deb contents = make install's INSTALLED list" "$W/deb.want" "$W/deb.have"
grep -q 'sysinit.target.wants' "$W/deb.have"
ok "the .deb has no static sysinit.target.wants link" $((!$?))
dpkg-deb -e "$deb" "$W/ctl"
grep -q "deb-systemd-helper enable 'earlytune.service'" "$W/ctl/postinst"
ok "postinst enables earlytune.service" $?
grep -q "deb-systemd-helper enable 'earlytune-cloud-init.service'" "$W/ctl/postinst"
ok "postinst enables earlytune-cloud-init.service" $?
grep -q "deb-systemd-helper enable 'earlytune-verify.timer'" "$W/ctl/postinst"
ok "postinst enables the verify timer (it starts only where a textfile directory exists)" $? "$(grep -n timer "$W/ctl/postinst")"
grep -q 'deb-systemd-invoke.*start' "$W/ctl/postinst"
ok "postinst does not start earlytune on this machine (it tunes at the next boot)" $((!$?))
bu=$(dpkg-deb -f "$deb" Built-Using)
# This machine's architecture: with arm64's -dev packages beside (multiarch),
# an unqualified name would answer for both.
arch=$(dpkg --print-architecture)
for p in "kmod (= $(sed -n 's/^KMOD_DEB *:= *//p' "$top/Makefile"))" \
	"libzstd (= $(sed -n 's/^ZSTD_DEB *:= *//p' "$top/Makefile"))" \
	"$(dpkg-query -W -f='${source:Package} (= ${source:Version})' libblkid-dev:"$arch")" \
	"$(dpkg-query -W -f='${source:Package} (= ${source:Version})' liblzma-dev:"$arch")" \
	"$(dpkg-query -W -f='${source:Package} (= ${source:Version})' zlib1g-dev:"$arch")" \
	"$(dpkg-query -W -f='${source:Package} (= ${source:Version})' libc6-dev:"$arch")"; do
	case ", $bu," in *", $p,"*) pass "Built-Using names $p" ;; *) fail "Built-Using names $p" "Built-Using: $bu" ;; esac
done
dpkg-deb -x "$deb" "$W/debroot"
file "$W/debroot/usr/sbin/earlytune" | grep -q 'statically linked'
ok "the .deb's binary is the static one" $?
size=$(stat -c %s "$W/debroot/usr/sbin/earlytune")
[ "$size" -le 1782579 ]
ok "the .deb's binary (Debian's hardening flags, -Os) is $size bytes ≤ 1.7 MiB" $?
cv=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
sv=$(sed -n 's/^Version: *//p' "$top/earlytune.spec")
[ "${cv%-*}" = "$version" ] && [ "$sv" = "$version" ]
ok "debian/changelog, earlytune.spec and the Makefile agree on the version ($version)" $? "changelog $cv, spec $sv"

# ---- the .rpm ---------------------------------------------------------------
t=$(date +%s)
offline make -s -C "$top" BUILD="$build" rpm >"$W/rpm.out" 2>&1
ok "make rpm, offline: the source RPM, then rpmbuild --rebuild of it ($(($(date +%s) - t)) s)" $? "$(tail -20 "$W/rpm.out")"
srpm=$(ls "$build"/rpm/SRPMS/earlytune-"$version"-*.src.rpm 2>/dev/null | head -1)
eq_srpm=$(rpm -qlp "$srpm" 2>&1 | sort | tr '\n' ' ')
[ "$eq_srpm" = "earlytune-$version.tar.gz earlytune.spec " ]
ok "the source RPM holds the spec and the tarball alone" $? "$eq_srpm"
rpm=$(ls "$build"/rpm/RPMS/*/earlytune-"$version"-*.rpm 2>/dev/null | head -1)
if [ -f "$rpm" ]; then
	# make check runs the unit tests in a step of their own: it builds the
	# package with RPMBUILD_FLAGS=--nocheck; `make rpm` runs %check.
	case " ${RPMBUILD_FLAGS:-} " in
	*" --nocheck "*)
		sed -n '/^%check$/,/^$/p' "$top/earlytune.spec" | grep -qx 'make check-unit'
		ok "%check runs the unit tests (make check-unit; not run here: --nocheck)" $? ;;
	*)
		grep -Eq '^unit: [1-9][0-9]* passed, 0 failed$' "$build/rpm/build.log"
		ok "%check ran the unit tests: $(grep -E '^unit: ' "$build/rpm/build.log")" $? ;;
	esac
	out=$(rpmlint -r "$top/earlytune.rpmlintrc" "$rpm" "$top/earlytune.spec" 2>&1)
	echo "$out" | grep -q ' 0 errors,'
	ok "rpmlint: no error (filters each give their reason)" $? "$(echo "$out" | grep -E ': (E|W): ')"
	rpm -qp --requires "$rpm" 2>/dev/null | grep -q 'libkmod.so.2'
	ok "the .rpm's binary is the dynamic build (requires libkmod.so.2)" $?
	# The spec's file list is the Makefile's, less Debian's generator and kernel hook.
	mk print-installed PREFIX=/usr UDEVRULESDIR=/usr/lib/udev/rules.d | sed -e '/initramfs-tools/d' \
		-e '\|^/etc/kernel/postinst.d/|d' -e 's|^\(/usr/share/man/.*\)|\1.gz|' |
		{ cat; printf '%s\n' /usr/share/licenses/earlytune/LICENSE; } | sort >"$W/rpm.want"
	rpm -qlp "$rpm" 2>/dev/null | grep -v '^/usr/lib/.build-id' >"$W/rpm.all"
	rpm -qlp --dump "$rpm" 2>/dev/null | awk '$5 !~ /^040/ { print $1 }' | grep -v '^/usr/lib/.build-id' | sort >"$W/rpm.have"
	same_list ".rpm contents = make install's INSTALLED list (no initramfs-tools, no Debian kernel hook)" "$W/rpm.want" "$W/rpm.have"
	for d in /usr/lib/dracut/modules.d/50earlytune /usr/share/doc/earlytune/examples /usr/share/doc/earlytune/docs; do
		grep -qx "$d" "$W/rpm.all"; ok "the .rpm owns $d" $?
	done
	rpm -qp --scripts "$rpm" 2>/dev/null | grep -q 'preset earlytune.service'
	ok "%post presets earlytune.service" $?
	rpm -qp --scripts "$rpm" 2>/dev/null | grep -q 'preset earlytune.service earlytune-cloud-init.service'
	ok "%post presets earlytune-cloud-init.service" $?
else
	fail "the .rpm is in $build/rpm/RPMS"
fi

# ---- removal: the kernel parameters go with the package ---------------------
# A system made of this machine's /usr, /etc and /var as overlays (their upper
# layers under ROOT/.ovl: what the package and the commands change) and a
# /boot of its own, in a private mount namespace, chrooted into: dpkg, apt,
# rpm, update-grub and grub-mkconfig are the real ones, and grub.cfg is what
# they write from the drop-in `earlytune cmdline apply` put in
# /etc/default/grub.d. Needs root (mounts).
in_root() { # ROOT CMD…
	_r=$1
	shift
	unshare -m sh -c 'r=$1; shift
		for d in usr etc var; do
			mkdir -p "$r/$d" "$r/.ovl/$d" "$r/.ovl/$d.work" &&
				mount -t overlay overlay -o "lowerdir=/$d,upperdir=$r/.ovl/$d,workdir=$r/.ovl/$d.work" "$r/$d" || exit 1
		done
		mkdir -p "$r/dev" "$r/proc" "$r/sys" "$r/run" "$r/tmp"
		for l in bin sbin lib lib64; do [ -L "$r/$l" ] || ln -s "usr/$l" "$r/$l"; done
		mount --rbind /dev "$r/dev" && mount -t proc proc "$r/proc" && mount --rbind /sys "$r/sys" &&
			mount -t tmpfs tmpfs "$r/run" || exit 1
		exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin LC_ALL=C DEBIAN_FRONTEND=noninteractive "$@"' \
		sh "$_r" "$@"
}
K=6.1.0-28-amd64 THP=transparent_hugepage=never
# mk_sys ROOT CFG: a kernel in /boot (its config has THP), GRUB's defaults
# with the administrator's own parameter, earlytune's configuration asking
# THP never (so `cmdline apply` adds $THP); CFG the grub.cfg to generate
# (grub-install's directory made, and Debian's /boot/grub, where its theme
# script writes). man-db's trigger off (its flag file).
mk_sys() {
	mkdir -p "$1/tmp" "$1/boot/grub" "$1/boot/$(dirname "$2")"
	: >"$1/boot/vmlinuz-$K"
	printf 'CONFIG_TRANSPARENT_HUGEPAGE=y\nCONFIG_TRANSPARENT_HUGEPAGE_ALWAYS=y\n' >"$1/boot/config-$K"
	in_root "$1" sh -c 'sed "s/^GRUB_CMDLINE_LINUX=.*/GRUB_CMDLINE_LINUX=\"console=ttyS0\"/" \
		/usr/share/grub/default/grub >/etc/default/grub && printf "[thp]\nenabled = never\n" >/etc/earlytune.conf &&
		rm -f /var/lib/man-db/auto-update'
}
# linux_lines ROOT CFG: the `linux` lines of ROOT/boot/CFG booting $K
linux_lines() { grep "^[[:space:]]*linux[[:space:]].*/boot/vmlinuz-$K " "$1/boot/$2"; }
# applied ROOT CFG MKCONFIG… WHAT: `cmdline apply` in the system, then MKCONFIG:
# grub.cfg boots $K with $THP and the administrator's console=ttyS0.
applied() {
	_r=$1 _c=$2
	shift 2
	in_root "$_r" earlytune cmdline apply --kernel "$K" >"$W/apply.out" 2>&1 && in_root "$_r" "$@" >"$W/mkconfig.out" 2>&1
	ok "$WHAT: cmdline apply, then $1" $? "$(cat "$W/apply.out" "$W/mkconfig.out")"
	n=$(linux_lines "$_r" "$_c" | grep -c "console=ttyS0 .*$THP")
	[ "$n" -gt 0 ]
	ok "$WHAT: /boot/$_c boots $K with $THP ($n linux lines)" $? "$(linux_lines "$_r" "$_c")"
}
# removed ROOT CFG: the package's removal regenerated grub.cfg: no $THP, the
# administrator's parameter kept; no drop-in, no record, no binary.
removed() {
	l=$(linux_lines "$1" "$2")
	echo "$l" | grep -q console=ttyS0 && ! echo "$l" | grep -q "$THP"
	ok "$WHAT: /boot/$2 regenerated without $THP, console=ttyS0 kept" $? "$l"
	left=$(in_root "$1" sh -c 'ls -d /etc/default/grub.d/99-earlytune.cfg /var/lib/earlytune/cmdline.state \
		/usr/sbin/earlytune /usr/libexec/earlytune 2>/dev/null')
	[ -z "$left" ]
	ok "$WHAT: no drop-in, no record of the parameters, no binary left" $? "$left"
}
if [ "$(id -u)" != 0 ]; then
	skip "removal in a chroot: install, cmdline apply, update-grub, remove/purge" "needs root"
else
	R=$W/sys-deb
	mk_sys "$R" grub/grub.cfg
	cp "$deb" "$R/tmp/earlytune.deb"
	inst() { in_root "$R" apt-get install -y --no-install-recommends /tmp/earlytune.deb >"$W/apt.out" 2>&1; }
	inst
	ok "apt-get install ./earlytune.deb in the system" $? "$(tail -5 "$W/apt.out")"
	WHAT="deb, apt-get purge"
	applied "$R" grub/grub.cfg update-grub
	in_root "$R" apt-get purge -y earlytune >"$W/apt.out" 2>&1
	ok "$WHAT: apt-get purge earlytune" $? "$(tail -5 "$W/apt.out")"
	removed "$R" grub/grub.cfg
	tr -d '\r' <"$W/apt.out" | grep -qx "grub: removed $THP" # apt runs dpkg on a pty: CRLF
	ok "$WHAT: the removal said what it took out" $? "$(cat "$W/apt.out")"
	inst
	WHAT="deb, apt-get remove"
	applied "$R" grub/grub.cfg update-grub
	in_root "$R" apt-get remove -y earlytune >"$W/apt.out" 2>&1
	ok "$WHAT: apt-get remove earlytune" $? "$(tail -5 "$W/apt.out")"
	removed "$R" grub/grub.cfg
	in_root "$R" apt-get purge -y earlytune >"$W/apt.out" 2>&1 &&
		in_root "$R" sh -c '! ls -d /var/lib/earlytune /etc/kernel/postinst.d/zz-earlytune 2>/dev/null'
	ok "$WHAT: then purge: no /var/lib/earlytune, no conffile" $? "$(tail -5 "$W/apt.out")"

	# kernel-install: the parameters in /etc/kernel/cmdline, the entry
	# regenerated by the removal (kernel-install add, BLS layout).
	WHAT="deb, kernel-install"
	E=/boot/loader/entries
	in_root "$R" sh -c "mkdir -p /lib/modules/$K $E && echo layout=bls >/etc/kernel/install.conf &&
		echo 'root=UUID=2f4e ro console=ttyS0' >/etc/kernel/cmdline" && inst &&
		in_root "$R" earlytune cmdline apply --kernel "$K" --backend kernel-install >"$W/apply.out" 2>&1 &&
		in_root "$R" kernel-install add "$K" "/boot/vmlinuz-$K" >>"$W/apply.out" 2>&1
	ok "$WHAT: apt-get install, cmdline apply --backend kernel-install, kernel-install add" $? "$(cat "$W/apply.out")"
	grep -q "^options .*console=ttyS0 $THP" "$R$E/"*"-$K.conf"
	ok "$WHAT: the entry boots $K with $THP" $? "$(cat "$R$E/"*"-$K.conf")"
	in_root "$R" apt-get purge -y earlytune >"$W/apt.out" 2>&1
	ok "$WHAT: apt-get purge earlytune" $? "$(tail -5 "$W/apt.out")"
	grep -q "^options .*console=ttyS0" "$R$E/"*"-$K.conf" && ! grep -q "$THP" "$R$E/"*"-$K.conf"
	ok "$WHAT: the entry added again without $THP, console=ttyS0 kept" $? "$(cat "$R$E/"*"-$K.conf")"
	tr -d '\r' <"$W/apt.out" | grep -q '^earlytune: '
	ok "$WHAT: the removal checked nothing for the kernel (95-earlytune.install is quiet)" $((!$?)) \
		"$(tr -d '\r' <"$W/apt.out" | grep '^earlytune: ')"

	# The RPM's scriptlets, by Debian's rpm in the system: a Fedora-like
	# GRUB (grub2-mkconfig, /boot/grub2/grub.cfg, no update-grub).
	if [ -f "${rpm:-}" ]; then
		R=$W/sys-rpm
		mk_sys "$R" grub2/grub.cfg
		cp "$rpm" "$R/tmp/earlytune.rpm"
		in_root "$R" sh -c 'rm /usr/sbin/update-grub && ln -s grub-mkconfig /usr/sbin/grub2-mkconfig &&
			rpm --initdb && rpm -i --nodeps /tmp/earlytune.rpm' >"$W/rpmi.out" 2>&1
		ok "rpm -i earlytune.rpm in the system" $? "$(cat "$W/rpmi.out")"
		WHAT="rpm -e"
		applied "$R" grub2/grub.cfg grub2-mkconfig -o /boot/grub2/grub.cfg
		in_root "$R" rpm -e earlytune >"$W/rpme.out" 2>&1
		ok "$WHAT: rpm -e earlytune (%preun: cmdline remove, grub2-mkconfig)" $? "$(cat "$W/rpme.out")"
		removed "$R" grub2/grub.cfg
	fi
fi

# ---- enablement: the preset, in a root ---------------------------------------
D=$W/root
mk install DESTDIR="$D" PREFIX=/usr >"$W/install.out" 2>&1
ok "make install DESTDIR PREFIX=/usr" $? "$(tail -5 "$W/install.out")"
# The installed README's links to docs/ name installed files.
missing=$(grep -o '](docs/[^)#]*' "$D/usr/share/doc/earlytune/README.md" | cut -c3- | sort -u |
	while read -r f; do [ -e "$D/usr/share/doc/earlytune/$f" ] || echo "$f"; done)
n=$(grep -c '](docs/' "$D/usr/share/doc/earlytune/README.md")
[ -z "$missing" ] && [ "$n" -gt 0 ]
ok "the installed README's $n links to docs/ name installed files" $? "missing: $missing"
[ ! -e "$D/usr/lib/systemd/system/sysinit.target.wants" ]
ok "no static sysinit.target.wants link in the unit directory" $?
grep -qx 'enable earlytune.service' "$D/usr/lib/systemd/system-preset/80-earlytune.preset"
ok "the preset enables earlytune.service" $?
eq_out() { # DESC EXPECTED COMMAND…
	d=$1 e=$2
	shift 2
	o=$("$@" 2>&1)
	[ "$o" = "$e" ]
	ok "$d" $? "got: $o"
}
eq_out "make install enabled it through the preset: is-enabled says enabled" enabled sctl "$D" is-enabled earlytune.service
[ -L "$D/etc/systemd/system/sysinit.target.wants/earlytune.service" ]
ok "the enablement link is in /etc (the admin's), from [Install] WantedBy=sysinit.target" $?
eq_out "the verify timer is enabled through the preset" enabled sctl "$D" is-enabled earlytune-verify.timer
for u in earlytune-verify.timer earlytune-verify.service; do
	eq_out "$u runs only where a textfile directory exists" \
		"|/var/lib/prometheus/node-exporter |/var/lib/node_exporter/textfile_collector |/var/lib/node_exporter" \
		sh -c "sed -n 's/^ConditionPathIsDirectory=//p' '$D/usr/lib/systemd/system/$u' | tr '\n' ' ' | sed 's/ \$//'"
done
eq_out "the preset enabled earlytune-cloud-init.service" enabled sctl "$D" is-enabled earlytune-cloud-init.service
[ -L "$D/etc/systemd/system/cloud-init.target.wants/earlytune-cloud-init.service" ]
ok "its link is in cloud-init.target.wants: it runs only where cloud-init runs" $?
sctl "$D" disable earlytune.service >/dev/null 2>&1
eq_out "systemctl disable: is-enabled says disabled" disabled sctl "$D" is-enabled earlytune.service
[ ! -e "$D/etc/systemd/system/sysinit.target.wants/earlytune.service" ]
ok "systemctl disable removed the link" $?
sctl "$D" mask earlytune.service >/dev/null 2>&1
eq_out "systemctl mask: is-enabled says masked" masked sctl "$D" is-enabled earlytune.service
sctl "$D" unmask earlytune.service >/dev/null 2>&1
sctl "$D" preset earlytune.service >/dev/null 2>&1
eq_out "unmask and preset: enabled again" enabled sctl "$D" is-enabled earlytune.service

# systemd-analyze verify: the man page from the root (MANPATH: systemd-analyze
# runs man(1) on the host), the units' commands in the root; units outside it
# (sysinit.target) not followed.
verify_unit() { # ROOT UNIT [PREFIX]
	(cd "$1" && MANPATH="$1${3:-/usr}/share/man" systemd-analyze verify --recursive-errors=no --root="$1" \
		".${3:-/usr}/lib/systemd/system/$2" 2>&1)
}
for u in earlytune.service earlytune-cloud-init.service earlytune-verify.service earlytune-verify.timer; do
	out=$(verify_unit "$D" "$u")
	ok "systemd-analyze verify $u: clean" $? "$out"
	[ -z "$out" ]
	ok "systemd-analyze verify $u: says nothing" $? "$out"
done
# The check is live: without the binary or the man page it fails.
mv "$D/usr/sbin/earlytune" "$W/et.bin"
out=$(verify_unit "$D" earlytune.service)
ok "systemd-analyze verify fails without the binary (the check can fail)" $((!$?)) "$out"
mv "$W/et.bin" "$D/usr/sbin/earlytune"
mv "$D/usr/share/man/man8/earlytune.8" "$W/et.8"
out=$(verify_unit "$D" earlytune.service)
ok "systemd-analyze verify fails without the man page (the check can fail)" $((!$?)) "$out"
mv "$W/et.8" "$D/usr/share/man/man8/earlytune.8"

mk uninstall DESTDIR="$D" PREFIX=/usr >"$W/uninstall.out" 2>&1
ok "make uninstall" $? "$(tail -5 "$W/uninstall.out")"
left=$(files_of_root "$D")
[ -z "$left" ]
ok "make uninstall leaves no file and no enablement link" $? "$left"

# ---- PREFIX=/usr/local --------------------------------------------------------
L=$W/local
mk install DESTDIR="$L" PREFIX=/usr/local >"$W/local.out" 2>&1
ok "make install PREFIX=/usr/local" $? "$(tail -5 "$W/local.out")"
out=$(grep -rl '/usr/sbin/earlytune' "$L")
[ -z "$out" ]
ok "PREFIX=/usr/local: no installed file names /usr/sbin/earlytune" $? "$out"
for f in lib/udev/rules.d/70-earlytune.rules lib/systemd/system/earlytune.service \
	lib/systemd/system/earlytune-verify.service lib/kernel/install.d/95-earlytune.install libexec/earlytune/uninstall \
	lib/dracut/modules.d/50earlytune/module-setup.sh lib/dracut/modules.d/50earlytune/earlytune-pre-udev.sh \
	share/initramfs-tools/hooks/earlytune share/initramfs-tools/scripts/init-top/earlytune share/man/man8/earlytune.8; do
	grep -q '/usr/local/sbin/earlytune' "$L/usr/local/$f"
	ok "PREFIX=/usr/local: $f names /usr/local/sbin/earlytune" $?
done
grep -q '^plugin=/usr/local/lib/kernel/install.d/95-earlytune.install$' "$L/etc/kernel/postinst.d/zz-earlytune"
ok "PREFIX=/usr/local: /etc/kernel/postinst.d/zz-earlytune runs the kernel-install plugin of /usr/local" $?
for f in lib/dracut/modules.d/50earlytune/module-setup.sh share/initramfs-tools/hooks/earlytune; do
	grep -q '/usr/local/lib/udev/rules.d/70-earlytune.rules' "$L/usr/local/$f"
	ok "PREFIX=/usr/local: $f takes the rule from /usr/local/lib/udev/rules.d" $?
done
grep -q '^copy_exec /usr/local/sbin/earlytune$' "$L/usr/local/share/initramfs-tools/hooks/earlytune"
ok "PREFIX=/usr/local: the initramfs-tools hook copies the binary to the same path in the image" $?
eq_out "PREFIX=/usr/local: the unit is enabled through the preset" enabled sctl "$L" is-enabled earlytune.service
out=$(verify_unit "$L" earlytune.service /usr/local)
ok "PREFIX=/usr/local: systemd-analyze verify earlytune.service clean (ExecStart found)" $? "$out"

# ---- earlytune(8) FILES names every installed file (or its directory) ---------
awk '/^\.SH FILES/,/^\.SH EXAMPLES/' "$top/man/earlytune.8" | sed -n 's/\\-/-/g; s/^\.I //p' >"$W/man.files"
missing=""
for f in $(mk print-installed PREFIX=/usr); do
	hit=0
	while read -r m; do
		case $m in */) case $f in "$m"*) hit=1 ;; esac ;; *) [ "$f" = "$m" ] && hit=1 ;; esac
	done <"$W/man.files"
	[ "$hit" = 1 ] || missing="$missing $f"
done
[ -z "$missing" ]
ok "earlytune(8) FILES names every installed file" $? "missing:$missing"
