#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Test-only dracut module: at pre-mount (udev settled, root device found)
# print the tuned state and run the [sched] checks on the console (ettest.sh),
# then power off or, with rd.ettest=continue, go on to the real root.
check() { return 255; }
depends() { echo earlytune; return 0; }
install() {
	inst_multiple tc cat ls wc tr sed grep dmesg mount umount mkdir rm
	inst_simple "$moddir/report.sh" /lib/ettest-report.sh
	inst_simple "$moddir/sched.sh" /lib/ettest-sched.sh
	inst_hook pre-mount 99 "$moddir/ettest.sh"
}
