# SPDX-License-Identifier: LGPL-2.1-or-later
# The initramfs check (issue 12, "nothing frozen at build time"): real images
# built with cpio -H newc and gzip/xz/zstd, with and without an uncompressed
# early-microcode archive first, in a --root tree. verify passes when the
# image carries the root's earlytune and configuration, and names the file
# and the rebuild command when it does not.
. "$(dirname "$0")/../lib/common.sh"

for tool in cpio gzip xz zstd lz4; do
	command -v $tool >/dev/null || { fail "$tool is installed (.ci/bootstrap)"; exit 0; }
done
KV=6.1.0-28-cloud-amd64
t=$WORK/root
mk_kvm "$t"
mkdir -p "$t/usr/sbin" "$t/etc/earlytune.d" "$t/usr/lib/earlytune.d" "$t/boot"
cp "$ET_BIN" "$t/usr/sbin/earlytune"
printf '[thp]\nenabled = never\n' >"$t/etc/earlytune.d/10-db.conf"
: >"$t/usr/lib/earlytune.d/50-mask.conf"

# build IMAGE COMPRESSOR [early]: what the hooks copy, as the hooks copy it.
build() {
	rm -rf "$WORK/img" "$WORK/early"
	mkdir -p "$WORK/img/usr/sbin" "$WORK/img/etc" "$WORK/img/usr/lib/udev/rules.d"
	[ -e "$t/usr/sbin/earlytune" ] && cp "$t/usr/sbin/earlytune" "$WORK/img/usr/sbin/"
	for d in etc/earlytune.d usr/lib/earlytune.d run/earlytune.d; do
		[ -d "$t/$d" ] && mkdir -p "$WORK/img/$d" && cp -a "$t/$d/." "$WORK/img/$d/"
	done
	[ -f "$t/etc/earlytune.conf" ] && cp "$t/etc/earlytune.conf" "$WORK/img/etc/"
	{
		if [ "${3:-}" = early ]; then
			mkdir -p "$WORK/early/kernel/x86/microcode"
			# larger than the reader's 256 KiB window: the switch to the
			# compressed stream happens after a refill
			head -c 300001 /dev/urandom >"$WORK/early/kernel/x86/microcode/GenuineIntel.bin"
			(cd "$WORK/early" && find . | cpio -o -H newc 2>/dev/null)
		fi
		(cd "$WORK/img" && find . | LC_ALL=C sort | cpio -o -H newc 2>/dev/null | $2)
	} >"$t/$1"
}

for comp in "gzip -9" "xz --check=crc32" "xz --check=crc64" "zstd -q -19" "cat"; do
	for early in "" early; do
		name="${comp}${early:+ with an early-microcode archive first}"
		build "boot/initrd.img-$KV" "$comp" $early
		check_rc "$name: current image: verify --only initramfs exits 0" 0 -- "$ET" verify --only initramfs --root "$t"
		contains "$name: current image holds" "1 hold, 0 drifted"
	done
done

# The configuration changes after the image was built.
build "boot/initrd.img-$KV" "zstd -q" early
printf '[thp]\nenabled = always\n' >"$t/etc/earlytune.d/10-db.conf"
check_rc "changed drop-in: verify exits 1" 1 -- "$ET" verify --only initramfs --root "$t"
contains "changed drop-in: the file is named" "carries another /etc/earlytune.d/10-db.conf than the root's"
contains "changed drop-in: the rebuild command is named (dracut: no update-initramfs in the root)" "dracut -f --kver $KV"
mkdir -p "$t/usr/sbin" && printf '#!/bin/sh\n' >"$t/usr/sbin/update-initramfs"
check_rc "changed drop-in, initramfs-tools: verify exits 1" 1 -- "$ET" verify --only initramfs --root "$t"
contains "initramfs-tools: update-initramfs is the rebuild command" "update-initramfs -u -k $KV"
build "boot/initrd.img-$KV" "gzip"
check_rc "rebuilt: verify exits 0" 0 -- "$ET" verify --only initramfs --root "$t"
printf '[thp]\ndefrag = never\n' >"$t/etc/earlytune.d/20-new.conf"
check_rc "a new drop-in: verify exits 1" 1 -- "$ET" verify --only initramfs --root "$t"
contains "a new drop-in: named as missing from the image" "lacks /etc/earlytune.d/20-new.conf, which the root has"
rm "$t/etc/earlytune.d/10-db.conf" "$t/etc/earlytune.d/20-new.conf"
check_rc "a removed drop-in: verify exits 1" 1 -- "$ET" verify --only initramfs --root "$t"
contains "a removed drop-in: named as extra in the image" "carries /etc/earlytune.d/10-db.conf, which the root does not have"
build "boot/initrd.img-$KV" "xz --check=crc32"
printf '#!/bin/sh\n' >>"$t/usr/sbin/earlytune"
check_rc "another binary: verify exits 1" 1 -- "$ET" verify --only initramfs --root "$t"
contains "another binary: named" "carries another /usr/sbin/earlytune than the root's"
cp "$ET_BIN" "$t/usr/sbin/earlytune"

