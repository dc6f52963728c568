# SPDX-License-Identifier: GPL-2.0
"""Mutation testing: each mutant of kunit/mutants/VERSION/ is applied to the
cached tree, built incrementally, booted in the configurations that matter
for it, and reverted, and must make some case fail."""

import collections
from dataclasses import dataclass
import os
import re
import time
from typing import Callable, List, Optional, Tuple

from . import assess, board, boots, paths, proc, runner
from .errors import WqKunitError
from .kunit_runner import Kunit

MUTANTS = os.path.join(paths.KUNIT_DIR, 'mutants')


@dataclass
class Mutant:
	name: str
	patch: str
	models: str
	caught_by: str
	boots: List[str]
	equivalent: Optional[str]


# What a mutant did, in the order the score lists them.  Only the first
# two count as killed: a mutant that broke the build or the boot says
# nothing about the cases.
KILLED = 'killed'
KILLED_OTHER = 'killed by another case'
NO_BUILD = 'did not build'
BOOT_ERROR = 'boot error'
SURVIVED = 'survived'
EQUIVALENT = 'equivalent'
NO_APPLY = 'did not apply'
OUTCOMES = (KILLED, KILLED_OTHER, EQUIVALENT, SURVIVED, NO_BUILD, BOOT_ERROR, NO_APPLY)


@dataclass
class Verdict:
	mutant: Mutant
	outcome: str		# one of OUTCOMES
	detail: str
	seconds: float


def load(version: str, directory: Optional[str] = None) -> List[Mutant]:
	"""The mutants of @version, from the headers of their patches."""
	directory = directory or MUTANTS
	folder = os.path.join(directory, version)
	if not os.path.isdir(folder):
		raise WqKunitError(f'no mutants for {version} in {directory}')
	mutants = []
	for name in sorted(os.listdir(folder)):
		if not name.endswith('.patch'):
			continue
		path = os.path.join(folder, name)
		head = {}
		with open(path, encoding='utf-8') as f:
			for line in f:
				if line.startswith('diff --git'):
					break
				key, sep, value = line.partition(':')
				if sep:
					head[key.strip()] = value.strip()
		for key in ('Mutant', 'Models', 'Caught by'):
			if key not in head:
				raise WqKunitError(f'{path}: no "{key}:" line')
		mutants.append(Mutant(head['Mutant'], path, head['Models'], head['Caught by'],
				      head.get('Boots', 'default').split(), head.get('Equivalent')))
	return mutants


def _clean(tree: str) -> str:
	"""The tree's state: HEAD and any change to tracked files."""
	head = proc.run(['git', 'rev-parse', 'HEAD'], cwd=tree, what='git rev-parse').strip()
	status = proc.run(['git', 'status', '--porcelain', '--untracked-files=no'], cwd=tree,
			  what='git status')
	return head + '\n' + status


def _case(failure: str) -> str:
	"""The case a failure names: "[boot] suite.case.param (FAIL)" -> suite.case.param."""
	failure = re.sub(r'^\[[^]]*\] ', '', failure)
	return re.sub(r' \([^()]*\)$', '', failure)


def classify(mutant: Mutant, judged: List[assess.Assessment],
	     build_error: Optional[str] = None) -> Tuple[str, str]:
	"""The outcome of @mutant from its boots' verdicts, with the detail
	that backs it: which case failed against its "Caught by:" line."""
	if build_error:
		return NO_BUILD, build_error
	expected = mutant.caught_by.split()[0]
	failed = [_case(f) for j in judged for f in j.failed_cases]
	mine = [c for c in failed if c == expected or c.startswith(expected + '.')]
	if mine:
		return KILLED, '; '.join(mine[:3])
	if failed:
		return KILLED_OTHER, f'expected {expected}; failed: {"; ".join(failed[:3])}'
	errors = [e for j in judged for e in j.errors]
	board_errors = [e for e in errors if board.PREFIX in e]
	if expected == board.CAUGHT_BY and board_errors:
		return KILLED, board_errors[0]
	if errors:
		return BOOT_ERROR, errors[0]
	if mutant.equivalent:
		return EQUIVALENT, mutant.equivalent
	passed = sum(j.counts.passed for j in judged)
	return SURVIVED, f'{passed} passed in {len(judged)} boots'


def _try(kunit: Kunit, req: runner.BuildRequest, mutant: Mutant,
	 selected: List[boots.Boot], timeout: int, logs: str) -> Tuple[str, str]:
	"""Build and boot @kunit's tree, @mutant applied, in every boot of @selected."""
	ex = runner.ExecRequest(selected, timeout, live=False, log_prefix='mutant.',
				keep_failed=False)
	judged = []
	for kconfig, group in boots.by_build(selected):
		try:
			kunit.build(req.jobs, os.path.join(logs, 'mutant-build.log'), kconfig)
		except WqKunitError as e:
			return classify(mutant, judged, str(e))
		for b in group:
			judged.append(runner.boot_once(kunit, req, ex, b, 8, logs, _quiet).judged)
	return classify(mutant, judged)


def _quiet(_msg: str) -> None:
	pass


def run(kunit: Kunit, req: runner.BuildRequest, mutants: List[Mutant],
	boot_name: Optional[str], timeout: int, logs: str,
	say: Callable[[str], None]) -> List[Verdict]:
	"""Try every mutant on @kunit's tree; the tree ends exactly as it began."""
	tree = kunit.tree
	before = _clean(tree)
	if before.count('\n') > 1:
		raise WqKunitError(f'{tree} has local changes; mutants need the pristine series')
	verdicts = []
	for mutant in mutants:
		start = time.monotonic()
		selected = boots.select(boot_name, req.version) if boot_name else \
			[b for n in mutant.boots for b in boots.select(n, req.version)]
		if not proc.ok(['git', 'apply', '--check', mutant.patch], cwd=tree):
			verdicts.append(Verdict(mutant, NO_APPLY, 'git apply --check failed', 0.0))
			say(f'{mutant.name}: {NO_APPLY}')
			continue
		proc.run(['git', 'apply', mutant.patch], cwd=tree, what=f'applying {mutant.name}')
		try:
			outcome, detail = _try(kunit, req, mutant, selected, timeout, logs)
		finally:
			proc.run(['git', 'apply', '-R', mutant.patch], cwd=tree,
				 what=f'reverting {mutant.name}')
		secs = time.monotonic() - start
		verdicts.append(Verdict(mutant, outcome, detail, secs))
		say(f'{mutant.name}: {outcome} ({secs:.0f} s): {detail[:160]}')
	if _clean(tree) != before:
		raise WqKunitError(f'{tree} is not as it was before the mutants')
	return verdicts


def score(verdicts: List[Verdict]) -> str:
	""""K of N mutants killed (by which case)", then the other outcomes."""
	count = collections.Counter(v.outcome for v in verdicts)
	killed = count[KILLED] + count[KILLED_OTHER]
	how = f'{count[KILLED]} by the expected case, {count[KILLED_OTHER]} by another'
	rest = ''.join(f', {count[o]} {o}' for o in OUTCOMES[2:] if count[o])
	return f'{killed} of {len(verdicts)} mutants killed ({how}){rest}'
