# SPDX-License-Identifier: GPL-2.0
"""The project's gate (wq-kunit check): the tools' tests, every kernel in
every boot configuration, W=1, the debug build catching a broken case,
checkpatch --strict and shellcheck."""

import contextlib
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import List, Optional

from . import arches, boots, claims, coverage, kernels, lock, packages, paths, results, runner, series
from .kunit_runner import STAMP, ccache_env, read_stamp, run_tree, write_stamp
from .runner import phase, say

# checkpatch (perl, and the modules its SPDX check imports), shellcheck,
# and what the tools' own tests run before any build: tar's xz, git, make.
PACKAGES = ['perl', 'python3-ply', 'python3-git', 'shellcheck'] + packages.BUILD
# The architectures besides arm the gate boots, with the newest kernel:
# the default configuration once each.
OTHER_ARCHES = ('arm64', 'x86_64', 'um')
# In the build directory: the inputs (kunit_runner.STAMP) W=1 last passed with.
W1_STAMP = '.wq-kunit-w1'
# Kept out of the series: the debug build must catch it.  It is appended
# to the debug build only, which boots it alone after the suite.
BROKEN_CASE = os.path.join(paths.KUNIT_DIR, 'broken', 'reinit-pending-dwork.c')
SUITE_GLOB = 'workqueue_*'
BROKEN_NAME = 'broken_workqueue.broken_reinit_pending_delayed_work'
BROKEN_KIND = 'ODEBUG'
BROKEN_BOOT = boots.Boot(name='broken-case', description='the broken case alone',
			 kernel_args=['kunit.filter_glob=broken_workqueue.*'], kernels=None)


def tools_tests() -> bool:
	say('running the tools\' own tests')
	proc = subprocess.run([sys.executable, '-m', 'unittest', 'discover', '-q',
			       '-s', os.path.join(paths.TOOLS_DIR, 'tests'),
			       '-t', paths.TOOLS_DIR],
			      capture_output=True, text=True, check=False)
	tail = [l for l in proc.stderr.splitlines() if l.strip()]
	if proc.returncode:
		sys.stderr.write(proc.stderr)
	say(f'tools tests: {" ".join(tail[-2:]) if tail else "no output"}')
	return proc.returncode == 0


def debug_run(version: str, jobs: int, timeout: int, out: runner.Outcome) -> bool:
	"""The debug build, with kunit/broken/'s case in it: the suite must
	pass, and the broken case, booted alone, must fail naming its report.
	The suite's boot goes into @out."""
	suite = boots.select('default', version)[0]
	suite = boots.Boot(name=suite.name, description=suite.description,
			   kernel_args=suite.kernel_args + [f'kunit.filter_glob={SUITE_GLOB}'],
			   kernels=None)
	req = runner.BuildRequest(version, debug=True, jobs=jobs, broken=BROKEN_CASE)
	done = runner.run(req, runner.ExecRequest([suite, BROKEN_BOOT], timeout))
	out.boots.append(done.last(suite.name))
	out.lines += [l for l in done.lines if f'[{BROKEN_BOOT.name}]' not in l]
	want = f'{BROKEN_NAME} ({BROKEN_KIND} report)'
	caught = want in done.last(BROKEN_BOOT.name).judged.failed_cases
	line = f'{version} debug: the broken case ' \
		f'{"failed as it must: " if caught else "was NOT caught: "}{want}'
	out.lines.append(line)
	say(line)
	return caught


def w1(version: str, tree: str) -> bool:
	"""kernel/workqueue.o, which includes the suite, builds with no W=1
	warning, under the tree's lock.  The build directory's object and its
	command file are put back afterwards: the next build redoes nothing.
	Skipped when it passed for the inputs of the build directory's last
	build (kunit_runner.STAMP), which it shares."""
	req = runner.BuildRequest(version)
	build_dir = req.build_path
	obj = os.path.join(build_dir, 'kernel', 'workqueue.o')
	keep = [obj, os.path.join(build_dir, 'kernel', '.workqueue.o.cmd')]
	log = os.path.join(req.logs, 'w1.log')
	built, passed = os.path.join(build_dir, STAMP), os.path.join(build_dir, W1_STAMP)
	with lock.held(req.lock_path, say), \
	     tempfile.TemporaryDirectory(prefix='wq-kunit-w1.') as saved:
		inputs = read_stamp(built)
		if inputs and inputs == read_stamp(passed):
			say(f'{version}: kernel/workqueue.o with W=1: no warning '
			    f'(nothing it is built from changed since it last passed)')
			return True
		with contextlib.suppress(FileNotFoundError):
			os.remove(passed)
		for path in keep:
			shutil.copy2(path, saved)
		try:
			os.remove(obj)
			with open(log, 'w', encoding='utf-8') as f:
				arm = arches.ARCHES['arm']
				rc = run_tree(['make', 'ARCH=arm', f'CROSS_COMPILE={arm.cross}',
					       f'CC={arm.gcc}', f'O={build_dir}', 'W=1', 'kernel/workqueue.o'],
					      cwd=tree, stdout=f, stderr=subprocess.STDOUT,
					      env=ccache_env())
		finally:
			for path in keep:
				shutil.copy2(os.path.join(saved, os.path.basename(path)), path)
	with open(log, encoding='utf-8', errors='replace') as f:
		warnings = [l.rstrip() for l in f if 'warning:' in l]
	for line in warnings:
		print(f'  {line}')
	ok = rc == 0 and not warnings
	if ok and inputs:
		write_stamp(passed, inputs)
	say(f'{version}: kernel/workqueue.o with W=1: '
	    f'{"no warning" if ok else f"{len(warnings)} warnings, exit {rc} ({log})"}')
	return ok


