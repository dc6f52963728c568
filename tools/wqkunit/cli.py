# SPDX-License-Identifier: GPL-2.0
"""wq-kunit's command line: parse the arguments, dispatch to commands."""

import argparse
import os
import signal
import sys
from typing import List, Optional

from . import arches, commands
from .errors import WqKunitError


# From 1 to as many CPUs as an architecture boots.
CPUS = range(1, max(a.max_cpus for a in arches.ARCHES.values()) + 1)


def _smp_list(text: str) -> List[int]:
	try:
		cpus = [int(x) for x in text.split(',')]
	except ValueError:
		cpus = []
	if not cpus or any(c not in CPUS for c in cpus):
		raise argparse.ArgumentTypeError(f'{text!r}: a list of CPU counts from 1 to {CPUS[-1]}')
	return cpus


def _kernel(p: argparse.ArgumentParser) -> None:
	p.add_argument('--kernel', metavar='VERSION', help='one version (default: all)')


def _jobs(p: argparse.ArgumentParser, default: int = os.cpu_count() or 1) -> None:
	p.add_argument('--jobs', type=int, default=default,
		       help='parallel make jobs (default: %(default)s)')


def _timeout(p: argparse.ArgumentParser, seconds: int) -> None:
	p.add_argument('--timeout', type=int, default=seconds,
		       help='seconds one boot may take (default: %(default)s)')


def _boot(p: argparse.ArgumentParser, default: Optional[str], what: str) -> None:
	p.add_argument('--boot', default=default, metavar='NAME',
		       help=f'boot configuration from kunit/boots.ini, or "all" ({what})')


def _smp(p: argparse.ArgumentParser) -> None:
	p.add_argument('--smp', type=int, default=8, choices=CPUS, metavar='N',
		       help='CPUs of the board, 1 to 8 (x86_64: to 16): on the big.LITTLE '
			    'board the first half LITTLE, the rest big (default: 8; UML: 1)')


