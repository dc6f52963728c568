# SPDX-License-Identifier: GPL-2.0
"""A mutation campaign over the mechanical mutants (mechanical_mutants.py):
each mutant is applied to the prepared tree, built once and booted first
in its group's screening configurations (kunit/surface.ini), where the
cases that exercise its function run; only if no case fails there does
the same build boot every other configuration of the architecture, and
a survivor of those boots once more, built for arm64, on the board with
two NUMA nodes (NUMA below).  Each verdict is recorded as soon as it is
known, so a campaign stopped anywhere resumes where it stopped.
Verdicts are mutate.py's."""

import dataclasses
import hashlib
import json
import os
import time
from typing import Callable, Dict, List, Optional, Sequence

from ..base import repo_paths
from ..base.errors import WqKunitError
from ..build import runner
from ..build.kunitpy import Kunit
from ..configs import arches, boot_configs
from ..verdicts import verdict
from . import mechanical_mutants as mm
from . import mutant_tree, mutate, same_object

RECORD = 'campaign.json'
# Beside the record: stop after the mutant being run (and remove it).
STOP = 'campaign.stop'
NOT_RUN = 'not run'
NO_CHANGE = 'no change'
# The mutated file compiles to the unmutated object in every build.
SAME_OBJECT = 'same object'
# Never expected by name: any case failing an expectation kills.
ANY_CASE = '(any case)'
KILLS = (mutate.KILLED, mutate.KILLED_OTHER)
# 32-bit ARM has no NUMA: the cases of NUMA pods, queue_work_node() and
# a node's fallback assert only on this architecture's board of two nodes.
NUMA = ('arm64', 'numa')
# The published records, one per kernel version (--publish).
PUBLISHED = os.path.join(repo_paths.KUNIT_DIR, 'campaign')


def load(path: str) -> dict:
	"""The record: the digests of the mutated files and, by mutant name,
	every mutant with its verdict (or "not run")."""
	try:
		with open(path, encoding='utf-8') as f:
			data = json.load(f)
		return {'sources': data['sources'], 'mutants': data['mutants']}
	except FileNotFoundError:
		return {'sources': {}, 'mutants': {}}
	except (OSError, ValueError, KeyError) as e:
		raise WqKunitError(f'cannot read the campaign record {path}: {e}') from None


def save(path: str, data: dict) -> None:
	tmp = path + '.tmp'
	with open(tmp, 'w', encoding='utf-8') as f:
		json.dump(dict(data, time=time.strftime('%Y-%m-%d %H:%M:%S')), f, indent=1,
			  sort_keys=True)
		f.write('\n')
	os.replace(tmp, path)


def seed(record: str, published: str, now: Dict[str, str],
	 say: Callable[[str], None]) -> dict:
	"""The record in the logs or, with none there, the published record
	(kunit/campaign/) if it measured the same sources @now: a campaign
	resumes where it stopped, also on another machine."""
	data = load(record)
	if data['mutants'] or not os.path.exists(published):
		return data
	theirs = load(published)
	if theirs['sources'] != now:
		return data
	say(f'no campaign record in the logs: resuming from {published}')
	return theirs


def sources(tree: str, groups: List[mm.Group]) -> Dict[str, str]:
	"""The digest of each file the mutants change, as the tree has it."""
	out = {}
	for path in sorted({g.file for g in groups}):
		with open(os.path.join(tree, path), 'rb') as f:
			out[path] = hashlib.sha1(f.read()).hexdigest()
	return out


def screens(groups: List[mm.Group], version: str) -> Dict[str, List[boot_configs.Boot]]:
	"""Per group, the configurations its mutants boot first, checked now."""
	return {g.name: [b for n in g.screen for b in boot_configs.select(n, version)]
		for g in groups}


def rest(version: str, first: List[boot_configs.Boot]) -> List[boot_configs.Boot]:
	"""Every other configuration of the architecture, for a survivor."""
	names = {b.name for b in first}
	return [b for b in boot_configs.select('all', version) if b.name not in names]


def _entry(m: mm.Mutant, **verdict) -> dict:
	return dict({'group': m.group, 'file': m.file, 'function': m.function, 'line': m.line,
		     'operator': m.operator, 'variant': m.variant}, **verdict)


