# SPDX-License-Identifier: GPL-2.0
#
# kunit.py --qemu_config for the workqueue CPU-selection suite on x86_64:
# kunit.py's own x86_64 machine with several CPUs, all alike (the stock
# x86_64.py boots one, where no case about CPU selection means anything).
#
# WQ_KUNIT_SMP sets the CPU count (1 to 16, kunitconfig's NR_CPUS; default 8).
#
# Usage: kunit.py run --arch=x86_64 --kunitconfig=kunitconfig \
#            --qemu_config=kunit/qemu_x86_64_smp.py

import os

from ..qemu_config import QemuArchParams


def _smp():
	smp = os.environ.get('WQ_KUNIT_SMP', '8')
	if smp not in [str(n) for n in range(1, 17)]:
		raise ValueError(f'WQ_KUNIT_SMP={smp}: 1 to 16 CPUs')
	return smp


QEMU_ARCH = QemuArchParams(linux_arch='x86_64',
			   kconfig='''
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y''',
			   qemu_arch='x86_64',
			   kernel_path='arch/x86/boot/bzImage',
			   kernel_command_line='console=ttyS0',
			   # qboot, as kunit.py's x86_64.py: faster than SeaBIOS.
			   extra_qemu_params=['-bios', 'qboot.rom', '-smp', _smp()])
