# SPDX-License-Identifier: GPL-2.0
"""The coverage map: kunit/coverage.ini against the workqueue interface each
supported kernel tree declares, and the table of what the last gate
asserted for each of its entries, on a page of its own (docs/coverage.md)."""

import os
import re
from typing import Dict, List, Optional, Set

from ..base import repo_paths
from ..base.errors import WqKunitError
from ..configs import boot_configs, kernel_versions
from . import claims, mutate

COVERAGE = os.path.join(repo_paths.KUNIT_DIR, 'coverage.ini')
# The page whose table coverage --write replaces, between these markers.
PAGE = os.path.join(repo_paths.DOCS, 'coverage.md')
BEGIN = '<!-- coverage:begin (tools/wq-kunit coverage --write) -->'
END = '<!-- coverage:end -->'
HEADER = 'include/linux/workqueue.h'
SOURCE = 'kernel/workqueue.c'

# What a tree's files declare, by pattern: (file, kind, regular expression).
_PATTERNS = (
	(SOURCE, 'export', r'EXPORT_SYMBOL\w*\((\w+)\)'),
	(SOURCE, 'sysfs', r'__ATTR\((\w+),'),
	(SOURCE, 'sysfs', r'DEVICE_ATTR_R[OW]+\((\w+)\)'),
	(SOURCE, 'param', r'module_param(?:_named|_cb)\((\w+),'),
	(SOURCE, 'setup', r'__setup\("workqueue\.(\w+)='),
	(HEADER, 'function', r'^extern\s+[\w\s]*?\**\s*(\w+)\s*\('),
	(HEADER, 'function', r'^(?:bool|int|void|long|unsigned int)\s+\**(\w+)\s*\('),
	(HEADER, 'inline', r'static inline [\w\s]*?\**(\w+)\('),
	(HEADER, 'macro', r'^#define ([a-z]\w*|(?:INIT|DECLARE)_\w+)\('),
	(HEADER, 'flag', r'^\s*(_*WQ_\w+)\s*=\s*1 << \d+'),
)
# Attribute macros, not interface.
_IGNORE = {'__printf'}


def _name(kind: str, name: str) -> str:
	if kind == 'sysfs':
		return f'sysfs:{name}'
	if kind in ('param', 'setup'):
		return f'workqueue.{name}'
	return name


def interface(tree: str) -> Dict[str, str]:
	"""Every name of the workqueue interface @tree declares, with the file
	that declares it."""
	found: Dict[str, str] = {}
	for rel, kind, pattern in _PATTERNS:
		try:
			with open(os.path.join(tree, rel), encoding='utf-8', errors='replace') as f:
				text = f.read()
		except OSError as e:
			raise WqKunitError(f'{tree}: cannot read {rel}: {e.strerror}') from None
		if rel == HEADER:
			text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
		for name in re.findall(pattern, text, re.M):
			if name not in _IGNORE:
				found.setdefault(_name(kind, name), rel)
	return found


def load(path: str = COVERAGE) -> Dict[str, Dict[str, str]]:
	"""The entries of the map, each checked for what it must have."""
	parser = boot_configs.read_ini(path, 'the coverage map')
	entries = {}
	for name in parser.sections():
		sec = dict(parser[name])
		if sec.get('surface') not in ('api', 'flag', 'sysfs', 'boot', 'hotplug'):
			raise WqKunitError(f'{path}: [{name}] surface: api, flag, sysfs, boot or hotplug')
		if not sec.get('names') and not sec.get('also'):
			raise WqKunitError(f'{path}: [{name}] covers nothing (no names, no also)')
		if bool(sec.get('cases')) == bool(sec.get('reason')):
			raise WqKunitError(f'{path}: [{name}] needs cases or a reason, not both')
		entries[name] = sec
	return entries


def check(entries: Dict[str, Dict[str, str]], found: Dict[str, Dict[str, str]]) -> List[str]:
	"""What is wrong with the map against the interfaces @found per version:
	a name with no entry or with two, and a name no tree has."""
	problems = []
	owner: Dict[str, str] = {}
	for entry, sec in entries.items():
		for name in sec.get('names', '').split():
			if name in owner:
				problems.append(f'{name} is in [{owner[name]}] and in [{entry}]')
			owner[name] = entry
	everywhere: Set[str] = set()
	for version, names in sorted(found.items()):
		everywhere |= set(names)
		for name, where in sorted(names.items()):
			if name not in owner:
				problems.append(f'{version} {where}: {name} has no entry in the coverage map')
	for name, entry in sorted(owner.items()):
		if name not in everywhere:
			problems.append(f'[{entry}] names {name}, which no supported tree has')
	return problems


