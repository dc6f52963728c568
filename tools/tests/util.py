# SPDX-License-Identifier: GPL-2.0
"""Helpers for the tools' tests: temporary directories and fake trees."""

import hashlib
import os
import shutil
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
	at its top that @command writes what is between them."""
	with open(page, encoding='utf-8') as f:
		text = f.read()
	test.assertIn(begin, text, page)
	test.assertIn(end, text, page)
	test.assertLess(text.index(begin), text.index(end), page)
	top = ' '.join(text.split('\n\n', 2)[1].split())
	test.assertIn('Generated', top, page)
	test.assertIn(f'`{command}`', top, page)


def fake_kernel_tree(dest: str) -> str:
	"""A tree with just enough of a kernel for the series' context lines."""
	shutil.copytree(os.path.join(DATA, 'fake-tree'), dest)
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
