#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced at pre-mount (udev settled, the root device found): the tuned state
# and the [sched] checks on the console, then power off. With
# rd.ettest=continue (the full boot) the boot goes on to the real root
# instead, whose ettest.service reports the rest on the same console.
command -v getarg >/dev/null 2>&1 || . /lib/dracut-lib.sh
. /lib/ettest-report.sh
et_report initramfs >/dev/console 2>&1
. /lib/ettest-sched.sh
et_sched >/dev/console 2>&1
[ "$(getarg rd.ettest=)" = continue ] || echo o >/proc/sysrq-trigger
