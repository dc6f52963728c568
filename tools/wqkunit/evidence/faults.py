# SPDX-License-Identifier: GPL-2.0
"""Fault injection: does a failing case leave the kernel as it found it?

One build of the suite with fault_hooks added, in a build directory of
its own, booted first without a fault in each configuration (the
baseline: it must pass, and it says which points each case reaches),
then once per case, point and configuration with that case made to fail
there.  An injection is contained when that case fails, every other
result is the baseline's, and nothing is left changed: no "wq_test:"
line (a case's exit or a suite's exit found state it did not restore)
and no kernel report."""

from dataclasses import dataclass
import json
import os
import re
import shutil
import time
from typing import Callable, Dict, List, Optional, Tuple

from ..base.errors import WqKunitError
from ..build import runner
from ..build.kunitpy import Kunit
from ..configs import boot_configs
from ..tree import fault_hooks
from ..verdicts import kunit_results

# The configurations that change global state at boot, and the default.
CONFIGS = ('default', 'isolcpus', 'nohz-full')
CONTAINED = 'contained'
NOT_REACHED = 'not reached'
ESCAPED = 'escaped'
LEAK = 'leak'
OUTCOMES = (CONTAINED, NOT_REACHED, ESCAPED, LEAK)
RECORD = 'faults.json'
LEFT = re.compile(r'wq_test: .*')
REACHED = re.compile(re.escape(fault_hooks.REACHED) + r'(\w+):(\w+)')


@dataclass
class Injection:
	boot: str
	case: str
	point: str
	outcome: str = ''
	detail: str = ''
	seconds: float = 0.0

	@property
	def name(self) -> str:
		return f'{self.case}:{self.point}'


def reached(console_text: str) -> List[Tuple[str, str]]:
	"""(case, point) for each point a case reached, in the order the
	baseline met them, each once."""
	seen: Dict[Tuple[str, str], None] = {}
	for m in REACHED.finditer(console_text):
		seen.setdefault((m.group(1), m.group(2)), None)
	return list(seen)


def left(console_text: str) -> List[str]:
	"""What the kernel logged as left changed."""
	return [m.group(0).strip() for m in LEFT.finditer(console_text)]


def _mine(name: str, case: str) -> bool:
	"""Whether result @name ("suite.case[.param]") is @case's."""
	parts = name.split('.')
	return len(parts) > 1 and parts[1] == case


def judge(case: str, baseline: Dict[str, str], now: Dict[str, str],
	  console_text: str, reports: List[str]) -> Tuple[str, str]:
	"""The outcome of failing @case, from the results of the boot
	(@now: name -> status) against @baseline's, its console and the
	kernel reports made during the suite."""
	mine = {n: s for n, s in now.items() if _mine(n, case)}
	if not any(s == 'FAIL' for s in mine.values()):
		return NOT_REACHED, f'{case} did not fail: ' + \
			(', '.join(f'{n} {s}' for n, s in sorted(mine.items())[:3]) or 'no result')
	leftover = left(console_text)
	if leftover or reports:
		return LEAK, '; '.join((reports + leftover)[:3])
	others = sorted(n for n in set(baseline) | set(now)
			if not _mine(n, case) and baseline.get(n) != now.get(n))
	if others:
		return ESCAPED, '; '.join(f'{n} {baseline.get(n, "absent")} -> '
					  f'{now.get(n, "absent")}' for n in others[:3])
	return CONTAINED, ''


def total(done: List[Injection]) -> str:
	"""The last line: "N injections, N contained, 0 leaks" and the rest."""
	count = {o: sum(1 for i in done if i.outcome == o) for o in OUTCOMES}
	line = f'{len(done)} injections, {count[CONTAINED]} contained, {count[LEAK]} leaks'
	for o in (ESCAPED, NOT_REACHED):
		if count[o]:
			line += f', {count[o]} {o}'
	return line


def build_request(version: str, jobs: int, tree: Optional[str] = None) -> runner.BuildRequest:
	"""The faults build of Debian's @version, or of @tree: in a directory
	of its own next to the run's, started as a copy of it so that only
	what the hooks change is rebuilt."""
	base = runner.BuildRequest(version, tree=tree).build_path
	req = runner.BuildRequest(version, tree=tree, jobs=jobs, build_dir=base + '+fault_hooks',
				  fault_hooks=True)
	if not os.path.isdir(req.build_path) and os.path.exists(os.path.join(base, 'vmlinux')):
		shutil.copytree(base, req.build_path, symlinks=True)
	return req


