# SPDX-License-Identifier: GPL-2.0
"""The coverage map against a kernel's declared workqueue interface."""

import io
import os
import re
import shutil
from contextlib import redirect_stderr, redirect_stdout
from unittest import mock

from tests.util import DATA, TempDirTest, check_generated_page
from wqkunit.base import repo_paths
from wqkunit.base.errors import WqKunitError
from wqkunit.cli import arguments, options, table_commands
from wqkunit.evidence import claims, coverage, regressions
from wqkunit.tree import series

HEADER = """\
enum wq_flags {
	WQ_UNBOUND		= 1 << 1, /* not bound to any cpu */
	__WQ_ORDERED		= 1 << 17, /* internal */
	WQ_MAX_ACTIVE		= 512,
};
/* extern bool commented_out(int cpu); */
extern bool queue_work_on(int cpu, struct workqueue_struct *wq,
			struct work_struct *work);
__printf(1, 4) struct workqueue_struct *
alloc_workqueue(const char *fmt, unsigned int flags, int max_active, ...);
static inline bool queue_work(struct workqueue_struct *wq, struct work_struct *work)
#define INIT_DEFERRABLE_WORK(_work, _func)
#define alloc_ordered_workqueue(fmt, flags, args...)
#define __INIT_WORK(_work, _func, _onstack)
"""
SOURCE = """\
EXPORT_SYMBOL(queue_work_on);
EXPORT_SYMBOL_GPL(alloc_workqueue);
module_param_named(power_efficient, wq_power_efficient, bool, 0444);
__setup("workqueue.unbound_cpus=", workqueue_unbound_cpus_setup);
	__ATTR(cpumask, 0644, wq_cpumask_show, wq_cpumask_store),
static DEVICE_ATTR_RO(per_cpu);
"""
NAMES = {'WQ_UNBOUND', '__WQ_ORDERED', 'queue_work_on', 'alloc_workqueue', 'queue_work',
	 'INIT_DEFERRABLE_WORK', 'alloc_ordered_workqueue', 'workqueue.power_efficient',
	 'workqueue.unbound_cpus', 'sysfs:cpumask', 'sysfs:per_cpu'}
MAP = """\
[queue]
surface = api
names = queue_work_on queue_work alloc_workqueue
cases = workqueue_percpu.queue_work_on_runs_on_named_cpu

[ordered]
surface = api
names = alloc_ordered_workqueue __WQ_ORDERED
cases = workqueue_unbound.ordered_wq_follows_run_time_mask

[flags]
surface = flag
names = WQ_UNBOUND INIT_DEFERRABLE_WORK
reason = for the test

[sysfs]
surface = sysfs
names = sysfs:cpumask sysfs:per_cpu workqueue.power_efficient workqueue.unbound_cpus
reason = for the test

[hotplug]
surface = hotplug
also = a CPU going offline
cases = workqueue_hotplug.percpu_work_pending_on_cpu_going_down_runs
"""


