# SPDX-License-Identifier: GPL-2.0
"""The module boot: its initramfs and the console kunit.py parses."""

import os
import unittest

from tests.util import TempDirTest
from wqkunit.build import module_boot


class NewcTest(unittest.TestCase):
	def test_entry_is_padded_and_named(self):
		entry = module_boot._newc('init', 0o100755, b'abc')
		self.assertTrue(entry.startswith(b'070701'))
		# Header (110) + name and NUL (5), padded to 4; data padded to 4.
		self.assertEqual(len(entry), 116 + 4)
		self.assertEqual(entry[110:115], b'init\0')
		self.assertEqual(int(entry[6 + 8:6 + 16], 16), 0o100755)
		self.assertEqual(int(entry[6 + 6 * 8:6 + 7 * 8], 16), 3)

	def test_device_node_numbers(self):
		entry = module_boot._newc('dev/console', 0o20600, rdev=(5, 1))
		self.assertEqual(int(entry[6 + 9 * 8:6 + 10 * 8], 16), 5)
		self.assertEqual(int(entry[6 + 10 * 8:6 + 11 * 8], 16), 1)


class ParseableTest(TempDirTest):
	def console(self, lines):
		path = os.path.join(self.tmp, 'c.console')
		with open(path, 'w', encoding='utf-8') as f:
			f.write('\n'.join(lines) + '\n')
		with open(module_boot.parseable(path), encoding='utf-8') as f:
			return f.read().splitlines()

	def test_6_12_keeps_the_module_header(self):
		got = self.console(['[    1.0] KTAP version 1', '[    1.0] 1..0', 'Run /init',
				    '[    2.0] KTAP version 1', '[    2.0] 1..5',
				    '[    2.1]     # Subtest: workqueue_percpu'])
		self.assertEqual(got, ['[    1.0] KTAP version 1', 'Run /init', '[    2.0] 1..5',
				       '[    2.1]     # Subtest: workqueue_percpu'])

	def test_6_1_has_no_header_of_its_own(self):
		got = self.console(['[    1.0] KTAP version 1', '[    1.0] 1..0',
				    '[    2.1]     # Subtest: workqueue_percpu'])
		self.assertEqual(got, ['[    1.0] KTAP version 1',
				       '[    2.1]     # Subtest: workqueue_percpu'])

	def test_nested_plans_stay(self):
		got = self.console(['KTAP version 1', '1..1', '    KTAP version 1', '    1..0'])
		self.assertEqual(got, ['KTAP version 1', '1..1', '    KTAP version 1', '    1..0'])


if __name__ == '__main__':
	unittest.main()