def _cell(sec: Dict[str, str], runs: Dict[str, claims.Run], present: bool,
	  killers: Optional[int]) -> str:
	if not present:
		return 'not in this kernel'
	if sec.get('reason'):
		return 'no case'
	if not runs:
		return 'not run'
	passed = skipped = missing = 0
	failed = []
	for boot, run in sorted(runs.items()):
		statuses = [s for n, s in run.results.items() for case in sec['cases'].split()
			    if n == case or n.startswith(case + '.')]
		if any(s not in ('PASS', 'SKIP') for s in statuses):
			failed.append(boot)
		elif 'PASS' in statuses:
			passed += 1
		elif statuses:
			skipped += 1
		else:
			missing += 1
	if failed:
		return f'FAILS in {", ".join(failed)}'
	cell = f'asserted in {passed} of {len(runs)} boots'
	if skipped:
		cell += f' (skipped in {skipped})'
	if missing:
		cell += f' (not run in {missing})'
	if killers is None:
		cell += '; no complete mutation run recorded'
	elif killers:
		cell += f'; kills {killers} mutant{"s" if killers > 1 else ""}'
	return cell


def mutation_runs(logs_root: str, versions: List[str]) -> Dict[str, Optional[dict]]:
	"""The last complete mutation run of each version (tools/wq-kunit
	mutate, every mutant), as it recorded its verdicts; None if none."""
	return {version: mutate.recorded_version(logs_root, version) for version in versions}


def _killers(run: Optional[dict], cases: List[str]) -> Optional[int]:
	"""How many mutants of @run a case of @cases killed, by failing an
	expectation; None without a run."""
	if run is None:
		return None
	return sum(1 for m in run['mutants']
		   if m['outcome'] in (mutate.KILLED, mutate.KILLED_OTHER) and
		   any(f == c or f.startswith(c + '.') for f in m['failed'] for c in cases))


def _of_version(runs: Dict[str, Dict[str, claims.Run]], version: str) -> Dict[str, claims.Run]:
	"""The boots of @version in @runs (build label -> boot -> run): its
	board's by name, another architecture's as "arm64/numa"."""
	out = dict(runs.get(version, {}))
	for label, boots_ in runs.items():
		if label.startswith(version + '-'):
			out.update((f'{label[len(version) + 1:]}/{b}', run) for b, run in boots_.items())
	return out


def table(entries: Dict[str, Dict[str, str]], found: Dict[str, Dict[str, str]],
	  runs: Dict[str, Dict[str, claims.Run]],
	  mutation: Optional[Dict[str, Optional[dict]]] = None) -> str:
	"""The Markdown table: per entry, its interface and each kernel's
	cell, with the kills of the last recorded @mutation run."""
	versions = list(found)
	mutation = mutation or {}
	rows = ['| entry | interface | cases, or why none | ' + ' | '.join(versions) + ' |',
		'|---|---|---|' + '---|' * len(versions)]
	for entry, sec in entries.items():
		names = sec.get('names', '').split()
		shown = []
		for name in names:
			have = [v for v in versions if name in found[v]]
			shown.append(f'`{name}`' + ('' if len(have) == len(versions)
						    else f' ({", ".join(have)})'))
		shown += sec.get('also', '').split(', ') if sec.get('also') else []
		cases = sec.get('cases', '').split()
		why = ', '.join(c.split('.', 1)[1] for c in cases) or sec['reason']
		if sec.get('note'):
			why += f'. {sec["note"][0].upper()}{sec["note"][1:]}'
		cells = [_cell(sec, _of_version(runs, v),
			       not names or any(n in found[v] for n in names),
			       _killers(mutation.get(v), cases)) for v in versions]
		rows.append(f'| {entry} ({sec["surface"]}) | {", ".join(shown)} | {why} | '
			    + ' | '.join(cells) + ' |')
	return '\n'.join(rows) + '\n'


def trees(trees_root: Optional[str] = None) -> Dict[str, str]:
	"""The cached tree of every supported version."""
	root = trees_root or os.path.join(repo_paths.cache_dir(), 'src')
	out = {}
	for version in kernel_versions.supported():
		tree = os.path.join(root, f'linux-{version}')
		if not os.path.isfile(os.path.join(tree, SOURCE)):
			raise WqKunitError(f'no {version} tree in {root}: run tools/wq-kunit run '
					   f'--kernel {version} first')
		out[version] = tree
	return out


def write(page: str, text: str) -> bool:
	"""Put @text between the coverage markers in @page; True if it changed."""
	return claims.write(page, text, BEGIN, END)
