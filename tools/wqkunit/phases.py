# SPDX-License-Identifier: GPL-2.0
"""What a command says as it goes, and the wall time of each phase of it
(packages, prepare, build, boot, ...) for the gate's summary."""

import collections
import contextlib
import sys
import time
from typing import Dict, Iterator


def say(msg: str) -> None:
	# One write, line and newline together: boots run in threads.
	sys.stdout.write(f'wq-kunit: {msg}\n')
	sys.stdout.flush()


# Wall seconds per phase of this invocation, and how often each ran.
PHASES: Dict[str, float] = collections.defaultdict(float)
PHASE_RUNS: collections.Counter = collections.Counter()


@contextlib.contextmanager
def phase(name: str) -> Iterator[None]:
	start = time.monotonic()
	try:
		yield
	finally:
		PHASES[name] += time.monotonic() - start
		PHASE_RUNS[name] += 1
