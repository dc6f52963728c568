# SPDX-License-Identifier: GPL-2.0
"""The mechanical mutants and their campaign: the rules Coccinelle runs,
the surface, the record a campaign resumes from, and the published
figures."""

import os
import shutil
import subprocess
import unittest
from unittest import mock

from tests.util import TempDirTest
from wqkunit.base.errors import WqKunitError
from wqkunit.evidence import campaign, campaign_figures as figures, mutant_tree, mutate
from wqkunit.evidence import same_object
from wqkunit.evidence import mechanical_mutants as mm

SPATCH = shutil.which('spatch')
SOURCE = '''static int pick(int cpu)
{
	if (cpu < 0)
		cpu = cpumask_first(cpu_online_mask);
	return cpu;
}
'''


class RulesTest(unittest.TestCase):
	def test_the_finder_is_the_rule_without_its_changes(self):
		op = mm.BY_NAME['cond-negate']
		finder = mm.finder(op)
		self.assertNotIn('\n+', finder)
		self.assertNotIn('\n-', finder)
		self.assertIn(' E@p', finder)
		self.assertIn('print("SITE', finder)

	def test_a_transform_is_bound_to_one_position(self):
		op = mm.BY_NAME['mask-cpu_online_mask']
		rule = mm.transform(op, dict(op.variants)['cpu_possible_mask'], 12, 34)
		self.assertIn('p[0].line == "12" and p[0].column == "34"', rule)
		self.assertIn('- cpu_online_mask@p\n+ cpu_possible_mask', rule)
		self.assertNotIn('position p;', rule)

	def test_every_operator_has_a_position_and_distinct_variants(self):
		for op in mm.OPERATORS:
			self.assertIn('position p;', op.rule, op.name)
			names = [v for v, _ in op.variants]
			self.assertEqual(len(names), len(set(names)), op.name)

	def test_any_first_never_swaps_a_macro_for_what_it_expands_to(self):
		rule = mm.BY_NAME['distribute'].rule
		for a, b in (('cpumask_any_and', 'cpumask_first_and'), ('cpumask_any', 'cpumask_first')):
			self.assertNotIn(f'- {a}@p(es)\n+ {b}(es)', rule)
			self.assertNotIn(f'- {b}@p(es)\n+ {a}(es)', rule)
		self.assertIn('- cpumask_first_and@p(es)\n+ cpumask_any_and_distribute(es)', rule)

	def test_a_mutant_name_says_operator_variant_function_and_place(self):
		m = mm.Mutant('g', 'kernel/workqueue.c', 'kick_pool', 10, 4, 'cpu-arg', 'unbound')
		self.assertEqual(m.name, 'cpu-arg=unbound@kick_pool:10:4')


class SurfaceTest(TempDirTest):
	def test_the_surface_has_groups_with_files_functions_and_screens(self):
		groups = mm.surface()
		self.assertIn('queueing', [g.name for g in groups])
		for g in groups:
			self.assertTrue(g.functions and g.screen and g.file.endswith('.c'), g.name)

	def test_a_group_without_a_key_is_refused(self):
		path = os.path.join(self.tmp, 's.ini')
		with open(path, 'w', encoding='utf-8') as f:
			f.write('[g]\nfile = a.c\n')
		with self.assertRaisesRegex(WqKunitError, "a group without 'functions'"):
			mm.surface(path)


@unittest.skipUnless(SPATCH, 'spatch is missing (Debian package coccinelle)')
class SpatchTest(TempDirTest):
	def test_sites_and_mutants_come_from_coccinelle(self):
		with open(os.path.join(self.tmp, 'a.c'), 'w', encoding='utf-8') as f:
			f.write(SOURCE + SOURCE.replace('pick', 'other'))
		group = mm.Group('g', 'a.c', ('pick',), ('default',))
		found = mm.sites(self.tmp, [group], (mm.BY_NAME['cond-negate'], mm.BY_NAME['distribute']))
		names = [m.name for m in found]
		self.assertIn('cond-negate@pick:3:5', names)
		self.assertIn('distribute@pick:4:8', names)
		self.assertEqual({m.function for m in found}, {'pick'})
		negate = found[names.index('cond-negate@pick:3:5')]
		self.assertIn('+\tif (!(cpu < 0))', mm.diff(self.tmp, negate))


