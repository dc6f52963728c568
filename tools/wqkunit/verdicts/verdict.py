# SPDX-License-Identifier: GPL-2.0
"""One boot's verdict: the one place that says whether a boot passed and,
if not, why, for run, check, soak, mutate, bench, report and alltests.

A verdict is of one kind, the first of these that applies:
  build error      the kernel did not build (no boot);
  boot error       QEMU or kunit.py failed, no result at all, the guest was
                   not the board asked for, or it ran another kernel;
  crashed or hung  the run stopped in the middle (the console lacks its
                   last result, or kunit.py saw results missing), in
                   the case named;
  kernel report    a WARNING, BUG, lockdep or ODEBUG report while a case ran;
  case failed      a case failed an expectation or an assertion, or a check
                   the host makes of what it printed (host_checks.py);
  passed.
"""

from dataclasses import dataclass, field
from typing import Dict, List, Optional

from . import kunit_results, splats

PASSED = 'passed'
CASE_FAILED = 'case failed'
KERNEL_REPORT = 'kernel report'
CRASHED = 'crashed or hung'
BOOT_ERROR = 'boot error'
BUILD_ERROR = 'build error'

NO_RESULTS = 'no KUnit results (the kernel never reached the suite, or it ran no case)'
INCOMPLETE = 'incomplete run (crash or hang)'
# Lines of a failing case's log repeated in the end summary (all of them
# were shown as the case failed).
SUMMARY_LINES = 12


@dataclass
class Verdict:
	counts: kunit_results.Counts
	ran: int				# results reported, kunit.py's count
	incomplete: bool			# the run stopped before its end
	reports: List[splats.Splat] = field(default_factory=list)	# during the suite
	boot_reports: List[splats.Splat] = field(default_factory=list)	# before it
	# Why the boot failed without a case to blame: kunit.py or QEMU
	# failed, the board or kernel check failed, or no result at all.
	errors: List[str] = field(default_factory=list)
	# Each case that failed an expectation -> the lines it logged.
	diagnostics: Dict[str, List[str]] = field(default_factory=dict)
	stopped_in: Optional[str] = None	# where a crashed or hung run was
	build_error: Optional[str] = None
	console: str = ''

	@property
	def passed(self) -> bool:
		return self.counts.failed == 0

	@property
	def kind(self) -> str:
		if self.build_error:
			return BUILD_ERROR
		if self.errors:
			return BOOT_ERROR
		if self.incomplete:
			return CRASHED
		if self.reports:
			return KERNEL_REPORT
		if self.failed_expectations:
			return CASE_FAILED
		return PASSED if self.passed else CASE_FAILED

	@property
	def failed_expectations(self) -> List[str]:
		"""The results whose case failed an expectation (status FAIL)
		and is not a suite or case failing for a part of it."""
		names = [n for n, s in self.counts.statuses.items() if s == 'FAIL']
		names = [n for n in names if not any(o.startswith(n + '.') for o in names)]
		# In the order the guest ran them, as the console showed them.
		order = {n: i for i, n in enumerate(self.diagnostics)}
		return sorted(names, key=lambda n: order.get(n, len(order)))

	@property
	def failed_cases(self) -> List[str]:
		"""The failures a case is named in: "suite.case[.param] (STATUS)",
		kernel reports as "(KIND report)"."""
		return [f for f in self.counts.failures if f not in self.errors]

	def explain(self) -> List[str]:
		"""Why the boot failed, a few lines a person can act on."""
		if self.passed:
			return []
		lines = [f'verdict: {self.kind}']
		if self.build_error:
			lines.append(f'  {self.build_error}')
		lines += [f'  {e}' for e in self.errors]
		if self.incomplete or any(s == 'ERROR' for s in self.counts.statuses.values()):
			lines.append(f'  the run stopped {_where(self.stopped_in)}')
		for splat in self.reports:
			lines.append(f'  {splat.summary()}')
		for name in self.failed_expectations:
			lines.append(f'  not ok {name}')
			logged = self.diagnostics.get(name, [])
			lines += [f'      {l}' for l in logged[:SUMMARY_LINES]]
			if len(logged) > SUMMARY_LINES:
				lines.append(f'      ... {len(logged) - SUMMARY_LINES} more lines '
					     f'in the console')
		if self.console:
			lines.append(f'  console: {self.console}')
		return lines


def _where(stopped_in: Optional[str]) -> str:
	if not stopped_in:
		return 'before the first result'
	return stopped_in if stopped_in.startswith('after ') else f'in {stopped_in}'


def boot(console_text: str, json_text: Optional[str], complete: bool,
	 error: Optional[str] = None, diagnostics: Optional[Dict[str, List[str]]] = None,
	 stopped_in: Optional[str] = None, console: str = '',
	 host: Optional[Dict[str, List[str]]] = None) -> Verdict:
	"""A boot fails for a failed case, for every kernel report made while
	the suite ran, and, with no case to blame, for @error (kunit.py exec
	or QEMU failed, the board or kernel check), for no result at all, or
	for a run that stopped before its end (a crash, a hang, the timeout):
	one that is not @complete (ktap.finished()), or in which kunit.py
	found a case cut short (ERROR)."""
	counts = kunit_results.count(json_text) if json_text else kunit_results.Counts()
	ran = counts.total()
	diagnostics = dict(diagnostics or {})
	if host:
		_fail_for_host(counts, kunit_results.statuses(json_text) if json_text else {}, host,
			       diagnostics)
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
	crashed = any(s == 'ERROR' for s in counts.statuses.values())
	incomplete = not errors and (crashed or (not complete and not counts.failed))
	if incomplete and not crashed:
		counts.failed += 1
		counts.failures.append(INCOMPLETE)
	counts.failed += len(errors)
	counts.failures += errors
	return Verdict(counts, ran, incomplete, during, [s for s in found if s not in during],
		       errors, diagnostics, stopped_in, None, console)


def _fail_for_host(counts: kunit_results.Counts, seen: Dict[str, str],
		   host: Dict[str, List[str]], diagnostics: Dict[str, List[str]]) -> None:
	"""Count each case of @host, which the host's checks failed (its
	lines say why), as failing an expectation, whatever kunit.py said of
	it (@seen): a case the guest passed or skipped is moved to the
	failed ones, one it never reported added to them."""
	for name, why in host.items():
		diagnostics[name] = diagnostics.get(name, []) + why
		if seen.get(name) in ('FAIL', 'ERROR') or name in counts.statuses:
			continue
		if seen.get(name) == 'PASS':
			counts.passed -= 1
		elif seen.get(name) == 'SKIP':
			counts.skipped -= 1
		counts.failed += 1
		counts.failures.append(f'{name} (FAIL, host check)')
		counts.statuses[name] = 'FAIL'


def build_failed(error: str, label: str = '') -> Verdict:
	"""The verdict of a build that failed: no boot."""
	counts = kunit_results.Counts(failed=1, failures=[f'{label} build error'.strip()])
	return Verdict(counts, 0, False, build_error=error)
