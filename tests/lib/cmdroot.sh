# SPDX-License-Identifier: LGPL-2.1-or-later
# Bootloader layouts for `earlytune cmdline` tests (sourced after common.sh):
# machines with a kernel and a command line, GRUB, BLS, kernel-install, UKI
# and ostree trees, and stand-ins for the bootloader tools.

# mk_kconfig ROOT RELEASE always|madvise|never|off: /boot/config-RELEASE.
mk_kconfig() {
	mkdir -p "$1/boot"
	{
		printf '#\n# Automatically generated file; DO NOT EDIT.\n# Linux/x86 %s Kernel Configuration\n#\n' "$2"
		if [ "$3" = off ]; then
			echo "# CONFIG_TRANSPARENT_HUGEPAGE is not set"
		else
			echo "CONFIG_TRANSPARENT_HUGEPAGE=y"
			for m in always madvise never; do
				M=$(echo "$m" | tr '[:lower:]' '[:upper:]')
				if [ "$m" = "$3" ]; then
					echo "CONFIG_TRANSPARENT_HUGEPAGE_$M=y"
				else
					echo "# CONFIG_TRANSPARENT_HUGEPAGE_$M is not set"
				fi
			done
		fi
		echo "CONFIG_HAVE_ARCH_TRANSPARENT_HUGEPAGE=y"
	} >"$1/boot/config-$2"
}

# mk_cmdroot ROOT RELEASE VENDOR CMDLINE [nvme]: a machine with a kernel, its
# command line, THP, a DMI vendor and (with "nvme") an NVMe disk.
mk_cmdroot() {
	mk_base "$1" "$2" yes "$3" "$4"
	mk_thp "$1"
	[ "${5:-}" = nvme ] && mk_disk "$1" nvme0n1 nvme "[none] mq-deadline" 128 0
	:
}

# Ubuntu 24.04 cloud image on EC2: the cloud image's drop-in assigns (not
# appends) GRUB_CMDLINE_LINUX_DEFAULT, so a line in /etc/default/grub is lost.
mk_ubuntu() {
	mk_cmdroot "$1" 6.8.0-1015-aws "Amazon EC2" \
		"BOOT_IMAGE=/vmlinuz-6.8.0-1015-aws root=PARTUUID=0d9a1f2e-01 ro console=tty1 console=ttyS0 nvme_core.io_timeout=4294967294 panic=-1" nvme
	mk_kconfig "$1" 6.8.0-1015-aws always
	mkdir -p "$1/etc/default/grub.d"
	cat >"$1/etc/default/grub" <<'EOF'
# If you change this file, run 'update-grub' afterwards to update
# /boot/grub/grub.cfg.
GRUB_DEFAULT=0
GRUB_TIMEOUT_STYLE=hidden
GRUB_TIMEOUT=0
GRUB_DISTRIBUTOR=`( . /etc/os-release; echo ${NAME:-Ubuntu} ) 2>/dev/null || echo Ubuntu`
GRUB_CMDLINE_LINUX_DEFAULT="quiet splash"
GRUB_CMDLINE_LINUX=""
EOF
	cat >"$1/etc/default/grub.d/40-force-partuuid.cfg" <<'EOF'
# Force the kernel to boot from the root partition by PARTUUID.
GRUB_FORCE_PARTUUID=0d9a1f2e-01
EOF
	cat >"$1/etc/default/grub.d/50-cloudimg-settings.cfg" <<'EOF'
# Cloud Image specific Grub settings for Generic Cloud Images
# CLOUD_IMG: This file was created/modified by the Cloud Image build process

# Set the recordfail timeout
GRUB_RECORDFAIL_TIMEOUT=0

# Do not wait on grub prompt
GRUB_TIMEOUT=0

# Set the default commandline
GRUB_CMDLINE_LINUX_DEFAULT="console=tty1 console=ttyS0"

# Set the grub console type
GRUB_TERMINAL=console
EOF
}

# Debian 12 on GCE: /etc/default/grub only, no grub.d directory.
mk_debian() {
	mk_cmdroot "$1" 6.1.0-28-cloud-amd64 Google \
		"BOOT_IMAGE=/boot/vmlinuz-6.1.0-28-cloud-amd64 root=UUID=2f4e ro quiet" nvme
	mk_kconfig "$1" 6.1.0-28-cloud-amd64 always
	mkdir -p "$1/etc/default"
	printf '%s\n' 'GRUB_DEFAULT=0' 'GRUB_TIMEOUT=5' \
		'GRUB_DISTRIBUTOR=`lsb_release -i -s 2> /dev/null || echo Debian`' \
		'GRUB_CMDLINE_LINUX_DEFAULT="quiet"' 'GRUB_CMDLINE_LINUX=""' >"$1/etc/default/grub"
}

