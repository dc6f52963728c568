# SPDX-License-Identifier: GPL-2.0
"""LAVA jobs: the committed examples are the generator's, the monitors turn
recorded consoles into the tools' per-case results, and LAVA's own schema
accepts the jobs (where Debian's lava-common is installed: the gate's)."""

import glob
import os
import re
import unittest

from tests.util import DATA, TempDirTest
from wqkunit.base import debian_python
from wqkunit.base.errors import WqKunitError
from wqkunit.lava import lava_command, lava_job
from wqkunit.verdicts import kunit_results


def monitored(console: str) -> dict:
	"""What LAVA's monitors make of @console: each monitor waits for its
	start, then takes the earliest of its end and its pattern, in turn.
	A job lists the suites that run: those of the console here."""
	text, pos, out = console, 0, {}
	ran = re.findall(r'# Subtest: (workqueue_\w+)', console)
	for m in (lava_job.monitor(s) for s in lava_job.SUITES if s in ran):
		start = re.compile(m['start']).search(text, pos)
		if not start:
			break
		pos = start.end()
		end, pattern = re.compile(m['end']), re.compile(m['pattern'])
		while True:
			e, p = end.search(text, pos), pattern.search(text, pos)
			if not p or (e and e.start() <= p.start()):
				pos = e.end() if e else len(text)
				break
			out[f'{m["name"]}.{p["test_case_id"]}'] = m['fixupdict'][p['result']]
			pos = p.end()
	return out


class MonitorTest(unittest.TestCase):
	def test_recorded_consoles_give_the_tools_results(self):
		for name in ('pass', 'fail'):
			with self.subTest(console=name):
				with open(os.path.join(DATA, 'replay', f'{name}.console'), encoding='utf-8',
					  errors='replace') as f:
					console = f.read()
				with open(os.path.join(DATA, 'replay', f'{name}.json'), encoding='utf-8') as f:
					tools = lava_job.fold(kunit_results.statuses(f.read()))
				got = monitored(console)
				self.assertTrue(got)
				self.assertEqual(lava_job.compare(got, tools), [])

	def test_fold_like_kunit(self):
		self.assertEqual(lava_job.fold({'s.a': 'PASS', 's.b.cpu0': 'PASS', 's.b.cpu1': 'FAIL',
					    's.c.x': 'SKIP', 's.c.y': 'SKIP', 's.d.x': 'SKIP',
					    's.d.y': 'PASS', 's.e': 'ERROR'}),
				 {'s.a': 'pass', 's.b': 'fail', 's.c': 'skip', 's.d': 'pass',
				  's.e': 'fail'})

	def test_skip_and_a_skipped_suite(self):
		console = ('    # Subtest: workqueue_percpu\n'
			   '    ok 1 a # SKIP needs 2 online CPUs, has 1\n'
			   '    not ok 2 b\n'
			   '    ok 3 c\n'
			   'ok 1 workqueue_percpu\n')
		self.assertEqual(monitored(console), {'workqueue_percpu.a': 'skip',
						      'workqueue_percpu.b': 'fail',
						      'workqueue_percpu.c': 'pass'})


class JobTest(TempDirTest):
	def test_examples_are_the_generators(self):
		files = sorted(glob.glob(os.path.join(lava_job.EXAMPLES, '*.yaml')))
		self.assertEqual(len(files), 2 * len(lava_job.BOARDS))
		for path in files:
			device, version = re.fullmatch(r'(.+)-(6\.\d+)\.yaml', os.path.basename(path)).groups()
			with open(path, encoding='utf-8') as f:
				self.assertEqual(f.read(), lava_job.yaml(lava_job.board_job(device, version),
								   lava_command.example_comment(device, version)))

	def test_board_jobs_use_the_boards_own_device_tree(self):
		new = lava_job.board_job('odroid-xu3', '6.12')['actions'][0]['deploy']
		old = lava_job.board_job('odroid-xu3', '6.1')['actions'][0]['deploy']
		self.assertTrue(new['dtb']['url'].endswith('/6.12-odroid-xu3/exynos5422-odroidxu3.dtb'))
		self.assertTrue(old['dtb']['url'].endswith('/6.1-odroid-xu3/exynos5422-odroidxu3.dtb'))
		self.assertEqual(new['kernel']['type'], 'zimage')

	def test_yaml_quotes_what_needs_it(self):
		text = lava_job.yaml({'a': None, 'ok ': 'x', 'b': [1, {'c': 'd', 'e': []}], 'f': {}}, 'hi')
		self.assertEqual(text, '# hi\na: null\n"ok ": "x"\nb:\n  - 1\n  - c: "d"\n'
				 '    e: []\nf: {}\n')


@unittest.skipUnless(debian_python.has('lava_common.schemas'),
		     'Debian\'s lava-common (LAVA\'s schema, with python3-voluptuous) is not '
		     'installed for /usr/bin/python3: apt-get install lava-common (the gate does)')
class SchemaTest(TempDirTest):
	def test_jobs_and_device_pass_lavas_schema(self):
		job = os.path.join(self.tmp, 'job.yaml')
		with open(job, 'w', encoding='utf-8') as f:
			f.write(lava_job.yaml(lava_job.qemu_job('6.12', '/k/zImage', '/k/board.dtb')))
		device = os.path.join(self.tmp, 'device.yaml')
		with open(device, 'w', encoding='utf-8') as f:
			f.write(lava_job.yaml(lava_job.qemu_device()))
		lava_command.validate([job, device] + sorted(glob.glob(os.path.join(lava_job.EXAMPLES, '*.yaml'))))

	def test_a_bad_job_is_refused_in_one_line(self):
		job = lava_job.qemu_job('6.12', '/k/zImage', None)
		job['actions'][2]['test']['monitors'][0]['fixupdict']['ok'] = 'PASS'
		path = os.path.join(self.tmp, 'bad.yaml')
		with open(path, 'w', encoding='utf-8') as f:
			f.write(lava_job.yaml(job))
		with self.assertRaisesRegex(WqKunitError, r'^LAVA\'s schema refuses .*bad\.yaml: .*fixupdict'):
			lava_command.validate([path])
