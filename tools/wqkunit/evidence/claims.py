# SPDX-License-Identifier: GPL-2.0
"""The claims table: each claim of kunit/claims.ini settled per kernel from
the JSON and consoles of one gate run (the cache's logs/VERSION/, named as
log_names.stem() names them), as logs/gate.json records them: the series
and kunitconfig it ran, its arguments, and a digest of every log it wrote."""

import configparser
import json
import os
import re
from dataclasses import dataclass
from typing import Dict, List, Optional

from ..base import digest_stamps, repo_paths
from ..base.errors import WqKunitError
from ..configs import arches, boot_configs, kernel_versions, log_names
from ..tree import series

CLAIMS = os.path.join(repo_paths.KUNIT_DIR, 'claims.ini')
GATE = 'gate.json'
# The page whose table claims --write replaces, between these markers.
PAGE = os.path.join(repo_paths.DOCS, 'claims.md')
BEGIN = '<!-- claims:begin (tools/wq-kunit claims --write) -->'
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


def _inputs() -> Dict[str, str]:
	return {'series': series.digest(series.every()), 'kunitconfig': digest_stamps.of_files([repo_paths.KUNITCONFIG])}


def _stem(args: Dict[str, object], version: str, name: str) -> str:
	"""Where the logs of boot @name of @version are, without the extension,
	relative to the logs' root, for a gate run with @args: without --smp
	it boots each architecture's board with its own CPU count."""
	own = arches.of_label(version).cpus
	smp = int(args.get('smp') or log_names.DEFAULT_CPUS)
	cpus = own if smp == log_names.DEFAULT_CPUS else smp
	return os.path.join(version, log_names.stem(name, cpus, default=own))


def record_gate(logs_root: str, ran: Dict[str, List[str]], args: Dict[str, object]) -> str:
	"""Write logs_root/gate.json for a gate that booted @ran (boot names per
	version) with @args (its CPU count names the logs); the path."""
	logs = {}
	for version, names in ran.items():
		for name in names:
			for ext in ('json', 'console'):
				rel = f'{_stem(args, version, name)}.{ext}'
				logs[rel] = digest_stamps.of_files([os.path.join(logs_root, rel)])
	path = os.path.join(logs_root, GATE)
	with open(path, 'w', encoding='utf-8') as f:
		json.dump(dict(_inputs(), args=args, boots=ran, logs=logs), f, indent=1, sort_keys=True)
	return path


def _filtered(args: Dict[str, object]) -> List[str]:
	"""The options of a gate run with @args that leave out some of the
	evidence the claims are settled from."""
	why = [f'--boot {args.get("boot")}'] if args.get('boot') != 'all' else []
	if args.get('smp') != log_names.DEFAULT_CPUS:
		why.append(f'--smp {args.get("smp")}')
	if args.get('kunit_args'):
		why.append(f'kunit.py arguments {" ".join(map(str, args["kunit_args"]))}')
	return why


def _gate_record(logs_root: str) -> Dict[str, object]:
	"""What the last gate recorded in @logs_root (logs/gate.json)."""
	path = os.path.join(logs_root, GATE)
	try:
		with open(path, encoding='utf-8') as f:
			return json.load(f)
	except OSError:
		raise WqKunitError(f'no gate run recorded in {logs_root}: run tools/wq-kunit check '
				   f'first') from None
	except ValueError as e:
		raise WqKunitError(f'{path}: {e}') from None


def gate_args(logs_root: str) -> Dict[str, object]:
	"""The arguments the last gate recorded in @logs_root ran with."""
	return _gate_record(logs_root).get('args', {})


