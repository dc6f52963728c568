# SPDX-License-Identifier: GPL-2.0
"""mutate end to end on the replaying fake tree: each verdict class from
test mutants that set the replay markers, the baseline first, and a red
baseline that stops the run."""

import difflib
import os
from unittest import mock

from tests.faketree import FakeTreeTest
from tests.util import TempDirTest
from wqkunit.evidence import mutate
from wqkunit.tree import kernel_trees


class MutantsTest(FakeTreeTest):
	"""Each verdict class, from test mutants that set the replay markers."""
	VERSIONS = ('6.1',)
	CASE = 'workqueue_unbound.unbound_cpumask_honours_boot_parameters'
	KINDS = {
		'expected': (f'Caught by: {CASE}\nBoots: isolcpus', 'replay: fail'),
		'other': ('Caught by: workqueue_percpu.queue_work_runs_on_local_cpu\nBoots: isolcpus',
			  'replay: fail'),
		'no-build': (f'Caught by: {CASE}', 'replay-build: error'),
		'boot-error': (f'Caught by: {CASE}', 'replay: exec-error'),
		'no-results': (f'Caught by: {CASE}', 'replay: no-results'),
		'hang': (f'Caught by: {CASE}', 'replay: hang'),
		'survived': (f'Caught by: {CASE}', 'replay: pass'),
		'equivalent': (f'Caught by: {CASE}\nEquivalent: cannot differ', 'replay: pass'),
	}

	def setUp(self):
		super().setUp()
		self.rc, self.out = self.mutate(self.KINDS)

	def mutate(self, kinds):
		tree = kernel_trees.cache_tree('6.1', lambda m: None)
		with open(os.path.join(tree, 'kernel', 'workqueue.c'), encoding='utf-8') as f:
			lines = f.read().splitlines(keepends=True)
		folder = os.path.join(self.tmp, 'mutants', '6.1')
		os.makedirs(folder)
		for name, (head, marker) in kinds.items():
			diff = ''.join(difflib.unified_diff(lines, [f'/* {marker} */\n'] + lines,
							    'a/kernel/workqueue.c', 'b/kernel/workqueue.c'))
			with open(os.path.join(folder, f'{name}.patch'), 'w', encoding='utf-8') as f:
				f.write(f'Mutant: {name}\nModels: x\n{head}\n\n'
					f'diff --git a/kernel/workqueue.c b/kernel/workqueue.c\n{diff}')
		patch = mock.patch.object(mutate, 'MUTANTS', os.path.join(self.tmp, 'mutants'))
		patch.start()
		self.addCleanup(patch.stop)
		return self.main('mutate', '--kernel', '6.1')

	def verdict(self, name):
		return [l[2:24].strip() for l in self.out.splitlines()
			if l.startswith('  ') and l[25:].split()[0] == name][0]

	def test_each_verdict_class_is_reported_and_counted(self):
		want = {'expected': mutate.KILLED, 'other': mutate.KILLED_OTHER,
			'no-build': mutate.NO_BUILD, 'boot-error': mutate.BOOT_ERROR,
			'no-results': mutate.BOOT_ERROR, 'survived': mutate.SURVIVED,
			'equivalent': mutate.EQUIVALENT, 'hang': mutate.CRASHED}
		self.assertEqual({n: self.verdict(n) for n in want}, want, self.out)
		# Only a case failing an expectation kills; a crash, a broken
		# build or boot does not.
		self.assertIn('6.1: 2 of 8 mutants killed (1 by the expected case, 1 by another), '
			      '1 equivalent, 1 survived, 1 crashed or hung, 2 boot error, '
			      '1 did not build', self.out)
		# The unmutated kernel went first, in every configuration.
		self.assertLess(self.out.index('baseline: passed in 2 boots'),
				self.out.index('expected: killed'))
		self.assertEqual(self.rc, 1)
		# The compiler's error line says why a mutant did not build.
		self.assertIn("kernel/workqueue.c:14:2: error: 'wq_mutant' undeclared", self.out)
		tree = os.path.join(self.cache, 'src', 'linux-6.1')
		with open(os.path.join(tree, 'kernel', 'workqueue.c'), encoding='utf-8') as f:
			self.assertNotIn('replay', f.read())
		# The run is recorded for the coverage table.
		run = mutate.recorded(os.path.join(self.cache, 'logs', '6.1', mutate.RECORD))
		self.assertTrue(run['complete'])
		killed = {m['name']: m['failed'] for m in run['mutants'] if m['outcome'] == 'killed'}
		self.assertEqual(killed, {'expected': [self.CASE]})


