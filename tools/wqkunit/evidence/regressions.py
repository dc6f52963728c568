# SPDX-License-Identifier: GPL-2.0
"""The regression corpus, kunit/regressions.ini: upstream fixes to where
the workqueue runs work, each undone by a mutant or set aside with a
reason."""

import os
import re
from typing import Dict, List, Optional

from ..base import repo_paths
from ..configs import boot_configs, kernel_versions
from . import claims, mutate

REGRESSIONS = os.path.join(repo_paths.KUNIT_DIR, 'regressions.ini')
FIELDS = ('commit', 'subject', 'broke', 'kernels')
# The page whose table coverage --write replaces, between these markers.
PAGE = os.path.join(repo_paths.DOCS, 'corpus.md')
BEGIN = '<!-- corpus:begin (tools/wq-kunit coverage --write) -->'
END = '<!-- corpus:end -->'


def problems(path: str = REGRESSIONS, mutants: str = mutate.MUTANTS) -> List[str]:
	"""What is wrong with the corpus at @path, one line each: a missing
	field, a short or malformed commit id, an unsupported kernel, an
	entry with neither (or both) a mutant and a reason, a mutant file that
	is missing or names another commit, and a regress-* mutant that no
	entry lists."""
	parser = boot_configs.read_ini(path, 'the regression corpus')
	out, listed = [], set()
	headers: Dict[str, Dict[str, str]] = {}
	for name in parser.sections():
		sec = parser[name]
		out += [f'[{name}]: no {f}' for f in FIELDS if not sec.get(f)]
		commit = sec.get('commit', '')
		if not re.fullmatch(r'[0-9a-f]{12,40}', commit):
			out.append(f'[{name}]: commit "{commit}" is not 12 to 40 hex digits')
		versions = sec.get('kernels', '').split()
		out += [f'[{name}]: kernel {v} is not supported' for v in versions
			if v not in kernel_versions.supported()]
		if ('mutant' in sec) == ('reason' in sec):
			out.append(f'[{name}]: needs either a mutant or a reason')
			continue
		if 'reason' in sec:
			continue
		for version in versions:
			listed.add(os.path.join(version, sec['mutant']))
			if version not in headers:
				headers[version] = _commits(version, mutants)
			if sec['mutant'] not in headers[version]:
				out.append(f'[{name}]: no mutant {version}/{sec["mutant"]}')
				continue
			named = headers[version][sec['mutant']]
			if not named or not (commit.startswith(named) or named.startswith(commit)):
				out.append(f'[{name}]: {version}/{sec["mutant"]} names another commit')
	for version in kernel_versions.supported():
		folder = os.path.join(mutants, version)
		for file in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
			rel = os.path.join(version, file)
			if file.startswith('regress-') and rel not in listed:
				out.append(f'{rel}: in no entry of {os.path.basename(path)}')
	return out


def _commits(version: str, mutants: str) -> Dict[str, str]:
	"""Each mutant file of @version -> the commit id its Commit: line
	names ('' for none), read as mutate reads the headers."""
	if not os.path.isdir(os.path.join(mutants, version)):
		return {}
	return {os.path.basename(m.patch): (m.commit or '').split(' ')[0]
		for m in mutate.load(version, mutants)}


def _cell(run: Optional[dict], mutant: str) -> str:
	"""What the recorded mutation @run says of @mutant."""
	if run is None:
		return 'no mutation run'
	found = [m for m in run['mutants'] if m['name'] == mutant]
	if not found:
		return 'not run'
	m = found[0]
	if m['outcome'] in (mutate.KILLED, mutate.KILLED_OTHER):
		cases = list(dict.fromkeys(c.split('.')[1] for c in m['failed']))
		return 'caught by ' + ', '.join(cases[:2]) + (f' and {len(cases) - 2} more'
							      if len(cases) > 2 else '')
	if m['outcome'] == mutate.EQUIVALENT:
		return 'not observable (equivalent)'
	return f'NOT CAUGHT ({m["outcome"]})'


def table(runs: Dict[str, Optional[dict]], path: str = REGRESSIONS) -> str:
	"""The corpus per kernel, from each kernel's last complete mutation
	run (@runs, as coverage.mutation_runs() reads them)."""
	parser = boot_configs.read_ini(path, 'the regression corpus')
	versions = list(runs)
	rows = ['| upstream fix | what broke | ' + ' | '.join(versions) + ' |',
		'|---|---|' + '---|' * len(versions)]
	for name in parser.sections():
		sec = parser[name]
		fixed = sec['kernels'].split()
		cells = []
		for version in versions:
			if 'reason' in sec:
				cells.append('not observable: ' + sec['reason'].split(';')[0])
			elif version not in fixed:
				cells.append('fix not in this tree')
			else:
				cells.append(_cell(runs[version], sec['mutant'].removesuffix('.patch')))
		rows.append(f'| {sec["commit"][:12]} ("{sec["subject"]}") | {sec["broke"]} | ' +
			    ' | '.join(cells) + ' |')
	return '\n'.join(rows) + '\n'


def write(page: str, text: str) -> bool:
	"""Put @text between the corpus markers in @page; True if it changed."""
	return claims.write(page, text, BEGIN, END)

