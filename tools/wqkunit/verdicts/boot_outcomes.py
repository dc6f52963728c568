# SPDX-License-Identifier: GPL-2.0
"""What the boots of a run gave (run_requests.py says what it was asked):
each boot's verdict and console, and one kernel's boots together."""

from dataclasses import dataclass, field
from typing import List

from . import kunit_results, verdict


@dataclass
class Boot:
	"""One boot's verdict, and where its console is."""
	name: str
	label: str
	judged: verdict.Verdict
	console: str
	seconds: float


@dataclass
class Outcome:
	"""What one kernel's boots gave: their verdicts, and a summary line each."""
	boots: List[Boot] = field(default_factory=list)
	lines: List[str] = field(default_factory=list)
	tree: str = ''

	@property
	def counts(self) -> kunit_results.Counts:
		total = kunit_results.Counts()
		for b in self.boots:
			total.add(b.judged.counts)
		return total

	def last(self, name: str) -> Boot:
		return [b for b in self.boots if b.name == name][-1]
