# SPDX-License-Identifier: GPL-2.0
"""run, soak, alltests and the gate end to end, on a fake tree whose kunit.py
replays consoles recorded from real boots (data/fake-tree, data/replay)."""

import io
import os
import shutil
import unittest
from contextlib import redirect_stdout
from unittest import mock

from tests.faketree import FakeTreeTest
from wqkunit.build import runner
from wqkunit.configs import boot_configs, kernel_versions
from wqkunit.gate import gate_check
from wqkunit.report import figures
from wqkunit.verdicts import manifest, verdict


class PassingTreeTest(FakeTreeTest):
	def test_run_boots_every_configuration_once_built(self):
		rc, out = self.main('run', '--kernel', '6.1', '--boot', 'all')
		self.assertEqual(rc, 0, out)
		n = len(boot_configs.select('all', '6.1'))
		self.assertEqual(out.count('booting 6.1'), n)
		self.assertEqual(out.count('building 6.1'), len(boot_configs.by_build(boot_configs.select('all', '6.1'))))
		self.assertTrue(out.rstrip().endswith(f'{71 * n} passed, 0 failed, {n} skipped'), out[-300:])
		# Each result as the guest prints it, named in full.
		self.assertIn('6.1 [default] ok workqueue_percpu.queue_work_on_runs_on_named_cpu.cpu0\n', out)

	def test_a_build_whose_inputs_did_not_change_is_skipped(self):
		"""Of the boot configurations, two that need a build each."""
		def two(text):
			head, *sections = text.split('\n[')
			return head + ''.join(f'\n[{s}' for s in sections if s.split(']')[0] in
					      ('default', 'power-efficient-default-y'))
		with self.boots_ini(two):
			self.built_again_only_when_an_input_changed()

	def built_again_only_when_an_input_changed(self):
		argv = ('run', '--kernel', '6.1', '--boot', 'all')
		rc, out = self.main(*argv)
		self.assertEqual(rc, 0, out)
		self.assertEqual(out.count('built in'), 2, out)
		build = os.path.join(self.cache, 'build', '6.1')
		self.assertIn(f'in {build}+wq_power_efficient_default\n', out)
		rc, out = self.main(*argv)
		self.assertEqual((rc, out.count('built in'), out.count('up to date')), (0, 0, 2), out)
		# A file of the tree that is not in its commit is an input.
		tree = os.path.join(self.cache, 'src', 'linux-6.1')
		with open(os.path.join(tree, 'kernel', 'new.c'), 'w', encoding='utf-8') as f:
			f.write('/* new */\n')
		rc, out = self.main('run', '--kernel', '6.1', '--boot', 'default')
		self.assertEqual((rc, out.count('built in'), out.count('up to date')), (0, 1, 0), out)

	def test_alltests_builds_and_boots_both_sides_through_the_runner(self):
		"""Both sides built and booted as every build is, results shown as
		they come, each side's verdict read: the same results, no problem."""
		rc, out = self.main('alltests', '--kernel', '6.1')
		self.assertEqual(rc, 0, out)
		for side in ('with', 'without'):
			self.assertEqual(out.count(f'booting 6.1 [alltests-{side}]'), 1, out)
			self.assertIn(f'6.1 [alltests-{side}] ok workqueue_percpu.queue_work_on_runs_'
				      f'on_named_cpu.cpu0', out)
		self.assertIn('6.1/arm all tests: ', out)
		self.assertIn('no problems', out)

	def test_soak_boots_each_configuration_runs_times(self):
		rc, out = self.main('soak', '--kernel', '6.1', '--runs', '2')
		self.assertEqual(rc, 0, out)
		self.assertIn('soak 6.1: 2 boots (CPUs 8, without host load), 0 with failures', out)

	def test_report_writes_table_and_plot(self):
		out_dir = os.path.join(self.tmp, 'out')
		# Drawing is FigureTest's (test_report.py): stand in for it here.
		def draw(results, directory):
			return [open(os.path.join(directory, n), 'w', encoding='utf-8').close() or
				os.path.join(directory, n) for n in figures.FIGURES]
		with mock.patch.object(figures, 'draw', draw):
			rc, out = self.main('report', '--kernel', '6.1', '--out', out_dir)
		self.assertEqual(rc, 0, out)
		self.assertEqual(out.count('booting 6.1 [report-'), 2)
		with open(os.path.join(out_dir, 'report.md'), encoding='utf-8') as f:
			text = f.read()
		self.assertIn('| 6.1 | periodic | LITTLE | ', text)
		self.assertIn('**6.1, power_efficient=0, mask little (CPUs 0-3)', text)
		for name in figures.FIGURES:
			self.assertTrue(os.path.isfile(os.path.join(out_dir, name)), name)

	@unittest.skipUnless(shutil.which('shellcheck'), 'the gate installs shellcheck')
	def test_gate_passes_end_to_end(self):
		# LAVA's schema is test_lava.py's: not checked here.
		with mock.patch.object(gate_check, 'tools_tests', return_value=True), \
		     mock.patch.object(gate_check.lava_command, 'validate'):
			rc, out = self.main('check', '--boot', 'default')
			# No kunit/expected/ for its builds yet: recorded, then it passes.
			self.assertEqual(rc, 1, out)
			self.assertIn('6.1 [default]: verdict: boot error', out)
			self.assertIn('kunit/expected/6.1.ini has no [default]: record it with '
				      'wq-kunit manifest --write', out)
			for version in kernel_versions.supported():
				self.assertIn(f'{version} debug: the broken case failed as it must', out)
			rc, out = self.main('manifest', '--write')
			self.assertEqual(rc, 0, out)
			self.assertIn('expected/6.12-um.ini: 1 boot configurations', out)
			rc, out = self.main('check', '--boot', 'default')
		self.assertEqual(rc, 0, out)
		for version in kernel_versions.supported():
			# The same debug kernel passed and caught it in the first run.
			self.assertIn(f'{version} debug: the suite passed and the broken case was caught '
				      'by this kernel before: not booted again', out)
			self.assertNotIn(f'{version} debug [', out)
		self.assertIn('checkpatch --strict and shellcheck: clean', out)
		# Nothing changed since the first run: no build, the debug ones
		# included, and no W=1 compilation.
		self.assertEqual(out.count('built in'), 0, out)
		# Two per kernel, debug included, and arm64 (the NUMA board), x86_64
		# and UML with the newest, arm64 with the others.
		self.assertEqual(out.count('up to date: nothing it is built from changed'), 8, out)
		self.assertEqual(out.count('sparse and kernel-doc: no warning (nothing it is built from changed'),
				 len(kernel_versions.supported()), out)


	def test_gate_fails_a_result_expected_to_pass_that_skips_or_is_missing(self):
		"""A regression that turns a case into a skip, or makes it vanish,
		fails the gate, naming it."""
		skipped = 'workqueue_unbound.unbound_wq_avoids_cpus_excluded_at_boot'
		# 6.1's boot alone: the other kernels and architectures add nothing.
		with mock.patch.object(gate_check, 'tools_tests', return_value=True), \
		     mock.patch.object(gate_check, 'OTHER_ARCHES', ()), \
		     mock.patch('wqkunit.configs.kernel_versions.supported', return_value=['6.1']):
			self.main('check', '--boot', 'default', '--no-debug')
			self.assertEqual(self.main('manifest', '--write')[0], 0)
			path = manifest.path_of('6.1')
			with open(path, encoding='utf-8') as f:
				text = f.read()
			self.assertIn(f'{skipped} = skip\n', text)
			with open(path, 'w', encoding='utf-8') as f:
				f.write(text.replace(f'{skipped} = skip', f'{skipped} = pass') +
					'workqueue_percpu.gone = pass\n')
			rc, out = self.main('check', '--boot', 'default', '--no-debug')
		self.assertEqual(rc, 1, out)
		summary = out.find('boots failed:')
		self.assertNotEqual(summary, -1, out)
		self.assertIn('6.1 [default]: verdict: case failed', out[summary:])
		for name, how in ((skipped, 'skipped'), ('workqueue_percpu.gone', 'not reported')):
			self.assertIn(f'not ok {name}\n          expected results check: {how}, '
				      'kunit/expected/6.1.ini says it passes in [default]', out[summary:])
		self.assertIn('FAILED step: boots 6.1 (1 of 1 boots failed: 6.1 [default])', out)
		rc, out = self.main('manifest')
		self.assertEqual(rc, 1, out)
		self.assertIn(f'6.1 [default]: {skipped} skipped', out)

	def test_boot_configuration_check_takes_its_expectation_from_boots_ini(self):
		"""The wq_unbound_cpumask isolcpus= leaves is checked against
		boots.ini: an expectation changed there fails the boot, though the
		kernel (here, the replay) is the same."""
		rc, out = self.main('run', '--kernel', '6.1', '--boot', 'isolcpus')
		self.assertEqual(rc, 0, out)
		with self.boots_ini(lambda text: text.replace('unbound_cpumask = {all} minus 1,2',
							      'unbound_cpumask = {all} minus 1')):
			rc, out = self.main('run', '--kernel', '6.1', '--boot', 'isolcpus')
		self.assertEqual(rc, 1, out)
		summary = out.index('1 of 1 boots failed:')
		self.assertIn('6.1 [isolcpus]: verdict: case failed', out[summary:])
		self.assertIn('not ok workqueue_unbound.unbound_cpumask_honours_boot_parameters\n'
			      '          boot configuration check: wq_unbound_cpumask at boot is '
			      '0,3,4,5,6,7, [isolcpus] in boots.ini wants 0,2-7 on 8 CPUs', out[summary:])
		self.assertTrue(out.rstrip().endswith('70 passed, 1 failed, 1 skipped'), out[-300:])


