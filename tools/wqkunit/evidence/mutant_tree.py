# SPDX-License-Identifier: GPL-2.0
"""The tree a mutant is applied to: pristine before a run of mutants and
exactly so after it, and each mutant reverted whatever its build and
boots do.  Used by mutate.py and campaign.py alike."""

import contextlib
from typing import Iterator

from ..base import short_commands
from ..base.errors import WqKunitError


def _state(tree: str) -> str:
	"""The tree's state: HEAD and any change to tracked files."""
	head = short_commands.run(['git', 'rev-parse', 'HEAD'], cwd=tree, what='git rev-parse').strip()
	status = short_commands.run(['git', 'status', '--porcelain', '--untracked-files=no'], cwd=tree,
			     what='git status')
	return head + '\n' + status


@contextlib.contextmanager
def pristine(tree: str) -> Iterator[None]:
	"""The block runs on @tree without local changes, and must leave it
	exactly as it found it."""
	before = _state(tree)
	if before.count('\n') > 1:
		raise WqKunitError(f'{tree} has local changes; mutants need the pristine series')
	yield
	if _state(tree) != before:
		raise WqKunitError(f'{tree} is not as it was before the mutants')


@contextlib.contextmanager
def applied(tree: str, name: str, patch: str) -> Iterator[bool]:
	"""The mutant @name's @patch applied to @tree for the time of the block, which
	gets False (and the tree untouched) if it does not apply; reverted
	whatever the block does."""
	if not short_commands.ok(['git', 'apply', '--check', patch], cwd=tree):
		yield False
		return
	short_commands.run(['git', 'apply', patch], cwd=tree, what=f'applying {name}')
	try:
		yield True
	finally:
		short_commands.run(['git', 'apply', '-R', patch], cwd=tree,
				   what=f'reverting {name}')
