# SPDX-License-Identifier: GPL-2.0
"""The project's gate (wq-kunit check): the tools' tests, every kernel in
every boot configuration, W=1, sparse and kernel-doc, the debug build
catching a broken case, checkpatch --strict and shellcheck, the coverage
map; each a step with its verdict, every failed one named in the summary
and counted in its last line."""

import concurrent.futures
import contextlib
import glob
from dataclasses import replace
import os
import subprocess
import sys
import time
from typing import List, Optional, Sequence, Tuple

from ..base import debian_packages, repo_paths
from ..base.errors import WqKunitError
from ..base.messages import say
from ..base.phase_times import PHASES, PHASE_RUNS, phase
from ..build import runner
from ..configs import arches, boot_configs, kernel_versions, log_names
from ..evidence import claims, coverage, records
from ..lava import lava_command, lava_job
from ..report import figures
from ..tree import checkpatch, series
from ..verdicts import kunit_results
from .boot_jobs import Job, arch_job, boots_job, debug_job, guarded_job
from .gate_steps import Step, guarded
from .static_checks import w1

# checkpatch and kernel-doc (perl, and the modules checkpatch's SPDX check
# imports), sparse, shellcheck, matplotlib for the tests of the report's
# figures, and what the tools' own tests run before any build: tar's xz,
# git, make.
PACKAGES = ['perl', 'python3-ply', 'python3-git', 'sparse', 'shellcheck',
	    figures.PACKAGE, lava_job.PACKAGE] + debian_packages.BUILD
# The architectures besides arm the gate boots, with the newest kernel:
# the default configuration once each, or those made for that
# architecture alone: on arm64 the two-node NUMA board, which has the
# default board's clusters too, and which every kernel boots (6.1's
# per-node pools and 6.12's numa scope need two nodes to show).
OTHER_ARCHES = ('arm64', 'x86_64', 'um')
NUMA_ARCH = 'arm64'
# Boots two at a time: a guest waits more than it computes (a boot keeps
# 0.7 of a host core busy on average), and the suite's verdicts hold on a
# host so loaded (soak --load).
BOOTS_AT_ONCE = 2


# The tools' tests in two processes at once, one per core: the end-to-end
# tests of run, check and the rest, and all the others (mutate's included).
TEST_HALVES = ('test_o*.py', 'test_[!o]*.py')


