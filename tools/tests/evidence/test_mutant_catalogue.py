# SPDX-License-Identifier: GPL-2.0
"""The mutants' catalogue: its headers, the score and the corpus line."""

import os

from tests.util import TempDirTest
from wqkunit.base.errors import WqKunitError


class MutantsTest(TempDirTest):
	def test_catalogue_has_twelve_or_more_per_kernel_with_rationale(self):
		from wqkunit.evidence import mutate
		for version in ('6.1', '6.12'):
			mutants = mutate.load(version)
			self.assertGreaterEqual(len(mutants), 12, version)
			for m in mutants:
				self.assertTrue(m.models and m.caught_by, m.name)

	def test_patch_without_header_is_refused(self):
		from wqkunit.evidence import mutate
		os.makedirs(os.path.join(self.tmp, '6.1'))
		with open(os.path.join(self.tmp, '6.1', 'x.patch'), 'w', encoding='utf-8') as f:
			f.write('diff --git a/x b/x\n')
		with self.assertRaisesRegex(WqKunitError, 'no "Mutant:" line'):
			mutate.load('6.1', self.tmp)

	def test_score_counts_killed_and_equivalent(self):
		from wqkunit.evidence import mutate
		m = mutate.Mutant('m', 'p', 'x', 'y', ['default'], None)
		verdicts = [mutate.Verdict(m, o, '', 0.0) for o in ('killed', 'killed', 'equivalent', 'survived')]
		self.assertEqual(mutate.score(verdicts), '2 of 4 mutants killed (2 by the expected case, 0 by another), 1 equivalent, 1 survived')

	def test_corpus_line_counts_undone_fixes_caught_by_a_case(self):
		from wqkunit.evidence import mutate
		ours = mutate.Mutant('ours', 'p', 'x', 'y', ['default'], None)
		self.assertIsNone(mutate.corpus_score([mutate.Verdict(ours, 'killed', '', 0.0)]))
		fix = [mutate.Mutant(f'regress-{n}', 'p', 'x', 'y', ['default'], None, '874bbfe600a6')
		       for n in ('a', 'b', 'c', 'd')]
		verdicts = [mutate.Verdict(ours, 'survived', '', 0.0)] + [
			mutate.Verdict(m, o, '', 0.0)
			for m, o in zip(fix, ('killed', 'killed by another case', 'kernel report only',
					      'equivalent'))]
		self.assertEqual(mutate.corpus_score(verdicts),
				 'regression corpus: 2 of 3 undone upstream fixes caught by a case; '
				 '1 not observable in a guest (regress-d); not caught: regress-c')
