# SPDX-License-Identifier: GPL-2.0
"""Kernel versions, boot configurations, the series and the command line:
bad input is refused."""

import email
import io
import os
import re
import unittest
from contextlib import redirect_stderr, redirect_stdout
from unittest import mock

from tests.util import TempDirTest
from wqkunit.base.errors import WqKunitError
from wqkunit.build import runner
from wqkunit.cli import arguments, main, options
from wqkunit.configs import arches, boot_configs, kernel_versions
from wqkunit.tree import series


class KernelsTest(unittest.TestCase):
	def test_supported_versions(self):
		self.assertEqual(kernel_versions.supported(), ['6.1', '6.12'])

	def test_unknown_version_is_refused_naming_the_known_ones(self):
		with self.assertRaisesRegex(WqKunitError, r"unknown kernel version '5.10'.*6.1, 6.12"):
			kernel_versions.check('5.10')

	def test_known_version_passes(self):
		self.assertEqual(kernel_versions.check('6.12'), '6.12')


class BootsTest(TempDirTest):
	def test_repository_has_a_default_boot(self):
		self.assertIn('default', [b.name for b in boot_configs.load()])

	def test_boots_that_cannot_run_are_refused(self):
		refusals = [
			('[default]\nkernel_args =\n[pe-on]\nkernel_args = a=1\n', 'x',
			 "unknown boot configuration 'x'.*default, pe-on, all"),
			('[only612]\nkernels = 6.12\n', 'only612', 'does not apply to 6.1'),
		]
		for text, name, error in refusals:
			with self.subTest(name), self.assertRaisesRegex(WqKunitError, error):
				boot_configs.select(name, '6.1', self.write(text))

	def test_all_selects_those_that_apply_to_the_version(self):
		path = self.write('[default]\n[only612]\nkernels = 6.12\n')
		self.assertEqual([b.name for b in boot_configs.select('all', '6.1', path)], ['default'])
		self.assertEqual([b.name for b in boot_configs.select('all', '6.12', path)],
				 ['default', 'only612'])

	def test_a_version_and_later(self):
		""""6.12+" takes 6.12 and every later tree, 7.1 and 6.13 too, not 6.1."""
		path = self.write('[default]\n[new]\nkernels = 6.12+\n')
		for version, names in (('6.1', ['default']), ('6.12', ['default', 'new']),
				       ('6.13', ['default', 'new']), ('7.1', ['default', 'new'])):
			with self.subTest(version):
				self.assertEqual([b.name for b in boot_configs.select('all', version, path)], names)

	def test_unbound_cpumask_since_a_version(self):
		"""The newest "since" a version has reached wins; before any, the
		plain key."""
		path = self.write('[x]\nunbound_cpumask = {little}\n'
				  'unbound_cpumask since 7.1 = {all}\n'
				  'unbound_cpumask since 6.12 = {big}\n')
		b = boot_configs.select('x', '6.1', path)[0]
		self.assertEqual(b.unbound_for(8, '6.1'), [0, 1, 2, 3])
		self.assertEqual(b.unbound_for(8, '6.12'), [4, 5, 6, 7])
		self.assertEqual(b.unbound_for(8, '7.1'), list(range(8)))
		self.assertIn('wants 4-7 on 8 CPUs of 6.12',
			      b.check_console('wq_unbound_cpumask at boot: 0-7\n', 8, '6.12'))
		self.assertIsNone(b.check_console('wq_unbound_cpumask at boot: 0-7\n', 8, '7.1'))

	def test_power_efficient_mode_per_version(self):
		"""The mode printed is checked against the configuration's, and a
		"since" line changes it from that version on."""
		path = self.write('[x]\npower_efficient = off\npower_efficient since 6.12 = on\n')
		b = boot_configs.select('x', '6.1', path)[0]
		line = '# power_efficient_mode_matches_boot: workqueue.power_efficient=1 nohz_full=1\n'
		self.assertIn('is on, [x] in boots.ini wants off on 6.1', b.check_mode(line, '6.1'))
		self.assertIsNone(b.check_mode(line, '6.12'))
		self.assertIn('no "workqueue.power_efficient=N', b.check_mode('', '6.12'))
		with self.assertRaisesRegex(WqKunitError, "'maybe' is not on or off"):
			boot_configs.load(self.write('[y]\npower_efficient = maybe\n'))

	def test_malformed_version_keys_are_refused(self):
		for text, error in (('[x]\nkernels = 6.12-\n', "'6.12-' is not X.Y or X.Y\\+"),
				    ('[x]\nunbound_cpumask after 7.1 = {all}\n',
				     'write it as "unbound_cpumask since X.Y"')):
			with self.subTest(text), self.assertRaisesRegex(WqKunitError, error):
				boot_configs.load(self.write(text))

	def test_kernel_args_are_split(self):
		path = self.write('[x]\nkernel_args = isolcpus=0-1 workqueue.power_efficient=1\n')
		self.assertEqual(boot_configs.select('x', '6.1', path)[0].kernel_args,
				 ['isolcpus=0-1', 'workqueue.power_efficient=1'])

	def test_malformed_file_is_an_error(self):
		path = self.write('kernel_args = no section\n')
		with self.assertRaisesRegex(WqKunitError, 'cannot read boot configurations'):
			boot_configs.load(path)


