# SPDX-License-Identifier: GPL-2.0
"""bench: the guest's times from its printk stamps."""

import unittest

from wqkunit.base.errors import WqKunitError


class BenchTest(unittest.TestCase):
	def test_guest_times_from_printk_stamps(self):
		from wqkunit.evidence import bench
		console = ('[    0.000000] Booting Linux\n[    1.500000] KTAP version 1\n'
			   '[    1.600000]     ok 1 cpu0\n[    3.250000] ok 5 workqueue_cleanup\n')
		times = bench.guest_times(console)
		self.assertEqual(times['boot to first result'], 1.5)
		self.assertEqual(times['boot to last result'], 3.25)
		self.assertAlmostEqual(times['suite in the guest'], 1.75)

	def test_console_without_stamps_is_an_error(self):
		from wqkunit.evidence import bench
		with self.assertRaisesRegex(WqKunitError, 'no timestamped KTAP'):
			bench.guest_times('KTAP version 1\nok 1 x\n')
