# SPDX-License-Identifier: GPL-2.0
"""Kernel reports in a console: found, classified, and pinned on their case."""

import os
import unittest

from tests.util import DATA
from wqkunit.verdicts import splats

# One report of each kind, in the kernel's own wording.
REPORTS = {
	'ODEBUG': ['ODEBUG: init active (active state 0) object: 8d0a4b0c object type: '
		   'timer_list hint: delayed_work_timer_fn+0x0/0x28',
		   'WARNING: CPU: 1 PID: 123 at lib/debugobjects.c:505 debug_print_object+0xb0/0xe8',
		   '---[ end trace 0000000000000000 ]---'],
	'KASAN': ['==================================================================',
		  'BUG: KASAN: slab-use-after-free in wq_test_work_fn+0x40/0x80',
		  'Read of size 4 at addr c5a1b2c0 by task kworker/3:1/61',
		  '=================================================================='],
	'lockdep': ['======================================================',
		    'WARNING: possible circular locking dependency detected',
		    '6.12.118 #1 Not tainted',
		    '------------------------------------------------------'],
	'sleeping in atomic': ['BUG: sleeping function called from invalid context at '
			       'kernel/locking/mutex.c:283'],
	'workqueue lockup': ['BUG: workqueue lockup - pool cpus=1 node=0 flags=0x0 nice=0 '
			     'stuck for 31s!'],
	'soft lockup': ['watchdog: BUG: soft lockup - CPU#2 stuck for 22s! [kworker/2:1:55]'],
	'WARNING': ['WARNING: CPU: 3 PID: 77 at kernel/workqueue.c:1652 __queue_work+0x3f0/0x4a8',
		    'Modules linked in:', '---[ end trace 0000000000000000 ]---'],
	'hung task': ['INFO: task kunit_try_catch:98 blocked for more than 122 seconds.'],
	'oops': ['Internal error: Oops: 5 [#1] SMP ARM'],
	'RCU stall': ['rcu: INFO: rcu_sched self-detected stall on CPU'],
}

KTAP = '''KTAP version 1
1..2
    KTAP version 1
    # Subtest: workqueue_percpu
    # module: workqueue
    1..2
        KTAP version 1
        # Subtest: queue_work_on_runs_on_named_cpu
        ok 1 cpu0
{param}
        ok 2 cpu1
    # queue_work_on_runs_on_named_cpu: pass:2 fail:0 skip:0 total:2
    ok 1 queue_work_on_runs_on_named_cpu
{case}
    ok 2 deferrable_work_has_deferrable_timer
# workqueue_percpu: pass:2 fail:0 skip:0 total:2
ok 1 workqueue_percpu
'''


def console(report, where='param', boot=''):
	text = KTAP.format(param='\n'.join(report) if where == 'param' else '',
			   case='\n'.join(report) if where == 'case' else '')
	return 'Booting Linux on physical CPU 0x0\n' + boot + '\n' + text


class FindTest(unittest.TestCase):
	def test_every_kind_is_found_and_named(self):
		for kind, report in REPORTS.items():
			found = splats.find(console(report))
			self.assertEqual([s.kind for s in found], [kind], kind)

	def test_report_in_a_parameter_names_case_and_parameter(self):
		found = splats.find(console(REPORTS['ODEBUG']))
		self.assertEqual(found[0].case, 'workqueue_percpu.queue_work_on_runs_on_named_cpu.cpu1')

	def test_report_in_a_plain_case_names_the_case(self):
		found = splats.find(console(REPORTS['KASAN'], where='case'))
		self.assertEqual(found[0].case, 'workqueue_percpu.deferrable_work_has_deferrable_timer')

	def test_report_keeps_its_lines_up_to_the_end_marker(self):
		found = splats.find(console(REPORTS['WARNING']))
		self.assertEqual(found[0].lines, REPORTS['WARNING'])

	def test_report_before_the_suite_is_a_boot_report(self):
		found = splats.find(console([], boot='\n'.join(REPORTS['WARNING'])))
		self.assertEqual([s.case for s in found], ['boot'])
		self.assertEqual(splats.in_suite(found), [])

	def test_timestamps_do_not_matter(self):
		report = ['[   12.345678] ' + l for l in REPORTS['sleeping in atomic']]
		self.assertEqual([s.kind for s in splats.find(console(report))],
				 ['sleeping in atomic'])

	def test_recorded_clean_consoles_have_no_report(self):
		for version in ('6.1', '6.12'):
			for boot in ('default', 'nohz-full'):
				path = os.path.join(DATA, 'logs', version, f'{boot}.console')
				with open(path, encoding='utf-8') as f:
					self.assertEqual(splats.find(f.read()), [], path)


def recorded(name):
	with open(os.path.join(DATA, 'consoles', name), encoding='utf-8') as f:
		return f.read()


class RecordedTest(unittest.TestCase):
	"""Consoles recorded from the debug builds of the suite's own kernels."""

	def test_odebug_behind_a_generic_warning_is_named_odebug(self):
		# 6.12 prints the WARNING from lib/debugobjects.c before the ODEBUG line.
		found = splats.find(recorded('odebug-reinit-6.12.console'))
		self.assertEqual([(s.kind, s.case) for s in found],
				 [('ODEBUG', 'workqueue_broken.broken_reinit_pending_delayed_work')])
		self.assertIn('ODEBUG: init active', found[0].summary())
		self.assertTrue(found[0].lines[-1].startswith('---[ end trace'))

	def test_soft_lockups_of_a_hung_run_name_the_unfinished_case(self):
		# 6.1 debug, a keep-awake timer re-arming every jiffy livelocked
		# __run_timers(); the run never reached the case's result line.
		found = splats.find(recorded('soft-lockup-6.1.console'))
		self.assertTrue(found)
		self.assertEqual({s.kind for s in found}, {'soft lockup'})
		self.assertEqual({s.case for s in found},
				 {'workqueue_percpu.self_requeueing_deferrable_work_stays_on_cpu'
				  ' (unfinished)'})