class FailingTreeTest(FakeTreeTest):
	MARKERS = '/* replay: fail if isolcpus */\n/* replay: no-results if nohz_full */\n'
	VERSIONS = ('6.1',)

	def test_failed_case_fails_the_run_and_says_why(self):
		"""KUnit's assertion lines under the failing result as it comes,
		and again in the end summary with the console's path."""
		rc, out = self.main('run', '--kernel', '6.1', '--boot', 'isolcpus')
		self.assertEqual(rc, 1)
		case = 'workqueue_unbound.unbound_cpumask_honours_boot_parameters'
		where = 'EXPECTATION FAILED at kernel/tests/workqueue_kunit.c:1289'
		live = out.index(f'6.1 [isolcpus] not ok {case}')
		self.assertIn(where, out[live:out.index('\n', live) + 200])
		summary = out.index('1 of 1 boots failed:')
		self.assertIn(f'verdict: {verdict.CASE_FAILED}', out[summary:])
		self.assertIn(f'not ok {case}', out[summary:])
		self.assertIn(where, out[summary:])
		self.assertIn('Expected cpumask_equal(ctx->saved_mask, want) to be true', out[summary:])
		self.assertIn('logs/6.1/isolcpus.console', out[summary:])
		self.assertTrue(out.rstrip().endswith('69 passed, 1 failed, 2 skipped'), out[-300:])

	def test_boot_without_results_fails_with_its_console(self):
		rc, out = self.main('run', '--kernel', '6.1', '--boot', 'nohz-full')
		self.assertEqual(rc, 1)
		self.assertIn('no KUnit results', out)
		self.assertIn('Kernel panic - not syncing', out)

	def test_soak_counts_the_failed_boots(self):
		rc, out = self.main('soak', '--kernel', '6.1', '--runs', '1', '--boot', 'isolcpus')
		self.assertEqual(rc, 1)
		self.assertIn('1 boots (CPUs 8, without host load), 1 with failures', out)


