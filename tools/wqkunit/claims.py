# SPDX-License-Identifier: GPL-2.0
"""The claims table: each claim of kunit/claims.ini settled per kernel from
the JSON and consoles of a gate run (the cache's logs/VERSION/BOOT.*)."""

import configparser
import json
import os
import re
from dataclasses import dataclass
from typing import Dict, List, Optional

from . import boots, kernels, paths
from .errors import WqKunitError

CLAIMS = os.path.join(paths.KUNIT_DIR, 'claims.ini')
BEGIN = '<!-- claims:begin (tools/wq-kunit claims --write README.md) -->'
END = '<!-- claims:end -->'


@dataclass
class Run:
	"""One boot of a gate run: leaf results by name, and the console."""
	results: Dict[str, str]
	console: str


def _leaves(group: dict, prefix: str, out: Dict[str, str]) -> None:
	for case in group.get('test_cases', []):
		out[prefix + case['name']] = case.get('status', '')
	for sub in group.get('sub_groups', []):
		_leaves(sub, prefix + sub['name'] + '.', out)


def load_runs(version: str, logs: Optional[str] = None) -> Dict[str, Run]:
	"""The boots of @version with both JSON and console in the cache."""
	logs = logs or os.path.join(paths.cache_dir(), 'logs', version)
	runs = {}
	for boot in boots.select('all', version):
		base = os.path.join(logs, boot.name)
		try:
			with open(base + '.json', encoding='utf-8') as f:
				root = json.load(f)
			with open(base + '.console', encoding='utf-8', errors='replace') as f:
				console = f.read()
		except (OSError, ValueError):
			continue
		results: Dict[str, str] = {}
		for suite in root.get('sub_groups', []):
			_leaves(suite, suite['name'] + '.', results)
		runs[boot.name] = Run(results, console)
	return runs


def _info(console: str, prefix: str) -> List[str]:
	"""The text of the suite's info lines that start with @prefix."""
	return [m.group(1) for m in re.finditer(r'#\s*(' + re.escape(prefix) + r'.*)', console)]


def _cpus(line: str) -> set:
	return set(re.findall(r'[Cc][Pp][Uu](\d+)', line.split(':', 2)[-1]))


def _settle(sec: configparser.SectionProxy, runs: Dict[str, Run], tree: str) -> str:
	scope = sec.get('boots', '').split()
	runs = {b: r for b, r in runs.items() if not scope or b in scope}
	negated = sec.get('holds', 'yes') == 'no'
	instead = sec.get('instead', 'does not hold')
	if 'source' in sec:
		try:
			with open(os.path.join(tree, sec['source']), encoding='utf-8') as f:
				found = sec['contains'] in f.read()
		except OSError:
			return 'no tree'
		return 'holds' if found else f'no: {instead}'
	if not runs:
		return 'not run'
	if 'mode' in sec:
		values = {b: l[len(sec['mode']):].split()[0] for b, r in runs.items()
			  for l in _info(r.console, sec['mode'])}
		if not values:
			return 'not run'
		wrong = sorted(b for b, v in values.items() if v != sec['value'])
		return f'no: {instead}' if wrong else 'holds'
	failed = []
	passed = False
	for boot, run in sorted(runs.items()):
		for name, status in run.results.items():
			if any(name.startswith(c) for c in sec.get('cases', '').split()):
				if status == 'PASS':
					passed = True
				elif status != 'SKIP':
					failed.append(boot)
	if failed:
		return f'FAILS in {", ".join(sorted(set(failed)))}'
	if 'placement' in sec:
		lines = {b: _info(r.console, sec['placement']) for b, r in runs.items()}
		moved = sorted(b for b, ls in lines.items() if any(len(_cpus(l)) > 1 for l in ls))
		seen = any(lines.values())
		if moved:
			if len(moved) == len(runs):
				where = ''
			elif len(moved) <= 2:
				where = f' with [{", ".join(moved)}]'
			else:
				where = f' in {len(moved)} of {len(runs)} boots'
			return f'no{where}: {instead}'
		if seen and negated:
			return f'no: {instead}'
		if seen or passed:
			return 'holds'
		return 'not run'
	if not passed:
		return 'not run'
	return f'no: {instead}' if negated else 'holds'


def table(claims_path: str = CLAIMS, logs_root: Optional[str] = None,
	  trees_root: Optional[str] = None) -> str:
	"""The Markdown table, one row per claim, one column per kernel."""
	parser = boots.read_ini(claims_path, 'claims')
	versions = kernels.supported()
	root = logs_root or os.path.join(paths.cache_dir(), 'logs')
	runs = {v: load_runs(v, os.path.join(root, v)) for v in versions}
	if not any(runs.values()):
		raise WqKunitError(f'no gate run in {root}: run tools/wq-kunit check first')
	trees_root = trees_root or os.path.join(paths.cache_dir(), 'src')
	trees = {v: os.path.join(trees_root, f'linux-{v}') for v in versions}
	rows = ['| claim | evidence | ' + ' | '.join(versions) + ' |',
		'|---|---|' + '---|' * len(versions)]
	for name in parser.sections():
		sec = parser[name]
		evidence = ', '.join(c.split('.', 1)[-1] for c in sec.get('cases', '').split())
		evidence = evidence or sec.get('source', '') or \
			sec.get('mode', sec.get('placement', '')).split(':')[0] + ' (reported)'
		cells = [_settle(sec, runs[v], trees[v]) for v in versions]
		rows.append(f'| {sec["claim"]} | {evidence} | ' + ' | '.join(cells) + ' |')
	return '\n'.join(rows) + '\n'


def write(readme: str, text: str) -> bool:
	"""Put @text between the markers in @readme; True if it changed."""
	with open(readme, encoding='utf-8') as f:
		old = f.read()
	start, end = old.find(BEGIN), old.find(END)
	if start < 0 or end < start:
		raise WqKunitError(f'{readme} has no claims markers ({BEGIN} ... {END})')
	new = old[:start + len(BEGIN)] + '\n' + text + old[end:]
	if new != old:
		with open(readme, 'w', encoding='utf-8') as f:
			f.write(new)
	return new != old
