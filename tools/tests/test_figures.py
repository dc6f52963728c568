# SPDX-License-Identifier: GPL-2.0
"""Figures a reader sees, against the records they come from: the series'
cases, kunit/expected/ (written from the last gate), kunit/boots.ini and
the generated claims page.  A figure left behind when its record moved
fails here."""

import configparser
import json
import os
import re
import unittest

from tests.util import TempDirTest
from wqkunit.base import repo_paths
from wqkunit.configs import kernel_versions
from wqkunit.evidence import faults, mutate, records
from wqkunit.gate import gate_check
from wqkunit.tree import series
from wqkunit.verdicts import manifest

# The gate's figures for the 6.12 and 6.1 trees (the cover letter quotes none).
RESULTS = os.path.join(repo_paths.REPO, 'docs', 'series.md')
README = os.path.join(repo_paths.REPO, 'README.md')
CASES = os.path.join(repo_paths.REPO, 'docs', 'cases.md')
CLAIMS = os.path.join(repo_paths.REPO, 'docs', 'claims.md')
MEASUREMENTS = os.path.join(repo_paths.TOOLS_DIR, 'MEASUREMENTS.md')


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
		self.cases = len(series.cases(series.carried('6.12')))
		self.results = len(expected('6.12'))

	def test_cases_and_results_per_boot(self):
		for path, pattern in ((CASES, r'(\d+) cases in six suites, (\d+) results with 8 CPUs'),
				      (RESULTS, r'(\d+) cases, (\d+) results per boot with 8 CPUs')):
			with self.subTest(path=path):
				found = re.search(pattern, text(path))
				self.assertIsNotNone(found, path)
				self.assertEqual((int(found[1]), int(found[2])),
						 (self.cases, self.results), path)

	def test_boot_configurations_per_kernel(self):
		"""The gate's boots of each kernel."""
		found = re.search(r'\((\d+) on 6\.1, (\d+) on 6\.12:', text(RESULTS))
		self.assertIsNotNone(found)
		versions = kernel_versions.supported()
		self.assertEqual((int(found[1]), int(found[2])),
				 tuple(len(gate_check.gate_boots('all', v, versions)) for v in versions))

	def test_readme_sample_run(self):
		got = expected('6.12')
		# A result that may skip anywhere passed in the sample's boot.
		passes = [n for n, v in got.items() if v == manifest.PASS or n.startswith(manifest.MAY_SKIP)]
		want = (len(passes), len(got) - len(passes))
		lines = re.findall(r'(\d+) passed, 0 failed, (\d+) skipped', text(README))
		self.assertTrue(lines)
		for line in lines:
			self.assertEqual((int(line[0]), int(line[1])), want)

	def test_claims_counts(self):
		found = re.search(r'on 6\.1: (\d+) hold, (\d+) do not, (\d+) are only reported, '
				  r'(\d+) do not apply; on 6\.12: (\d+) hold, (\d+) do not, '
				  r'(\d+) are only reported', text(RESULTS))
		self.assertIsNotNone(found)
		old, new = claims(-2), claims(-1)
		self.assertEqual(tuple(int(g) for g in found.groups()),
				 (old['holds'], old['no'], old['reported'], old['not run'],
				  new['holds'], new['no'], new['reported']))


