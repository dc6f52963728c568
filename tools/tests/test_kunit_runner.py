# SPDX-License-Identifier: GPL-2.0
"""A boot must run the kernel just built, not an older image; an
interrupted build or boot ends with everything it started."""

import os
import signal
import time
import unittest
from unittest import mock

from tests.util import TempDirTest
from wqkunit.errors import WqKunitError
from wqkunit import kunit_runner
from wqkunit.kunit_runner import Kunit

LINE = '[    0.000000] Linux version 6.12.118 (root@vm) (gcc 12.2.0) {} \n'


class BootedKernelTest(TempDirTest):
	def setUp(self):
		super().setUp()
		self.kunit = Kunit(self.tmp, os.path.join(self.tmp, 'build'))
		generated = os.path.join(self.tmp, 'build', 'include', 'generated')
		os.makedirs(generated)
		with open(os.path.join(generated, 'utsversion.h'), 'w', encoding='utf-8') as f:
			f.write('#define UTS_VERSION "#90 SMP Thu Dec  3 12:39:14 UTC 2026"\n')

	def console(self, version):
		path = os.path.join(self.tmp, 'console')
		with open(path, 'w', encoding='utf-8') as f:
			f.write(LINE.format(version))
		return path

	def test_the_kernel_just_built(self):
		self.kunit._check_booted(self.console('#90 SMP Thu Dec  3 12:39:14 UTC 2026'))

	def test_an_older_image_fails(self):
		with self.assertRaisesRegex(WqKunitError, 'QEMU booted another kernel.*#66 SMP'):
			self.kunit._check_booted(self.console('#66 SMP Thu Dec  3 12:27:25 UTC 2026'))

	def test_no_version_line_is_left_to_the_results(self):
		path = os.path.join(self.tmp, 'empty')
		open(path, 'w', encoding='utf-8').close()
		self.kunit._check_booted(path)


def _alive(pid: int) -> bool:
	"""@pid exists and is not a zombie."""
	try:
		with open(f'/proc/{pid}/stat', encoding='utf-8') as f:
			return f.read().rsplit(')', 1)[1].split()[0] != 'Z'
	except OSError:
		return False


def _interrupt(_signum, _frame):
	raise KeyboardInterrupt


class InterruptedRunTest(TempDirTest):
	"""kunit.py interrupted half-way must not leave make or QEMU behind,
	still writing into a build directory that the next run will use."""

	def interrupt_after(self, seconds):
		"""KeyboardInterrupt in @seconds, as Ctrl-C or SIGTERM gives."""
		old = signal.signal(signal.SIGALRM, _interrupt)
		self.addCleanup(signal.signal, signal.SIGALRM, old)
		signal.setitimer(signal.ITIMER_REAL, seconds)

	def test_the_whole_tree_ends(self):
		pidfile = os.path.join(self.tmp, 'grandchild')
		# A shell standing for kunit.py, its child for make.
		script = f'sleep 60 & echo $! > {pidfile}; wait'
		self.interrupt_after(0.5)
		start = time.monotonic()
		with self.assertRaises(KeyboardInterrupt):
			kunit_runner.run_tree(['sh', '-c', script])
		self.assertLess(time.monotonic() - start, kunit_runner.GRACE)
		with open(pidfile, encoding='utf-8') as f:
			self.assertFalse(_alive(int(f.read())))

	def test_a_child_ignoring_sigterm_is_killed(self):
		pidfile = os.path.join(self.tmp, 'grandchild')
		script = f'trap "" TERM; sleep 60 & echo $! > {pidfile}; wait'
		with mock.patch.object(kunit_runner, 'GRACE', 0.5):
			self.interrupt_after(0.3)
			with self.assertRaises(KeyboardInterrupt):
				kunit_runner.run_tree(['sh', '-c', script])
		with open(pidfile, encoding='utf-8') as f:
			self.assertFalse(_alive(int(f.read())))

	def test_exit_status_is_returned(self):
		self.assertEqual(kunit_runner.run_tree(['sh', '-c', 'exit 3']), 3)