def gate_runs(logs_root: str, filtered: bool = False) -> Dict[str, Dict[str, Run]]:
	"""The boots of the last gate per version, refusing a set of logs that
	is not exactly one complete gate of the current inputs, nor, unless
	@filtered, a gate run with options (see _filtered())."""
	again = 'run tools/wq-kunit check'
	gate = _gate_record(logs_root)
	for key, value in _inputs().items():
		if gate.get(key) != value:
			raise WqKunitError(f'the last gate ran another {key} than this checkout: {again}')
	args = gate.get('args', {})
	why = _filtered(args)
	if why and not filtered:
		raise WqKunitError(f'the last gate was filtered ({", ".join(why)}), the claims need '
				   f'every boot with {log_names.DEFAULT_CPUS} CPUs: {again} without options')
	for rel, digest in sorted(gate.get('logs', {}).items()):
		try:
			same = digest_stamps.of_files([os.path.join(logs_root, rel)]) == digest
		except OSError:
			same = False
		if not same:
			raise WqKunitError(f'{rel} is not the one the last gate wrote '
					   f'(a later run replaced it): {again}')
	out = {}
	for version, names in gate.get('boots', {}).items():
		out[version] = {}
		for name in names:
			base = os.path.join(logs_root, _stem(args, version, name))
			with open(base + '.json', encoding='utf-8') as f:
				root = json.load(f)
			with open(base + '.console', encoding='utf-8', errors='replace') as f:
				console = f.read()
			results: Dict[str, str] = {}
			for suite in root.get('sub_groups', []):
				_leaves(suite, suite['name'] + '.', results)
			out[version][name] = Run(results, console)
	return out


def _info(console: str, prefix: str) -> List[str]:
	"""The text of the suite's info lines that start with @prefix."""
	return [m.group(1) for m in re.finditer(r'#\s*(' + re.escape(prefix) + r'.*)', console)]


def _cpus(line: str) -> set:
	return set(re.findall(r'[Cc][Pp][Uu](\d+)', line.split(':', 2)[-1]))


def _reported(cell: str) -> str:
	"""A cell settled from what the suite printed, not from an assertion."""
	return f'reported: {cell}'


def _cases(sec: configparser.SectionProxy, runs: Dict[str, Run]) -> Optional[str]:
	"""The cell from the row's cases, or None if every case passed in every
	boot of its scope: a case that failed, or that did not pass (skipped or
	absent) in some boot, is named instead.  A skip is not evidence."""
	failed, missing = set(), set()
	for boot, run in runs.items():
		for case in sec.get('cases', '').split():
			statuses = [s for n, s in run.results.items() if n == case or
				    n.startswith(case + '.')]
			if any(s not in ('PASS', 'SKIP') for s in statuses):
				failed.add(boot)
			elif 'PASS' not in statuses:
				missing.add(f'{case.rsplit(".", 1)[-1]} in {boot}')
	if failed:
		return f'FAILS in {", ".join(sorted(failed))}'
	if missing:
		return f'not shown: {", ".join(sorted(missing))} did not pass'
	return None


