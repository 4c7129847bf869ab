# SPDX-License-Identifier: LGPL-2.1-or-later
# Generates fake roots modelled on real machines. Attribute files are regular
# files holding what the kernel would print; links are what sysfs links are.

_attr() { mkdir -p "$(dirname "$1")" && printf '%s\n' "$2" >"$1"; }

mk_base() { # ROOT RELEASE CPUINFO_HYPERVISOR(yes/no) DMI_VENDOR CMDLINE
	_r=$1
	mkdir -p "$_r/sys/block" "$_r/sys/class/block" "$_r/run" "$_r/etc" "$_r/dev" "$_r/proc/sys/kernel"
	_attr "$_r/proc/sys/kernel/osrelease" "$2"
	_attr "$_r/proc/cmdline" "$5"
	_flags="fpu vme de pse tsc msr pae"
	[ "$3" = yes ] && _flags="$_flags hypervisor"
	printf 'processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: %s lahf_lm\n\n' "$_flags" >"$_r/proc/cpuinfo"
	[ -n "$4" ] && _attr "$_r/sys/class/dmi/id/sys_vendor" "$4"
	: >"$_r/proc/modules"
	# A kernel that loads modules has its depmod'ed tree (none of the
	# modules here: what is not there is known absent).
	mkdir -p "$_r/lib/modules/$2" && : >"$_r/lib/modules/$2/modules.dep"
	_attr "$_r/proc/sys/net/ipv4/tcp_congestion_control" cubic
	_attr "$_r/proc/sys/net/ipv4/tcp_available_congestion_control" "reno cubic"
	_attr "$_r/proc/sys/net/core/default_qdisc" fq_codel
	mk_netdev "$_r" lo 1 772 ""
	mk_netdev "$_r" eth0 2 1 virtio_net
}

mk_netdev() { # ROOT NAME IFINDEX TYPE DRIVER
	_d=$1/sys/devices/virtual/net/$2
	mkdir -p "$_d" "$1/sys/class/net"
	ln -s "../../devices/virtual/net/$2" "$1/sys/class/net/$2"
	_attr "$_d/ifindex" "$3"
	_attr "$_d/type" "$4"
	if [ -n "$5" ]; then
		mkdir -p "$_d/device"
		ln -s "../../../../bus/drivers/$5" "$_d/device/driver"
	fi
}

# mk_disk ROOT NAME DRIVER SCHEDULER READ_AHEAD ROTATIONAL [NR_REQUESTS]
mk_disk() {
	_r=$1 _n=$2 _q=$1/sys/devices/virtual/block/$2/queue
	_d=$_r/sys/devices/virtual/block/$_n
	mkdir -p "$_q"
	ln -s "../devices/virtual/block/$_n" "$_r/sys/block/$_n"
	ln -s "../../devices/virtual/block/$_n" "$_r/sys/class/block/$_n"
	[ -n "$4" ] && _attr "$_q/scheduler" "$4"
	_attr "$_q/read_ahead_kb" "$5"
	_attr "$_q/rotational" "$6"
	_attr "$_q/nr_requests" "${7:-256}"
	_attr "$_q/rq_affinity" 1
	_attr "$_q/add_random" 0
	_attr "$_q/wbt_lat_usec" 2000
	if [ -n "$3" ]; then
		mkdir -p "$_d/device"
		ln -s "../../../../bus/drivers/$3" "$_d/device/driver"
	fi
}

mk_partition() { # ROOT DISK PART
	_p=$1/sys/devices/virtual/block/$2/$3
	mkdir -p "$_p"
	_attr "$_p/partition" 1
	ln -s "../../devices/virtual/block/$2/$3" "$1/sys/class/block/$3"
}

mk_iosched_mqdl() { # ROOT DISK
	_i=$1/sys/devices/virtual/block/$2/queue/iosched
	_attr "$_i/read_expire" 500
	_attr "$_i/write_expire" 5000
	_attr "$_i/fifo_batch" 16
}

mk_thp() { # ROOT [mthp]
	_t=$1/sys/kernel/mm/transparent_hugepage
	_attr "$_t/enabled" "[always] madvise never"
	_attr "$_t/defrag" "always defer defer+madvise [madvise] never"
	_attr "$_t/shmem_enabled" "always within_size advise [never] deny force"
	_attr "$_t/use_zero_page" 1
	_attr "$_t/khugepaged/defrag" 1
	_attr "$_t/khugepaged/pages_to_scan" 4096
	_attr "$_t/khugepaged/max_ptes_none" 511
	if [ "${2:-}" = mthp ]; then
		for _s in 16 32 64 128 256 512 1024; do
			_attr "$_t/hugepages-${_s}kB/enabled" "always inherit madvise [never]"
		done
		_attr "$_t/hugepages-2048kB/enabled" "always [inherit] madvise never"
	fi
}

# A KVM guest on 6.1: virtio disk with a partition, dm-0 without a scheduler
# file, zram0, loop0.
mk_kvm() {
	mk_base "$1" 6.1.0-28-cloud-amd64 yes QEMU "BOOT_IMAGE=/vmlinuz root=/dev/vda1 ro console=ttyS0"
	mk_disk "$1" vda virtio_blk "[mq-deadline] kyber none" 8192 1 256
	mk_iosched_mqdl "$1" vda
	mk_partition "$1" vda vda1
	mk_disk "$1" dm-0 "" "" 128 0 128
	mkdir -p "$1/sys/devices/virtual/block/dm-0/dm"
	rm "$1/sys/devices/virtual/block/dm-0/queue/nr_requests"
	mk_disk "$1" zram0 "" "" 128 0
	rm "$1/sys/devices/virtual/block/zram0/queue/nr_requests"
	mk_disk "$1" loop0 "" "[none] mq-deadline" 128 0 128
	mk_thp "$1"
}

# A KVM guest whose kernel 6.1.0-et has tcp_bbr as a module: an object with
# its .modinfo, depmod'ed (its sources in the directory beside ROOT).
mk_modtree() { # ROOT
	mk_kvm "$1"
	_d=$1/lib/modules/6.1.0-et/kernel/net/ipv4
	mkdir -p "$_d"
	echo 'int x;' >"$1.e.c"
	cc -c -o "$1.e.o" "$1.e.c"
	printf 'license=GPL\0name=tcp_bbr\0' >"$1.info"
	objcopy --add-section .modinfo="$1.info" --set-section-flags .modinfo=alloc "$1.e.o" "$_d/tcp_bbr.ko"
	depmod -b "$1" 6.1.0-et 2>/dev/null
}