class RecordTest(TempDirTest):
	def test_a_missing_record_is_empty_and_a_saved_one_reads_back(self):
		path = os.path.join(self.tmp, campaign.RECORD)
		self.assertEqual(campaign.load(path), {'sources': {}, 'mutants': {}})
		campaign.save(path, {'sources': {'a.c': 'x'}, 'mutants': {'m': {'outcome': 'killed'}}})
		self.assertEqual(campaign.load(path)['mutants'], {'m': {'outcome': 'killed'}})

	def _one_file_tree(self):
		"""A tree of one file, a.c, in one group: its Kunit, request and group."""
		with open(os.path.join(self.tmp, 'a.c'), 'w', encoding='utf-8') as f:
			f.write('int x;\n')
		return (mock.Mock(tree=self.tmp), mock.Mock(logs=self.tmp, version='6.12'),
			mm.Group('g', 'a.c', ('f',), ('default',)))

	def test_with_no_record_in_the_logs_the_published_one_of_the_same_sources_is_resumed(self):
		logs = os.path.join(self.tmp, campaign.RECORD)
		pub = os.path.join(self.tmp, 'published.json')
		campaign.save(pub, {'sources': {'a.c': 'x'}, 'mutants': {'m': {'outcome': 'killed'}}})
		said = []
		self.assertEqual(campaign.seed(logs, pub, {'a.c': 'x'}, said.append)['mutants'],
				 {'m': {'outcome': 'killed'}})
		self.assertIn('resuming from', said[0])
		self.assertEqual(campaign.seed(logs, pub, {'a.c': 'y'}, said.append)['mutants'], {})
		campaign.save(logs, {'sources': {'a.c': 'x'}, 'mutants': {'n': {'outcome': 'not run'}}})
		self.assertEqual(list(campaign.seed(logs, pub, {'a.c': 'x'}, said.append)['mutants']),
				 ['n'])

	def test_a_mutant_run_again_must_be_in_the_record(self):
		kunit, req, group = self._one_file_tree()
		with self.assertRaisesRegex(WqKunitError, '6.12: no mutant nope in this tree'):
			campaign.run(kunit, req, [group], [], lambda m: True, 60, None, print, ['nope'])

	def test_a_mutant_no_longer_generated_leaves_the_record(self):
		kunit, req, group = self._one_file_tree()
		kept = mm.Mutant('g', 'a.c', 'f', 1, 1, 'cond-drop', '')
		path = os.path.join(self.tmp, campaign.RECORD)
		campaign.save(path, {'sources': campaign.sources(self.tmp, [group]),
				     'mutants': {'gone': {'outcome': 'survived'},
						 kept.name: {'outcome': 'killed'}}})
		said = []
		campaign.run(kunit, req, [group], [kept], lambda m: True, 60, None, said.append)
		self.assertEqual(list(campaign.load(path)['mutants']), [kept.name])
		self.assertIn('1 recorded mutants are no longer generated, dropped: gone', said[0])

	def test_the_boots_that_failed_are_named(self):
		ok = mock.Mock(failed_expectations=[], kind='passed')
		case = mock.Mock(failed_expectations=['s.c'], kind='case failed')
		hung = mock.Mock(failed_expectations=[], kind=campaign.verdict.CRASHED)
		self.assertEqual(campaign._where([('a', ok), ('b', case), ('c', hung)]), ['b', 'c'])

	def test_a_broken_record_is_refused_with_its_path(self):
		path = os.path.join(self.tmp, campaign.RECORD)
		with open(path, 'w', encoding='utf-8') as f:
			f.write('{')
		with self.assertRaisesRegex(WqKunitError, 'cannot read the campaign record'):
			campaign.load(path)


def _entry(function, operator, outcome):
	return {'function': function, 'operator': operator, 'outcome': outcome}