def _where(bad: List[str], runs: Dict[str, Run]) -> str:
	if len(bad) == len(runs):
		return ''
	if len(bad) <= 2:
		return f' with [{", ".join(bad)}]'
	return f' in {len(bad)} of {len(runs)} boots'


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
	if 'cases' in sec:
		bad = _cases(sec, runs)
		if bad:
			return bad
	if 'mode' in sec:
		values = {b: l[len(sec['mode']):].strip() for b, r in runs.items()
			  for l in _info(r.console, sec['mode'])}
		if not values:
			return 'not run'
		wrong = sorted(b for b, v in values.items() if not v.startswith(sec['value']))
		cell = f'no{_where(wrong, runs)}: {instead}' if wrong else 'holds'
		return cell if 'cases' in sec else _reported(cell)
	if 'share' in sec:
		kept, total, bad = 0, 0, []
		for boot, run in sorted(runs.items()):
			for line in _info(run.console, sec['share']):
				m = re.search(r': (\d+) of (\d+) runs', line)
				if m:
					kept += int(m.group(1))
					total += int(m.group(2))
					if m.group(1) != m.group(2):
						bad.append(boot)
		if not total:
			return 'not run'
		count = f'{kept} of {total} runs'
		return _reported(f'no{_where(sorted(set(bad)), runs)}: {count}' if bad
				 else f'holds, {count}')
	if 'idle' in sec:
		extra, there, total = {}, 0, 0
		for boot, run in runs.items():
			for line in _info(run.console, sec['idle']):
				m = re.search(r'woke (\d+) times in \d+ ms, (\d+) without the work; '
					      r'(\d+) of (\d+) runs on it', line)
				if m:
					more = max(0, int(m.group(1)) - int(m.group(2)))
					extra[boot] = extra.get(boot, 0) + more
					there += int(m.group(3))
					total += int(m.group(4))
		if not extra:
			return 'not run'
		if not total:
			# The work did not run at all: nothing to show, either way.
			return _reported('no data: the work did not run in the window')
		bad = sorted(b for b, n in extra.items() if n)
		count = (f'{sum(extra.values())} extra wake-ups of the idle CPU, '
			 f'{there} of {total} runs on it')
		return _reported(f'no{_where(bad, runs)}: {count}' if bad else f'holds, {count}')
	if 'placement' in sec:
		lines = {b: _info(r.console, sec['placement']) for b, r in runs.items()}
		lines = {b: ls for b, ls in lines.items() if ls}
		if not lines:
			return 'holds' if 'cases' in sec else 'not run'
		moved = sorted(b for b, ls in lines.items() if any(len(_cpus(l)) > 1 for l in ls))
		if moved:
			return _reported(f'no{_where(moved, runs)}: {instead}')
		return 'holds' if 'cases' in sec else _reported('holds')
	return f'no: {instead}' if negated else 'holds'


def table(claims_path: str = CLAIMS, logs_root: Optional[str] = None,
	  trees_root: Optional[str] = None) -> str:
	"""The Markdown table, one row per claim, one column per kernel."""
	parser = boot_configs.read_ini(claims_path, 'claims')
	versions = kernel_versions.supported()
	root = logs_root or os.path.join(repo_paths.cache_dir(), 'logs')
	gate = gate_runs(root)
	runs = {v: gate.get(v, {}) for v in versions}
	trees_root = trees_root or os.path.join(repo_paths.cache_dir(), 'src')
	trees = {v: os.path.join(trees_root, f'linux-{v}') for v in versions}
	rows = ['| claim | evidence | ' + ' | '.join(versions) + ' |',
		'|---|---|' + '---|' * len(versions)]
	for name in parser.sections():
		sec = parser[name]
		# A row about one architecture's board reads the gate's boots of it.
		arch = sec.get('arch')
		row_runs = {v: gate.get(f'{v}-{arch}', {}) for v in versions} if arch else runs
		evidence = ', '.join(c.split('.', 1)[-1] for c in sec.get('cases', '').split())
		reported = next((sec[k] for k in ('mode', 'placement', 'share', 'idle') if k in sec), '')
		evidence = evidence or sec.get('source', '') or \
			reported.split(':')[0] + ' (reported)'
		only = sec.get('kernels', '').split()
		cells = [_settle(sec, row_runs[v], trees[v]) if not only or v in only else 'not run'
			 for v in versions]
		if sec.getboolean('guaranteed', False):
			for version, cell in zip(versions, cells):
				if cell.startswith('reported:'):
					raise WqKunitError(f'claim [{name}] is guaranteed by the kernel\'s '
							   f'code, but on {version} only reported: '
							   f'"{cell}"; assert it')
		rows.append(f'| {sec["claim"]} | {evidence} | ' + ' | '.join(cells) + ' |')
	return '\n'.join(rows) + '\n'


def write(page: str, text: str, begin: str = BEGIN, end_mark: str = END) -> bool:
	"""Put @text between the markers in @page; True if it changed."""
	with open(page, encoding='utf-8') as f:
		old = f.read()
	start, end = old.find(begin), old.find(end_mark)
	if start < 0 or end < start:
		raise WqKunitError(f'{page} has no markers {begin} ... {end_mark}')
	new = old[:start + len(begin)] + '\n' + text + old[end:]
	if new != old:
		with open(page, 'w', encoding='utf-8') as f:
			f.write(new)
	return new != old