class CoverageTest(TempDirTest):
	def tree(self, name: str, header: str = HEADER, source: str = SOURCE) -> str:
		tree = os.path.join(self.tmp, name)
		os.makedirs(os.path.join(tree, 'include', 'linux'))
		os.makedirs(os.path.join(tree, 'kernel'))
		with open(os.path.join(tree, coverage.HEADER), 'w', encoding='utf-8') as f:
			f.write(header)
		with open(os.path.join(tree, coverage.SOURCE), 'w', encoding='utf-8') as f:
			f.write(source)
		return tree

	def test_interface_reads_every_kind_of_name(self):
		self.assertEqual(set(coverage.interface(self.tree('t'))), NAMES)

	def test_a_map_that_covers_the_interface_has_no_problem(self):
		entries = coverage.load(self.write(MAP, 'coverage.ini'))
		self.assertEqual(coverage.check(entries, {'6.1': coverage.interface(self.tree('t'))}), [])

	def test_new_interface_stale_and_doubled_names_are_problems(self):
		tree = self.tree('t', HEADER + 'extern void new_api(int cpu);\n')
		text = MAP.replace('names = WQ_UNBOUND', 'names = gone_api WQ_UNBOUND __WQ_ORDERED')
		problems = coverage.check(coverage.load(self.write(text, 'coverage.ini')),
					  {'6.12': coverage.interface(tree)})
		self.assertIn('6.12 include/linux/workqueue.h: new_api has no entry in the coverage map',
			      problems)
		self.assertIn('[flags] names gone_api, which no supported tree has', problems)
		self.assertIn('__WQ_ORDERED is in [ordered] and in [flags]', problems)

	def test_an_entry_needs_cases_or_a_reason(self):
		for text, error in (
			(MAP.replace('reason = for the test\n\n[sysfs]', '\n[sysfs]'), 'cases or a reason'),
			(MAP.replace('surface = flag', 'surface = misc'), 'surface'),
			(MAP.replace('also = a CPU going offline\n', ''), 'covers nothing'),
		):
			with self.subTest(error):
				with self.assertRaisesRegex(WqKunitError, error):
					coverage.load(self.write(text, 'coverage.ini'))

	def test_table_counts_boots_per_kernel(self):
		logs = os.path.join(self.tmp, 'logs')
		shutil.copytree(os.path.join(DATA, 'logs'), logs)
		claims.record_gate(logs, {'6.1': ['default', 'nohz-full'],
					  '6.12': ['default', 'nohz-full']},
				   {'boot': 'all', 'smp': 8, 'kunit_args': []})
		runs = claims.gate_runs(logs)
		old = self.tree('old', HEADER.replace('#define alloc_ordered_workqueue', '#define x'))
		found = {'6.1': coverage.interface(old),
			 '6.12': coverage.interface(self.tree('new'))}
		entries = coverage.load(self.write(MAP, 'coverage.ini'))
		# Kills come from a recorded mutation run, by the cases that failed.
		mutation = {'6.1': {'complete': True, 'mutants': [
				{'name': 'm', 'outcome': 'killed', 'failed': [
					'workqueue_percpu.queue_work_on_runs_on_named_cpu.cpu1']},
				{'name': 'r', 'outcome': 'kernel report only', 'failed': []}]},
			    '6.12': None}
		rows = {}
		for line in coverage.table(entries, found, runs, mutation).splitlines()[2:]:
			cells = [c.strip() for c in line.strip('|').split('|')]
			rows[cells[0]] = cells[1:]
		self.assertEqual(rows['queue (api)'][2:], [
			'asserted in 2 of 2 boots; kills 1 mutant',
			'asserted in 2 of 2 boots; no complete mutation run recorded'])
		self.assertEqual(rows['flags (flag)'][2:], ['no case', 'no case'])
		self.assertIn('`alloc_ordered_workqueue` (6.12)', rows['ordered (api)'][0])
		self.assertEqual(rows['hotplug (hotplug)'][0], 'a CPU going offline')

	def test_other_architectures_count_for_their_kernel(self):
		run = claims.Run({}, '')
		runs = {'6.1': {'default': run}, '6.1-arm64': {'numa': run},
			'6.12': {'default': run}, '6.12-x86_64': {'numa': run, 'maxcpus': run}}
		self.assertEqual(sorted(coverage._of_version(runs, '6.1')), ['arm64/numa', 'default'])
		self.assertEqual(sorted(coverage._of_version(runs, '6.12')),
				 ['default', 'x86_64/maxcpus', 'x86_64/numa'])

	def test_every_case_the_maps_name_is_in_the_series(self):
		defined = set(series.cases(series.every()))
		maps = [coverage.COVERAGE, os.path.join(repo_paths.KUNIT_DIR, 'claims.ini')]
		for path in maps:
			with open(path, encoding='utf-8') as f:
				named = re.findall(r'^cases = (.*)$', f.read(), re.M)
			for case in ' '.join(named).split():
				with self.subTest(case=case):
					self.assertIn(case.split('.')[1], defined, path)

	def test_the_real_map_loads(self):
		self.assertGreater(len(coverage.load()), 30)

	def test_the_table_has_a_page_of_its_own(self):
		self.assertEqual(os.path.relpath(coverage.PAGE, repo_paths.REPO), 'docs/coverage.md')
		check_generated_page(self, coverage.PAGE, coverage.BEGIN, coverage.END,
				     'tools/wq-kunit coverage --write')

	def coverage_command(self, *argv):
		"""coverage with @argv, the map, logs and pages faked: its tables
		are "| coverage |" and "| corpus |", its pages coverage.md and
		corpus.md in the temporary directory, each with its markers.
		Returns the exit status and what it printed."""
		pages = {}
		for name, module in (('coverage.md', coverage), ('corpus.md', regressions)):
			pages[module] = self.write(f'# {name}\n{module.BEGIN}\nold\n{module.END}\n', name)
		args = options.parse(arguments.parser(), ['coverage'] + list(argv))
		out = io.StringIO()
		with mock.patch.object(coverage, 'load', return_value=[]), \
		     mock.patch.object(coverage, 'trees', return_value={}), \
		     mock.patch.object(coverage, 'check', return_value=[]), \
		     mock.patch.object(coverage, 'mutation_runs', return_value={}), \
		     mock.patch.object(claims, 'gate_runs', return_value={}), \
		     mock.patch.object(coverage, 'table', return_value='| coverage |\n'), \
		     mock.patch.object(regressions, 'table', return_value='| corpus |\n'), \
		     mock.patch.object(coverage, 'PAGE', pages[coverage]), \
		     mock.patch.object(regressions, 'PAGE', pages[regressions]), \
		     redirect_stdout(out), redirect_stderr(io.StringIO()):
			return table_commands.coverage_map(args), out.getvalue()

	def table_in(self, name, module):
		with open(os.path.join(self.tmp, name), encoding='utf-8') as f:
			text = f.read()
		return text[text.index(module.BEGIN) + len(module.BEGIN) + 1:text.index(module.END)]

	def test_write_puts_each_table_in_its_page(self):
		corpus, cov = (os.path.join(self.tmp, n) for n in ('corpus.md', 'coverage.md'))
		self.assertEqual(self.coverage_command('--write'), (0, (
			f'wq-kunit: {corpus}: regression corpus table updated\n'
			f'wq-kunit: {cov}: coverage table updated\n')))
		self.assertEqual(self.table_in('coverage.md', coverage), '| coverage |\n')
		self.assertEqual(self.table_in('corpus.md', regressions), '| corpus |\n')

	def test_write_file_puts_there_each_table_whose_markers_it_has(self):
		only = self.write(f'top\n{regressions.BEGIN}\nold\n{regressions.END}\nend\n', 'one.md')
		self.assertEqual(self.coverage_command('--write', only),
				 (0, f'wq-kunit: {only}: regression corpus table updated\n'))
		with open(only, encoding='utf-8') as f:
			self.assertEqual(f.read(), f'top\n{regressions.BEGIN}\n| corpus |\n'
					 f'{regressions.END}\nend\n')
		self.assertEqual(self.table_in('coverage.md', coverage), 'old\n')
		none = self.write('no markers\n', 'none.md')
		with self.assertRaisesRegex(WqKunitError, 'none.md has neither the coverage markers'):
			self.coverage_command('--write', none)

	def test_without_write_both_tables_are_printed(self):
		self.assertEqual(self.coverage_command(), (0, '| corpus |\n| coverage |\n'))
		self.assertEqual(self.table_in('coverage.md', coverage), 'old\n')
