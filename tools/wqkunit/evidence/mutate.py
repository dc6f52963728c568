# SPDX-License-Identifier: GPL-2.0
"""Mutation testing: the unmutated kernel is booted first (a baseline that
must pass); then each mutant of kunit/mutants/VERSION/ is applied to the
cached tree, built incrementally (Kconfig variants in their own build
directories, as every build is), booted in the configurations that matter
for it, and reverted, and must make some case fail an expectation."""

import collections
from dataclasses import dataclass, field
import json
import os
import time
from typing import Callable, List, Optional, Tuple

from ..base import repo_paths
from ..base.errors import WqKunitError
from ..build import runner
from ..build.kunitpy import Kunit
from ..configs import arches, board, boot_configs
from ..verdicts import verdict
from .mutant_tree import applied, pristine

MUTANTS = os.path.join(repo_paths.KUNIT_DIR, 'mutants')


@dataclass
class Mutant:
	name: str
	patch: str
	models: str
	caught_by: str
	boots: List[str]
	equivalent: Optional[str]
	commit: Optional[str] = None	# the upstream fix it undoes (kunit/regressions.ini)
	arch: str = arches.DEFAULT	# the build it needs: arm64 for the NUMA board


# What a mutant did, in the order the score lists them.  Only the first
# two count as killed, and only a case that failed an expectation kills:
# a kernel report, a crash or hang, a board check, a broken build or boot
# says something went wrong, not that a case caught the regression.
KILLED = 'killed'
KILLED_OTHER = 'killed by another case'
EQUIVALENT = 'equivalent'
SURVIVED = 'survived'
BOARD = 'board check only'
REPORT = 'kernel report only'
CRASHED = 'crashed or hung'
BOOT_ERROR = 'boot error'
NO_BUILD = 'did not build'
NO_APPLY = 'did not apply'
OUTCOMES = (KILLED, KILLED_OTHER, EQUIVALENT, SURVIVED, BOARD, REPORT, CRASHED,
	    BOOT_ERROR, NO_BUILD, NO_APPLY)
# Outcomes that leave the run green: the mutant was killed, or it cannot
# be (equivalent), or its header says only the board check can see it.
ACCEPTED = (KILLED, KILLED_OTHER, EQUIVALENT)
# Where a run records its verdicts, in the logs of the build it used: a
# run of every mutant, which the coverage table reads, and any other.
RECORD = 'mutation.json'
PARTIAL = 'mutation.partial.json'


@dataclass
class Verdict:
	mutant: Mutant
	outcome: str		# one of OUTCOMES
	detail: str
	seconds: float
	failed: List[str] = field(default_factory=list)	# cases that failed an expectation


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
		arch = head.get('Arch', arches.DEFAULT)
		if arch not in arches.ARCHES:
			raise WqKunitError(f'{path}: Arch: {arch!r} is none of '
					   f'{", ".join(arches.ARCHES)}')
		mutants.append(Mutant(head['Mutant'], path, head['Models'], head['Caught by'],
				      head.get('Boots', 'default').split(), head.get('Equivalent'),
				      head.get('Commit'), arch))
	return mutants


