# SPDX-License-Identifier: LGPL-2.1-or-later
# Image mode (issue 12): an unbooted image (no proc/, no sys/) names its only
# kernel, several need --kernel; cloud rules follow --platform, [main]
# platform or the root's DMI, and say when they guessed.
. "$(dirname "$0")/../lib/common.sh"
. "$TESTS_DIR/lib/cmdroot.sh"
. "$TESTS_DIR/lib/imageroot.sh"

# ---- the image's kernel ------------------------------------------------------

t=$WORK/one
mk_image "$t" "$K1"
check_rc "one kernel: plan exits 0" 0 -- "$ET" plan --root "$t"
contains "one kernel: plan says which and why" "kernel $K1: the only one in lib/modules of this image"
check_rc "one kernel: cmdline exits 0" 0 -- "$ET" cmdline --root "$t" --platform generic
contains "one kernel: cmdline says which and why" "kernel $K1: the only one in lib/modules of this image"
# the kernel's /boot/config decides the THP default: read for the picked kernel
contains "one kernel: cmdline reads that kernel's boot/config" "/boot/config-$K1"
OUT=$("$ET" plan --json --root "$t" 2>/dev/null)
eq "one kernel: plan --json names it" "$(jget 'j["kernel"], j["kernel_from"]')" "$K1 image"
OUT=$("$ET" plan --only modules --wide --root "$t" 2>&1)
contains "one kernel: modules are looked for in its module tree" "not found under /lib/modules/$K1"

t=$WORK/vmlinuz
mk_image "$t" "$K1"
rm -r "$t/lib/modules"
check_rc "only boot/vmlinuz-VER: plan exits 0" 0 -- "$ET" plan --root "$t"
contains "only boot/vmlinuz-VER: the kernel is found in boot" "kernel $K1: the only one in boot of this image"

t=$WORK/two
mk_image "$t" "$K1" "$K2"
check_rc "two kernels: plan exits 2" 2 -- "$ET" plan --root "$t"
contains "two kernels: both listed, --kernel asked for" "this image has 2 kernels: $K1, $K2; give --kernel"
check_rc "two kernels: cmdline exits 2" 2 -- "$ET" cmdline --root "$t"
check_rc "two kernels: --kernel picks one" 0 -- "$ET" cmdline --root "$t" --kernel "$K2" --platform generic
contains "two kernels: --kernel's boot/config is read" "/boot/config-$K2"
lacks "two kernels: --kernel: nothing said about picking" "the only one"
OUT=$("$ET" plan --json --root "$t" --kernel "$K2" 2>/dev/null)
eq "two kernels: --kernel: kernel_from option" "$(jget 'j["kernel"], j["kernel_from"]')" "$K2 option"
check_rc "two kernels: --json: an error object, exit 2" 2 -- "$ET" plan --json --root "$t"
contains "two kernels: --json: the error lists them" "this image has 2 kernels"

# a lib/modules directory without a module index is what a removed kernel
# leaves behind (extra modules): not a kernel
t=$WORK/leftover
mk_image "$t" "$K1"
mkdir -p "$t/lib/modules/5.10.0-9-amd64/updates"
check_rc "leftover module directory: not a kernel" 0 -- "$ET" plan --root "$t"
contains "leftover module directory: the indexed one is picked" "kernel $K1: the only one"

t=$WORK/none
mk_image "$t"
check_rc "no kernel: plan exits 0" 0 -- "$ET" plan --root "$t"
lacks "no kernel: nothing picked" "the only one"
OUT=$("$ET" plan --json --root "$t" 2>/dev/null)
eq "no kernel: unknown, said as such" "$(jget 'j["kernel"], j["kernel_from"]')" "unknown None"

# a tree whose proc/ names its kernel is not an unbooted image
t=$WORK/booted
mk_cmdroot "$t" "$K2" QEMU "root=UUID=x"
mk_image "$t" "$K1" "$K2"
check_rc "proc names the kernel: two installed is no error" 0 -- "$ET" plan --root "$t"
lacks "proc names the kernel: nothing picked" "the only one"
OUT=$("$ET" plan --json --root "$t" 2>/dev/null)
eq "proc names the kernel: kernel_from proc" "$(jget 'j["kernel"], j["kernel_from"]')" "$K2 proc"

# ---- the platform -----------------------------------------------------------

t=$WORK/ec2img
mk_image "$t" "$K1"
check_rc "image without --platform: cmdline exits 0" 0 -- "$ET" cmdline --root "$t"
contains "image without --platform: says cloud rules were not applied" \
	"platform unknown (no DMI in this image): cloud rules not applied; give --platform"
