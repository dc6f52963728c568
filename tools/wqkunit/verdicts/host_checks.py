# SPDX-License-Identifier: GPL-2.0
"""The host's checks of a boot that gave results, beside KUnit's own
verdicts: each finds what the guest cannot judge of itself (which kernel
and board it is, what its boot configuration should have given, which
results must be there)."""

from typing import Callable, Dict, List, Optional, Tuple

from ..configs import arches, board as board_mod, boot_configs, log_names
from ..configs.run_requests import BuildRequest, ExecRequest
from . import kunit_results, manifest, verdict

# A case -> why the host failed it: lines shown under its "not ok".
Failures = Dict[str, List[str]]


def problems(stale_kernel: Callable[[str], Optional[str]], req: BuildRequest,
	     ex: ExecRequest, b: boot_configs.Boot, smp: int, console: str, whole: str,
	     text: Optional[str], judged: verdict.Verdict,
	     log: Callable[[str], None]) -> Tuple[Optional[str], Failures]:
	"""What the host's checks find wrong with a boot that gave results:
	a boot error, from the stale-kernel check (@stale_kernel, the build's
	Kunit.stale(): it ran another kernel) or the board check (another
	machine), or None; and, for a boot of every suite, failures of named
	cases: the boot configuration's check (the wq_unbound_cpumask and
	power-efficient mode the cases printed are what boots.ini says)
	and the manifest's (every result kunit/expected/ says passes,
	passed).  A boot that never got as far as the suites has its own
	verdict."""
	if judged.errors:
		return None, {}		# no result at all: that is the verdict
	stale = stale_kernel(console)
	if stale:
		return 'stale kernel: ' + stale, {}
	error = None
	if ex.board:
		problem = board_mod.check(whole, smp, ex.board,
					  b.filtered(ex.kunit_args) or judged.incomplete, b.numa,
					  b.online_for(smp))
		if problem:
			error = board_mod.PREFIX + problem
	failures: Failures = {}
	if not (b.filtered(ex.kunit_args) or judged.incomplete):
		# UML boots one CPU whatever the CPU count asked for.
		wrong = b.check_console(whole, min(smp, arches.get(req.arch).max_cpus), req.version)
		if wrong:
			failures[boot_configs.UNBOUND_CASE] = [CONFIG_PREFIX + wrong]
		wrong = b.check_mode(whole, req.version)
		if wrong:
			failures[boot_configs.MODE_CASE] = [CONFIG_PREFIX + wrong]
		missing, wrong_results = _expected(req, ex, b, smp, text, log)
		error = error or missing
		for name, why in wrong_results.items():
			failures.setdefault(name, []).append(why)
	return error, failures


# How the lines of the boot configuration's and the manifest's checks start.
CONFIG_PREFIX = 'boot configuration check: '
MANIFEST_PREFIX = 'expected results check: '


def _expected(req: BuildRequest, ex: ExecRequest, b: boot_configs.Boot,
	      smp: int, text: Optional[str],
	      log: Callable[[str], None]) -> Tuple[Optional[str], Dict[str, str]]:
	"""What kunit/expected/ finds wrong with the results @text of boot @b:
	a boot error if it has no section for the boot and @ex.require_manifest
	says it must, and, for each result it says passes that skipped or was
	not reported, why.  A build the manifest has no section for is not
	checked otherwise; nor are the fault-injection and broken-case builds,
	whose cases fail on purpose."""
	if req.fault_hooks or req.broken:
		return None, {}
	other = ex.board if ex.board != arches.get(req.arch).board else None
	name = arches.label(req.version, req.arch, req.debug)
	section = log_names.stem(b.name, smp, '', other, arches.get(req.arch).cpus)
	want = manifest.expected(name, section)
	if want is None:
		return (f'{MANIFEST_PREFIX}kunit/expected/{name}.ini has no [{section}]: '
			f'record it with wq-kunit manifest --write' if ex.require_manifest else None), {}
	wrong, notes = manifest.compare(want, kunit_results.statuses(text) if text else {})
	for note in notes:
		log(f'note: {name} [{section}]: {note}')
	return None, {result: f'{MANIFEST_PREFIX}{how}, kunit/expected/{name}.ini says it '
		      f'passes in [{section}]' for result, how in wrong.items()}
