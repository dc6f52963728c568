# SPDX-License-Identifier: GPL-2.0
"""The project's gate (wq-kunit check): the tools' tests, every kernel in
every boot configuration, W=1, sparse and kernel-doc, the debug build
catching a broken case, checkpatch --strict and shellcheck, the coverage
map; each a step with its verdict, every failed one named in the summary
and counted in its last line."""

import concurrent.futures
import contextlib
from dataclasses import replace
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Iterable, List, Optional, Sequence, Tuple

from . import arches, boots, checkpatch, claims, coverage, kernels, lock, lognames, packages, paths, results, runner, series
from . import stamps, verdict
from .errors import WqKunitError
from .kunitpy import ccache_env
from .procs import run_tree
from .runner import phase, say
from .steps import Step, boots_step, guarded  # noqa: F401 (Step for the tests)

# Defined for the static checks' compile only: its object is put back afterwards.
REPORT_SYMBOL = 'CONFIG_WQ_PLACEMENT_REPORT'

# checkpatch and kernel-doc (perl, and the modules checkpatch's SPDX check
# imports), sparse, shellcheck,
# and what the tools' own tests run before any build: tar's xz, git, make.
PACKAGES = ['perl', 'python3-ply', 'python3-git', 'sparse', 'shellcheck'] + packages.BUILD
# The architectures besides arm the gate boots, with the newest kernel:
# the default configuration once each.
OTHER_ARCHES = ('arm64', 'x86_64', 'um')
# Each kernel's boots two at a time: a guest waits more than it computes
# (a boot keeps 0.7 of a host core busy on average), and the suite's
# verdicts hold on a loaded host (soak --load).
BOOTS_AT_ONCE = 2
# Kept out of the series: the debug build must catch it.  It is appended
# to the debug build only, which boots it alone after the suite.
BROKEN_CASE = os.path.join(paths.KUNIT_DIR, 'broken', 'reinit-pending-dwork.c')
SUITE_GLOB = 'workqueue_*'
BROKEN_NAME = 'broken_workqueue.broken_reinit_pending_delayed_work'
BROKEN_KIND = 'ODEBUG'
BROKEN_BOOT = boots.Boot(name='broken-case', description='the broken case alone',
			 kernel_args=['kunit.filter_glob=broken_workqueue.*'], kernels=None)
# The debug boots' CPUs: the checkers watch the same code on half the
# board (two LITTLE, two big) at less than half the cost (6.12: 29 s
# against 67 s); every case runs with the board's 8 in the other boots.
DEBUG_CPUS = 4


# The tools' tests in two processes at once, one per core: the end-to-end
# tests of run, check and the rest, and all the others (mutate's included).
TEST_HALVES = ('test_o*.py', 'test_[!o]*.py')