lacks "image without --platform: no cloud rule" "$NVME"
check_rc "image --platform aws: cmdline exits 0" 0 -- "$ET" cmdline --wide --root "$t" --platform aws
contains "image --platform aws: the EC2 NVMe rule fires" "$NVME"
# an image has no sys/block: match.disk is assumed, and said (decision, man page)
contains "image --platform aws: says the disks were assumed" "match.disk assumed: this image has no sys/block"
lacks "image --platform aws: no guess said" "guessed"
check_rc "image --platform gce: cmdline exits 0" 0 -- "$ET" cmdline --root "$t" --platform gce
contains "image --platform gce: the GCE NVMe rule fires" "[profile vps]"
contains "image --platform gce: io_timeout suggested" "$NVME"
check_rc "image --platform azure: exit 0" 0 -- "$ET" cmdline --root "$t" --platform azure
lacks "image --platform azure: no NVMe rule" "$NVME"
OUT=$("$ET" cmdline --json --root "$t" --platform aws 2>/dev/null)
eq "image --platform aws: JSON says given by --platform" "$(jget 'j["platform"]["name"], j["platform"]["how"], j["platform"]["from"]')" "aws given --platform"
OUT=$("$ET" cmdline --json --root "$t" 2>/dev/null)
eq "image without --platform: JSON says unknown" "$(jget 'j["platform"]["name"], j["platform"]["how"]')" "None unknown"

printf '[main]\nplatform = aws\n' >"$t/etc/earlytune.conf"
check_rc "[main] platform = aws: cmdline exits 0" 0 -- "$ET" cmdline --root "$t"
contains "[main] platform = aws: the EC2 rule fires" "$NVME"
lacks "[main] platform = aws: nothing guessed" "guessed"
OUT=$("$ET" cmdline --json --root "$t" 2>/dev/null)
eq "[main] platform: JSON names the line" "$(jget 'j["platform"]["how"], j["platform"]["from"]')" "given [main] platform ($t/etc/earlytune.conf:2)"
check_rc "--platform over [main] platform" 0 -- "$ET" cmdline --root "$t" --platform generic
lacks "--platform generic over [main] aws: no EC2 rule" "$NVME"
mkdir -p "$t/etc/kernel"
echo "root=UUID=2f4e ro" >"$t/etc/kernel/cmdline"
check_rc "cmdline apply on the image with [main] platform: exit 0" 0 -- "$ET" cmdline apply --root "$t" --backend kernel-install
eq "cmdline apply: the image's kernel command line has the EC2 parameter" \
	"$(grep -c "$NVME" "$t/etc/kernel/cmdline" 2>&1)" 1

printf '[main]\nplatform = aws1\n' >"$t/etc/earlytune.conf"
check_rc "[main] platform = aws1: exit 2" 2 -- "$ET" cmdline --root "$t"
contains "[main] platform = aws1: did you mean" "unknown platform 'aws1'; did you mean 'aws'?"
contains "[main] platform = aws1: names the file and line" "earlytune.conf:2"
check_rc "[main] platform = aws1: plan refuses too (a bad line)" 2 -- "$ET" plan --root "$t"
printf '[main]\nplatfrom = aws\n' >"$t/etc/earlytune.conf"
check_rc "[main] platfrom: exit 2" 2 -- "$ET" cmdline --root "$t"
contains "[main] platfrom: did you mean platform" "did you mean 'platform'?"
printf '[cmdline "mine"]\nmatch.platform = aws gcp\nadd = quiet\n' >"$t/etc/earlytune.conf"
check_rc "match.platform = gcp: exit 2" 2 -- "$ET" cmdline --root "$t"
contains "match.platform = gcp: did you mean gce" "unknown platform 'gcp'; did you mean 'gce'?"
rm "$t/etc/earlytune.conf"
check_rc "--platform azur: exit 2" 2 -- "$ET" cmdline --root "$t" --platform azur
contains "--platform azur: did you mean azure" "--platform: unknown platform 'azur'; did you mean 'azure'?"
check_rc "--platform azur --json: exit 2" 2 -- "$ET" cmdline --json --root "$t" --platform azur
contains "--platform azur --json: the error object" '"errors"'

