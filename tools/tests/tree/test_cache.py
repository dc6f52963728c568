# SPDX-License-Identifier: GPL-2.0
"""The cache of unpacked trees: recovery from interruptions, read-only or
full filesystems.  A fake linux-source tarball stands in for Debian's."""

import errno
import io
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
from contextlib import redirect_stderr
from unittest import mock

from tests.util import DATA, TempDirTest, copy_tree, pack
from wqkunit.base.errors import WqKunitError
from wqkunit.build import runner
from wqkunit.cli import main
from wqkunit.tree import kernel_trees, series


TOOLS = os.path.dirname(os.path.dirname(DATA))


def quiet(_msg):
	pass


class CacheTreeTest(TempDirTest):
	@classmethod
	def setUpClass(cls):
		"""The fake tarball, and the cache a first cache_tree() of it
		makes, which the tests that start from a cached tree copy."""
		cls.shared = tempfile.mkdtemp(prefix='wq-kunit-test-')
		cls.tarball = os.path.join(cls.shared, 'linux-source-6.1.tar.xz')
		with tarfile.open(cls.tarball, 'w:xz') as tar:
			tar.add(os.path.join(DATA, 'fake-tree'), arcname='linux-source-6.1')
		cls.first = os.path.join(cls.shared, 'cache')
		with mock.patch('wqkunit.configs.kernel_versions.tarball', return_value=cls.tarball), \
		     mock.patch.dict(os.environ, {'WQ_KUNIT_CACHE': cls.first}):
			pack(kernel_trees.cache_tree('6.1', quiet))

	@classmethod
	def tearDownClass(cls):
		shutil.rmtree(cls.shared, ignore_errors=True)

	def setUp(self):
		super().setUp()
		self.cache = os.path.join(self.tmp, 'cache')
		patches = [mock.patch('wqkunit.configs.kernel_versions.tarball', return_value=self.tarball),
			   mock.patch.dict(os.environ, {'WQ_KUNIT_CACHE': self.cache})]
		for p in patches:
			p.start()
			self.addCleanup(p.stop)
		self.tree = os.path.join(self.cache, 'src', 'linux-6.1')

	def cached(self):
		"""The tree a first source.cache_tree() leaves in the cache (as
		test_unpack_imports_and_applies_the_series checks it): a copy."""
		os.makedirs(self.cache)
		copy_tree(os.path.join(self.first, 'src'), os.path.join(self.cache, 'src'))

	def git(self, *args):
		return subprocess.run(['git'] + list(args), cwd=self.tree, capture_output=True,
				      text=True, check=True).stdout

	def test_unpack_imports_and_applies_the_series(self):
		self.assertEqual(kernel_trees.cache_tree('6.1', quiet), self.tree)
		self.assertTrue(series.present(self.tree))
		self.assertEqual(self.git('status', '--porcelain'), '')
		self.assertEqual(len(self.git('log', '--oneline').splitlines()),
				 1 + len(series.carried("6.1")))

	def test_second_run_reuses_the_tree(self):
		self.cached()
		head = self.git('rev-parse', 'HEAD')
		said = []
		kernel_trees.cache_tree('6.1', said.append)
		self.assertEqual(self.git('rev-parse', 'HEAD'), head)
		self.assertEqual(said, [])

	def test_an_upgraded_package_is_unpacked_again(self):
		"""The tree records the linux-source it came from; when the package
		changes (a security update), the next run says so, unpacks the new
		one and applies the series to it."""
		self.cached()
		with open(os.path.join(self.tree, '.git', kernel_trees.SOURCE), 'w', encoding='utf-8') as f:
			f.write('6.1.100-1')
		old = os.path.join(self.tree, '.git', 'the-old-unpack')
		open(old, 'w').close()
		said = []
		with mock.patch('wqkunit.tree.kernel_trees.installed', return_value='6.1.200-1'):
			kernel_trees.cache_tree('6.1', said.append)
			self.assertIn('linux-source-6.1 changed since the cache was unpacked (6.1.100-1, '
				      'now 6.1.200-1): unpacking it again', said[0])
			self.assertTrue(series.present(self.tree))
			with open(os.path.join(self.tree, '.git', kernel_trees.SOURCE), encoding='utf-8') as f:
				self.assertEqual(f.read(), '6.1.200-1')
			self.assertFalse(os.path.exists(old))
			said.clear()
			kernel_trees.cache_tree('6.1', said.append)
			self.assertEqual(said, [])

	def test_a_tree_cached_before_the_record_is_taken_for_its_version(self):
		"""A tree unpacked before the tools recorded the package: the
		installed package if the Makefile has its upstream version, else
		unpacked again."""
		self.cached()
		os.remove(os.path.join(self.tree, '.git', kernel_trees.SOURCE))
		level = kernel_trees.tree_version(self.tree, sublevel=True)
		for package, again in ((f'{level}-3', False), ('6.1.999-1', True)):
			said = []
			with mock.patch('wqkunit.tree.kernel_trees.installed', return_value=package):
				kernel_trees.cache_tree('6.1', said.append)
			self.assertEqual(any('unpacking it again' in l for l in said), again, said)

	def test_interrupted_unpack_is_thrown_away(self):
		# An unpack killed half-way leaves a .tmp directory, and maybe a
		# destination without the base tag.
		os.makedirs(self.tree + '.tmp/kernel')
		os.makedirs(self.tree + '/kernel')
		kernel_trees.cache_tree('6.1', quiet)
		self.assertFalse(os.path.exists(self.tree + '.tmp'))
		self.assertTrue(series.present(self.tree))

	def test_interrupted_git_am_is_recovered(self):
		self.cached()
		os.remove(os.path.join(self.tree, '.git', 'wq-kunit-series'))
		self.git('reset', '-q', '--hard', kernel_trees.BASE_TAG)
		subprocess.run(['git', '-c', 'user.name=x', '-c', 'user.email=x@x', 'am',
				os.path.join(DATA, 'nonsense.patch')], cwd=self.tree,
			       capture_output=True, check=False)
		self.assertTrue(os.path.isdir(os.path.join(self.tree, '.git', 'rebase-apply')))
		kernel_trees.cache_tree('6.1', quiet)
		self.assertTrue(series.present(self.tree))
		self.assertEqual(self.git('status', '--porcelain'), '')

	def test_run_killed_with_the_broken_case_appended_is_undone(self):
		# SIGKILL inside source.appended(), as during the debug build:
		# no finally runs, and the test file keeps the broken case.
		self.cached()
		test_file = os.path.join(self.tree, series.TEST_FILE)
		with open(test_file, encoding='utf-8') as f:
			original = f.read()
		extra = self.write('static void broken(void) {}\n', 'broken.c')
		built = os.path.join(self.tmp, 'build', 'kernel', 'workqueue.o')
		child = subprocess.run(
			[sys.executable, '-c',
			 'import os, signal, sys\n'
			 'from wqkunit.tree import kernel_trees\n'
			 'with kernel_trees.appended(*sys.argv[1:]):\n'
			 '    os.kill(os.getpid(), signal.SIGKILL)\n',
			 self.tree, series.TEST_FILE, extra, built],
			cwd=TOOLS, check=False)
		self.assertEqual(child.returncode, -signal.SIGKILL)
		with open(test_file, encoding='utf-8') as f:
			self.assertTrue(f.read().endswith('static void broken(void) {}\n'))
		said = []
		kernel_trees.cache_tree('6.1', said.append)
		with open(test_file, encoding='utf-8') as f:
			self.assertEqual(f.read(), original)
		self.assertEqual(self.git('status', '--porcelain'), '')
		self.assertIn(series.TEST_FILE, said[0])

	def test_mutant_left_by_a_killed_run_is_undone(self):
		self.cached()
		with open(os.path.join(self.tree, 'kernel', 'workqueue.c'), 'a',
			  encoding='utf-8') as f:
			f.write('/* a mutant */\n')
		kernel_trees.cache_tree('6.1', quiet)
		self.assertEqual(self.git('status', '--porcelain'), '')

	def test_changed_series_is_reapplied_from_the_pristine_tree(self):
		self.cached()
		with open(os.path.join(self.tree, '.git', 'wq-kunit-series'), 'w',
			  encoding='utf-8') as f:
			f.write('an older series\n')
		with open(os.path.join(self.tree, 'kernel', 'workqueue.c'), 'a',
			  encoding='utf-8') as f:
			f.write('/* left over from a mutant */\n')
		kernel_trees.cache_tree('6.1', quiet)
		self.assertEqual(self.git('status', '--porcelain'), '')
		self.assertEqual(len(self.git('log', '--oneline').splitlines()),
				 1 + len(series.carried("6.1")))

	def test_series_that_does_not_apply_is_named(self):
		with open(os.path.join(self.tmp, 'Kconfig.debug'), 'w', encoding='utf-8') as f:
			f.write('nothing the series expects\n')
		broken = os.path.join(self.tmp, 'broken.tar.xz')
		with tarfile.open(broken, 'w:xz') as tar:
			tar.add(os.path.join(DATA, 'fake-tree'), arcname='linux-source-6.1',
				filter=lambda i: None if i.name.endswith('Kconfig.debug') else i)
			tar.add(os.path.join(self.tmp, 'Kconfig.debug'),
				arcname='linux-source-6.1/lib/Kconfig.debug')
		with mock.patch('wqkunit.configs.kernel_versions.tarball', return_value=broken):
			with self.assertRaisesRegex(WqKunitError, 'does not apply to linux-source-6.1'):
				kernel_trees.cache_tree('6.1', quiet)
		self.assertFalse(os.path.isdir(os.path.join(self.tree, '.git', 'rebase-apply')))


