# SPDX-License-Identifier: GPL-2.0
"""The claims table, from consoles and JSON recorded on real 6.1 and 6.12 boots."""

import os

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
		self.rows = {}
		text = claims.table(logs_root=LOGS, trees_root=os.path.join(self.tmp, 'src'))
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
		self.assertEqual(self.row('nohz_full= leaves power-efficient mode')[0], 'holds')
		self.assertTrue(self.row('nohz_full= leaves power-efficient mode')[1].startswith('no:'))

	def test_placement_on_two_cpus_breaks_a_pinning_claim(self):
		cells = self.row('a self-requeueing non-deferrable delayed work')
		self.assertEqual(cells[0], 'holds')
		self.assertTrue(cells[1].startswith('no'), cells[1])

	def test_timer_claim_names_the_boot_where_it_breaks(self):
		cells = self.row('the timer of a delayed work')
		self.assertEqual(cells[0], 'holds')
		self.assertTrue(cells[1].startswith('no with [nohz-full]'), cells[1])

	def test_claim_whose_boots_did_not_run(self):
		self.assertEqual(self.row('workqueue.unbound_cpus= restricts'), ['not run', 'not run'])

	def test_source_claim_reads_the_tree(self):
		cells = self.row('KFENCE queues toggle_allocation_gate()')
		self.assertTrue(all(c.startswith('no: ') for c in cells))

	def test_no_gate_run(self):
		with self.assertRaisesRegex(WqKunitError, 'no gate run'):
			claims.table(logs_root=self.tmp)

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