# An Azure-like guest: NVMe with 64 MiB read-ahead, an sd temp disk under Hyper-V.
mk_azure() {
	mk_base "$1" 6.5.0-1025-azure yes "Microsoft Corporation" "BOOT_IMAGE=/vmlinuz root=PARTUUID=x ro"
	mk_disk "$1" nvme0n1 "" "[none] mq-deadline" 65536 0 1023
	mkdir -p "$1/sys/devices/virtual/block/nvme0n1/device/device"
	ln -s "../../../../../bus/pci/drivers/nvme" "$1/sys/devices/virtual/block/nvme0n1/device/device/driver"
	mk_disk "$1" sda sd "[mq-deadline] none" 4096 1 64
	_attr "$1/sys/devices/virtual/block/sda/device/vendor" "Msft    "
	_attr "$1/sys/devices/virtual/block/sda/device/model" "Virtual Disk    "
	mk_thp "$1"
}

# Bare metal: SATA SSD and a spinning disk, no hypervisor.
mk_metal() {
	mk_base "$1" 6.1.0-28-amd64 no "Dell Inc." "BOOT_IMAGE=/vmlinuz root=/dev/sda2 ro quiet"
	mk_disk "$1" sda sd "[mq-deadline] kyber bfq none" 128 0 64
	mk_disk "$1" sdb sd "[mq-deadline] kyber bfq none" 128 1 64
	_attr "$1/sys/devices/virtual/block/sdb/device/model" "ST4000NM0035-1V4"
	mk_thp "$1"
}

# 6.12 with multi-size THP and a transparent_hugepage= on the command line.
mk_mthp() {
	mk_base "$1" 6.12.9-cloud-amd64 yes KVM "root=/dev/vda1 transparent_hugepage=never"
	mk_disk "$1" vda virtio_blk "[none] mq-deadline kyber" 128 1 256
	mk_thp "$1" mthp
	# BBR and fq built into this kernel: the sysctls can name them.
	_attr "$1/lib/modules/6.12.9-cloud-amd64/modules.builtin" "kernel/net/ipv4/tcp_bbr.ko
kernel/net/sched/sch_fq.ko"
}

# BBR and fq built into the tree's kernel, as a stock distribution kernel
# has them (as modules): the vps profile's net settings can hold.
mk_net_builtin() { # ROOT
	_attr "$1/lib/modules/$(cat "$1/proc/sys/kernel/osrelease")/modules.builtin" "kernel/net/ipv4/tcp_bbr.ko
kernel/net/sched/sch_fq.ko"
}

# A kernel built without THP: sys/kernel/mm is there (every kernel has it),
# transparent_hugepage is not.
mk_nothp() {
	mk_base "$1" 5.10.0-30-amd64 yes QEMU "root=/dev/vda1"
	mkdir -p "$1/sys/kernel/mm/ksm"
	mk_disk "$1" vda virtio_blk "[mq-deadline] none" 256 1 256
}

# ---- issue 9: platforms without the x86 hypervisor flag ----

_arm64_cpuinfo() { # ROOT
	printf 'processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid\nCPU implementer\t: 0x41\nCPU architecture: 8\n\n' >"$1/proc/cpuinfo"
}

# An arm64 KVM guest (Ampere/Hetzner-like): virtio-scsi sda, DMI QEMU, no x86 flags.
mk_arm64kvm() {
	mk_base "$1" 6.1.0-28-cloud-arm64 no QEMU "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro"
	_arm64_cpuinfo "$1"
	_attr "$1/sys/class/dmi/id/product_name" "KVM Virtual Machine"
	_attr "$1/sys/class/dmi/id/bios_vendor" "EFI Development Kit II / OVMF"
	mk_disk "$1" sda sd "[mq-deadline] kyber bfq none" 4096 1 256
	mk_partition "$1" sda sda1
	# a second disk where sysfs really keeps it: its bus says virtio itself
	mk_scsi "$1" sdb pci0000:00/0000:00:02.0/virtio2 host0 virtio_scsi 0:0:0:1 QEMU "QEMU HARDDISK" "[mq-deadline] kyber bfq none" 4096 1 0
	mk_thp "$1"
}

# An s390x KVM guest: proc/sysinfo names the control program; no DMI.
mk_s390kvm() {
	mk_base "$1" 6.1.0-28-s390x no "" "root=/dev/sda1"
	printf 'vendor_id       : IBM/S390\n# processors    : 2\nfeatures\t: esan3 zarch stfle msa ldisp eimm dfp edat etf3eh highgprs te vx sie\n' >"$1/proc/cpuinfo"
	printf 'Manufacturer:         IBM\nType:                 8561\nLPAR Number:          5\nLPAR Name:            KVMHOST1\nVM00 Name:            guest01\nVM00 Control Program: KVM/Linux\nVM00 Adjustment:      1000\n' >"$1/proc/sysinfo"
	mk_disk "$1" sda sd "[mq-deadline] none" 128 1 256
	mk_thp "$1"
}

# A Graviton-like arm64 EC2 guest: DMI Amazon EC2, an EBS volume on NVMe.
mk_graviton() {
	mk_base "$1" 6.1.0-28-cloud-arm64 no "Amazon EC2" "BOOT_IMAGE=/vmlinuz root=/dev/nvme0n1p1 ro"
	_arm64_cpuinfo "$1"
	_attr "$1/sys/class/dmi/id/product_name" "c7g.large"
	mk_disk "$1" nvme0n1 "" "[none] mq-deadline" 128 0 255
	_attr "$1/sys/devices/virtual/block/nvme0n1/device/model" "Amazon Elastic Block Store              "
	mk_partition "$1" nvme0n1 nvme0n1p1
	mk_thp "$1"
}

# QEMU's arm64 virt machine booted without firmware (-kernel: a device tree,
# no UEFI, no DMI), as captured from Debian's 6.1 arm64 cloud kernel
# (qemu-system-aarch64 -M virt,gic-version=3 -cpu max): compatible and model
# "linux,dummy-virt" (NUL-terminated) under sys/firmware/devicetree/base,
# which /proc/device-tree links to; a virtio-blk disk, a virtio-scsi disk and
# a virtio NIC on the PCIe host bridge.
mk_arm64dt() {
	mk_base "$1" 6.1.0-57-cloud-arm64 no "" "console=ttyAMA0 root=/dev/vda1 ro"
	_p=platform/4010000000.pcie/pci0000:00
	for _c in 0 1; do
		printf 'processor\t: %s\nBogoMIPS\t: 2000.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm jscvt fcma lrcpc dcpop sha3 sm3 sm4 asimddp sha512 sve\nCPU implementer\t: 0x00\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0x051\nCPU revision\t: 0\n\n' "$_c"
	done >"$1/proc/cpuinfo"
	_dt=$1/sys/firmware/devicetree/base
	mkdir -p "$_dt/chosen" "$_dt/cpus" "$_dt/pcie@10000000" "$_dt/virtio_mmio@a000000"
	printf 'linux,dummy-virt\0' >"$_dt/compatible"
	printf 'linux,dummy-virt\0' >"$_dt/model"
	ln -s /sys/firmware/devicetree/base "$1/proc/device-tree"
	_v=$1/sys/devices/$_p/0000:00:01.0/virtio0
	mkdir -p "$_v/block/vda/queue" "$_v/block/vda/mq/0" "$_v/block/vda/mq/1"
	ln -s "../devices/$_p/0000:00:01.0/virtio0/block/vda" "$1/sys/block/vda"
	ln -s "../../devices/$_p/0000:00:01.0/virtio0/block/vda" "$1/sys/class/block/vda"
	ln -s ../../../virtio0 "$_v/block/vda/device"
	mkdir -p "$1/sys/bus/virtio/drivers/virtio_blk"
	ln -s ../../../../../../bus/virtio/drivers/virtio_blk "$_v/driver"
	_attr "$_v/vendor" 0x1af4
	_q=$_v/block/vda/queue
	_attr "$_q/scheduler" "[none] mq-deadline"
	_attr "$_q/read_ahead_kb" 128
	_attr "$_q/rotational" 1
	_attr "$_q/nr_requests" 256
	_attr "$_q/rq_affinity" 1
	_attr "$_q/add_random" 0
	_attr "$_q/wbt_lat_usec" 75000
	mk_scsi "$1" sda "$_p/0000:00:02.0/virtio1" host0 virtio_scsi 0:0:0:0 QEMU "QEMU HARDDISK" "[none] mq-deadline" 128 1 0
	mk_thp "$1"
}

