# SPDX-License-Identifier: GPL-2.0
"""wq-kunit's command line: run the suite, or the whole gate (check)."""

import argparse
import collections
import contextlib
from dataclasses import dataclass, field
import hashlib
import os
import signal
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Dict, Iterator, List, Optional

from . import (assess, bench, boots, claims, kernels, load, lock, mutate, packages, paths,
	       results, series, source)
from .errors import WqKunitError
from .kunit_runner import CC, CROSS_COMPILE, Kunit, ccache_env

CHECK_PACKAGES = ['perl', 'python3-ply', 'python3-git', 'shellcheck']
# Kept out of the series: the debug build must catch it (issue: debug run).
# It stays in the debug build, which boots it alone after the suite.
BROKEN_CASE = os.path.join(paths.KUNIT_DIR, 'broken', 'reinit-pending-dwork.c')
SUITE_GLOB = 'workqueue_*'
BROKEN_GLOB = 'broken_workqueue.*'
BROKEN_NAME = 'broken_workqueue.broken_reinit_pending_delayed_work'
BROKEN_KIND = 'ODEBUG'
BROKEN_BOOT = boots.Boot(name='broken-case', description='the broken case alone',
			 kernel_args=[f'kunit.filter_glob={BROKEN_GLOB}'], kernels=None)


def say(msg: str) -> None:
	print(f'wq-kunit: {msg}', flush=True)


# Wall seconds per phase of this invocation, and how often each ran, for
# the gate's summary.
PHASES: Dict[str, float] = collections.defaultdict(float)
PHASE_RUNS = collections.Counter()


@contextlib.contextmanager
def _phase(name: str) -> Iterator[None]:
	start = time.monotonic()
	try:
		yield
	finally:
		PHASES[name] += time.monotonic() - start
		PHASE_RUNS[name] += 1


@dataclass
class Outcome:
	"""What one kernel's runs gave: counts, and a summary line per boot."""
	counts: results.Counts = field(default_factory=results.Counts)
	lines: List[str] = field(default_factory=list)
	tree: str = ''
	boots: Dict[str, results.Counts] = field(default_factory=dict)


def _target(args: argparse.Namespace):
	"""Check the inputs before anything changes: (version, tree or None)."""
	if args.tree and args.kernel:
		raise WqKunitError('--kernel and --tree exclude each other')
	if args.tree:
		tree = source.check_tree(args.tree)
		return source.tree_version(tree), tree
	return (kernels.check(args.kernel) if args.kernel else kernels.default_version()), None


def run_kernel(args: argparse.Namespace, version: str, tree: Optional[str],
	       repeat: int = 1, smps: Optional[List[int]] = None,
	       broken: Optional[str] = None,
	       selected: Optional[List[boots.Boot]] = None) -> Outcome:
	"""Build one kernel once and boot it in each configuration of
	@selected (default: --boot), @repeat times with each CPU count of @smps
	(default: --smp).  @broken, a C file, is appended to the suite for this
	build only."""
	selected = selected or boots.select(args.boot, version)
	series.patches()
	tree_label = f'tree-{hashlib.sha1(tree.encode()).hexdigest()[:12]}' if tree else version
	label = tree_label + ('-debug' if args.debug else '')
	kunitconfigs = [paths.KUNITCONFIG] + ([paths.DEBUG_CONFIG] if args.debug else [])
	cache = paths.cache_dir()
	build_dir = os.path.abspath(args.build_dir) if args.build_dir else \
		os.path.join(cache, 'build', label)
	needed = packages.BUILD + packages.BOOT
	if not tree:
		needed = needed + [kernels.package(version)]
	with _phase('packages'):
		packages.ensure(needed, say)
	logs = os.path.join(cache, 'logs', label)
	out = Outcome()
	# One lock per source tree: its build directories share its files.
	with lock.held(os.path.join(cache, 'locks', f'{tree_label}.lock'), say):
		start = time.monotonic()
		out.tree = source.user_tree(tree, say) if tree else source.cache_tree(version, say)
		prepare = time.monotonic() - start
		PHASES['prepare'] += prepare
		os.makedirs(logs, exist_ok=True)
		kunit = Kunit(out.tree, build_dir, kunitconfigs=kunitconfigs)
		with source.appended(out.tree, series.TEST_FILE, broken,
				     os.path.join(build_dir, 'kernel', 'workqueue.o')):
			_builds_and_boots(args, kunit, version, selected, logs, prepare, out,
					  repeat, smps)
	return out