def _where(named) -> List[str]:
	"""The boots of @named that failed: a case, or the boot itself."""
	return [name for name, j in named
		if j.failed_expectations or j.kind in (verdict.CRASHED, verdict.BOOT_ERROR,
							verdict.KERNEL_REPORT)]


def builds(kunit: Kunit, boots: List[boot_configs.Boot]) -> List[Kunit]:
	"""The build directory of each Kconfig variant @boots need."""
	return [kunit.variant(runner.variant_name(kconfig)) if kconfig else kunit
		for kconfig, _ in boot_configs.by_build(boots)]


class Objects:
	"""The unmutated object of each mutated file in each build, to tell
	a mutant that compiles to it (same_object.py)."""
	def __init__(self, kunit: Kunit, req: runner.BuildRequest, boots: List[boot_configs.Boot],
		     files: List[str]) -> None:
		self.builds = builds(kunit, boots)
		self.jobs = req.jobs
		self.log = os.path.join(req.logs, 'same-object.log')
		self.pristine = {f: same_object.digests(self.builds, f, self.jobs, self.log)
				 for f in files}

	def same(self, source: str) -> bool:
		"""Checked with the log emptied: it holds this mutant's makes only."""
		with open(self.log, 'w', encoding='utf-8'):
			pass
		return same_object.same(self.builds, source, self.jobs, self.log,
					self.pristine[source])


class Numa:
	"""The same tree built for the NUMA board, and its one boot (NUMA)."""
	def __init__(self, kunit: Kunit, req: runner.BuildRequest) -> None:
		arch, name = NUMA
		self.req = dataclasses.replace(req, arch=arch)
		spec = arches.get(arch)
		self.kunit = Kunit(kunit.tree, self.req.build_path, kunitconfigs=spec.kunitconfigs,
				   arch=spec, reuse=True)
		self.boots = boot_configs.select(name, req.version, arch=arch)

	def label(self, name: str) -> str:
		"""A boot's name, "numa@arm64", told apart from the arm ones."""
		return f'{name}@{self.req.arch}'

	def names(self) -> List[str]:
		return [self.label(b.name) for b in self.boots]

	def judged(self, timeout: int):
		named, error = mutate.judged_boots(self.kunit, self.req, self.boots, timeout)
		return [(self.label(name), j) for name, j in named], error


def _one(kunit: Kunit, req, m: mm.Mutant, patch: str, first, timeout: int,
	 objects: Objects, numa: Optional[Numa] = None) -> dict:
	"""Apply; if the object is the unmutated one in every build, stop
	there; else build, boot the screen, then the rest if nothing failed,
	then the NUMA board if still nothing failed."""
	entry = _entry(m)
	target = mutate.Mutant(m.name, patch, m.operator, ANY_CASE, [], None)
	with mutant_tree.applied(kunit.tree, m.name, patch) as applies:
		if not applies:
			return dict(entry, outcome=mutate.NO_APPLY, detail='git apply --check failed',
				    stage='', boots=[], failed=[])
		if objects.same(m.file):
			return dict(entry, outcome=SAME_OBJECT, stage='object',
				    detail=f'{m.file} compiles to the unmutated object in '
					   f'{len(objects.builds)} builds',
				    boots=[], failed=[])
		stage, booted, also = 'screen', list(first), []
		named, error = mutate.judged_boots(kunit, req, first, timeout)
		outcome, detail, failed = mutate.classify(target, [j for _, j in named], error)
		if outcome == mutate.SURVIVED:
			stage, more = 'every boot', rest(req.version, first)
			booted += more
			extra, error = mutate.judged_boots(kunit, req, more, timeout)
			named += extra
			outcome, detail, failed = mutate.classify(target, [j for _, j in named], error)
		if outcome == mutate.SURVIVED and numa:
			stage, also = 'numa board', numa.names()
			extra, error = numa.judged(timeout)
			named += extra
			outcome, detail, failed = mutate.classify(target, [j for _, j in named], error)
	if outcome == mutate.KILLED_OTHER:
		outcome, detail = mutate.KILLED, '; '.join(failed[:3])
	return dict(entry, outcome=outcome, detail=detail, stage=stage,
		    boots=[b.name for b in booted] + also, failed=failed[:10], failed_in=_where(named))


