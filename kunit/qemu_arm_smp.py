# SPDX-License-Identifier: GPL-2.0
#
# kunit.py --qemu_config for the workqueue CPU-selection suite: a 32-bit ARM
# "virt" machine with eight Cortex-A15 CPUs.  The stock arm.py boots one CPU,
# where no case about CPU selection means anything.
#
# Usage: kunit.py run --arch=arm --cross_compile=arm-linux-gnueabihf- \
#            --kunitconfig=kunitconfig --qemu_config=kunit/qemu_arm_smp.py

from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='arm',
			   kconfig='''
CONFIG_ARCH_VIRT=y
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y''',
			   qemu_arch='arm',
			   kernel_path='arch/arm/boot/zImage',
			   kernel_command_line='console=ttyAMA0',
			   extra_qemu_params=['-machine', 'virt', '-cpu', 'cortex-a15',
					      '-smp', '8'])