# An image without earlytune (built before it was installed).
mv "$t/usr/sbin/earlytune" "$WORK/et.keep"
build "boot/initrd.img-$KV" "gzip"
mv "$WORK/et.keep" "$t/usr/sbin/earlytune"
check_rc "no earlytune in the image: verify exits 1" 1 -- "$ET" verify --only initramfs --root "$t"
contains "no earlytune in the image: said" "carries no earlytune"
OUT=$("$ET" plan --wide --root "$t" 2>&1)
contains "plan shows the initramfs item" "initramfs"

# lz4 (initramfs-tools COMPRESS=lz4) is not linked: unreadable, and how to look.
build "boot/initrd.img-$KV" "lz4 -l -q"
check_rc "lz4: verify does not fail on it" 0 -- "$ET" verify --only initramfs --root "$t"
OUT=$("$ET" plan --wide --only initramfs --root "$t" 2>&1)
contains "lz4: unreadable, says which tools look inside" "lz4-compressed, which earlytune does not read: look inside with lsinitramfs (initramfs-tools) or lsinitrd (dracut)"

# Garbage and truncation: unreadable, never a crash.
head -c 5000 /dev/urandom >"$t/boot/initrd.img-$KV"
check_rc "garbage: verify exits 0 (not applicable)" 0 -- "$ET" verify --only initramfs --root "$t"
build "boot/initrd.img-$KV" "gzip"
head -c 20000 "$t/boot/initrd.img-$KV" >"$WORK/trunc" && cp "$WORK/trunc" "$t/boot/initrd.img-$KV"
OUT=$("$ET" plan --wide --only initramfs --root "$t" 2>&1)
contains "truncated gzip: unreadable" "cannot be read as an initramfs"

# dracut's name, and kernel-install's layout.
rm "$t/boot/initrd.img-$KV" "$t/usr/sbin/update-initramfs"
build "boot/initramfs-$KV.img" "zstd -q"
check_rc "dracut's initramfs-VER.img: verify exits 0" 0 -- "$ET" verify --only initramfs --root "$t"
contains "dracut's name: checked" "1 hold"
rm "$t/boot/initramfs-$KV.img"
echo 0123456789abcdef0123456789abcdef >"$t/etc/machine-id"
mkdir -p "$t/efi/0123456789abcdef0123456789abcdef/$KV"
build "efi/0123456789abcdef0123456789abcdef/$KV/initrd" "gzip"
check_rc "kernel-install's MACHINE-ID/VER/initrd: verify exits 0" 0 -- "$ET" verify --only initramfs --root "$t"
contains "kernel-install's layout: checked" "1 hold"
rm -r "$t/efi"

# No image at all (a microVM): nothing to check, not a failure.
check_rc "no initramfs: verify --only initramfs exits 0" 0 -- "$ET" verify --only initramfs --root "$t"
contains "no initramfs: no item" "0 hold, 0 drifted, 0 unmet, 0 not applicable"

# The kernel hooks check the image after it is built: run-parts runs
# postinst.d in name order (initramfs-tools' and dracut's hooks build it),
# kernel-install its plugins in number order (50-dracut builds it,
# 90-loaderentry copies it into place).
H=$TESTS_DIR/../hook
last=$(printf '%s\n' dracut initramfs-tools zz-earlytune | LC_ALL=C sort | tail -1)
eq "postinst.d: earlytune's hook sorts after initramfs-tools and dracut" "$last" zz-earlytune
last=$(printf '%s\n' 50-dracut.install 90-loaderentry.install 95-earlytune.install | LC_ALL=C sort | tail -1)
eq "kernel-install: earlytune's plugin sorts after 50-dracut and 90-loaderentry" "$last" 95-earlytune.install
inst=$(make -s -C "$TESTS_DIR/.." print-installed 2>&1)
printf '%s\n' "$inst" | grep -qx /etc/kernel/postinst.d/zz-earlytune &&
	printf '%s\n' "$inst" | grep -qx /usr/lib/kernel/install.d/95-earlytune.install
eq "make install uses those names" $? 0
grep -q 'earlytune verify --only initramfs --kernel' "$H/95-earlytune.install"
eq "95-earlytune.install checks the initramfs of the kernel" $? 0
# The postinst.d hook runs that plugin (one script for both ways a kernel arrives).
grep -qx 'plugin=/usr/lib/kernel/install.d/95-earlytune.install' "$H/zz-earlytune.postinst" &&
	grep -q '^"$plugin" add "$version"' "$H/zz-earlytune.postinst"
eq "zz-earlytune.postinst runs the kernel-install plugin" $? 0
