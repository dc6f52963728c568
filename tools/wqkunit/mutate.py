# SPDX-License-Identifier: GPL-2.0
"""Mutation testing: each mutant of kunit/mutants/VERSION/ is applied to the
cached tree, built incrementally, booted in the configurations that matter
for it, and reverted, and must make some case fail."""

import os
import time
from dataclasses import dataclass
from typing import Callable, List, Optional

from . import assess, boots, paths, proc, results
from .errors import StaleKernel, WqKunitError
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


@dataclass
class Verdict:
	mutant: Mutant
	outcome: str		# killed, survived, equivalent, did not build, did not apply
	detail: str
	seconds: float


def load(version: str, directory: str = MUTANTS) -> List[Mutant]:
	"""The mutants of @version, from the headers of their patches."""
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


def _boot(kunit: Kunit, boot: boots.Boot, logs: str, timeout: int) -> results.Counts:
	console = os.path.join(logs, f'mutant.{boot.name}.console')
	json_path = os.path.join(logs, f'mutant.{boot.name}.json')
	try:
		kunit.boot(boot.kernel_args, [], timeout, console)
	except StaleKernel:
		raise
	except WqKunitError as e:
		counts = results.Counts(failed=1, failures=[f'boot failed: {e}'])
		return counts
	text, complete = kunit.parse(console, json_path, show=False)
	with open(console, encoding='utf-8', errors='replace') as f:
		counts = assess.boot(f.read(), text, complete).counts
	counts.failures = [f'[{boot.name}] {n}' if not n.startswith('[') else n
			   for n in counts.failures]
	return counts


def run(kunit: Kunit, version: str, mutants: List[Mutant], boot_name: Optional[str],
	jobs: int, timeout: int, logs: str, say: Callable[[str], None]) -> List[Verdict]:
	"""Try every mutant on @kunit's tree; the tree ends exactly as it began."""
	tree = kunit.tree
	before = _clean(tree)
	if before.count('\n') > 1:
		raise WqKunitError(f'{tree} has local changes; mutants need the pristine series')
	verdicts = []
	for mutant in mutants:
		start = time.monotonic()
		selected = boots.select(boot_name, version) if boot_name else \
			[b for n in mutant.boots for b in boots.select(n, version)]
		applied = proc.ok(['git', 'apply', '--check', mutant.patch], cwd=tree)
		if not applied:
			verdicts.append(Verdict(mutant, 'did not apply', 'git apply --check failed', 0.0))
			say(f'{mutant.name}: did not apply')
			continue
		proc.run(['git', 'apply', mutant.patch], cwd=tree, what=f'applying {mutant.name}')
		try:
			counts = results.Counts()
			outcome = ''
			for kconfig, group in boots.by_build(selected):
				try:
					kunit.build(jobs, os.path.join(logs, 'mutant-build.log'), kconfig)
				except WqKunitError as e:
					outcome, detail = 'did not build', str(e)
					break
				for boot in group:
					counts.add(_boot(kunit, boot, logs, timeout))
			if not outcome:
				if counts.failed:
					outcome, detail = 'killed', '; '.join(counts.failures[:3])
				elif mutant.equivalent:
					outcome, detail = 'equivalent', mutant.equivalent
				else:
					outcome, detail = 'survived', f'{counts.line()}'
		finally:
			proc.run(['git', 'apply', '-R', mutant.patch], cwd=tree,
				 what=f'reverting {mutant.name}')
		secs = time.monotonic() - start
		verdicts.append(Verdict(mutant, outcome, detail, secs))
		say(f'{mutant.name}: {outcome} ({secs:.0f} s): {detail[:160]}')
	after = _clean(tree)
	if after != before:
		raise WqKunitError(f'{tree} is not as it was before the mutants')
	return verdicts


def score(verdicts: List[Verdict]) -> str:
	killed = sum(v.outcome == 'killed' for v in verdicts)
	equivalent = sum(v.outcome == 'equivalent' for v in verdicts)
	return f'{killed} of {len(verdicts)} mutants killed ({equivalent} equivalent)'
