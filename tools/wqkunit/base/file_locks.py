# SPDX-License-Identifier: GPL-2.0
"""One run at a time per kernel tree and build: an flock in the cache,
shared by the boots of a build directory, exclusive for its build."""

import contextlib
import fcntl
import os
import time
from typing import Callable, Iterator

from .errors import WqKunitError


@contextlib.contextmanager
def held(path: str, say: Callable[[str], None], wait: float = 3600,
	 shared: bool = False) -> Iterator[None]:
	"""Hold a lock on @path, exclusive unless @shared; wait up to @wait
	seconds for it."""
	os.makedirs(os.path.dirname(path), exist_ok=True)
	with open(path, 'a', encoding='utf-8') as f:
		deadline = time.monotonic() + wait
		told = False
		while True:
			try:
				fcntl.flock(f, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
				break
			except BlockingIOError:
				if time.monotonic() >= deadline:
					raise WqKunitError(f'another wq-kunit run holds {path}; '
							   f'gave up after {wait:.0f} s') from None
				if not told:
					say(f'waiting for another wq-kunit run ({path})')
					told = True
				time.sleep(0.1)
		try:
			yield
		finally:
			fcntl.flock(f, fcntl.LOCK_UN)
