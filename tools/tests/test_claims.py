# SPDX-License-Identifier: GPL-2.0
"""The claims table, from consoles and JSON recorded on real 6.1 and 6.12 boots."""

import os
import shutil

from tests.util import DATA, TempDirTest
from wqkunit import claims
from wqkunit.errors import WqKunitError

LOGS = os.path.join(DATA, 'logs')


class ClaimsTest(TempDirTest):
	def setUp(self):
		super().setUp()
		for version, wq in (('6.1', 'system_unbound_wq'), ('6.12', 'system_unbound_wq')):
			path = os.path.join(self.tmp, 'src', f'linux-{version}', 'mm', 'kfence')
			os.makedirs(path)
			with open(os.path.join(path, 'core.c'), 'w', encoding='utf-8') as f:
				f.write(f'\tqueue_delayed_work({wq}, &kfence_timer, 0);\n')
		self.logs = os.path.join(self.tmp, 'logs')
		shutil.copytree(LOGS, self.logs)
		self.gate = {'6.1': ['default', 'nohz-full'], '6.12': ['default', 'nohz-full']}
		self.args = {'boot': 'all', 'smp': 8, 'kunit_args': []}
		claims.record_gate(self.logs, self.gate, self.args)
		self.rows = {}
		text = claims.table(logs_root=self.logs, trees_root=os.path.join(self.tmp, 'src'))
		for line in text.splitlines()[2:]:
			cells = [c.strip() for c in line.strip('|').split('|')]
			self.rows[cells[0]] = cells[2:]

	def row(self, start: str):
		found = [cells for claim, cells in self.rows.items() if claim.startswith(start)]
		self.assertEqual(len(found), 1, start)
		return found[0]

	def test_one_column_per_kernel(self):
		self.assertTrue(all(len(cells) == 2 for cells in self.rows.values()))

	def test_cases_that_pass_make_a_claim_hold(self):
		self.assertEqual(self.row('queue_work() on a per-CPU workqueue runs'), ['holds', 'holds'])

	def test_negated_claim_whose_cases_pass_does_not_hold(self):
		cells = self.row('queue_work() on a per-CPU workqueue avoids')
		self.assertTrue(all(c.startswith('no: system_wq runs the work') for c in cells))

	def test_mode_line_settles_a_claim_per_kernel(self):
		cells = self.row('nohz_full= leaves power-efficient mode')
		self.assertEqual(cells[0], 'reported: holds')
		self.assertTrue(cells[1].startswith('reported: no:'), cells[1])

	def test_placement_on_two_cpus_breaks_a_pinning_claim(self):
		cells = self.row('a self-requeueing non-deferrable delayed work')
		self.assertEqual(cells[0], 'reported: holds')
		self.assertTrue(cells[1].startswith('reported: no'), cells[1])

	def test_timer_claim_names_the_boot_where_it_breaks(self):
		cells = self.row('the timer of a delayed work')
		self.assertEqual(cells[0], 'holds')
		self.assertTrue(cells[1].startswith('reported: no with [nohz-full]'), cells[1])

	def test_idle_runs_are_counted_per_kernel(self):
		cells = self.row("KFENCE's sampling work (kfence.deferrable=0) on system_power_efficient_wq leaves an idle CPU idle, power-efficient mode off")
		self.assertEqual(cells[0], 'reported: no: 2 of 2 runs on the idle CPU')
		self.assertEqual(cells[1], 'reported: holds, 0 of 2 runs on the idle CPU')

	def test_idle_claim_without_idle_lines_did_not_run(self):
		cells = self.row("KFENCE's sampling work (kfence.deferrable=0) on system_power_efficient_wq leaves an idle CPU idle, power-efficient mode on")
		self.assertEqual(cells, ['not run', 'not run'])

	def test_claim_whose_boots_did_not_run(self):
		self.assertEqual(self.row('workqueue.unbound_cpus= restricts'), ['not run', 'not run'])

	def test_source_claim_reads_the_tree(self):
		cells = self.row('KFENCE queues toggle_allocation_gate()')
		self.assertTrue(all(c.startswith('no: ') for c in cells))

	def test_negated_claim_reads_its_cases(self):
		cells = self.row('a self-requeueing work queued from a nohz_full CPU')
		self.assertTrue(all(c.startswith('no: it moves') for c in cells), cells)

	def _edit_json(self, version: str, boot: str, old: str, new: str) -> None:
		path = os.path.join(self.logs, version, f'{boot}.json')
		with open(path, encoding='utf-8') as f:
			text = f.read()
		self.assertIn(old, text)
		with open(path, 'w', encoding='utf-8') as f:
			f.write(text.replace(old, new))

	def test_a_skip_is_not_evidence(self):
		# The nohz_full CPUs' cases skipped: the claim is not shown there.
		self._edit_json('6.1', 'nohz-full', '"status": "PASS"', '"status": "SKIP"')
		claims.record_gate(self.logs, self.gate, self.args)
		text = claims.table(logs_root=self.logs, trees_root=os.path.join(self.tmp, 'src'))
		row = [l for l in text.splitlines() if 'from a nohz_full CPU stays' in l][0]
		self.assertIn('not shown: ', row)

	def test_no_gate_run(self):
		with self.assertRaisesRegex(WqKunitError, 'no gate run'):
			claims.table(logs_root=self.tmp)

	def test_log_replaced_after_the_gate_is_refused(self):
		self._edit_json('6.12', 'default', '"status": "PASS"', '"status": "FAIL"')
		with self.assertRaisesRegex(WqKunitError, 'not the one the last gate wrote'):
			claims.table(logs_root=self.logs)

	def test_filtered_gate_is_refused(self):
		claims.record_gate(self.logs, self.gate, dict(self.args, kunit_args=['workqueue_percpu.*']))
		with self.assertRaisesRegex(WqKunitError, 'filtered'):
			claims.table(logs_root=self.logs)

	def test_gate_of_another_series_is_refused(self):
		path = os.path.join(self.logs, claims.GATE)
		with open(path, encoding='utf-8') as f:
			text = f.read()
		with open(path, 'w', encoding='utf-8') as f:
			f.write(text.replace(claims._inputs()['series'], '0' * 64))
		with self.assertRaisesRegex(WqKunitError, 'another series'):
			claims.table(logs_root=self.logs)

	def test_write_replaces_only_between_markers(self):
		readme = os.path.join(self.tmp, 'README.md')
		with open(readme, 'w', encoding='utf-8') as f:
			f.write(f'before\n{claims.BEGIN}\nold\n{claims.END}\nafter\n')
		self.assertTrue(claims.write(readme, '| new |\n'))
		with open(readme, encoding='utf-8') as f:
			self.assertEqual(f.read(), f'before\n{claims.BEGIN}\n| new |\n{claims.END}\nafter\n')
		self.assertFalse(claims.write(readme, '| new |\n'))

	def test_write_needs_markers(self):
		readme = os.path.join(self.tmp, 'README.md')
		with open(readme, 'w', encoding='utf-8') as f:
			f.write('no markers\n')
		with self.assertRaisesRegex(WqKunitError, 'no claims markers'):
			claims.write(readme, 'x')
