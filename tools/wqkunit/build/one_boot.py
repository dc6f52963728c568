# SPDX-License-Identifier: GPL-2.0
"""One boot of a built kernel and its verdict: the boot named and logged,
its console followed and parsed, judged with the host's checks, the
failure told at once and explained in the end."""

import contextlib
import os
import shutil
import time
from typing import Callable, Sequence, Tuple

from ..base.errors import WqKunitError
from ..base.messages import say
from ..base.phase_times import phase
from ..configs import arches, boot_configs, log_names
from ..configs.run_requests import BuildRequest, ExecRequest
from ..verdicts import host_checks, ktap, verdict
from ..verdicts.boot_outcomes import Boot
from . import module_boot
from .kunitpy import Kunit


def names(req: BuildRequest, ex: ExecRequest, b: boot_configs.Boot, smp: int) -> Tuple[str, str]:
	"""(label, log stem) of a boot: "6.12/arm64 [default] 4 CPUs", say,
	and "default.smp4"."""
	arch = arches.get(req.arch)
	label = f'{req.version}{" debug" if req.debug else ""} [{b.name}]'
	label += '' if smp == arch.cpus else f' {smp} CPUs'
	if req.arch != arches.DEFAULT:
		label = label.replace(req.version, f'{req.version}/{req.arch}', 1)
	other = ex.board if ex.board != arch.board else None
	if other:
		label = f'{label} {other}'
	return label, log_names.stem(b.name, smp, ex.log_prefix, other, arch.cpus)


def unbuilt(req: BuildRequest, ex: ExecRequest, b: boot_configs.Boot, smp: int,
	    error: str) -> Boot:
	"""A boot of a build that failed with @error: none, a build error."""
	label, _ = names(req, ex, b, smp)
	return Boot(b.name, label, verdict.build_failed(error, label), '', 0.0)


def boot_once(kunit: Kunit, req: BuildRequest, ex: ExecRequest, b: boot_configs.Boot,
	      smp: int, logs: str, log: Callable[[str], None] = say,
	      timed: bool = True) -> Boot:
	"""Boot what @kunit built once and judge it (verdict.boot), with the
	board and stale-kernel checks as part of the verdict; its wall time
	in the boot phase if @timed."""
	label, stem = names(req, ex, b, smp)
	console = os.path.join(logs, f'{stem}.console')
	json_path = os.path.join(logs, f'{stem}.json')
	# The label names a CPU count other than the board's already.
	log(f'booting {label} in UML' if req.arch == 'um' else
	    f'booting {label} in QEMU' if smp != arches.get(req.arch).cpus else
	    f'booting {label} with {smp} CPUs in QEMU')

	secs, error = 0.0, None
	follow = ktap.Follower(label, echo=ex.live and ex.parallel <= 1)
	with phase('boot') if timed else contextlib.nullcontext():
		try:
			initrd = module_boot.initrd(kunit, b.module) if b.module else ''
			secs = kunit.boot(b.args_for(smp) or [], ex.kunit_args, ex.timeout, console, smp,
					  on_line=follow, board=ex.board, initrd=initrd, numa=b.numa)
		except WqKunitError as e:
			error = str(e)
		if not os.path.exists(console):
			open(console, 'w', encoding='utf-8').close()	# nothing booted
		module = b.module and not error
		text, complete = kunit.parse(module_boot.parseable(console) if module else console,
					     json_path)
	with open(console, encoding='utf-8', errors='replace') as f:
		whole = f.read()
	judged = verdict.boot(whole, text, complete, error, follow.failures,
			      follow.running(), console)
	problem, host = (None, {}) if error else host_checks.problems(
		kunit.stale, req, ex, b, smp, console, whole, text, judged, log)
	if problem or host:
		judged = verdict.boot(whole, text, complete, problem, follow.failures,
				      follow.running(), console, host)
	_tell(judged, label, whole, log)
	if ex.json and text:
		dest = ex.json if len(ex.boots) == 1 else \
			f'{os.path.splitext(ex.json)[0]}.{req.version}.{b.name}.json'
		shutil.copyfile(json_path, dest)
	if not judged.passed and ex.keep_failed:
		keep = os.path.join(logs, 'failed')
		os.makedirs(keep, exist_ok=True)
		shutil.copyfile(console, os.path.join(
			keep, f'{stem}.{time.strftime("%Y%m%d-%H%M%S")}.console'))
	return Boot(b.name, label, judged, console, secs)


def _tell(judged: verdict.Verdict, label: str, whole: str,
	  log: Callable[[str], None]) -> None:
	"""Say at once why a boot failed; the end of its console @whole where
	no case is to blame."""
	for splat in judged.boot_reports:
		log(f'note: {label}: the kernel reported a problem before the suite: '
		    f'{splat.summary()}')
	for splat in judged.reports:
		log(f'FAILED {label}: kernel report during the suite: {splat.summary()}')
		print('\n'.join(splat.lines), flush=True)
	if judged.errors or judged.incomplete:
		log(f'{label}: {judged.kind}; the console ({judged.console}) ends with:')
		print('\n'.join(whole.splitlines()[-20:]), flush=True)


def explain(done: Sequence[Boot], log: Callable[[str], None] = say) -> None:
	"""For every failed boot of @done: its verdict, each failing case with
	the lines KUnit printed for it, and the path of its console."""
	failed = [b for b in done if not b.judged.passed]
	if failed:
		log(f'{len(failed)} of {len(done)} boots failed:')
	for b in failed:
		print(f'  {b.label}: ' + '\n    '.join(b.judged.explain()), flush=True)
