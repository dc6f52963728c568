# SPDX-License-Identifier: GPL-2.0
"""The command line of wq-kunit's checks beyond the gate: all-tests
builds, the coverage map, the expected results and fault injection."""

import argparse
import os
from typing import Callable

from . import arches, commands, coverage, faults, options, paths, regressions


def add(command: Callable[..., argparse.ArgumentParser]) -> None:
	"""Add the commands through @command(name, func, summary, description)."""
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
	options.jobs(alls)
	options.timeout(alls, 600)

	cov = command('coverage', commands.coverage_map,
		      'check the coverage map and print its table from the last gate run',
		      'Check kunit/coverage.ini against the workqueue interface of every '
		      'supported kernel tree (a name with no entry, or an entry naming '
		      'what no tree has, is an error), then print the Markdown table of '
		      'what the last gate (wq-kunit check) asserted for each entry, and '
		      'the regression corpus\'s of what the last mutate run caught, or '
		      'with --write put them into their pages.')
	cov.add_argument('--check', action='store_true',
			 help='only check the map against the trees; no gate logs needed')
	cov.add_argument('--write', metavar='FILE', nargs='?', const=commands.PAGES,
			 help='replace the coverage and the corpus tables between their '
			      'markers in FILE, each that FILE has (default: each in its '
			      'page, %s and %s)' % tuple(os.path.relpath(p, paths.REPO)
							for p in (coverage.PAGE, regressions.PAGE)))

	man = command('manifest', commands.manifest_cmd,
		      'compare the last gate with the expected results, or record them',
		      'kunit/expected/KEY.ini holds, per build and boot configuration, '
		      'each result and whether it must pass or may skip; the gate fails '
		      'a boot in which a result recorded as passing skips or is missing.  '
		      'Without options, compare the last gate (wq-kunit check) with it; '
		      'with --write, record the last gate, which must have passed, and '
		      'review the diff before committing it.')
	man.add_argument('--write', action='store_true',
			 help='write kunit/expected/ from the last gate')

	fau = command('faults', commands.fault_injection,
		      'make each case fail and check the kernel is left as found',
		      'Build the suite once with fault hooks (kept out of the series), '
		      'boot it without a fault in each configuration that changes global '
		      'state (default, isolcpus, nohz-full), then once per case and '
		      'injection point, making that case fail at its start or where it '
		      'holds global state.  Prints per injection whether only that case '
		      'failed and the kernel was left as found; the last line is '
		      '"N injections, N contained, N leaks".  Many boots: not in the gate.')
	fau.add_argument('--kernel', metavar='VERSION',
			 help='one version (default: every supported one)')
	fau.add_argument('--boot', metavar='NAME', action='append', choices=faults.CONFIGS,
			 help='one configuration (repeatable; default: all of %s)' %
			 ', '.join(faults.CONFIGS))
	fau.add_argument('--case', metavar='CASE', action='append',
			 help='inject into this case only (repeatable)')
	options.jobs(fau)
	options.timeout(fau, 120)
