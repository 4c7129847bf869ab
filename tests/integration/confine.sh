# SPDX-License-Identifier: LGPL-2.1-or-later
# --root confinement (issue 8, defects 1 and 16): an image whose run, var/lib
# or etc/default/grub.d is an absolute symlink to a host path must not make
# earlytune write on the host — with openat2, with the resolver kernels
# without openat2 get (ENOSYS injected by strace), and with openat2 failing
# EAGAIN on every other call (a rename racing a ".." lookup).
. "$(dirname "$0")/../lib/common.sh"
ET=$ET_BIN # strace counts the calls of the binary itself (no --json here)

command -v strace >/dev/null || { fail "strace is installed (.ci/bootstrap)"; exit 0; }

printf '[cmdline]\nadd = earlytune.confine=1\n' >"$WORK/cmd.conf"

# A kvm image whose state and bootloader directories point at HOST by absolute path.
mk_hostile() { # ROOT HOST
	mk_kvm "$1"
	rm -rf "$1/run"
	mkdir -p "$2" "$1/var" "$1/etc/default" "$1/etc/kernel"
	ln -s "$2" "$1/run"
	ln -s "$2" "$1/var/lib"
	ln -s "$2" "$1/etc/default/grub.d"
	printf 'GRUB_CMDLINE_LINUX_DEFAULT="quiet"\n' >"$1/etc/default/grub"
	# The same path inside the image, so the commands can succeed there.
	mkdir -p "$1$2"
}

empty() { [ -z "$(ls -A "$1")" ]; }

confined() { # LABEL WRAPPER...
	label=$1
	shift
	t=$WORK/$label host=$WORK/host-$label
	mk_hostile "$t" "$host"
	check_rc "$label: apply" 0 -- "$@" "$ET" apply --root "$t"
	check_rc "$label: cmdline apply (grub)" 0 -- "$@" "$ET" cmdline apply --backend grub --root "$t" --config "$WORK/cmd.conf"
	check_rc "$label: revert" 0 -- "$@" "$ET" revert --root "$t"
	check_rc "$label: cmdline remove" 0 -- "$@" "$ET" cmdline remove --root "$t" --config "$WORK/cmd.conf"
	check_rc "$label: cmdline apply (kernel-install)" 0 -- "$@" "$ET" cmdline apply --backend kernel-install --root "$t" --config "$WORK/cmd.conf"
	empty "$host"; eq "$label: nothing was written on the host" $? 0
	[ -s "$t$host/earlytune/originals" ] || [ -e "$t$host/earlytune/lock" ]
	eq "$label: the state went where the link points inside the image" $? 0
	[ -e "$t$host/earlytune/cmdline.state" ]; eq "$label: cmdline state inside the image" $? 0
}

confined openat2 env
confined no-openat2 strace -f -o /dev/null -e inject=openat2:error=ENOSYS

# The resolver without openat2 decides exactly as openat2 does.
a=$WORK/walk-a b=$WORK/walk-b
mk_kvm "$a"
mk_kvm "$b"
"$ET" apply --root "$a" >/dev/null 2>&1
strace -f -o /dev/null -e inject=openat2:error=ENOSYS "$ET" apply --root "$b" >/dev/null 2>&1
eq "without openat2 apply changes the same attributes" "$(snapshot "$b")" "$(snapshot "$a")"
eq "without openat2 the same originals are recorded" "$(records "$b")" "$(records "$a")"

# Defect 16: EAGAIN from openat2 is retried, not an error.
c=$WORK/eagain
mk_kvm "$c"
check_rc "apply with openat2 failing EAGAIN every other call" 0 -- \
	strace -f -o /dev/null -e inject=openat2:error=EAGAIN:when=1+2 "$ET" apply --root "$c"
lacks "no 'Resource temporarily unavailable'" "temporarily unavailable"
eq "EAGAIN: the same attributes as a clean apply" "$(snapshot "$c")" "$(snapshot "$a")"
check_rc "revert with openat2 failing EAGAIN every other call" 0 -- \
	strace -f -o /dev/null -e inject=openat2:error=EAGAIN:when=2+2 "$ET" revert --root "$c"
d=$WORK/fresh
mk_kvm "$d"
eq "EAGAIN: revert restored every original" "$(snapshot "$c")" "$(snapshot "$d")"

# libkmod takes paths: under --root it is handed the image's module and
# modprobe.d directories opened confined, as /proc/self/fd/N. A module tree
# made by depmod inside the image is found through them.
if command -v depmod >/dev/null && command -v objcopy >/dev/null; then
	m=$WORK/mods
	mk_modtree "$m"
	printf '[modules]\nload = tcp_bbr\n' >"$WORK/m.conf"
	check_rc "modules in the image: found through confined directories" 1 -- \
		"$ET" modules --root "$m" --kernel 6.1.0-et --config "$WORK/m.conf" --check
	contains "modules in the image: tcp_bbr is a module of that kernel" "tcp_bbr	module"
	lacks "modules in the image: tcp_bbr not called missing" "no module tcp_bbr"
fi
