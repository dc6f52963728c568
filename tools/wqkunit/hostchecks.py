# SPDX-License-Identifier: GPL-2.0
"""The host's checks of a boot that gave results, beside KUnit's own
verdicts: each finds what the guest cannot judge of itself (which kernel
and board it is, what its boot configuration should have given, which
results must be there)."""

from typing import TYPE_CHECKING, Callable, List, Optional

from . import arches, board as board_mod, boots, lognames, manifest, results, verdict
from .kunitpy import Kunit

if TYPE_CHECKING:
	from . import runner


def problems(kunit: Kunit, req: 'runner.BuildRequest', ex: 'runner.ExecRequest',
	     b: boots.Boot, smp: int, console: str, whole: str, text: Optional[str],
	     judged: verdict.Verdict, log: Callable[[str], None]) -> Optional[str]:
	"""A boot error from the host's checks of a boot that gave results,
	or None: the stale-kernel check (it ran another kernel), the board
	check (another machine), and for a boot of every suite, the boot
	configuration's own (wq_unbound_cpumask as boots.ini says) and the
	manifest's (every result kunit/expected/ says passes, passed).  A
	boot that never got as far as the suites has its own verdict."""
	if judged.errors:
		return None		# no result at all: that is the verdict
	stale = kunit.stale(console)
	if stale:
		return 'stale kernel: ' + stale
	found = []
	if ex.board:
		problem = board_mod.check(whole, smp, ex.board,
					  b.filtered(ex.kunit_args) or judged.incomplete)
		if problem:
			found.append(board_mod.PREFIX + problem)
	if not (b.filtered(ex.kunit_args) or judged.incomplete):
		wrong = b.check_console(whole, smp)
		if wrong:
			found.append(CONFIG_PREFIX + wrong)
		found += _expected(req, ex, b, smp, text, log)
	return '; '.join(found) or None


# How a boot error from the boot configuration's or the manifest's check starts.
CONFIG_PREFIX = 'boot configuration check: '
MANIFEST_PREFIX = 'expected results check: '


def _expected(req: 'runner.BuildRequest', ex: 'runner.ExecRequest', b: boots.Boot,
	      smp: int, text: Optional[str], log: Callable[[str], None]) -> List[str]:
	"""What kunit/expected/ finds wrong with the results @text of boot @b:
	a result it says passes that skipped or was not reported.  A build
	the manifest has no section for is not checked, unless
	@ex.require_manifest; nor are the fault-injection and broken-case
	builds, whose cases fail on purpose."""
	if req.fault_hooks or req.broken:
		return []
	other = ex.board if ex.board != arches.get(req.arch).board else None
	name = manifest.key(req.version, req.arch, req.debug)
	section = lognames.stem(b.name, smp, '', other)
	want = manifest.expected(name, section)
	if want is None:
		return [f'{MANIFEST_PREFIX}kunit/expected/{name}.ini has no [{section}]: '
			f'record it with wq-kunit manifest --write'] if ex.require_manifest else []
	wrong, notes = manifest.compare(want, results.statuses(text) if text else {})
	for note in notes:
		log(f'note: {name} [{section}]: {note}')
	if not wrong:
		return []
	return [f'{MANIFEST_PREFIX}{len(wrong)} results kunit/expected/{name}.ini says pass in '
		f'[{section}] did not: {", ".join(wrong)}']
