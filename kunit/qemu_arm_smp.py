# SPDX-License-Identifier: GPL-2.0
#
# kunit.py --qemu_config for the workqueue CPU-selection suite: QEMU's 32-bit
# ARM "virt" machine made into the LWN article's big.LITTLE board, CPUs
# 0..N/2-1 Cortex-A7 (LITTLE) and N/2..N-1 Cortex-A15 (big).  The stock
# arm.py boots one CPU, where no case about CPU selection means anything.
#
# QEMU emulates only Cortex-A15s; the device tree it generates for the
# machine (dumped here for the CPU count and memory in use, never committed)
# is edited so that the first half are "arm,cortex-a7" with a lower
# capacity-dmips-mhz, which 32-bit ARM turns into arch_scale_cpu_capacity().
# The two groups are told apart by capacity only: 32-bit ARM takes clusters
# from MPIDR, and QEMU puts all of virt's CPUs in one MPIDR cluster.
#
# WQ_KUNIT_SMP sets the CPU count (default 8); the device tree is cached in
# $WQ_KUNIT_CACHE, else $XDG_CACHE_HOME/wq-kunit, else ~/.cache/wq-kunit.
#
# Usage: kunit.py run --arch=arm --cross_compile=arm-linux-gnueabihf- \
#            --kunitconfig=kunitconfig --qemu_config=kunit/qemu_arm_smp.py

import os
import re
import subprocess

from ..qemu_config import QemuArchParams

# arch/arm/kernel/topology.c's table_efficiency: Cortex-A15 3891, A7 2048.
BIG_DMIPS = 1024
LITTLE_DMIPS = 1024 * 2048 // 3891
MEMORY = '1024'		# kunit.py boots with -m 1024
MACHINE = ['-machine', 'virt', '-cpu', 'cortex-a15']


def _smp():
	smp = os.environ.get('WQ_KUNIT_SMP', '8')
	if smp not in ('1', '2', '4', '8'):
		raise ValueError(f'WQ_KUNIT_SMP={smp}: the board has 1, 2, 4 or 8 CPUs')
	return int(smp)


def _cache():
	explicit = os.environ.get('WQ_KUNIT_CACHE')
	if explicit:
		return explicit
	base = os.environ.get('XDG_CACHE_HOME') or os.path.join(os.path.expanduser('~'), '.cache')
	return os.path.join(base, 'wq-kunit')


def _run(cmd, **kwargs):
	"""Run @cmd; if it fails, raise with its own message, not a traceback
	of subprocess's that hides it."""
	try:
		proc = subprocess.run(cmd, capture_output=True, check=False, **kwargs)
	except FileNotFoundError:
		raise RuntimeError(f'{cmd[0]} is not installed (qemu-system-arm, '
				   f'device-tree-compiler)') from None
	if proc.returncode:
		err = proc.stderr if isinstance(proc.stderr, str) else \
			proc.stderr.decode(errors='replace')
		lines = [l for l in err.splitlines() if l.strip()]
		raise RuntimeError(f'{cmd[0]} failed making the board\'s device tree: '
				   f'{lines[-1] if lines else f"exit {proc.returncode}"}')
	return proc


def _big_little(dts, cpus):
	"""Make the first half of the cpu@N nodes LITTLE, the rest big."""
	def edit(match):
		cpu = int(match.group(1), 16)
		little = cpu < cpus // 2
		body = match.group(2).replace('"arm,cortex-a15"',
					      '"arm,cortex-a7"' if little else '"arm,cortex-a15"')
		dmips = LITTLE_DMIPS if little else BIG_DMIPS
		return f'cpu@{match.group(1)} {{{body}\t\t\tcapacity-dmips-mhz = <{dmips}>;\n'
	return re.sub(r'cpu@([0-9a-f]+) \{(.*?\n)(?=\t\t\};)', edit, dts, flags=re.S)


def device_tree(cpus):
	"""The board's device tree for @cpus CPUs, generated once and cached."""
	path = os.path.join(_cache(), 'dtb', f'biglittle-{cpus}cpu-{MEMORY}m.dtb')
	if os.path.exists(path) and os.path.getmtime(path) >= os.path.getmtime(__file__):
		return path
	os.makedirs(os.path.dirname(path), exist_ok=True)
	raw = path + '.qemu'
	# -nodefaults as kunit.py boots it: the default NIC wants a ROM that
	# qemu-system-arm installed without its recommends does not have.
	_run(['qemu-system-arm', '-nodefaults', '-machine',
	      f'virt,dumpdtb={raw},dtb-randomness=off',
	      '-cpu', 'cortex-a15', '-smp', str(cpus), '-m', MEMORY, '-nographic'])
	dts = _run(['dtc', '-q', '-I', 'dtb', '-O', 'dts', raw], text=True).stdout
	edited = _big_little(dts, cpus)
	if edited.count('capacity-dmips-mhz') != cpus:
		raise ValueError(f'could not find the {cpus} cpu nodes in QEMU\'s device tree')
	_run(['dtc', '-q', '-I', 'dts', '-O', 'dtb', '-o', path + '.tmp', '-'],
	     input=edited, text=True)
	os.replace(path + '.tmp', path)
	os.remove(raw)
	return path


CPUS = _smp()
QEMU_ARCH = QemuArchParams(linux_arch='arm',
			   kconfig='''
CONFIG_ARCH_VIRT=y
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y''',
			   qemu_arch='arm',
			   kernel_path='arch/arm/boot/zImage',
			   kernel_command_line='console=ttyAMA0',
			   extra_qemu_params=MACHINE + ['-smp', str(CPUS),
							'-dtb', device_tree(CPUS)])