# guessed from DMI: said, with the string it came from
t=$WORK/ec2
mk_ubuntu "$t"
check_rc "EC2 DMI: cmdline exits 0" 0 -- "$ET" cmdline --root "$t"
contains "EC2 DMI: the guess is said with its evidence" \
	"platform aws, guessed from sys/class/dmi/id/sys_vendor 'Amazon EC2'; --platform to say"
contains "EC2 DMI: the rule fires" "$NVME"
lacks "EC2 DMI: its disks were looked at, not assumed" "assumed"
check_rc "EC2 DMI, --platform generic: exit 0" 0 -- "$ET" cmdline --root "$t" --platform generic
lacks "EC2 DMI, --platform generic: no EC2 rule" "$NVME"
OUT=$("$ET" cmdline --json --root "$t" 2>/dev/null)
eq "EC2 DMI: JSON says guessed" "$(jget 'j["platform"]["name"], j["platform"]["how"]')" "aws guessed"
# a tree with sys/block and no NVMe disk: match.disk is checked, not assumed
rm "$t/sys/block/nvme0n1"
check_rc "EC2 DMI, no NVMe disk: exit 0" 0 -- "$ET" cmdline --root "$t" --platform aws
lacks "EC2 DMI, no NVMe disk: no rule" "$NVME"
# users' own rules keep match.vendor
mkdir -p "$t/etc"
printf '[cmdline "mine"]\nmatch.vendor = Amazon*\nadd = mine=1\n' >"$t/etc/earlytune.conf"
check_rc "match.vendor rule: exit 0" 0 -- "$ET" cmdline --root "$t"
contains "match.vendor rule: still matches the DMI vendor" "mine=1"

t=$WORK/azure
mk_cmdroot "$t" "$K1" "Microsoft Corporation" "root=UUID=x"
printf 'Virtual Machine\n' >"$t/sys/class/dmi/id/product_name"
OUT=$("$ET" cmdline --json --root "$t" 2>/dev/null)
eq "Hyper-V DMI: azure guessed" "$(jget 'j["platform"]["name"], j["platform"]["how"]')" "azure guessed"
t=$WORK/qemu
mk_cmdroot "$t" "$K1" QEMU "root=UUID=x"
OUT=$("$ET" cmdline --root "$t" 2>&1)
contains "QEMU DMI: generic guessed" "platform generic, guessed from sys/class/dmi/id/sys_vendor 'QEMU'"
t=$WORK/gce
mk_debian "$t"
OUT=$("$ET" cmdline --json --root "$t" 2>/dev/null)
eq "GCE DMI: gce guessed" "$(jget 'j["platform"]["name"], j["platform"]["how"]')" "gce guessed"

# ---- verify --image -----------------------------------------------------------

t=$WORK/full
mk_full "$t" itools "$K1"
check_rc "complete image: verify --image exits 0" 0 -- "$ET" verify --root "$t" --image
contains "complete image: the binary" "pass  files     binary: /usr/sbin/earlytune"
contains "complete image: the initramfs-tools hook" "initramfs-tools hook: /usr/share/initramfs-tools/hooks/earlytune"
contains "complete image: the unit enabled" "pass  unit      earlytune.service: enabled"
contains "complete image: the initramfs" "pass  initramfs $K1: /boot/initrd.img-$K1 carries earlytune"
contains "complete image: the command line" "pass  cmdline   $K1: integrated with kernel-install"
contains "complete image: the sysctl guard" "pass  sysctl    net.core.default_qdisc: fq stays"
contains "complete image: the summary" ", 0 failed"
lacks "complete image: nothing fails" "FAIL"
OUT=$("$ET" verify --json --root "$t" --image 2>/dev/null)
eq "complete image: --json: every check passes" "$(jget 'j["failed"], j["passed"] > 10, all(c["pass"] for c in j["checks"])')" "0 True True"

t=$WORK/fulldracut
mk_full "$t" dracut "$K1" "$K2"
check_rc "dracut image, two kernels: verify --image exits 0" 0 -- "$ET" verify --root "$t" --image
contains "dracut image: the dracut module" "dracut module: /usr/lib/dracut/modules.d/50earlytune/module-setup.sh"
lacks "dracut image: no initramfs-tools files asked for" "initramfs-tools"
contains "two kernels: the first one's initramfs" "pass  initramfs $K1"
contains "two kernels: the second one's initramfs" "pass  initramfs $K2"
check_rc "two kernels, --kernel: only that one" 0 -- "$ET" verify --root "$t" --image --kernel "$K2"
lacks "two kernels, --kernel: the other is not checked" "$K1"
rm "$t/usr/lib/dracut/modules.d/50earlytune/module-setup.sh"
check_failed "dracut image without the module" files "dracut module" \
	"/usr/lib/dracut/modules.d/50earlytune/module-setup.sh missing (the image has dracut)"