# mk_scsi ROOT NAME DEVPATH HOST PROC_NAME H:C:T:L VENDOR MODEL SCHEDULER READ_AHEAD ROTATIONAL REMOVABLE
# A SCSI disk where sysfs keeps it: under its host and H:C:T:L, the host's
# driver in sys/class/scsi_host/HOST/proc_name.
mk_scsi() {
	_r=$1 _n=$2 _dp=sys/devices/$3/$4/$6
	_d=$_r/$_dp/block/$_n
	mkdir -p "$_d/queue" "$_r/sys/block" "$_r/sys/class/block"
	ln -s "../../$_dp/block/$_n" "$_r/sys/block/$_n"
	ln -s "../../../$_dp/block/$_n" "$_r/sys/class/block/$_n"
	ln -s "../../../$6" "$_d/device"
	ln -s "../../../../../bus/scsi/drivers/sd" "$_r/$_dp/driver"
	_attr "$_r/sys/class/scsi_host/$4/proc_name" "$5"
	_attr "$_r/$_dp/vendor" "$7"
	_attr "$_r/$_dp/model" "$8"
	_attr "$_d/queue/scheduler" "$9"
	_attr "$_d/queue/read_ahead_kb" "${10}"
	_attr "$_d/queue/rotational" "${11}"
	_attr "$_d/queue/nr_requests" 64
	_attr "$_d/removable" "${12}"
}

# A laptop: NVMe system disk, a USB stick (rotational=1, as most report) and
# an SD card in the reader.
mk_laptop() {
	mk_base "$1" 6.8.0-45-generic no LENOVO "BOOT_IMAGE=/vmlinuz root=/dev/nvme0n1p2 ro quiet splash"
	mk_disk "$1" nvme0n1 "" "[none] mq-deadline" 128 0 1023
	_attr "$1/sys/devices/virtual/block/nvme0n1/device/model" "SAMSUNG MZVL21T0HCLR-00BL2"
	mk_scsi "$1" sda pci0000:00/0000:00:14.0/usb3/3-2/3-2:1.0 host0 usb-storage 0:0:0:0 SanDisk "Cruzer Blade" "[mq-deadline] bfq none" 128 1 1
	mk_disk "$1" mmcblk0 "" "[mq-deadline] bfq none" 128 0 128
	mk_thp "$1"
}

# A server with a megaraid_sas RAID-5 volume (channel 2) and a JBOD disk
# passed through (channel 0).
mk_raidsrv() {
	mk_base "$1" 6.1.0-28-amd64 no "Dell Inc." "BOOT_IMAGE=/vmlinuz root=/dev/sda2 ro"
	mk_scsi "$1" sda pci0000:00/0000:00:03.0/0000:03:00.0 host0 megaraid_sas 0:2:0:0 DELL "PERC H730P Mini" "[mq-deadline] kyber bfq none" 128 1 0
	mk_scsi "$1" sdb pci0000:00/0000:00:03.0/0000:03:00.0 host0 megaraid_sas 0:0:4:0 ATA "ST4000NM0035-1V4" "[mq-deadline] kyber bfq none" 128 1 0
	mk_thp "$1"
}

# ---- issue 9: stacked devices -------------------------------------------------

# mk_dm ROOT NAME DM_UUID DM_NAME READ_AHEAD SLAVE_LINK... (links relative
# to slaves/): a live device-mapper map, bio-based (no scheduler file).
mk_dm() {
	_r=$1 _n=$2 _uuid=$3 _dm=$4 _ra=$5
	shift 5
	mk_disk "$_r" "$_n" "" "" "$_ra" 0
	rm "$_r/sys/devices/virtual/block/$_n/queue/nr_requests"
	_d=$_r/sys/devices/virtual/block/$_n
	_attr "$_d/dm/name" "$_dm"
	_attr "$_d/dm/uuid" "$_uuid"
	_attr "$_d/dm/suspended" 0
	_attr "$_d/size" 41943040
	mkdir -p "$_d/slaves"
	for _s; do ln -s "$_s" "$_d/slaves/$(basename "$_s")"; done
}

# mk_md ROOT NAME LEVEL READ_AHEAD SLAVE_LINK...: a running md array.
mk_md() {
	_r=$1 _n=$2 _lvl=$3 _ra=$4
	shift 4
	mk_disk "$_r" "$_n" "" "" "$_ra" 0
	rm "$_r/sys/devices/virtual/block/$_n/queue/nr_requests"
	_d=$_r/sys/devices/virtual/block/$_n
	_attr "$_d/md/level" "$_lvl"
	_attr "$_d/md/raid_disks" $#
	_attr "$_d/md/array_state" clean
	_attr "$_d/size" 41943040
	mkdir -p "$_d/slaves"
	for _s; do ln -s "$_s" "$_d/slaves/$(basename "$_s")"; done
}

