# SPDX-License-Identifier: GPL-2.0
"""The all-tests comparison: our suites must not fail, no other suite may
change its verdict with the series."""

import json
import unittest

from wqkunit import alltests


def _json(**suites):
	return json.dumps({'sub_groups': [{'name': n, 'status': s} for n, s in suites.items()]})


class CompareTest(unittest.TestCase):
	def test_same_verdicts_and_ours_passing_is_no_problem(self):
		ours = alltests.verdicts(_json(time_test_cases='SUCCESS', workqueue_percpu='SUCCESS',
					       workqueue_report='SKIPPED'))
		base = alltests.verdicts(_json(time_test_cases='SUCCESS'))
		problems, lines = alltests.compare(ours, base, ('workqueue_',))
		self.assertEqual(problems, [])
		self.assertEqual(len(lines), 3)

	def test_a_changed_verdict_or_a_failing_suite_of_ours_is_named(self):
		ours = alltests.verdicts(_json(time_test_cases='FAILURE', workqueue_unbound='FAILURE',
					       list_sort='SUCCESS'))
		base = alltests.verdicts(_json(time_test_cases='SUCCESS'))
		problems, _ = alltests.compare(ours, base, ('workqueue_',))
		self.assertEqual(problems, ['list_sort: SUCCESS with the series, - without',
					    'time_test_cases: FAILURE with the series, SUCCESS without',
					    'workqueue_unbound: FAILURE'])


class KconfigTest(unittest.TestCase):
	def test_a_suite_left_out_is_left_out_on_its_architecture_only(self):
		self.assertEqual(alltests.kconfig('um'), [alltests.ALL_TESTS])
		self.assertIn('# CONFIG_USERCOPY_KUNIT_TEST is not set', alltests.kconfig('arm'))