class RecordsTest(unittest.TestCase):
	"""Times and counts against kunit/records.json (records --write)."""

	def setUp(self):
		self.records = records.committed()

	def test_mutation_counts(self):
		new, old = (self.records['mutation'][v] for v in ('6.12', '6.1'))
		found = re.search(r'on 6\.12, (\d+) of (\d+) mutants .* (\d+) are equivalent and (\d+) '
				  r'is caught only by the tools\' board check; on 6\.1(?: \([^)]*\))?, (\d+) of (\d+), '
				  r'(\d+) equivalent, (\d+) board check only', text(RESULTS))
		self.assertIsNotNone(found)
		self.assertEqual(tuple(int(g) for g in found.groups()),
				 (new['caught'], new['total'], new['equivalent'], new['board_check_only'],
				  old['caught'], old['total'], old['equivalent'], old['board_check_only']))

	def test_fault_counts(self):
		new, old = (self.records['faults'][v] for v in ('6.12', '6.1'))
		found = re.search(r'(\d+) injections on 6\.12 and (\d+) in 6\.1\'s default boot',
				  text(RESULTS))
		self.assertIsNotNone(found)
		self.assertEqual((int(found[1]), int(found[2])), (new['injections'], old['injections']))
		self.assertEqual((new['contained'], old['contained']),
				 (new['injections'], old['injections']))

	def test_gate_times(self):
		"""Each gate time quoted, "M min S s (N boots)", is a recorded one."""
		recorded = {(g['wall_s'] // 60, g['wall_s'] % 60, g['boots'])
			    for g in self.records.get('gate', {}).values()}
		for path in (README, RESULTS, MEASUREMENTS):
			with self.subTest(path=path):
				for quoted in re.findall(r'(\d+) min (\d+) s \((\d+) boots', text(path)):
					self.assertIn(tuple(map(int, quoted)), recorded,
						      f'{path}: a gate time no record backs')

	def test_cache_size(self):
		c = self.records['cache']
		self.assertIn(f'cache held {c["total_gb"]} GB when last measured', text(README))
		self.assertIn(f'git objects {c["src_gb"]} GB, the builds {c["build_gb"]} GB, ccache '
			      f'{c["ccache_gb"]} GB', text(README))

	def test_readme_quotes_the_last_warm_gate(self):
		warm = self.records['gate']['warm']
		self.assertIn(f'{warm["wall_s"] // 60} min {warm["wall_s"] % 60} s '
			      f'({warm["boots"]} boots', text(README))


class SummaryTest(TempDirTest):
	"""records --write's sums, from a cache's logs."""

	def test_gate_mutation_and_faults_summed(self):
		logs = os.path.join(self.tmp, 'logs')
		records.record_gate_time(logs, 164.4, {'build': 1.5, 'boot': 270.0}, 20,
					 {'passed': 3, 'failed': 0, 'skipped': 1})
		os.makedirs(os.path.join(logs, '6.12'))
		mutants = os.path.join(self.tmp, 'mutants')
		os.makedirs(os.path.join(mutants, '6.12'))
		for name in 'abcd':
			self.write(f'Mutant: {name}\nModels: x\nCaught by: y\n',
				   os.path.join(mutants, '6.12', f'{name}.patch'))
		with open(os.path.join(logs, '6.12', mutate.RECORD), 'w', encoding='utf-8') as f:
			json.dump({'complete': True, 'time': 't', 'mutants': [
				{'name': 'a', 'outcome': 'killed'},
				{'name': 'b', 'outcome': 'killed by another case'},
				{'name': 'c', 'outcome': 'equivalent'},
				{'name': 'd', 'outcome': 'board check only'}]}, f)
		with open(os.path.join(logs, '6.12', faults.RECORD), 'w', encoding='utf-8') as f:
			json.dump({'time': 't', 'injections': [
				{'outcome': 'contained', 'seconds': 8.2},
				{'outcome': 'leaked', 'seconds': 9.0}]}, f)
		got = records.summarise(logs, {'faults': {'6.1': {'injections': 78}}}, mutants)
		self.assertEqual((got['gate']['warm']['wall_s'], got['gate']['warm']['boots']), (164, 20))
		self.assertEqual(got['mutation']['6.12'], {'time': 't', 'total': 4, 'caught': 2,
							   'equivalent': 1, 'board_check_only': 1,
							   'survived': 0})
		self.assertEqual(got['faults']['6.12'], {'time': 't', 'injections': 2, 'contained': 1,
							 'seconds': 17})
		# What the logs lack keeps its committed figures.
		self.assertEqual(got['faults']['6.1'], {'injections': 78})


if __name__ == '__main__':
	unittest.main()
