# SPDX-License-Identifier: GPL-2.0
"""Judging one boot: the one place that says whether a boot passed, for
run, check, soak, bench and mutation testing alike."""

from dataclasses import dataclass, field
from typing import List, Optional

from . import results, splats

NO_RESULTS = 'no KUnit results (the kernel never reached the suite, or it ran no case)'
INCOMPLETE = 'incomplete run (crash or hang)'


@dataclass
class Assessment:
	counts: results.Counts
	ran: int				# cases that reported a result
	incomplete: bool			# kunit.py found results missing
	reports: List[splats.Splat] = field(default_factory=list)	# during the suite
	boot_reports: List[splats.Splat] = field(default_factory=list)	# before it
	# Why the boot failed without a case to blame: kunit.py or QEMU
	# failed, no result at all, or a run cut short with no failed case.
	errors: List[str] = field(default_factory=list)

	@property
	def passed(self) -> bool:
		return self.counts.failed == 0

	@property
	def failed_cases(self) -> List[str]:
		"""The failures a case is named in: "suite.case[.param] (STATUS)"."""
		return [f for f in self.counts.failures if f not in self.errors]


def boot(console_text: str, json_text: Optional[str], complete: bool,
	 error: Optional[str] = None) -> Assessment:
	"""A boot fails for a failed case, for every kernel report made while
	the suite ran, and, with no case to blame, for @error (kunit.py exec
	or QEMU failed), for no result at all, or for a run kunit.py found
	incomplete (a crash, a hang, the timeout) even when no case failed."""
	counts = results.count(json_text) if json_text else results.Counts()
	ran = counts.total()
	found = splats.find(console_text)
	during = splats.in_suite(found)
	for splat in during:
		counts.failed += 1
		counts.failures.append(f'{splat.case} ({splat.kind} report)')
	errors = []
	if error:
		errors.append(f'boot error: {error}')
	elif not ran:
		errors.append(NO_RESULTS)
	incomplete = not complete and not counts.failed and not errors
	if incomplete:
		errors.append(INCOMPLETE)
	counts.failed += len(errors)
	counts.failures += errors
	return Assessment(counts, ran, incomplete, during,
			  [s for s in found if s not in during], errors)