# each missing piece: its check fails, with its reason
t=$WORK/nobin
mk_full "$t" itools "$K1"
rm "$t/usr/sbin/earlytune"
check_rc "no binary: verify --image exits 1" 1 -- "$ET" verify --root "$t" --image
contains "no binary: named" "FAIL  files     binary: /usr/sbin/earlytune missing"

# Fedora: dracut through kernel-install, /etc/kernel/postinst.d for dkms
# only; the RPM has no Debian kernel hook
t=$WORK/fedora
mk_full "$t" dracut "$K1"
rm "$t/etc/kernel/postinst.d/zz-earlytune" "$t/etc/kernel/postinst.d/dracut"
install -D -m 0755 /dev/null "$t/etc/kernel/postinst.d/dkms"
check_rc "Fedora-like image without the Debian hook: exit 0" 0 -- "$ET" verify --root "$t" --image
lacks "Fedora-like image: no postinst.d hook asked for" "kernel postinst hook"
contains "Fedora-like image: the kernel-install plugin is" "pass  files     kernel-install plugin"

# PREFIX=/usr/local: systemd and udev read /usr/local/lib too
t=$WORK/local
mk_full "$t" itools "$K1"
for _p in sbin/earlytune lib/udev/rules.d/70-earlytune.rules lib/systemd/system/earlytune.service \
	lib/systemd/system-preset/80-earlytune.preset; do
	mkdir -p "$(dirname "$t/usr/local/$_p")"
	mv "$t/usr/$_p" "$t/usr/local/$_p"
done
ln -sf /usr/local/lib/systemd/system/earlytune.service "$t/etc/systemd/system/sysinit.target.wants/earlytune.service"
# The hooks copy the binary to the same path in the image.
mk_initrd "$t" "$K1"
check_rc "PREFIX=/usr/local: verify --image exits 0" 0 -- "$ET" verify --root "$t" --image
contains "PREFIX=/usr/local: the initramfs carries /usr/local/sbin/earlytune" "pass  initramfs $K1"
contains "PREFIX=/usr/local: the binary" "pass  files     binary: /usr/local/sbin/earlytune"
contains "PREFIX=/usr/local: the unit enabled" "pass  unit      earlytune.service: enabled"
eq "PREFIX=/usr/local: no file check fails" "$(printf '%s\n' "$OUT" | grep -c '^FAIL  files')" 0

t=$WORK/noudev
mk_full "$t" itools "$K1"
rm "$t/usr/lib/udev/rules.d/70-earlytune.rules"
check_failed "no udev rule" files "udev rule" "/usr/lib/udev/rules.d/70-earlytune.rules missing"

t=$WORK/nohook
mk_full "$t" itools "$K1"
rm "$t/usr/share/initramfs-tools/hooks/earlytune"
check_failed "no initramfs-tools hook" files "initramfs-tools hook" \
	"/usr/share/initramfs-tools/hooks/earlytune missing (the image has initramfs-tools)"

t=$WORK/nopostinst
mk_full "$t" itools "$K1"
rm "$t/etc/kernel/postinst.d/zz-earlytune"
check_failed "no kernel postinst hook" files "kernel postinst hook" "/etc/kernel/postinst.d/zz-earlytune missing"

t=$WORK/nopreset
mk_full "$t" itools "$K1"
rm "$t/usr/lib/systemd/system-preset/80-earlytune.preset"
check_failed "no preset" files preset "/usr/lib/systemd/system-preset/80-earlytune.preset missing"

t=$WORK/disabled
mk_full "$t" itools "$K1"
rm "$t/etc/systemd/system/sysinit.target.wants/earlytune.service"
check_failed "unit not enabled" unit earlytune.service "not enabled"

t=$WORK/static
mk_full "$t" itools "$K1"
rm "$t/etc/systemd/system/sysinit.target.wants/earlytune.service"
mkdir -p "$t/usr/lib/systemd/system/sysinit.target.wants"
ln -s ../earlytune.service "$t/usr/lib/systemd/system/sysinit.target.wants/earlytune.service"
check_failed "only the old static link" unit earlytune.service "only a static link in /usr/lib"

t=$WORK/dangling
mk_full "$t" itools "$K1"
ln -sf /usr/lib/systemd/system/gone.service "$t/etc/systemd/system/sysinit.target.wants/earlytune.service"
check_failed "enabled link dangling" unit earlytune.service \
	"/etc/systemd/system/sysinit.target.wants/earlytune.service -> /usr/lib/systemd/system/gone.service: a dangling link"

