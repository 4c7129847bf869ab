# SPDX-License-Identifier: LGPL-2.1-or-later
# Unbooted images for `verify --image` tests (sourced after common.sh and
# cmdroot.sh): kernels, the package installed the way `make install` lays it
# out, an initramfs per kernel and kernel-install's entries.

K1=6.1.0-28-cloud-amd64
K2=6.1.0-29-cloud-amd64
NVME=nvme_core.io_timeout=4294967295

# mk_image ROOT RELEASE...: etc/, usr/, and per release lib/modules/VER with
# a module index, boot/vmlinuz-VER and boot/config-VER (THP always).
mk_image() {
	_i=$1
	shift
	mkdir -p "$_i/etc" "$_i/usr/sbin" "$_i/var/lib" "$_i/boot"
	for _k in "$@"; do
		mkdir -p "$_i/lib/modules/$_k"
		: >"$_i/lib/modules/$_k/modules.dep"
		: >"$_i/boot/vmlinuz-$_k"
		mk_kconfig "$_i" "$_k" always
	done
}

jget() { # PYTHON-EXPRESSION on the JSON object j in $OUT
	printf '%s' "$OUT" | python3 -c "import json, sys; j = json.load(sys.stdin); print($1)" 2>&1
}

# mk_initrd ROOT RELEASE: boot/initrd.img-RELEASE as update-initramfs builds
# it with earlytune's hook: the image's binary and configuration, gzip'ed newc.
mk_initrd() {
	_s=$WORK/.initrd-src
	rm -rf "$_s"
	_b=usr/sbin/earlytune
	[ -e "$1/$_b" ] || _b=usr/local/sbin/earlytune
	mkdir -p "$_s/${_b%/*}" "$_s/etc"
	cp "$1/$_b" "$_s/$_b"
	[ -e "$1/etc/earlytune.conf" ] && cp "$1/etc/earlytune.conf" "$_s/etc/earlytune.conf"
	(cd "$_s" && find . | cpio -o -H newc --quiet | gzip) >"$1/boot/initrd.img-$2"
}

MID=5e3a0c1f9b8d4e2a8f6c7b1d0e9a2c4f

# mk_entry ROOT RELEASE: the BLS entry kernel-install's 90-loaderentry.install
# writes (layout=bls, entry token = machine ID) from /etc/kernel/cmdline; the
# real kernel-install's own is checked against it below.
mk_entry() {
	mkdir -p "$1/boot/loader/entries"
	{
		echo "# Boot Loader Specification type#1 entry"
		echo "# File created by /usr/lib/kernel/install.d/90-loaderentry.install (systemd 252.38-1~deb12u1)"
		echo "title      Debian GNU/Linux 12 (bookworm)"
		echo "version    $2"
		echo "machine-id $MID"
		echo "sort-key   debian"
		echo "options    $(cat "$1/etc/kernel/cmdline") systemd.machine_id=$MID"
		echo "linux      /boot/$MID/$2/linux"
	} >"$1/boot/loader/entries/$MID-$2.conf"
}

# mk_full ROOT itools|dracut RELEASE...: an image with the package installed
# (the files of `make install`), the unit enabled, an initramfs per kernel
# and the command line integrated (kernel-install, and the entry it built).
mk_full() {
	_f=$1 _g=$2
	shift 2
	mk_image "$_f" "$@"
	_src=$TESTS_DIR/..
	install -D -m 0755 "$ET_BIN" "$_f/usr/sbin/earlytune"
	install -D -m 0644 "$_src/udev/70-earlytune.rules" "$_f/usr/lib/udev/rules.d/70-earlytune.rules"
	install -D -m 0644 "$_src/hook/earlytune.service" "$_f/usr/lib/systemd/system/earlytune.service"
	mkdir -p "$_f/usr/lib/systemd/system-preset"
	echo "enable earlytune.service" >"$_f/usr/lib/systemd/system-preset/80-earlytune.preset"
	install -D -m 0755 "$_src/hook/zz-earlytune.postinst" "$_f/etc/kernel/postinst.d/zz-earlytune"
	install -D -m 0755 "$_src/hook/95-earlytune.install" "$_f/usr/lib/kernel/install.d/95-earlytune.install"
	if [ "$_g" = dracut ]; then
		install -D -m 0755 /dev/null "$_f/usr/bin/dracut"
		install -D -m 0755 /dev/null "$_f/etc/kernel/postinst.d/dracut"
		for _m in module-setup.sh earlytune-pre-udev.sh; do
			install -D -m 0755 "$_src/dracut-module/50earlytune/$_m" "$_f/usr/lib/dracut/modules.d/50earlytune/$_m"
		done
	else
		install -D -m 0755 /dev/null "$_f/usr/sbin/mkinitramfs"
		install -D -m 0755 /dev/null "$_f/usr/sbin/update-initramfs"
		install -D -m 0755 /dev/null "$_f/etc/kernel/postinst.d/initramfs-tools"
		install -D -m 0755 "$_src/initramfs-tools/hooks/earlytune" "$_f/usr/share/initramfs-tools/hooks/earlytune"
		install -D -m 0755 "$_src/initramfs-tools/scripts/init-top/earlytune" \
			"$_f/usr/share/initramfs-tools/scripts/init-top/earlytune"
	fi
	mkdir -p "$_f/etc/systemd/system/sysinit.target.wants"
	ln -s /usr/lib/systemd/system/earlytune.service "$_f/etc/systemd/system/sysinit.target.wants/earlytune.service"
	printf '# the image builder'"'"'s own\n[thp]\ndefrag = madvise\n' >"$_f/etc/earlytune.conf"
	mkdir -p "$_f/usr/lib/sysctl.d" "$_f/etc/kernel"
	printf 'net.core.default_qdisc = fq_codel\n' >"$_f/usr/lib/sysctl.d/50-default.conf"
	echo "root=UUID=2f4e ro" >"$_f/etc/kernel/cmdline"
	echo "$MID" >"$_f/etc/machine-id"
	for _k in "$@"; do
		"$ET_BIN" cmdline apply --root "$_f" --kernel "$_k" --backend kernel-install >/dev/null 2>&1
		mk_initrd "$_f" "$_k"
	done
	for _k in "$@"; do
		mk_entry "$_f" "$_k"
	done
}

# check_failed DESC CHECK TARGET REASON: verify --image exits 1, that check
# fails with the reason, and nothing else does.
check_failed() {
	check_rc "$1: verify --image exits 1" 1 -- "$ET" verify --root "$t" --image
	contains "$1: the $2 check fails with its reason" "FAIL  $(printf '%-9s' "$2") $3: $4"
	eq "$1: only that check fails" "$(printf '%s\n' "$OUT" | grep -c '^FAIL')" 1
}

