# SPDX-License-Identifier: GPL-2.0
"""A bad command line is refused in one line, before anything runs."""

import io
import os
import re
from contextlib import redirect_stderr, redirect_stdout
from unittest import mock

from tests.util import TempDirTest
from wqkunit.build import runner
from wqkunit.cli import arguments, main, options
from wqkunit.configs import arches, boot_configs
from wqkunit.evidence import mechanical_mutants


class CommandLineTest(TempDirTest):
	"""A bad command line: one line on stderr, exit 2 (1 for what it names
	that does not exist), and nothing installed, unpacked, built or booted."""
	# Each step a refused command line must not reach.
	STEPS = ('wqkunit.build.runner.run', 'wqkunit.build.runner.built',
		 'wqkunit.build.runner.prepared', 'wqkunit.base.debian_packages.ensure',
		 'wqkunit.gate.gate_check.check', 'wqkunit.tree.kernel_trees.cache_tree',
		 'wqkunit.configs.kernel_versions.default_version')

	def setUp(self):
		super().setUp()
		self.cache = os.path.join(self.tmp, 'cache')
		self.steps = []
		env = mock.patch.dict(os.environ, {'WQ_KUNIT_CACHE': self.cache})
		env.start()
		self.addCleanup(env.stop)
		for target in self.STEPS:
			p = mock.patch(target, side_effect=AssertionError(f'{target} called'))
			self.steps.append(p.start())
			self.addCleanup(p.stop)

	def main(self, argv):
		"""main.main(@argv): exit status, stdout, stderr."""
		out, err = io.StringIO(), io.StringIO()
		with redirect_stdout(out), redirect_stderr(err):
			rc = main.main(argv)
		return rc, out.getvalue(), err.getvalue()

	def refuse(self, argv, message, status=2, command=None):
		"""@argv ends with exit @status and the line of @message only, which
		for a usage error points to the --help of @command (default: @argv's)."""
		with self.subTest(argv=argv):
			rc, out, err = self.main(argv)
			line = f'wq-kunit: error: {message}'
			if status == 2:
				prog = ' '.join(filter(None, ('wq-kunit', argv[0] if command is None
								   else command)))
				line += f' (see {prog} --help)'
			self.assertEqual((rc, out, err), (status, '', line + '\n'))
			for step in self.steps:
				step.assert_not_called()
			self.assertFalse(os.path.exists(self.cache), 'a refused command made the cache')

	def test_a_version_without_kernel_is_not_a_kunit_py_argument(self):
		self.refuse(['run', '6.12'], "unexpected argument '6.12': a kernel version goes "
			    'with --kernel; arguments for kunit.py go after --')
		self.refuse(['run', '--boot', 'all', 'workqueue_percpu.*', '--', 'x'],
			    "unexpected argument 'workqueue_percpu.*': a kernel version goes "
			    'with --kernel; arguments for kunit.py go after --')
		self.refuse(['soak', '6.12', '--runs', '2'],
			    "unexpected argument '6.12': a kernel version goes with --kernel")
		self.refuse(['check', 'now'], "unexpected argument 'now'")

	def test_a_board_of_another_architecture_is_refused(self):
		self.refuse(['run', '--boot', 'numa'],
			    "boot configuration 'numa' does not apply to --arch arm (only arm64, x86_64)")
		self.refuse(['run', '--arch', 'um', '--boot', 'numa'],
			    "boot configuration 'numa' does not apply to --arch um (only arm64, x86_64)")

	def test_lava_refuses_what_it_does_not_know(self):
		self.refuse(['lava', '--device', 'pdp11'],
			    "argument --device: invalid choice: 'pdp11' (choose from 'qemu', "
			    "'odroid-xu3', 'rk3399-rock-pi-4b', 'juno-uboot')")
		self.refuse(['lava', '--kernel', '5.10'],
			    "unknown kernel version '5.10': supported are 6.1, 6.12")

	def test_only_run_takes_arguments_after_dashes(self):
		for command in ('check', 'soak', 'mutate', 'bench', 'report', 'claims',
				'alltests', 'coverage', 'manifest', 'faults'):
			self.refuse([command, '--', 'workqueue_percpu.*'],
				    "unexpected argument 'workqueue_percpu.*' after --: only run "
				    'passes arguments to kunit.py')

	def test_arguments_after_the_first_dashes_go_to_kunit_py_unchanged(self):
		args = options.parse(arguments.parser(), ['run', '--kernel', '6.12', '--', '6.1', '--json',
						    'x', '--', '--smp'])
		self.assertEqual((args.kernel, args.json, args.smp, args.kunit_args),
				 ('6.12', None, None, ['6.1', '--json', 'x', '--', '--smp']))
		self.assertEqual(options.parse(arguments.parser(), ['run', '--']).kunit_args, [])
		self.assertEqual(options.parse(arguments.parser(), ['run']).kunit_args, [])

	def test_every_count_is_one_or_more(self):
		for argv in (['run', '--jobs', '0'], ['run', '--timeout', '-1'],
			     ['check', '--jobs', 'many'], ['soak', '--runs', '0'],
			     ['soak', '--timeout', '0'], ['bench', '--runs', '0'],
			     ['bench', '--cold-runs', '0'], ['mutate', '--timeout', '1.5'],
			     ['report', '--jobs', '0'], ['alltests', '--timeout', '0'],
			     ['faults', '--timeout', '0']):
			self.refuse(argv, f'argument {argv[1]}: {argv[2]!r} is not a whole number '
				    'of 1 or more')

	def test_cpu_counts_outside_every_board_are_refused(self):
		self.refuse(['run', '--smp', '0'], 'argument --smp: 0 is not a CPU count from 1 '
			    'to 16 (--arch arm up to 8, arm64 up to 16, x86_64 up to 16, um up to 1)')
		self.refuse(['run', '--smp', '2,4'], "argument --smp: '2,4' is not a CPU count")
		self.refuse(['soak', '--smp', '2,,4'],
			    "argument --smp: '2,,4' is not a list of CPU counts such as 2,4,8")

	def test_check_and_soak_are_bounded_by_the_arm_board(self):
		self.refuse(['check', '--smp', '16'], 'argument --smp: 16 is not a CPU count from '
			    '1 to 8 (the gate boots arm up to 8, arm64 up to 16, x86_64 up to 16)')
		for smp in ('16', '2,4,16'):
			self.refuse(['soak', '--smp', smp], 'argument --smp: 16 is not a CPU count '
				    'from 1 to 8 (soak boots arm up to 8)')

	def test_run_is_bounded_by_its_arch(self):
		most = max(a.max_cpus for a in arches.ARCHES.values())
		for name, arch in arches.ARCHES.items():
			argv = ['run', '--kernel', '6.1', '--arch', name, '--smp', str(arch.max_cpus + 1)]
			if arch.max_cpus == most:
				message = f'argument --smp: {most + 1} is not a CPU count from 1 to {most}'
				message += f' ({options.RUN_WHY})'
			else:
				cpus = f'1 to {arch.max_cpus} CPUs' if arch.max_cpus > 1 else 'one CPU'
				message = f'--arch {name} boots {cpus}, not {arch.max_cpus + 1}'
			self.refuse(argv, message)
		self.refuse(['run', '--arch', 'um', '--smp', '2'], '--arch um boots one CPU, not 2')

	def test_run_boots_as_many_cpus_as_its_arch_has(self):
		run = self.steps[self.STEPS.index('wqkunit.build.runner.run')]
		run.side_effect = None
		run.return_value = runner.Outcome()
		for name, arch in arches.ARCHES.items():
			rc, _, err = self.main(['run', '--kernel', '6.1', '--arch', name,
						'--smp', str(arch.max_cpus)])
			self.assertEqual((rc, err), (0, ''), name)
			self.assertEqual(tuple(run.call_args[0][1].smps), (arch.max_cpus,), name)

	def test_options_that_exclude_each_other(self):
		self.refuse(['run', '--kernel', '6.1', '--tree', self.tmp],
			    '--kernel and --tree exclude each other')
		self.refuse(['run', '--kernel', '6.1', '--arch', 'x86_64', '--debug'],
			    '--debug is the arm debug build: not with --arch x86_64')

	def test_argparse_errors_are_one_line(self):
		for command in ('run', 'soak'):
			self.refuse([command, '--frob', '1'], 'unrecognized arguments: --frob')
		self.refuse(['run', '--arch', 'sparc'], "argument --arch: invalid choice: 'sparc' "
			    "(choose from 'arm', 'arm64', 'x86_64', 'um')")
		self.refuse(['alltests', '--arch', 'x86_64'], "argument --arch: invalid choice: "
			    "'x86_64' (choose from 'arm', 'um')")
		self.refuse(['soak', '--kernel'], 'argument --kernel: expected one argument')
		self.refuse(['frobnicate'], "argument COMMAND: invalid choice: 'frobnicate' "
			    "(choose from 'run', 'check', 'soak', 'mutate', 'bench', 'report', "
			    "'claims', 'records', 'alltests', 'coverage', 'manifest', 'faults', 'campaign', "
			    "'lava')", command='')

	def test_what_the_command_line_names_must_exist(self):
		self.refuse(['run', '--kernel', '9.9'], "unknown kernel version '9.9': supported "
			    'are 6.1, 6.12')
		known = ', '.join(b.name for b in boot_configs.load())
		self.refuse(['soak', '--kernel', '6.1', '--boot', 'nope'],
			    f"unknown boot configuration 'nope': known are {known}, all")
		self.refuse(['run', '--boot', 'nope'],
			    f"unknown boot configuration 'nope': known are {known}, all")
		self.refuse(['run', '--kernel', '6.1', '--boot', 'unbound-cpus'],
			    "boot configuration 'unbound-cpus' does not apply to 6.1 (only 6.12+)")
		self.refuse(['mutate', '--kernel', '6.1', '--only', 'nope'],
			    'no mutant named nope for 6.1', status=1)
		self.refuse(['campaign', '--function', 'nope'],
			    'nope: neither a group nor a function of kunit/surface.ini')
		self.refuse(['campaign', '--operator', 'nope'], "argument --operator: invalid "
			    "choice: 'nope' (choose from " + ', '.join(
				    repr(op.name) for op in mechanical_mutants.OPERATORS) + ')')

	def test_options_that_do_not_apply_are_refused_first(self):
		self.refuse(['run', '--homogeneous', '--arch', 'x86_64'],
			    '--homogeneous replaces the big.LITTLE board of arm and arm64; '
			    '--arch x86_64 has none')
		self.refuse(['faults', '--kernel', '6.12', '--case', 'nosuch'],
			    '--case nosuch: no such case in the series (a case name, without suite '
			    'or parameter)')
		not_a_dir = self.write('x', 'file')
		for out in (not_a_dir, os.path.join(not_a_dir, 'sub'), '/proc/report'):
			self.refuse(['report', '--out', out],
				    f'--out {out}: not a directory that can be written or made')

	def test_alone_it_prints_its_help_and_says_its_version(self):
		rc, out, err = self.main([])
		self.assertEqual((rc, err), (0, ''))
		self.assertTrue(out.startswith('usage: wq-kunit [-h] [--version] COMMAND'), out)
		rc, out, err = self.main(['--version'])
		self.assertEqual((rc, err), (0, ''))
		self.assertRegex(out, r'^wq-kunit \S+\n$')

	def test_help_still_works_on_every_command(self):
		for command in ('', 'run', 'check', 'soak', 'mutate', 'bench', 'report',
				'claims', 'records', 'alltests', 'coverage', 'manifest', 'faults', 'campaign',
				'lava'):
			rc, out, err = self.main([command, '--help'] if command else ['--help'])
			self.assertEqual((rc, err), (0, ''), command)
			self.assertTrue(out.startswith(f'usage: wq-kunit {command}'.rstrip()), out)
		rc, out, _ = self.main(['run', '--help'])
		self.assertIn('-- KUNIT_PY_ARGS', out)
		self.assertIn("'workqueue_percpu.*' one suite", ' '.join(out.split()))
		self.assertIn('--smp N', out)
		rc, out, _ = self.main(['--help'])
		self.assertIn('2 for a bad command line', ' '.join(out.split()))

	def test_help_names_every_boot_configuration(self):
		for command in ('run', 'check', 'soak', 'mutate'):
			out = ' '.join(self.main([command, '--help'])[1].split())
			for boot in boot_configs.load():
				with self.subTest(command=command, boot=boot.name):
					only = f' ({", ".join(boot.kernels)} only)' if boot.kernels else ''
					self.assertRegex(out, rf'[:,] {re.escape(boot.name + only)}[,;]')
