# SPDX-License-Identifier: GPL-2.0
"""What each wq-kunit command does, from its parsed arguments."""

import argparse
import os
import sys
import time
from typing import List, Optional

from .base import cpu_hogs, debian_packages, repo_paths
from .base.errors import WqKunitError
from .base.messages import say
from .build import runner
from .configs import arches, board, boot_configs, kernel_versions, log_names
from .evidence import alltests, bench, claims, faults, mutate
from .gate import gate_check
from .options import Usage
from .report import figures, placement_report, write_report
from .tree import kernel_trees
from .verdicts import manifest

RUN = 'wq-kunit run'	# the command whose --help a refusal of run points to


def _versions(args: argparse.Namespace) -> List[str]:
	"""--kernel's version, checked, or every supported one."""
	return [kernel_versions.check(args.kernel)] if args.kernel else kernel_versions.supported()


def run(args: argparse.Namespace) -> int:
	# What the command line alone tells wrong first, before apt-cache or a tree.
	arch = arches.get(args.arch)
	smp = args.smp or min(arch.cpus, arch.max_cpus)
	if smp > arch.max_cpus:
		most = f'1 to {arch.max_cpus} CPUs' if arch.max_cpus > 1 else 'one CPU'
		raise Usage(f'--arch {arch.name} boots {most}, not {smp}', RUN)
	if args.debug and arch.name != arches.DEFAULT:
		raise Usage(f'--debug is the {arches.DEFAULT} debug build: not with --arch {arch.name}', RUN)
	if args.tree and args.kernel:
		raise Usage('--kernel and --tree exclude each other', RUN)
	_writable(args.json, '--json')
	if args.tree and args.build_dir and _inside(args.build_dir,
						    os.path.join(repo_paths.cache_dir(), 'build')):
		raise Usage('--build-dir: the cache\'s build directories belong to its own '
			    'trees; give --tree a build directory outside it', RUN)
	if args.tree:
		tree = kernel_trees.check_tree(args.tree)
		version = kernel_trees.tree_version(tree)
	else:
		tree = None
		version = kernel_versions.check(args.kernel) if args.kernel else kernel_versions.default_version()
	req = runner.BuildRequest(version, tree, args.debug, args.build_dir, args.jobs,
				  arch=arch.name)
	out = runner.run(req, runner.ExecRequest(boot_configs.select(args.boot, version, arch=arch.name),
						 args.timeout,
						 (smp,), kunit_args=args.kunit_args,
						 json=args.json,
						 board=board.HOMOGENEOUS if args.homogeneous
						 else arch.board))
	print(out.counts.line())
	return 0 if out.counts.failed == 0 else 1


def check(args: argparse.Namespace) -> int:
	ok = gate_check.check(args.boot, args.jobs, args.timeout, args.smp, not args.no_debug)
	return 0 if ok else 1


def soak(args: argparse.Namespace) -> int:
	versions = _versions(args)
	selected = {v: boot_configs.select(args.boot, v) for v in versions}
	total = runner.Outcome()
	lines = []
	with cpu_hogs.hogs(args.load) as hogs:
		if hogs:
			say(f'host load: {hogs} busy processes')
		for version in versions:
			out = runner.run(runner.BuildRequest(version, jobs=args.jobs),
					 runner.ExecRequest(selected[version], args.timeout, args.smp,
							    args.runs))
			bad = [b for b in out.boots if not b.judged.passed]
			lines.append(f'soak {version}: {len(out.boots)} boots '
				     f'(CPUs {",".join(map(str, args.smp))}, '
				     f'{"under" if hogs else "without"} host load), '
				     f'{len(bad)} with failures')
			lines += [f'  {b.label}: {b.judged.counts.line()} ({b.console})' for b in bad]
			total.boots += out.boots
	gate_check.summary(lines, total.counts)
	return 0 if total.counts.failed == 0 else 1