def run(kunit: Kunit, req: runner.BuildRequest, groups: List[mm.Group],
	mutants: List[mm.Mutant], wanted: Callable[[mm.Mutant], bool], timeout: int,
	limit: Optional[int], say: Callable[[str], None], again: Sequence[str] = ()) -> dict:
	"""Every mutant of @mutants is recorded; those @wanted and not run
	yet (at most @limit) are run, after a baseline in every configuration
	they may boot, and those named in @again run again whatever their
	verdict.  A record of other sources is set aside, not mixed."""
	record = os.path.join(req.logs, RECORD)
	os.makedirs(os.path.join(req.logs, 'mutants'), exist_ok=True)
	now = sources(kunit.tree, groups)
	data = seed(record, os.path.join(PUBLISHED, f'{req.version}.json'), now, say)
	if data['mutants'] and data['sources'] != now:
		old = record.replace('.json', time.strftime('.%Y%m%d-%H%M%S.json'))
		os.replace(record, old)
		say(f'{req.version}: the mutated files changed since the last campaign; '
		    f'its record is kept as {old}')
		data = {'sources': {}, 'mutants': {}}
	data['sources'] = now
	done = data['mutants']
	gone = sorted(set(done) - {m.name for m in mutants})
	for name in gone:
		del done[name]
	if gone:
		say(f'{req.version}: {len(gone)} recorded mutants are no longer generated, '
		    f'dropped: {", ".join(gone[:3])}')
	for m in mutants:
		done.setdefault(m.name, _entry(m, outcome=NOT_RUN))
	unknown = sorted(set(again) - set(done))
	if unknown:
		raise WqKunitError(f'{req.version}: no mutant {unknown[0]} in this tree\'s campaign')
	for name in again:
		done[name] = dict(done[name], outcome=NOT_RUN)
	save(record, data)
	pending = [m for m in mutants if done[m.name]['outcome'] == NOT_RUN and wanted(m)]
	todo = pending[:limit]
	say(f'{req.version}: {len(mutants)} mutants, '
	    f'{sum(1 for e in done.values() if e["outcome"] != NOT_RUN)} run before, '
	    f'{len(todo)} to run now')
	if not todo:
		return data
	first = screens(groups, req.version)
	every = {b.name: b for bs in first.values() for b in bs + rest(req.version, bs)}
	with mutant_tree.pristine(kunit.tree):
		mutate.baseline(kunit, req, list(every.values()), timeout, say)
		numa = Numa(kunit, req)
		mutate.baseline(numa.kunit, numa.req, numa.boots, timeout, say)
		objects = Objects(kunit, req, list(every.values()), sorted({g.file for g in groups}))
		for m in todo:
			if stop_asked(req.logs, say):
				break
			_next(kunit, req, m, data, record, first[m.group], timeout, say, objects, numa)
	return data


def stop_asked(logs: str, say: Callable[[str], None]) -> bool:
	"""True, once, if someone asked the campaign in @logs to stop."""
	path = os.path.join(logs, STOP)
	if not os.path.exists(path):
		return False
	os.remove(path)
	say(f'stopped as {path} asked; run the campaign again to go on')
	return True


def _next(kunit: Kunit, req: runner.BuildRequest, m: mm.Mutant, data: dict, record: str,
	  first: List[boot_configs.Boot], timeout: int, say: Callable[[str], None],
	  objects: Objects, numa: Optional[Numa] = None) -> None:
	"""Make, run and record one mutant."""
	start = time.monotonic()
	text = mm.diff(kunit.tree, m)
	if text is None:
		entry = _entry(m, outcome=NO_CHANGE, detail='spatch changed nothing')
	else:
		patch = os.path.join(req.logs, 'mutants', m.name.replace('/', '_') + '.patch')
		with open(patch, 'w', encoding='utf-8') as f:
			f.write(text)
		entry = _one(kunit, req, m, patch, first, timeout, objects, numa)
	entry['seconds'] = round(time.monotonic() - start, 1)
	data['mutants'][m.name] = entry
	save(record, data)
	say(f'{entry["outcome"]:16} {m.name} ({entry["seconds"]:.0f} s) '
	    f'{entry.get("detail", "")[:120]}')
