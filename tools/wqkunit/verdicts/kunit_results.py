# SPDX-License-Identifier: GPL-2.0
"""Counting the results in kunit.py's JSON (kunit_json.py's format)."""

from dataclasses import dataclass, field
import json
from typing import Dict, Iterator, List, Optional, Tuple

from ..base.errors import WqKunitError


@dataclass
class Counts:
	passed: int = 0
	failed: int = 0
	skipped: int = 0
	failures: List[str] = field(default_factory=list)
	# Each failed result's status as kunit.py's JSON gives it: FAIL for
	# a case that failed an expectation, ERROR for one a crash or hang
	# cut short (kunit.py names those it never saw "").
	statuses: Dict[str, str] = field(default_factory=dict)

	def add(self, other: 'Counts') -> None:
		self.passed += other.passed
		self.failed += other.failed
		self.skipped += other.skipped
		self.failures += other.failures
		self.statuses.update(other.statuses)

	def total(self) -> int:
		return self.passed + self.failed + self.skipped

	def line(self) -> str:
		return f'{self.passed} passed, {self.failed} failed, {self.skipped} skipped'


def _leaves(json_text: str) -> Iterator[Tuple[str, Optional[str]]]:
	"""Every leaf result of kunit.py's JSON @json_text and its status,
	named "suite.case[.param]"; kunit.py names one it never saw "",
	which makes "suite." of a case and "" of a suite."""
	try:
		root = json.loads(json_text)
	except ValueError as e:
		raise WqKunitError(f'kunit.py wrote no valid JSON: {e}') from None

	def walk(group: dict, prefix: str) -> Iterator[Tuple[str, Optional[str]]]:
		for case in group.get('test_cases', []):
			yield prefix + case['name'], case.get('status')
		for sub in group.get('sub_groups', []):
			yield from walk(sub, prefix + sub['name'] + '.')
	# The suites first, then the root's own cases.
	yield from walk({'sub_groups': root.get('sub_groups', [])}, '')
	yield from walk({'test_cases': root.get('test_cases', [])}, '')


def count(json_text: str) -> Counts:
	"""Count every leaf case; each parameter of a parameterized case is one."""
	counts = Counts()
	for name, status in _leaves(json_text):
		if status == 'PASS':
			counts.passed += 1
		elif status == 'SKIP':
			counts.skipped += 1
		else:
			counts.failed += 1
			counts.failures.append(f'{name} ({status})')
			counts.statuses[name] = status or ''
	return counts


def statuses(json_text: str) -> Dict[str, str]:
	"""Every leaf result's status by name ("suite.case[.param]"); those
	kunit.py never saw have no name, and are left out."""
	return {name: status or '' for name, status in _leaves(json_text) if name}
