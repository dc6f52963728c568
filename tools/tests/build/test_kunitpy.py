# SPDX-License-Identifier: GPL-2.0
"""A boot must run the kernel just built, not an older image; an
interrupted build or boot ends with everything it started."""

import os
import shutil
import subprocess
import sys
import threading
import time
from unittest import mock

from tests.util import TempDirTest
from wqkunit.base import process_tree, repo_paths
from wqkunit.base.errors import WqKunitError
from wqkunit.build import build_progress, kunitpy, runner
from wqkunit.build.kunitpy import Kunit
from wqkunit.configs import arches

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
		self.assertIsNone(self.kunit.stale(self.console('#90 SMP Thu Dec  3 12:39:14 UTC 2026')))

	def test_an_older_image_fails(self):
		self.assertRegex(self.kunit.stale(self.console('#66 SMP Thu Dec  3 12:27:25 UTC 2026')),
				 'QEMU booted another kernel.*#66 SMP')

	def test_no_version_line_fails_closed(self):
		path = os.path.join(self.tmp, 'empty')
		open(path, 'w', encoding='utf-8').close()
		self.assertRegex(self.kunit.stale(path), 'no "Linux version" line')

	def test_a_build_without_uts_version_fails_closed(self):
		os.remove(os.path.join(self.tmp, 'build', 'include', 'generated', 'utsversion.h'))
		self.assertRegex(self.kunit.stale(self.console('#90 SMP')), 'no UTS_VERSION')


def _alive(pid: int) -> bool:
	"""@pid exists and is not a zombie."""
	try:
		with open(f'/proc/{pid}/stat', encoding='utf-8') as f:
			return f.read().rsplit(')', 1)[1].split()[0] != 'Z'
	except OSError:
		return False


class InterruptedRunTest(TempDirTest):
	"""kunit.py interrupted half-way must not leave make or QEMU behind,
	still writing into a build directory that the next run will use."""

	def setUp(self):
		super().setUp()
		# Not the seconds an init slow to reap the sleeps' zombies takes.
		for name, secs in (('GRACE', 0.2), ('DYING', 0.1)):
			patch = mock.patch.object(process_tree, name, secs)
			patch.start()
			self.addCleanup(patch.stop)

	@staticmethod
	def interrupt_on(word):
		"""An on_line that interrupts, as Ctrl-C or SIGTERM does, once the
		command printed @word: only after it started what it must end."""
		def on_line(line):
			if line.strip() == word:
				raise KeyboardInterrupt
		return on_line

	def test_the_whole_tree_ends(self):
		pidfile = os.path.join(self.tmp, 'grandchild')
		# A shell standing for kunit.py, its child for make.
		script = f'sleep 60 & echo $! > {pidfile}; echo started; wait'
		with self.assertRaises(KeyboardInterrupt):
			process_tree.run_tree(['sh', '-c', script], self.interrupt_on('started'))
		with open(pidfile, encoding='utf-8') as f:
			self.assertFalse(_alive(int(f.read())))

	def test_a_child_ignoring_sigterm_is_killed(self):
		pidfile = os.path.join(self.tmp, 'grandchild')
		script = f'trap "" TERM; sleep 60 & echo $! > {pidfile}; echo started; wait'
		with self.assertRaises(KeyboardInterrupt):
			process_tree.run_tree(['sh', '-c', script], self.interrupt_on('started'))
		with open(pidfile, encoding='utf-8') as f:
			self.assertFalse(_alive(int(f.read())))

	def test_the_child_leads_a_group_of_its_own_reading_nothing(self):
		"""Its group is what an interruption ends; a terminal's Ctrl-C
		reaches us alone, and nothing of the group stops on reading it."""
		lines = []
		process_tree.run_tree([sys.executable, '-c', 'import os, sys; '
				'print(os.getpgid(0) == os.getpid() != os.getpgid(os.getppid()), '
				'repr(sys.stdin.read()))'], lines.append)
		self.assertEqual(lines, ["True ''\n"])

	def test_exit_status_is_returned(self):
		self.assertEqual(process_tree.run_tree(['sh', '-c', 'exit 3']), 3)

	def test_end_all_reaches_children_of_other_threads(self):
		# Boots run in threads; a signal reaches the main thread only.
		pidfile = os.path.join(self.tmp, 'grandchild')
		script = f'sleep 60 & echo $! > {pidfile}; wait'
		status = []
		thread = threading.Thread(target=lambda: status.append(
			process_tree.run_tree(['sh', '-c', script])))
		thread.start()
		deadline = time.monotonic() + 10
		while not (process_tree._RUNNING and os.path.exists(pidfile)) and \
		      time.monotonic() < deadline:
			time.sleep(0.05)
		process_tree.end_all()
		thread.join(15)
		self.assertFalse(thread.is_alive())
		self.assertNotEqual(status, [0])
		self.assertEqual(process_tree._RUNNING, set())
		with open(pidfile, encoding='utf-8') as f:
			self.assertFalse(_alive(int(f.read())))