def _builds_and_boots(args, kunit: Kunit, version: str, selected: List[boots.Boot],
		      logs: str, prepare: float, out: Outcome, repeat: int,
		      smps: Optional[List[int]]) -> None:
	groups = boots.by_build(selected)
	# The variant the build directory holds first: one switch per run.
	groups = boots.current_first(groups, os.path.join(kunit.build_dir, '.config'))
	for kconfig, group in groups:
		extra = f' with {" ".join(kconfig)}' if kconfig else ''
		say(f'building {version}{extra} in {kunit.build_dir}')
		build = kunit.build(args.jobs, os.path.join(logs, 'build.log'), kconfig)
		PHASES['build'] += build
		say(f'built in {build:.1f} s')
		for _ in range(repeat):
			for smp in smps or [args.smp]:
				for boot in group:
					counts = _boot(args, kunit, version, boot, logs,
						       prepare, build, out, smp)
					out.boots[boot.name] = counts
					out.counts.add(counts)
					prepare = 0.0


def _boot(args, kunit: Kunit, version: str, boot: boots.Boot, logs: str,
	  prepare: float, build: float, out: Outcome, smp: int) -> results.Counts:
	console = os.path.join(logs, f'{boot.name}.console')
	json_path = os.path.join(logs, f'{boot.name}.json')
	label = f'{version}{" debug" if args.debug else ""} [{boot.name}]'
	if smp != 8:
		label += f' {smp} CPUs'
		console = os.path.join(logs, f'{boot.name}.smp{smp}.console')
		json_path = os.path.join(logs, f'{boot.name}.smp{smp}.json')
	say(f'booting {label}{" with 8 CPUs" if smp == 8 else ""} in QEMU')
	with _phase('boot'):
		secs = kunit.boot(boot.kernel_args, args.kunit_args, args.timeout, console, smp)
		text, complete = kunit.parse(console, json_path)
	if text is None:
		raise WqKunitError(f'no KUnit results from {label} (console: {console})')
	with open(console, encoding='utf-8', errors='replace') as f:
		whole = f.read()
	judged = assess.boot(whole, text, complete)
	counts = judged.counts
	if not judged.ran:
		raise WqKunitError(f'no KUnit case ran on {label} (console: {console})')
	if judged.incomplete:
		say(f'FAILED {label}: the run did not complete ({console}); it ends with:')
		print('\n'.join(whole.splitlines()[-20:]), flush=True)
	for splat in judged.boot_reports:
		say(f'note: {label}: the kernel reported a problem before the suite: '
		    f'{splat.summary()}')
	for splat in judged.reports:
		say(f'FAILED {label}: kernel report during the suite: {splat.summary()}')
		print('\n'.join(splat.lines), flush=True)
	if args.json:
		dest = args.json if args.boot != 'all' else \
			f'{os.path.splitext(args.json)[0]}.{version}.{boot.name}.json'
		shutil.copyfile(json_path, dest)
	line = (f'{label}: {counts.line()}; prepare {prepare:.1f} s, '
		f'build {build:.1f} s, boot to last result {secs:.1f} s')
	out.lines.append(line)
	for name in counts.failures:
		say(f'FAILED {label} {name}')
	if counts.failed:
		keep = os.path.join(logs, 'failed')
		os.makedirs(keep, exist_ok=True)
		shutil.copyfile(console, os.path.join(
			keep, f'{boot.name}.smp{smp}.{time.strftime("%Y%m%d-%H%M%S")}.console'))
	say(line)
	return counts


def cmd_run(args: argparse.Namespace) -> int:
	version, tree = _target(args)
	out = run_kernel(args, version, tree)
	print(out.counts.line())
	return 0 if out.counts.failed == 0 else 1


def _tools_tests() -> bool:
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


