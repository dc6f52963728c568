# SPDX-License-Identifier: GPL-2.0
"""The placement report, from consoles recorded on real 6.12 boots."""

import copy
import os
import unittest
import xml.etree.ElementTree as ET

from tests.util import DATA, TempDirTest
from wqkunit import report, report_plot

SVG = '{http://www.w3.org/2000/svg}'


def recorded(name, mask='full'):
	with open(os.path.join(DATA, 'report', f'6.12-{name}.console'), encoding='utf-8') as f:
		return [c for c in report.parse(f.read()) if c.mask == mask][0]


class ParseTest(unittest.TestCase):
	def test_configuration_and_runs(self):
		c = recorded('pe1')
		self.assertEqual((c.mode, c.mask, c.start, c.busy), (1, 'full', 3, 7))
		self.assertEqual((c.little, c.big, c.unbound), ([0, 1, 2, 3], [4, 5, 6, 7], list(range(8))))
		self.assertEqual([(r.wq, r.pattern) for r in c.runs], report.SERIES)
		run = c.run('system_power_efficient_wq', 'kfence')
		self.assertEqual((run.runs, run.ms, run.woke, run.per_cpu),
				 (15, 1560, 14, {0: 12, 3: 1, 4: 2}))

	def test_one_boot_reports_every_mask(self):
		with open(os.path.join(DATA, 'report', '6.12-pe0.console'), encoding='utf-8') as f:
			configs = report.parse(f.read())
		self.assertEqual([(c.mode, c.mask, c.unbound) for c in configs],
				 [(0, 'full', list(range(8))), (0, 'little', [0, 1, 2, 3]),
				  (0, 'big', [4, 5, 6, 7])])
		self.assertTrue(all([(r.wq, r.pattern) for r in c.runs] == report.SERIES
				    for c in configs))

	def test_a_mask_with_missing_runs_is_refused(self):
		with self.assertRaisesRegex(ValueError, 'no complete report'):
			report.parse('[    0.1] workqueue_placement: mask=full unbound=0-7 '
				     'power_efficient=1 start=3 busy=7 little=0-3 big=4-7 hz=250 '
				     'idle_counts=yes\n')

	def test_cpu_lists(self):
		self.assertEqual(report.cpulist('0-2,5,7-8'), [0, 1, 2, 5, 7, 8])

	def test_console_without_a_report_is_refused(self):
		with self.assertRaisesRegex(ValueError, 'no complete report'):
			report.parse('[    0.1] workqueue_placement: mask=full\n')


class OutputTest(TempDirTest):
	def setUp(self):
		super().setUp()
		self.results = {'6.12': [recorded('pe0'), recorded('pe1')]}

	def test_table_counts_little_big_and_wakeups(self):
		text = report.markdown(self.results)
		self.assertIn('| 6.12 | 1.9/s (3 of 15 runs) | 9.0/s (14 of 15 runs) |', text)
		self.assertIn('| system_power_efficient_wq | kfence | 15 in 1560 ms | 0: 12, 3: 1, 4: 2 | '
			      '3 | 13 / 2 | 14 (9.0/s) |', text)

	def test_configurations_cover_modes_with_the_report_built(self):
		configs = report.configurations()
		self.assertEqual([b.name for b in configs], ['report-pe0', 'report-pe1'])
		self.assertTrue(all(b.kconfig == ('CONFIG_WQ_PLACEMENT_REPORT=y',) for b in configs))