class EnvironmentTest(TempDirTest):
	def test_relative_cache_reaches_kunit_py_absolute(self):
		"""kunit.py changes to the tree's directory before it loads
		kunit/qemu_arm_smp.py, which keeps the device tree in the cache."""
		kunit = Kunit(self.tmp, os.path.join(self.tmp, 'build'))
		console = os.path.join(self.tmp, 'console')
		with mock.patch.dict(os.environ, {'WQ_KUNIT_CACHE': 'rel'}), \
		     mock.patch.object(kunitpy, 'run_tree', return_value=0) as run:
			kunit.build(1, os.path.join(self.tmp, 'log'))
			kunit.boot([], [], 1, console)
		for call in run.call_args_list:
			self.assertEqual(call.kwargs['env']['WQ_KUNIT_CACHE'], os.path.abspath('rel'))
		self.assertEqual(len(run.call_args_list), 2)


class ProgressTest(TempDirTest):
	"""A build shows the objects it compiled so far, of those the last
	cold one compiled (its record), which it replaces if it built."""

	def setUp(self):
		super().setUp()
		self.record = self.write('3\n', 'build.objects')
		patch = mock.patch.object(build_progress, 'PERIOD', 0.01)
		patch.start()
		self.addCleanup(patch.stop)

	def build(self, fail=False):
		"""What the build of two objects said first; it fails if @fail."""
		later = time.time() + 60
		for name in ('a.o', 'b.o', 'b.c'):
			os.utime(self.write('', name), (later, later))
		said = []
		with build_progress.shown('building x', self.tmp, said.append, tty=False,
				    record=self.record):
			while not said:
				time.sleep(0.01)
			if fail:
				raise WqKunitError('the kernel did not build')
		return said[0]

	def test_the_count_of_the_last_cold_build(self):
		self.assertRegex(self.build(), r'^building x: 2 of 3 objects compiled, \d+ s$')
		with open(self.record, encoding='utf-8') as f:
			self.assertEqual(f.read(), '2\n')

	def test_a_build_that_failed_is_not_recorded(self):
		with self.assertRaises(WqKunitError):
			self.build(fail=True)
		with open(self.record, encoding='utf-8') as f:
			self.assertEqual(f.read(), '3\n')


