# SPDX-License-Identifier: GPL-2.0
"""The placement report, from consoles recorded on real 6.12 boots."""

import json
import os
import re
import struct
import unittest
import xml.etree.ElementTree as ET

from tests.util import DATA, TempDirTest, has_matplotlib
from wqkunit.base import debian_python, repo_paths
from wqkunit.base.errors import WqKunitError
from wqkunit.report import figures, placement_report, write_report

SVG = '{http://www.w3.org/2000/svg}'


def console(name):
	with open(os.path.join(DATA, 'report', f'6.12-{name}.console'), encoding='utf-8') as f:
		return f.read()


def recorded(name, mask='full'):
	return [c for c in placement_report.parse(console(name)) if c.mask == mask][0]


class ParseTest(unittest.TestCase):
	def test_configuration_and_windows(self):
		c = recorded('pe1')
		self.assertEqual((c.mode, c.mask, c.start, c.busy, c.windows), (1, 'full', 3, 7, 5))
		self.assertEqual((c.little, c.big, c.unbound), ([0, 1, 2, 3], [4, 5, 6, 7], list(range(8))))
		self.assertEqual(len(c.runs), len(placement_report.SERIES) * 5)
		windows = c.windows_of('system_power_efficient_wq', 'kfence')
		self.assertEqual([w.window for w in windows], [0, 1, 2, 3, 4])
		first = windows[0]
		self.assertEqual(sum(first.per_cpu.values()), first.runs)
		self.assertEqual(sum(first.woke_per_cpu.values()), first.woke)

	def test_run_adds_up_its_windows(self):
		c = recorded('pe1')
		windows = c.windows_of('system_wq', 'periodic')
		total = c.run('system_wq', 'periodic')
		self.assertEqual(total.runs, sum(w.runs for w in windows))
		self.assertEqual(total.ms, sum(w.ms for w in windows))
		self.assertEqual(total.woke, sum(w.woke for w in windows))
		self.assertEqual(sum(total.per_cpu.values()), total.runs)

	def test_per_cpu_runs_and_wakeups(self):
		line = ('[    2.3] workqueue_placement: mask=full window=2 wq=system_wq pattern=periodic '
			'runs=24 ms=2000 woke=20 cpu3=21/18 cpu5=3/2\n')
		header = ('[    0.1] workqueue_placement: mask=full unbound=0-7 power_efficient=0 '
			  'start=3 busy=7 little=0-3 big=4-7 hz=250 idle_counts=yes windows=1\n')
		lines = [line.replace('wq=system_wq pattern=periodic', f'wq={wq} pattern={p}')
			 for wq, p in placement_report.SERIES]
		(c,) = placement_report.parse(header + ''.join(lines))
		run = c.windows_of('system_wq', 'periodic')[0]
		self.assertEqual((run.window, run.per_cpu, run.woke_per_cpu),
				 (2, {3: 21, 5: 3}, {3: 18, 5: 2}))

	def test_one_boot_reports_every_mask(self):
		configs = placement_report.parse(console('pe0'))
		self.assertEqual([(c.mode, c.mask, c.unbound) for c in configs],
				 [(0, 'full', list(range(8))), (0, 'little', [0, 1, 2, 3]),
				  (0, 'big', [4, 5, 6, 7])])

	def test_a_mask_with_missing_windows_is_refused(self):
		text = console('pe1')
		last = [l for l in text.splitlines() if 'window=4' in l][-1]
		with self.assertRaisesRegex(ValueError, 'no complete report'):
			placement_report.parse(text.replace(last, ''))

	def test_cpu_lists(self):
		self.assertEqual(placement_report.cpulist('0-2,5,7-8'), [0, 1, 2, 5, 7, 8])
		self.assertEqual(placement_report.span([0, 1, 2, 5, 7, 8]), '0-2,5,7-8')
		self.assertEqual(placement_report.span([]), 'none')

	def test_console_without_a_report_is_refused(self):
		with self.assertRaisesRegex(ValueError, 'no complete report'):
			placement_report.parse('[    0.1] workqueue_placement: mask=full\n')


