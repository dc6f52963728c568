# SPDX-License-Identifier: GPL-2.0
#
# kunit.py --qemu_config for the workqueue CPU-selection suite: QEMU's ARM
# "virt" machine made into the LWN article's big.LITTLE board, CPUs
# 0..N/2-1 LITTLE and N/2..N-1 big.  The stock arm.py and arm64.py boot one
# CPU, where no case about CPU selection means anything.
#
# For --arch=arm64 (kunit.py's --arch, or WQ_KUNIT_ARCH) the board is
# 64-bit: Cortex-A57s, the LITTLE ones named Cortex-A53, in two clusters
# of the device tree's cpu-map, which 64-bit ARM reads.
#
# QEMU emulates only Cortex-A15s; the device tree it generates for the
# machine (dumped here for the CPU count and memory in use, never committed)
# is edited so that the first half are "arm,cortex-a7" with a lower
# capacity-dmips-mhz, which 32-bit ARM turns into arch_scale_cpu_capacity().
# The two groups are told apart by capacity only: 32-bit ARM takes clusters
# from MPIDR, and QEMU puts all of virt's CPUs in one MPIDR cluster.
#
# WQ_KUNIT_INITRD names an initramfs whose /init loads the suite built as a
# module (tools/wqkunit/build/module_boot.py makes it): the command line
# then ends in "--", so that the kunit_shutdown=reboot kunit.py appends
# goes to /init instead of shutting the kernel down before the module is
# loaded.
#
# WQ_KUNIT_NUMA=2 (arm64) puts each half of the board in a NUMA node of its own,
# each of two clusters.
#
# WQ_KUNIT_SMP sets the CPU count: 1 to 8 on arm (default 8), whose GICv2
# stops at 8, and 1 to 16 on arm64 (the kunitconfig's NR_CPUS; default 16,
# as tools/wq-kunit boots it), which gets
# a GICv3 beyond 8 and runs on one host thread (WQ_KUNIT_TCG=multi for one
# per CPU, which is QEMU's default; see _tcg()).  WQ_KUNIT_GDB=PORT opens
# QEMU's gdbstub on that TCP port.  WQ_KUNIT_BOARD=homogeneous
# boots QEMU's own device tree, every CPU alike; the board's is cached in
# $WQ_KUNIT_CACHE, else $XDG_CACHE_HOME/wq-kunit, else ~/.cache/wq-kunit.
#
# Usage: kunit.py run --arch=arm --cross_compile=arm-linux-gnueabihf- \
#            --kunitconfig=kunitconfig --qemu_config=kunit/qemu_arm_smp.py

import os
import re
import subprocess
import sys

from ..qemu_config import QemuArchParams

# arch/arm/kernel/topology.c's table_efficiency: Cortex-A15 3891, A7 2048.
BIG_DMIPS = 1024
LITTLE_DMIPS = 1024 * 2048 // 3891
MEMORY = '1024'		# kunit.py boots with -m 1024


def _arch():
	"""arm or arm64: WQ_KUNIT_ARCH, else kunit.py's own --arch."""
	arch = os.environ.get('WQ_KUNIT_ARCH')
	if not arch:
		args = sys.argv[1:]
		for i, arg in enumerate(args):
			if arg.startswith('--arch='):
				arch = arg.split('=', 1)[1]
			elif arg == '--arch' and i + 1 < len(args):
				arch = args[i + 1]
	arch = arch or 'arm'
	if arch not in ('arm', 'arm64'):
		raise ValueError(f'--arch={arch}: this board is arm or arm64')
	return arch


ARCH = _arch()
# The CPU QEMU emulates, the name the LITTLE ones get, and the QEMU binary.
CPU, LITTLE, QEMU = ('cortex-a15', 'cortex-a7', 'qemu-system-arm') if ARCH == 'arm' else \
	('cortex-a57', 'cortex-a53', 'qemu-system-aarch64')
# GICv2, virt's default, serves at most 8 CPUs; 32-bit ARM has no GICv3
# on QEMU's Cortex-A15, and the kunitconfig's NR_CPUS is 16.
MOST = 8 if ARCH == 'arm' else 16


def _smp():
	smp = os.environ.get('WQ_KUNIT_SMP') or str(MOST)
	if smp not in [str(n) for n in range(1, MOST + 1)]:
		raise ValueError(f'WQ_KUNIT_SMP={smp}: the {ARCH} board has 1 to {MOST} CPUs')
	return int(smp)


