# SPDX-License-Identifier: GPL-2.0
"""The gate's verdict, no kernel built: every step mocked to pass but the
one under test, whose failure must be named and counted in the last line;
and the gate with --smp N, whose logs the claims' record must find."""

import io
import os
import re
import shutil
import subprocess
from contextlib import redirect_stdout
from dataclasses import replace
from unittest import mock

from tests.util import DATA, TempDirTest
from wqkunit.base import repo_paths
from wqkunit.base.errors import WqKunitError
from wqkunit.build import runner
from wqkunit.configs import arches, board, boot_configs, log_names
from wqkunit.evidence import claims
from wqkunit.gate import boot_jobs, gate_check, static_checks
from wqkunit.lava import lava_job
from wqkunit.tree import series
from wqkunit.verdicts import kunit_results, splats, verdict

LOGS = os.path.join(DATA, 'logs')
COUNT = re.compile(r'^\d+ passed, (\d+) failed, \d+ skipped$')


def _boot(name):
	return boot_configs.Boot(name=name, description=name, kernel_args=[], kernels=None)


def _select(name, version, *args, **kwargs):
	"""boot_configs.select over the configurations data/logs/ has."""
	return [_boot('default')] + ([] if name == 'default' else [_boot('nohz-full')])


class FakeRun:
	"""runner.run without a kernel: each boot's JSON and console copied
	from data/logs/ into the cache, named by log_names.stem(), and judged
	from that JSON; boots labelled in @failing get a failed case.  In the
	debug build, the broken case is caught if @caught."""

	def __init__(self, caught=True, failing=()):
		self.caught, self.failing = caught, failing

	def __call__(self, req, ex, log=None):
		out = runner.Outcome(tree=os.path.join(repo_paths.cache_dir(), 'src', req.version))
		os.makedirs(req.logs, exist_ok=True)
		for b in ex.boots:
			for smp in ex.smps:
				out.boots.append(self.boot(req, b, smp))
		return out

	def built(self, req, ex, held, log=None):
		"""runner.built: the tree, and what boots @ex's boots but those
		its `skip` names."""
		def boot(skip=()):
			return self(req, replace(ex, boots=[b for b in ex.boots if b.name not in skip]))
		return os.path.join(repo_paths.cache_dir(), 'src', req.version), boot

	def boot(self, req, b, smp):
		label = f'{req.label} [{b.name}]'
		stem = os.path.join(req.logs, log_names.stem(b.name, smp,
							    default=arches.get(req.arch).cpus))
		if req.debug:
			caught = self.caught and b.name == boot_jobs.BROKEN_BOOT.name
			failures = [f'{boot_jobs.BROKEN_NAME} ({boot_jobs.BROKEN_KIND} report)'] if caught else []
			counts = kunit_results.Counts(passed=1 - len(failures), failed=len(failures),
						failures=failures)
		else:
			for ext in ('json', 'console'):
				shutil.copyfile(os.path.join(LOGS, req.label, f'{b.name}.{ext}'),
						f'{stem}.{ext}')
			with open(f'{stem}.json', encoding='utf-8') as f:
				counts = kunit_results.count(f.read())
			if label in self.failing:
				counts.failed += 1
				counts.failures.append(f'{b.name}.case (FAIL)')
		reports = [splats.Splat(boot_jobs.BROKEN_KIND, boot_jobs.BROKEN_NAME, ['ODEBUG: init active'])
			   for f in counts.failures if 'report)' in f]
		judged = verdict.Verdict(counts, counts.total(), False, reports)
		return runner.Boot(b.name, label, judged, f'{stem}.console', 1.0)