# A bare-metal server on a SAN: two FC HBAs (qla2xxx), each LUN seen through
# both. dm-0 (mpatha) is a spinning-disk array's LUN, dm-1 (mpathb) a flash
# array's. Request-based dm-multipath maps have a scheduler file of their own.
mk_mpath() {
	mk_base "$1" 6.1.0-28-amd64 no HPE "BOOT_IMAGE=/vmlinuz root=/dev/mapper/mpatha-part2 ro"
	_fc=pci0000:00/0000:00:02.0/0000:04:00.0 _fc2=pci0000:00/0000:00:02.0/0000:04:00.1
	mk_scsi "$1" sda $_fc host1 qla2xxx 1:0:0:1 HITACHI OPEN-V "[mq-deadline] kyber bfq none" 128 1 0
	mk_scsi "$1" sdb $_fc2 host2 qla2xxx 2:0:0:1 HITACHI OPEN-V "[mq-deadline] kyber bfq none" 128 1 0
	mk_scsi "$1" sdc $_fc host1 qla2xxx 1:0:0:2 PURE FlashArray "[mq-deadline] kyber bfq none" 4096 0 0
	mk_scsi "$1" sdd $_fc2 host2 qla2xxx 2:0:0:2 PURE FlashArray "[mq-deadline] kyber bfq none" 4096 0 0
	mk_dm "$1" dm-0 mpath-360060e8007e2a4000030e2a400001001 mpatha 128 \
		"../../../../$_fc/host1/1:0:0:1/block/sda" "../../../../$_fc2/host2/2:0:0:1/block/sdb"
	mk_dm "$1" dm-1 mpath-3624a93704f1b2c3d4e5f6a7b00011234 mpathb 4096 \
		"../../../../$_fc/host1/1:0:0:2/block/sdc" "../../../../$_fc2/host2/2:0:0:2/block/sdd"
	for _m in dm-0 dm-1; do
		_attr "$1/sys/devices/virtual/block/$_m/queue/scheduler" "[mq-deadline] kyber bfq none"
		_attr "$1/sys/devices/virtual/block/$_m/queue/nr_requests" 256
	done
	mk_thp "$1"
}

# Bare metal with two SATA SSDs mirrored: md0 (raid1) over sda1 and sdb1, an
# LVM volume dm-0 on md0.
mk_mdsrv() {
	mk_base "$1" 6.1.0-28-amd64 no "Supermicro" "BOOT_IMAGE=/vmlinuz root=/dev/mapper/vg0-root ro"
	for _s in sda sdb; do
		mk_disk "$1" $_s sd "[mq-deadline] kyber bfq none" 128 0 64
		mk_partition "$1" $_s ${_s}1
	done
	mk_md "$1" md0 raid1 128 ../../sda/sda1 ../../sdb/sdb1
	mk_dm "$1" dm-0 LVM-k3Xq0aXJ9f0ZbGnR2cLxW6c1dHmWm7uPq8eY0tZ1vS2rN4oB5iA6jD7kE8fG9hI0 vg0-root 8192 ../../md0
	mk_thp "$1"
}

# A KVM guest with its data on md0, a raid0 over two virtio disks (md sized
# the read-ahead to two stripes: 2048 KiB).
mk_mdvps() {
	mk_base "$1" 6.1.0-28-cloud-amd64 yes QEMU "BOOT_IMAGE=/vmlinuz root=/dev/vda1 ro console=ttyS0"
	for _v in vda vdb vdc; do
		mk_disk "$1" $_v virtio_blk "[none] mq-deadline kyber" 128 1 256
	done
	mk_partition "$1" vda vda1
	mk_md "$1" md0 raid0 2048 ../../vdb ../../vdc
	mk_thp "$1"
}

# ---- other writers of the values earlytune sets (issue 13) ----

# TuneD's throughput-performance as installed (flat /usr/lib/tuned layout).
mk_tuned_tp() { # ROOT
	mkdir -p "$1/usr/lib/tuned/throughput-performance"
	cat >"$1/usr/lib/tuned/throughput-performance/tuned.conf" <<'EOT'
#
# tuned configuration
#

[main]
summary=Broadly applicable tuning that provides excellent performance across a variety of common server workloads

[variables]
thunderx_cpuinfo_regex=CPU part\s+:\s+(0x0?516)|(0x0?af)|(0x0?a[0-3])|(0x0?b8)\b

[cpu]
governor=performance
energy_perf_bias=performance
min_perf_pct=100

[vm]
transparent_hugepages=always

[disk]
readahead=>4096

[sysctl]
# ktune sysctl settings for rhel6 servers, maximizing i/o throughput
vm.dirty_ratio = 40
vm.dirty_background_ratio = 10
vm.swappiness=10
EOT
}

tuned_enable() { # ROOT PROFILE...
	_r=$1
	shift
	mkdir -p "$_r/etc/tuned" "$_r/etc/systemd/system/multi-user.target.wants"
	printf '%s\n' "$*" >"$_r/etc/tuned/active_profile"
	ln -sf /usr/lib/systemd/system/tuned.service "$_r/etc/systemd/system/multi-user.target.wants/tuned.service"
}

# A KVM guest running throughput-performance itself.
mk_tuned() {
	mk_kvm "$1"
	mk_tuned_tp "$1"
	tuned_enable "$1" throughput-performance
}

# A custom profile (the newer /etc/tuned/profiles layout) that includes it,
# overrides its read-ahead through a variable, names a default qdisc, and a
# value only TuneD can compute.
mk_tunedcustom() {
	mk_kvm "$1"
	mk_tuned_tp "$1"
	mkdir -p "$1/etc/tuned/profiles/mytp"
	cat >"$1/etc/tuned/profiles/mytp/tuned.conf" <<'EOT'
[main]
summary=throughput-performance, more read-ahead on virtio
include=throughput-performance

[variables]
ra=8192
disks=vd*

[disk]
devices=${disks}
readahead=>${ra}
elevator=mq-deadline

[sysctl]
net.core.default_qdisc=fq_codel

[sysfs]
/sys/kernel/mm/transparent_hugepage/defrag=${f:exec:/usr/libexec/pick-defrag}
EOT
	tuned_enable "$1" mytp
}

# Fedora's systemd-udev rule: bfq for SATA/MMC disks, on add only.
mk_udevsched() {
	mk_base "$1" 6.8.5-301.fc40.x86_64 no "Dell Inc." "BOOT_IMAGE=/vmlinuz root=/dev/sda2 ro"
	mk_disk "$1" sda sd "mq-deadline kyber [bfq] none" 128 1 64
	mk_disk "$1" nvme0n1 "" "[none] mq-deadline" 128 0 1023
	mkdir -p "$1/usr/lib/udev/rules.d" "$1/etc/udev/rules.d"
	cat >"$1/usr/lib/udev/rules.d/60-block-scheduler.rules" <<'EOT'
# do not edit this file, it will be overwritten on update

ACTION=="add", SUBSYSTEM=="block", ENV{DEVTYPE}=="disk", \
  KERNEL=="mmcblk*[0-9]|msblk*[0-9]|mspblk*[0-9]|sd*[!0-9]|sr*", \
  ATTR{queue/scheduler}="bfq"
EOT
	# an admin's rule that sorts after earlytune's and fires on change too
	cat >"$1/etc/udev/rules.d/99-readahead.rules" <<'EOT'
ACTION=="add|change", KERNEL=="nvme*n*", ATTR{queue/rotational}=="0", ATTR{bdi/read_ahead_kb}="4096"
SUBSYSTEM=="block", DRIVERS=="nvme", ATTR{queue/nr_requests}="64"
EOT
	mk_thp "$1"
}

