# SPDX-License-Identifier: GPL-2.0
"""The gate's boot jobs: each built first (runner.built()), under its
tree's lock, then booted by a job the gate runs beside another: a
version's boot configurations, another architecture's default one, or a
debug build with the case it must catch."""

import contextlib
import os
from typing import Callable, List, Tuple

from ..base import digest_stamps, repo_paths
from ..base.errors import WqKunitError
from ..base.messages import say
from ..build import runner
from ..configs import arches, boot_configs
from ..verdicts import splats, verdict
from .gate_steps import Step, boots_step

# Kept out of the series: the debug build must catch it.  It is appended
# to the debug build only, which boots it alone after the suite.
BROKEN_CASE = os.path.join(repo_paths.KUNIT_DIR, 'broken', 'reinit-pending-dwork.c')
SUITE_GLOB = 'workqueue_*'
BROKEN_NAME = 'broken_workqueue.broken_reinit_pending_delayed_work'
BROKEN_KIND = 'ODEBUG'
BROKEN_BOOT = boot_configs.Boot(name='broken-case', description='the broken case alone',
			 kernel_args=['kunit.filter_glob=broken_workqueue.*'], kernels=None)
# In the debug build directory: the inputs of the kernel that last caught
# the broken case, and the tools' code that judged it.
CAUGHT = '.wq-kunit-broken-caught'
# The debug suite's boot passed on the kernel of this key (as CAUGHT)
PASSED = '.wq-kunit-debug-passed'
CAUGHT_BY = [os.path.abspath(m.__file__) for m in (verdict, splats)]
# The debug boots' CPUs: the checkers watch the same code on half the
# board (two LITTLE, two big) at less than half the cost (6.12: 29 s
# against 67 s); every case runs with the board's 8 in the other boots.
DEBUG_CPUS = 4


Job = Callable[[], Tuple[runner.Outcome, List[Step]]]


def boots_job(name: str, boot: runner.Booter) -> Job:
	"""What runs @boot: its outcome, and the step @name of its boots."""
	def job() -> Tuple[runner.Outcome, List[Step]]:
		done = boot()
		return done, [boots_step(name, done.boots)]
	return job


def guarded_job(kind: str, what: str, job: Job) -> Tuple[runner.Outcome, List[Step]]:
	"""@job's outcome and steps; a job that cannot run is a failed step."""
	try:
		return job()
	except (WqKunitError, OSError) as e:
		return runner.Outcome(), [Step(f'{kind} {what}', False, f'could not run: {e}')]


def arch_job(name: str, version: str, jobs: int, timeout: int, smp: int, recorded: bool,
	     held: contextlib.ExitStack) -> Tuple[str, Job]:
	"""@version built for architecture @name: its build label, and what
	boots the configurations made for that architecture alone (the NUMA
	board), else its default one; with the board's own CPU count (arm64's
	16) where @recorded says the gate boots every board as it is."""
	arch = arches.get(name)
	req = runner.BuildRequest(version, jobs=jobs, arch=name)
	own = [b for b in boot_configs.select('all', version, arch=name) if b.arches]
	_, boot = runner.built(req, runner.ExecRequest(
		own or boot_configs.select('default', version), timeout,
		(arch.cpus if recorded else smp,), board=arch.board,
		explain=False, live=False, require_manifest=recorded), held)
	return req.label, boots_job(f'boots {version}/{name}', boot)


def debug_job(version: str, jobs: int, timeout: int, held: contextlib.ExitStack) -> Job:
	"""The debug build, with kunit/broken/'s case in it, built; what boots
	it: the suite must pass, and the broken case, booted alone, must fail
	naming its report.  The broken case is not booted again for a kernel
	built from the same inputs (digest_stamps.BUILD) as one that caught it, with
	the same verdict code (CAUGHT_BY): its boot would give the same
	answer; nor is the suite, once it passed on that kernel, as W=1 is
	not compiled again (the debug kernel is the slowest to boot, and
	its reports come from the kernel's code, which did not change).
	The job's outcome has the suite's boot only."""
	suite = boot_configs.select('default', version)[0]
	suite = boot_configs.Boot(name=suite.name, description=suite.description,
			   kernel_args=suite.kernel_args + [f'kunit.filter_glob={SUITE_GLOB}'],
			   kernels=None)
	req = runner.BuildRequest(version, debug=True, jobs=jobs, broken=BROKEN_CASE)
	_, boot = runner.built(req, runner.ExecRequest([suite, BROKEN_BOOT], timeout,
						       (DEBUG_CPUS,), explain=False, live=False), held)
	caught_by = os.path.join(req.build_path, CAUGHT)
	inputs = digest_stamps.read(os.path.join(req.build_path, digest_stamps.BUILD))
	key = inputs and inputs + digest_stamps.of_files(CAUGHT_BY)
	known = bool(key) and key == digest_stamps.read(caught_by)
	passed_by = os.path.join(req.build_path, PASSED)
	passed = known and key == digest_stamps.read(passed_by)

	def job() -> Tuple[runner.Outcome, List[Step]]:
		if passed:
			line = f'{version} debug: the suite passed and the broken case was caught ' \
				'by this kernel before: not booted again'
			say(line)
			return runner.Outcome(lines=[line]), [Step(f'boots {version} debug', True)]
		done = boot(skip=[BROKEN_BOOT.name] if known else [])
		runner.explain([done.last(suite.name)])
		out = runner.Outcome(boots=[done.last(suite.name)], tree=done.tree,
				     lines=[l for l in done.lines if f'[{BROKEN_BOOT.name}]' not in l])
		steps = [boots_step(f'boots {version} debug', out.boots)]
		want = f'{BROKEN_NAME} ({BROKEN_KIND} report)'
		if known:
			line = f'{version} debug: the broken case: caught by this kernel before ' \
				f'({want}), not booted again'
			caught = True
		else:
			broken = done.last(BROKEN_BOOT.name)
			caught = broken.judged.kind == verdict.KERNEL_REPORT and \
				want in broken.judged.failed_cases
			if caught:
				# Unwritten, it costs the next gate one boot.
				with contextlib.suppress(OSError):
					digest_stamps.write(caught_by, key)
			line = f'{version} debug: the broken case ' \
				f'{"failed as it must: " if caught else "was NOT caught: "}{want}'
			steps.append(Step(f'debug {version}: broken case caught', caught,
					  '' if caught else f'not among the failures of {broken.label}'))
		out.lines.append(line)
		say(line)
		if caught and key and all(b.judged.passed for b in out.boots):
			with contextlib.suppress(OSError):
				digest_stamps.write(passed_by, key)
		return out, steps
	return job
