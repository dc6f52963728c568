# SPDX-License-Identifier: GPL-2.0
"""The command line through tools/wq-kunit itself: its refusals, --help."""

import io
import os
import subprocess
import sys
from contextlib import redirect_stderr

from tests.util import TempDirTest
from wqkunit.base import repo_paths
from wqkunit.cli import main

WQ_KUNIT = os.path.join(repo_paths.TOOLS_DIR, 'wq-kunit')


class CommandLineTest(TempDirTest):
	"""Through tools/wq-kunit itself, a refusal of argparse's and one of
	ours: exit non-zero, one line on stderr, no cache created.  The
	others are test_command_line.py's, in the tests' process."""

	def refuse(self, argv, pattern):
		cache = os.path.join(self.tmp, 'cache')
		proc = subprocess.run([sys.executable, WQ_KUNIT] + argv,
				      env=dict(os.environ, WQ_KUNIT_CACHE=cache),
				      capture_output=True, text=True, check=False)
		self.assertNotEqual(proc.returncode, 0)
		# The reason is the last line, and the only one but argparse's usage.
		lines = [l for l in proc.stderr.strip().splitlines() if not l.startswith(('usage:', ' '))]
		self.assertEqual(len(lines), 1, proc.stderr)
		self.assertRegex(lines[0], r'^wq-kunit( \w+)?: error: ')
		self.assertRegex(lines[0], pattern)
		self.assertFalse(os.path.exists(cache), 'a refused run created the cache')
		return proc

	def test_tree_that_is_not_a_kernel_tree(self):
		self.refuse(['run', '--tree', self.tmp], 'is not a kernel tree')

	def test_unknown_subcommand(self):
		self.refuse(['frobnicate'], "invalid choice: 'frobnicate'")

	def test_help(self):
		"""Every command's: test_command_line.py's."""
		proc = subprocess.run([sys.executable, WQ_KUNIT, '--help'],
				      capture_output=True, text=True, check=False)
		self.assertEqual(proc.returncode, 0)
		self.assertIn('usage: wq-kunit', proc.stdout)

	def test_error_is_reported_in_one_line(self):
		err = io.StringIO()
		with redirect_stderr(err):
			rc = main.main(['run', '--kernel', '9.9'])
		self.assertEqual(rc, 2)
		self.assertEqual(err.getvalue().count('\n'), 1)
