# SPDX-License-Identifier: GPL-2.0
"""The all-tests comparison: our suites must not fail, no other result may
change with the series.  The JSON is kunit.py's, recorded from the arm
board's all-tests boots of 6.12 (three of their suites)."""

import os
import unittest

from tests.util import DATA
from wqkunit.evidence import alltests

MINE = ('workqueue_',)


def _load(name):
	with open(os.path.join(DATA, 'alltests', name), encoding='utf-8') as f:
		return f.read()


class CompareTest(unittest.TestCase):
	def setUp(self):
		self.ours = alltests.verdicts(_load('with.json'))
		self.base = alltests.verdicts(_load('without.json'))

	def test_every_result_is_named_parameters_included(self):
		self.assertEqual(self.ours['workqueue_hotplug.percpu_workers_rebound_when_cpu_returns'],
				 'PASS')
		self.assertEqual(self.ours['example.example_params_test.example value 0'], 'SKIP')
		self.assertEqual(self.ours['time_test_cases.time64_to_tm_test_date_range'], 'PASS')
		self.assertEqual(set(self.base), {n for n in self.ours
						  if not n.startswith(MINE)})

	def test_the_same_results_and_ours_passing_is_no_problem(self):
		problems, lines = alltests.compare(self.ours, self.base, MINE)
		self.assertEqual(problems, [])
		self.assertEqual(len(lines), 3)
		self.assertRegex(lines[0], r'^example +PASS \d+, SKIP \d+ +PASS \d+, SKIP \d+$')
		self.assertRegex(lines[2], r'^workqueue_hotplug +PASS 3 +\(ours\)$')

	def test_a_changed_result_or_a_failing_case_of_ours_is_named(self):
		self.ours['time_test_cases.time64_to_tm_test_date_range'] = 'FAIL'
		self.ours['workqueue_hotplug.percpu_workers_rebound_when_cpu_returns'] = 'ERROR'
		del self.base['example.example_skip_test']
		problems, _ = alltests.compare(self.ours, self.base, MINE)
		self.assertEqual(problems, [
			'example.example_skip_test: SKIP with the series, - without',
			'time_test_cases.time64_to_tm_test_date_range: FAIL with the series, PASS without',
			'workqueue_hotplug.percpu_workers_rebound_when_cpu_returns: ERROR'])

	def test_a_suite_missing_on_one_side_is_a_problem(self):
		base = {n: s for n, s in self.base.items() if not n.startswith('time_test')}
		problems, lines = alltests.compare(self.ours, base, MINE)
		self.assertIn('time_test_cases.time64_to_tm_test_date_range: PASS with the series, '
			      '- without', problems)
		self.assertRegex(lines[1], r' -$')


class KconfigTest(unittest.TestCase):
	def test_a_suite_left_out_is_left_out_on_its_architecture_only(self):
		self.assertEqual(alltests.kconfig('um'), [alltests.ALL_TESTS])
		self.assertIn('# CONFIG_USERCOPY_KUNIT_TEST is not set', alltests.kconfig('arm'))
