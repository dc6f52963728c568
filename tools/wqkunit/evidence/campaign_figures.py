# SPDX-License-Identifier: GPL-2.0
"""The figures of the mechanical-mutant campaigns: per kernel, per
function and per operator, how many mutants were generated, built,
killed (a case failed an expectation), crashed (the boot failed without
a case failing: a kernel report, a crash or hang, a boot error; the run
is red all the same), compiled to the unmutated object in every build
(same_object.py: equivalent by construction, never booted), argued
equivalent (kunit/equivalent.ini), argued allowed (an argument there
starting "allowed:": the mutant changes only a choice the kernel leaves
free, such as which CPU of a pod a hint names), argued race only
(starting "race:": a guest could see it only if a window with interrupts
off outlasted another CPU's whole operation, which no case can arrange
without a hook in the kernel: neither killed nor equivalent) and left
open, from the records published in kunit/campaign/VERSION.json.
docs/mutation.md carries the table between its campaign markers; a test
keeps it equal to what this prints."""

import configparser
import json
import os
from typing import Dict, List, Tuple

from ..base import repo_paths
from ..base.errors import WqKunitError
from . import campaign, mutate

PUBLISHED = campaign.PUBLISHED
EQUIVALENT = os.path.join(repo_paths.KUNIT_DIR, 'equivalent.ini')
BEGIN, END = '<!-- campaign table: begin -->', '<!-- campaign table: end -->'
UNBUILT = (mutate.NO_BUILD, mutate.NO_APPLY, campaign.NO_CHANGE)
CRASHED = (mutate.REPORT, mutate.CRASHED, mutate.BOOT_ERROR, mutate.BOARD)
COLUMNS = ('generated', 'run', 'built', 'killed', 'crashed', 'same object', 'equivalent',
	   'allowed', 'race only', 'open')
# An argument that the mutant only changes a choice the contract leaves free.
ALLOWED = 'allowed:'
# An argument that only a race no case can arrange would show it.
RACE = 'race:'


def equivalents(path: str = EQUIVALENT) -> Dict[str, Dict[str, str]]:
	"""Per kernel, the argument of each mutant no guest can tell apart."""
	ini = configparser.ConfigParser(interpolation=None, delimiters=(' = ',))
	ini.optionxform = str
	if os.path.exists(path) and not ini.read(path, encoding='utf-8'):
		raise WqKunitError(f'cannot read {path}')
	return {v: dict(ini[v]) for v in ini.sections()}


def published(directory: str = PUBLISHED) -> Dict[str, dict]:
	"""The published records, by kernel version."""
	out = {}
	for name in sorted(os.listdir(directory)) if os.path.isdir(directory) else ():
		if name.endswith('.json'):
			with open(os.path.join(directory, name), encoding='utf-8') as f:
				out[name[:-5]] = json.load(f)['mutants']
	return out


def verdict(name: str, entry: dict, argued: Dict[str, str]) -> str:
	"""killed, crashed, same object, equivalent, allowed, race only or open; "unbuilt"
	if it did not build
	(or apply, or change anything); "" if it was not run."""
	outcome = entry['outcome']
	if outcome == campaign.NOT_RUN:
		return ''
	if outcome in UNBUILT:
		return 'unbuilt'
	if outcome in campaign.KILLS:
		return 'killed'
	if outcome in CRASHED:
		return 'crashed'
	if outcome == campaign.SAME_OBJECT:
		return 'same object'
	if name not in argued:
		return 'open'
	if argued[name].startswith(ALLOWED):
		return 'allowed'
	return 'race only' if argued[name].startswith(RACE) else 'equivalent'


def counts(mutants: Dict[str, dict], argued: Dict[str, str],
	   key: str) -> Dict[str, Dict[str, int]]:
	"""Per value of @key ("function" or "operator"), each column's count."""
	rows: Dict[str, Dict[str, int]] = {}
	for name, entry in mutants.items():
		row = rows.setdefault(entry[key], dict.fromkeys(COLUMNS, 0))
		row['generated'] += 1
		v = verdict(name, entry, argued)
		if v:
			row['run'] += 1
		if v and v != 'unbuilt':
			row['built'] += 1
			row[v] += 1
	return rows


def _table(title: str, rows: Dict[str, Dict[str, int]]) -> List[str]:
	out = [f'| {title} | ' + ' | '.join(COLUMNS) + ' |',
	       '|---|' + '---:|' * len(COLUMNS)]
	total = dict.fromkeys(COLUMNS, 0)
	for name in sorted(rows):
		out.append(f'| `{name}` | ' + ' | '.join(str(rows[name][c]) for c in COLUMNS) + ' |')
		for c in COLUMNS:
			total[c] += rows[name][c]
	out.append('| **all** | ' + ' | '.join(f'**{total[c]}**' for c in COLUMNS) + ' |')
	return out


def table(records: Dict[str, dict], argued: Dict[str, Dict[str, str]]) -> str:
	"""The markdown that goes between the markers of docs/mutation.md."""
	out: List[str] = []
	for version in sorted(records, key=lambda v: tuple(map(int, v.split('.')))):
		mutants = records[version]
		mine = argued.get(version, {})
		out += [f'Linux {version}:', '']
		for key in ('function', 'operator'):
			out += _table(key, counts(mutants, mine, key)) + ['']
	return '\n'.join(out).rstrip('\n') + '\n' if out else ''


def replace(doc: str, body: str) -> str:
	"""@doc with @body between its markers."""
	if doc.count(BEGIN) != 1 or doc.count(END) != 1:
		raise WqKunitError(f'docs/mutation.md needs one "{BEGIN}" and one "{END}"')
	head, rest = doc.split(BEGIN)
	_, tail = rest.split(END)
	return f'{head}{BEGIN}\n{body}{END}{tail}'


def open_mutants(records: Dict[str, dict], argued: Dict[str, Dict[str, str]]) -> List[Tuple[str, str]]:
	"""(version, name) of each survivor without an argument."""
	return [(v, n) for v, ms in records.items() for n, e in ms.items()
		if verdict(n, e, argued.get(v, {})) == 'open']
