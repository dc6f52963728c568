# SPDX-License-Identifier: GPL-2.0
"""Running kunit.py, make or QEMU as a child whose whole process tree
ends with us: on Ctrl-C or SIGTERM nothing goes on writing to a build
directory whose lock we are about to give up."""

import contextlib
import os
import signal
import subprocess
import time
from typing import Callable, Dict, List, Optional, Set, Tuple

# Seconds an interrupted kunit.py, make or QEMU has to end on SIGTERM.
GRACE = 10


# The children run_tree() is running, in whichever thread.
_RUNNING: Set[subprocess.Popen] = set()

# A process: its pid and its start time, so that a pid used again by
# some other process after ours ended is never signalled.
Proc = Tuple[int, str]


def run_tree(cmd: List[str], on_line: Optional[Callable[[str], None]] = None,
	     **kwargs) -> int:
	"""Run @cmd and return its exit status; with @on_line, its output
	goes through us line by line, to the file @kwargs['stdout'] and to
	@on_line, as the command writes it.

	If we are interrupted meanwhile, the whole process tree @cmd started
	ends first (kunit.py, make and its compilers, QEMU): nothing may go on
	writing to a build directory whose lock we are about to give up.  Each
	gets SIGTERM, so that make deletes the target it was writing; what is
	left after GRACE seconds gets SIGKILL.  The tree stays in our process
	group, so that a CI job killing the group still reaches all of it."""
	sink = kwargs.pop('stdout', None) if on_line else None
	if on_line:
		kwargs.update(stdout=subprocess.PIPE, text=True, encoding='utf-8',
			      errors='replace')
	with subprocess.Popen(cmd, **kwargs) as child:
		_RUNNING.add(child)
		try:
			if on_line:
				for line in iter(child.stdout.readline, ''):
					if sink:
						sink.write(line)
						sink.flush()
					on_line(line)
			return child.wait()
		except BaseException:
			_end_tree(child)
			raise
		finally:
			_RUNNING.discard(child)


def end_all() -> None:
	"""End the process tree of every child run_tree() is running, in
	any thread: a signal reaches the main thread only, and the threads
	waiting on their children must not outlive it."""
	for child in list(_RUNNING):
		_end_tree(child)


def _end_tree(child: subprocess.Popen) -> None:
	procs = _tree(child.pid)
	_signal(procs, signal.SIGTERM)
	deadline = time.monotonic() + GRACE
	with contextlib.suppress(subprocess.TimeoutExpired):
		child.wait(timeout=GRACE)
	_wait_for(procs, deadline)
	_signal(_living(procs), signal.SIGKILL)
	child.wait()
	_wait_for(procs, time.monotonic() + GRACE)


def _wait_for(procs: List[Proc], deadline: float) -> None:
	"""Until every one of @procs has ended, or until @deadline."""
	while time.monotonic() < deadline and _living(procs):
		time.sleep(0.05)


def _stat(pid: int) -> List[str]:
	"""The fields of /proc/@pid/stat after the command name, from the
	state on; [] if there is no such process."""
	try:
		with open(f'/proc/{pid}/stat', encoding='utf-8') as f:
			return f.read().rsplit(')', 1)[1].split()
	except (OSError, IndexError):
		return []


def _tree(root: int) -> List[Proc]:
	"""@root and every process descending from it, from /proc."""
	started: Dict[int, str] = {}
	children: Dict[int, List[int]] = {}
	for entry in os.listdir('/proc'):
		fields = _stat(int(entry)) if entry.isdigit() else []
		if len(fields) > 19:
			started[int(entry)] = fields[19]
			children.setdefault(int(fields[1]), []).append(int(entry))
	tree = [root]
	for pid in tree:
		tree += children.get(pid, [])
	return [(pid, started.get(pid, '')) for pid in tree]


def _living(procs: List[Proc]) -> List[Proc]:
	"""Those of @procs still running: same start time, not a zombie."""
	living = []
	for pid, started in procs:
		fields = _stat(pid)
		if len(fields) > 19 and fields[19] == started and fields[0] != 'Z':
			living.append((pid, started))
	return living


def _signal(procs: List[Proc], sig: int) -> None:
	for pid, _ in procs:
		with contextlib.suppress(ProcessLookupError):
			os.kill(pid, sig)