class FiguresTest(TempDirTest):
	RECORD = {'a': _entry('kick_pool', 'cond-negate', mutate.KILLED),
		  'b': _entry('kick_pool', 'cond-drop', mutate.SURVIVED),
		  'c': _entry('kick_pool', 'cond-drop', mutate.SURVIVED),
		  'd': _entry('__queue_work', 'cond-drop', mutate.NO_BUILD),
		  'e': _entry('__queue_work', 'cpu-arg', campaign.NOT_RUN),
		  'f': _entry('__queue_work', 'cond-drop', mutate.CRASHED),
		  'g': _entry('__queue_work', 'stmt-delete', campaign.SAME_OBJECT)}

	def test_each_verdict_lands_in_one_column(self):
		rows = figures.counts(self.RECORD, {'b': 'no guest sees it'}, 'function')
		self.assertEqual(rows['kick_pool'], {'generated': 3, 'run': 3, 'built': 3, 'killed': 1,
						     'crashed': 0, 'same object': 0, 'equivalent': 1,
						     'allowed': 0, 'race only': 0, 'open': 1})
		self.assertEqual(rows['__queue_work'], {'generated': 4, 'run': 3, 'built': 2,
							'killed': 0, 'crashed': 1, 'same object': 1,
							'equivalent': 0, 'allowed': 0, 'race only': 0,
							'open': 0})

	def test_an_argument_that_the_choice_is_free_counts_as_allowed(self):
		rows = figures.counts(self.RECORD, {'b': 'allowed: the hint may name any CPU'},
				      'function')
		self.assertEqual((rows['kick_pool']['allowed'], rows['kick_pool']['equivalent']), (1, 0))

	def test_an_argument_that_only_a_race_shows_it_counts_apart(self):
		rows = figures.counts(self.RECORD, {'b': 'race: only if a window outlasts'},
				      'function')
		self.assertEqual((rows['kick_pool']['race only'], rows['kick_pool']['equivalent'],
				  rows['kick_pool']['open']), (1, 0, 1))

	def test_open_mutants_are_the_survivors_without_an_argument(self):
		self.assertEqual(figures.open_mutants({'6.12': self.RECORD}, {'6.12': {'b': 'x'}}),
				 [('6.12', 'c')])

	def test_the_table_goes_between_the_markers(self):
		doc = f'x\n{figures.BEGIN}\nold\n{figures.END}\ny\n'
		self.assertEqual(figures.replace(doc, 'new\n'), f'x\n{figures.BEGIN}\nnew\n{figures.END}\ny\n')
		with self.assertRaises(WqKunitError):
			figures.replace('no markers', 'new\n')

	def test_the_published_table_is_the_one_the_records_give(self):
		with open(os.path.join(os.path.dirname(figures.PUBLISHED), '..', 'docs', 'mutation.md'),
			  encoding='utf-8') as f:
			doc = f.read()
		body = figures.table(figures.published(), figures.equivalents())
		self.assertEqual(figures.replace(doc, body), doc)


class MutantTreeTest(TempDirTest):
	def _git(self, *args):
		subprocess.run(['git', '-C', self.tmp, *args], check=True, capture_output=True)

	def setUp(self):
		super().setUp()
		self._git('init', '-q')
		with open(os.path.join(self.tmp, 'a.c'), 'w', encoding='utf-8') as f:
			f.write('int x;\n')
		self._git('add', 'a.c')
		self._git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'a')

	def test_a_tree_with_local_changes_is_refused(self):
		with open(os.path.join(self.tmp, 'a.c'), 'a', encoding='utf-8') as f:
			f.write('int y;\n')
		with self.assertRaisesRegex(WqKunitError, 'has local changes'):
			with mutant_tree.pristine(self.tmp):
				pass

	def test_a_tree_left_changed_is_named(self):
		with self.assertRaisesRegex(WqKunitError, 'is not as it was before the mutants'):
			with mutant_tree.pristine(self.tmp):
				with open(os.path.join(self.tmp, 'a.c'), 'a', encoding='utf-8') as f:
					f.write('int y;\n')


class SameObjectTest(TempDirTest):
	def _cmd(self, obj, deps):
		os.makedirs(os.path.join(self.tmp, os.path.dirname(obj)), exist_ok=True)
		head, name = os.path.split(obj)
		with open(os.path.join(self.tmp, head, f'.{name}.cmd'), 'w', encoding='utf-8') as f:
			f.write(f'savedcmd_{obj} := gcc\ndeps_{obj} := \\\n' +
				''.join(f'  /src/{d} \\\n' for d in deps))

	def test_a_file_compiled_on_its_own_is_its_object(self):
		self._cmd('kernel/workqueue.o', ['kernel/workqueue.c'])
		self.assertEqual(same_object.object_of(self.tmp, 'kernel/workqueue.c'),
				 'kernel/workqueue.o')

	def test_an_included_file_is_the_object_that_includes_it(self):
		self._cmd('kernel/sched/build_policy.o', ['kernel/sched/rt.c'])
		self._cmd('kernel/sched/build_utility.o', ['kernel/sched/isolation.c'])
		self.assertEqual(same_object.object_of(self.tmp, 'kernel/sched/isolation.c'),
				 'kernel/sched/build_utility.o')
		self.assertIsNone(same_object.object_of(self.tmp, 'kernel/sched/core.c'))

	def test_one_build_that_differs_or_cannot_tell_is_not_the_same(self):
		builds = [mock.Mock(build_dir='a'), mock.Mock(build_dir='b')]
		made = []
		def digest(kunit, *_):
			made.append(kunit.build_dir)
			return {'a': '1', 'b': '3'}[kunit.build_dir]
		with mock.patch.object(same_object, 'digest', digest):
			self.assertTrue(same_object.same(builds[:1], 'x.c', 2, 'log', {'a': '1'}))
			self.assertFalse(same_object.same(builds, 'x.c', 2, 'log', {'a': '1', 'b': '2'}))
			made.clear()
			self.assertFalse(same_object.same(builds, 'x.c', 2, 'log', {'a': '9', 'b': '3'}))
			self.assertEqual(made, ['a'])
			self.assertFalse(same_object.same(builds, 'x.c', 2, 'log', {'a': None, 'b': '3'}))