class HangingTreeTest(FakeTreeTest):
	MARKERS = '/* replay: hang wait */\n'
	VERSIONS = ('6.1',)

	def test_last_result_shows_while_the_guest_still_runs(self):
		"""The fake kunit.py does not end before the tools have shown its
		last result line: a reader that waited for the end would hang it
		(the replay's "wait"), so no clock is needed to tell."""
		req = runner.BuildRequest('6.1')
		ex = runner.ExecRequest(boot_configs.select('default', '6.1'), 60)
		with redirect_stdout(io.StringIO()) as out, runner.prepared(req) as kunit:
			kunit.build(1, os.path.join(self.tmp, 'build.log'))
			release = os.path.join(kunit.build_dir, 'release')

			def shown(*a, **_k):
				out.write(' '.join(map(str, a)) + '\n')
				if 'delayed_work_timer_is_armed_on_named_cpu.cpu0' in ' '.join(map(str, a)):
					open(release, 'w', encoding='utf-8').close()
			with mock.patch('builtins.print', shown):
				judged = runner.boot_once(kunit, req, ex, ex.boots[0], 8, self.tmp).judged
		with open(os.path.join(kunit.build_dir, 'waited'), encoding='utf-8') as f:
			self.assertEqual(f.read(), 'released\n')
		self.assertEqual(judged.kind, verdict.CRASHED)
		self.assertEqual(judged.stopped_in,
				 'after workqueue_percpu.delayed_work_timer_is_armed_on_named_cpu.cpu0')
		self.assertIn('the run stopped after workqueue_percpu.delayed_work_timer_is_armed'
			      '_on_named_cpu.cpu0', '\n'.join(judged.explain()))
