# SPDX-License-Identifier: GPL-2.0
"""The placement report, from consoles recorded on real 6.12 boots."""

import os
import unittest
import xml.etree.ElementTree as ET

from tests.util import DATA, TempDirTest
from wqkunit import report


def recorded(name):
	with open(os.path.join(DATA, 'report', f'6.12-{name}.console'), encoding='utf-8') as f:
		return report.parse(f.read())


class ParseTest(unittest.TestCase):
	def test_configuration_and_runs(self):
		c = recorded('pe1-full')
		self.assertEqual((c.mode, c.mask, c.start, c.busy), (1, 'full', 3, 7))
		self.assertEqual((c.little, c.big, c.unbound), ([0, 1, 2, 3], [4, 5, 6, 7], list(range(8))))
		self.assertEqual([(r.wq, r.pattern) for r in c.runs], report.SERIES)
		run = c.run('system_power_efficient_wq', 'kfence')
		self.assertEqual((run.runs, run.ms, run.woke, run.per_cpu), (15, 1564, 14, {0: 14, 4: 1}))

	def test_cpu_lists(self):
		self.assertEqual(report.cpulist('0-2,5,7-8'), [0, 1, 2, 5, 7, 8])

	def test_console_without_a_report_is_refused(self):
		with self.assertRaisesRegex(ValueError, 'no complete report'):
			report.parse('[    0.1]     # placement_of_periodic_work: report: mask=full\n')


class OutputTest(TempDirTest):
	def setUp(self):
		super().setUp()
		self.results = {'6.12': [recorded('pe0-full'), recorded('pe1-full')]}

	def test_table_counts_little_big_and_wakeups(self):
		text = report.markdown(self.results)
		self.assertIn('| 6.12 | 1.3/s (2 of 15 runs) | 9.0/s (14 of 15 runs) |', text)
		self.assertIn('| system_power_efficient_wq | kfence | 15 in 1564 ms | 0: 14, 4: 1 | '
			      '2 | 14 / 1 | 14 (9.0/s) |', text)

	def test_plot_has_a_panel_per_configuration(self):
		md, plot = report.write(self.results, self.tmp)
		self.assertTrue(os.path.isfile(md))
		root = ET.parse(plot).getroot()
		titles = [t.text for t in root.iter('{http://www.w3.org/2000/svg}text')]
		self.assertIn('6.12, mode off, mask full', titles)
		self.assertIn('6.12, mode on, mask full', titles)
		bars = [r for r in root.iter('{http://www.w3.org/2000/svg}rect')
			if r.get('fill') == report.COLOURS[3] and float(r.get('height')) > 0]
		# The legend's swatch, then a bar per CPU the work ran on, per mode.
		used = [len(c.run('system_power_efficient_wq', 'kfence').per_cpu)
			for c in self.results['6.12']]
		self.assertEqual(len(bars), 1 + sum(used))
		self.assertEqual(used[1], 2)

	def test_configurations_cover_modes_and_masks(self):
		names = [b.name for b in report.configurations()]
		self.assertEqual(len(names), 6)
		self.assertIn('report-pe1-little', names)