def style(tree: str) -> bool:
	"""checkpatch --strict on every patch, shellcheck on the shell scripts.
	A patch checkpatch found clean is not checked again with the same
	checkpatch (the tree's commit): its verdict is kept in the cache."""
	ok = True
	# Debian's python3 has the modules checkpatch's SPDX check imports.
	env = dict(os.environ, PATH='/usr/bin:/bin:' + os.environ.get('PATH', ''))
	clean_dir = os.path.join(paths.cache_dir(), 'checkpatch-clean')
	os.makedirs(clean_dir, exist_ok=True)
	head = subprocess.run(['git', 'rev-parse', 'HEAD'], cwd=tree, capture_output=True,
			      text=True, check=False).stdout.strip()
	for patch in series.patches():
		with open(patch, 'rb') as f:
			key = hashlib.sha256(head.encode() + b'\0' + f.read()).hexdigest()
		clean = os.path.join(clean_dir, key)
		if head and os.path.exists(clean):
			continue
		proc = subprocess.run(['perl', 'scripts/checkpatch.pl', '--strict', '-q', patch],
				      cwd=tree, env=env, capture_output=True, text=True,
				      check=False)
		if proc.returncode or proc.stdout.strip() or proc.stderr.strip():
			ok = False
			say(f'checkpatch --strict: {os.path.basename(patch)}')
			sys.stdout.write(proc.stdout + proc.stderr)
		elif head:
			open(clean, 'w', encoding='utf-8').close()
	proc = subprocess.run(['shellcheck', os.path.join(paths.REPO, '.ci', 'run')],
			      capture_output=True, text=True, check=False)
	if proc.returncode:
		ok = False
		sys.stdout.write(proc.stdout + proc.stderr)
	say(f'checkpatch --strict and shellcheck: {"clean" if ok else "FAILED"}')
	return ok


def coverage_map() -> bool:
	"""kunit/coverage.ini against the interface of every supported tree."""
	entries = coverage.load()
	problems = coverage.check(entries, {v: coverage.interface(t)
					     for v, t in coverage.trees().items()})
	for line in problems:
		print(f'  {line}')
	say(f'coverage map: {len(entries)} entries, '
	    f'{"every name covered" if not problems else f"{len(problems)} problems"}')
	return not problems


def summary(lines: List[str], total: results.Counts, extra: Optional[str] = None) -> None:
	say('summary:')
	for line in lines:
		print(f'  {line}')
	for name in total.failures:
		print(f'  FAILED {name}')
	if extra:
		print(f'  {extra}')
	print(total.line())


def check(boot: str, jobs: int, timeout: int, smp: int, debug: bool = True,
	  self_test: bool = True) -> bool:
	"""The whole gate; True if every step passed."""
	versions = kernels.supported()
	for version in versions:
		boots.select(boot, version)
	start = time.monotonic()
	runner.PHASES.clear()
	runner.PHASE_RUNS.clear()
	with phase('packages'):
		packages.ensure(PACKAGES, say)
	ok = True
	if self_test:
		with phase('tools tests'):
			ok = tools_tests()
	out = runner.Outcome()
	ran = {}
	for version in versions:
		done = runner.run(runner.BuildRequest(version, jobs=jobs),
				  runner.ExecRequest(boots.select(boot, version), timeout, (smp,)))
		out.boots += done.boots
		out.lines += done.lines
		out.tree = done.tree
		ran[version] = sorted({b.name for b in done.boots})
		with phase('W=1'):
			ok = w1(version, done.tree) and ok
	for name in OTHER_ARCHES:
		arch = arches.get(name)
		req = runner.BuildRequest(versions[-1], jobs=jobs, arch=name)
		done = runner.run(req, runner.ExecRequest(boots.select('default', versions[-1]),
							  timeout, (smp,), board=arch.board))
		out.boots += done.boots
		out.lines += done.lines
		ran[req.label] = sorted({b.name for b in done.boots})
	# What claims --write may use: these logs, and nothing run after them.
	claims.record_gate(os.path.join(paths.cache_dir(), 'logs'), ran,
			   {'boot': boot, 'smp': smp, 'kunit_args': []})
	if debug:
		for version in versions:
			ok = debug_run(version, jobs, timeout, out) and ok
	with phase('checkpatch and shellcheck'):
		ok = style(out.tree) and ok
	with phase('coverage map'):
		ok = coverage_map() and ok
	phases = ', '.join(f'{name} {secs:.1f} s' for name, secs in runner.PHASES.items())
	summary(out.lines, out.counts, f'phases: {phases} ({runner.PHASE_RUNS["boot"]} boots); '
		f'wall {time.monotonic() - start:.0f} s')
	return ok and out.counts.failed == 0