# Fedora 41 on EC2: BLS entries (b.conf already has the NVMe timeout), no
# /etc/default/grub.
mk_bls() {
	mk_cmdroot "$1" 6.11.4-301.fc41.x86_64 "Amazon EC2" \
		"BOOT_IMAGE=(hd0,gpt2)/vmlinuz-6.11.4-301.fc41.x86_64 root=UUID=77aa ro rootflags=subvol=root" nvme
	mkdir -p "$1/boot/loader/entries"
	printf '%s\n' "title Fedora Linux (6.11.4-301.fc41.x86_64) 41" "version 6.11.4-301.fc41.x86_64" \
		"linux /vmlinuz-6.11.4-301.fc41.x86_64" "initrd /initramfs-6.11.4-301.fc41.x86_64.img" \
		"options root=UUID=77aa ro rootflags=subvol=root rhgb quiet" "grub_users \$grub_users" \
		>"$1/boot/loader/entries/a.conf"
	printf '%s\n' "title Fedora Linux (6.10.12-200.fc40.x86_64) 40" "version 6.10.12-200.fc40.x86_64" \
		"linux /vmlinuz-6.10.12-200.fc40.x86_64" "initrd /initramfs-6.10.12-200.fc40.x86_64.img" \
		"options root=UUID=77aa ro rootflags=subvol=root rhgb quiet ${NVME:-nvme_core.io_timeout=4294967295}" \
		>"$1/boot/loader/entries/b.conf"
}

# Arch on EC2 with kernel-install (and UKIs built from /etc/kernel/cmdline).
mk_kinstall() { # ROOT [CMDLINE-FILE-CONTENT]
	mk_cmdroot "$1" 6.12.9-arch1-1 "Amazon EC2" "initrd=\\initramfs-linux.img root=UUID=x ro quiet" nvme
	mkdir -p "$1/etc/kernel"
	printf '%s\n' "${2:-root=UUID=x ro quiet}" >"$1/etc/kernel/cmdline"
}

# A UKI-only /boot: the command line is inside the image.
mk_uki() {
	mk_cmdroot "$1" 6.12.9-arch1-1 "Amazon EC2" "root=UUID=x ro" nvme
	mkdir -p "$1/boot/EFI/Linux"
	printf 'MZ\220\0fake PE image' >"$1/boot/EFI/Linux/linux.efi"
}

mk_ostree() { # ROOT [run|repo]
	mk_cmdroot "$1" 6.12.9-200.fc41.x86_64 "Amazon EC2" "root=UUID=x rw ostree=/ostree/boot.1/fedora/1/0" nvme
	if [ "${2:-run}" = run ]; then
		: >"$1/run/ostree-booted"
	else
		mkdir -p "$1/ostree/repo"
	fi
}

# mk_bootloader_stubs: a stub grubby first on PATH (`stubs CMD...`): logs its
# argv (one line per call, '|' between arguments) to $WORK/grubby.log and
# edits the options lines of the BLS entries as grubby does (--args appends
# what is missing, --remove-args drops words); update-grub and rpm-ostree
# stubs only log.
mk_bootloader_stubs() {
	mkdir -p "$WORK/bin"
	# How grubby edits an entry's options line (both stand-ins share it).
	cat >"$WORK/options.awk" <<'AWK'
$1 == "options" {
	n = split(del, d, " "); for (i = 1; i <= n; i++) rm[d[i]] = 1
	out = "options"
	for (i = 2; i <= NF; i++) if (!($i in rm)) { out = out " " $i; have[$i] = 1 }
	n = split(add, a, " "); for (i = 1; i <= n; i++) if (!(a[i] in have)) out = out " " a[i]
	print out; next
}
{ print }
AWK
	cat >"$WORK/bin/grubby" <<'STUB'
#!/bin/sh
(IFS='|'; printf '%s\n' "grubby|$*") >>"${GRUBBY_LOG:?}"
[ "${GRUBBY_FAIL:-0}" = 1 ] && exit 1
dir=/boot/loader/entries add= del=
for a; do
	case $a in
	--args=*) add=${a#--args=} ;;
	--remove-args=*) del=${a#--remove-args=} ;;
	--bls-directory=*) dir=${a#--bls-directory=} ;;
	esac
done
# Where the directory it was given really is (an inherited /proc/self/fd/N).
(cd "$dir" && pwd -P) >>"$GRUBBY_LOG.dir"
for f in "$dir"/*.conf; do
	awk -v add="$add" -v del="$del" -f "${0%/*}/../options.awk" "$f" >"$f.new" && mv "$f.new" "$f"
done
STUB
	cat >"$WORK/bin/update-grub" <<'STUB'
#!/bin/sh
echo called >>"${GRUBBY_LOG:?}.update-grub"
STUB
	cat >"$WORK/bin/rpm-ostree" <<'STUB'
#!/bin/sh
(IFS='|'; printf '%s\n' "rpm-ostree|$*") >>"${GRUBBY_LOG:?}.rpm-ostree"
STUB
	chmod +x "$WORK/bin/grubby" "$WORK/bin/update-grub" "$WORK/bin/rpm-ostree"
}
LOG=$WORK/grubby.log
stubs() { env PATH="$WORK/bin:$PATH" GRUBBY_LOG="$LOG" "$@"; }