def mutation(args: argparse.Namespace) -> int:
	versions = _versions(args)
	catalogue = {v: mutate.load(v) for v in versions}
	unknown = set(args.only or ()) - {m.name for ms in catalogue.values() for m in ms}
	if unknown:
		raise WqKunitError(f'no mutant named {", ".join(sorted(unknown))} '
				   f'for {", ".join(versions)}')
	for version in versions:
		if args.only:
			catalogue[version] = [m for m in catalogue[version] if m.name in args.only]
		if args.arch:
			catalogue[version] = [m for m in catalogue[version] if m.arch == args.arch]
		# Before anything is built: on each architecture it will boot.
		for arch in dict.fromkeys(m.arch for m in catalogue[version]) if args.boot else ():
			boot_configs.select(args.boot, version, arch=arch)
	if not any(catalogue.values()):
		raise WqKunitError(f'no mutant named {", ".join(args.only)}' if args.only else
				   f'no {args.arch} mutant for {", ".join(versions)}')
	lines = []
	ok = True
	for version in versions:
		if not catalogue[version]:
			continue
		start = time.monotonic()
		verdicts = []
		# Each architecture's mutants on its own build (the NUMA board's
		# on arm64), recorded in its logs.  The coverage table reads kills
		# from a run of every mutant of an architecture; a partial run
		# never replaces it.
		complete = not args.only and not args.boot
		for arch in dict.fromkeys(m.arch for m in catalogue[version]):
			req = runner.BuildRequest(version, jobs=args.jobs, arch=arch)
			with runner.prepared(req) as kunit:
				mine = mutate.run(kunit, req, [m for m in catalogue[version]
							       if m.arch == arch],
						  args.boot, args.timeout, say)
			os.makedirs(req.logs, exist_ok=True)
			mutate.record(mine, os.path.join(req.logs, mutate.RECORD if complete
							 else mutate.PARTIAL), complete)
			verdicts += mine
		lines.append(f'{version}: {mutate.score(verdicts)} in '
			     f'{time.monotonic() - start:.0f} s')
		corpus = mutate.corpus_score(verdicts)
		if corpus:
			lines.append(f'{version}: {corpus}')
		for v in verdicts:
			lines.append(f'  {v.outcome:22} {v.mutant.name:32} {v.seconds:4.0f} s  '
				     f'{v.detail[:90]}')
			ok = ok and (v.outcome in mutate.ACCEPTED or
				     (v.outcome == mutate.BOARD and v.mutant.caught_by == board.CAUGHT_BY))
	say('mutation score (a mutant is killed only by a case failing an expectation):')
	for line in lines:
		print(line)
	return 0 if ok else 1


def _writable(path: Optional[str], option: str) -> None:
	"""A file @path can be written: its directory exists and is ours to
	write, checked before any work that ends in writing it."""
	if not path:
		return
	folder = os.path.dirname(os.path.abspath(path))
	if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
		raise WqKunitError(f'{option} {path}: cannot write to {folder}')


def _inside(path: str, folder: str) -> bool:
	path, folder = os.path.realpath(path), os.path.realpath(folder)
	return path == folder or path.startswith(folder + os.sep)


def measure(args: argparse.Namespace) -> int:
	versions = _versions(args)
	_writable(args.output, '--output')
	measured = {}
	for version in versions:
		with runner.prepared(runner.BuildRequest(version, jobs=args.jobs)) as kunit:
			measured[version] = bench.measure(kunit.tree, version, args.runs, args.jobs,
							  say, args.cold_runs)
	text = bench.table(measured)
	out = args.output or os.path.join(repo_paths.cache_dir(), 'bench.md')
	with open(out, 'w', encoding='utf-8') as f:
		f.write(text)
	sys.stdout.write(text)
	say(f'written to {out}')
	return 0


