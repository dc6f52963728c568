# SPDX-License-Identifier: GPL-2.0
"""Fault injection: each boot's outcome is judged from its results and
console (the hooks themselves are tree/test_fault_hooks.py's)."""

import json
import os
import unittest

from tests.util import TempDirTest
from wqkunit.base.errors import WqKunitError
from wqkunit.evidence import faults
from wqkunit.tree import fault_hooks
from wqkunit.verdicts import kunit_results


BASE = {'workqueue_percpu.queue_work_runs_on_local_cpu.cpu0': 'PASS',
	'workqueue_percpu.queue_work_runs_on_local_cpu.cpu1': 'PASS',
	'workqueue_unbound.unbound_wq_runs_inside_restricted_mask': 'PASS',
	'workqueue_cleanup.suites_leave_system_as_found': 'PASS'}


class JudgeTest(unittest.TestCase):
	def judge(self, case, now, console='', reports=()):
		return faults.judge(case, BASE, dict(BASE, **now), console, list(reports))

	def test_only_the_case_fails_and_nothing_is_left(self):
		self.assertEqual(self.judge('unbound_wq_runs_inside_restricted_mask',
					    {'workqueue_unbound.unbound_wq_runs_inside_restricted_mask':
					     'FAIL'}), (faults.CONTAINED, ''))

	def test_every_parameter_of_a_case_is_that_case(self):
		now = {'workqueue_percpu.queue_work_runs_on_local_cpu.cpu0': 'FAIL',
		       'workqueue_percpu.queue_work_runs_on_local_cpu.cpu1': 'FAIL'}
		self.assertEqual(self.judge('queue_work_runs_on_local_cpu', now)[0],
				 faults.CONTAINED)

	def test_a_case_that_did_not_fail_was_not_reached(self):
		outcome, detail = self.judge('unbound_wq_runs_inside_restricted_mask', {})
		self.assertEqual(outcome, faults.NOT_REACHED)
		self.assertIn('did not fail', detail)

	def test_a_later_verdict_that_changed_is_an_escape(self):
		now = {'workqueue_unbound.unbound_wq_runs_inside_restricted_mask': 'FAIL',
		       'workqueue_cleanup.suites_leave_system_as_found': 'FAIL'}
		outcome, detail = self.judge('unbound_wq_runs_inside_restricted_mask', now)
		self.assertEqual(outcome, faults.ESCAPED)
		self.assertEqual(detail, 'workqueue_cleanup.suites_leave_system_as_found '
				 'PASS -> FAIL')

	def test_a_case_missing_from_the_results_is_an_escape(self):
		now = dict(BASE, **{'workqueue_unbound.unbound_wq_runs_inside_restricted_mask':
				    'FAIL'})
		del now['workqueue_cleanup.suites_leave_system_as_found']
		outcome, detail = faults.judge('unbound_wq_runs_inside_restricted_mask', BASE, now,
					       '', [])
		self.assertEqual((outcome, detail), (faults.ESCAPED,
				 'workqueue_cleanup.suites_leave_system_as_found PASS -> absent'))

	def test_state_left_changed_is_a_leak_even_when_contained_otherwise(self):
		console = ('[    3.1] wq_test: unbound_wq_runs_inside_restricted_mask left '
			   'wq_unbound_cpumask 0-1, found 0-3\n')
		outcome, detail = self.judge('unbound_wq_runs_inside_restricted_mask',
					     {'workqueue_unbound.unbound_wq_runs_inside_restricted_mask':
					      'FAIL'}, console)
		self.assertEqual(outcome, faults.LEAK)
		self.assertEqual(detail, 'wq_test: unbound_wq_runs_inside_restricted_mask left '
				 'wq_unbound_cpumask 0-1, found 0-3')

	def test_a_kernel_report_is_a_leak(self):
		outcome, detail = self.judge('unbound_wq_runs_inside_restricted_mask',
					     {'workqueue_unbound.unbound_wq_runs_inside_restricted_mask':
					      'FAIL'}, reports=['WARNING at kernel/workqueue.c:1'])
		self.assertEqual((outcome, detail), (faults.LEAK, 'WARNING at kernel/workqueue.c:1'))


class ConsoleTest(unittest.TestCase):
	def test_points_are_listed_once_in_the_order_first_met(self):
		console = ('wq_test_fault: reaches a_case:start\n'
			   'wq_test_fault: reaches a_case:state\n'
			   'wq_test_fault: reaches a_case:start\n'
			   '[ 1.0] wq_test_fault: reaches other_case:start\n')
		self.assertEqual(faults.reached(console), [('a_case', 'start'), ('a_case', 'state'),
							   ('other_case', 'start')])

	def test_the_hook_and_the_parser_agree_on_the_line(self):
		self.assertIn('"wq_test_fault: reaches %s:%s\\n"', fault_hooks._FUNCTION)
		self.assertEqual(fault_hooks.REACHED, 'wq_test_fault: reaches ')

	def test_a_reached_line_is_not_state_left(self):
		self.assertEqual(faults.left('wq_test_fault: reaches a:start\n'), [])

	def test_total(self):
		done = [faults.Injection('default', 'a', 'start', faults.CONTAINED),
			faults.Injection('default', 'a', 'state', faults.LEAK),
			faults.Injection('isolcpus', 'b', 'start', faults.NOT_REACHED)]
		self.assertEqual(faults.total(done), '3 injections, 1 contained, 1 leaks, '
				 '1 not reached')
		self.assertEqual(faults.total(done[:1]), '1 injections, 1 contained, 0 leaks')


class RecordTest(TempDirTest):
	def test_record_is_json_with_the_total(self):
		path = os.path.join(self.tmp, faults.RECORD)
		faults.record([faults.Injection('default', 'a', 'start', faults.CONTAINED)], path)
		with open(path, encoding='utf-8') as f:
			data = json.load(f)
		self.assertEqual(data['total'], '1 injections, 1 contained, 0 leaks')
		self.assertEqual(data['injections'][0]['case'], 'a')


class StatusesTest(unittest.TestCase):
	def test_leaves_by_dotted_name(self):
		doc = {'name': 'main', 'sub_groups': [
			{'name': 'workqueue_percpu', 'test_cases': [
				{'name': 'plain', 'status': 'PASS'}],
			 'sub_groups': [{'name': 'param_case', 'test_cases': [
				 {'name': 'cpu0', 'status': 'SKIP'}]}]}]}
		self.assertEqual(kunit_results.statuses(json.dumps(doc)),
				 {'workqueue_percpu.plain': 'PASS',
				  'workqueue_percpu.param_case.cpu0': 'SKIP'})

	def test_bad_json_is_an_error(self):
		with self.assertRaisesRegex(WqKunitError, 'kunit.py wrote no valid JSON'):
			kunit_results.statuses('{')


if __name__ == '__main__':
	unittest.main()
