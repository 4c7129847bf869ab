#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# dracut module: earlytune's binary, udev rule, configuration and the kernel
# modules its configuration needs, and a pre-udev hook for the global part.

check() {
	require_binaries /usr/sbin/earlytune || return 1
	return 0
}

depends() {
	echo udev-rules
	return 0
}

# The modules the configuration names (tcp_bbr, sch_fq, iosched), even in
# hostonly mode, where instmods would drop any the build host has not loaded.
installkernel() {
	local m mods=""

	for m in $(/usr/sbin/earlytune modules --kernel "$kernel" 2>/dev/null | awk -F'\t' '$2 == "module" { print $1 }'); do
		mods="$mods $m"
	done
	[ -n "$mods" ] && hostonly='' instmods $mods
	return 0
}

install() {
	local d f

	inst_binary /usr/sbin/earlytune
	inst_rules /usr/lib/udev/rules.d/70-earlytune.rules
	[ -f /etc/earlytune.conf ] && inst_simple /etc/earlytune.conf
	for d in /usr/lib/earlytune.d /run/earlytune.d /etc/earlytune.d; do
		for f in "$d"/*.conf; do
			[ -e "$f" ] || [ -L "$f" ] || continue
			# A mask (empty file, link to /dev/null) travels as an empty file.
			if [ -L "$f" ] && [ "$(readlink "$f")" = /dev/null ]; then
				mkdir -p "$initdir$d" && : >"$initdir$f"
			else
				inst_simple "$f"
			fi
		done
	done
	inst_hook pre-udev 50 "$moddir/earlytune-pre-udev.sh"
}
