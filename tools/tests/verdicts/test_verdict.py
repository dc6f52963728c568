# SPDX-License-Identifier: GPL-2.0
"""What makes one boot fail, on consoles and JSON recorded from real boots."""

import os
import unittest

from tests.util import DATA, TempDirTest
from wqkunit.build.kunitpy import Kunit
from wqkunit.verdicts import verdict


def read(*parts):
	with open(os.path.join(DATA, *parts), encoding='utf-8') as f:
		return f.read()


class AssessTest(unittest.TestCase):
	def test_clean_complete_boot_passes(self):
		judged = verdict.boot(read('logs', '6.12', 'default.console'),
				     read('logs', '6.12', 'default.json'), True)
		self.assertEqual(judged.counts.failed, 0)
		self.assertEqual(judged.ran, judged.counts.total())
		self.assertFalse(judged.incomplete)

	def test_incomplete_run_fails_though_no_case_did(self):
		judged = verdict.boot(read('logs', '6.1', 'default.console'),
				     read('logs', '6.1', 'default.json'), False)
		self.assertTrue(judged.incomplete)
		self.assertEqual(judged.counts.failures, ['incomplete run (crash or hang)'])

	def test_a_crashed_case_makes_the_run_crashed_not_failed(self):
		"""kunit.py marks a case a crash cut short ERROR: that is no
		failed expectation, whatever else failed."""
		judged = verdict.boot('', read('kunit-failing.json'), False)
		self.assertTrue(judged.incomplete)
		self.assertEqual(judged.kind, verdict.CRASHED)
		self.assertEqual(judged.counts.failed, 2)
		self.assertEqual(len(judged.failed_expectations), 1)

	def test_each_kind_of_verdict(self):
		clean = (read('logs', '6.12', 'default.console'), read('logs', '6.12', 'default.json'))
		self.assertEqual(verdict.boot(*clean, True).kind, verdict.PASSED)
		self.assertEqual(verdict.boot(*clean, True, 'QEMU failed').kind, verdict.BOOT_ERROR)
		self.assertEqual(verdict.boot(clean[0], None, False).kind, verdict.BOOT_ERROR)
		self.assertEqual(verdict.boot(clean[0], clean[1], False).kind, verdict.CRASHED)
		self.assertEqual(verdict.build_failed('gcc: error').kind, verdict.BUILD_ERROR)
		odebug = verdict.boot(read('consoles', 'odebug-reinit-6.12.console'), clean[1], True)
		self.assertEqual(odebug.kind, verdict.KERNEL_REPORT)

	def test_explain_names_the_case_its_lines_and_the_console(self):
		lines = ['# case: EXPECTATION FAILED at kernel/tests/workqueue_kunit.c:12',
			 'Expected cpu == 3, but', '    cpu == 0 (0x0)']
		judged = verdict.boot('', read('kunit-failing.json'), False,
				      diagnostics={'a.b': lines}, console='/x.console')
		judged.counts.statuses = {'a.b': 'FAIL'}
		text = '\n'.join(judged.explain())
		self.assertIn('not ok a.b', text)
		self.assertIn('EXPECTATION FAILED at kernel/tests/workqueue_kunit.c:12', text)
		self.assertIn('console: /x.console', text)

	def test_report_during_the_suite_fails_the_boot_and_names_the_case(self):
		judged = verdict.boot(read('consoles', 'odebug-reinit-6.12.console'), None, True)
		self.assertEqual(judged.ran, 0)
		self.assertEqual(judged.failed_cases, [
			'workqueue_broken.broken_reinit_pending_delayed_work (ODEBUG report)'])

	def test_report_before_the_suite_is_kept_apart(self):
		console = 'WARNING: CPU: 0 PID: 1 at init/main.c:1 x+0x0/0x4\n' + \
			read('logs', '6.12', 'default.console')
		judged = verdict.boot(console, read('logs', '6.12', 'default.json'), True)
		self.assertEqual(judged.counts.failed, 0)
		self.assertEqual([s.kind for s in judged.boot_reports], ['WARNING'])


class CompleteRunTest(TempDirTest):
	"""Whether a run got to its end is read from its console, not from
	kunit.py parse's exit status, which is 1 for a run of skips only."""

	def parse(self, console, status, cut=None):
		"""Kunit.parse() of the recording @console (cut before its line
		@cut), by a kunit.py that writes its JSON and exits @status."""
		recorded = os.path.join(DATA, os.path.splitext(console)[0] + '.json')
		script = os.path.join(self.tmp, 'tools', 'testing', 'kunit', 'kunit.py')
		os.makedirs(os.path.dirname(script))
		with open(script, 'w', encoding='utf-8') as f:
			f.write(f'import shutil, sys\nshutil.copyfile({recorded!r}, '
				f'sys.argv[2].split("=", 1)[1])\nsys.exit({status})\n')
		text = read(console)
		text = text[:text.index(cut)] if cut else text
		path = self.write(text, 'console')
		return (text,) + Kunit(self.tmp, self.tmp).parse(path, os.path.join(self.tmp, 'json'))

	def test_a_report_boot_of_skips_only_passes(self):
		"""6.1's report boots: kunit.py parse exits 1, every result skipped."""
		judged = verdict.boot(*self.parse('consoles/report-all-skipped-6.1.console', 1))
		self.assertEqual(judged.kind, verdict.PASSED)
		self.assertEqual(judged.counts.line(), '0 passed, 0 failed, 1 skipped')

	def test_a_run_stopped_before_its_last_result_is_incomplete(self):
		"""Cut before "ok 1 workqueue_cleanup", with no case cut short."""
		judged = verdict.boot(*self.parse('consoles/report-all-skipped-6.1.console', 0,
						  'ok 1 workqueue_cleanup'))
		self.assertEqual(judged.kind, verdict.CRASHED)

	def test_a_hang_is_incomplete(self):
		judged = verdict.boot(*self.parse('replay/hang.console', 1))
		self.assertEqual(judged.kind, verdict.CRASHED)