def tools_tests() -> bool:
	say('running the tools\' own tests')
	procs = [subprocess.Popen([sys.executable, '-m', 'unittest', 'discover', '-q', '-p', half,
				   '-s', os.path.join(paths.TOOLS_DIR, 'tests'),
				   '-t', paths.TOOLS_DIR],
				  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
		 for half in TEST_HALVES]
	ok = True
	for child in procs:
		err = child.communicate()[1]
		tail = [l for l in err.splitlines() if l.strip()]
		if child.returncode:
			ok = False
			sys.stderr.write(err)
		say(f'tools tests: {" ".join(tail[-2:]) if tail else "no output"}')
	return ok


def other_arches(version: str, jobs: int, timeout: int, smp: int,
		 recorded: bool) -> List[Tuple[str, str, runner.Outcome]]:
	"""@version on each of OTHER_ARCHES, its default boot: (architecture,
	build label, outcome) each."""
	done = []
	for name in OTHER_ARCHES:
		arch = arches.get(name)
		req = runner.BuildRequest(version, jobs=jobs, arch=name)
		done.append((name, req.label, runner.run(req, runner.ExecRequest(
			boots.select('default', version), timeout, (smp,), board=arch.board,
			explain=False, live=False, require_manifest=recorded))))
	return done


def debug_run(version: str, jobs: int, timeout: int, out: runner.Outcome) -> List[Step]:
	"""The debug build, with kunit/broken/'s case in it: the suite must
	pass, and the broken case, booted alone, must fail naming its report.
	The suite's boot goes into @out.  The steps of both."""
	suite = boots.select('default', version)[0]
	suite = boots.Boot(name=suite.name, description=suite.description,
			   kernel_args=suite.kernel_args + [f'kunit.filter_glob={SUITE_GLOB}'],
			   kernels=None)
	req = runner.BuildRequest(version, debug=True, jobs=jobs, broken=BROKEN_CASE)
	# The broken case must fail: only the suite's boot is explained.
	done = runner.run(req, runner.ExecRequest([suite, BROKEN_BOOT], timeout, (DEBUG_CPUS,),
						  explain=False, live=False))
	runner.explain([done.last(suite.name)])
	out.boots.append(done.last(suite.name))
	out.lines += [l for l in done.lines if f'[{BROKEN_BOOT.name}]' not in l]
	want = f'{BROKEN_NAME} ({BROKEN_KIND} report)'
	broken = done.last(BROKEN_BOOT.name).judged
	caught = broken.kind == verdict.KERNEL_REPORT and want in broken.failed_cases
	line = f'{version} debug: the broken case ' \
		f'{"failed as it must: " if caught else "was NOT caught: "}{want}'
	out.lines.append(line)
	say(line)
	return [boots_step(f'boots {version} debug', [out.boots[-1]]),
		Step(f'debug {version}: broken case caught', caught,
		     '' if caught else f'not among the failures of {done.last(BROKEN_BOOT.name).label}')]


def w1(version: str, tree: str) -> Step:
	"""The static checks a maintainer's bot runs, on the objects the
	series builds (OBJECTS): gcc with W=1 and sparse (C=1) find no warning,
	the placement report (CONFIG_WQ_PLACEMENT_REPORT, which no gate build
	enables) compiled in too; and kernel-doc finds nothing to say of the
	files the series creates.  Under the tree's lock.  The build
	directory's objects and their command files are put back afterwards:
	the next build redoes nothing.  Skipped when it passed for the inputs
	of the build directory's last build (stamps.BUILD), which it shares."""
	req = runner.BuildRequest(version)
	build_dir = req.build_path
	objs = [os.path.join(build_dir, o) for o in series.OBJECTS]
	keep = objs + [os.path.join(os.path.dirname(o), f'.{os.path.basename(o)}.cmd')
		       for o in objs]
	log = os.path.join(req.logs, 'w1.log')
	built, passed = os.path.join(build_dir, stamps.BUILD), os.path.join(build_dir, stamps.W1)
	name = f'W=1, sparse, kernel-doc {version}'
	what = f'{version}: W=1, sparse and kernel-doc'
	with lock.held(req.lock_path, say), \
	     tempfile.TemporaryDirectory(prefix='wq-kunit-w1.') as saved:
		inputs = stamps.read(built)
		if inputs and inputs == stamps.read(passed):
			say(f'{what}: no warning (nothing it is built from changed since it last passed)')
			return Step(name, True)
		with contextlib.suppress(FileNotFoundError):
			os.remove(passed)
		missing = [os.path.relpath(o, build_dir) for o in objs if not os.path.exists(o)]
		if missing:
			say(f'{what}: not checked, the build failed')
			return Step(name, False, f'no {missing[0]}: the build failed')
		for i, path in enumerate(keep):
			if os.path.exists(path):
				shutil.copy2(path, os.path.join(saved, str(i)))
		created = series.created(series.patches(version=version))
		try:
			for obj in objs:
				os.remove(obj)
			with open(log, 'w', encoding='utf-8') as f:
				arm = arches.ARCHES['arm']
				rc = run_tree(['make', 'ARCH=arm', f'CROSS_COMPILE={arm.cross}',
					       f'CC={arm.gcc}', f'O={build_dir}', 'W=1', 'C=1',
					       f'KCFLAGS=-D{REPORT_SYMBOL}'] + list(series.OBJECTS),
					      cwd=tree, stdout=f, stderr=subprocess.STDOUT,
					      env=ccache_env())
				doc_rc = kernel_doc(tree, [p for p in created if p.endswith(('.c', '.h'))
							    if os.path.isfile(os.path.join(tree, p))], f)
		finally:
			for i, path in enumerate(keep):
				if os.path.exists(os.path.join(saved, str(i))):
					shutil.copy2(os.path.join(saved, str(i)), path)
	with open(log, encoding='utf-8', errors='replace') as f:
		ours, upstream = ours_and_upstream(f, created)
	for line in ours:
		print(f'  {line}')
	if upstream:
		say(f'{version}: {len(upstream)} warnings in files the series does not create, '
		    f'not counted (upstream\'s; {log})')
	ok = rc == 0 and doc_rc == 0 and not ours
	if ok and inputs:
		stamps.write(passed, inputs)
	detail = f'{len(ours)} warnings, ' + (f'exit {rc}, ' if rc else '') + \
		(f'kernel-doc exit {doc_rc}, ' if doc_rc else '') + log
	say(f'{what}: {"no warning" if ok else detail}')
	return Step(name, ok, '' if ok else detail)


_WARNING = re.compile(r'^(\S+?):\d+(?::\d+)?: (?:warning|error):')


def ours_and_upstream(lines: Iterable[str], created: Sequence[str]) -> Tuple[List[str], List[str]]:
	"""The warning and error lines of @lines, split into those in a file
	of @created (the series' own files, relative to the tree) or with no
	file, and those in another file: a warning sparse gives for
	upstream's kernel/workqueue.c is not the series'."""
	ours, upstream = [], []
	for line in lines:
		line = line.rstrip()
		if 'warning:' not in line and 'error:' not in line:
			continue
		where = _WARNING.match(line)
		if where and not any(where.group(1).endswith(p) for p in created):
			upstream.append(line)
		else:
			ours.append(line)
	return ours, upstream


def kernel_doc(tree: str, files: Sequence[str], log) -> int:
	"""scripts/kernel-doc of @tree on @files, its output into @log: its
	exit status, non-zero on any warning (-Werror; -Wall where the script
	has it)."""
	if not files:
		return 0
	script = os.path.join(tree, 'scripts', 'kernel-doc')
	with open(script, encoding='utf-8', errors='replace') as f:
		every = ['-Wall'] if '-Wall' in f.read() else []
	cmd = ['perl', 'scripts/kernel-doc', '-none', '-Werror'] + every + list(files)
	log.write(f'$ {" ".join(cmd)}\n')
	log.flush()
	return subprocess.run(cmd, cwd=tree, stdout=log, stderr=subprocess.STDOUT,
			      check=False).returncode


def style(tree: str) -> Step:
	"""checkpatch --strict on every patch, commit references checked as in
	a maintainer's tree (checkpatch.py), shellcheck on the shell scripts.
	A patch checkpatch found clean is not checked again with the same
	checkpatch (the tree's commit) and upstream commits: its verdict is
	kept in the cache."""
	bad = []
	clean_dir = os.path.join(paths.cache_dir(), 'checkpatch-clean')
	os.makedirs(clean_dir, exist_ok=True)
	head = subprocess.run(['git', 'rev-parse', 'HEAD'], cwd=tree, capture_output=True,
			      text=True, check=False).stdout.strip()
	todo = [p for p in series.every()
		if not (head and os.path.exists(os.path.join(clean_dir, checkpatch.key(head, p))))]
	for patch, said in checkpatch.run(tree, todo):
		if said:
			bad.append(f'checkpatch {os.path.basename(patch)}')
			say(f'checkpatch --strict: {os.path.basename(patch)}')
			print(said, flush=True)
		elif head:
			open(os.path.join(clean_dir, checkpatch.key(head, patch)), 'w',
			     encoding='utf-8').close()
	script = os.path.join(paths.REPO, '.ci', 'run')
	proc = subprocess.run(['shellcheck', script], capture_output=True, text=True, check=False)
	if proc.returncode:
		bad.append(f'shellcheck {os.path.relpath(script, paths.REPO)}')
		sys.stdout.write(proc.stdout + proc.stderr)
	say(f'checkpatch --strict and shellcheck: {"FAILED" if bad else "clean"}')
	return Step('checkpatch and shellcheck', not bad, ', '.join(bad))


def coverage_map() -> Step:
	"""kunit/coverage.ini against the interface of every supported tree."""
	entries = coverage.load()
	problems = coverage.check(entries, {v: coverage.interface(t)
					     for v, t in coverage.trees().items()})
	for line in problems:
		print(f'  {line}')
	say(f'coverage map: {len(entries)} entries, '
	    f'{"every name covered" if not problems else f"{len(problems)} problems"}')
	return Step('coverage map', not problems,
		    f'{len(problems)} problems, listed above' if problems else '')


def summary(lines: List[str], total: results.Counts, extra: Optional[str] = None,
	    steps: Sequence[Step] = (), done: Sequence[runner.Boot] = ()) -> results.Counts:
	"""Print @lines, each failed KUnit result of @total, @extra, then how
	many of @steps failed and a line naming each; last, the count line, in
	which the failed steps other than boots are added to @total's failed
	results.  The counts of that line: the gate passed if none failed."""
	say('summary:')
	for line in lines:
		print(f'  {line}')
	for name in total.failures:
		print(f'  FAILED {name}')
	if extra:
		print(f'  {extra}')
	# Why each failed boot failed: its verdict, KUnit's lines, its console.
	runner.explain(done)
	failed = [s for s in steps if not s.ok]
	counted = [s for s in failed if not s.boots]
	if steps:
		print(f'  steps: {len(steps)}, {len(failed) or "none"} failed; failed below: '
		      f'{total.failed} KUnit results + {len(counted)} failed steps other than boots')
	for step in failed:
		print(f'  {step.line()}')
	shown = replace(total, failed=total.failed + len(counted))
	print(shown.line())
	return shown


def check(boot: str, jobs: int, timeout: int, smp: int, debug: bool = True,
	  self_test: bool = True) -> bool:
	"""The whole gate, its boots with @smp CPUs (UML's with one); True if
	every step passed: if the summary's last line counts none failed."""
	versions = kernels.supported()
	for version in versions:
		boots.select(boot, version)
	qemu = [a for a in map(arches.get, (arches.DEFAULT,) + OTHER_ARCHES) if a.qemu_config]
	most = min(a.max_cpus for a in qemu)
	if smp > most:
		raise WqKunitError(f'--smp {smp}: the gate boots {", ".join(a.name for a in qemu)}, '
				   f'1 to {most} CPUs')
	start = time.monotonic()
	runner.PHASES.clear()
	runner.PHASE_RUNS.clear()
	with phase('packages'):
		packages.ensure(PACKAGES, say)
	steps = []
	if self_test:
		with phase('tools tests'):
			passed = tools_tests()
		steps.append(Step("tools' tests", passed, '' if passed else 'their output is above'))
	out = runner.Outcome()
	debug_out = {v: runner.Outcome() for v in versions}
	ran = {}
	# kunit/expected/ records the boots with the board's CPUs.
	recorded = smp == lognames.DEFAULT_CPUS
	for version in versions:
		done = runner.run(runner.BuildRequest(version, jobs=jobs),
				  runner.ExecRequest(boots.select(boot, version), timeout, (smp,),
						     explain=False, parallel=BOOTS_AT_ONCE,
						     require_manifest=recorded))
		out.boots += done.boots
		out.lines += done.lines
		out.tree = done.tree
		ran[version] = sorted({b.name for b in done.boots})
		steps.append(boots_step(f'boots {version}', done.boots))
		with phase('static checks'):
			steps += guarded(f'W=1, sparse, kernel-doc {version}',
					 lambda: w1(version, done.tree))
	# The other architectures' boots beside the debug builds' (each boot
	# holds only its build directory): a guest waits more than it computes.
	with concurrent.futures.ThreadPoolExecutor(2) as pool:
		arch_runs = pool.submit(other_arches, versions[-1], jobs, timeout, smp, recorded)
		debug_runs = pool.submit(lambda: [(v, guarded(f'debug {v}', lambda: debug_run(
			v, jobs, timeout, debug_out[v]))) for v in versions]) if debug else None
		for name, label, done in arch_runs.result():
			out.boots += done.boots
			out.lines += done.lines
			ran[label] = sorted({b.name for b in done.boots})
			steps.append(boots_step(f'boots {versions[-1]}/{name}', done.boots))
		# What claims --write may use: these logs, and nothing run after them.
		try:
			claims.record_gate(os.path.join(paths.cache_dir(), 'logs'), ran,
					   {'boot': boot, 'smp': smp, 'kunit_args': []})
		except OSError as e:
			say(f'the gate\'s logs cannot be recorded for the claims: {e}')
			steps.append(Step('record of the logs for the claims', False, str(e)))
		for version, debug_steps in debug_runs.result() if debug_runs else []:
			steps += debug_steps
			out.boots += debug_out[version].boots
			out.lines += debug_out[version].lines
	with phase('checkpatch and shellcheck'):
		steps += guarded('checkpatch and shellcheck', lambda: style(out.tree))
	with phase('coverage map'):
		steps += guarded('coverage map', coverage_map)
	phases = ', '.join(f'{name} {secs:.1f} s' for name, secs in runner.PHASES.items())
	shown = summary(out.lines, out.counts, f'phases: {phases} ({runner.PHASE_RUNS["boot"]} '
			f'boots); wall {time.monotonic() - start:.0f} s', steps, out.boots)
	return shown.failed == 0
