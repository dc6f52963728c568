# SPDX-License-Identifier: GPL-2.0
"""Kernel problem reports ("splats") in a boot's console, and the KUnit case
that was running when each began."""

import re
from dataclasses import dataclass, field
from typing import List, Optional

# What starts a report, with the kind it is reported as.  Order matters:
# the first match names the kind.
KINDS = [
	('KASAN', re.compile(r'BUG: KASAN: ')),
	('workqueue lockup', re.compile(r'BUG: workqueue lockup')),
	('soft lockup', re.compile(r'BUG: soft lockup')),
	('hard lockup', re.compile(r'Watchdog detected hard LOCKUP')),
	('sleeping in atomic', re.compile(r'BUG: sleeping function called from invalid context')),
	('lockdep', re.compile(r'WARNING: (possible (circular|recursive|irq lock inversion)'
			       r'|inconsistent lock state|bad unlock balance|suspicious RCU usage'
			       r'|lock held when returning|held lock freed)')),
	('ODEBUG', re.compile(r'ODEBUG: ')),
	('RCU stall', re.compile(r'rcu: INFO: rcu_\w+ (self-)?detected stall')),
	('hung task', re.compile(r'INFO: task \S+ blocked for more than')),
	('oops', re.compile(r'Internal error: Oops|Unable to handle kernel|Kernel panic')),
	('BUG', re.compile(r'\bBUG: ')),
	('WARNING', re.compile(r'WARNING: (CPU: \d+ PID: \d+|at )')),
]
END = re.compile(r'---\[ end (trace|Kernel panic)|^=+$')
RESULT = re.compile(r'^(\s*)(?:not )?ok \d+ ([^#\s]+)')
SUBTEST = re.compile(r'^(\s*)# Subtest: (\S+)')
PREFIX = re.compile(r'^\[\s*\d+\.\d+\]\s?')


@dataclass
class Splat:
	kind: str
	case: str		# suite.case[.param], or "boot" before the suite
	lines: List[str] = field(default_factory=list)

	def summary(self) -> str:
		first = next((l for l in self.lines if _kind(l) == self.kind), self.lines[0])
		return f'{self.kind} in {self.case}: {PREFIX.sub("", first).strip()}'

	def settle(self) -> None:
		"""Name the report by its most specific line: a generic WARNING
		from lib/debugobjects.c is an ODEBUG report, say."""
		ranks = [r for r in (_rank(l) for l in self.lines) if r is not None]
		self.kind = KINDS[min(ranks)][0]


def _rank(line: str) -> Optional[int]:
	for rank, (_, pattern) in enumerate(KINDS):
		if pattern.search(line):
			return rank
	return None


def _kind(line: str) -> Optional[str]:
	rank = _rank(line)
	return None if rank is None else KINDS[rank][0]


def find(console: str, max_lines: int = 40) -> List[Splat]:
	"""Every report in @console; those before the first KTAP line are "boot"."""
	splats: List[Splat] = []
	pending: List[Splat] = []	# reports waiting for their case's result line
	stack: List[tuple] = []		# (indent, subtest name)
	in_suite = False
	current: Optional[Splat] = None
	for raw in console.splitlines():
		line = PREFIX.sub('', raw)
		if line.startswith('KTAP version') or line.startswith('TAP version'):
			in_suite = True
		if current is not None:
			current.lines.append(raw)
			if END.search(line) and len(current.lines) > 1 or len(current.lines) >= max_lines:
				current = None
			continue
		kind = _kind(line)
		if kind:
			current = Splat(kind, 'suite' if in_suite else 'boot', [raw])
			splats.append(current)
			if in_suite:
				pending.append(current)
			continue
		match = SUBTEST.match(line)
		if match:
			indent = len(match.group(1))
			stack = [s for s in stack if s[0] < indent] + [(indent, match.group(2))]
			continue
		match = RESULT.match(line)
		if match and pending:
			indent = len(match.group(1))
			# A subtest's header is as indented as its own results.
			names = [n for i, n in stack if i <= indent] + [match.group(2)]
			for splat in pending:
				splat.case = '.'.join(names)
			pending = []
	# No result line followed (the kernel hung or died): name the subtest
	# that was running.
	running = '.'.join(n for _, n in stack)
	for splat in pending:
		splat.case = f'{running} (unfinished)' if running else 'suite'
	for splat in splats:
		splat.settle()
	return splats


def in_suite(splats: List[Splat]) -> List[Splat]:
	return [s for s in splats if s.case != 'boot']
