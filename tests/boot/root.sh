# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=sh
#
# Sourced (sh or bash) by tests/boot/mkroot.sh, tests/boot/run.sh and
# bench/lib.sh: the mounts of the boot tests' Debian root. The root itself is
# built once per set of inputs by mkroot.sh into a cache outside the tree and
# never written afterwards; each user sees it through an overlay of its own
# (the cache the lower layer, a fresh upper layer per run), so whatever a run
# installs, rebuilds or breaks is gone with its upper layer.

# et_umount_under DIR: every mount at or below DIR, deepest first; 1 if one
# is left. A busy one is detached (umount -l): nothing below DIR may still
# reach the host's /dev or /proc when DIR is removed.
et_umount_under() {
	local d m n
	d=$(realpath -m "$1")
	for n in 1 2 3; do
		# mountinfo's 5th field: the mount point (these paths have no spaces)
		m=$(awk -v d="$d" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r)
		[ -n "$m" ] || return 0
		for m in $m; do
			umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
		done
	done
	! awk -v d="$d" '$5 == d || index($5, d "/") == 1 { f = 1 } END { exit !f }' /proc/self/mountinfo
}

# et_rm_tree DIR: DIR removed, once nothing is mounted in it; never across
# into another file system.
et_rm_tree() {
	et_umount_under "$1" || { echo "$1: still mounted, not removed" >&2; return 1; }
	rm -rf --one-file-system "$1"
}

# et_binds on|off DIR: the host's /proc, /sys and /dev in DIR, for chroot
et_binds() {
	local fs
	if [ "$1" = on ]; then
		for fs in proc sys dev; do mount --bind "/$fs" "$2/$fs" || return 1; done
	else
		for fs in dev sys proc; do
			mountpoint -q "$2/$fs" || continue
			umount "$2/$fs" 2>/dev/null || umount -l "$2/$fs"
		done
	fi
}

# et_root_mount LOWER STATE MNT: MNT the root LOWER (read-only to it) under
# an overlay whose upper and work directories, STATE/upper and STATE/work,
# start empty; the host's /proc, /sys and /dev bound in it. What an earlier
# run left mounted at MNT is unmounted first; a plain directory there (the
# root of an older layout) is removed.
et_root_mount() {
	local lower=$1 state=$2 mnt=$3
	et_umount_under "$mnt" || { echo "$mnt: still mounted" >&2; return 1; }
	if [ -d "$mnt" ] && [ -n "$(ls -A "$mnt")" ]; then
		rm -rf --one-file-system "$mnt" "$mnt.log" || return 1
	fi
	rm -rf --one-file-system "$state/upper" "$state/work" || return 1
	mkdir -p "$state/upper" "$state/work" "$mnt" || return 1
	mount -t overlay overlay -o "lowerdir=$lower,upperdir=$state/upper,workdir=$state/work" "$mnt" || return 1
	et_binds on "$mnt" || { et_umount_under "$mnt"; return 1; }
}

# et_root_umount MNT: the binds and the overlay; the upper layer stays for a
# look after the run (the next run wipes it).
et_root_umount() { et_umount_under "$1"; }
