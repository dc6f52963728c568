# SPDX-License-Identifier: GPL-2.0
"""kunit/qemu_arm_smp.py as kunit.py loads it: a failing QEMU or dtc says
why in its own words."""

import os
import shutil
import stat
import subprocess
import sys

from tests.util import TempDirTest

BOARD = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
	os.path.abspath(__file__)))), 'kunit', 'qemu_arm_smp.py')


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
