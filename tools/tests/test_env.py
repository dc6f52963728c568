# SPDX-License-Identifier: GPL-2.0
"""Packages, the cache lock, and the command line's refusals."""

import io
import os
import subprocess
import sys
import threading
import time
import unittest
from contextlib import redirect_stderr
from unittest import mock

from tests.util import TempDirTest
from wqkunit.base import debian_packages, file_locks, repo_paths
from wqkunit.base.errors import WqKunitError
from wqkunit.cli import main

WQ_KUNIT = os.path.join(repo_paths.TOOLS_DIR, 'wq-kunit')


class PackagesTest(unittest.TestCase):
	def test_installed_package_is_not_missing(self):
		self.assertEqual(debian_packages.missing(['dpkg']), [])

	def test_unknown_package_is_missing(self):
		self.assertEqual(debian_packages.missing(['wq-kunit-no-such-package']),
				 ['wq-kunit-no-such-package'])

	def test_non_root_is_told_what_to_install(self):
		with mock.patch('os.geteuid', return_value=1000):
			with self.assertRaisesRegex(WqKunitError,
						    'missing Debian packages: wq-kunit-nope .*apt-get install wq-kunit-nope'):
				debian_packages.ensure(['dpkg', 'wq-kunit-nope'], lambda m: None)

	def test_a_package_named_twice_is_missing_once(self):
		self.assertEqual(debian_packages.missing(['wq-kunit-nope', 'dpkg', 'wq-kunit-nope']),
				 ['wq-kunit-nope'])

	def test_nothing_missing_installs_nothing(self):
		with mock.patch('subprocess.run', wraps=subprocess.run) as run:
			debian_packages.ensure(['dpkg'], lambda m: None)
		self.assertNotIn('apt-get', str(run.call_args_list))


class LockTest(TempDirTest):
	def test_second_holder_gives_up_after_waiting(self):
		path = os.path.join(self.tmp, 'locks', 'x.lock')
		said = []
		with file_locks.held(path, said.append):
			with self.assertRaisesRegex(WqKunitError, 'another wq-kunit run holds'):
				with file_locks.held(path, said.append, wait=0.05):
					pass
		self.assertTrue(any('waiting' in s for s in said))

	def test_second_holder_gets_it_once_released(self):
		path = os.path.join(self.tmp, 'x.lock')
		order = []
		holding = threading.Event()

		def first():
			with file_locks.held(path, order.append):
				order.append('first in')
				holding.set()
				time.sleep(0.1)
				order.append('first out')

		thread = threading.Thread(target=first)
		thread.start()
		self.assertTrue(holding.wait(10))
		with file_locks.held(path, order.append, wait=5):
			order.append('second in')
		thread.join()
		self.assertLess(order.index('first out'), order.index('second in'))


class CommandLineTest(TempDirTest):
	"""Through tools/wq-kunit itself, a refusal of argparse's and one of
	ours: exit non-zero, one line on stderr, no cache created.  The
	others are test_inputs.py's, in the tests' process."""

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
		"""Every command's: test_inputs.py's."""
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


class MutantsTest(TempDirTest):
	def test_catalogue_has_twelve_or_more_per_kernel_with_rationale(self):
		from wqkunit.evidence import mutate
		for version in ('6.1', '6.12'):
			mutants = mutate.load(version)
			self.assertGreaterEqual(len(mutants), 12, version)
			for m in mutants:
				self.assertTrue(m.models and m.caught_by, m.name)

	def test_patch_without_header_is_refused(self):
		from wqkunit.evidence import mutate
		os.makedirs(os.path.join(self.tmp, '6.1'))
		with open(os.path.join(self.tmp, '6.1', 'x.patch'), 'w', encoding='utf-8') as f:
			f.write('diff --git a/x b/x\n')
		with self.assertRaisesRegex(WqKunitError, 'no "Mutant:" line'):
			mutate.load('6.1', self.tmp)

	def test_score_counts_killed_and_equivalent(self):
		from wqkunit.evidence import mutate
		m = mutate.Mutant('m', 'p', 'x', 'y', ['default'], None)
		verdicts = [mutate.Verdict(m, o, '', 0.0) for o in ('killed', 'killed', 'equivalent', 'survived')]
		self.assertEqual(mutate.score(verdicts), '2 of 4 mutants killed (2 by the expected case, 0 by another), 1 equivalent, 1 survived')

	def test_corpus_line_counts_undone_fixes_caught_by_a_case(self):
		from wqkunit.evidence import mutate
		ours = mutate.Mutant('ours', 'p', 'x', 'y', ['default'], None)
		self.assertIsNone(mutate.corpus_score([mutate.Verdict(ours, 'killed', '', 0.0)]))
		fix = [mutate.Mutant(f'regress-{n}', 'p', 'x', 'y', ['default'], None, '874bbfe600a6')
		       for n in ('a', 'b', 'c', 'd')]
		verdicts = [mutate.Verdict(ours, 'survived', '', 0.0)] + [
			mutate.Verdict(m, o, '', 0.0)
			for m, o in zip(fix, ('killed', 'killed by another case', 'kernel report only',
					      'equivalent'))]
		self.assertEqual(mutate.corpus_score(verdicts),
				 'regression corpus: 2 of 3 undone upstream fixes caught by a case; '
				 '1 not observable in a guest (regress-d); not caught: regress-c')


class BenchTest(unittest.TestCase):
	def test_guest_times_from_printk_stamps(self):
		from wqkunit.evidence import bench
		console = ('[    0.000000] Booting Linux\n[    1.500000] KTAP version 1\n'
			   '[    1.600000]     ok 1 cpu0\n[    3.250000] ok 5 workqueue_cleanup\n')
		times = bench.guest_times(console)
		self.assertEqual(times['boot to first result'], 1.5)
		self.assertEqual(times['boot to last result'], 3.25)
		self.assertAlmostEqual(times['suite in the guest'], 1.75)

	def test_console_without_stamps_is_an_error(self):
		from wqkunit.evidence import bench
		with self.assertRaisesRegex(WqKunitError, 'no timestamped KTAP'):
			bench.guest_times('KTAP version 1\nok 1 x\n')