# systemd's 50-default.conf, an admin's file after earlytune's guard.
mk_sysctld() {
	mk_kvm "$1"
	mkdir -p "$1/usr/lib/sysctl.d" "$1/etc/sysctl.d"
	cat >"$1/usr/lib/sysctl.d/50-default.conf" <<'EOT'
# Fair Queue CoDel packet scheduler to fight bufferbloat
-net.core.default_qdisc = fq_codel
EOT
	printf 'net.ipv4.tcp_congestion_control = cubic\n' >"$1/etc/sysctl.d/90-cc.conf"
	printf 'net.ipv4.tcp_congestion_control=reno\n' >"$1/etc/sysctl.d/99-zz-cc.conf"
}

# A tmpfiles.d THP line (and a duplicate systemd-tmpfiles ignores).
mk_tmpfthp() {
	mk_kvm "$1"
	mkdir -p "$1/etc/tmpfiles.d" "$1/usr/lib/tmpfiles.d"
	printf 'w /sys/kernel/mm/transparent_hugepage/enabled - - - - always\n' >"$1/etc/tmpfiles.d/thp.conf"
	printf 'w- /sys/kernel/mm/transparent_hugepage/enabled - - - - never\nw /sys/block/vd*/queue/read_ahead_kb - - - - 256\n' \
		>"$1/usr/lib/tmpfiles.d/zz-tune.conf"
}

# networkd: fq_codel on eth0 as the root qdisc.
mk_networkd() {
	mk_kvm "$1"
	mkdir -p "$1/etc/systemd/network" "$1/usr/lib/systemd/network"
	cat >"$1/etc/systemd/network/10-eth0.network" <<'EOT'
[Match]
Name=eth0 en*

[Network]
DHCP=yes

[FairQueueingControlledDelay]
Parent=root
PacketLimit=10240
EOT
	cat >"$1/usr/lib/systemd/network/99-default.network" <<'EOT'
[Match]
Name=*

[CAKE]
Bandwidth=100M
EOT
}

# sysfsutils: THP and a disk's scheduler.
mk_sysfsconf() {
	mk_kvm "$1"
	mkdir -p "$1/etc/sysfs.d"
	printf '# sysfs.conf\nkernel/mm/transparent_hugepage/enabled = never\nmode block/vda/queue/scheduler = 0644\n' \
		>"$1/etc/sysfs.conf"
	printf 'block/vda/queue/scheduler = mq-deadline\n' >"$1/etc/sysfs.d/disk.conf"
}

# mk_unit ROOT DIR NAME: a service unit file in DIR (etc/systemd/system, …).
mk_unit() {
	mkdir -p "$1/$2" && printf '[Service]\nExecStart=/bin/sleep infinity\n' >"$1/$2/$3"
}

# mk_running ROOT CGROUP PID SOFT HARD [STARTTIME]: a process of the cgroup
# sys/fs/cgroup/CGROUP (system.slice/UNIT) with that nofile limit.
mk_running() {
	mkdir -p "$1/sys/fs/cgroup/$2" "$1/proc/$3"
	echo "$3" >>"$1/sys/fs/cgroup/$2/cgroup.procs"
	echo "$3 (svc) S 1 $3 $3 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 ${6:-500} 100 1 0" >"$1/proc/$3/stat"
	{
		printf 'Limit                     Soft Limit           Hard Limit           Units     \n'
		printf 'Max core file size        0                    unlimited            bytes     \n'
		printf 'Max processes             3000                 3000                 processes \n'
		printf 'Max open files            %-20s %-20s files     \n' "$4" "$5"
		printf 'Max locked memory         8388608              8388608              bytes     \n'
	} >"$1/proc/$3/limits"
}

# The scheduler's knobs of a kernel (issue 13 [sched]): ≤5.12 sysctls,
# 5.13–6.5 CFS in debugfs, 6.6+ EEVDF in debugfs. Values as on 2 CPUs.
mk_schedknobs() { # ROOT RELEASE
	case $2 in
	5.*)
		for _k in latency_ns:12000000 min_granularity_ns:1500000 wakeup_granularity_ns:2000000 \
			migration_cost_ns:500000 nr_migrate:32 child_runs_first:0; do
			_attr "$1/proc/sys/kernel/sched_${_k%%:*}" "${_k#*:}"
		done ;;
	6.[0-5].*)
		_attr "$1/proc/sys/kernel/sched_child_runs_first" 0
		for _k in latency_ns:12000000 min_granularity_ns:1500000 wakeup_granularity_ns:2000000 \
			migration_cost_ns:500000 nr_migrate:32; do
			_attr "$1/sys/kernel/debug/sched/${_k%%:*}" "${_k#*:}"
		done ;;
	*)
		for _k in base_slice_ns:1500000 migration_cost_ns:500000 nr_migrate:32; do
			_attr "$1/sys/kernel/debug/sched/${_k%%:*}" "${_k#*:}"
		done ;;
	esac
}
mk_sched() { # ROOT RELEASE PROFILE: a KVM guest of that kernel, configured with PROFILE
	mk_base "$1" "$2" yes QEMU "root=/dev/vda1"
	mk_schedknobs "$1" "$2"
	printf '[main]\nprofile = %s\n' "$3" >"$1/etc/earlytune.conf"
}
mk_sched510() { mk_sched "$1" 5.10.0-30-cloud-amd64 latency; }
mk_sched61() { mk_sched "$1" 6.1.0-28-cloud-amd64 latency; }
mk_sched612() { mk_sched "$1" 6.12.9-cloud-amd64 latency; }

# ---- issue 26: block devices a storage engineer would judge otherwise ----

# mk_scsi_at ROOT NAME DEVPATH HOST H:C:T:L VENDOR MODEL SCHEDULER ROTATIONAL:
# a SCSI disk as sysfs lays it out, its host's driver left to the caller
# (no sys/class/scsi_host entry: a tree that lacks the class link).
mk_scsi_at() {
	_r=$1 _n=$2 _dp=sys/devices/$3/$4/target${5%:*}/$5
	_dp=sys/devices/$3/$4/target$(echo "$5" | cut -d: -f1-3)/$5
	_d=$_r/$_dp/block/$_n
	mkdir -p "$_d/queue" "$_d/mq/0" "$_r/sys/block" "$_r/sys/class/block"
	ln -s "../../$_dp/block/$_n" "$_r/sys/block/$_n"
	ln -s "../../../$_dp/block/$_n" "$_r/sys/class/block/$_n"
	ln -s "../../../$5" "$_d/device"
	mkdir -p "$_r/sys/bus/scsi/drivers/sd"
	ln -s "../../../../../../../bus/scsi/drivers/sd" "$_r/$_dp/driver"
	_attr "$_r/$_dp/vendor" "$6"
	_attr "$_r/$_dp/model" "$7"
	_attr "$_d/queue/scheduler" "$8"
	_attr "$_d/queue/read_ahead_kb" 128
	_attr "$_d/queue/rotational" "$9"
	_attr "$_d/queue/nr_requests" 64
	_attr "$_d/removable" 0
	_attr "$_d/size" 3904897024
}

