# SPDX-License-Identifier: GPL-2.0
"""The steps of the gate, each with its verdict: a failed one is named in
the gate's last lines and counted in its last."""

from dataclasses import dataclass
from typing import Callable, List, Sequence, Union

from ..base.errors import WqKunitError
from ..base.messages import say
from ..build import runner


@dataclass
class Step:
	"""One step of the gate and its verdict, with where to look if it
	failed.  A failed boot is counted already, by the failed results its
	verdict gives: only a failed step that is not @boots adds to them."""
	name: str
	ok: bool
	detail: str = ''
	boots: bool = False

	def line(self) -> str:
		return f'FAILED step: {self.name}' + (f' ({self.detail})' if self.detail else '')


def boots_step(name: str, done: Sequence[runner.Boot]) -> Step:
	"""The step of the boots @done, failed if one of them did."""
	bad = [b for b in done if not b.judged.passed]
	return Step(name, not bad, f'{len(bad)} of {len(done)} boots failed: '
		    f'{", ".join(b.label for b in bad)}' if bad else '', boots=True)


def guarded(name: str, step: Callable[[], Union[Step, List[Step]]]) -> List[Step]:
	"""@step's verdicts, or a failed step @name if it could not run at
	all: the gate goes on to its summary whatever one step does."""
	try:
		done = step()
	except (WqKunitError, OSError) as e:
		say(f'{name}: could not run: {e}')
		return [Step(name, False, f'could not run: {e}')]
	return done if isinstance(done, list) else [done]