class BoardSizeTest(unittest.TestCase):
	"""A configuration means the same on a board of any size, or is not
	booted: nohz_full=4-7 on 4 CPUs names CPUs the board lacks."""

	@staticmethod
	def boot(*args):
		return boot_configs.Boot(name='x', description='', kernel_args=list(args), kernels=None)

	def test_big_is_the_upper_half_of_the_board(self):
		b = self.boot('nohz_full={big}', 'quiet')
		self.assertEqual(b.args_for(8), ['nohz_full=4-7', 'quiet'])
		self.assertEqual(b.args_for(4), ['nohz_full=2-3', 'quiet'])
		self.assertEqual(b.args_for(3), ['nohz_full=1-2', 'quiet'])
		self.assertEqual(b.args_for(2), ['nohz_full=1', 'quiet'])
		self.assertIsNone(b.args_for(1))

	def test_half_is_the_size_of_the_lower_half(self):
		b = boot_configs.Boot(name='x', description='', kernel_args=['maxcpus={half}'],
			       kernels=None, online='{little}')
		self.assertEqual(b.args_for(8), ['maxcpus=4'])
		self.assertEqual(b.args_for(16), ['maxcpus=8'])
		self.assertEqual(b.online_for(8), [0, 1, 2, 3])
		self.assertIsNone(b.args_for(1))
		self.assertEqual(self.boot().online_for(4), [0, 1, 2, 3])

	def test_a_cpu_the_board_lacks_is_not_booted(self):
		self.assertEqual(self.boot('isolcpus=1,2').args_for(3), ['isolcpus=1,2'])
		self.assertIsNone(self.boot('isolcpus=1,2').args_for(2))
		self.assertIsNone(self.boot('isolcpus=domain,4-7').args_for(4))
		self.assertIsNone(self.boot('workqueue.unbound_cpus=4-7').args_for(4))

	def test_the_project_configurations_keep_their_eight_cpu_meaning(self):
		named = {b.name: b.args_for(8) for b in boot_configs.load()}
		self.assertEqual(named['nohz-full'], ['nohz_full=4-7'])
		self.assertEqual(named['unbound-cpus'], ['workqueue.unbound_cpus=4-7'])
		self.assertEqual(named['isolcpus'], ['isolcpus=1,2'])
		self.assertEqual(named['maxcpus'], ['maxcpus=4'])

	def test_a_filtered_boot(self):
		self.assertTrue(self.boot('kunit.filter_glob=workqueue_report').filtered([]))
		self.assertTrue(self.boot().filtered(['workqueue_percpu.*']))
		self.assertTrue(self.boot().filtered(['--kernel_args=kunit.filter_glob=x']))
		self.assertFalse(self.boot().filtered(['--timeout', '5']))
		self.assertFalse(self.boot('nohz_full={big}').filtered([]))