# The host's proc_name where the kernel keeps it, under the host's own
# device (…/hostN/scsi_host/hostN/proc_name), reached from the disk's path.
mk_host_proc_name() { # ROOT DEVPATH HOST PROC_NAME
	_attr "$1/sys/devices/$2/$3/scsi_host/$3/proc_name" "$4"
}

# The HBA's PCI function and the driver bound to it.
mk_pci_driver() { # ROOT DEVPATH DRIVER VENDOR DEVICE
	mkdir -p "$1/sys/bus/pci/drivers/$3"
	_attr "$1/sys/devices/$2/vendor" "$4"
	_attr "$1/sys/devices/$2/device" "$5"
	ln -s "../../../$(echo "$2" | sed 's#[^/]*#..#g')/bus/pci/drivers/$3" "$1/sys/devices/$2/driver"
}

# A Dell server whose tree has no sys/class/scsi_host: each RAID volume is
# known only from another source. sda: PERC volume (megaraid_sas on channel
# 2), proc_name under its own device path; sdb: a second megaraid_sas HBA
# whose driver is known only from its PCI function; sdc: an HPE Smart
# Array volume, model "LOGICAL VOLUME", no driver anywhere; sdd: a volume
# named by its model alone ("PERC H330 Adp"); sde: a disk passed through
# by the first PERC (channel 0): hdd, as it is.
mk_raidhba() {
	mk_base "$1" 6.1.0-28-amd64 no "Dell Inc." "BOOT_IMAGE=/vmlinuz root=/dev/sda2 ro"
	_p1=pci0000:00/0000:00:03.0/0000:03:00.0 _p2=pci0000:00/0000:00:02.0/0000:02:00.0
	_p3=pci0000:00/0000:00:01.0/0000:01:00.0 _p4=pci0000:00/0000:00:1c.0/0000:05:00.0
	_s="[mq-deadline] kyber bfq none"
	mk_scsi_at "$1" sda $_p1 host0 0:2:0:0 DELL "PERC H730P Mini" "$_s" 1
	mk_host_proc_name "$1" $_p1 host0 megaraid_sas
	mk_scsi_at "$1" sde $_p1 host0 0:0:4:0 ATA "ST4000NM0035-1V4" "$_s" 1
	mk_scsi_at "$1" sdb $_p2 host1 1:2:1:0 AVAGO "MR9361-8i" "$_s" 1
	mk_pci_driver "$1" $_p2 megaraid_sas 0x1000 0x005d
	mk_scsi_at "$1" sdc $_p3 host2 2:1:0:0 HP "LOGICAL VOLUME" "$_s" 1
	mk_scsi_at "$1" sdd $_p4 host3 3:0:0:0 DELL "PERC H330 Adp" "$_s" 1
	mk_thp "$1"
}

# mk_nvme ROOT NAME PCIDEV VENDOR DEVICE MODEL QUEUES SCHEDULER: an NVMe
# namespace under its controller nvmeN under its PCI function; MODEL ""
# leaves the controller without a model file.
mk_nvme() {
	_r=$1 _n=$2 _c=${2%n*} _pd=sys/devices/pci0000:00/$3
	_d=$_r/$_pd/nvme/$_c/$_n
	mkdir -p "$_d/queue" "$_r/sys/block" "$_r/sys/class/block" "$_r/sys/class/nvme" "$_r/sys/bus/pci/drivers/nvme"
	ln -s "../../$_pd/nvme/$_c/$_n" "$_r/sys/block/$_n"
	ln -s "../../../$_pd/nvme/$_c/$_n" "$_r/sys/class/block/$_n"
	ln -s "../../../$_pd/nvme/$_c" "$_r/sys/class/nvme/$_c"
	ln -s "../../$_c" "$_d/device"
	ln -s "../../../$3" "$_r/$_pd/nvme/$_c/device"
	ln -s "../../../bus/pci/drivers/nvme" "$_r/$_pd/driver"
	_attr "$_r/$_pd/vendor" "$4"
	_attr "$_r/$_pd/device" "$5"
	[ -n "$6" ] && _attr "$_r/$_pd/nvme/$_c/model" "$6"
	_attr "$_r/$_pd/nvme/$_c/transport" pcie
	_attr "$_r/$_pd/nvme/$_c/queue_count" $(($7 + 1))
	_q=0
	while [ $_q -lt "$7" ]; do mkdir -p "$_d/mq/$_q"; _q=$((_q + 1)); done
	_attr "$_d/queue/scheduler" "$8"
	_attr "$_d/queue/read_ahead_kb" 128
	_attr "$_d/queue/rotational" 0
	_attr "$_d/queue/nr_requests" 1023
	_attr "$_d/hidden" 0
	_attr "$_d/size" 209715200
}

# An EC2 instance's image with no DMI: EBS (1d0f:8061) and instance storage
# (1d0f:cd01) known by their controllers' PCI IDs alone, no model files.
mk_ec2nodmi() {
	mk_base "$1" 6.1.0-28-cloud-amd64 yes "" "BOOT_IMAGE=/vmlinuz root=/dev/nvme0n1p1 ro"
	mk_nvme "$1" nvme0n1 0000:00:04.0 0x1d0f 0x8061 "" 2 "[none] mq-deadline"
	mk_nvme "$1" nvme1n1 0000:00:1f.0 0x1d0f 0xcd01 "" 2 "[none] mq-deadline"
	mk_thp "$1"
}

# A KVM host's guest with emulated NVMe: QEMU's controller (1b36:0010) by
# its model and by PCI IDs alone, a one-queue controller among them; a
# Google (1ae0:001f) and a Microsoft (1414:b111) controller without models.
mk_vnvme() {
	mk_base "$1" 6.12.9-cloud-amd64 yes QEMU "BOOT_IMAGE=/vmlinuz root=/dev/nvme0n1p1 ro"
	mk_nvme "$1" nvme0n1 0000:00:04.0 0x1b36 0x0010 "QEMU NVMe Ctrl" 2 "[none] mq-deadline"
	mk_nvme "$1" nvme1n1 0000:00:05.0 0x1b36 0x0010 "" 1 "[mq-deadline] none"
	mk_nvme "$1" nvme2n1 0000:00:06.0 0x1ae0 0x001f "" 4 "[none] mq-deadline"
	mk_nvme "$1" nvme3n1 0000:00:07.0 0x1414 0xb111 "" 4 "[none] mq-deadline"
	mk_thp "$1"
}

# Bare metal with a one-queue NVMe (as Apple's controllers have) beside an
# ordinary one with 8 queues.
mk_nvmesq() {
	mk_base "$1" 6.8.0-45-generic no LENOVO "BOOT_IMAGE=/vmlinuz root=/dev/nvme0n1p2 ro"
	mk_nvme "$1" nvme0n1 0000:00:1d.0/0000:3d:00.0 0x144d 0xa80a "SAMSUNG MZVL21T0HCLR-00BL2" 8 "[none] mq-deadline"
	mk_nvme "$1" nvme1n1 0000:00:1c.0/0000:3c:00.0 0x106b 0x2005 "APPLE SSD AP0512Q" 1 "[mq-deadline] none kyber bfq"
	mk_thp "$1"
}

