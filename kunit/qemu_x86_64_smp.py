# SPDX-License-Identifier: GPL-2.0
#
# kunit.py --qemu_config for the workqueue CPU-selection suite on x86_64:
# kunit.py's own x86_64 machine with several CPUs, all alike (the stock
# x86_64.py boots one, where no case about CPU selection means anything).
#
# WQ_KUNIT_SMP sets the CPU count (1 to 16, kunitconfig's NR_CPUS; default 8).
# WQ_KUNIT_NUMA=2 puts each half of the CPUs in a NUMA node of its own, with
# half the memory (kunit/x86_64.config's CONFIG_NUMA reads them from ACPI).
#
# Usage: kunit.py run --arch=x86_64 --kunitconfig=kunitconfig \
#            --kunitconfig=kunit/x86_64.config --qemu_config=kunit/qemu_x86_64_smp.py

import os

from ..qemu_config import QemuArchParams

MEMORY = 1024		# kunit.py boots with -m 1024


def _smp():
	smp = os.environ.get('WQ_KUNIT_SMP', '8')
	if smp not in [str(n) for n in range(1, 17)]:
		raise ValueError(f'WQ_KUNIT_SMP={smp}: 1 to 16 CPUs')
	return smp


def _nodes():
	nodes = os.environ.get('WQ_KUNIT_NUMA') or '0'
	if nodes not in ('0', '2'):
		raise ValueError(f'WQ_KUNIT_NUMA={nodes}: 0 or 2 nodes')
	return int(nodes)


def _topology(cpus):
	"""-smp: with NUMA nodes, a socket per node, as servers have them (a
	package across two nodes makes x86 warn that its last-level cache
	spans them, in topology_sane())."""
	nodes = _nodes()
	if not nodes:
		return str(cpus)
	if cpus % nodes:
		raise ValueError(f'WQ_KUNIT_NUMA={nodes}: {cpus} CPUs do not split into {nodes} nodes')
	return f'{cpus},sockets={nodes},cores={cpus // nodes},threads=1'


def _numa(cpus):
	"""QEMU's arguments for WQ_KUNIT_NUMA: 0 (one node) or 2, CPUs
	0..N/2-1 and N/2..N-1, one RAM backend each."""
	nodes = _nodes()
	args = []
	for node in range(nodes):
		low, high = node * cpus // nodes, (node + 1) * cpus // nodes - 1
		args += ['-object', f'memory-backend-ram,id=m{node},size={MEMORY // nodes}M',
			 '-numa', f'node,nodeid={node},cpus={low}-{high},memdev=m{node}']
	return args


QEMU_ARCH = QemuArchParams(linux_arch='x86_64',
			   kconfig='''
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y''',
			   qemu_arch='x86_64',
			   kernel_path='arch/x86/boot/bzImage',
			   kernel_command_line='console=ttyS0',
			   # qboot, as kunit.py's x86_64.py: faster than SeaBIOS.
			   extra_qemu_params=['-bios', 'qboot.rom', '-smp', _topology(int(_smp()))] +
			   _numa(int(_smp())))