class SeriesTest(TempDirTest):
	def test_repository_series_lists_existing_patches(self):
		files = series.patches()
		self.assertTrue(files)
		self.assertTrue(all(f.endswith('.patch') for f in files))

	def test_cover_letter_lists_the_series(self):
		"""patches/0000-cover-letter.patch, as format-patch wrote it: not
		in the series (git am refuses it), and its count and shortlog
		those of the series, so that a changed series shows."""
		files = series.patches()
		cover = os.path.join(os.path.dirname(files[0]), '0000-cover-letter.patch')
		self.assertNotIn(cover, files)
		with open(cover, encoding='utf-8') as f:
			text = f.read()
		# format-patch pads the cover letter's number to the width of the count.
		count = str(len(files))
		self.assertIn(f'Subject: [PATCH {"0" * len(count)}/{count}] ', text)
		subjects = []
		for name in files:
			with open(name, encoding='utf-8') as f:
				subject = email.message_from_string(f.read())['Subject']
			subjects.append(' '.join(subject.split()).split('] ', 1)[1])
		# The shortlog: per author, "Name (N):", then a subject per patch,
		# its continuation indented further.
		shortlog, author = [], False
		for line in text.split('\n\n', 2)[2].splitlines():
			if re.match(r'\S.* \(\d+\):$', line):
				author = True
			elif author and re.match(r'  \S', line):
				shortlog.append(line.strip())
			elif author and line.startswith('    ') and line.strip():
				shortlog[-1] += ' ' + line.strip()
			elif author and line.startswith(' ') and '|' in line:
				break
		self.assertEqual(sorted(shortlog), sorted(subjects))
		self.assertRegex(text, r'\nTo: .*tj@kernel.org')

	def test_missing_series_file(self):
		with self.assertRaisesRegex(WqKunitError, 'cannot read the series'):
			series.patches(self.tmp)

	def test_series_naming_a_missing_patch(self):
		with open(os.path.join(self.tmp, 'series'), 'w', encoding='utf-8') as f:
			f.write('0001-gone.patch\n')
		with self.assertRaisesRegex(WqKunitError, '0001-gone.patch, which is missing'):
			series.patches(self.tmp)

	def test_empty_series(self):
		with open(os.path.join(self.tmp, 'series'), 'w', encoding='utf-8') as f:
			f.write('# nothing\n')
		with self.assertRaisesRegex(WqKunitError, 'names no patch'):
			series.patches(self.tmp)

	def test_digest_changes_with_content(self):
		a = os.path.join(self.tmp, 'a.patch')
		with open(a, 'w', encoding='utf-8') as f:
			f.write('one')
		first = series.digest([a])
		with open(a, 'w', encoding='utf-8') as f:
			f.write('two')
		self.assertNotEqual(first, series.digest([a]))


class BootBuildsTest(TempDirTest):
	def test_boots_are_grouped_by_the_build_they_need(self):
		path = self.write('[a]\n[b]\nkconfig = CONFIG_X=y\n[c]\nkernel_args = x=1\n'
				  '[d]\nkconfig = CONFIG_X=y\n')
		groups = boot_configs.by_build(boot_configs.select('all', '6.1', path))
		self.assertEqual([(k, [b.name for b in g]) for k, g in groups],
				 [((), ['a', 'c']), (('CONFIG_X=y',), ['b', 'd'])])

	def test_kconfig_line_must_be_a_config_assignment(self):
		path = self.write('[a]\nkconfig = WQ_X=y\n')
		with self.assertRaisesRegex(WqKunitError, "'WQ_X=y' is not CONFIG_X=Y"):
			boot_configs.load(path)

	def test_repository_boots_cover_the_issue_matrix(self):
		names = [b.name for b in boot_configs.load()]
		for name in ('default', 'power-efficient-on', 'power-efficient-off',
			     'power-efficient-default-y', 'isolcpus', 'unbound-cpus',
			     'nohz-full', 'force-rr'):
			self.assertIn(name, names)
		self.assertEqual([b.name for b in boot_configs.select('all', '6.1')].count('unbound-cpus'), 0)

	def test_a_variant_builds_in_a_directory_named_by_its_kconfig(self):
		self.assertEqual(runner.variant_name(('CONFIG_WQ_POWER_EFFICIENT_DEFAULT=y',)),
				 'wq_power_efficient_default')
		self.assertEqual(runner.variant_name(('CONFIG_HZ=100', 'CONFIG_X=y')), 'hz=100,x')


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
			    "'claims', 'records', 'alltests', 'coverage', 'manifest', 'faults', 'lava')", command='')

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
				'claims', 'records', 'alltests', 'coverage', 'manifest', 'faults', 'lava'):
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