def tools_tests() -> bool:
	say('running the tools\' own tests')
	procs = [subprocess.Popen([sys.executable, '-m', 'unittest', 'discover', '-q', '-p', half,
				   '-s', os.path.join(repo_paths.TOOLS_DIR, 'tests'),
				   '-t', repo_paths.TOOLS_DIR],
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


def style(tree: str) -> Step:
	"""checkpatch --strict on every patch, commit references checked as in
	a maintainer's tree (checkpatch.py), shellcheck on the shell scripts.
	A patch checkpatch found clean is not checked again with the same
	checkpatch (the tree's commit) and upstream commits: its verdict is
	kept in the cache."""
	bad = []
	clean_dir = os.path.join(repo_paths.cache_dir(), 'checkpatch-clean')
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
	script = os.path.join(repo_paths.REPO, '.ci', 'run')
	proc = subprocess.run(['shellcheck', script], capture_output=True, text=True, check=False)
	if proc.returncode:
		bad.append(f'shellcheck {os.path.relpath(script, repo_paths.REPO)}')
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


def summary(lines: List[str], total: kunit_results.Counts, extra: Optional[str] = None,
	    steps: Sequence[Step] = (), done: Sequence[runner.Boot] = ()) -> kunit_results.Counts:
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


def lava_jobs() -> Step:
	"""The example LAVA jobs for real boards (kunit/lava/) pass LAVA's own
	schema (lava-common)."""
	files = sorted(glob.glob(os.path.join(lava_job.EXAMPLES, '*.yaml')))
	lava_command.validate(files)
	say(f'LAVA jobs: {len(files)} valid')
	return Step('LAVA jobs', True, '')


def gate_boots(boot: str, version: str, versions: List[str]) -> List[boot_configs.Boot]:
	"""The configurations the gate boots on @version: @boot's, a module
	boot (a configuration naming a module; none does since the suites are
	built in only) on the newest version only.  Its build
	(CONFIG_MODULES=y) redoes nearly the whole kernel, and one such boot
	shows that the module gives the built-in run's verdicts.  There, it
	stands for the built-in boot with its command line (its twin), which
	the gate leaves out."""
	chosen = boot_configs.select(boot, version)
	if version != versions[-1]:
		return [b for b in chosen if not b.module]
	twins = {tuple(b.kernel_args) for b in chosen if b.module}
	return [b for b in chosen if b.module or b.kconfig or tuple(b.kernel_args) not in twins]


def check(boot: str, jobs: int, timeout: int, smp: int, debug: bool = True,
	  self_test: bool = True) -> bool:
	"""The whole gate, its boots with @smp CPUs (UML's with one); True if
	every step passed: if the summary's last line counts none failed."""
	versions = kernel_versions.supported()
	for version in versions:
		boot_configs.select(boot, version)
	qemu = [a for a in map(arches.get, (arches.DEFAULT,) + OTHER_ARCHES) if a.qemu_config]
	most = min(a.max_cpus for a in qemu)
	if smp > most:
		raise WqKunitError(f'--smp {smp}: the gate boots {", ".join(a.name for a in qemu)}, '
				   f'1 to {most} CPUs')
	start = time.monotonic()
	PHASES.clear()
	PHASE_RUNS.clear()
	with phase('packages'):
		debian_packages.ensure(PACKAGES, say)
	steps = []
	if self_test:
		with phase('tools tests'):
			passed = tools_tests()
		steps.append(Step("tools' tests", passed, '' if passed else 'their output is above'))
	out = runner.Outcome()
	ran = {}
	# kunit/expected/ records the boots with the board's CPUs.
	recorded = smp == log_names.DEFAULT_CPUS
	# Every build first, one after the other (a boot beside a build would
	# run on a loaded host), then every boot, two at a time, the longest
	# jobs first: a guest waits more than it computes.  Each boot holds
	# only its build directory (runner.built()).
	todo: List[Tuple[str, str, Job]] = []
	with contextlib.ExitStack() as held:
		for version in reversed(versions):
			tree, boot_ = runner.built(runner.BuildRequest(version, jobs=jobs), runner.ExecRequest(
				gate_boots(boot, version, versions), timeout, (smp,), explain=False,
				live=False, require_manifest=recorded), held)
			out.tree = out.tree or tree
			todo.append(('boots', version, boots_job(f'boots {version}', boot_)))
			with phase('static checks'):
				steps += guarded(f'W=1, sparse, kernel-doc {version}',
						 lambda: w1(version, tree))
		for version in reversed(versions) if debug else []:
			steps += guarded(f'debug {version}', lambda: todo.append(
				('debug', version, debug_job(version, jobs, timeout, held))) or [])
		for name in OTHER_ARCHES:
			label, job = arch_job(name, versions[-1], jobs, timeout, smp, recorded, held)
			todo.append(('arch', label, job))
		for version in versions[:-1]:
			label, job = arch_job(NUMA_ARCH, version, jobs, timeout, smp, recorded, held)
			todo.append(('arch', label, job))
		# The debug guests after the others, beside each other only: a
		# debug kernel keeps 1.5 host cores busy, and a guest beside it
		# may find no CPU whose tick stops, which turns the idle cases
		# into skips that kunit/expected/ refuses.
		done = {}
		for group in ([t for t in todo if t[0] != 'debug'], [t for t in todo if t[0] == 'debug']):
			with concurrent.futures.ThreadPoolExecutor(BOOTS_AT_ONCE) as pool:
				futures = {t: pool.submit(guarded_job, *t) for t in group}
				done.update((t[:2], f.result()) for t, f in futures.items())
		done = [done[t[:2]] for t in todo]
	# In the order of a run one after the other: each version, the other
	# architectures, each version's debug build.
	rank = {'boots': 0, 'arch': 1, 'debug': 2}
	for (kind, what, _), (outcome, more) in sorted(
			zip(todo, done), key=lambda r: (rank[r[0][0]], versions.index(r[0][1])
						       if r[0][1] in versions else 0)):
		out.boots += outcome.boots
		out.lines += outcome.lines
		steps += more
		if kind in ('boots', 'arch'):
			ran[what] = sorted({b.name for b in outcome.boots})
	# What claims --write may use: these logs, and nothing run after them.
	try:
		claims.record_gate(os.path.join(repo_paths.cache_dir(), 'logs'), ran,
				   {'boot': boot, 'smp': smp, 'kunit_args': []})
	except OSError as e:
		say(f'the gate\'s logs cannot be recorded for the claims: {e}')
		steps.append(Step('record of the logs for the claims', False, str(e)))
	with phase('checkpatch and shellcheck'):
		steps += guarded('checkpatch and shellcheck', lambda: style(out.tree))
	with phase('coverage map'):
		steps += guarded('coverage map', coverage_map)
	with phase('LAVA jobs'):
		steps += guarded('LAVA jobs', lava_jobs)
	phases = ', '.join(f'{name} {secs:.1f} s' for name, secs in PHASES.items())
	wall = time.monotonic() - start
	shown = summary(out.lines, out.counts, f'phases: {phases} ({PHASE_RUNS["boot"]} '
			f'boots); wall {wall:.0f} s', steps, out.boots)
	# A record of a full gate whose kernels and checks passed: what the
	# README quotes.  Its tools' tests may fail on the very figures a
	# record refreshes; the record says whether they passed.
	tests_ok = all(s.ok for s in steps if s.name == "tools' tests")
	if boot == 'all' and recorded and debug and self_test and \
	   shown.failed == (0 if tests_ok else 1):
		records.record_gate_time(os.path.join(repo_paths.cache_dir(), 'logs'), wall, PHASES,
					 PHASE_RUNS['boot'], {'passed': shown.passed,
					 'failed': shown.failed, 'skipped': shown.skipped,
					 'tools_tests_passed': tests_ok})
	return shown.failed == 0
