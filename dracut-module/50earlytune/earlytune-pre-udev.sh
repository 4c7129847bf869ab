#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by dracut's init at pre-udev: modules, THP, congestion control and
# default qdisc before udev starts and any disk or NIC appears; the [limits]
# default in /run/systemd/system.conf.d, which survives the switch to the
# real root, where systemd reads it when it starts. Never exits,
# never fails the boot: earlytune --boot always returns 0, and reads
# earlytune=0 / rd.earlytune=0 itself (it then writes nothing).
/usr/sbin/earlytune --boot apply --only modules,thp,nic,net,limits,sched,sysfs