class StatisticsTest(unittest.TestCase):
	def test_mean_and_spread(self):
		s = placement_report.Spread([10.0, 12.0, 14.0])
		self.assertEqual((s.mean, s.sd, str(s)), (12.0, 2.0, '12.0 ± 2.0'))

	def test_noise(self):
		quiet = placement_report.Spread([10.0, 10.5, 9.5, 10.0, 10.0])
		self.assertFalse(placement_report.beyond_noise(quiet, placement_report.Spread([10.2, 9.8, 10.4, 9.9, 10.1])))
		self.assertTrue(placement_report.beyond_noise(quiet, placement_report.Spread([1.0, 1.2, 0.8, 1.0, 1.0])))
		# One window has no spread: it can never tell.
		self.assertFalse(placement_report.beyond_noise(placement_report.Spread([10.0]), placement_report.Spread([0.0])))
		self.assertEqual(placement_report.verdict(quiet, placement_report.Spread([1.0, 1.2, 0.8, 1.0, 1.0])),
				 'fewer with the mode on')
		self.assertEqual(placement_report.verdict(quiet, quiet), 'within noise')

	def test_wakeups_per_window_of_the_cpus_asked_for(self):
		c = recorded('pe1')
		windows = c.windows_of('system_power_efficient_wq', 'periodic')
		little = placement_report.wakeups(c, 'system_power_efficient_wq', 'periodic', c.little)
		big = placement_report.wakeups(c, 'system_power_efficient_wq', 'periodic', c.big)
		for w, l, b in zip(windows, little.values, big.values):
			self.assertAlmostEqual(l + b, w.woke * 1000 / w.ms)


class OutputTest(TempDirTest):
	def setUp(self):
		super().setUp()
		self.results = {'6.12': placement_report.parse(console('pe0')) + placement_report.parse(console('pe1'))}

	def test_headline_table_per_pattern_and_kind(self):
		text = placement_report.markdown(self.results)
		head = placement_report.headline(self.results['6.12'])
		for pattern in placement_report.PATTERNS:
			for kind in ('LITTLE', 'big'):
				off, on = head[pattern][kind][0], head[pattern][kind][1]
				self.assertIn(f'| 6.12 | {pattern} | {kind} | {off} | {on} | '
					      f'{placement_report.verdict(off, on)} |', text)
		self.assertIn('mean ± standard deviation over 5 windows', text)

	def test_detail_tables_add_up_the_windows(self):
		text = placement_report.markdown(self.results)
		c = self.results['6.12'][0]
		total = c.run('system_wq', 'periodic')
		self.assertIn(f'| system_wq | periodic | {total.runs} in {total.ms} ms |', text)
		self.assertIn('**6.12, power_efficient=0, mask little (CPUs 0-3)', text)

	def test_figure_spec(self):
		spec = figures.spec(self.results)
		self.assertEqual((spec['windows'], spec['wq']), (5, 'system_power_efficient_wq'))
		self.assertEqual([p['title'].split(':')[0] for p in spec['headline']], ['6.12', '6.12'])
		group = spec['headline'][0]['groups'][0]
		self.assertEqual(group['label'], 'LITTLE CPUs 0-3')
		c = self.results['6.12'][0]
		self.assertEqual(group['off'], placement_report.wakeups(c, 'system_power_efficient_wq',
							      'periodic', c.little).values)
		self.assertEqual(len(spec['detail']), 6)
		panel = spec['detail'][0]
		self.assertEqual((panel['row'], panel['mask'], panel['cpus']),
				 ('6.12, mode off', 'full', list(range(8))))
		self.assertEqual([s['label'] for s in panel['series']],
				 [f'{wq}, {p}' for wq, p in placement_report.SERIES])

	def test_configurations_cover_modes_with_the_report_built(self):
		configs = placement_report.configurations()
		self.assertEqual([b.name for b in configs], ['report-pe0', 'report-pe1'])
		self.assertTrue(all(b.kconfig == ('CONFIG_WQ_PLACEMENT_REPORT=y',) for b in configs))


