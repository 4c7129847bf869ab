# SPDX-License-Identifier: LGPL-2.1-or-later
# plan --root IMAGE: an unbooted image's first boot, read from its kernel's
# /boot/config-VER, modules.builtin and module tree (THP, BBR, fq, each I/O
# scheduler), and with --machine FILE on a described machine: the shipped
# descriptions (machines/*.conf) give the golden plans
# tests/golden/boot-<machine>.plan (UPDATE_GOLDEN=1 rewrites them).
. "$(dirname "$0")/../lib/common.sh"
. "$TESTS_DIR/lib/cmdroot.sh"
. "$TESTS_DIR/lib/imageroot.sh"

need "depmod and objcopy (the image's module tree)" command -v depmod objcopy || exit 0
MACHINES=$TESTS_DIR/../machines

# mk_ko DIR NAME: a module file depmod reads (a .modinfo section).
mk_ko() {
	mkdir -p "$1"
	[ -e "$WORK/e.o" ] || { echo 'int x;' >"$WORK/e.c" && cc -c -o "$WORK/e.o" "$WORK/e.c"; }
	printf 'license=GPL\0name=%s\0' "$2" >"$WORK/info"
	objcopy --add-section .modinfo="$WORK/info" --set-section-flags .modinfo=alloc "$WORK/e.o" "$1/$2.ko"
}

# mk_bootimg ROOT RELEASE 61|612|nothp: an unbooted image of a Debian cloud
# kernel: its configuration as Debian builds it (6.1: mq-deadline built in;
# 6.12: a module), modules.builtin, and the modules BBR, fq, kyber and bfq
# in a tree depmod indexed.
mk_bootimg() {
	mk_image "$1" "$2"
	_c=$1/boot/config-$2
	[ "$3" = nothp ] && mk_kconfig "$1" "$2" off
	cat >>"$_c" <<EOF
CONFIG_MODULES=y
CONFIG_NET=y
CONFIG_INET=y
CONFIG_MQ_IOSCHED_DEADLINE=$([ "$3" = 612 ] && echo m || echo y)
CONFIG_MQ_IOSCHED_KYBER=m
CONFIG_IOSCHED_BFQ=m
CONFIG_TCP_CONG_CUBIC=y
CONFIG_TCP_CONG_BBR=m
CONFIG_DEFAULT_TCP_CONG="cubic"
CONFIG_NET_SCH_FQ_CODEL=y
CONFIG_NET_SCH_FQ=m
CONFIG_DEFAULT_NET_SCH="fq_codel"
EOF
	_m=$1/lib/modules/$2
	{
		[ "$3" != 612 ] && echo kernel/block/mq-deadline.ko
		echo kernel/net/sched/sch_fq_codel.ko
	} >"$_m/modules.builtin"
	mk_ko "$_m/kernel/net/ipv4" tcp_bbr
	mk_ko "$_m/kernel/net/sched" sch_fq
	mk_ko "$_m/kernel/block" kyber-iosched
	mk_ko "$_m/kernel/block" bfq
	[ "$3" = 612 ] && mk_ko "$_m/kernel/block" mq-deadline
	depmod -b "$1" "$2" 2>/dev/null
}

# ---- the image alone: its kernel answers, no machine ---------------------------

t=$WORK/img
mk_bootimg "$t" "$K1" 61
before=$(snapshot "$t")
check_rc "image: plan exits 0" 0 -- "$ET" plan --root "$t"
contains "image: says it plans the first boot and from what" "first boot of this image: kernel $K1 as /boot/config-$K1 and /lib/modules/$K1/modules.builtin describe it"
OUT=$("$ET" plan --json --root "$t" 2>/dev/null)
json_ok "image: plan --json is one valid JSON object"
eq "image: THP enabled from the configuration (always), changed at boot" \
	"$(jget '[(i["current"], i["action"]) for i in j["items"] if i["setting"] == "enabled"]')" "[('always', 'change')]"