class FilesystemTest(TempDirTest):
	"""A cache on a read-only or full filesystem: one line, exit 1."""

	def run_with(self, error):
		err = io.StringIO()
		with mock.patch.dict(os.environ, {'WQ_KUNIT_CACHE': os.path.join(self.tmp, 'c')}), \
		     mock.patch('wqkunit.base.debian_packages.ensure'), \
		     mock.patch('os.makedirs', side_effect=error), redirect_stderr(err):
			rc = main.main(['run', '--kernel', '6.1'])
		self.assertEqual(rc, 1)
		self.assertEqual(err.getvalue().count('\n'), 1, err.getvalue())
		return err.getvalue()

	def test_read_only_cache(self):
		out = self.run_with(OSError(errno.EROFS, 'Read-only file system', '/ro/cache'))
		self.assertIn('/ro/cache: Read-only file system', out)

	def test_full_cache(self):
		out = self.run_with(OSError(errno.ENOSPC, 'No space left on device', '/full'))
		self.assertIn('No space left on device', out)


class BuildLogTest(TempDirTest):
	def test_a_build_on_a_fresh_cache_makes_its_log_directory(self):
		"""faults, the first command on an empty cache, builds with
		runner.build_once() into logs/VERSION/, which nothing made yet."""
		written = []

		class Built:
			build_dir, skipped = os.path.join(self.tmp, 'build'), False

			def build(self, jobs, log, kconfig):
				with open(log, 'w', encoding='utf-8') as f:
					f.write('built\n')
				written.append(log)
				return 1.0

		logs = os.path.join(self.tmp, 'cache', 'logs', '6.12')
		with mock.patch.dict(os.environ, {'WQ_KUNIT_CACHE': os.path.join(self.tmp, 'cache')}):
			secs, error = runner.build_once(Built(), runner.BuildRequest('6.12'), (), logs,
							lambda _m: None)
		self.assertEqual((secs, error, written), (1.0, None, [os.path.join(logs, 'build.log')]))
