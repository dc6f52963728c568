# SPDX-License-Identifier: GPL-2.0
"""The claims table, from consoles and JSON recorded on real 6.1 and 6.12 boots."""

import os
import shutil

from tests.util import DATA, TempDirTest, check_generated_page
from wqkunit.base import repo_paths
from wqkunit.base.errors import WqKunitError
from wqkunit.cli import arguments, options
from wqkunit.evidence import claims

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
		self.gate = {'6.1': ['default', 'nohz-full'], '6.12': ['default', 'nohz-full'],
			     '6.12-arm64': ['default']}
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

	# (what the row shows, the claim's start, each kernel's cell: whole, or
	# its start where it ends with "...")
	ROWS = [
		('cases that pass make a claim hold',
		 'queue_work() on a per-CPU workqueue runs', ('holds', 'holds')),
		('a negated claim whose cases pass does not hold',
		 'queue_work() on a per-CPU workqueue avoids',
		 ('no: system_wq runs the work...', 'no: system_wq runs the work...')),
		('a mode line backed by its case settles a claim per kernel',
		 'nohz_full= leaves power-efficient mode', ('holds', 'no: nohz_full= forces...')),
		('placement on two CPUs breaks a pinning claim',
		 'a self-requeueing non-deferrable delayed work', ('reported: holds', 'reported: no...')),
		('a claim names the boot where it breaks',
		 'the timer of a delayed work', ('holds', 'no with [nohz-full]: armed on the queueing...')),
		('idle wake-ups beyond those without the work are counted per kernel',
		 "KFENCE's sampling work (kfence.deferrable=0) on system_power_efficient_wq leaves "
		 "an idle CPU idle, power-efficient mode off",
		 ('reported: no: 1 extra wake-ups of the idle CPU, 2 of 2 runs on it',
		  'reported: holds, 0 extra wake-ups of the idle CPU, 0 of 2 runs on it')),
		('an idle claim whose work did not run has no data',
		 'with kfence.deferrable=1, the same (its timer fires on that CPU only once something '
		 'else wakes it), power-efficient mode off',
		 ('reported: no data: the work did not run in the window',
		  'reported: no data: the work did not run in the window')),
		('a mode line says which kernel has a rule its case asserts',
		 'the rescuer of an unbound WQ_MEM_RECLAIM workqueue',
		 ('no: it may run on every possible CPU...', 'holds')),
		('an idle claim without idle lines did not run',
		 "KFENCE's sampling work (kfence.deferrable=0) on system_power_efficient_wq leaves "
		 "an idle CPU idle, power-efficient mode on", ('not run', 'not run')),
		('a claim whose boots did not run', 'workqueue.unbound_cpus= restricts',
		 ('not run', 'not run')),
		('a source claim reads the tree', 'KFENCE queues toggle_allocation_gate()',
		 ('no: ...', 'no: ...')),
		('a negated claim reads its cases', 'a self-requeueing work queued from a nohz_full CPU',
		 ('no: it moves...', 'no: it moves...')),
	]

	ROWS += [
		('a row of one architecture reads its boots only',
		 'with affinity_strict, the default cache scope', ('not run', 'holds')),
		('a share of runs is reported with its count',
		 'unbound work queued from a LITTLE CPU runs in the LITTLE cluster',
		 ('not run', 'reported: no: 1 of 4 runs')),
		('a mode line backed by its case is asserted, not reported',
		 'so does the work of an ordered workqueue',
		 ('no: its workers may still use every CPU...', 'holds')),
	]

	def test_rows_settle_from_the_recorded_boots(self):
		for what, claim, want in self.ROWS:
			with self.subTest(what):
				for cell, expected in zip(self.row(claim), want):
					if expected.endswith('...'):
						self.assertTrue(cell.startswith(expected[:-3]), cell)
					else:
						self.assertEqual(cell, expected)

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

	def test_a_guaranteed_claim_is_never_only_reported(self):
		with open(claims.CLAIMS, encoding='utf-8') as f:
			text = f.read()
		start = text.index('[plain-pinned]')
		path = os.path.join(self.tmp, 'claims.ini')
		with open(path, 'w', encoding='utf-8') as f:
			f.write(text[:start] + text[start:].replace('\n\n', '\nguaranteed = yes\n\n', 1))
		with self.assertRaisesRegex(WqKunitError, r'\[plain-pinned\] is guaranteed .* only reported'):
			claims.table(path, logs_root=self.logs, trees_root=os.path.join(self.tmp, 'src'))

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
		page = os.path.join(self.tmp, 'claims.md')
		with open(page, 'w', encoding='utf-8') as f:
			f.write(f'before\n{claims.BEGIN}\nold\n{claims.END}\nafter\n')
		self.assertTrue(claims.write(page, '| new |\n'))
		with open(page, encoding='utf-8') as f:
			self.assertEqual(f.read(), f'before\n{claims.BEGIN}\n| new |\n{claims.END}\nafter\n')
		self.assertFalse(claims.write(page, '| new |\n'))

	def test_write_needs_markers(self):
		page = os.path.join(self.tmp, 'claims.md')
		with open(page, 'w', encoding='utf-8') as f:
			f.write('no markers\n')
		with self.assertRaisesRegex(WqKunitError, 'has no markers <!-- claims:begin'):
			claims.write(page, 'x')

	def test_the_table_has_a_page_of_its_own(self):
		self.assertEqual(os.path.relpath(claims.PAGE, repo_paths.REPO), 'docs/claims.md')
		check_generated_page(self, claims.PAGE, claims.BEGIN, claims.END,
				     'tools/wq-kunit claims --write')

	def test_write_goes_to_the_page_unless_given_a_file(self):
		def write(*argv):
			return options.parse(arguments.parser(), ['claims'] + list(argv)).write
		self.assertEqual((write(), write('--write'), write('--write', 'x.md')),
				 (None, claims.PAGE, 'x.md'))
