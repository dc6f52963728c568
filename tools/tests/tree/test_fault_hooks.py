# SPDX-License-Identifier: GPL-2.0
"""The fault hooks fit the series' files and make the faults build's edits."""

import os

from tests.util import TempDirTest, fake_kernel_tree
from wqkunit.base.errors import WqKunitError
from wqkunit.tree import fault_hooks, kernel_trees, series


class HooksTest(TempDirTest):
	def series_files(self) -> dict:
		"""The suite's files the hooks go into, as the series makes them."""
		tree = fake_kernel_tree(os.path.join(self.tmp, 'linux'))
		kernel_trees.user_tree(tree, lambda _m: None)
		texts = {}
		for path in fault_hooks.HOOKS:
			with open(os.path.join(tree, path), encoding='utf-8') as f:
				texts[path] = f.read()
		return texts

	def test_every_hook_finds_its_place_in_the_series_files(self):
		texts = self.series_files()
		hooked = {path: fault_hooks.add(path, text) for path, text in texts.items()}
		for path, text in texts.items():
			self.assertNotIn('wq_test_fault', text, path)
			self.assertEqual(hooked[path].count('void wq_test_fault(struct kunit *test, '
							    'const char *point);'), 1, path)
		main = hooked[series.TEST_FILE]
		self.assertIn('module_param_string(kunit_fault', main)
		self.assertEqual(main.count('wq_test_fault(test, "start");'), 1)
		states = sum(h.count('wq_test_fault(test, "state");') for h in hooked.values())
		self.assertGreaterEqual(states, 6)
		# The function is defined before its first caller in its file.
		self.assertLess(main.index('void wq_test_fault(struct kunit *test, const char '
					   '*point)\n{'), main.index('wq_test_fault(test, "state");'))

	def test_a_file_the_hooks_no_longer_fit_is_refused(self):
		text = self.series_files()[series.TEST_FILE].replace('\ttest->priv = ctx;\n', '')
		with self.assertRaisesRegex(WqKunitError, r'"test->priv = ctx;" occurs 0 times in '
					    r'kernel/tests/workqueue_kunit.c, not once: update '
					    r'tools/wqkunit/tree/fault_hooks.py'):
			fault_hooks.add(series.TEST_FILE, text)

	def test_the_build_edits_add_the_hooks(self):
		for path, text in self.series_files().items():
			edit = fault_hooks.EDITS[path]
			self.assertEqual(edit.apply(text.encode()),
					 fault_hooks.add(path, text).encode())
			self.assertTrue(edit.key)
