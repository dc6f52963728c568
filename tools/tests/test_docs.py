# SPDX-License-Identifier: GPL-2.0
"""The README stays short enough to read top to bottom, and its links and
those of the pages under docs/ lead somewhere."""

import glob
import os
import re
import unittest
from typing import Dict, List, Set

from wqkunit.base import debian_packages, repo_paths
from wqkunit.configs import arches
from wqkunit.gate import gate_check

README = os.path.join(repo_paths.REPO, 'README.md')
MOST_LINES = 250
# The lines a terminal shows at once, within which the README says how to
# run the suite, the gate, a tree of one's own, one suite, and kunit.py.
FIRST_SCREEN = 25

# [text](target) and ![alt](target), the target without a "title".
LINK = re.compile(r'!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)')
FENCE = re.compile(r'^(```|~~~)')


def pages() -> List[str]:
	"""README.md and every page under docs/."""
	return [README] + sorted(glob.glob(os.path.join(repo_paths.DOCS, '*.md')))


def prose(text: str) -> str:
	"""@text without its code: fenced and indented blocks, code spans."""
	out, fenced, blank = [], False, True
	for line in text.split('\n'):
		if FENCE.match(line):
			fenced = not fenced
			continue
		indented = line.startswith(('    ', '\t')) and (blank or not out or out[-1] == '')
		if fenced or (indented and not line.lstrip().startswith(('-', '*'))):
			blank = False
			out.append('')
			continue
		blank = not line.strip()
		out.append(line)
	return re.sub(r'`[^`\n]*`', '', '\n'.join(out))


def links(path: str) -> List[str]:
	with open(path, encoding='utf-8') as f:
		return LINK.findall(prose(f.read()))


def anchors(path: str) -> Set[str]:
	"""The anchors GitHub gives the headings of the Markdown file @path."""
	seen: Dict[str, int] = {}
	out = set()
	with open(path, encoding='utf-8') as f:
		text = prose(f.read())
	for heading in re.findall(r'^#{1,6}\s+(.*?)\s*#*$', text, re.M):
		slug = re.sub(r'[^\w\- ]', '', heading.strip().lower()).replace(' ', '-')
		n = seen.get(slug, 0)
		seen[slug] = n + 1
		out.add(slug if n == 0 else f'{slug}-{n}')
	return out


def relative(target: str) -> bool:
	return not re.match(r'^[a-z][a-z0-9+.-]*:', target, re.I)


class DocsTest(unittest.TestCase):
	def test_the_readme_can_be_read_top_to_bottom(self):
		with open(README, encoding='utf-8') as f:
			count = len(f.read().splitlines())
		self.assertLessEqual(count, MOST_LINES, f'README.md has {count} lines')

	def test_the_first_screen_answers_the_first_questions(self):
		with open(README, encoding='utf-8') as f:
			top = ''.join(f.readlines()[:FIRST_SCREEN])
		for command in (r'^    tools/wq-kunit run\s', r'^    tools/wq-kunit check\s',
				r'tools/wq-kunit run --tree ', r"tools/wq-kunit run -- '", r'kunit\.py'):
			with self.subTest(command=command):
				self.assertRegex(top, re.compile(command, re.M))

	def test_the_readme_names_what_the_tools_install_and_where_they_write(self):
		with open(README, encoding='utf-8') as f:
			text = ' '.join(f.read().split())
		wanted = debian_packages.BUILD + gate_check.PACKAGES + [p for a in arches.ARCHES.values()
							   for p in a.packages]
		for word in list(dict.fromkeys(wanted)) + ['~/.cache/wq-kunit', 'rm -rf',
							   'WQ_KUNIT_BOARD', 'WQ_KUNIT_ARCH']:
			with self.subTest(word=word):
				self.assertRegex(text, rf'(?<![\w-]){re.escape(word)}(?![\w-])')

	def test_every_relative_link_leads_to_a_file(self):
		for page in pages():
			for target in filter(relative, links(page)):
				with self.subTest(page=os.path.relpath(page, repo_paths.REPO), link=target):
					name, _, anchor = target.partition('#')
					where = os.path.normpath(os.path.join(os.path.dirname(page), name)) \
						if name else page
					self.assertTrue(os.path.exists(where), f'{target}: no such file')
					if anchor and where.endswith('.md'):
						self.assertIn(anchor, anchors(where), f'{target}: no such heading')

	def test_every_page_is_linked_from_the_readme(self):
		linked = {os.path.normpath(os.path.join(repo_paths.REPO, t.partition('#')[0]))
			  for t in filter(relative, links(README))}
		for page in pages()[1:]:
			with self.subTest(page=os.path.relpath(page, repo_paths.REPO)):
				self.assertIn(page, linked)

	def test_the_link_check_sees_links_and_skips_code(self):
		text = ('See [a](a.md#x) and ![b](b.svg "B"), not `[c](c.md)`:\n\n'
			'    [d](d.md)\n\n```\n[e](e.md)\n```\n- [f](https://f)\n')
		self.assertEqual(LINK.findall(prose(text)), ['a.md#x', 'b.svg', 'https://f'])


if __name__ == '__main__':
	unittest.main()