class ArchTest(TempDirTest):
	"""Each architecture through kunit.py's own --arch, with what it needs."""

	def test_arm_is_the_big_little_board(self):
		common = Kunit(self.tmp, 'b').common
		self.assertEqual(common[:2], ['--arch=arm', '--cross_compile=arm-linux-gnueabihf-'])
		self.assertIn(f'--qemu_config={repo_paths.QEMU_CONFIG}', common)
		self.assertIn(f'--kunitconfig={repo_paths.KUNITCONFIG}', common)

	def test_um_has_no_cross_compiler_and_no_qemu(self):
		common = Kunit(self.tmp, 'b', arch=arches.get('um')).common
		self.assertEqual(common[0], '--arch=um')
		self.assertFalse([a for a in common if a.startswith(('--cross', '--qemu'))])
		self.assertIn(f'--kunitconfig={arches.get("um").kunitconfigs[0]}', common)

	def test_other_arches_build_apart(self):
		self.assertEqual(runner.BuildRequest('6.12', arch='arm64').label, '6.12-arm64')
		self.assertEqual(runner.BuildRequest('6.12').label, '6.12')

	def test_one_lock_per_source_tree(self):
		"""Every architecture and the debug build read the same tree, which
		a mutant changes while it is built: one lock for all of them."""
		locks = {runner.BuildRequest('6.12', arch=a, debug=d).lock_path
			 for a in arches.ARCHES for d in (False, True)}
		self.assertEqual(len(locks), 1)
		self.assertNotIn(runner.BuildRequest('6.1').lock_path, locks)
		mine = runner.BuildRequest('6.12', tree=self.tmp)
		self.assertEqual(mine.lock_path, runner.BuildRequest('6.12', tree=self.tmp,
								     arch='arm64').lock_path)
		self.assertNotIn(mine.lock_path, locks)

	def test_unknown_arch_is_refused(self):
		with self.assertRaisesRegex(WqKunitError, "unknown architecture 'riscv'"):
			arches.get('riscv')


class BuildInputsTest(TempDirTest):
	"""A build is skipped only when everything it reads is as it was."""

	def setUp(self):
		super().setUp()
		self.tree = os.path.join(self.tmp, 'tree')
		os.makedirs(self.tree)
		self.config = self.write('CONFIG_KUNIT=y\n')
		self.file('Makefile', 'all:\n')
		for cmd in (['init', '-q'], ['add', '-A'],
			    ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'x']):
			subprocess.run(['git'] + cmd, cwd=self.tree, check=True, capture_output=True)

	def file(self, name, text):
		with open(os.path.join(self.tree, name), 'w', encoding='utf-8') as f:
			f.write(text)

	def kunit(self, reuse=True):
		return Kunit(self.tree, os.path.join(self.tmp, 'build'), qemu_config=None,
			     kunitconfigs=[self.config], reuse=reuse)

	def test_the_same_inputs_give_the_same_digest(self):
		self.assertEqual(self.kunit().inputs([]), self.kunit().inputs(['--jobs=9']))

	def test_where_the_checkout_is_does_not_count(self):
		"""A second clone of the project (CI's) finds the first one's
		builds: its kunitconfig's path differs, not what it holds."""
		digests = []
		for clone in ('a', 'b'):
			repo = os.path.join(self.tmp, clone)
			os.makedirs(repo)
			config = os.path.join(repo, 'kunitconfig')
			shutil.copyfile(self.config, config)
			with mock.patch.object(repo_paths, 'REPO', repo):
				digests.append(Kunit(self.tree, os.path.join(self.tmp, 'build'),
						     qemu_config=None, kunitconfigs=[config],
						     reuse=True).inputs([]))
		self.assertIsNotNone(digests[0])
		self.assertEqual(digests[0], digests[1])

	def test_each_input_counts(self):
		first = self.kunit().inputs([])
		self.assertNotEqual(self.kunit().inputs(['--kconfig_add=CONFIG_X=y']), first)
		self.file('Makefile', 'all: x\n')
		changed = self.kunit().inputs([])
		self.assertNotEqual(changed, first)
		self.file('new.c', '')
		self.assertNotEqual(self.kunit().inputs([]), changed)
		with open(self.config, 'a', encoding='utf-8') as f:
			f.write('CONFIG_X=y\n')
		self.assertNotEqual(self.kunit().inputs([]), changed)

	def test_no_digest_unless_the_tree_is_ours_and_in_git(self):
		self.assertIsNone(self.kunit(reuse=False).inputs([]))
		shutil.rmtree(os.path.join(self.tree, '.git'))
		self.assertIsNone(self.kunit().inputs([]))