t=$WORK/masked
mk_full "$t" itools "$K1"
ln -s /dev/null "$t/etc/systemd/system/earlytune.service"
check_failed "unit masked" unit earlytune.service "masked"

# With cloud-init in the image, the unit that applies what user-data writes
# after its init stage must be enabled too; without, it is not looked at.
t=$WORK/cloud
mk_full "$t" itools "$K1"
check_rc "no cloud-init: verify --image exits 0" 0 -- "$ET" verify --root "$t" --image
lacks "no cloud-init: the cloud-init unit is not checked" "earlytune-cloud-init"
mkdir -p "$t/usr/lib/systemd/system"
: >"$t/usr/lib/systemd/system/cloud-init.target"
: >"$t/usr/lib/systemd/system/earlytune-cloud-init.service"
check_failed "cloud-init, its unit not enabled" unit earlytune-cloud-init.service \
	"not enabled (no /etc/systemd/system/cloud-init.target.wants/earlytune-cloud-init.service): systemctl --root IMAGE preset earlytune-cloud-init.service"
mkdir -p "$t/etc/systemd/system/cloud-init.target.wants"
ln -s /usr/lib/systemd/system/earlytune-cloud-init.service "$t/etc/systemd/system/cloud-init.target.wants/"
check_rc "cloud-init, its unit enabled: verify --image exits 0" 0 -- "$ET" verify --root "$t" --image
contains "cloud-init, its unit enabled: said" \
	"pass  unit      earlytune-cloud-init.service: enabled: /etc/systemd/system/cloud-init.target.wants/earlytune-cloud-init.service -> /usr/lib/systemd/system/earlytune-cloud-init.service"
ln -s /dev/null "$t/etc/systemd/system/earlytune-cloud-init.service"
check_failed "cloud-init, its unit masked" unit earlytune-cloud-init.service \
	"masked: /etc/systemd/system/earlytune-cloud-init.service -> /dev/null; systemctl unmask earlytune-cloud-init.service"

t=$WORK/noinitrd
mk_full "$t" itools "$K1"
rm "$t/boot/initrd.img-$K1"
check_rc "no initramfs: verify --image exits 1" 1 -- "$ET" verify --root "$t" --image
contains "no initramfs: its check fails" "FAIL  initramfs $K1:"
contains "no initramfs: says how to build it" "update-initramfs -u -k $K1"

t=$WORK/stale
mk_full "$t" itools "$K1"
printf '[thp]\ndefrag = never\n' >"$t/etc/earlytune.conf"
check_rc "config changed after the initramfs: verify --image exits 1" 1 -- "$ET" verify --root "$t" --image
contains "config changed: the initramfs check fails" "FAIL  initramfs $K1:"
contains "config changed: names the rebuild" "update-initramfs -u -k $K1"
mk_initrd "$t" "$K1"
check_rc "config changed, initramfs rebuilt: verify --image exits 0" 0 -- "$ET" verify --root "$t" --image

t=$WORK/nocmdline
mk_full "$t" itools "$K1"
"$ET_BIN" cmdline remove --root "$t" >/dev/null 2>&1
check_failed "command line not integrated" cmdline "$K1" \
	"not integrated: transparent_hugepage=madvise; earlytune cmdline apply --root $t --kernel $K1"

# the platform: [main] platform = aws wants the EC2 parameter too
t=$WORK/ec2full
mk_full "$t" itools "$K1"
printf '[main]\nplatform = aws\n' >>"$t/etc/earlytune.conf"
mk_initrd "$t" "$K1"
check_failed "[main] platform = aws after cmdline apply" cmdline "$K1" "not integrated: $NVME"
"$ET_BIN" cmdline apply --root "$t" --backend kernel-install >/dev/null 2>&1
check_failed "[main] platform = aws, applied again: kernel-install's entry is older" cmdline "$K1" \
	"/boot/loader/entries/$MID-$K1.conf boots $K1 without $NVME: kernel-install add $K1 /boot/vmlinuz-$K1"
mk_entry "$t" "$K1"
check_rc "[main] platform = aws, applied again: verify --image exits 0" 0 -- "$ET" verify --root "$t" --image
OUT=$("$ET" verify --json --root "$t" --image 2>/dev/null)
eq "verify --image --json carries the platform" "$(jget 'j["platform"]["name"], j["platform"]["how"]')" "aws given"