eq "image: defrag starts at the kernel's madvise" \
	"$(jget '[(i["current"], i["action"]) for i in j["items"] if i["setting"] == "defrag"]')" "[('madvise', 'change')]"
eq "image: congestion control starts at CONFIG_DEFAULT_TCP_CONG, bbr set at boot" \
	"$(jget '[(i["current"], i["action"]) for i in j["items"] if i["setting"] == "net.ipv4.tcp_congestion_control"]')" \
	"[('cubic', 'change')]"
eq "image: default qdisc starts at CONFIG_DEFAULT_NET_SCH, fq set at boot" \
	"$(jget '[(i["current"], i["action"]) for i in j["items"] if i["setting"] == "net.core.default_qdisc"]')" \
	"[('fq_codel', 'change')]"
eq "image: BBR and fq are modules of the image's tree, loaded at boot" \
	"$(jget '[(i["target"], i["action"]) for i in j["items"] if i["domain"] == "modules"]')" \
	"[('tcp_bbr', 'change'), ('sch_fq', 'change')]"
eq "image: nothing unknown left in THP, modules, net" \
	"$(jget '[i["target"] for i in j["items"] if i["domain"] in ("thp", "modules", "net") and i["unknown"]]')" "[]"
eq "image: plan writes nothing into the image" "$(snapshot "$t")" "$before"
# In a TMPDIR of its own: the other runs of this suite (the sanitizer
# build's, in parallel) make and remove theirs in /tmp meanwhile.
mkdir -p "$WORK/tmpdir"
TMPDIR=$WORK/tmpdir "$ET" plan --root "$t" >/dev/null 2>&1
eq "image: the first boot's directory is gone afterwards" "$(ls "$WORK/tmpdir" | grep -c '^earlytune-boot\.')" 0

t=$WORK/nothp
mk_bootimg "$t" "$K1" nothp
OUT=$("$ET" plan --root "$t" --only thp 2>&1)
contains "image without THP: said as the kernel's lack" "kernel has no transparent huge pages"
t=$WORK/bare
mk_image "$t" "$K1"
rm "$t/boot/config-$K1"
OUT=$("$ET" plan --wide --root "$t" --only thp 2>&1)
contains "image without a configuration or modules.builtin: unknown, said" "no /boot/config-$K1 nor modules.builtin in this image"
contains "image without a configuration: THP stays unknown" "whether the kernel has transparent huge pages is unknown"

# ---- --machine: the shipped descriptions, golden --------------------------------

t=$WORK/img
for m in kvm-vps aws-nitro gce gce-c3 azure azure-nvme qemu-virt-arm64; do
	OUT=$("$ET" plan --root "$t" --machine "$MACHINES/$m.conf" 2>&1)
	RC=$?
	eq "$m: plan exits 0" "$RC" 0
	got=$(printf '%s\n' "$OUT" | sed -e "s#$t#ROOT#g" -e "s#$MACHINES/#machines/#g")
	golden "$m: plan" "boot-$m.plan" "$got"
	OUT=$("$ET" plan --json --root "$t" --machine "$MACHINES/$m.conf" 2>&1)
	json_ok "$m: plan --json is one valid JSON object"
	eq "$m: every disk has a scheduler item" \
		"$(jget '[i["target"] for i in j["items"] if i["domain"] == "block" and i["setting"] == "queue/scheduler" and i["action"] in ("error",)]')" "[]"
done
eq "--machine: plan writes nothing into the image" "$(snapshot "$t")" "$before"

# What each cloud's devices are taken for, as the first boot will take them.
OUT=$("$ET" plan --wide --root "$t" --machine "$MACHINES/aws-nitro.conf" 2>&1)
contains "aws-nitro: the root volume is EBS, known by its PCI ID" "EC2 EBS volume"
OUT=$("$ET" plan --wide --root "$t" --machine "$MACHINES/gce.conf" 2>&1)
contains "gce: the Persistent Disk on virtio-scsi is a virtual disk" "virtual disk (sd, virtio-scsi"
OUT=$("$ET" plan --wide --verbose --root "$t" --machine "$MACHINES/azure.conf" 2>&1)
contains "azure: storvsc disks are Hyper-V's" "Hyper-V storvsc"
contains "azure: the NIC's qdisc waits for the interface" "an image's first boot: set through netlink when eth0 is up (2 TX queues)"

