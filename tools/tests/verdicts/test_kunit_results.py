# SPDX-License-Identifier: GPL-2.0
"""Counting kunit.py's JSON, recorded from a real 6.1 boot."""

import os
import unittest

from tests.util import DATA
from wqkunit.base.errors import WqKunitError
from wqkunit.verdicts import kunit_results


def load(name: str) -> str:
	with open(os.path.join(DATA, name), encoding='utf-8') as f:
		return f.read()


class CountTest(unittest.TestCase):
	def test_every_parameter_counts_once(self):
		counts = kunit_results.count(load('kunit-6.1-default.json'))
		# 6 cases x 8 CPUs + 3 unparameterized cases.
		self.assertEqual((counts.passed, counts.failed, counts.skipped), (51, 0, 0))
		self.assertEqual(counts.line(), '51 passed, 0 failed, 0 skipped')

	def test_failures_and_crashes_are_named_skips_are_not(self):
		counts = kunit_results.count(load('kunit-failing.json'))
		self.assertEqual((counts.passed, counts.failed, counts.skipped), (48, 2, 1))
		self.assertEqual(counts.failures, [
			'workqueue_percpu.queue_work_on_runs_on_named_cpu.cpu3 (FAIL)',
			'workqueue_unbound.unbound_wq_runs_inside_restricted_mask (ERROR)'])

	def test_results_kunit_py_never_saw_count_but_have_no_name(self):
		"""A hang: kunit.py adds a nameless ERROR for each case and suite
		it never saw, in the suite or at the top."""
		text = load(os.path.join('replay', 'hang.json'))
		counts = kunit_results.count(text)
		self.assertEqual((counts.passed, counts.failed), (25, 8))
		self.assertEqual(counts.failures, ['workqueue_percpu. (ERROR)'] * 4 + [' (ERROR)'] * 4)
		seen = kunit_results.statuses(text)
		self.assertEqual({n: s for n, s in seen.items() if s != 'PASS'},
				 {'workqueue_percpu.': 'ERROR'})

	def test_adding_counts(self):
		total = kunit_results.Counts()
		total.add(kunit_results.count(load('kunit-6.1-default.json')))
		total.add(kunit_results.count(load('kunit-failing.json')))
		self.assertEqual(total.line(), '99 passed, 2 failed, 1 skipped')

	def test_invalid_json(self):
		with self.assertRaisesRegex(WqKunitError, 'no valid JSON'):
			kunit_results.count('{"truncated":')

	def test_no_results(self):
		self.assertEqual(kunit_results.count('{"name": "KUnit Test Group"}').total(), 0)
