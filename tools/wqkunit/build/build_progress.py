# SPDX-License-Identifier: GPL-2.0
"""Progress of a long build: kunit.py build shows nothing for minutes, so
count the objects make has written so far.  kunit.py sends make's output,
the lines that name each object, to /dev/null: the count is of the
objects in the build directory newer than the build.  On a terminal one
line updates in place; elsewhere (CI) a plain line comes every PERIOD s."""

import contextlib
import os
import sys
import threading
import time
from typing import Callable, Iterator, Optional

PERIOD = 30.0
TTY_PERIOD = 2.0


def objects_since(build_dir: str, since: float) -> int:
	"""Object files under @build_dir written at or after @since."""
	count = 0
	for folder, _, names in os.walk(build_dir):
		for name in names:
			if name.endswith('.o'):
				with contextlib.suppress(OSError):
					count += os.stat(os.path.join(folder, name)).st_mtime >= since
	return count


@contextlib.contextmanager
def shown(what: str, build_dir: str, say: Callable[[str], None],
	  tty: Optional[bool] = None, record: Optional[str] = None) -> Iterator[None]:
	"""While the body runs, say how many objects it compiled so far; with
	@record, a file, "N of M", M the count it holds, and if the body
	ends without an exception, the count it compiled written there."""
	tty = sys.stdout.isatty() if tty is None else tty
	period = TTY_PERIOD if tty else PERIOD
	start = time.time()
	done = threading.Event()
	total = ''
	if record:
		with contextlib.suppress(OSError, ValueError), open(record, encoding='utf-8') as f:
			total = f' of {int(f.read())}'

	def report() -> None:
		while not done.wait(period):
			text = f'{what}: {objects_since(build_dir, start)}{total} objects ' \
				f'compiled, {time.time() - start:.0f} s'
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
	if record:
		with open(record, 'w', encoding='utf-8') as f:
			f.write(f'{objects_since(build_dir, start)}\n')
