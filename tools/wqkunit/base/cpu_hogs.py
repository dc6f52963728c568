# SPDX-License-Identifier: GPL-2.0
"""A CPU-hogging load on the host, one busy process per core."""

import contextlib
import os
import subprocess
import sys
from typing import Iterator


@contextlib.contextmanager
def hogs(on: bool) -> Iterator[int]:
	"""While inside, keep every host core busy if @on; yield how many hogs."""
	procs = []
	if on:
		for _ in range(os.cpu_count() or 1):
			procs.append(subprocess.Popen([sys.executable, '-c', 'while True: pass'],
						      stdin=subprocess.DEVNULL))
	try:
		yield len(procs)
	finally:
		for proc in procs:
			proc.kill()
		for proc in procs:
			proc.wait()
