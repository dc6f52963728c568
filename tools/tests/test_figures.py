# SPDX-License-Identifier: GPL-2.0
"""Figures a reader sees, against the records they come from: the series'
cases, kunit/expected/ (written from the last gate), kunit/boots.ini and
the generated claims page.  A figure left behind when its record moved
fails here."""

import configparser
import os
import re
import unittest

from wqkunit import gate, kernels, manifest, paths, series

COVER = os.path.join(paths.PATCHES, '0000-cover-letter.patch')
README = os.path.join(paths.REPO, 'README.md')
CASES = os.path.join(paths.REPO, 'docs', 'cases.md')
CLAIMS = os.path.join(paths.REPO, 'docs', 'claims.md')


def text(path: str) -> str:
	"""@path with every run of white space made one space."""
	with open(path, encoding='utf-8') as f:
		return ' '.join(f.read().split())


def expected(name: str, section: str = 'default') -> dict:
	"""Result -> pass/skip of kunit/expected/@name.ini [@section]."""
	parser = configparser.ConfigParser(interpolation=None)
	parser.optionxform = str
	parser.read(manifest.path_of(name))
	return dict(parser[section])


def claims(column: int) -> dict:
	"""How many claims of docs/claims.md hold, do not, are only reported or
	were not run in @column (-2: 6.1, -1: 6.12)."""
	counts = {'holds': 0, 'no': 0, 'reported': 0, 'not run': 0}
	with open(CLAIMS, encoding='utf-8') as f:
		rows = [l for l in f if l.startswith('| ') and not l.startswith('| claim')]
	for row in rows:
		cell = [c.strip() for c in row.strip().strip('|').split('|')][column]
		kind = next(k for k in ('holds', 'reported', 'not run', 'no') if cell.startswith(k))
		counts[kind] += 1
	return counts


class FiguresTest(unittest.TestCase):
	def setUp(self):
		self.cases = len(series.cases(series.patches()))
		self.results = len(expected('6.12'))

	def test_cases_and_results_per_boot(self):
		for path, pattern in ((CASES, r'(\d+) cases in six suites, (\d+) results with 8 CPUs'),
				      (COVER, r'(\d+) cases, (\d+) results per boot with 8 CPUs')):
			with self.subTest(path=path):
				found = re.search(pattern, text(path))
				self.assertIsNotNone(found, path)
				self.assertEqual((int(found[1]), int(found[2])),
						 (self.cases, self.results), path)

	def test_boot_configurations_per_kernel(self):
		"""The gate's boots of each kernel."""
		found = re.search(r'\((\d+) on 6\.1, (\d+) on 6\.12:', text(COVER))
		self.assertIsNotNone(found)
		versions = kernels.supported()
		self.assertEqual((int(found[1]), int(found[2])),
				 tuple(len(gate.gate_boots('all', v, versions)) for v in versions))

	def test_readme_sample_run(self):
		got = expected('6.12')
		want = (sum(v == manifest.PASS for v in got.values()),
			sum(v == manifest.SKIP for v in got.values()))
		lines = re.findall(r'(\d+) passed, 0 failed, (\d+) skipped', text(README))
		self.assertTrue(lines)
		for line in lines:
			self.assertEqual((int(line[0]), int(line[1])), want)

	def test_claims_counts(self):
		found = re.search(r'on 6\.1: (\d+) hold, (\d+) do not, (\d+) are only reported, '
				  r'(\d+) do not apply; on 6\.12: (\d+) hold, (\d+) do not, '
				  r'(\d+) are only reported', text(COVER))
		self.assertIsNotNone(found)
		old, new = claims(-2), claims(-1)
		self.assertEqual(tuple(int(g) for g in found.groups()),
				 (old['holds'], old['no'], old['reported'], old['not run'],
				  new['holds'], new['no'], new['reported']))


if __name__ == '__main__':
	unittest.main()
