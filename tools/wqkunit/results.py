# SPDX-License-Identifier: GPL-2.0
"""Counting the results in kunit.py's JSON (kunit_json.py's format)."""

from dataclasses import dataclass, field
import json
from typing import Dict, List

from .errors import WqKunitError


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


def _walk(group: dict, prefix: str, counts: Counts) -> None:
	for case in group.get('test_cases', []):
		name = prefix + case['name']
		status = case.get('status')
		if status == 'PASS':
			counts.passed += 1
		elif status == 'SKIP':
			counts.skipped += 1
		else:
			counts.failed += 1
			counts.failures.append(f'{name} ({status})')
			counts.statuses[name] = status or ''
	for sub in group.get('sub_groups', []):
		_walk(sub, prefix + sub['name'] + '.', counts)


def count(json_text: str) -> Counts:
	"""Count every leaf case; each parameter of a parameterized case is one."""
	try:
		root = json.loads(json_text)
	except ValueError as e:
		raise WqKunitError(f'kunit.py wrote no valid JSON: {e}') from None
	counts = Counts()
	for suite in root.get('sub_groups', []):
		_walk(suite, suite['name'] + '.', counts)
	counts_top = Counts()
	_walk({'test_cases': root.get('test_cases', [])}, '', counts_top)
	counts.add(counts_top)
	return counts


def statuses(json_text: str) -> Dict[str, str]:
	"""Every leaf result's status by name ("suite.case[.param]")."""
	seen: Dict[str, str] = {}

	def walk(group: dict, prefix: str) -> None:
		for case in group.get('test_cases', []):
			seen[prefix + case['name']] = case.get('status') or ''
		for sub in group.get('sub_groups', []):
			walk(sub, prefix + sub['name'] + '.')
	try:
		root = json.loads(json_text)
	except ValueError as e:
		raise WqKunitError(f'kunit.py wrote no valid JSON: {e}') from None
	for suite in root.get('sub_groups', []):
		walk(suite, suite['name'] + '.')
	return seen
