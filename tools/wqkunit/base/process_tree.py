# SPDX-License-Identifier: GPL-2.0
"""Running kunit.py, make or QEMU as a child whose whole process tree
ends with us: on Ctrl-C or SIGTERM nothing goes on writing to a build
directory whose lock we are about to give up.  Short commands whose
output we keep run through short_commands.py instead."""

import contextlib
import os
import signal
import subprocess
import time
from typing import Callable, List, Optional, Set

# Seconds an interrupted kunit.py, make or QEMU has to end on SIGTERM.
GRACE = 10
# Seconds what is left of it then has to be gone on SIGKILL: longer only
# for a zombie, which writes nothing, left to an init slow to reap it.
DYING = 1.0

# The children run_tree() is running, in whichever thread.
_RUNNING: Set[subprocess.Popen] = set()


def run_tree(cmd: List[str], on_line: Optional[Callable[[str], None]] = None,
	     **kwargs) -> int:
	"""Run @cmd and return its exit status; with @on_line, its output
	goes through us line by line, to the file @kwargs['stdout'] and to
	@on_line, as the command writes it.

	@cmd starts a session, and so a process group, of its own, which
	everything it starts stays in: kunit.py, make and its compilers,
	QEMU.  If we are interrupted meanwhile, that group ends first:
	nothing may go on writing to a build directory whose lock we are
	about to give up.  It gets SIGTERM, so that make deletes the target
	it was writing; what is left after GRACE seconds gets SIGKILL.
	Having no terminal, the group reads /dev/null unless @kwargs give
	it another stdin."""
	sink = kwargs.pop('stdout', None) if on_line else None
	if on_line:
		kwargs.update(stdout=subprocess.PIPE, text=True, encoding='utf-8',
			      errors='replace')
	kwargs.setdefault('stdin', subprocess.DEVNULL)
	with subprocess.Popen(cmd, start_new_session=True, **kwargs) as child:
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
	"""End the process group of every child run_tree() is running, in
	any thread: a signal reaches the main thread only, and the threads
	waiting on their children must not outlive it."""
	for child in list(_RUNNING):
		_end_tree(child)


def _end_tree(child: subprocess.Popen) -> None:
	"""SIGTERM to @child's group, SIGKILL to what is left of it after
	GRACE seconds; back once the group is gone, or DYING seconds later."""
	_signal(child.pid, signal.SIGTERM)
	deadline = time.monotonic() + GRACE
	with contextlib.suppress(subprocess.TimeoutExpired):
		child.wait(timeout=GRACE)
	_wait_for(child.pid, deadline)
	_signal(child.pid, signal.SIGKILL)
	child.wait()
	_wait_for(child.pid, time.monotonic() + DYING)


def _wait_for(group: int, deadline: float) -> None:
	"""Until process group @group has no process left, or @deadline."""
	while time.monotonic() < deadline and _signal(group, 0):
		time.sleep(0.05)


def _signal(group: int, sig: int) -> bool:
	"""Send @sig to process group @group; False if it has no process."""
	try:
		os.killpg(group, sig)
	except ProcessLookupError:
		return False
	return True