t=$WORK/gcefull
mk_full "$t" itools "$K1"
check_rc "--platform gce: verify --image exits 1" 1 -- "$ET" verify --root "$t" --image --platform gce
contains "--platform gce: the advice repeats it" "not integrated: $NVME; earlytune cmdline apply --root $t --kernel $K1 --platform gce"

# the sysctl guard: a file sorting after 60-earlytune.conf that resets it
t=$WORK/shadow
mk_full "$t" itools "$K1"
mkdir -p "$t/etc/sysctl.d"
printf 'net.core.default_qdisc = fq_codel\n' >"$t/etc/sysctl.d/99-local.conf"
check_failed "a later sysctl.d file" sysctl net.core.default_qdisc \
	"/etc/sysctl.d/99-local.conf sorts after earlytune's guard (60-earlytune.conf) and sets fq_codel (configured: fq)"
printf 'net.core.default_qdisc = fq\n' >"$t/etc/sysctl.d/99-local.conf"
check_rc "a later file with the same value: exit 0" 0 -- "$ET" verify --root "$t" --image
mv "$t/etc/sysctl.d/99-local.conf" "$t/etc/sysctl.d/10-local.conf"
printf 'net.ipv4.tcp_congestion_control = cubic\n' >"$t/etc/sysctl.d/10-local.conf"
check_rc "an earlier file: the guard wins, exit 0" 0 -- "$ET" verify --root "$t" --image
mkdir -p "$t/lib/sysctl.d"
printf 'net.ipv4.tcp_congestion_control = cubic\n' >"$t/lib/sysctl.d/70-vendor.conf"
check_failed "a later file in /lib/sysctl.d" sysctl net.ipv4.tcp_congestion_control \
	"/lib/sysctl.d/70-vendor.conf sorts after earlytune's guard"
rm "$t/lib/sysctl.d/70-vendor.conf" "$t/etc/sysctl.d/10-local.conf"
ln -s /dev/null "$t/etc/sysctl.d/60-earlytune.conf"
check_failed "the guard masked in /etc" sysctl net.core.default_qdisc \
	"/etc/sysctl.d/60-earlytune.conf replaces earlytune's guard, and /usr/lib/sysctl.d/50-default.conf sets fq_codel"

t=$WORK/nokernel
mk_full "$t" itools
check_rc "no kernel: verify --image exits 1" 1 -- "$ET" verify --root "$t" --image
contains "no kernel: said" "FAIL  kernels   lib/modules: no kernel in this image"

check_rc "--image without verify: exit 2" 2 -- "$ET" plan --root "$t" --image
contains "--image without verify: said" "--image: only with verify"

# an image without initramfs generator boots without one: nothing to carry
t=$WORK/nogen
mk_full "$t" itools "$K1"
rm -r "$t/usr/share/initramfs-tools" "$t/usr/sbin/mkinitramfs" "$t/usr/sbin/update-initramfs" "$t/boot/initrd.img-$K1"
check_rc "no generator, no initramfs: verify --image exits 0" 0 -- "$ET" verify --root "$t" --image
contains "no generator: said" "pass  files     initramfs: no initramfs generator in this image"
contains "no generator: the kernel has no initramfs to check" "pass  initramfs $K1: none, and no generator"

# "/" without /proc mounted: a chroot building an image (a package's
# maintainer script under debootstrap) picks its only kernel too; with
# /proc mounted it never does. The static binary runs alone in the chroot.
if [ -z "${SAN:-}" ] && [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	t=$WORK/chroot
	mk_image "$t" "$K1"
	mkdir -p "$t/proc"
	cp "$ET_BIN" "$t/usr/sbin/earlytune"
	OUT=$(unshare -m chroot "$t" /usr/sbin/earlytune plan --json --only thp 2>/dev/null)
	eq "chroot without /proc: its only kernel" "$(jget 'j["kernel"], j["kernel_from"], j["root"]')" "$K1 image /"
	mk_image "$t" "$K2"
	OUT=$(unshare -m sh -c "mount -t proc proc '$t/proc' && chroot '$t' /usr/sbin/earlytune plan --json --only thp" 2>&1)
	eq "chroot with /proc mounted: the running kernel, two installed no matter" \
		"$(jget 'j["kernel"] == open("/proc/sys/kernel/osrelease").read().strip(), j["kernel_from"]')" "True proc"
elif [ -z "${SAN:-}" ]; then
	skip "chroot checks" "need root"
fi