def _statuses(boot: runner.Boot) -> Dict[str, str]:
	json_path = os.path.splitext(boot.console)[0] + '.json'
	try:
		with open(json_path, encoding='utf-8') as f:
			return kunit_results.statuses(f.read())
	except OSError:
		return {}


def _read(path: str) -> str:
	with open(path, encoding='utf-8', errors='replace') as f:
		return f.read()


def _boot(kunit: Kunit, req: runner.BuildRequest, b: boot_configs.Boot, timeout: int,
	  fault: Optional[str]) -> runner.Boot:
	ex = runner.ExecRequest([b], timeout, live=False, log_prefix='fault.',
				keep_failed=False, explain=False,
				kunit_args=[f'--kernel_args={fault_hooks.PARAM}={fault}'] if fault else [])
	return runner.boot_once(kunit, req, ex, b, 8, req.logs, lambda _m: None)


def baseline(kunit: Kunit, req: runner.BuildRequest, b: boot_configs.Boot,
	     timeout: int) -> Tuple[Dict[str, str], List[Tuple[str, str]]]:
	"""The hooked kernel without a fault in @b: its results and the
	points its cases reach.  It must pass and leave nothing changed."""
	done = _boot(kunit, req, b, timeout, None)
	text = _read(done.console)
	leftover = left(text)
	if not done.judged.passed or leftover:
		for line in done.judged.explain() + leftover:
			print(f'  {line}', flush=True)
		raise WqKunitError(f'{done.label}: the kernel with the fault hooks does not pass '
				   f'without a fault; no injection can be judged against it')
	points = reached(text)
	if not points:
		raise WqKunitError(f'{done.label}: no case reached a fault point: '
				   f'are the hooks in the build?')
	return _statuses(done), points


def run(kunit: Kunit, req: runner.BuildRequest, configs: List[boot_configs.Boot],
	timeout: int, only: Optional[List[str]],
	say: Callable[[str], None]) -> List[Injection]:
	"""Every injection in each of @configs (only @only's cases, if given)."""
	build, error = runner.build_once(kunit, req, (), req.logs, say)
	if error:
		raise WqKunitError(f'the faults build of {req.version} failed: {error}')
	done = []
	keep = os.path.join(req.logs, 'faults')
	os.makedirs(keep, exist_ok=True)
	for b in configs:
		base, points = baseline(kunit, req, b, timeout)
		unknown = sorted(set(only or ()) - {case for case, _ in points})
		if unknown:
			raise WqKunitError(f'{req.version} [{b.name}]: no fault point in case '
					   f'{", ".join(unknown)} (a case name, without suite or '
					   f'parameter)')
		points = [p for p in points if not only or p[0] in only]
		say(f'{req.version} [{b.name}]: baseline passed; {len(points)} injections')
		for case, point in points:
			inj = Injection(b.name, case, point)
			start = time.monotonic()
			booted = _boot(kunit, req, b, timeout, inj.name)
			reports = [s.summary() for s in booted.judged.reports]
			if booted.judged.errors or (booted.judged.incomplete and not reports):
				inj.outcome, inj.detail = ESCAPED, '; '.join(booted.judged.explain()[:3])
			else:
				inj.outcome, inj.detail = judge(case, base, _statuses(booted),
								_read(booted.console), reports)
			inj.seconds = time.monotonic() - start
			if inj.outcome != CONTAINED:
				shutil.copyfile(booted.console, os.path.join(
					keep, f'{b.name}.{case}.{point}.console'))
			say(f'{inj.outcome:11} {req.version} [{b.name}] {inj.name} '
			    f'({inj.seconds:.0f} s){": " + inj.detail[:150] if inj.detail else ""}')
			done.append(inj)
	return done


def record(done: List[Injection], path: str) -> None:
	with open(path, 'w', encoding='utf-8') as f:
		json.dump({'time': time.strftime('%Y-%m-%d %H:%M:%S'),
			   'total': total(done),
			   'injections': [vars(i) for i in done]}, f, indent=1)
		f.write('\n')
