# SPDX-License-Identifier: GPL-2.0
"""Following a boot's KTAP output line by line, as the guest prints it.

Each result is named in full (suite.case.param), so that a hang shows
where it is; under a failing one come the lines the case logged since
the result before it, KUnit's "EXPECTATION FAILED at FILE:LINE" and
"Expected ..." among them.  Those lines are kept for the end summary.
Nothing here counts results: kunit.py's parser does (kunit_results.py).
"""

import re
from typing import Callable, Dict, List, Optional

# KTAP lines as the guest prints them, after the printk time stamp if any.
STAMP = re.compile(r'^\[\s*\d+\.\d+\] ?')
SUBTEST = re.compile(r'^( *)# Subtest: (\S+)')
RESULT = re.compile(r'^( *)((?:not )?ok) \d+ (\S+)(.*)$')
STRUCTURE = re.compile(r'^\s*(KTAP version \d+|TAP version \d+|1\.\.\d+|# \S+: pass:\d+ '
		       r'fail:\d+|# Totals: )')
# The top level of a run: its plan and its results, at the left margin.
TOP_PLAN = re.compile(r'^1\.\.(\d+)\s*$')
TOP_RESULT = re.compile(r'^(?:not )?ok (\d+)\b')
# "# case: ..." as KUnit prefixes what a case logs.
LOGGED_BY = re.compile(r'^\s*# (\w+): ')
# Lines kept of what one failing case logged: the last ones, where its
# assertion is.
KEEP = 40


class Follower:
	"""Feed it every console line (it is kunitpy's on_line); with @echo,
	it prints each result and a failing one's log lines through @out."""

	def __init__(self, label: str, echo: bool = True,
		     out: Callable[[str], None] = lambda s: print(s, flush=True)) -> None:
		self.label = label
		self.echo = echo
		self.out = out
		self.subtests: Dict[int, str] = {}
		self.logged: List[str] = []
		# Failing result (suite.case[.param]) -> the lines it logged.
		self.failures: Dict[str, List[str]] = {}
		self.last_result: Optional[str] = None
		self.started = False

	def __call__(self, line: str) -> None:
		line = STAMP.sub('', line.rstrip('\r\n'))
		match = SUBTEST.match(line)
		if match:
			depth = len(match.group(1))
			self.subtests = {d: n for d, n in self.subtests.items() if d < depth}
			self.subtests[depth] = match.group(2)
			self.logged = []
			self.started = True
			return
		match = RESULT.match(line)
		if match:
			self._result(len(match.group(1)), match.group(2), match.group(3),
				     match.group(4))
			return
		if self.started and line.strip() and not STRUCTURE.match(line):
			self.logged.append(line)

	def _result(self, depth: int, status: str, name: str, rest: str) -> None:
		full = '.'.join([n for d, n in sorted(self.subtests.items()) if d <= depth]
				+ [name])
		if self.echo:
			self.out(f'  {self.label} {status} {full}{rest}')
		if status == 'not ok' and not self._has_failed_part(full):
			lines = diagnostics(self.logged)
			self.failures[full] = lines
			if self.echo:
				for text in lines:
					self.out(f'      {text}')
		self.logged = []
		self.last_result = full

	def _has_failed_part(self, full: str) -> bool:
		"""A suite or a parameterized case fails because a part of it did:
		its lines were shown with that part."""
		return any(f.startswith(full + '.') for f in self.failures)

	def running(self) -> Optional[str]:
		"""Where a boot that ended without its last result stopped: the
		case that logged last, else the one after the last result."""
		for line in reversed(self.logged):
			match = LOGGED_BY.match(line)
			if match:
				suite = [n for _, n in sorted(self.subtests.items())]
				return '.'.join(suite[:1] + [match.group(1)])
		if self.last_result:
			return f'after {self.last_result}'
		return None


def diagnostics(logged: List[str]) -> List[str]:
	"""What a failing case logged, dedented, from its first failed
	expectation or assertion on (else its last KEEP lines)."""
	first = next((i for i, l in enumerate(logged)
		      if re.search(r'(EXPECTATION|ASSERTION) FAILED at ', l)), None)
	lines = logged[first:] if first is not None else logged
	lines = lines[-KEEP:]
	indent = min((len(l) - len(l.lstrip()) for l in lines if l.strip()), default=0)
	return [l[indent:] if l[:indent].isspace() else l.lstrip() for l in lines]


def finished(console: str) -> bool:
	"""Whether the KTAP run on @console got to its end: its top-level
	plan ("1..N", the last one) is followed by its result numbered N.
	What that run reported, and whether a case of it crashed, is for
	kunit.py's JSON to say."""
	planned, last = None, None
	for line in console.splitlines():
		line = STAMP.sub('', line)
		plan = TOP_PLAN.match(line)
		result = TOP_RESULT.match(line)
		if plan:
			planned, last = int(plan.group(1)), None
		elif result and planned is not None:
			last = int(result.group(1))
	return planned is not None and last == planned
