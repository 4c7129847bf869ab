#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
. /lib/ettest-report.sh
et_report initramfs >/dev/console 2>&1
. /lib/ettest-sched.sh
et_sched >/dev/console 2>&1
echo o >/proc/sysrq-trigger
