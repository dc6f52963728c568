# SPDX-License-Identifier: GPL-2.0
"""Progress of a long build: kunit.py build shows nothing for minutes, so
count the objects make has written so far.  On a terminal one line
updates in place; elsewhere (CI) a plain line comes every PERIOD s."""

import contextlib
import os
import sys
import threading
import time
from typing import Callable, Iterator

PERIOD = 30.0
TTY_PERIOD = 2.0


def objects_since(build_dir: str, since: float) -> int:
	"""Object files under @build_dir written at or after @since."""
	count = 0
	stack = [build_dir]
	while stack:
		try:
			with os.scandir(stack.pop()) as entries:
				for e in entries:
					if e.is_dir(follow_symlinks=False):
						stack.append(e.path)
					elif e.name.endswith('.o'):
						with contextlib.suppress(OSError):
							count += e.stat().st_mtime >= since
		except OSError:
			continue
	return count


@contextlib.contextmanager
def shown(what: str, build_dir: str, say: Callable[[str], None],
	  tty: bool = None) -> Iterator[None]:
	"""While the body runs, say how many objects it compiled so far."""
	tty = sys.stdout.isatty() if tty is None else tty
	period = TTY_PERIOD if tty else PERIOD
	start = time.time()
	done = threading.Event()

	def report() -> None:
		while not done.wait(period):
			text = f'{what}: {objects_since(build_dir, start)} objects compiled, ' \
				f'{time.time() - start:.0f} s'
			if tty:
				sys.stdout.write(f'\r\033[Kwq-kunit: {text}')
				sys.stdout.flush()
			else:
				say(text)
	thread = threading.Thread(target=report, daemon=True)
	thread.start()
	try:
		yield
	finally:
		done.set()
		thread.join()
		if tty:
			sys.stdout.write('\r\033[K')
			sys.stdout.flush()
