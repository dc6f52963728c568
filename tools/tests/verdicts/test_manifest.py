# SPDX-License-Identifier: GPL-2.0
"""The manifest of expected results: what --write records."""

from tests.util import TempDirTest
from wqkunit.verdicts import manifest


class WriteTest(TempDirTest):
	def test_a_result_that_needs_two_cpus_at_once_may_skip_though_it_passed(self):
		race = manifest.MAY_SKIP[0] + 'mod_timer'
		manifest.write('6.12', {'default': {race: 'PASS', 'workqueue_percpu.x': 'PASS',
						    'workqueue_percpu.y': 'SKIP'}}, self.tmp)
		self.assertEqual(manifest.expected('6.12', 'default', self.tmp),
				 {race: 'skip', 'workqueue_percpu.x': 'pass',
				  'workqueue_percpu.y': 'skip'})