def _debug_run(args: argparse.Namespace, version: str, total: results.Counts,
	       lines: List[str]) -> bool:
	"""The debug build, with kunit/broken/'s case in it: the suite must
	pass, and the broken case, booted alone, must fail naming its report."""
	debug = argparse.Namespace(**dict(vars(args), debug=True, boot='default'))
	suite = boots.select('default', version)[0]
	suite = boots.Boot(name=suite.name, description=suite.description,
			   kernel_args=suite.kernel_args + [f'kunit.filter_glob={SUITE_GLOB}'],
			   kernels=None)
	out = run_kernel(debug, version, None, broken=BROKEN_CASE,
			 selected=[suite, BROKEN_BOOT])
	total.add(out.boots[suite.name])
	lines += [l for l in out.lines if f'[{BROKEN_BOOT.name}]' not in l]
	want = f'{BROKEN_NAME} ({BROKEN_KIND} report)'
	caught = want in out.boots[BROKEN_BOOT.name].failures
	line = f'{version} debug: the broken case {"failed as it must: " if caught else "was NOT caught: "}{want}'
	lines.append(line)
	say(line)
	return caught


def _w1(version: str, tree: str) -> bool:
	"""kernel/workqueue.o, which includes the suite, builds with no W=1
	warning.  The build directory's object and its command file are put
	back afterwards, so that the next build has nothing to redo."""
	build_dir = os.path.join(paths.cache_dir(), 'build', version)
	obj = os.path.join(build_dir, 'kernel', 'workqueue.o')
	keep = [obj, os.path.join(build_dir, 'kernel', '.workqueue.o.cmd')]
	with tempfile.TemporaryDirectory(prefix='wq-kunit-w1.') as saved:
		for path in keep:
			shutil.copy2(path, saved)
		try:
			os.remove(obj)
			proc = subprocess.run(['make', 'ARCH=arm', f'CROSS_COMPILE={CROSS_COMPILE}',
					       f'CC={CC}', f'O={build_dir}', 'W=1',
					       'kernel/workqueue.o'],
					      cwd=tree, capture_output=True, text=True,
					      check=False, env=ccache_env())
		finally:
			for path in keep:
				shutil.copy2(os.path.join(saved, os.path.basename(path)), path)
	warnings = [l for l in (proc.stdout + proc.stderr).splitlines() if 'warning:' in l]
	for line in warnings:
		print(f'  {line}')
	ok = proc.returncode == 0 and not warnings
	say(f'{version}: kernel/workqueue.o with W=1: '
	    f'{"no warning" if ok else f"{len(warnings)} warnings, exit {proc.returncode}"}')
	return ok


def _style(tree: str) -> bool:
	"""checkpatch --strict on every patch, shellcheck on the shell scripts."""
	ok = True
	# Debian's python3 has the modules checkpatch's SPDX check imports.
	env = dict(os.environ, PATH='/usr/bin:/bin:' + os.environ.get('PATH', ''))
	for patch in series.patches():
		proc = subprocess.run(['perl', 'scripts/checkpatch.pl', '--strict', '-q', patch],
				      cwd=tree, env=env, capture_output=True, text=True,
				      check=False)
		if proc.returncode or proc.stdout.strip() or proc.stderr.strip():
			ok = False
			say(f'checkpatch --strict: {os.path.basename(patch)}')
			sys.stdout.write(proc.stdout + proc.stderr)
	scripts = [os.path.join(paths.REPO, '.ci', 'run')]
	proc = subprocess.run(['shellcheck'] + scripts, capture_output=True, text=True,
			      check=False)
	if proc.returncode:
		ok = False
		sys.stdout.write(proc.stdout + proc.stderr)
	say(f'checkpatch --strict and shellcheck: {"clean" if ok else "FAILED"}')
	return ok