def classify(mutant: Mutant, judged: List[verdict.Verdict],
	     build_error: Optional[str] = None) -> Tuple[str, str, List[str]]:
	"""The outcome of @mutant from its boots' verdicts, the detail that
	backs it, and the cases that failed an expectation."""
	if build_error:
		return NO_BUILD, build_error, []
	expected = mutant.caught_by.split()[0]
	# A boot error (another kernel, another board) says nothing of the
	# cases: its failures kill nothing.
	failed = [c for j in judged if j.kind != verdict.BOOT_ERROR for c in j.failed_expectations]
	mine = [c for c in failed if c == expected or c.startswith(expected + '.')]
	if mine:
		return KILLED, '; '.join(mine[:3]), failed
	if failed:
		return KILLED_OTHER, f'expected {expected}; failed: {"; ".join(failed[:3])}', failed
	errors = [e for j in judged for e in j.errors]
	for kind, outcome in ((verdict.BOOT_ERROR, BOOT_ERROR), (verdict.CRASHED, CRASHED),
			      (verdict.KERNEL_REPORT, REPORT)):
		bad = [j for j in judged if j.kind == kind]
		if not bad:
			continue
		if outcome == BOOT_ERROR and all(board.PREFIX in e for e in errors):
			outcome = BOARD
		why = bad[0].explain()
		return outcome, ' '.join(l.strip() for l in why[1:3]), []
	if mutant.equivalent:
		return EQUIVALENT, mutant.equivalent, []
	passed = sum(j.counts.passed for j in judged)
	return SURVIVED, f'{passed} passed in {len(judged)} boots', []


def _boots(mutant: Optional[Mutant], boot_name: Optional[str], version: str) -> List[boot_configs.Boot]:
	names = [boot_name] if boot_name else (mutant.boots if mutant else ['default'])
	arch = mutant.arch if mutant else arches.DEFAULT
	return [b for n in names for b in boot_configs.select(n, version, arch=arch)]


def judged_boots(base: Kunit, req: runner.BuildRequest, selected: List[boot_configs.Boot],
		 timeout: int) -> Tuple[List[Tuple[str, verdict.Verdict]], Optional[str]]:
	"""Build @base's tree as it is now and boot it in each of @selected,
	as every build and boot is (runner.build_and_boot()): each boot's
	name and verdict, and why it did not build if it did not."""
	arch = arches.get(req.arch)
	# Two guests at a time, as the gate boots them.
	ex = runner.ExecRequest(selected, timeout, (arch.cpus,), live=False, log_prefix='mutant.',
				keep_failed=False, explain=False, board=arch.board, parallel=2)
	boots = runner.build_and_boot(base, req, ex, _quiet).boots
	unbuilt = [b.judged.build_error for b in boots if b.judged.build_error]
	return ([(b.name, b.judged) for b in boots if not b.judged.build_error],
		unbuilt[0] if unbuilt else None)


def _judge(base: Kunit, req: runner.BuildRequest, selected: List[boot_configs.Boot],
	   timeout: int) -> Tuple[List[verdict.Verdict], Optional[str]]:
	named, error = judged_boots(base, req, selected, timeout)
	return [j for _, j in named], error


def _quiet(_msg: str) -> None:
	pass


def baseline(base: Kunit, req: runner.BuildRequest, selected: List[boot_configs.Boot],
	     timeout: int, say: Callable[[str], None]) -> None:
	"""The unmutated kernel in every configuration the mutants boot: it
	must pass, or every mutant would look killed."""
	say(f'baseline: the unmutated kernel in {", ".join(b.name for b in selected)}')
	judged, error = _judge(base, req, selected, timeout)
	bad = [j for j in judged if not j.passed]
	if error or bad:
		for j in bad:
			print('\n'.join(f'  {l}' for l in j.explain()), flush=True)
		raise WqKunitError(f'{req.version}: the unmutated kernel does not pass '
				   f'({error or bad[0].kind}): no mutant can be judged against it')
	say(f'baseline: passed in {len(judged)} boots')


def run(kunit: Kunit, req: runner.BuildRequest, mutants: List[Mutant],
	boot_name: Optional[str], timeout: int,
	say: Callable[[str], None]) -> List[Verdict]:
	"""The baseline, then every mutant on @kunit's tree; the tree ends
	exactly as it began."""
	tree = kunit.tree
	with pristine(tree):
		every = {b.name: b for m in mutants for b in _boots(m, boot_name, req.version)}
		baseline(kunit, req, list(every.values()), timeout, say)
		verdicts = []
		for mutant in mutants:
			start = time.monotonic()
			with applied(tree, mutant.name, mutant.patch) as applies:
				if not applies:
					verdicts.append(Verdict(mutant, NO_APPLY, 'git apply --check failed', 0.0))
					say(f'{mutant.name}: {NO_APPLY}')
					continue
				judged, error = _judge(kunit, req, _boots(mutant, boot_name, req.version),
						       timeout)
				outcome, detail, failed = classify(mutant, judged, error)
			secs = time.monotonic() - start
			verdicts.append(Verdict(mutant, outcome, detail, secs, failed))
			say(f'{mutant.name}: {outcome} ({secs:.0f} s): {detail[:160]}')
	return verdicts


