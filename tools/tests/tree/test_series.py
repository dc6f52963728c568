# SPDX-License-Identifier: GPL-2.0
"""The series: its files in order, refused when missing, and its digest."""

import email
import os
import re

from tests.util import TempDirTest
from wqkunit.base.errors import WqKunitError
from wqkunit.tree import series


class SeriesTest(TempDirTest):
	def test_repository_series_lists_existing_patches(self):
		files = series.patches()
		self.assertTrue(files)
		self.assertTrue(all(f.endswith('.patch') for f in files))

	def test_cover_letter_lists_the_series(self):
		"""patches/0000-cover-letter.patch, as format-patch wrote it: not
		in the series (git am refuses it), and its count and shortlog
		those of the series, so that a changed series shows."""
		files = series.patches()
		cover = os.path.join(os.path.dirname(files[0]), '0000-cover-letter.patch')
		self.assertNotIn(cover, files)
		with open(cover, encoding='utf-8') as f:
			text = f.read()
		# format-patch pads the cover letter's number to the width of the count.
		count = str(len(files))
		self.assertIn(f'Subject: [PATCH {"0" * len(count)}/{count}] ', text)
		subjects = []
		for name in files:
			with open(name, encoding='utf-8') as f:
				subject = email.message_from_string(f.read())['Subject']
			subjects.append(' '.join(subject.split()).split('] ', 1)[1])
		# The shortlog: per author, "Name (N):", then a subject per patch,
		# its continuation indented further.
		shortlog, author = [], False
		for line in text.split('\n\n', 2)[2].splitlines():
			if re.match(r'\S.* \(\d+\):$', line):
				author = True
			elif author and re.match(r'  \S', line):
				shortlog.append(line.strip())
			elif author and line.startswith('    ') and line.strip():
				shortlog[-1] += ' ' + line.strip()
			elif author and line.startswith(' ') and '|' in line:
				break
		self.assertEqual(sorted(shortlog), sorted(subjects))
		self.assertRegex(text, r'\nTo: .*tj@kernel.org')

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