def _machine(cpus):
	"""virt, with a GICv3 where GICv2's 8 CPUs are not enough."""
	return 'virt' if cpus <= 8 else 'virt,gic-version=3'


def _gdb():
	"""WQ_KUNIT_GDB=PORT: QEMU's gdbstub on that TCP port, to see where a
	hung guest's CPUs are (one boot at a time per port)."""
	port = os.environ.get('WQ_KUNIT_GDB')
	if not port:
		return []
	if not port.isdigit():
		raise ValueError(f'WQ_KUNIT_GDB={port}: a TCP port, such as 1234')
	return ['-gdb', f'tcp::{port}']


def _tcg(cpus):
	"""-accel for @cpus CPUs: past 8, one host thread for every CPU
	(thread=single).  With a thread per CPU, 16 CPUs on a 2-core host
	boot slower (16 s against 9 s to the last result), and 3 of 34 such
	boots of 6.12 hung in an RCU stall whose dump never ended
	(tools/MEASUREMENTS.md, "Sixteen CPUs").  WQ_KUNIT_TCG=single or
	multi chooses."""
	mode = os.environ.get('WQ_KUNIT_TCG') or ('single' if cpus > 8 else '')
	if mode not in ('', 'single', 'multi'):
		raise ValueError(f'WQ_KUNIT_TCG={mode}: single or multi')
	return ['-accel', f'tcg,thread={mode}'] if mode else []


def _numa():
	"""WQ_KUNIT_NUMA: 0 (one node, the default) or 2, the board's halves in
	two NUMA nodes of half the memory each; arm64 only, as 32-bit ARM has
	no NUMA."""
	nodes = os.environ.get('WQ_KUNIT_NUMA') or '0'
	if nodes not in ('0', '2'):
		raise ValueError(f'WQ_KUNIT_NUMA={nodes}: 0 or 2 nodes')
	if nodes == '2' and ARCH != 'arm64':
		raise ValueError('WQ_KUNIT_NUMA=2: only on arm64 (32-bit ARM has no NUMA)')
	return int(nodes)


def _numa_args(cpus):
	"""QEMU's arguments for the NUMA nodes: one memory backend each (QEMU
	7.2 refuses -numa node,mem= on virt), CPUs 0..N/2-1 and N/2..N-1."""
	if not NUMA:
		return []
	if cpus < NUMA:
		raise ValueError(f'WQ_KUNIT_NUMA={NUMA}: needs {NUMA} CPUs, has {cpus}')
	size = int(MEMORY) // NUMA
	args = []
	for node in range(NUMA):
		low, high = node * cpus // NUMA, (node + 1) * cpus // NUMA - 1
		args += ['-object', f'memory-backend-ram,id=m{node},size={size}M',
			 '-numa', f'node,nodeid={node},cpus={low}-{high},memdev=m{node}']
	return args


def _homogeneous():
	board = os.environ.get('WQ_KUNIT_BOARD') or 'biglittle'
	if board not in ('biglittle', 'homogeneous'):
		raise ValueError(f'WQ_KUNIT_BOARD={board}: biglittle or homogeneous')
	return board == 'homogeneous'


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


# Phandle of the first cluster's L2 cache (arm64), below the 0x8000 QEMU uses.
L2_PHANDLE = 0x7f00


def _big_little(dts, cpus):
	"""Make the first half of the cpu@N nodes LITTLE, the rest big.  On
	arm64, where the CPUs are in clusters, give each cluster an L2 cache
	of its own, as big.LITTLE SoCs have: the last level each CPU shares
	with its cluster only."""
	clusters = _clusters(cpus)

	def edit(match):
		cpu = int(match.group(1))	# QEMU names them cpu@0 .. cpu@15, in decimal
		little = cpu < cpus // 2
		body = match.group(2).replace(f'"arm,{CPU}"', f'"arm,{LITTLE if little else CPU}"')
		dmips = LITTLE_DMIPS if little else BIG_DMIPS
		body += f'\t\t\tcapacity-dmips-mhz = <{dmips}>;\n'
		if clusters:
			l2 = L2_PHANDLE + cpu // (cpus // clusters)
			body += f'\t\t\tnext-level-cache = <{l2:#x}>;\n'
		return f'cpu@{match.group(1)} {{{body}'
	dts = re.sub(r'cpu@([0-9]+) \{(.*?\n)(?=\t\t\};)', edit, dts, flags=re.S)
	if clusters:
		caches = ''.join(f'\t\tl2-cache{i} {{\n\t\t\tcompatible = "cache";\n'
				 f'\t\t\tcache-level = <2>;\n\t\t\tcache-unified;\n'
				 f'\t\t\tphandle = <{L2_PHANDLE + i:#x}>;\n\t\t}};\n\n'
				 for i in range(clusters))
		# Nodes after the properties of cpus: before its cpu-map.
		dts = dts.replace('\t\tcpu-map {', caches + '\t\tcpu-map {', 1)
	return dts


