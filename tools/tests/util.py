# SPDX-License-Identifier: GPL-2.0
"""Helpers for the tools' tests: temporary directories and fake trees."""

import hashlib
import os
import shutil
import subprocess
import tempfile
import unittest

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data')


class TempDirTest(unittest.TestCase):
	def setUp(self) -> None:
		self.tmp = tempfile.mkdtemp(prefix='wq-kunit-test-')
		self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)

	def write(self, text: str, name: str = 'boots.ini') -> str:
		"""@text as the file @name in the temporary directory; its path."""
		path = os.path.join(self.tmp, name)
		with open(path, 'w', encoding='utf-8') as f:
			f.write(text)
		return path


def check_generated_page(test: unittest.TestCase, page: str, begin: str, end: str,
			 command: str) -> None:
	"""@page holds the markers @begin ... @end, in that order, and says
	at its top that @command writes what is between them; the README
	holds no such table any more."""
	with open(os.path.join(os.path.dirname(page), '..', 'README.md'), encoding='utf-8') as f:
		test.assertNotIn(begin.split(' (')[0], f.read(), f'README.md has the table of {page}')
	with open(page, encoding='utf-8') as f:
		text = f.read()
	test.assertIn(begin, text, page)
	test.assertIn(end, text, page)
	test.assertLess(text.index(begin), text.index(end), page)
	top = ' '.join(text.split('\n\n', 2)[1].split())
	test.assertIn('Generated', top, page)
	test.assertIn(f'`{command}`', top, page)


def copy_tree(src: str, dest: str) -> None:
	"""@src copied to @dest, a new directory, as it is (times, links):
	cp -a does it in a fifth of shutil.copytree()'s time."""
	subprocess.run(['cp', '-a', src, dest], check=True)


def pack(tree: str) -> str:
	"""@tree, a git work tree, with its objects in one pack rather than
	loose (as kernel_trees.py stores them): a copy_tree() of the fake tree
	cached then makes some 70 files and directories, not 170; its path."""
	for cmd in (['repack', '-a', '-d', '-q'], ['prune-packed']):
		subprocess.run(['git'] + cmd, cwd=tree, check=True)
	return tree


def fake_kernel_tree(dest: str) -> str:
	"""A tree with just enough of a kernel for the series' context lines."""
	copy_tree(os.path.join(DATA, 'fake-tree'), dest)
	return dest


def snapshot(tree: str) -> dict:
	"""Every file under @tree with a hash of its contents."""
	files = {}
	for root, _, names in os.walk(tree):
		for name in names:
			path = os.path.join(root, name)
			with open(path, 'rb') as f:
				files[os.path.relpath(path, tree)] = hashlib.sha256(f.read()).hexdigest()
	return files


def has_matplotlib() -> bool:
	"""Whether Debian's Python, which draws the report's figures, has
	python3-matplotlib (the gate installs it)."""
	from wqkunit.base import debian_python
	return debian_python.has('matplotlib')