def cmd_check(args: argparse.Namespace) -> int:
	versions = kernels.supported()
	for version in versions:
		boots.select(args.boot, version)
	start = time.monotonic()
	with _phase('packages'):
		packages.ensure(CHECK_PACKAGES, say)
	with _phase('tools tests'):
		ok = _tools_tests()
	total = results.Counts()
	lines = []
	tree = ''
	ran = {}
	for version in versions:
		out = run_kernel(args, version, None)
		total.add(out.counts)
		lines += out.lines
		tree = out.tree
		ran[version] = sorted(out.boots)
		with _phase('W=1'):
			ok = _w1(version, tree) and ok
	# What claims --write may use: these logs, and nothing run after them.
	claims.record_gate(os.path.join(paths.cache_dir(), 'logs'), ran,
			   {'boot': args.boot, 'smp': args.smp, 'kunit_args': args.kunit_args})
	if not args.no_debug:
		for version in versions:
			ok = _debug_run(args, version, total, lines) and ok
	with _phase('checkpatch and shellcheck'):
		ok = _style(tree) and ok
	say('summary:')
	for line in lines:
		print(f'  {line}')
	for name in total.failures:
		print(f'  FAILED {name}')
	phases = ', '.join(f'{name} {secs:.1f} s' for name, secs in PHASES.items())
	print(f'  phases: {phases} ({PHASE_RUNS["boot"]} boots); '
	      f'wall {time.monotonic() - start:.0f} s')
	print(total.line())
	return 0 if ok and total.failed == 0 else 1


def _versions(args: argparse.Namespace) -> List[str]:
	"""--kernel's version, checked, or every supported one."""
	return [kernels.check(args.kernel)] if args.kernel else kernels.supported()


def cmd_soak(args: argparse.Namespace) -> int:
	versions = _versions(args)
	for version in versions:
		boots.select(args.boot, version)
	total = results.Counts()
	summary = []
	with load.hogs(args.load) as hogs:
		if hogs:
			say(f'host load: {hogs} busy processes')
		for version in versions:
			out = run_kernel(args, version, None, repeat=args.runs, smps=args.smp)
			bad = [l for l in out.lines if ' 0 failed' not in l]
			summary.append(f'soak {version}: {len(out.lines)} boots '
				       f'(CPUs {",".join(map(str, args.smp))}, '
				       f'{"under" if hogs else "without"} host load), '
				       f'{len(bad)} with failures')
			summary += [f'  {l}' for l in bad]
			total.add(out.counts)
	say('summary:')
	for line in summary:
		print(f'  {line}')
	for name in total.failures:
		print(f'  FAILED {name}')
	print(total.line())
	return 0 if total.failed == 0 else 1


@contextlib.contextmanager
def _cached_tree(version: str) -> Iterator[str]:
	"""Debian's tree of @version, series applied, held locked while inside."""
	cache = paths.cache_dir()
	with lock.held(os.path.join(cache, 'locks', f'{version}.lock'), say):
		yield source.cache_tree(version, say)


def cmd_mutate(args: argparse.Namespace) -> int:
	versions = _versions(args)
	catalogue = {v: mutate.load(v) for v in versions}
	for version in versions:
		if args.boot:
			boots.select(args.boot, version)
		if args.only:
			catalogue[version] = [m for m in catalogue[version] if m.name in args.only]
	if not any(catalogue.values()):
		raise WqKunitError(f'no mutant named {", ".join(args.only)}')
	packages.ensure(packages.BUILD + packages.BOOT +
			[kernels.package(v) for v in versions], say)
	lines = []
	ok = True
	for version in versions:
		cache = paths.cache_dir()
		logs = os.path.join(cache, 'logs', version)
		os.makedirs(logs, exist_ok=True)
		with _cached_tree(version) as tree:
			kunit = Kunit(tree, os.path.join(cache, 'build', version))
			start = time.monotonic()
			verdicts = mutate.run(kunit, version, catalogue[version], args.boot,
					      args.jobs, args.timeout, logs, say)
		total = time.monotonic() - start
		lines.append(f'{version}: {mutate.score(verdicts)} in {total:.0f} s')
		for v in verdicts:
			lines.append(f'  {v.outcome:13} {v.mutant.name:34} {v.seconds:5.0f} s  {v.detail[:90]}')
			ok = ok and v.outcome in ('killed', 'equivalent')
	say('mutation score:')
	for line in lines:
		print(line)
	return 0 if ok else 1


