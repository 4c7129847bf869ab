# SPDX-License-Identifier: LGPL-2.1-or-later
# An image of another architecture: an arm64 Debian image tree assembled with
# dpkg-deb -x from Debian's arm64 packages (the cloud kernel: its config,
# modules.builtin and aarch64 modules; kmod's aarch64 binary standing in for
# the image's earlytune), worked on by this machine's own binary with every
# command that takes --root. Nothing may depend on the image's architecture.
# The packages are cached in ET_FOREIGN_DEBS (outside the clone); without
# them they are fetched with apt-get from a private configuration for arm64
# (the host's apt state untouched), or the script skips.
. "$(dirname "$0")/../lib/common.sh"
. "$TESTS_DIR/lib/cmdroot.sh"
. "$TESTS_DIR/lib/imageroot.sh"

DEBS=${ET_FOREIGN_DEBS:-/var/cache/earlytune-tests/debs-arm64}

fetch_debs() {
	_a=$WORK/apt
	mkdir -p "$_a/lists/partial" "$_a/cache" "$_a/parts" "$DEBS" || return 1
	printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nArchitectures: arm64\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
		>"$_a/parts/debian.sources"
	set -- -o APT::Architecture=arm64 -o APT::Architectures::=arm64 -o Dir::Etc::SourceList=/dev/null \
		-o Dir::Etc::SourceParts="$_a/parts" -o Dir::State::Lists="$_a/lists" -o Dir::Cache="$_a/cache" \
		-o Dir::State::status=/dev/null -o Debug::NoLocking=1
	timeout 300 apt-get "$@" update >/dev/null 2>&1 || return 1
	# the kernel the metapackage names today (old ABIs leave the archive)
	_k=$(apt-cache "$@" depends linux-image-cloud-arm64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9].*-cloud-arm64\)$/\1/p' | head -1)
	[ -n "$_k" ] && (cd "$DEBS" && timeout 600 apt-get "$@" download "$_k" kmod >/dev/null 2>&1)
}

if ! ls "$DEBS"/linux-image-*-cloud-arm64_*.deb "$DEBS"/kmod_*.deb >/dev/null 2>&1 && ! fetch_debs; then
	skip "arm64 image" "no arm64 cloud kernel and kmod .debs in $DEBS, and apt-get could not fetch them"
	exit 0
fi
need "depmod (the image's module index)" command -v depmod

t=$WORK/arm64
for d in $(ls "$DEBS"/linux-image-*-cloud-arm64_*.deb | tail -1) "$DEBS"/kmod_*.deb; do
	dpkg-deb -x "$d" "$t"
done
V=$(ls "$t/lib/modules")
depmod -b "$t" "$V"
mkdir -p "$t/etc" "$t/var/lib"

# The tree is foreign: the kernel's modules and the image's binaries are
# aarch64 ELF (e_machine 183), this machine's binary is not.
machine_of() { python3 -c 'import struct, sys; print(struct.unpack("<H", open(sys.argv[1], "rb").read(20)[18:20])[0])' "$1"; }
bbr=$(find "$t/lib/modules/$V" -name 'tcp_bbr.ko*' | head -1)
eq "the image's tcp_bbr is an aarch64 module" "$(case $bbr in *.ko) machine_of "$bbr" ;; *) echo 183 ;; esac)" 183
KMOD=$(find "$t/bin" "$t/usr/bin" -name kmod -type f 2>/dev/null | head -1)
eq "the image's kmod is an aarch64 binary" "$(machine_of "$KMOD")" 183
[ "$(machine_of "$ET_BIN")" != 183 ]; eq "this machine's earlytune is not" $? 0

# plan: the first boot, from the arm64 kernel's configuration and module tree.
check_rc "plan exits 0" 0 -- "$ET" plan --root "$t"
contains "plan: its only kernel" "kernel $V: the only one in lib/modules of this image"
contains "plan: the first boot from its configuration" "first boot of this image: kernel $V as /boot/config-$V"
OUT=$("$ET" plan --json --root "$t" 2>/dev/null)
eq "plan: BBR and fq are modules of the arm64 tree, loaded at boot" \
	"$(jget '[(i["target"], i["action"]) for i in j["items"] if i["domain"] == "modules"]')" \
	"[('tcp_bbr', 'change'), ('sch_fq', 'change')]"
eq "plan: THP known from the arm64 configuration" \
	"$(jget '[i["unknown"] for i in j["items"] if i["domain"] == "thp"]')" "[False, False]"

# plan --machine: a Graviton instance (arm64 cpuinfo, EBS on NVMe, ENA).
sed -e 's/^product_name = .*/product_name = c7g.large/' -e '/^cpus/a arch = arm64' \
	"$TESTS_DIR/../machines/aws-nitro.conf" >"$WORK/graviton.conf"
check_rc "plan --machine (Graviton) exits 0" 0 -- "$ET" plan --wide --root "$t" --machine "$WORK/graviton.conf"
contains "plan --machine: the EBS volume known" "EC2 EBS volume"
contains "plan --machine: ENA's queue said" "when ens5 is up (2 TX queues)"

# modules: found in the arm64 module index by libkmod (no ELF read).
printf '[modules]\nload = tcp_bbr\n' >"$WORK/m.conf"
OUT=$("$ET" modules --root "$t" --config "$WORK/m.conf" 2>&1)
contains "modules: tcp_bbr is a module of the arm64 kernel" "tcp_bbr	module"

check_rc "config exits 0" 0 -- "$ET" config --root "$t"
check_rc "sysctl-conf exits 0" 0 -- "$ET" sysctl-conf --root "$t"
check_rc "cmdline (suggestions) exits 0" 0 -- "$ET" cmdline --root "$t" --platform aws
contains "cmdline: reads the arm64 kernel's configuration" "/boot/config-$V"

# The package in the image, its binary an aarch64 stand-in: the command line
# integrated, an initramfs carrying it; verify --image passes.
mk_full "$t" itools
cp "$KMOD" "$t/usr/sbin/earlytune"
mkdir -p "$t/etc/kernel"
echo "root=UUID=x ro quiet" >"$t/etc/kernel/cmdline"
check_rc "cmdline apply exits 0" 0 -- "$ET" cmdline apply --root "$t" --kernel "$V" --platform aws
contains "cmdline apply: kernel-install's command line" "kernel-install"
mk_entry "$t" "$V"
mk_initrd "$t" "$V"
check_rc "verify --image passes" 0 -- "$ET" verify --root "$t" --image --platform aws
lacks "verify --image: no check fails" "FAIL"

# apply, revert, status, forget on the unbooted tree: no kernel of it runs,
# nothing of its architecture is needed, none fails.
check_rc "apply exits 0" 0 -- "$ET" apply --root "$t"
check_rc "status exits 0" 0 -- "$ET" status --root "$t"
check_rc "revert exits 0" 0 -- "$ET" revert --root "$t"
check_rc "forget exits 0" 0 -- "$ET" forget --root "$t" --device vda
check_rc "cmdline remove exits 0" 0 -- "$ET" cmdline remove --root "$t" --kernel "$V"
OUT=$(for c in plan apply verify revert config modules sysctl-conf cmdline status; do "$ET" "$c" --root "$t" 2>&1; done
	"$ET" cmdline verify --root "$t" --kernel "$V" 2>&1)
lacks "no command says anything of an exec format or ELF" "xec format"
