# SPDX-License-Identifier: GPL-2.0
"""Kernel versions and boot configurations: bad input is refused (the
series' is tree/test_series.py's, the command line's
cli/test_command_line.py's)."""

import unittest

from tests.util import TempDirTest
from wqkunit.base.errors import WqKunitError
from wqkunit.build import runner
from wqkunit.configs import boot_configs, kernel_versions


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
