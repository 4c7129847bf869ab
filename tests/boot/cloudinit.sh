# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
#
# Sourced by tests/boot/run.sh: the cloud-init first boot. The root carries
# Debian's cloud-init; the guest gets a NoCloud seed the way a VPS provider
# gives one, a second disk with a VFAT file system labelled CIDATA, whose
# user-data writes a file into /etc/earlytune.d (write_files, in cloud-init's
# init stage): read-ahead for virtual disks, THP, and the limits of the test
# service. None of it is in the image: the initramfs, udev's coldplug and
# earlytune.service run with the image's configuration; the test service, a
# plain service of multi-user.target, must find the user-data's values in
# force when it starts (earlytune-cloud-init.service's work). The root disk
# is a snapshot (qemu's snapshot=on): the full boots after it find a root
# where cloud-init never ran, and are told cloud-init=disabled.

CLOUD_RA=1536 CLOUD_THP=never CLOUD_NOFILE=3000:6000

# cloud_seed FILE: the NoCloud seed disk, made with the root's mkfs.vfat and
# mcopy (the host need not have them)
cloud_seed() {
	local s=$ROOT/tmp/ettest-seed
	rm -rf "$s" && mkdir -p "$s" || return 1
	printf 'instance-id: ettest-cloud-1\nlocal-hostname: ettest-cloud\n' >"$s/meta-data"
	cat >"$s/user-data" <<CONF
#cloud-config
write_files:
  - path: /etc/earlytune.d/60-user-data.conf
    permissions: '0644'
    content: |
      # from user-data (cloud-init write_files, first boot)
      [block "virtual"]
      read_ahead_kb = $CLOUD_RA
      [thp]
      enabled = $CLOUD_THP
      [limits "ettest-cloud.service"]
      nofile = $CLOUD_NOFILE
CONF
	rm -f "$s.img"
	chroot "$ROOT" sh -c 'mkfs.vfat -C -n CIDATA /tmp/ettest-seed.img 1024 >/dev/null &&
		mcopy -i /tmp/ettest-seed.img /tmp/ettest-seed/user-data /tmp/ettest-seed/meta-data ::' &&
		mv "$s.img" "$1"
	local rc=$?
	rm -rf "$s" "$s.img"
	return $rc
}

# cloud_install: the test service (enabled, run only on ettest.cloud)
cloud_install() {
	install -D -m 0755 "$here/ettest-cloud" "$ROOT/usr/local/sbin/ettest-cloud"
	install -D -m 0644 "$here/ettest-cloud.service" "$ROOT/etc/systemd/system/ettest-cloud.service"
	ln -sf ../ettest-cloud.service "$ROOT/etc/systemd/system/multi-user.target.wants/ettest-cloud.service"
}

# cloud_order NAME A B: unit A was active before unit B started activating
cloud_order() {
	local a b
	a=$(sed -n "s/.*ETTEST unit $2 .*ActiveEnterTimestampMonotonic=\([0-9]*\).*/\1/p" "$B/$1.log")
	b=$(sed -n "s/.*ETTEST unit $3 .*InactiveExitTimestampMonotonic=\([0-9]*\).*/\1/p" "$B/$1.log")
	if [ -n "$a" ] && [ -n "$b" ] && [ "$a" -gt 0 ] && [ "$a" -le "$b" ]; then
		pass "$1: $2 done before $3 started"
	else
		fail "$1: $2 done before $3 started" "active at '$a', the other started at '$b'" "$(grep 'ETTEST unit' "$B/$1.log")"
	fi
}

# cloud_boot KVER: the first boot of a cloud image, through the dracut image
cloud_boot() {
	local k=$1 name=cloud-$1 seed=$B/seed.img t
	if [ -e "$ROOT/etc/earlytune.d/60-user-data.conf" ] || [ -e "$ROOT/var/lib/cloud/instance" ]; then
		fail "$name: the image has neither the user-data's file nor cloud-init's state"
		return
	fi
	cloud_seed "$seed" || { fail "$name: make the NoCloud seed disk (CIDATA)"; return; }
	t=$(date +%s%N)
	timeout 300 "${QEMU[@]}" -m 1024 -smp 2 -display none -no-reboot \
		-serial "file:$B/$name.log" -kernel "$ROOT/boot/vmlinuz-$k" -initrd "$ROOT/boot/et-dracut-$k.img" \
		-append "console=$CONSOLE panic=-1 root=/dev/vda rw rd.lvm=0 rd.luks=0 rd.ettest=continue ettest.cloud systemd.mask=ettest.service systemd.mask=ettest-limits.service" \
		-drive file="$B/root.img",if=none,id=d0,format=raw,snapshot=on -device virtio-blk-pci,drive=d0,num-queues=1 \
		-drive file="$seed",if=none,id=d1,format=raw,readonly=on -device virtio-blk-pci,drive=d1 \
		-nic none >/dev/null 2>&1
	phase "boot $name" "$t"
	marker "$name" cloud || return
	has "$name" "cloud-init found the NoCloud seed disk" 'ETTEST cloud-datasource DataSourceNoCloud.*/dev/vdb'
	has "$name" "cloud-init's write_files wrote the configuration file" 'ETTEST cloud-log .*Writing to /etc/earlytune.d/60-user-data.conf'
	has "$name" "user-data's read-ahead in force when a multi-user.target service starts" "ETTEST cloud-start ra=$CLOUD_RA "
	has "$name" "user-data's THP in force when a multi-user.target service starts" "ETTEST cloud-start .*thp=[a-z+ []*\\[$CLOUD_THP\\]"
	has "$name" "user-data's [limits] reached the service (the unit's daemon-reload)" "ETTEST cloud-start .*nofile=$CLOUD_NOFILE[[:space:]]*\$"
	cloud_order "$name" cloud-init.service earlytune-cloud-init.service
	cloud_order "$name" earlytune-cloud-init.service ettest-cloud.service
	has "$name" "earlytune-cloud-init.service's run set vda's read-ahead" "ETTEST kmsg .*earlytune: block vda queue/read_ahead_kb: [0-9]+ -> $CLOUD_RA"
	has "$name" "status: the run after cloud-init, nothing failed" 'ETTEST status: [0-9-]+ [0-9:]+ [+-][0-9]+  apply --boot --only modules,thp,nic,net,block,sched,sysfs: [1-9][0-9]* changed, [0-9]+ kept, [0-9]+ skipped, 0 failed'
}