@unittest.skipUnless(has_matplotlib(), 'needs python3-matplotlib (the gate installs it)')
class FigureTest(TempDirTest):
	"""The figures drawn by matplotlib from one kernel's recorded report."""

	def test_png_and_svg_written(self):
		# The full mask only: a headline and two detail panels draw faster.
		results = {'6.12': [recorded('pe0'), recorded('pe1')]}
		written = write_report.write(results, self.tmp)
		self.assertEqual([os.path.basename(p) for p in written],
				 ['report.md'] + list(figures.FIGURES))
		for path in written:
			if path.endswith('.png'):
				with open(path, 'rb') as f:
					head = f.read(24)
				self.assertEqual(head[:8], b'\x89PNG\r\n\x1a\n')
				width, height = struct.unpack('>II', head[16:24])
				self.assertGreater(width, 300)
			elif path.endswith('.svg'):
				root = ET.parse(path).getroot()
				self.assertEqual(root.tag, SVG + 'svg')
				self.assertFalse(list(root.iter(SVG + 'script')))
		with open(os.path.join(self.tmp, 'report.svg'), encoding='utf-8') as f:
			svg = f.read()
		self.assertIn('within noise' if 'within noise' in placement_report.markdown(results)
			      else 'with the mode on', svg)

	def test_bad_input_is_one_line_and_exit_2(self):
		data = os.path.join(self.tmp, 'bad.json')
		with open(data, 'w', encoding='utf-8') as f:
			json.dump({'headline': 'nonsense'}, f)
		proc = debian_python.run(figures.SCRIPT, [data, self.tmp], figures.PACKAGE)
		self.assertEqual(proc.returncode, 2)
		self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
		self.assertIn('is not a report', proc.stderr)

	def test_help(self):
		proc = debian_python.run(figures.SCRIPT, ['--help'], figures.PACKAGE)
		self.assertEqual(proc.returncode, 0)
		self.assertIn('report_figure.py REPORT.json DIR', proc.stdout)


class MissingPythonTest(TempDirTest):
	def test_no_debian_python_says_what_to_install(self):
		from unittest import mock
		with mock.patch.object(debian_python, 'PYTHON', os.path.join(self.tmp, 'nope')):
			with self.assertRaisesRegex(WqKunitError, 'python3-matplotlib needs Debian'):
				figures.draw({}, self.tmp)


class SampleTest(unittest.TestCase):
	"""docs/report.md's reading of the recorded sample is the sample's."""

	def test_verdicts_quoted_are_the_samples(self):
		root = repo_paths.REPO
		with open(os.path.join(root, 'docs', 'report.md'), encoding='utf-8') as f:
			page = ' '.join(f.read().split())
		with open(os.path.join(root, 'kunit', 'report', 'sample.md'), encoding='utf-8') as f:
			sample = f.read()
		works = {"the article's periodic work": 'periodic', "KFENCE's sampling work": 'kfence'}
		quoted = re.findall(r'- (6\.\d+), (the article\'s periodic work|KFENCE\'s sampling work), '
				    r'(LITTLE) CPUs: ([a-z ]+)\.', page)
		self.assertEqual(len(quoted), 4)
		for version, work, kind, verdict in quoted:
			self.assertRegex(sample, rf'\| {re.escape(version)} \| {works[work]} \| {kind} \| '
					 rf'[^|]+\| [^|]+\| {verdict} \|')
		for row in re.findall(r'\| 6\.\d+ \| \w+ \| big \|[^\n]*', sample):
			self.assertTrue(row.endswith('| within noise |'), row)