def all_tests(args: argparse.Namespace) -> int:
	version = kernel_versions.check(args.kernel) if args.kernel else kernel_versions.supported()[-1]
	problems, lines = alltests.check(version, args.arch, args.jobs, args.timeout)
	print(f'{"suite":40} {"with the series":24} without')
	print('\n'.join(lines))
	for line in problems:
		print(f'  PROBLEM {line}')
	say(f'{version}/{args.arch} all tests: {len(lines)} suites, '
	    f'{len(problems) or "no"} problems')
	return 1 if problems else 0


def placement(args: argparse.Namespace) -> int:
	results = {}
	versions = _versions(args)
	debian_packages.ensure([figures.PACKAGE], say)
	for version in versions:
		out = runner.run(runner.BuildRequest(version, jobs=args.jobs),
				 runner.ExecRequest(placement_report.configurations(), args.timeout, live=False,
						    log_prefix='report.'))
		failed = [b.label for b in out.boots if not b.judged.passed]
		if failed:
			raise WqKunitError(f'the report did not run in {", ".join(failed)}')
		results[version] = [c for b in out.boots for c in _report(b)]
	written = write_report.write(results, args.out or os.path.join(repo_paths.cache_dir(), 'report'))
	sys.stdout.write(placement_report.markdown(results))
	say(f'written: {", ".join(written)}')
	return 0


def _report(done: runner.Boot) -> List[placement_report.Config]:
	"""The report of a boot, which must be of the mode asked for."""
	with open(done.console, encoding='utf-8', errors='replace') as f:
		try:
			configs = placement_report.parse(f.read())
		except ValueError as e:
			raise WqKunitError(f'{done.label}: {e} ({done.console})') from None
	for config in configs:
		if done.name != f'report-pe{config.mode}':
			raise WqKunitError(f'{done.label}: the kernel reports power_efficient='
					   f'{config.mode} ({done.console})')
	return configs


def fault_injection(args: argparse.Namespace) -> int:
	versions = _versions(args)
	names = args.boot or list(faults.CONFIGS)
	configs = {v: [b for n in names for b in boot_configs.select(n, v)] for v in versions}
	lines, done = [], []
	for version in versions:
		req = faults.build_request(version, args.jobs)
		start = time.monotonic()
		with runner.prepared(req) as kunit:
			mine = faults.run(kunit, req, configs[version], args.timeout, args.case, say)
		faults.record(mine, os.path.join(req.logs, faults.RECORD))
		lines.append(f'{version}: {faults.total(mine)} in {time.monotonic() - start:.0f} s')
		lines += [f'  {i.outcome:11} [{i.boot}] {i.name}: {i.detail[:150]}'
			  for i in mine if i.outcome != faults.CONTAINED]
		done += mine
	for line in lines:
		print(line)
	print(faults.total(done))
	return 0 if all(i.outcome == faults.CONTAINED for i in done) else 1


def manifest_cmd(args: argparse.Namespace) -> int:
	"""Compare the last gate's results with kunit/expected/, or write it
	from them."""
	logs = os.path.join(repo_paths.cache_dir(), 'logs')
	if claims.gate_args(logs).get('smp') != log_names.DEFAULT_CPUS:
		raise WqKunitError(f'the last gate booted with --smp {claims.gate_args(logs).get("smp")}: '
				   f'the manifest records each board with its own CPU count')
	runs = claims.gate_runs(logs, filtered=True)
	wrong = 0
	for name, done in sorted(runs.items()):
		got = {boot: run.results for boot, run in done.items()}
		if args.write:
			path = manifest.write(name, got)
			say(f'wrote {path}: {len(done)} boot configurations')
			continue
		for boot in sorted(got):
			want = manifest.expected(name, boot)
			if want is None:
				problems = [f'no [{boot}] in kunit/expected/{name}.ini']
				notes: List[str] = []
			else:
				bad, notes = manifest.compare(want, got[boot])
				problems = [f'{result} {how}' for result, how in bad.items()]
			wrong += len(problems)
			for line in problems + notes:
				print(f'  {name} [{boot}]: {line}')
	if not args.write:
		say(f'the last gate and kunit/expected/: {wrong or "no"} differences that fail the gate')
	return 1 if wrong else 0
