# SPDX-License-Identifier: GPL-2.0
"""wq-kunit's command line: every command with its options and help, each
dispatching to its handler."""

import argparse
import os
import subprocess

from ..base import repo_paths
from ..configs import arches
from ..evidence import claims, coverage, faults, regressions
from ..lava import lava_command, lava_job
from . import campaign_command, evidence_commands, options, run_commands, table_commands


def version() -> str:
	"""The repository's commit (git describe), or "unknown" outside a clone."""
	proc = subprocess.run(['git', '-C', repo_paths.REPO, 'describe', '--always', '--dirty'],
			      capture_output=True, text=True, check=False)
	return proc.stdout.strip() if proc.returncode == 0 else 'unknown'


class _Version(argparse.Action):
	"""--version, which asks git only when given: not on every command."""

	def __init__(self, option_strings, dest, **kwargs) -> None:
		super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

	def __call__(self, parser, namespace, values, option_string=None) -> None:
		print(f'wq-kunit {version()}')
		parser.exit()


def parser() -> argparse.ArgumentParser:
	top = options.Parser(
		prog='wq-kunit',
		description='Run the workqueue CPU-selection KUnit suite in a 32-bit '
			    'ARM kernel booted in QEMU with 8 CPUs.',
		epilog='Only run takes arguments other than options: those after --, '
		       'for kunit.py exec. Exit status: 0 if everything passed; 1 if '
		       'something failed, or for an error that names its cause (a '
		       'missing package, a series that does not apply); 2 for a bad '
		       'command line (an unknown option, kernel version or boot '
		       'configuration), refused in one line before anything is '
		       'installed, unpacked or built; 130 if interrupted.')
	top.add_argument('--version', action=_Version, help="show the tools' commit and exit")
	sub = top.add_subparsers(dest='command', metavar='COMMAND', required=True)

	def command(name: str, func, summary: str, description: str) -> argparse.ArgumentParser:
		p = sub.add_parser(name, help=summary, description=description)
		p.set_defaults(func=func)
		return p

	run = command('run', run_commands.run, 'build the suite into a kernel and boot it',
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
	options.boot(run, 'default', 'default: %(default)s')
	options.jobs(run)
	options.timeout(run, 300)
	options.smp(run, options.RUN_CPUS, options.RUN_WHY)
	run.set_defaults(smp=None)	# 8, or as many as --arch has
	run.add_argument('--arch', default=arches.DEFAULT, choices=list(arches.ARCHES),
			 help='kunit.py --arch: arm (the big.LITTLE board), arm64 (the same '
			      'board, with two clusters), x86_64 (CPUs all alike) or um (one '
			      'CPU, no QEMU) (default: %(default)s)')
	run.add_argument('--homogeneous', action='store_true',
			 help='boot QEMU\'s machine as it is, every CPU alike, instead of '
			      'the big.LITTLE board')
	run.add_argument('kunit_args', nargs='*', metavar='-- KUNIT_PY_ARGS',
			 help='passed to kunit.py exec unchanged: a glob runs some of the '
			      'suite, \'workqueue_percpu.*\' one suite, '
			      '\'workqueue_percpu.queue_work_on_runs_on_named_cpu\' one case')

	check = command('check', run_commands.check,
			'the project\'s gate: tools tests, every kernel, style',
			'Run the tools\' own tests; the suite on every supported kernel '
			'version in every boot configuration, with W=1 on the test code; '
			'the debug build of each version, proving it catches a broken case; '
			'then checkpatch --strict, shellcheck, the coverage map. Ends with each '
			'failed step, then "N passed, N failed, N skipped" (failed steps count).')
	options.boot(check, 'all', 'default: %(default)s')
	options.jobs(check)
	options.timeout(check, 300)
	options.smp(check, options.GATE_CPUS, options.GATE_WHY)
	check.add_argument('--no-debug', action='store_true',
			   help='skip the debug build of each version')

	soak = command('soak', run_commands.soak, 'boot the suite many times to find flakes',
		       'Build each kernel once, then boot the suite --runs times per boot '
		       'configuration and CPU count, optionally with every host core busy, '
		       'and report every failed boot with its console.')
	options.kernel(soak)
	soak.add_argument('--runs', type=options.count, default=10, help='boots per '
			  'configuration and CPU count (default: %(default)s)')
	options.boot(soak, 'default', 'default: %(default)s')
	soak.add_argument('--smp', default=[8], metavar='LIST',
			  type=options.cpus(options.SOAK_CPUS, options.SOAK_WHY, many=True),
			  help='CPU counts, e.g. 2,4,8 (default: 8)')
	soak.add_argument('--load', action='store_true', help='keep every host core busy')
	options.jobs(soak)
	options.timeout(soak, 300)

	mut = command('mutate', evidence_commands.mutation,
		      'show that every plausible CPU-selection regression fails a case',
		      'Boot the unmutated kernel first in every configuration the mutants '
		      'need (the run stops if it fails); then for each mutant of '
		      'kunit/mutants/VERSION/, apply it to the cached tree, rebuild for the '
		      'architecture its Arch: line names (default arm; arm64 for the NUMA '
		      'board), boot the '
		      'configurations its Boots: line names (or --boot), revert it (also on '
		      'Ctrl-C or failure). Only a case failing an expectation kills: killed '
		      '(by the case its Caught by: line names) or by another case; equivalent, '
		      'survived, board check only, kernel report only, crashed or hung, boot '
		      'error, did not build and did not apply are counted apart. Ends with '
		      '"K of N mutants killed" and the count of each outcome; a full run is '
		      'recorded (logs/VERSION/mutation.json, logs/VERSION-arm64/ for arm64\'s) '
		      'for the coverage table.')
	options.kernel(mut)
	mut.add_argument('--only', metavar='NAME', action='append',
			 help='only this mutant (repeatable)')
	mut.add_argument('--arch', choices=('arm', 'arm64', 'x86_64'),
			 help='only the mutants of this architecture (default: every one); '
			 'a run of all of them is recorded as complete for it')
	options.boot(mut, None, 'default: each mutant\'s own')
	options.jobs(mut, 2)
	options.timeout(mut, 120)

	ben = command('bench', evidence_commands.measure, 'measure every phase, per kernel',
		      'Per kernel: configure, cold build, wall and CPU time (and a plain '
		      'CONFIG_KUNIT=y kunit.py --arch=arm kernel for comparison), warm '
		      'rebuild with nothing changed, rebuild after touching the test file, '
		      'QEMU boot, and from the guest\'s timestamps boot-to-first-result and '
		      'suite time; medians over --runs, written to a Markdown table.  Builds '
		      'in its own directories in the cache.')
	options.kernel(ben)
	ben.add_argument('--runs', type=options.count, default=3, help='runs of the cheap phases '
			 '(default: %(default)s)')
	ben.add_argument('--cold-runs', type=options.count, default=1, metavar='N',
			 help='cold builds of the suite\'s kernel and of the plain one, '
			      'alternating, ccache bypassed (default: %(default)s)')
	options.jobs(ben)
	ben.add_argument('--output', metavar='FILE',
			 help='the table (default: bench.md in the cache)')

	rep = command('report', evidence_commands.placement,
		      'how often periodic work wakes an idle CPU, per mode: tables and figures',
		      'Build the kernel with the placement report (CONFIG_WQ_PLACEMENT_REPORT, '
		      'which asserts nothing) and boot it with power-efficient mode off and on; '
		      'at boot it runs, in five windows each, with wq_unbound_cpumask full, on '
		      'the LITTLE CPUs and on the big ones. Write report.md (wake-ups per second, '
		      'mean and spread; runs per CPU), report.png/.svg (the headline figure) and '
		      'report-detail.png/.svg (runs per CPU), drawn with Debian\'s '
		      'python3-matplotlib, which it installs.')
	options.kernel(rep)
	rep.add_argument('--out', metavar='DIR', help='where the report and its figures go '
			 '(default: report/ in the cache)')
	options.jobs(rep)
	options.timeout(rep, 300)

	table = command('claims', table_commands.claims_table,
			'print the claims table from the last gate run',
			'Settle each claim of kunit/claims.ini per kernel from the JSON and '
			'consoles that the last gate (wq-kunit check) recorded, and print '
			'the Markdown table, or with --write put it into its page.')
	table.add_argument('--write', metavar='FILE', nargs='?', const=claims.PAGE,
			   help='replace the table between the claims markers in FILE '
				f'(default: {os.path.relpath(claims.PAGE, repo_paths.REPO)})')

	rec = command('records', table_commands.records_cmd,
		      'the records behind the figures the README and cover letter quote',
		      'Sum up the records the last gate (its time), mutate and faults left in '
		      'the cache\'s logs, over kunit/records.json, and print them; with '
		      '--write, update kunit/records.json, which tools/tests/test_figures.py '
		      'checks the quoted figures against.')
	rec.add_argument('--write', action='store_true', help='update kunit/records.json')

	alls = command('alltests', evidence_commands.all_tests,
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

	cov = command('coverage', table_commands.coverage_map,
		      'check the coverage map and print its table from the last gate run',
		      'Check kunit/coverage.ini against the workqueue interface of every '
		      'supported kernel tree (a name with no entry, or an entry naming '
		      'what no tree has, is an error), then print the Markdown table of '
		      'what the last gate (wq-kunit check) asserted for each entry, and '
		      'the regression corpus\'s of what the last mutate run caught, or '
		      'with --write put them into their pages.')
	cov.add_argument('--check', action='store_true',
			 help='only check the map against the trees; no gate logs needed')
	cov.add_argument('--write', metavar='FILE', nargs='?', const=table_commands.PAGES,
			 help='replace the coverage and the corpus tables between their '
			      'markers in FILE, each that FILE has (default: each in its '
			      'page, %s and %s)' % tuple(os.path.relpath(p, repo_paths.REPO)
							for p in (coverage.PAGE, regressions.PAGE)))

	man = command('manifest', table_commands.manifest_cmd,
		      'compare the last gate with the expected results, or record them',
		      'kunit/expected/KEY.ini holds, per build and boot configuration, '
		      'each result and whether it must pass or may skip; the gate fails '
		      'a boot in which a result recorded as passing skips or is missing.  '
		      'Without options, compare the last gate (wq-kunit check) with it; '
		      'with --write, record the last gate, which must have passed, and '
		      'review the diff before committing it.')
	man.add_argument('--write', action='store_true',
			 help='write kunit/expected/ from the last gate')

	fau = command('faults', evidence_commands.fault_injection,
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
	fau.add_argument('--tree', metavar='DIR',
			 help='a kernel tree instead, as run --tree takes it (the series applied '
			 'if missing), its build next to run\'s')
	fau.add_argument('--boot', metavar='NAME', action='append', choices=faults.CONFIGS,
			 help='one configuration (repeatable; default: all of %s)' %
			 ', '.join(faults.CONFIGS))
	fau.add_argument('--case', metavar='CASE', action='append',
			 help='inject into this case only (repeatable)')
	options.jobs(fau)
	options.timeout(fau, 120)

	campaign_command.arguments(command)

	lav = command('lava', lava_command.lava_jobs,
		      'write a LAVA job for QEMU or a real board, and run the QEMU one',
		      'Write a LAVA job that boots the suite built in and reports one LAVA '
		      'test case per KUnit case (a monitors test, one monitor per suite), '
		      'and check it against LAVA\'s own schema (Debian\'s lava-common, '
		      'installed). For qemu, the job boots the tools\' build of the default '
		      'configuration on their board, which the command runs first; with '
		      '--run, lava-run (lava-dispatcher, not installed by the tools) runs '
		      'it and its per-case results must equal the tools\' run. For a board, '
		      'the lab builds the kernel: docs/lava.md.')
	lav.add_argument('--kernel', metavar='VERSION', help='one version (default: the newest)')
	lav.add_argument('--device', choices=lava_job.DEVICES, default='qemu',
			 help='LAVA device type (default: qemu)')
	lav.add_argument('--url', default=lava_job.DEFAULT_URL,
			 help='where a lab serves the board builds (default: %(default)s)')
	lav.add_argument('--out', metavar='DIR', help='where the job goes (default: lava/ in '
			 'the cache)')
	lav.add_argument('--run', action='store_true', help='run the qemu job with lava-run')
	options.jobs(lav)
	options.timeout(lav, 300)
	return top
