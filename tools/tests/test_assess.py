# SPDX-License-Identifier: GPL-2.0
"""What makes one boot fail, on consoles and JSON recorded from real boots."""

import os
import unittest

from tests.util import DATA
from wqkunit import assess


def read(*parts):
	with open(os.path.join(DATA, *parts), encoding='utf-8') as f:
		return f.read()


class AssessTest(unittest.TestCase):
	def test_clean_complete_boot_passes(self):
		judged = assess.boot(read('logs', '6.12', 'default.console'),
				     read('logs', '6.12', 'default.json'), True)
		self.assertEqual(judged.counts.failed, 0)
		self.assertEqual(judged.ran, judged.counts.total())
		self.assertFalse(judged.incomplete)

	def test_incomplete_run_fails_though_no_case_did(self):
		judged = assess.boot(read('logs', '6.1', 'default.console'),
				     read('logs', '6.1', 'default.json'), False)
		self.assertTrue(judged.incomplete)
		self.assertEqual(judged.counts.failures, ['incomplete run (crash or hang)'])

	def test_incomplete_run_with_failed_cases_is_judged_by_them(self):
		judged = assess.boot('', read('kunit-failing.json'), False)
		self.assertFalse(judged.incomplete)
		self.assertEqual(judged.counts.failed, 2)

	def test_report_during_the_suite_fails_the_boot_and_names_the_case(self):
		judged = assess.boot(read('consoles', 'odebug-reinit-6.12.console'), None, True)
		self.assertEqual(judged.ran, 0)
		self.assertEqual(judged.failed_cases, [
			'workqueue_broken.broken_reinit_pending_delayed_work (ODEBUG report)'])

	def test_report_before_the_suite_is_kept_apart(self):
		console = 'WARNING: CPU: 0 PID: 1 at init/main.c:1 x+0x0/0x4\n' + \
			read('logs', '6.12', 'default.console')
		judged = assess.boot(console, read('logs', '6.12', 'default.json'), True)
		self.assertEqual(judged.counts.failed, 0)
		self.assertEqual([s.kind for s in judged.boot_reports], ['WARNING'])