# A device-tree machine (compatible =): the tree the first boot reads has
# the kernel's /proc/device-tree/compatible, NUL-terminated entries, and a
# disk whose own bus says nothing (an ATA disk on AHCI) is virtual by it.
printf '[machine]\narch = arm64\ncompatible = linux,dummy-virt\nhypervisor = 0\n[disk "sda"]\nbus = scsi\nhost = ahci\nvendor = ATA\nmodel = WDC WD10EZEX\nrotational = 1\n' >"$WORK/dt.conf"
OUT=$("$ET" plan --wide --only block --root "$t" --machine "$WORK/dt.conf" 2>&1)
contains "device tree: an ATA disk of a virt machine is virtual by it" \
	"virtual disk (sd in a VM, device tree /proc/device-tree/compatible 'linux,dummy-virt')"
sed -i 's/^compatible = .*/compatible = raspberrypi,4-model-b brcm,bcm2711/' "$WORK/dt.conf"
OUT=$("$ET" plan --wide --only block --root "$t" --machine "$WORK/dt.conf" 2>&1)
lacks "device tree: a board is no VM: its ATA disk is not virtual" "virtual disk"

# One hardware queue: mq-deadline where the kernel has it built in (6.1),
# none where it is a module (6.12), so the plan's scheduler item differs.
printf '[machine]\ncpus = 1\n[disk "vda"]\nbus = virtio\n' >"$WORK/one.conf"
OUT=$("$ET" plan --json --only block --root "$t" --machine "$WORK/one.conf" 2>/dev/null)
eq "one queue, mq-deadline built in: the queue starts with it" \
	"$(jget '[i["current"] for i in j["items"] if i["setting"] == "queue/scheduler"]')" "['mq-deadline']"
t612=$WORK/img612
mk_bootimg "$t612" 6.12.9+deb13-cloud-amd64 612
OUT=$("$ET" plan --json --only block --root "$t612" --machine "$WORK/one.conf" 2>/dev/null)
eq "one queue, mq-deadline a module: the queue starts with none" \
	"$(jget '[i["current"] for i in j["items"] if i["setting"] == "queue/scheduler"]')" "['none']"

# ---- --machine refused where it has no meaning -------------------------------------

check_rc "--machine with apply: exit 2" 2 -- "$ET" apply --root "$t" --machine "$MACHINES/kvm-vps.conf"
contains "--machine with apply: says it is plan's" "--machine: only with plan"
mk_kvm "$WORK/running"
check_rc "--machine on a tree with a running kernel's /proc: exit 2" 2 -- \
	"$ET" plan --root "$WORK/running" --machine "$MACHINES/kvm-vps.conf"
contains "--machine on a running tree: says why" "is not an unbooted image"
printf '[machine]\ncpus = two\n[disk "vda"]\nbus = ide\n[nic "eth0"]\n' >"$WORK/bad.conf"
check_rc "a bad description: exit 2" 2 -- "$ET" plan --root "$t" --machine "$WORK/bad.conf"
contains "a bad description: the line of the bad number" "bad.conf:2: cpus = 'two': not a number"
contains "a bad description: an unknown bus, at its section" "bad.conf:3: [disk \"vda\"] bus = 'ide': virtio, nvme or scsi"
contains "a bad description: a NIC without its driver" "bad.conf:5: [nic \"eth0\"]: driver = is needed"
check_rc "a description that is not there: exit 2" 2 -- "$ET" plan --root "$t" --machine "$WORK/none.conf"
OUT=$("$ET" plan --root "$t" --machine "$WORK/bad.conf" --json 2>/dev/null)
json_ok "a bad description with --json: an error object"
