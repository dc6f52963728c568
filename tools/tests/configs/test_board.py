# SPDX-License-Identifier: GPL-2.0
"""kunit/qemu_arm_smp.py as kunit.py loads it: a failing QEMU or dtc says
why in its own words."""

import os
import re
import shutil
import stat
import subprocess
import sys
import unittest

from tests.util import TempDirTest
from wqkunit.base import repo_paths
from wqkunit.configs import board
from wqkunit.evidence import mutate
from wqkunit.verdicts import verdict

BOARD = os.path.join(repo_paths.KUNIT_DIR, 'qemu_arm_smp.py')


class BoardTest(TempDirTest):
	def setUp(self):
		super().setUp()
		# kunit.py's layout: configs import ..qemu_config.
		pkg = os.path.join(self.tmp, 'kunit')
		os.makedirs(os.path.join(pkg, 'configs'))
		for init in ('__init__.py', os.path.join('configs', '__init__.py')):
			open(os.path.join(pkg, init), 'w', encoding='utf-8').close()
		with open(os.path.join(pkg, 'qemu_config.py'), 'w', encoding='utf-8') as f:
			f.write('def QemuArchParams(**kwargs):\n\treturn kwargs\n')
		shutil.copy(BOARD, os.path.join(pkg, 'configs'))
		self.bin = os.path.join(self.tmp, 'bin')
		os.makedirs(self.bin)

	def tool(self, name, script):
		path = os.path.join(self.bin, name)
		with open(path, 'w', encoding='utf-8') as f:
			f.write('#!/bin/sh\n' + script + '\n')
		os.chmod(path, stat.S_IRWXU)

	def load(self, cwd):
		env = dict(os.environ, PATH=f'{self.bin}:{os.environ["PATH"]}',
			   WQ_KUNIT_CACHE='rel-cache')
		return subprocess.run([sys.executable, '-c', 'import kunit.configs.qemu_arm_smp'],
				      cwd=cwd, env=dict(env, PYTHONPATH=self.tmp),
				      capture_output=True, text=True, check=False)

	def test_no_topology_lines_fail_closed_unless_filtered(self):
		self.assertEqual(board.check('ok 1 workqueue_percpu\n', 8), board.NOT_PRINTED)
		self.assertIsNone(board.check('ok 1 workqueue_percpu\n', 8, filtered=True))

	def test_qemu_failure_shows_qemu_message(self):
		self.tool('qemu-system-arm', 'echo "qemu-system-arm: -smp 8: too many CPUs" >&2; exit 1')
		proc = self.load(self.tmp)
		self.assertNotEqual(proc.returncode, 0)
		self.assertEqual(proc.stderr.strip().splitlines()[-1],
				 'RuntimeError: qemu-system-arm failed making the board\'s device '
				 'tree: qemu-system-arm: -smp 8: too many CPUs')

	def test_dtc_failure_shows_dtc_message(self):
		self.tool('qemu-system-arm', 'for a; do case $a in *dumpdtb=*) f=${a#*dumpdtb=}; '
			  'f=${f%%,*};; esac; done; : > "$f"')
		self.tool('dtc', 'echo "FATAL ERROR: Blob has incorrect magic number" >&2; exit 1')
		proc = self.load(self.tmp)
		self.assertTrue(proc.stderr.strip().endswith(
			'dtc failed making the board\'s device tree: FATAL ERROR: Blob has '
			'incorrect magic number'), proc.stderr)

	@unittest.skipUnless(shutil.which('qemu-system-arm') and shutil.which('dtc'),
			     'the gate installs qemu-system-arm and device-tree-compiler')
	def test_boots_side_by_side_make_the_device_tree_once_each(self):
		# check boots two configurations at a time: neither may take the
		# other's half-written files.
		env = dict(os.environ, WQ_KUNIT_CACHE=os.path.join(self.tmp, 'cache'),
			   PYTHONPATH=self.tmp)
		procs = [subprocess.Popen([sys.executable, '-c', 'import kunit.configs.qemu_arm_smp'],
					  cwd=self.tmp, env=env, stderr=subprocess.PIPE, text=True)
			 for _ in range(4)]
		for proc in procs:
			_, err = proc.communicate()
			self.assertEqual(proc.returncode, 0, err)
		self.assertEqual(os.listdir(os.path.join(self.tmp, 'cache', 'dtb')),
				 ['biglittle-arm-8cpu-1024m.dtb'])

	@unittest.skipUnless(shutil.which('qemu-system-aarch64') and shutil.which('dtc'),
			     'the gate installs qemu-system-arm and device-tree-compiler')
	def test_numa_board_has_two_clusters_per_node(self):
		# cpu@10 .. cpu@15 are decimal: CPU 10 is in the third cluster.
		env = dict(os.environ, WQ_KUNIT_CACHE=os.path.join(self.tmp, 'cache'),
			   PYTHONPATH=self.tmp, WQ_KUNIT_ARCH='arm64', WQ_KUNIT_NUMA='2',
			   WQ_KUNIT_SMP='16')
		proc = subprocess.run([sys.executable, '-c', 'import kunit.configs.qemu_arm_smp'],
				      cwd=self.tmp, env=env, capture_output=True, text=True, check=False)
		self.assertEqual(proc.returncode, 0, proc.stderr)
		dtb = os.path.join(self.tmp, 'cache', 'dtb', 'biglittle-arm64-16cpu-1024m-numa2.dtb')
		dts = subprocess.run(['dtc', '-q', '-I', 'dtb', '-O', 'dts', dtb], capture_output=True,
				     text=True, check=True).stdout
		caches = re.findall(r'cpu@(\d+) \{.*?next-level-cache = <(0x[0-9a-f]+)>', dts, re.S)
		self.assertEqual([int(l2, 16) - 0x7f00 for _, l2 in caches],
				 [cpu // 4 for cpu in range(16)])

	def test_homogeneous_board_needs_no_device_tree(self):
		# No qemu-system-arm or dtc at all: nothing to dump or edit.
		env = dict(os.environ, PATH=self.bin, WQ_KUNIT_BOARD='homogeneous', WQ_KUNIT_SMP='3')
		proc = subprocess.run([sys.executable, '-c', 'import kunit.configs.qemu_arm_smp as b; '
				       'print(b.QEMU_ARCH["extra_qemu_params"])'],
				      cwd=self.tmp, env=dict(env, PYTHONPATH=self.tmp),
				      capture_output=True, text=True, check=False)
		self.assertEqual(proc.stdout.strip(),
				 "['-machine', 'virt', '-cpu', 'cortex-a15', '-smp', '3']", proc.stderr)

	def params(self, **env):
		proc = subprocess.run([sys.executable, '-c', 'import kunit.configs.qemu_arm_smp as b; '
				       'print(" ".join(b.QEMU_ARCH["extra_qemu_params"]))'],
				      cwd=self.tmp, env=dict(os.environ, PATH=self.bin, PYTHONPATH=self.tmp,
							     WQ_KUNIT_BOARD='homogeneous', **env),
				      capture_output=True, text=True, check=False)
		return proc.stdout.strip() or proc.stderr.strip().splitlines()[-1]

	def test_sixteen_cpus_on_arm64_only_with_a_gicv3(self):
		self.assertEqual(self.params(WQ_KUNIT_SMP='16', WQ_KUNIT_ARCH='arm64'),
				 '-accel tcg,thread=single -machine virt,gic-version=3 -cpu cortex-a57 '
				 '-smp 16,sockets=1,clusters=2,cores=8,threads=1')
		self.assertEqual(self.params(WQ_KUNIT_SMP='16', WQ_KUNIT_ARCH='arm64',
					     WQ_KUNIT_TCG='multi'),
				 '-accel tcg,thread=multi -machine virt,gic-version=3 -cpu cortex-a57 '
				 '-smp 16,sockets=1,clusters=2,cores=8,threads=1')
		self.assertEqual(self.params(WQ_KUNIT_SMP='8', WQ_KUNIT_ARCH='arm64'),
				 '-machine virt -cpu cortex-a57 -smp 8,sockets=1,clusters=2,cores=4,threads=1')
		self.assertEqual(self.params(WQ_KUNIT_SMP='16', WQ_KUNIT_ARCH='arm'),
				 'ValueError: WQ_KUNIT_SMP=16: the arm board has 1 to 8 CPUs')
		self.assertEqual(self.params(WQ_KUNIT_SMP='17', WQ_KUNIT_ARCH='arm64'),
				 'ValueError: WQ_KUNIT_SMP=17: the arm64 board has 1 to 16 CPUs')

	def test_unknown_board_is_refused(self):
		env = dict(os.environ, WQ_KUNIT_BOARD='big.LITTLE')
		proc = subprocess.run([sys.executable, '-c', 'import kunit.configs.qemu_arm_smp'],
				      cwd=self.tmp, env=dict(env, PYTHONPATH=self.tmp),
				      capture_output=True, text=True, check=False)
		self.assertTrue(proc.stderr.strip().endswith(
			'ValueError: WQ_KUNIT_BOARD=big.LITTLE: biglittle or homogeneous'), proc.stderr)


def _topology(caps, offline=()):
	return ''.join(f'[    1.0] workqueue_topology: topology: cpu{cpu} '
		       f'{"offline" if cpu in offline else "online"} capacity {cap} cluster -1\n'
		       for cpu, cap in enumerate(caps))


class BoardCheckTest(TempDirTest):
	"""The tools, not the kernel, check that the guest is the board booted."""

	def test_the_board_booted_passes(self):
		self.assertIsNone(board.check(_topology([538] * 4 + [1024] * 4), 8))
		self.assertIsNone(board.check(_topology([1024] * 3), 3, board.HOMOGENEOUS))
		self.assertIsNone(board.check(_topology([1024]), 1))

	def test_possible_cpus_left_offline_at_boot(self):
		console = _topology([1024] * 8, offline=range(4, 8))
		self.assertIsNone(board.check(console, 8, board.HOMOGENEOUS, up=[0, 1, 2, 3]))
		self.assertEqual(board.check(console, 8, board.HOMOGENEOUS),
				 'the guest has CPUs 0,1,2,3 online of 8, the board 0,1,2,3,4,5,6,7 of 8')
		self.assertEqual(board.check(_topology([1024] * 8), 8, board.HOMOGENEOUS,
					     up=[0, 1, 2, 3]),
				 'the guest has CPUs 0,1,2,3,4,5,6,7 online of 8, the board 0,1,2,3 of 8')
		# Possible CPUs the guest lacks are missed even if the online ones match.
		self.assertEqual(board.check(_topology([1024] * 4), 8, board.HOMOGENEOUS,
					     up=[0, 1, 2, 3]),
				 'the guest has CPUs 0,1,2,3 online of 4, the board 0,1,2,3 of 8')

	def test_numa_nodes_are_the_boards(self):
		def with_nodes(nodes):
			return ''.join(f'[    1.0] workqueue_topology: topology: cpu{cpu} online capacity '
				       f'{538 if cpu < 4 else 1024} cluster -1 core 0 package 0 node {n} '
				       f'shares cache with {cpu},\n' for cpu, n in enumerate(nodes))
		self.assertIsNone(board.check(with_nodes([0] * 4 + [1] * 4), 8, numa=2))
		self.assertIsNone(board.check(with_nodes([0] * 8), 8))
		self.assertEqual(board.check(with_nodes([0] * 8), 8, numa=2),
				 "the guest's CPUs are in NUMA nodes [0, 0, 0, 0, 0, 0, 0, 0], "
				 "the board's in [0, 0, 0, 0, 1, 1, 1, 1]")
		self.assertEqual(board.check(with_nodes([0] * 4 + [1] * 4), 8),
				 "the guest's CPUs are in NUMA nodes [0, 0, 0, 0, 1, 1, 1, 1], "
				 "the board's in [0, 0, 0, 0, 0, 0, 0, 0]")
		self.assertEqual(board.check(_topology([538] * 4 + [1024] * 4), 8, numa=2),
				 'no NUMA nodes printed, the board has 2')

	def test_no_topology_printed_is_checked_only_in_a_filtered_run(self):
		self.assertIsNone(board.check('ok 1 broken_workqueue\n', 8, filtered=True))

	def test_another_board_is_named(self):
		for console, cpus, kind, why in (
			(_topology([538] * 4 + [1024] * 4, offline=(7,)), 8, board.BIG_LITTLE,
			 'the guest has CPUs 0,1,2,3,4,5,6 online of 8, the board 0,1,2,3,4,5,6,7 of 8'),
			(_topology([1024] * 8), 8, board.BIG_LITTLE,
			 'the guest is not the biglittle board (4 LITTLE CPUs then 4 big): '
			 'capacities [1024, 1024, 1024, 1024, 1024, 1024, 1024, 1024]'),
			(_topology([538, 1024]), 2, board.HOMOGENEOUS,
			 'the guest is not the homogeneous board (2 CPUs of one capacity): '
			 'capacities [538, 1024]'),
		):
			with self.subTest(why):
				self.assertEqual(board.check(console, cpus, kind), why)

	def test_failures_of_another_kernel_or_board_kill_nothing(self):
		judged = verdict.boot('', None, True, 'stale kernel: QEMU booted another kernel')
		judged.counts.statuses = {'workqueue_percpu.queue_work_on_runs_on_named_cpu': 'FAIL'}
		mutant = mutate.Mutant('m', 'x.patch', 'model',
				       'workqueue_percpu.queue_work_on_runs_on_named_cpu', ['default'], None)
		self.assertEqual(mutate.classify(mutant, [judged])[0], mutate.BOOT_ERROR)

	def test_a_board_check_is_never_a_kill(self):
		"""Only a case failing an expectation kills; a mutant the board
		check alone sees is counted apart, whatever its header says."""
		judged = verdict.boot('', None, True, board.PREFIX + 'the guest has CPUs 0 online of 8')
		for caught_by, outcome in ((board.CAUGHT_BY, mutate.BOARD),
					   ('workqueue_percpu.queue_work_runs_on_local_cpu',
					    mutate.BOARD)):
			with self.subTest(caught_by):
				mutant = mutate.Mutant('cpu-online-fails', 'x.patch', 'model',
						       caught_by, ['default'], None)
				self.assertEqual(mutate.classify(mutant, [judged])[0], outcome)