class StopTest(TempDirTest):
	def test_a_stop_file_stops_once_and_goes(self):
		said = []
		self.assertFalse(campaign.stop_asked(self.tmp, said.append))
		open(os.path.join(self.tmp, campaign.STOP), 'w', encoding='utf-8').close()
		self.assertTrue(campaign.stop_asked(self.tmp, said.append))
		self.assertFalse(os.path.exists(os.path.join(self.tmp, campaign.STOP)))
		self.assertFalse(campaign.stop_asked(self.tmp, said.append))
		self.assertIn('run the campaign again to go on', said[0])


class NumaStageTest(TempDirTest):
	"""A survivor of every arm boot boots the NUMA board too."""
	def _run(self, numa_fails):
		ok = mock.Mock(failed_expectations=[], kind='passed', passed=True)
		bad = mock.Mock(failed_expectations=['workqueue_topology.numa'], kind='case failed',
				passed=False)
		boots = {'default': ok, 'nohz-full': ok}
		arm = [mock.Mock(name=n) for n in boots]
		for b, n in zip(arm, boots):
			b.name = n
		numa = mock.Mock(boots=[mock.Mock()])
		numa.names.return_value = ['numa@arm64']
		numa.judged.return_value = ([('numa@arm64', bad if numa_fails else ok)], None)
		judged = [([('default', ok)], None), ([('nohz-full', ok)], None)]
		m = mm.Mutant('g', 'a.c', 'f', 1, 1, 'cond-drop', '')
		objects = mock.Mock(builds=[1])
		objects.same.return_value = False
		applied = mock.MagicMock()
		applied.return_value.__enter__.return_value = True

		def classify(_target, verdicts, _error):
			failed = [f for v in verdicts for f in v.failed_expectations]
			return (mutate.KILLED_OTHER, 'x', failed) if failed else (mutate.SURVIVED, '', [])
		with mock.patch.object(mutant_tree, 'applied', applied), \
		     mock.patch.object(mutate, 'judged_boots', side_effect=judged), \
		     mock.patch.object(mutate, 'classify', side_effect=classify), \
		     mock.patch.object(campaign, 'rest', return_value=arm[1:]):
			return campaign._one(mock.Mock(tree=self.tmp), mock.Mock(version='6.12'), m,
					     'p', arm[:1], 60, objects, numa)

	def test_a_survivor_of_every_arm_boot_dies_on_the_numa_board(self):
		entry = self._run(numa_fails=True)
		self.assertEqual((entry['outcome'], entry['stage']), (mutate.KILLED, 'numa board'))
		self.assertEqual(entry['boots'], ['default', 'nohz-full', 'numa@arm64'])
		self.assertEqual(entry['failed_in'], ['numa@arm64'])

	def test_a_survivor_of_the_numa_board_too_survives(self):
		entry = self._run(numa_fails=False)
		self.assertEqual((entry['outcome'], entry['stage']), (mutate.SURVIVED, 'numa board'))


class SameObjectLogTest(TempDirTest):
	def test_each_mutant_check_starts_an_empty_log(self):
		objects = campaign.Objects.__new__(campaign.Objects)
		objects.builds, objects.jobs, objects.pristine = [], 1, {'a.c': {}}
		objects.log = os.path.join(self.tmp, 'same-object.log')
		with open(objects.log, 'w', encoding='utf-8') as f:
			f.write('the last mutant\'s make\n')
		with mock.patch.object(same_object, 'same', return_value=False) as same:
			self.assertFalse(objects.same('a.c'))
		same.assert_called_once_with([], 'a.c', 1, objects.log, {})
		self.assertEqual(os.path.getsize(objects.log), 0)