def _clusters(cpus):
	"""How many clusters the arm64 board's @cpus CPUs are in (0: none,
	on arm): its halves, or with NUMA nodes two per node, each with an
	L2 of its own, as servers whose node holds several last-level
	caches have it.  Then a node is not a cache domain, and the
	workqueue's numa affinity scope cannot pass for its cache one."""
	if ARCH == 'arm' or cpus < 2 or cpus % 2:
		return 0
	return 2 * NUMA if NUMA and cpus % (2 * NUMA) == 0 else 2


def _topology(cpus):
	"""-smp: on arm64, the CPUs in clusters, which QEMU writes into the
	device tree's cpu-map."""
	clusters = _clusters(cpus)
	if not clusters:
		return str(cpus)
	return f'{cpus},sockets=1,clusters={clusters},cores={cpus // clusters},threads=1'


def device_tree(cpus):
	"""The board's device tree for @cpus CPUs, generated once and cached."""
	numa = f'-numa{NUMA}' if NUMA else ''
	path = os.path.join(_cache(), 'dtb', f'biglittle-{ARCH}-{cpus}cpu-{MEMORY}m{numa}.dtb')
	if os.path.exists(path) and os.path.getmtime(path) >= os.path.getmtime(__file__):
		return path
	os.makedirs(os.path.dirname(path), exist_ok=True)
	# Names of this process's own: boots run side by side, and each
	# generates the file and moves it into place whole.
	raw = f'{path}.{os.getpid()}.qemu'
	tmp = f'{path}.{os.getpid()}.tmp'
	# -nodefaults as kunit.py boots it: the default NIC wants a ROM that
	# qemu-system-arm installed without its recommends does not have.
	_run([QEMU, '-nodefaults', '-machine', f'{_machine(cpus)},dumpdtb={raw},dtb-randomness=off',
	      '-cpu', CPU, '-smp', _topology(cpus), '-m', MEMORY, '-nographic'] +
	     _numa_args(cpus))
	dts = _run(['dtc', '-q', '-I', 'dtb', '-O', 'dts', raw], text=True).stdout
	edited = _big_little(dts, cpus)
	if edited.count('capacity-dmips-mhz') != cpus:
		raise ValueError(f'could not find the {cpus} cpu nodes in QEMU\'s device tree')
	_run(['dtc', '-q', '-I', 'dts', '-O', 'dtb', '-o', tmp, '-'],
	     input=edited, text=True)
	os.replace(tmp, path)
	os.remove(raw)
	return path


CPUS = _smp()
NUMA = _numa()
INITRD = os.environ.get('WQ_KUNIT_INITRD')
# The homogeneous board is QEMU's machine as it is: every CPU alike.
BOARD = [] if _homogeneous() else ['-dtb', device_tree(CPUS)]
QEMU_ARCH = QemuArchParams(linux_arch=ARCH,
			   kconfig='''
CONFIG_ARCH_VIRT=y
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y''' if ARCH == 'arm' else '''
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y''',
			   qemu_arch='arm' if ARCH == 'arm' else 'aarch64',
			   kernel_path='arch/arm/boot/zImage' if ARCH == 'arm' else
			   'arch/arm64/boot/Image.gz',
			   kernel_command_line='console=ttyAMA0' + (' --' if INITRD else ''),
			   extra_qemu_params=_tcg(CPUS) + _gdb() +
			   ['-machine', _machine(CPUS), '-cpu', CPU, '-smp', _topology(CPUS)] + _numa_args(CPUS) +
			   BOARD +
			   (['-initrd', INITRD] if INITRD else []))