def record(verdicts: List[Verdict], path: str, complete: bool) -> None:
	"""Write @verdicts where coverage reads which cases killed what."""
	with open(path, 'w', encoding='utf-8') as f:
		json.dump({'complete': complete, 'time': time.strftime('%Y-%m-%d %H:%M:%S'),
			   'mutants': [{'name': v.mutant.name, 'outcome': v.outcome,
					'detail': v.detail, 'failed': v.failed,
					'seconds': round(v.seconds, 1)} for v in verdicts]},
			  f, indent=1)
		f.write('\n')


def recorded(path: str) -> Optional[dict]:
	"""A run record(ed), or None if there is none."""
	try:
		with open(path, encoding='utf-8') as f:
			return json.load(f)
	except (OSError, ValueError):
		return None


def recorded_version(logs_root: str, version: str,
		     directory: Optional[str] = None) -> Optional[dict]:
	"""The last complete run of every mutant of @version: each
	architecture's mutants are recorded in the logs of its build
	(logs/6.12/, logs/6.12-arm64/), and a run of one architecture's alone
	is complete for those.  None unless each mutant of kunit/mutants/
	has a verdict in a complete record (or @version has no mutants)."""
	if not os.path.isdir(os.path.join(directory or MUTANTS, version)):
		return None
	mutants = load(version, directory)
	verdicts: dict = {}
	times = []
	for arch in dict.fromkeys(m.arch for m in mutants):
		run = recorded(os.path.join(logs_root, arches.label(version, arch), RECORD))
		if not run or not run.get('complete'):
			return None
		times.append(run['time'])
		# A mutant's verdict comes from its own architecture's record.
		mine = {m.name for m in mutants if m.arch == arch}
		verdicts.update((m['name'], m) for m in run['mutants'] if m['name'] in mine)
	if any(m.name not in verdicts for m in mutants):
		return None
	# The oldest architecture's run dates the record.
	return {'complete': True, 'time': min(times),
		'mutants': [verdicts[m.name] for m in mutants]}


def corpus_score(verdicts: List[Verdict]) -> Optional[str]:
	"""The regression corpus's line: how many undone upstream fixes a
	case caught, or None if no mutant undoes one."""
	undone = [v for v in verdicts if v.mutant.commit]
	if not undone:
		return None
	caught = [v for v in undone if v.outcome in (KILLED, KILLED_OTHER)]
	same = [v.mutant.name for v in undone if v.outcome == EQUIVALENT]
	missed = [v.mutant.name for v in undone if v not in caught and v.outcome != EQUIVALENT]
	line = (f'regression corpus: {len(caught)} of {len(undone) - len(same)} undone upstream '
		f'fixes caught by a case')
	if same:
		line += f'; {len(same)} not observable in a guest ({", ".join(same)})'
	if missed:
		line += f'; not caught: {", ".join(missed)}'
	return line


def score(verdicts: List[Verdict]) -> str:
	""""K of N mutants killed (by which case)", then the other outcomes."""
	count = collections.Counter(v.outcome for v in verdicts)
	killed = count[KILLED] + count[KILLED_OTHER]
	how = f'{count[KILLED]} by the expected case, {count[KILLED_OTHER]} by another'
	rest = ''.join(f', {count[o]} {o}' for o in OUTCOMES[2:] if count[o])
	return f'{killed} of {len(verdicts)} mutants killed ({how}){rest}'
