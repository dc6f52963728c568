# SPDX-License-Identifier: GPL-2.0
"""User kernel trees: validated, series applied all or nothing, nothing lost."""

import os
import subprocess

from tests.util import TempDirTest, fake_kernel_tree, snapshot
from wqkunit.base.errors import WqKunitError
from wqkunit.tree import kernel_trees, series


def quiet(_msg: str) -> None:
	pass


class CheckTreeTest(TempDirTest):
	def test_missing_directory(self):
		with self.assertRaisesRegex(WqKunitError, 'is not a directory'):
			kernel_trees.check_tree(os.path.join(self.tmp, 'nope'))

	def test_directory_that_is_not_a_kernel_tree(self):
		with self.assertRaisesRegex(WqKunitError, r'is not a kernel tree \(no Makefile\)'):
			kernel_trees.check_tree(self.tmp)

	def test_fake_tree_passes_and_reports_its_version(self):
		tree = fake_kernel_tree(os.path.join(self.tmp, 'linux'))
		self.assertEqual(kernel_trees.check_tree(tree), tree)
		self.assertEqual(kernel_trees.tree_version(tree), '6.1')


class UserTreeTest(TempDirTest):
	def setUp(self):
		super().setUp()
		self.tree = fake_kernel_tree(os.path.join(self.tmp, 'linux'))

	def test_series_is_applied_to_the_working_tree(self):
		kernel_trees.user_tree(self.tree, quiet)
		self.assertTrue(series.present(self.tree))

	def test_local_edits_are_kept(self):
		path = os.path.join(self.tree, 'kernel', 'workqueue.c')
		with open(path, 'a', encoding='utf-8') as f:
			f.write('/* a local edit under test */\n')
		kernel_trees.user_tree(self.tree, quiet)
		with open(path, encoding='utf-8') as f:
			text = f.read()
		self.assertIn('/* a local edit under test */', text)
		self.assertIn(series.INCLUDE, text)

	def test_second_run_leaves_an_applied_tree_alone(self):
		kernel_trees.user_tree(self.tree, quiet)
		before = snapshot(self.tree)
		kernel_trees.user_tree(self.tree, quiet)
		self.assertEqual(snapshot(self.tree), before)

	def test_series_that_does_not_apply_changes_nothing(self):
		# Break the context of the last hunk only: the first ones would apply.
		path = os.path.join(self.tree, 'lib', 'Kconfig.debug')
		with open(path, encoding='utf-8') as f:
			text = f.read()
		with open(path, 'w', encoding='utf-8') as f:
			f.write(text.replace('config CPU_HOTPLUG_STATE_CONTROL', 'config SOMETHING_ELSE'))
		before = snapshot(self.tree)
		with self.assertRaisesRegex(WqKunitError, 'the series does not apply to'):
			kernel_trees.user_tree(self.tree, quiet)
		self.assertEqual(snapshot(self.tree), before)

	def test_tree_inside_another_git_repository(self):
		# git apply skips every path of a subdirectory of a repository.
		subprocess.run(['git', 'init', '-q', self.tmp], check=True)
		kernel_trees.user_tree(self.tree, quiet)
		self.assertTrue(series.present(self.tree))

	def test_tree_that_is_a_git_repository_gets_no_commit(self):
		subprocess.run(['git', 'init', '-q', self.tree], check=True)
		kernel_trees.user_tree(self.tree, quiet)
		log = subprocess.run(['git', 'log', '--oneline'], cwd=self.tree,
				     capture_output=True, text=True, check=False)
		self.assertEqual(log.stdout, '')
		self.assertTrue(series.present(self.tree))


class AppendedTest(TempDirTest):
	"""The broken case goes into one build directory and no other."""

	def setUp(self):
		super().setUp()
		self.tree = os.path.join(self.tmp, 'tree')
		os.makedirs(os.path.join(self.tree, 'kernel'))
		self.file = os.path.join(self.tree, 'kernel', 'test.c')
		with open(self.file, 'w', encoding='utf-8') as f:
			f.write('int a;\n')
		os.utime(self.file, ns=(1000000000, 1000000000))
		self.extra = os.path.join(self.tmp, 'extra.c')
		with open(self.extra, 'w', encoding='utf-8') as f:
			f.write('int broken;\n')
		self.built = os.path.join(self.tmp, 'build', 'test.o')
		os.makedirs(os.path.dirname(self.built))
		self.object()

	def object(self):
		with open(self.built, 'w', encoding='utf-8') as f:
			f.write('object')

	def read(self):
		with open(self.file, encoding='utf-8') as f:
			return f.read()

	def test_appended_inside_restored_after_mtime_kept(self):
		with kernel_trees.appended(self.tree, 'kernel/test.c', self.extra, self.built):
			self.assertEqual(self.read(), 'int a;\nint broken;\n')
			self.assertEqual(os.stat(self.file).st_mtime_ns, 1000000000)
		self.assertEqual(self.read(), 'int a;\n')
		self.assertEqual(os.stat(self.file).st_mtime_ns, 1000000000)

	def test_restored_on_error(self):
		with self.assertRaises(RuntimeError):
			with kernel_trees.appended(self.tree, 'kernel/test.c', self.extra, self.built):
				raise RuntimeError('build failed')
		self.assertEqual(self.read(), 'int a;\n')

	def test_object_is_rebuilt_only_when_the_addition_changes(self):
		with kernel_trees.appended(self.tree, 'kernel/test.c', self.extra, self.built):
			self.assertFalse(os.path.exists(self.built))
			self.object()
		with kernel_trees.appended(self.tree, 'kernel/test.c', self.extra, self.built):
			self.assertTrue(os.path.exists(self.built))
		with open(self.extra, 'a', encoding='utf-8') as f:
			f.write('int more;\n')
		with kernel_trees.appended(self.tree, 'kernel/test.c', self.extra, self.built):
			self.assertFalse(os.path.exists(self.built))
			self.object()
		with kernel_trees.appended(self.tree, 'kernel/test.c', None, self.built):
			self.assertFalse(os.path.exists(self.built))
			self.object()
		with kernel_trees.appended(self.tree, 'kernel/test.c', None, self.built):
			self.assertTrue(os.path.exists(self.built))

	def test_first_build_creates_the_stamp_directory(self):
		built = os.path.join(self.tmp, 'fresh-build', 'kernel', 'test.o')
		with kernel_trees.appended(self.tree, 'kernel/test.c', self.extra, built):
			pass
		self.assertTrue(os.path.isdir(os.path.dirname(built)))
