# SPDX-License-Identifier: GPL-2.0
"""The generated tables and their pages: the claims table (docs/claims.md),
the coverage map and the regression corpus (docs/coverage.md,
docs/corpus.md), printed or written between their markers."""

import argparse
import json
import os
import sys
from typing import Callable, Optional

from .base import repo_paths
from .base.errors import WqKunitError
from .base.messages import say
from .evidence import claims, coverage, records, regressions


def _table(text: str, page: Optional[str], what: str,
	   write: Callable[[str, str], bool]) -> int:
	"""Print @text, or put it between its markers in @page."""
	if page:
		changed = write(page, text)
		say(f'{page}: {what} table {"updated" if changed else "unchanged"}')
	else:
		sys.stdout.write(text)
	return 0


def claims_table(args: argparse.Namespace) -> int:
	return _table(claims.table(), args.write, 'claims', claims.write)


# coverage --write without a file: each table into its own page.
PAGES = object()


def coverage_map(args: argparse.Namespace) -> int:
	entries = coverage.load()
	found = {v: coverage.interface(t) for v, t in coverage.trees().items()}
	problems = coverage.check(entries, found)
	if problems:
		for line in problems:
			print(f'  {line}', file=sys.stderr)
		raise WqKunitError(f'the coverage map does not match the kernels\' interface '
				   f'({len(problems)} problems, above)')
	if args.check:
		say(f'coverage map: {len(entries)} entries cover the interface of '
		    f'{", ".join(found)}')
		return 0
	logs = os.path.join(repo_paths.cache_dir(), 'logs')
	runs = coverage.mutation_runs(logs, list(found))
	text = coverage.table(entries, found, claims.gate_runs(logs), runs)
	tables = [(regressions.PAGE, regressions.BEGIN, 'regression corpus', regressions.write,
		   regressions.table(runs)),
		  (coverage.PAGE, coverage.BEGIN, 'coverage', coverage.write, text)]
	if args.write is None:
		for *_, table in tables:
			sys.stdout.write(table)
		return 0
	if args.write is not PAGES:
		# --write FILE: there, each table whose markers FILE has.
		with open(args.write, encoding='utf-8') as f:
			has = f.read()
		tables = [(args.write, begin, what, write, table)
			  for _, begin, what, write, table in tables if begin in has]
		if not tables:
			raise WqKunitError(f'{args.write} has neither the coverage markers '
					   f'{coverage.BEGIN} nor the corpus markers {regressions.BEGIN}')
	for page, _, what, write, table in tables:
		_table(table, page, what, write)
	return 0


def records_cmd(args: argparse.Namespace) -> int:
	logs = os.path.join(repo_paths.cache_dir(), 'logs')
	if args.write:
		held = records.write(logs)
		say(f'{os.path.relpath(records.RECORDS, repo_paths.REPO)}: {", ".join(sorted(held))} recorded')
	else:
		sys.stdout.write(json.dumps(records.summarise(logs, records.committed()), indent=1,
					    sort_keys=True) + '\n')
	return 0
