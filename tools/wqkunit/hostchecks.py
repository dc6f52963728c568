# SPDX-License-Identifier: GPL-2.0
"""The host's checks of a boot that gave results, beside KUnit's own
verdicts: each finds what the guest cannot judge of itself (which kernel
and board it is, what its boot configuration should have given, which
results must be there)."""

from typing import TYPE_CHECKING, Callable, List, Optional

from . import board as board_mod, boots, verdict
from .kunitpy import Kunit

if TYPE_CHECKING:
	from . import runner


def problems(kunit: Kunit, req: 'runner.BuildRequest', ex: 'runner.ExecRequest',
	     b: boots.Boot, smp: int, console: str, whole: str, text: Optional[str],
	     judged: verdict.Verdict, log: Callable[[str], None]) -> Optional[str]:
	"""A boot error from the host's checks of a boot that gave results,
	or None: the stale-kernel check (it ran another kernel), the board
	check (another machine), and for a boot of every suite, the boot
	configuration's own (wq_unbound_cpumask as boots.ini says).  A
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
	return '; '.join(found) or None


# How a boot error from the boot configuration's check starts.
CONFIG_PREFIX = 'boot configuration check: '
