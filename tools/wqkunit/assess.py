# SPDX-License-Identifier: GPL-2.0
"""Judging one boot: the one place that says what makes a boot fail, for
the gate and for mutation testing alike."""

from dataclasses import dataclass, field
from typing import List, Optional

from . import results, splats


@dataclass
class Assessment:
	counts: results.Counts
	ran: int				# cases that reported a result
	incomplete: bool			# kunit.py found results missing
	reports: List[splats.Splat] = field(default_factory=list)	# during the suite
	boot_reports: List[splats.Splat] = field(default_factory=list)	# before it


def boot(console_text: str, json_text: Optional[str], complete: bool) -> Assessment:
	"""A boot fails for a failed case, for a run kunit.py found incomplete
	(the kernel crashed or hung, or the timeout stopped QEMU) even when no
	case failed, and for every kernel report made while the suite ran."""
	counts = results.count(json_text) if json_text else results.Counts()
	ran = counts.total()
	incomplete = not complete and not counts.failed
	if incomplete:
		counts.failed += 1
		counts.failures.append('incomplete run (crash or hang)')
	found = splats.find(console_text)
	during = splats.in_suite(found)
	for splat in during:
		counts.failed += 1
		counts.failures.append(f'{splat.case} ({splat.kind} report)')
	return Assessment(counts, ran, incomplete, during, [s for s in found if s not in during])