def cmd_bench(args: argparse.Namespace) -> int:
	versions = _versions(args)
	packages.ensure(packages.BUILD + packages.BOOT +
			[kernels.package(v) for v in versions], say)
	measured = {}
	for version in versions:
		with _cached_tree(version) as tree:
			measured[version] = bench.measure(tree, version, args.runs, args.jobs, say,
							  args.cold_runs)
	text = bench.table(measured)
	out = args.output or os.path.join(paths.cache_dir(), 'bench.md')
	with open(out, 'w', encoding='utf-8') as f:
		f.write(text)
	sys.stdout.write(text)
	say(f'written to {out}')
	return 0


def _smp_list(text: str) -> List[int]:
	try:
		cpus = [int(x) for x in text.split(',')]
	except ValueError:
		cpus = []
	if not cpus or any(c not in (2, 4, 8) for c in cpus):
		raise argparse.ArgumentTypeError(f'{text!r}: a list of 2, 4 and 8')
	return cpus


def cmd_claims(args: argparse.Namespace) -> int:
	text = claims.table()
	if args.write:
		changed = claims.write(args.write, text)
		say(f'{args.write}: claims table {"updated" if changed else "unchanged"}')
	else:
		sys.stdout.write(text)
	return 0


def parser() -> argparse.ArgumentParser:
	top = argparse.ArgumentParser(
		prog='wq-kunit',
		description='Run the workqueue CPU-selection KUnit suite in a 32-bit '
			    'ARM kernel booted in QEMU with 8 CPUs.')
	sub = top.add_subparsers(dest='command', metavar='COMMAND')
	sub.required = True

	def one_kernel(p: argparse.ArgumentParser) -> None:
		p.add_argument('--kernel', metavar='VERSION', help='one version (default: all)')

	def jobs(p: argparse.ArgumentParser) -> None:
		p.add_argument('--jobs', type=int, default=os.cpu_count() or 1,
			       help='parallel make jobs (default: %(default)s)')

	def timeout(p: argparse.ArgumentParser, seconds: int) -> None:
		p.add_argument('--timeout', type=int, default=seconds,
			       help='seconds one boot may take (default: %(default)s)')

	def common(p: argparse.ArgumentParser) -> None:
		p.add_argument('--boot', default='default', metavar='NAME',
			       help='boot configuration from kunit/boots.ini, or "all" '
				    '(default: %(default)s)')
		jobs(p)
		timeout(p, 300)
		p.add_argument('--smp', type=int, default=8, choices=(2, 4, 8),
			       help='CPUs of the big.LITTLE board, half LITTLE and half big '
				    '(default: %(default)s)')

	run = sub.add_parser(
		'run', help='build the suite into a kernel and boot it',
		description='Unpack linux-source-VERSION into the cache (or use --tree), '
			    'apply the series, build with the tree\'s kunit.py for arm, '
			    'boot QEMU, print the results. Exit 0 only if no case failed. '
			    'Arguments after -- go to kunit.py exec unchanged.')
	run.add_argument('--kernel', metavar='VERSION',
			 help='Debian kernel X.Y (default: the one linux-source depends on)')
	run.add_argument('--tree', metavar='DIR',
			 help='a kernel tree to test as it is, series applied if missing')
	run.add_argument('--build-dir', metavar='DIR', help='kunit.py build directory')
	run.add_argument('--json', metavar='FILE', help='write kunit.py\'s JSON results here')
	run.add_argument('--debug', action='store_true',
			 help='the debug build: kunitconfig plus kunit/debug.config (lockdep, '
			      'debug objects, KASAN, watchdogs), in a build directory of its own')
	common(run)
	run.add_argument('kunit_args', nargs='*', metavar='-- KUNIT_PY_ARGS',
			 help='passed to kunit.py exec')
	run.set_defaults(func=cmd_run)

	check = sub.add_parser(
		'check', help='the project\'s gate: tools tests, every kernel, style',
		description='Run the tools\' own tests; the suite on every supported kernel '
			    'version in every boot configuration, with W=1 on the test code; '
			    'the debug build of each version, proving it catches a broken case; '
			    'then checkpatch --strict on the series and shellcheck. Ends with '
			    '"N passed, N failed, N skipped" counting KUnit cases.')
	common(check)
	check.add_argument('--no-debug', action='store_true',
			   help='skip the debug build of each version')
	check.set_defaults(func=cmd_check, kernel=None, tree=None, build_dir=None,
			   json=None, kunit_args=[], boot='all', debug=False)

	soak = sub.add_parser(
		'soak', help='boot the suite many times to find flakes',
		description='Build each kernel once, then boot the suite --runs times per '
			    'boot configuration and CPU count, optionally with every host '
			    'core busy, and report every failure with its case and console.')
	one_kernel(soak)
	soak.add_argument('--runs', type=int, default=10, help='boots per configuration '
			  'and CPU count (default: %(default)s)')
	soak.add_argument('--boot', default='default', metavar='NAME',
			  help='boot configuration, or "all" (default: %(default)s)')
	soak.add_argument('--smp', type=_smp_list, default=[8], metavar='LIST',
			  help='CPU counts, e.g. 2,4,8 (default: 8)')
	soak.add_argument('--load', action='store_true', help='keep every host core busy')
	jobs(soak)
	timeout(soak, 300)
	soak.set_defaults(func=cmd_soak, tree=None, build_dir=None, json=None,
			  kunit_args=[], debug=False)

	mut = sub.add_parser(
		'mutate', help='show that every plausible CPU-selection regression fails a case',
		description='For each mutant of kunit/mutants/VERSION/, apply it to the cached '
			    'tree, rebuild incrementally, boot the configurations its Boots: '
			    'line names (or --boot), revert it (also on Ctrl-C or failure), and '
			    'report killed (by which case), survived, equivalent or did not build. '
			    'Ends with "K of N mutants killed".')
	one_kernel(mut)
	mut.add_argument('--only', metavar='NAME', action='append',
			 help='only this mutant (repeatable)')
	mut.add_argument('--boot', metavar='NAME', help='boot configuration(s) for every '
			 'mutant, or "all" (default: each mutant\'s own)')
	jobs(mut)
	timeout(mut, 120)
	mut.set_defaults(func=cmd_mutate)

	ben = sub.add_parser(
		'bench', help='measure every phase, per kernel',
		description='Per kernel: configure, cold build, wall and CPU time (and a '
			    'plain CONFIG_KUNIT=y kunit.py --arch=arm kernel for comparison), '
			    'warm rebuild with nothing changed, '
			    'rebuild after touching the test file, QEMU boot, and from the '
			    'guest\'s timestamps boot-to-first-result and suite time; medians '
			    'over --runs, written to a Markdown table.  Builds in its own '
			    'directories in the cache.')
	one_kernel(ben)
	ben.add_argument('--runs', type=int, default=3, help='runs of the cheap phases '
			 '(default: %(default)s)')
	ben.add_argument('--cold-runs', type=int, default=1, metavar='N',
			 help='cold builds of the suite\'s kernel and of the plain one, '
			      'alternating, ccache bypassed (default: %(default)s)')
	jobs(ben)
	ben.add_argument('--output', metavar='FILE', help='the table (default: bench.md '
			 'in the cache)')
	ben.set_defaults(func=cmd_bench)

	table = sub.add_parser(
		'claims', help='print the claims table from the last gate run',
		description='Settle each claim of kunit/claims.ini per kernel from the '
			    'JSON and consoles the last run of every boot left in the '
			    'cache, and print the Markdown table.')
	table.add_argument('--write', metavar='FILE',
			   help='replace the table between the claims markers in FILE')
	table.set_defaults(func=cmd_claims)
	return top


def _terminated(_signum, _frame) -> None:
	"""SIGTERM (a CI job's timeout, say) ends a run as Ctrl-C does: the
	files it changed are put back and kunit.py, make and QEMU end with it."""
	raise KeyboardInterrupt


def main(argv: Optional[List[str]] = None) -> int:
	args = parser().parse_args(argv)
	signal.signal(signal.SIGTERM, _terminated)
	try:
		return args.func(args)
	except WqKunitError as e:
		print(f'wq-kunit: error: {e}', file=sys.stderr)
		return 1
	except OSError as e:
		# A read-only or full cache, say: one line, not a traceback.
		where = f'{e.filename}: ' if e.filename else ''
		print(f'wq-kunit: error: {where}{e.strerror or e}', file=sys.stderr)
		return 1
	except KeyboardInterrupt:
		print('wq-kunit: interrupted', file=sys.stderr)
		return 130