class GateTest(TempDirTest):
	def setUp(self):
		super().setUp()
		self.cache = os.path.join(self.tmp, 'cache')
		for p in (mock.patch.dict(os.environ, {'WQ_KUNIT_CACHE': self.cache}),
			  mock.patch('wqkunit.configs.kernel_versions.supported', return_value=['6.1', '6.12']),
			  mock.patch('wqkunit.configs.boot_configs.select', _select),
			  mock.patch('wqkunit.base.debian_packages.ensure'),
			  mock.patch('wqkunit.build.runner.built', FakeRun().built)):
			p.start()
			self.addCleanup(p.stop)
		# Every step but the boots passes, unless a test puts it back;
		# LAVA's schema needs Debian's lava-common, which lava/test_lava.py
		# checks the jobs against where it is installed.
		self.passing = dict(OTHER_ARCHES=('arm64',), tools_tests=lambda: True,
				    w1=lambda version, tree: gate_check.Step(f'W=1 {version}', True),
				    style=lambda tree: gate_check.Step('checkpatch and shellcheck', True),
				    coverage_map=lambda: gate_check.Step('coverage map', True),
				    lava_jobs=lambda: gate_check.Step('LAVA jobs', True))

	def gate(self, smp=8, **steps):
		"""gate_check.check with @steps over the passing ones: the failed count
		of its last line, checked against its verdict, and its lines."""
		out = io.StringIO()
		with mock.patch.multiple(gate_check, **dict(self.passing, **steps)), redirect_stdout(out):
			ok = gate_check.check('all', 1, 60, smp)
		lines = out.getvalue().splitlines()
		count = COUNT.match(lines[-1])
		self.assertTrue(count, lines[-3:])
		failed = int(count.group(1))
		self.assertEqual(ok, failed == 0, lines[-3:])
		return failed, lines

	def failed_steps(self, lines):
		"""The FAILED step lines, which must come right before the count."""
		found = [l for l in lines if l.startswith('  FAILED step: ')]
		self.assertEqual(lines[-1 - len(found):-1], found)
		return found

	def test_every_step_passes(self):
		failed, lines = self.gate()
		self.assertEqual((failed, self.failed_steps(lines)), (0, []))
		self.assertIn('none failed; failed below: 0 KUnit results + 0', lines[-2])

	def test_w1_fails_with_every_boot_passing(self):
		logs = {}
		for version in ('6.1', '6.12'):
			req = runner.BuildRequest(version)
			os.makedirs(os.path.join(req.build_path, 'kernel', 'tests'))
			for obj in series.OBJECTS:
				name = os.path.join(req.build_path, obj)
				open(name, 'w').close()
				open(os.path.join(os.path.dirname(name),
						  '.' + os.path.basename(name) + '.cmd'), 'w').close()
			logs[version] = os.path.join(req.logs, 'w1.log')
		warned = f'O={runner.BuildRequest("6.12").build_path}'

		def make(cmd, on_line=None, **kwargs):
			if warned in cmd:
				kwargs['stdout'].write('kernel/tests/workqueue_kunit.c:1:2: warning: no '
						       'previous prototype\n' * 3)
				kwargs['stdout'].write('kernel/workqueue.c:3:4: warning: context '
						       'imbalance\n')
			return 0
		with mock.patch.object(static_checks, 'run_tree', make):
			failed, lines = self.gate(w1=static_checks.w1)
		self.assertEqual(failed, 1)
		self.assertEqual(self.failed_steps(lines),
				 [f'  FAILED step: W=1, sparse, kernel-doc 6.12 (3 warnings, {logs["6.12"]})'])
		self.assertIn(', 1 failed; failed below: 0 KUnit results + 1 ', lines[-3])

	def test_only_the_series_own_files_warnings_count(self):
		lines = ['  CHECK   kernel/workqueue.c',
			 '/src/kernel/workqueue.c:3551:13: warning: context imbalance',
			 '../kernel/tests/workqueue_kunit.c:12:1: warning: symbol was not declared',
			 'kernel/tests/workqueue_kunit.c:1: warning: Function parameter not described',
			 'make: *** [Makefile:1] error: something']
		ours, upstream = static_checks.ours_and_upstream(lines, ['kernel/tests/workqueue_kunit.c'])
		self.assertEqual(ours, lines[2:])
		self.assertEqual(upstream, [lines[1]])

	def test_coverage_map_fails(self):
		with mock.patch('wqkunit.evidence.coverage.load', return_value=['queue', 'flags']), \
		     mock.patch('wqkunit.evidence.coverage.trees', return_value={}), \
		     mock.patch('wqkunit.evidence.coverage.check', return_value=['[flags]: WQ_X is gone']):
			failed, lines = self.gate(coverage_map=gate_check.coverage_map)
		self.assertEqual(failed, 1)
		self.assertEqual(self.failed_steps(lines),
				 ['  FAILED step: coverage map (1 problems, listed above)'])

	def test_lava_step_checks_every_example_job(self):
		with mock.patch.object(gate_check.lava_command, 'validate') as validate, \
		     redirect_stdout(io.StringIO()):
			step = gate_check.lava_jobs()
		self.assertTrue(step.ok)
		files = validate.call_args.args[0]
		self.assertEqual(len(files), 2 * len(lava_job.BOARDS))
		self.assertTrue(all(f.startswith(lava_job.EXAMPLES) for f in files), files)

	def test_lava_jobs_the_schema_refuses_fail_the_gate(self):
		refused = WqKunitError('LAVA\'s schema refuses x.yaml: not a job')
		with mock.patch.object(gate_check.lava_command, 'validate', side_effect=refused):
			failed, lines = self.gate(lava_jobs=gate_check.lava_jobs)
		self.assertEqual(failed, 1)
		self.assertEqual(self.failed_steps(lines),
				 ['  FAILED step: LAVA jobs (could not run: LAVA\'s schema refuses x.yaml: '
				  'not a job)'])

	def test_a_step_that_cannot_run_fails_and_the_gate_goes_on(self):
		def cannot(version, tree):
			raise WqKunitError('the coverage trees are gone')
		failed, lines = self.gate(w1=cannot)
		self.assertEqual(failed, 2)
		self.assertIn('  FAILED step: W=1, sparse, kernel-doc 6.1 (could not run: the coverage trees '
			      'are gone)',
			      self.failed_steps(lines))

	def test_w1_of_a_build_that_failed_is_a_failed_step(self):
		with mock.patch('wqkunit.base.file_locks.held'):
			step = static_checks.w1('6.1', self.tmp)
		self.assertEqual((step.ok, step.detail),
				 (False, 'no kernel/workqueue.o: the build failed'))

	def style(self, perl_rc, shellcheck_rc):
		"""The gate with checkpatch and shellcheck exiting so."""
		patch = os.path.join(DATA, 'nonsense.patch')
		real = subprocess.run

		def run(cmd, *args, **kwargs):
			if cmd[:2] == ['git', 'rev-parse']:
				return subprocess.CompletedProcess(cmd, 0, 'c0ffee\n', '')
			rc = {'perl': perl_rc, 'shellcheck': shellcheck_rc}.get(cmd[0])
			if rc is None:
				return real(cmd, *args, **kwargs)
			return subprocess.CompletedProcess(cmd, rc, 'ERROR: bad\n' if rc else '', '')
		with mock.patch('wqkunit.tree.series.patches', return_value=[patch]), \
		     mock.patch('subprocess.run', run):
			return self.gate(style=gate_check.style)

	def test_checkpatch_fails(self):
		failed, lines = self.style(1, 0)
		self.assertEqual(failed, 1)
		self.assertEqual(self.failed_steps(lines), ['  FAILED step: checkpatch and shellcheck '
							    '(checkpatch nonsense.patch)'])
		failed, lines = self.style(0, 1)
		self.assertEqual(self.failed_steps(lines), ['  FAILED step: checkpatch and shellcheck '
							    '(shellcheck .ci/run)'])

	def test_tools_tests_fail(self):
		failed, lines = self.gate(tools_tests=lambda: False)
		self.assertEqual(failed, 1)
		self.assertEqual(self.failed_steps(lines),
				 ["  FAILED step: tools' tests (their output is above)"])

	def test_broken_case_not_caught(self):
		with mock.patch('wqkunit.build.runner.built', FakeRun(caught=False).built):
			failed, lines = self.gate()
		self.assertEqual(failed, 2)
		self.assertEqual(self.failed_steps(lines), [
			f'  FAILED step: debug {v}: broken case caught (not among the failures of '
			f'{v}-debug [broken-case])' for v in ('6.1', '6.12')])

	def test_failed_boot_is_named_and_counted_once(self):
		with mock.patch('wqkunit.build.runner.built', FakeRun(failing=['6.12 [nohz-full]']).built):
			failed, lines = self.gate()
		self.assertEqual(failed, 1)
		self.assertEqual(self.failed_steps(lines),
				 ['  FAILED step: boots 6.12 (1 of 2 boots failed: 6.12 [nohz-full])'])
		self.assertIn('  FAILED nohz-full.case (FAIL)', lines)

	def test_unrecorded_logs_fail_the_gate(self):
		with mock.patch.object(claims, 'record_gate', side_effect=FileNotFoundError('x.json')):
			failed, lines = self.gate()
		self.assertEqual(failed, 1)
		self.assertEqual(self.failed_steps(lines),
				 ['  FAILED step: record of the logs for the claims (x.json)'])

	def test_summary_without_steps_is_unchanged(self):
		out = io.StringIO()
		with redirect_stdout(out):
			gate_check.summary(['soak 6.1: 2 boots'], kunit_results.Counts(3, 1, 0, ['a.b (FAIL)']))
		self.assertEqual(out.getvalue(), 'wq-kunit: summary:\n  soak 6.1: 2 boots\n'
				 '  FAILED a.b (FAIL)\n3 passed, 1 failed, 0 skipped\n')

	def test_more_cpus_than_arm_has(self):
		with self.assertRaisesRegex(WqKunitError, r'--smp 16: the gate boots arm, .* 1 to 8 CPUs'):
			self.gate(smp=16)

	def test_smp4_gate_records_its_logs_for_the_claims(self):
		failed, lines = self.gate(smp=4)
		self.assertEqual(failed, 0, lines[-3:])
		root = os.path.join(self.cache, 'logs')
		with open(os.path.join(root, claims.GATE), encoding='utf-8') as f:
			recorded = f.read()
		for rel in ('6.1/nohz-full.smp4.json', '6.12/default.smp4.console',
			    '6.12-arm64/default.smp4.json'):
			self.assertIn(f'"{rel}"', recorded)
		self.assertNotIn('"6.1/default.json"', recorded)
		# The claims are of 8 CPUs: refused in one line that says why.
		with self.assertRaisesRegex(WqKunitError, r'^the last gate was filtered \(--smp 4\), '
					    r'[^\n]*8 CPUs: run tools/wq-kunit check without options$'):
			claims.gate_runs(root)
		runs = claims.gate_runs(root, filtered=True)
		self.assertEqual({v: sorted(r) for v, r in runs.items()},
				 {'6.1': ['default', 'nohz-full'], '6.12': ['default', 'nohz-full'],
				  '6.1-arm64': ['default'], '6.12-arm64': ['default']})
		self.assertEqual(runs['6.12']['default'].results[
			'workqueue_percpu.queue_work_on_runs_on_named_cpu.cpu0'], 'PASS')
		# A later run with 4 CPUs replaces a log the gate recorded.
		with open(os.path.join(root, '6.1', 'default.smp4.console'), 'a',
			  encoding='utf-8') as f:
			f.write('later\n')
		with self.assertRaisesRegex(WqKunitError, 'default.smp4.console is not the one'):
			claims.gate_runs(root, filtered=True)


class Stop(Exception):
	"""Raised by NamingKunit.boot with the console it was given."""


class NamingKunit:
	def boot(self, kernel_args, kunit_args, timeout, console, *args, **kwargs):
		raise Stop(console)


class LogNamesTest(TempDirTest):
	def test_the_runner_names_logs_as_lognames_does(self):
		for arch, smp, prefix, other in (('arm', 8, '', None), ('arm', 4, '', None),
						 ('arm64', 2, '', None), ('x86_64', 16, '', None),
						 ('arm', 8, 'report.', None),
						 ('arm', 4, '', board.HOMOGENEOUS)):
			with self.subTest(arch=arch, smp=smp, prefix=prefix, board=other):
				req = runner.BuildRequest('6.12', arch=arch)
				ex = runner.ExecRequest([_boot('default')], live=False, log_prefix=prefix,
							board=other or arches.get(arch).board)
				with self.assertRaises(Stop) as stop, redirect_stdout(io.StringIO()):
					runner.boot_once(NamingKunit(), req, ex, ex.boots[0], smp, self.tmp)
				stem = log_names.stem('default', smp, prefix, other)
				self.assertEqual(stop.exception.args[0],
						 os.path.join(self.tmp, f'{stem}.console'))
