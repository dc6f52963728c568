# SPDX-License-Identifier: GPL-2.0
"""The regression corpus is complete and says what each mutant undoes."""

import os

from tests.util import TempDirTest, check_generated_page
from wqkunit.base import repo_paths
from wqkunit.evidence import regressions

ENTRY = '''[fix]
commit = 10a5a651e3afc9b0b381f47e8930972e4e918397
subject = workqueue: a fix
broke = something
kernels = 6.1
mutant = regress-fix.patch
'''


class RegressionsTest(TempDirTest):
	def test_the_corpus_is_consistent(self):
		self.assertEqual(regressions.problems(), [])

	def test_the_table_has_a_page_of_its_own(self):
		self.assertEqual(os.path.relpath(regressions.PAGE, repo_paths.REPO), 'docs/corpus.md')
		check_generated_page(self, regressions.PAGE, regressions.BEGIN, regressions.END,
				     'tools/wq-kunit coverage --write')

	def _corpus(self, ini: str, header: str = 'Commit: 10a5a651e3af ("workqueue: a fix")'):
		mutants = os.path.join(self.tmp, 'mutants')
		os.makedirs(os.path.join(mutants, '6.1'))
		with open(os.path.join(mutants, '6.1', 'regress-fix.patch'), 'w',
			  encoding='utf-8') as f:
			f.write(f'Mutant: regress-fix\nModels: x\nCaught by: y\n{header}\n\n'
				'diff --git a/x b/x\n')
		path = os.path.join(self.tmp, 'regressions.ini')
		with open(path, 'w', encoding='utf-8') as f:
			f.write(ini)
		return regressions.problems(path, mutants)

	def test_a_good_entry(self):
		self.assertEqual(self._corpus(ENTRY), [])

	def test_each_problem_is_named(self):
		cases = [
			(ENTRY.replace('subject = workqueue: a fix\n', ''), '[fix]: no subject'),
			(ENTRY.replace('10a5a651e3afc9b0b381f47e8930972e4e918397', '10a5a6'),
			 'is not 12 to 40 hex digits'),
			(ENTRY.replace('kernels = 6.1', 'kernels = 6.1 5.10'), 'kernel 5.10 is not supported'),
			(ENTRY + 'reason = a race\n', 'needs either a mutant or a reason'),
			(ENTRY.replace('regress-fix.patch', 'regress-gone.patch'),
			 'no mutant 6.1/regress-gone.patch'),
		]
		for ini, problem in cases:
			with self.subTest(problem):
				found = self._corpus(ini)
				self.assertTrue(any(problem in p for p in found), found)
				self.tearDown()
				self.setUp()

	def test_mutant_of_another_commit(self):
		found = self._corpus(ENTRY, 'Commit: 547a77d02f8c ("workqueue: other")')
		self.assertEqual(found, ['[fix]: 6.1/regress-fix.patch names another commit'])

	def test_unlisted_corpus_mutant(self):
		found = self._corpus(ENTRY.replace('mutant = regress-fix.patch', 'reason = a race'))
		self.assertEqual(found, ['6.1/regress-fix.patch: in no entry of regressions.ini'])

	def test_table_says_per_kernel_what_caught_each_fix(self):
		path = os.path.join(self.tmp, 'regressions.ini')
		with open(path, 'w', encoding='utf-8') as f:
			f.write(ENTRY + '\n[race]\ncommit = 99c621ef243bda726fb8d982a274ded96570b410\n'
				'subject = workqueue: a race\nbroke = a race\nkernels = 6.1 6.12\n'
				'reason = a race too narrow; more\n')
		runs = {'6.1': {'complete': True, 'mutants': [
			{'name': 'regress-fix', 'outcome': 'killed',
			 'failed': ['workqueue_hotplug.a_case', 'workqueue_hotplug.a_case']}]},
			'6.12': None}
		text = regressions.table(runs, path)
		self.assertIn('| 10a5a651e3af ("workqueue: a fix") | something | caught by a_case | '
			      'fix not in this tree |', text)
		self.assertIn('| not observable: a race too narrow | not observable: a race too narrow |',
			      text)

