# SPDX-License-Identifier: LGPL-2.1-or-later
# Image mode (issue 12): an unbooted image (no proc/, no sys/) names its only
# kernel, several need --kernel; cloud rules follow --platform, [main]
# platform or the root's DMI, and say when they guessed.
. "$(dirname "$0")/../lib/common.sh"
. "$TESTS_DIR/lib/cmdroot.sh"

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
check_rc "image --platform aws: cmdline exits 0" 0 -- "$ET" cmdline --root "$t" --platform aws
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
