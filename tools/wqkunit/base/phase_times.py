# SPDX-License-Identifier: GPL-2.0
"""The wall time of each phase of a command (packages, prepare, build,
boot, ...) and how often each ran, for the gate's summary."""

import collections
import contextlib
import time
from typing import Dict, Iterator


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