class RedBaselineTest(MutantsTest):
	"""A case that fails on the unmutated kernel would make every mutant
	look killed: the run stops before the first mutant."""
	MARKERS = '/* replay: fail if isolcpus */\n'

	def setUp(self):
		FakeTreeTest.setUp(self)
		self.rc, self.out = self.mutate({'expected': self.KINDS['expected']})

	def test_each_verdict_class_is_reported_and_counted(self):
		self.assertEqual(self.rc, 1)
		self.assertIn('the unmutated kernel does not pass (case failed)', self.out)
		self.assertIn('EXPECTATION FAILED at kernel/tests/workqueue_kunit.c:1289', self.out)
		self.assertNotIn('expected: killed', self.out)
		# Nothing recorded for the coverage table.
		self.assertIsNone(mutate.recorded(os.path.join(self.cache, 'logs', '6.1',
								mutate.RECORD)))


class RecordsPerArchTest(TempDirTest):
	"""A version's record is the complete runs of each architecture's
	mutants, each kept in the logs of its own build."""

	def test_arm64_mutants_join_the_versions_record(self):
		mutants = os.path.join(self.tmp, 'mutants')
		os.makedirs(os.path.join(mutants, '6.12'))
		for name, arch in (('a', ''), ('b', ''), ('n', 'Arch: arm64\n')):
			self.write(f'Mutant: {name}\nModels: x\nCaught by: y\nBoots: numa\n{arch}',
				   os.path.join(mutants, '6.12', f'{name}.patch'))
		logs = os.path.join(self.tmp, 'logs')
		verdict = mutate.Verdict(mutate.Mutant('a', 'a.patch', 'x', 'y', [], None),
					 mutate.KILLED, 'y', 1.0)
		arm = [verdict, mutate.Verdict(mutate.Mutant('b', 'b.patch', 'x', 'y', [], None),
					       mutate.EQUIVALENT, 'same', 1.0)]
		numa = [mutate.Verdict(mutate.Mutant('n', 'n.patch', 'x', 'y', [], None, arch='arm64'),
				       mutate.KILLED, 'y', 1.0)]
		for label in ('6.12', '6.12-arm64'):
			os.makedirs(os.path.join(logs, label))
		mutate.record(arm, os.path.join(logs, '6.12', mutate.RECORD), True)
		# arm64's mutant has no verdict yet: no complete record.
		self.assertIsNone(mutate.recorded_version(logs, '6.12', mutants))
		# Nor does a verdict for it in arm's record count.
		mutate.record(arm + numa, os.path.join(logs, '6.12', mutate.RECORD), True)
		self.assertIsNone(mutate.recorded_version(logs, '6.12', mutants))
		mutate.record(numa, os.path.join(logs, '6.12-arm64', mutate.RECORD), False)
		self.assertIsNone(mutate.recorded_version(logs, '6.12', mutants))
		mutate.record(numa, os.path.join(logs, '6.12-arm64', mutate.RECORD), True)
		got = mutate.recorded_version(logs, '6.12', mutants)
		self.assertEqual([(m['name'], m['outcome']) for m in got['mutants']],
				 [('a', mutate.KILLED), ('b', mutate.EQUIVALENT), ('n', mutate.KILLED)])
		self.assertEqual(mutate.load('6.12', mutants)[2].arch, 'arm64')
