# SPDX-License-Identifier: GPL-2.0
"""checkpatch as a maintainer's tree runs it: the git that answers its
commit lookups from patches/upstream-commits, and the references the
series makes."""

import os
import re
from unittest import mock

from tests.util import TempDirTest
from wqkunit.base.errors import WqKunitError
from wqkunit.tree import checkpatch, series

FAKE_CHECKPATCH = '''#!/usr/bin/perl
my $out = `git log --no-color --format='%H %s' -1 $ENV{WANT} 2>&1`;
print "$out";
'''


class ShimTest(TempDirTest):
	def lookup(self, want: str, table: str) -> str:
		"""What checkpatch's `git log` gives for @want with @table."""
		tree = os.path.join(self.tmp, 'tree')
		os.makedirs(os.path.join(tree, 'scripts'), exist_ok=True)
		with open(os.path.join(tree, 'scripts', 'checkpatch.pl'), 'w', encoding='utf-8') as f:
			f.write(FAKE_CHECKPATCH)
		with mock.patch.object(checkpatch, 'COMMITS', self.write(table, 'commits')), \
		     mock.patch.dict(os.environ, {'WANT': want}):
			return dict(checkpatch.run(tree, ['x.patch']))['x.patch']

	def test_a_listed_commit_gives_its_subject_where_checkpatch_reads_it(self):
		said = self.lookup('aae17ebb53cd', 'aae17ebb53cd3da37f5dfbde937acd091eb4340c A subject\n')
		self.assertEqual(said[:12], 'aae17ebb53cd')
		self.assertEqual(said[41:], 'A subject')
		# A 12-digit id is padded to %H's width, not completed.
		said = self.lookup('ef557180447f', 'ef557180447f Another\n')
		self.assertEqual((said[:40].strip(), said[41:]), ('ef557180447f', 'Another'))

	def test_an_unlisted_commit_is_unknown(self):
		self.assertEqual(self.lookup('0123456789ab', '# none\n'), 'fatal: bad object 0123456789ab')

	def test_a_malformed_list_is_refused(self):
		for bad in ('xyz not hex\n', 'aae17ebb\n', 'aae17ebb53cd\n'):
			with mock.patch.object(checkpatch, 'COMMITS', self.write(bad, 'commits')):
				with self.assertRaisesRegex(WqKunitError, r'commits:1: not'):
					checkpatch.commits()


class ReferencesTest(TempDirTest):
	def test_every_commit_the_series_names_is_listed_with_its_subject(self):
		"""What checkpatch checks in a maintainer's tree, without one:
		each `commit <id> ("<subject>")` and Fixes: tag of every patch
		names a listed commit by its upstream subject."""
		known = checkpatch.commits()
		for patch in series.every():
			with open(patch, encoding='utf-8') as f:
				log = f.read().split('\n---\n', 1)[0]
			text = re.sub(r'\s+', ' ', log)
			for cid, subject in re.findall(r'(?:\bcommit|Fixes:) ([0-9a-f]{12,40}) \("(.*?)"\)', text):
				with self.subTest(patch=os.path.basename(patch), commit=cid):
					full = [k for k in known if k.startswith(cid) or cid.startswith(k)]
					self.assertTrue(full, f'{cid} is not in {checkpatch.COMMITS}')
					self.assertEqual(known[full[0]], subject)
