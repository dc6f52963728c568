# SPDX-License-Identifier: GPL-2.0
"""The all-tests check: the tree built with CONFIG_KUNIT_ALL_TESTS=y with
the series and without it (Debian's tree as unpacked), each booted once.
The suite must not fail there, and every result of every other suite must
be the same without the series."""

import collections
import json
import os
from typing import Callable, Dict, List, Tuple

from ..base import short_commands
from ..base.messages import say
from ..build import runner
from ..build.kunitpy import Kunit
from ..configs import arches, boot_configs
from ..tree import kernel_trees
from ..verdicts import verdict

ALL_TESTS = 'CONFIG_KUNIT_ALL_TESTS=y'
OURS = 'CONFIG_WORKQUEUE_KUNIT_TEST=y'
# Suites left out on both sides, per architecture, and why: a suite that
# outlasts the boot hides the verdict of every suite after it.
LEFT_OUT = {
	'arm': {'CONFIG_USERCOPY_KUNIT_TEST':
		'check_nonzero_user spins with RCU stalls on the QEMU board, with '
		'or without the series: 66 s booted alone, unfinished when the '
		'600 s all-tests boot timed out'},
}


def verdicts(json_text: str) -> Dict[str, str]:
	"""Every result of kunit.py's JSON, suite.case[.parameter] -> its
	status (PASS, FAIL, SKIP, ERROR).  kunit.py gives a status to the
	cases only: a suite's or a parameterized case's is in its results."""
	out: Dict[str, str] = {}

	def walk(group: dict, prefix: str) -> None:
		for case in group.get('test_cases', []):
			out[prefix + case['name']] = case.get('status', '')
		for sub in group.get('sub_groups', []):
			walk(sub, prefix + sub['name'] + '.')
	walk(json.loads(json_text), '')
	return out


def _suite(name: str) -> str:
	return name.split('.', 1)[0]


def _summary(results: Dict[str, str]) -> str:
	"""'PASS 12, SKIP 1', or '-' for a suite that did not run."""
	if not results:
		return '-'
	counts = collections.Counter(results.values())
	return ', '.join(f'{status} {counts[status]}' for status in sorted(counts))


def compare(ours: Dict[str, str], base: Dict[str, str],
	    mine: Tuple[str, ...]) -> Tuple[List[str], List[str]]:
	"""(problems, lines): a result of our suites other than a pass or a
	skip, a result of another suite that differs between the two sides
	or is on one side only; and a line per suite, its results counted."""
	problems, lines = [], []
	for suite in sorted({_suite(n) for n in set(ours) | set(base)}):
		a = {n: s for n, s in ours.items() if _suite(n) == suite}
		b = {n: s for n, s in base.items() if _suite(n) == suite}
		if suite.startswith(mine):
			lines.append(f'{suite:40} {_summary(a):24} (ours)')
			problems += [f'{n}: {s}' for n, s in sorted(a.items())
				     if s not in ('PASS', 'SKIP')]
			continue
		lines.append(f'{suite:40} {_summary(a):24} {_summary(b)}')
		problems += [f'{n}: {a.get(n, "-")} with the series, {b.get(n, "-")} without'
			     for n in sorted(set(a) | set(b)) if a.get(n) != b.get(n)]
	return problems, lines


def _base_tree(tree: str) -> str:
	"""A worktree of the cached tree's unpacked state, without the series."""
	base = tree + '-base'
	if not os.path.isdir(base):
		short_commands.run(['git', 'worktree', 'add', '-q', '--detach', base, kernel_trees.BASE_TAG],
			    cwd=tree, what='git worktree add')
	short_commands.run(['git', 'checkout', '-q', '--detach', kernel_trees.BASE_TAG], cwd=base,
		    what='git checkout')
	return base


def kconfig(arch: str) -> List[str]:
	"""What the build adds to the kunitconfig: all tests, less LEFT_OUT."""
	return [ALL_TESTS] + [f'# {symbol} is not set' for symbol in LEFT_OUT.get(arch, {})]


def _side(label: str) -> boot_configs.Boot:
	"""The one boot of a side: the whole all-tests run, on no board in
	particular (alltests compares results, not placement)."""
	return boot_configs.Boot(name=f'alltests-{label}', description='every KUnit suite',
			  kernel_args=[], kernels=None)


def _boot(kunit: Kunit, req: runner.BuildRequest, label: str, timeout: int,
	  logs: str, say: Callable[[str], None]) -> Tuple[Dict[str, str], verdict.Verdict]:
	"""Build and boot one side through the runner, results printed as the
	guest prints them: (every result, the boot's verdict)."""
	_, error = runner.build_once(kunit, req, kconfig(kunit.arch.name), logs, say)
	if error:
		return {}, verdict.build_failed(error, label)
	boot = _side(label)
	ex = runner.ExecRequest([boot], timeout, board=None, explain=False)
	done = runner.boot_once(kunit, req, ex, boot, 8, logs, say)
	json_path = os.path.splitext(done.console)[0] + '.json'
	try:
		with open(json_path, encoding='utf-8') as f:
			return verdicts(f.read()), done.judged
	except OSError:
		return {}, done.judged


def boot_problems(ours: verdict.Verdict, base: verdict.Verdict) -> List[str]:
	"""What a side's boot says beyond its results: a build or boot error,
	a crash or hang (the suites after it never reported), and a kernel
	report the series brings (one the other side does not make too)."""
	problems = []
	for side, v in (('with the series', ours), ('without', base)):
		if v.kind in (verdict.BUILD_ERROR, verdict.BOOT_ERROR, verdict.CRASHED):
			problems.append(f'{side}: {v.kind}: ' + ' '.join(
				l.strip() for l in v.explain()[1:3]))
	theirs = {(s.case, s.kind) for s in base.reports}
	problems += [f'kernel report with the series only: {s.summary()}'
		     for s in ours.reports if (s.case, s.kind) not in theirs]
	return problems


def check(version: str, arch_name: str, jobs: int, timeout: int,
	  say: Callable[[str], None] = say) -> Tuple[List[str], List[str]]:
	"""Build and boot both sides; (problems, lines) as compare() gives them."""
	arch = arches.get(arch_name)
	req = runner.BuildRequest(version, jobs=jobs, arch=arch_name)
	logs = os.path.join(req.logs, 'alltests')
	os.makedirs(logs, exist_ok=True)
	for symbol, why in LEFT_OUT.get(arch_name, {}).items():
		say(f'left out on both sides: {symbol}: {why}')
	with runner.prepared(req, say) as kunit:
		ours, judged = _boot(Kunit(kunit.tree, req.build_path + '-alltests', arch=arch,
					   reuse=True, say=say), req, 'with', timeout, logs, say)
		# The same kunitconfig without our suite, which the base tree lacks.
		config = os.path.join(logs, 'kunitconfig.base')
		with open(config, 'w', encoding='utf-8') as out:
			for path in arch.kunitconfigs:
				with open(path, encoding='utf-8') as f:
					out.writelines(l for l in f if l.strip() != OURS)
		base, base_judged = _boot(Kunit(_base_tree(kunit.tree),
						req.build_path + '-alltests-base',
						kunitconfigs=(config,), arch=arch, reuse=True,
						say=say), req, 'without', timeout, logs, say)
	problems = boot_problems(judged, base_judged)
	if not ours or not base:
		return problems + ['a boot gave no result: see ' + logs], []
	found, lines = compare(ours, base, ('workqueue_',))
	return problems + found, lines