def parser() -> argparse.ArgumentParser:
	top = argparse.ArgumentParser(
		prog='wq-kunit',
		description='Run the workqueue CPU-selection KUnit suite in a 32-bit '
			    'ARM kernel booted in QEMU with 8 CPUs.')
	sub = top.add_subparsers(dest='command', metavar='COMMAND', required=True)

	def command(name: str, func, summary: str, description: str) -> argparse.ArgumentParser:
		p = sub.add_parser(name, help=summary, description=description)
		p.set_defaults(func=func)
		return p

	run = command('run', commands.run, 'build the suite into a kernel and boot it',
		      'Unpack linux-source-VERSION into the cache (or use --tree), apply '
		      'the series, build with the tree\'s kunit.py for arm, boot QEMU, print '
		      'each result as the guest does. Exit 0 only if every boot passed. '
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
	_boot(run, 'default', 'default: %(default)s')
	_jobs(run)
	_timeout(run, 300)
	_smp(run)
	run.set_defaults(smp=None)	# 8, or as many as --arch has
	run.add_argument('--arch', default=arches.DEFAULT, choices=list(arches.ARCHES),
			 help='kunit.py --arch: arm (the big.LITTLE board), arm64 (the same '
			      'board, with two clusters), x86_64 (CPUs all alike) or um (one '
			      'CPU, no QEMU) (default: %(default)s)')
	run.add_argument('--homogeneous', action='store_true',
			 help='boot QEMU\'s machine as it is, every CPU alike, instead of '
			      'the big.LITTLE board')
	run.add_argument('kunit_args', nargs='*', metavar='-- KUNIT_PY_ARGS',
			 help='passed to kunit.py exec')

	check = command('check', commands.check,
			'the project\'s gate: tools tests, every kernel, style',
			'Run the tools\' own tests; the suite on every supported kernel '
			'version in every boot configuration, with W=1 on the test code; '
			'the debug build of each version, proving it catches a broken case; '
			'then checkpatch --strict on the series and shellcheck. Ends with '
			'"N passed, N failed, N skipped" counting KUnit cases.')
	_boot(check, 'all', 'default: %(default)s')
	_jobs(check)
	_timeout(check, 300)
	_smp(check)
	check.add_argument('--no-debug', action='store_true',
			   help='skip the debug build of each version')

	soak = command('soak', commands.soak, 'boot the suite many times to find flakes',
		       'Build each kernel once, then boot the suite --runs times per boot '
		       'configuration and CPU count, optionally with every host core busy, '
		       'and report every failed boot with its console.')
	_kernel(soak)
	soak.add_argument('--runs', type=int, default=10, help='boots per configuration '
			  'and CPU count (default: %(default)s)')
	_boot(soak, 'default', 'default: %(default)s')
	soak.add_argument('--smp', type=_smp_list, default=[8], metavar='LIST',
			  help='CPU counts, e.g. 2,4,8 (default: 8)')
	soak.add_argument('--load', action='store_true', help='keep every host core busy')
	_jobs(soak)
	_timeout(soak, 300)

	mut = command('mutate', commands.mutation,
		      'show that every plausible CPU-selection regression fails a case',
		      'For each mutant of kunit/mutants/VERSION/, apply it to the cached '
		      'tree, rebuild incrementally, boot the configurations its Boots: line '
		      'names (or --boot), revert it (also on Ctrl-C or failure), and report '
		      'killed (by the case its Caught by: line names), killed by another '
		      'case, equivalent, survived, did not build or boot error. Ends with '
		      '"K of N mutants killed" and the count of each outcome.')
	_kernel(mut)
	mut.add_argument('--only', metavar='NAME', action='append',
			 help='only this mutant (repeatable)')
	_boot(mut, None, 'default: each mutant\'s own')
	_jobs(mut, 2)
	_timeout(mut, 120)

	ben = command('bench', commands.measure, 'measure every phase, per kernel',
		      'Per kernel: configure, cold build, wall and CPU time (and a plain '
		      'CONFIG_KUNIT=y kunit.py --arch=arm kernel for comparison), warm '
		      'rebuild with nothing changed, rebuild after touching the test file, '
		      'QEMU boot, and from the guest\'s timestamps boot-to-first-result and '
		      'suite time; medians over --runs, written to a Markdown table.  Builds '
		      'in its own directories in the cache.')
	_kernel(ben)
	ben.add_argument('--runs', type=int, default=3, help='runs of the cheap phases '
			 '(default: %(default)s)')
	ben.add_argument('--cold-runs', type=int, default=1, metavar='N',
			 help='cold builds of the suite\'s kernel and of the plain one, '
			      'alternating, ccache bypassed (default: %(default)s)')
	_jobs(ben)
	ben.add_argument('--output', metavar='FILE',
			 help='the table (default: bench.md in the cache)')

	rep = command('report', commands.placement,
		      'where periodic work runs, per configuration: a table and a plot',
		      'Boot the suite\'s placement report (workqueue_report, which asserts '
		      'nothing) with power-efficient mode off and on and wq_unbound_cpumask '
		      'full, on the LITTLE CPUs and on the big ones; write report.md (runs '
		      'per CPU, CPUs used, LITTLE and big, runs after idle) and report.svg '
		      '(a per-CPU histogram per configuration).')
	_kernel(rep)
	rep.add_argument('--out', metavar='DIR', help='where report.md and report.svg go '
			 '(default: report/ in the cache)')
	_jobs(rep)
	_timeout(rep, 120)

	table = command('claims', commands.claims_table,
			'print the claims table from the last gate run',
			'Settle each claim of kunit/claims.ini per kernel from the JSON and '
			'consoles that the last gate (wq-kunit check) recorded, and print '
			'the Markdown table.')
	table.add_argument('--write', metavar='FILE',
			   help='replace the table between the claims markers in FILE')
	alls = command('alltests', commands.all_tests,
		       'all-tests builds with and without the series, compared',
		       'Build the tree with CONFIG_KUNIT_ALL_TESTS=y twice, with the series '
		       'and without it, boot each once and compare every result, case '
		       'by case: ours must pass or skip, every other one must be the same '
		       'without the series.')
	alls.add_argument('--kernel', metavar='VERSION',
			  help='one version (default: the newest supported)')
	alls.add_argument('--arch', default=arches.DEFAULT, choices=('arm', 'um'),
			  help='the big.LITTLE board or UML (default: %(default)s)')
	_jobs(alls)
	_timeout(alls, 600)

	cov = command('coverage', commands.coverage_map,
		      'check the coverage map and print its table from the last gate run',
		      'Check kunit/coverage.ini against the workqueue interface of every '
		      'supported kernel tree (a name with no entry, or an entry naming '
		      'what no tree has, is an error), then print the Markdown table of '
		      'what the last gate (wq-kunit check) asserted for each entry.')
	cov.add_argument('--check', action='store_true',
			 help='only check the map against the trees; no gate logs needed')
	cov.add_argument('--write', metavar='FILE',
			 help='replace the table between the coverage markers in FILE')
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
