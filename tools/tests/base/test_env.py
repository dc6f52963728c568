# SPDX-License-Identifier: GPL-2.0
"""Debian's packages, and the cache's lock."""

import os
import subprocess
import threading
import time
import unittest
from unittest import mock

from tests.util import TempDirTest
from wqkunit.base import debian_packages, file_locks
from wqkunit.base.errors import WqKunitError


class PackagesTest(unittest.TestCase):
	def test_installed_package_is_not_missing(self):
		self.assertEqual(debian_packages.missing(['dpkg']), [])

	def test_unknown_package_is_missing(self):
		self.assertEqual(debian_packages.missing(['wq-kunit-no-such-package']),
				 ['wq-kunit-no-such-package'])

	def test_non_root_is_told_what_to_install(self):
		with mock.patch('os.geteuid', return_value=1000):
			with self.assertRaisesRegex(WqKunitError,
						    'missing Debian packages: wq-kunit-nope .*apt-get install wq-kunit-nope'):
				debian_packages.ensure(['dpkg', 'wq-kunit-nope'], lambda m: None)

	def test_a_package_named_twice_is_missing_once(self):
		self.assertEqual(debian_packages.missing(['wq-kunit-nope', 'dpkg', 'wq-kunit-nope']),
				 ['wq-kunit-nope'])

	def test_nothing_missing_installs_nothing(self):
		with mock.patch('subprocess.run', wraps=subprocess.run) as run:
			debian_packages.ensure(['dpkg'], lambda m: None)
		self.assertNotIn('apt-get', str(run.call_args_list))


class LockTest(TempDirTest):
	def test_second_holder_gives_up_after_waiting(self):
		path = os.path.join(self.tmp, 'locks', 'x.lock')
		said = []
		with file_locks.held(path, said.append):
			with self.assertRaisesRegex(WqKunitError, 'another wq-kunit run holds'):
				with file_locks.held(path, said.append, wait=0.05):
					pass
		self.assertTrue(any('waiting' in s for s in said))

	def test_second_holder_gets_it_once_released(self):
		path = os.path.join(self.tmp, 'x.lock')
		order = []
		holding = threading.Event()

		def first():
			with file_locks.held(path, order.append):
				order.append('first in')
				holding.set()
				time.sleep(0.1)
				order.append('first out')

		thread = threading.Thread(target=first)
		thread.start()
		self.assertTrue(holding.wait(10))
		with file_locks.held(path, order.append, wait=5):
			order.append('second in')
		thread.join()
		self.assertLess(order.index('first out'), order.index('second in'))
