# SPDX-License-Identifier: GPL-2.0
"""A boot must run the kernel just built, not an older image."""

import os

from tests.util import TempDirTest
from wqkunit.errors import WqKunitError
from wqkunit.kunit_runner import Kunit

LINE = '[    0.000000] Linux version 6.12.118 (root@vm) (gcc 12.2.0) {} \n'


class BootedKernelTest(TempDirTest):
	def setUp(self):
		super().setUp()
		self.kunit = Kunit(self.tmp, os.path.join(self.tmp, 'build'))
		generated = os.path.join(self.tmp, 'build', 'include', 'generated')
		os.makedirs(generated)
		with open(os.path.join(generated, 'utsversion.h'), 'w', encoding='utf-8') as f:
			f.write('#define UTS_VERSION "#90 SMP Thu Dec  3 12:39:14 UTC 2026"\n')

	def console(self, version):
		path = os.path.join(self.tmp, 'console')
		with open(path, 'w', encoding='utf-8') as f:
			f.write(LINE.format(version))
		return path

	def test_the_kernel_just_built(self):
		self.kunit._check_booted(self.console('#90 SMP Thu Dec  3 12:39:14 UTC 2026'))

	def test_an_older_image_fails(self):
		with self.assertRaisesRegex(WqKunitError, 'QEMU booted another kernel.*#66 SMP'):
			self.kunit._check_booted(self.console('#66 SMP Thu Dec  3 12:27:25 UTC 2026'))

	def test_no_version_line_is_left_to_the_results(self):
		path = os.path.join(self.tmp, 'empty')
		open(path, 'w', encoding='utf-8').close()
		self.kunit._check_booted(path)