# The kernel's test drivers on a KVM guest: a scsi_debug disk (adapters
# under the pseudo_0 root device, host proc_name scsi_debug), a null_blk
# device, an NVMe namespace over the nvmet loop transport, a tcm_loop disk.
mk_testdevs() {
	mk_base "$1" 6.1.0-28-cloud-amd64 yes QEMU "BOOT_IMAGE=/vmlinuz root=/dev/vda1 ro"
	mk_disk "$1" vda virtio_blk "[none] mq-deadline" 128 1 256
	_s="[mq-deadline] kyber bfq none"
	mk_scsi_at "$1" sda pseudo_0/adapter0 host2 2:0:0:0 Linux scsi_debug "$_s" 0
	mk_host_proc_name "$1" pseudo_0/adapter0 host2 scsi_debug
	mk_scsi_at "$1" sdb tcm_loop_0/tcm_loop_adapter_0 host3 3:0:1:0 LIO-ORG "FILEIO" "$_s" 0
	mk_host_proc_name "$1" tcm_loop_0/tcm_loop_adapter_0 host3 tcm_loopback
	mk_disk "$1" nullb0 "" "[none] mq-deadline kyber bfq" 128 0 64
	mkdir -p "$1/sys/devices/virtual/block/nullb0/mq/0"
	_c=$1/sys/devices/virtual/nvme-fabrics/ctl/nvme1
	mkdir -p "$_c/nvme1n1/queue" "$_c/nvme1n1/mq/0" "$_c/nvme1n1/mq/1"
	ln -s ../devices/virtual/nvme-fabrics/ctl/nvme1/nvme1n1 "$1/sys/block/nvme1n1"
	ln -s ../../nvme1 "$_c/nvme1n1/device"
	_attr "$_c/transport" loop
	_attr "$_c/model" Linux
	_attr "$_c/nvme1n1/queue/scheduler" "[none] mq-deadline"
	_attr "$_c/nvme1n1/queue/read_ahead_kb" 128
	_attr "$_c/nvme1n1/queue/rotational" 0
	mk_thp "$1"
}

# Device-mapper maps as a capture can hold them: dm-0 a live 15 GiB LV whose
# tree lacks dm/ (stacked and capped like any LV), dm-1 without dm/ and of
# size 0 (not ready), dm-2 suspended; md0 lacks queue/read_ahead_kb.
mk_dmlive() {
	mk_base "$1" 6.1.0-28-cloud-amd64 yes QEMU "BOOT_IMAGE=/vmlinuz root=/dev/dm-0 ro"
	mk_disk "$1" vda virtio_blk "[none] mq-deadline" 128 1 256
	mk_partition "$1" vda vda2
	mk_disk "$1" vdb virtio_blk "[none] mq-deadline" 128 1 256
	mk_dm "$1" dm-0 LVM-x vg0-root 8192 ../../vda/vda2
	rm -r "$1/sys/devices/virtual/block/dm-0/dm"
	_attr "$1/sys/devices/virtual/block/dm-0/size" 31457280
	mk_dm "$1" dm-1 LVM-y vg0-new 128 ../../vdb
	rm -r "$1/sys/devices/virtual/block/dm-1/dm"
	_attr "$1/sys/devices/virtual/block/dm-1/size" 0
	mk_dm "$1" dm-2 LVM-z vg0-snap 8192 ../../vdb
	_attr "$1/sys/devices/virtual/block/dm-2/dm/suspended" 1
	mk_md "$1" md0 raid1 2048 ../../vdb
	rm "$1/sys/devices/virtual/block/md0/queue/read_ahead_kb"
	mk_thp "$1"
}

# ---- kernels before 5.0: the legacy single-queue block layer ----

# mk_legacy_sd ROOT NAME DEVPATH HOST H:C:T:L VENDOR MODEL SCHEDULER ROTATIONAL:
# a SCSI disk on the legacy block layer, as 4.x lays it out (the simple-nvme
# capture of util-linux): no mq/ directory, 128 requests, the active
# scheduler's tunables under queue/iosched.
mk_legacy_sd() {
	mk_scsi_at "$@"
	_d=$1/$_dp/block/$2
	rmdir "$_d/mq/0" "$_d/mq"
	_attr "$_d/queue/nr_requests" 128
	case $8 in
	*"[cfq]"*) _attr "$_d/queue/iosched/quantum" 8; _attr "$_d/queue/iosched/slice_idle" 8
		_attr "$_d/queue/iosched/low_latency" 1 ;;
	*"[deadline]"*) _attr "$_d/queue/iosched/read_expire" 500; _attr "$_d/queue/iosched/write_expire" 5000
		_attr "$_d/queue/iosched/fifo_batch" 16 ;;
	esac
}

# Fedora 27's 4.16 on bare metal, modelled on util-linux's simple-nvme
# capture: a SATA SSD and a SATA HDD on the legacy block layer (noop
# deadline [cfq]), an NVMe disk with 7 queues on blk-mq; no DMI.
mk_legacy416() {
	mk_base "$1" 4.16.15-200.fc27.x86_64 no "" "BOOT_IMAGE=/vmlinuz-4.16.15-200.fc27.x86_64 root=/dev/sda2 ro rhgb quiet"
	_a=pci0000:00/0000:00:1f.2
	mk_legacy_sd "$1" sda $_a/ata1 host0 0:0:0:0 "ATA     " "KINGSTON SH103S3" "noop deadline [cfq]" 0
	mk_legacy_sd "$1" sdb $_a/ata2 host1 1:0:0:0 "ATA     " "WDC WD800JD-00MS" "noop deadline [cfq]" 1
	mk_host_proc_name "$1" $_a/ata1 host0 ahci
	mk_host_proc_name "$1" $_a/ata2 host1 ahci
	mk_nvme "$1" nvme0n1 0000:00:01.0/0000:01:00.0 0x2646 0x2263 "KINGSTON SKC1000240G" 7 "[none] mq-deadline"
	mk_thp "$1"
}

# A CentOS 7 KVM guest (3.10.0-1160.el7): vda on virtio_blk (blk-mq), sda
# a QEMU disk on virtio_scsi on the legacy block layer (RHEL's default
# deadline); THP without defer+madvise (added in 4.11).
mk_el7kvm() {
	mk_base "$1" 3.10.0-1160.el7.x86_64 yes "Red Hat" "BOOT_IMAGE=/vmlinuz-3.10.0-1160.el7.x86_64 root=/dev/vda1 ro console=ttyS0"
	mk_disk "$1" vda virtio_blk "[mq-deadline] kyber none" 4096 1 256
	_v=pci0000:00/0000:00:05.0/virtio2
	mk_legacy_sd "$1" sda $_v host2 2:0:0:0 "QEMU    " "QEMU HARDDISK" "noop [deadline] cfq" 1
	mk_host_proc_name "$1" $_v host2 virtio_scsi
	_t=$1/sys/kernel/mm/transparent_hugepage
	_attr "$_t/enabled" "[always] madvise never"
	_attr "$_t/defrag" "[always] madvise never"
	_attr "$_t/use_zero_page" 1
	_attr "$_t/khugepaged/defrag" 1
}

