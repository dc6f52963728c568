# SPDX-License-Identifier: GPL-2.0
"""The commands of what the last runs recorded: the generated tables and
their pages (claims: docs/claims.md; coverage, the map and the regression
corpus: docs/coverage.md, docs/corpus.md), printed or written between
their markers; records; and manifest, the last gate against
kunit/expected/."""

import argparse
import json
import os
import sys
from typing import Callable, List, Optional

from ..base import repo_paths
from ..base.errors import WqKunitError
from ..base.messages import say
from ..configs import log_names
from ..evidence import claims, coverage, records, regressions
from ..verdicts import manifest


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


def manifest_cmd(args: argparse.Namespace) -> int:
	"""Compare the last gate's results with kunit/expected/, or write it
	from them."""
	logs = os.path.join(repo_paths.cache_dir(), 'logs')
	if claims.gate_args(logs).get('smp') != log_names.DEFAULT_CPUS:
		raise WqKunitError(f'the last gate booted with --smp {claims.gate_args(logs).get("smp")}: '
				   f'the manifest records each board with its own CPU count')
	runs = claims.gate_runs(logs, filtered=True)
	wrong = 0
	for name, done in sorted(runs.items()):
		got = {boot: run.results for boot, run in done.items()}
		if args.write:
			path = manifest.write(name, got)
			say(f'wrote {path}: {len(done)} boot configurations')
			continue
		for boot in sorted(got):
			want = manifest.expected(name, boot)
			if want is None:
				problems = [f'no [{boot}] in kunit/expected/{name}.ini']
				notes: List[str] = []
			else:
				bad, notes = manifest.compare(want, got[boot])
				problems = [f'{result} {how}' for result, how in bad.items()]
			wrong += len(problems)
			for line in problems + notes:
				print(f'  {name} [{boot}]: {line}')
	if not args.write:
		say(f'the last gate and kunit/expected/: {wrong or "no"} differences that fail the gate')
	return 1 if wrong else 0
