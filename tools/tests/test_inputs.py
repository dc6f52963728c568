# SPDX-License-Identifier: GPL-2.0
"""Kernel versions, boot configurations and the series: bad input is refused."""

import os
import unittest

from tests.util import TempDirTest
from wqkunit import boots, kernels, runner, series
from wqkunit.errors import WqKunitError


class KernelsTest(unittest.TestCase):
	def test_supported_versions(self):
		self.assertEqual(kernels.supported(), ['6.1', '6.12'])

	def test_unknown_version_is_refused_naming_the_known_ones(self):
		with self.assertRaisesRegex(WqKunitError, r"unknown kernel version '5.10'.*6.1, 6.12"):
			kernels.check('5.10')

	def test_known_version_passes(self):
		self.assertEqual(kernels.check('6.12'), '6.12')


class BootsTest(TempDirTest):
	def test_repository_has_a_default_boot(self):
		self.assertIn('default', [b.name for b in boots.load()])

	def test_boots_that_cannot_run_are_refused(self):
		refusals = [
			('[default]\nkernel_args =\n[pe-on]\nkernel_args = a=1\n', 'x',
			 "unknown boot configuration 'x'.*default, pe-on, all"),
			('[only612]\nkernels = 6.12\n', 'only612', 'does not apply to 6.1'),
		]
		for text, name, error in refusals:
			with self.subTest(name), self.assertRaisesRegex(WqKunitError, error):
				boots.select(name, '6.1', self.write(text))

	def test_all_selects_those_that_apply_to_the_version(self):
		path = self.write('[default]\n[only612]\nkernels = 6.12\n')
		self.assertEqual([b.name for b in boots.select('all', '6.1', path)], ['default'])
		self.assertEqual([b.name for b in boots.select('all', '6.12', path)],
				 ['default', 'only612'])

	def test_kernel_args_are_split(self):
		path = self.write('[x]\nkernel_args = isolcpus=0-1 workqueue.power_efficient=1\n')
		self.assertEqual(boots.select('x', '6.1', path)[0].kernel_args,
				 ['isolcpus=0-1', 'workqueue.power_efficient=1'])

	def test_malformed_file_is_an_error(self):
		path = self.write('kernel_args = no section\n')
		with self.assertRaisesRegex(WqKunitError, 'cannot read boot configurations'):
			boots.load(path)


class SeriesTest(TempDirTest):
	def test_repository_series_lists_existing_patches(self):
		files = series.patches()
		self.assertTrue(files)
		self.assertTrue(all(f.endswith('.patch') for f in files))

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
		groups = boots.by_build(boots.select('all', '6.1', path))
		self.assertEqual([(k, [b.name for b in g]) for k, g in groups],
				 [((), ['a', 'c']), (('CONFIG_X=y',), ['b', 'd'])])

	def test_kconfig_line_must_be_a_config_assignment(self):
		path = self.write('[a]\nkconfig = WQ_X=y\n')
		with self.assertRaisesRegex(WqKunitError, "'WQ_X=y' is not CONFIG_X=Y"):
			boots.load(path)

	def test_repository_boots_cover_the_issue_matrix(self):
		names = [b.name for b in boots.load()]
		for name in ('default', 'power-efficient-on', 'power-efficient-off',
			     'power-efficient-default-y', 'isolcpus', 'unbound-cpus',
			     'nohz-full', 'force-rr'):
			self.assertIn(name, names)
		self.assertEqual([b.name for b in boots.select('all', '6.1')].count('unbound-cpus'), 0)

	def test_a_variant_builds_in_a_directory_named_by_its_kconfig(self):
		self.assertEqual(runner.variant_name(('CONFIG_WQ_POWER_EFFICIENT_DEFAULT=y',)),
				 'wq_power_efficient_default')
		self.assertEqual(runner.variant_name(('CONFIG_HZ=100', 'CONFIG_X=y')), 'hz=100,x')