# ---- interfaces the default selection leaves alone ----

# A bare-metal host with bonding, a VLAN and a bridge on the bond, and
# InfiniBand, as the kernel lays them out: bonding_masters a file of
# sys/class/net; bond0 a virtual device with bonding/ and DEVTYPE=bond,
# its slaves eth0 and eth1 physical (bonding_slave/, a master link);
# bond0.100 DEVTYPE=vlan, br0 DEVTYPE=bridge with bridge/; ib0 on its HCA
# (type 32); eth2 a NIC whose capture lost its device link.
mk_bondhost() {
	mk_base "$1" 6.1.0-28-amd64 no "Dell Inc." "BOOT_IMAGE=/vmlinuz root=/dev/sda2 ro"
	rm -r "$1/sys/devices/virtual/net/eth0" "$1/sys/class/net/eth0"
	mk_scsi_at "$1" sda pci0000:00/0000:00:1f.2/ata1 host0 0:0:0:0 "ATA     " "SAMSUNG MZ7LH480" \
		"[mq-deadline] kyber bfq none" 0
	mk_host_proc_name "$1" pci0000:00/0000:00:1f.2/ata1 host0 ahci
	_n=$1/sys/devices/virtual/net
	for _i in "eth0 2" "eth1 3"; do
		set -- "$1" $_i
		mk_netdev "$1" "$2" "$3" 1 ixgbe
		mkdir -p "$_n/$2/bonding_slave"
		_attr "$_n/$2/bonding_slave/state" active
		ln -s ../bond0 "$_n/$2/master"
	done
	mk_netdev "$1" bond0 4 1 ""
	_attr "$_n/bond0/uevent" "$(printf 'DEVTYPE=bond\nINTERFACE=bond0\nIFINDEX=4')"
	_attr "$_n/bond0/bonding/mode" "802.3ad 4"
	_attr "$_n/bond0/bonding/slaves" "eth0 eth1"
	_attr "$1/sys/class/net/bonding_masters" bond0
	mk_netdev "$1" bond0.100 5 1 ""
	_attr "$_n/bond0.100/uevent" "$(printf 'DEVTYPE=vlan\nINTERFACE=bond0.100\nIFINDEX=5')"
	mk_netdev "$1" br0 6 1 ""
	_attr "$_n/br0/uevent" "$(printf 'DEVTYPE=bridge\nINTERFACE=br0\nIFINDEX=6')"
	_attr "$_n/br0/bridge/stp_state" 0
	mk_netdev "$1" ib0 7 32 mlx5_core
	_attr "$_n/ib0/uevent" "$(printf 'INTERFACE=ib0\nIFINDEX=7')"
	mk_netdev "$1" eth2 8 1 ""
	mk_thp "$1"
}

# mk_measured TREE VERDICT: the file `measure tcp --apply` writes for a
# send buffer of 64 KiB on a 40 ms path (net.ipv4.tcp_wmem to 256 KiB,
# 10.5 Mbit/s before, 38.1 predicted), its newest check VERDICT at 36.7
# Mbit/s (none: no check yet), and the tree's tcp_wmem back at 64 KiB: not
# in force, so that --verify measures nothing.
mk_measured() {
	mkdir -p "$1/etc/sysctl.d" "$1/proc/sys/net/ipv4"
	echo "4096 16384 65536" >"$1/proc/sys/net/ipv4/tcp_wmem"
	{
		echo "# Written by earlytune measure tcp --apply on h at 2026-12-03T21:00:00Z."
		echo "# Before: 10500000 bit/s acked, 47784 bytes in flight, min RTT 40126 us."
		echo "# Prediction: 38100000 bit/s, 191136 bytes in flight."
		echo "# Was: net.ipv4.tcp_wmem = 4096 16384 65536 (to revert: set it back and remove this file)."
		echo "# Check it with the same measurement: earlytune measure tcp --for 2 --port 5001 --verify"
		[ "$2" = none ] || echo "# Verified: $2 at 2026-12-03T21:05:00Z on h: 36700000 bit/s acked, 180000 bytes in flight, the limit congestion window; 96% of the prediction: recorded."
		echo "net.ipv4.tcp_wmem = 4096 16384 262144"
	} >"$1/etc/sysctl.d/60-earlytune-measure-tcp_wmem.conf"
}

# mk_measured_readahead TREE VERDICT: the file `measure readahead vdb
# --apply` writes (the numbers of a loop device's run) for a disk vdb of
# the tree at the file's 1024 KiB, with a check of VERDICT ("none": no
# check yet); the disk's size, node number and counters for --verify.
mk_measured_readahead() {
	mkdir -p "$1/etc/earlytune.d" "$1/sys/block/vdb/queue"
	echo 252:16 >"$1/sys/block/vdb/dev"
	echo 8388608 >"$1/sys/block/vdb/size"
	echo 1024 >"$1/sys/block/vdb/queue/read_ahead_kb"
	echo "1 0 8 0 0 0 0 0 0 0 0 0 0 0 0 0 0" >"$1/sys/block/vdb/stat"
	{
		echo "# Written by earlytune measure readahead --apply on h at 2026-12-07T01:27:05Z."
		echo "# Measured: random 4 KiB touches through mmap of /dev/vdb read-only, its first 4096 MiB: amplification 1934.9x at 8192 KiB, 248.2x at 1024 KiB; sequential 276.0 and 1239.7 MiB/s."
		echo "# Before: read_ahead_kb = 8192: amplification 1934.9x, sequential 276.0 MiB/s."
		echo "# Prediction: amplification 248.5x at 1024 KiB for 33 touches (bytes a touch = k x read-ahead x s, k = 0.9746), sequential 1239.7 MiB/s (its round); the round at 1024 KiB measured 248.2x (-0.1%)."
		echo "# To revert: remove this file and write 8192 to /sys/block/vdb/queue/read_ahead_kb."
		echo "# Check it with the same measurement: earlytune measure readahead vdb --for 2 --max-bytes 8388608 --verify"
		[ "$2" = none ] || echo "# Verified: $2 at 2026-12-07T01:30:00Z on h: amplification 600.0x, sequential 1100.0 MiB/s: recorded."
		echo '[block "measure-vdb"]'
		echo "match.name = vdb"
		echo "read_ahead_kb = 1024"
	} >"$1/etc/earlytune.d/60-earlytune-measure-readahead-vdb.conf"
}
