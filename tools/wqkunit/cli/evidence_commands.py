# SPDX-License-Identifier: GPL-2.0
"""The commands that gather evidence and figures: mutate, bench,
alltests, report and faults, from their parsed arguments."""

import argparse
import os
import sys
import time
from typing import List

from ..base import debian_packages, repo_paths
from ..base.errors import WqKunitError
from ..base.messages import say
from ..build import runner
from ..configs import board, boot_configs, kernel_versions
from ..evidence import alltests, bench, faults, mutate
from ..report import figures, placement_report, write_report
from ..tree import kernel_trees
from . import options


def mutation(args: argparse.Namespace) -> int:
	versions = options.versions(args)
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


def measure(args: argparse.Namespace) -> int:
	versions = options.versions(args)
	options.writable(args.output, '--output')
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
	versions = options.versions(args)
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
	if args.tree and args.kernel:
		raise options.Usage('--kernel and --tree exclude each other', 'wq-kunit faults')
	tree = kernel_trees.check_tree(args.tree) if args.tree else None
	versions = [kernel_trees.tree_version(tree)] if tree else options.versions(args)
	names = args.boot or list(faults.CONFIGS)
	configs = {v: [b for n in names for b in boot_configs.select(n, v)] for v in versions}
	lines, done = [], []
	for version in versions:
		req = faults.build_request(version, args.jobs, tree)
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