class PlotTest(TempDirTest):
	"""The picture written from the recorded consoles, read back as XML."""

	def setUp(self):
		super().setUp()
		self.off, self.on = recorded('pe0'), recorded('pe1')
		self.results = {'6.12': [self.off, self.on]}

	def plot(self, results=None):
		_, path = report.write(results or self.results, self.tmp)
		return ET.parse(path).getroot()

	def panel(self, root, title):
		found = [g for g in root.iter(SVG + 'g') if g.get('id') == 'panel-' + title]
		self.assertEqual(len(found), 1, title)
		return found[0]

	@staticmethod
	def texts(node, cls=None):
		return [t for t in node.iter(SVG + 'text') if cls is None or cls in t.get('class', '').split()]

	def test_a_panel_per_configuration(self):
		root = self.plot()
		titles = [t.text for t in self.texts(root)]
		self.assertIn('6.12, mode off, mask full', titles)
		self.assertIn('6.12, mode on, mask full', titles)
		# A bar per CPU the work ran on, per mode, in the series' colour.
		bars = [r for r in root.iter(SVG + 'rect')
			if r.get('class') == 'bar' and r.get('fill') == report_plot.COLOURS[3]]
		used = [len(c.run('system_power_efficient_wq', 'kfence').per_cpu) for c in (self.off, self.on)]
		self.assertEqual(len(bars), sum(used))
		self.assertTrue(all(float(r.get('height')) > 0 for r in bars))

	def test_queueing_and_busy_cpus_marked_under_their_numbers(self):
		panel = self.panel(self.plot(), '6.12-mode-off-mask-full')
		x = {t.text: t.get('x') for t in self.texts(panel, 'cpu')}
		self.assertEqual(sorted(x, key=int), [str(c) for c in range(8)])
		(start,), (busy,) = self.texts(panel, 'from'), self.texts(panel, 'busy')
		self.assertEqual((start.text, start.get('x')), ('from', x['3']))
		self.assertEqual((busy.text, busy.get('x')), ('busy', x['7']))

	def test_y_axis_ticks_in_runs_on_one_scale(self):
		root = self.plot()
		most = max(r.runs for c in (self.off, self.on) for r in c.runs)
		for title in ('6.12-mode-off-mask-full', '6.12-mode-on-mask-full'):
			panel = self.panel(root, title)
			ticks = [int(t.text) for t in self.texts(panel, 'tick')]
			self.assertEqual(ticks, sorted(ticks))
			self.assertEqual(ticks[0], 0)
			self.assertGreaterEqual(ticks[-1], most)
			self.assertGreaterEqual(len(ticks), 3)
			self.assertIn('runs', [t.text for t in self.texts(panel)])
		self.assertEqual(report_plot.scale(49), (50, 10))
		self.assertEqual(report_plot.scale(21), (25, 5))
		self.assertEqual(report_plot.scale(0), (1, 1))

	def test_runs_after_idle_plotted_with_a_legend(self):
		root = self.plot()
		legend = ' '.join(t.text for t in self.texts(root, 'legend-idle'))
		self.assertIn('runs after idle', legend)
		patterns = {p.get('id') for p in root.iter(SVG + 'pattern')}
		panel = self.panel(root, '6.12-mode-on-mask-full')
		woke = [r for r in panel.iter(SVG + 'rect') if r.get('class') == 'woke']
		self.assertEqual(len(woke), len(report.SERIES))
		for r in woke:
			self.assertIn(r.get('fill')[5:-1], patterns)
		# Drawn on the bars' scale: 14 runs after idle, 12 runs on CPU0.
		kfence = [r for r in woke if r.get('fill') == 'url(#idle3)'][0]
		cpu0 = [r for r in panel.iter(SVG + 'rect') if r.get('class') == 'bar'
			and r.get('fill') == report_plot.COLOURS[3]][0]
		self.assertAlmostEqual(float(kfence.get('height')) / 14,
				       float(cpu0.get('height')) / 12, places=1)
		self.assertIn('14 of 15 runs after idle', kfence.find(SVG + 'title').text)

	def test_no_idle_counts_says_so(self):
		off = copy.deepcopy(self.off)
		off.idle_counts = False
		panel = self.panel(self.plot({'6.12': [off]}), '6.12-mode-off-mask-full')
		self.assertFalse([r for r in panel.iter(SVG + 'rect') if r.get('class') == 'woke'])
		self.assertIn('n/a', [t.text for t in self.texts(panel)])

	def test_mask_marks_the_allowed_cpus(self):
		little = copy.deepcopy(self.on)
		little.mask, little.unbound = 'little', [0, 1, 2, 3]
		root = self.plot({'6.12': [self.on, little]})
		for title, inside in (('6.12-mode-on-mask-full', 8), ('6.12-mode-on-mask-little', 4)):
			panel = self.panel(root, title)
			rects = list(panel.iter(SVG + 'rect'))
			self.assertEqual(len([r for r in rects if r.get('class') == 'mask']), inside, title)
			self.assertEqual(len([r for r in rects if r.get('class') == 'outside']), 8 - inside)

	def test_little_and_big_labelled_not_only_coloured(self):
		panel = self.panel(self.plot(), '6.12-mode-off-mask-full')
		self.assertEqual([t.text for t in self.texts(panel, 'kind')], ['LITTLE 0-3', 'big 4-7'])
		okabe_ito = {'#E69F00', '#56B4E9', '#009E73', '#0072B2', '#D55E00', '#CC79A7', '#F0E442'}
		self.assertLessEqual(set(report_plot.COLOURS), okabe_ito)

	def test_too_few_runs_noted_in_the_panel(self):
		on = copy.deepcopy(self.on)
		on.run('system_power_efficient_wq', 'periodic').runs = 4
		root = self.plot({'6.12': [self.off, on]})
		notes = self.texts(self.panel(root, '6.12-mode-on-mask-full'), 'few-note')
		self.assertEqual([n.text for n in notes],
				 ['* too few runs to tell: system_power_efficient_wq, periodic (4)'])
		self.assertFalse(self.texts(self.panel(root, '6.12-mode-off-mask-full'), 'few-note'))

	def test_plain_svg(self):
		root = self.plot()
		self.assertFalse(list(root.iter(SVG + 'script')))
		self.assertFalse([a for e in root.iter() for a in e.attrib if a.startswith('on')])
		self.assertFalse([e for e in root.iter() if not e.tag.startswith(SVG)])
