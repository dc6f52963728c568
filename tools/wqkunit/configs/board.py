# SPDX-License-Identifier: GPL-2.0
"""Whether the guest is the board the tools booted.  The suite prints the
topology the kernel sees ("workqueue_topology: topology: cpuN online
capacity C ...") and asserts nothing about it: which board it runs on is
the tools' business, not the kernel's."""

import re
from typing import Dict, List, Optional

BIG_LITTLE = 'biglittle'
HOMOGENEOUS = 'homogeneous'
BOARDS = (BIG_LITTLE, HOMOGENEOUS)
FULL = 1024	# SCHED_CAPACITY_SCALE: a big CPU, or any CPU of a homogeneous board

# How a boot error from this check starts, and the "Caught by:" of a mutant
# that only the board check can see (the guest lost CPUs, say).
PREFIX = 'board check: '
CAUGHT_BY = 'board'

_LINE = re.compile(r'topology: cpu(\d+) (online|offline) capacity (\d+)')
_NODE = re.compile(r'topology: cpu(\d+) .* node (-?\d+) shares cache')


def topology(console: str) -> Dict[int, tuple]:
	"""CPU -> (online, capacity) as the suite printed them, if it did."""
	return {int(cpu): (state == 'online', int(cap))
		for cpu, state, cap in _LINE.findall(console)}


# Why a boot of the whole suite cannot be checked: a boot error.
NOT_PRINTED = 'no topology lines on the console: the workqueue_topology suite did not run'


def nodes(console: str) -> Dict[int, int]:
	"""CPU -> NUMA node as the suite printed them (not before it did)."""
	return {int(cpu): int(node) for cpu, node in _NODE.findall(console)}


def _check_nodes(console: str, cpus: int, numa: int) -> Optional[str]:
	"""Why the CPUs' nodes are not the board's: one node, or with @numa
	its halves in nodes 0 and 1."""
	seen = nodes(console)
	if not seen:
		return f'no NUMA nodes printed, the board has {numa}' if numa else None
	want = {cpu: (cpu * numa // cpus if numa else 0) for cpu in range(cpus)}
	got = {cpu: seen.get(cpu) for cpu in range(cpus)}
	if got != want:
		return (f'the guest\'s CPUs are in NUMA nodes {[got[c] for c in range(cpus)]}, '
			f'the board\'s in {[want[c] for c in range(cpus)]}')
	return None


def check(console: str, cpus: int, board: str = BIG_LITTLE,
	  filtered: bool = False, numa: int = 0,
	  up: Optional[List[int]] = None) -> Optional[str]:
	"""Why the guest of @console is not @board with @cpus possible CPUs,
	@up of them online (default: all), in @numa NUMA nodes (else one),
	or None if it is.  Fails closed: no topology lines is a reason,
	unless the run was @filtered to some suites."""
	seen = topology(console)
	if not seen:
		return None if filtered else NOT_PRINTED
	want = list(range(cpus)) if up is None else up
	online = sorted(cpu for cpu, (on, _) in seen.items() if on)
	if online != want or sorted(seen) != list(range(cpus)):
		return (f'the guest has CPUs {",".join(map(str, online))} online of '
			f'{len(seen)}, the board {",".join(map(str, want))} of {cpus}')
	caps = [seen[cpu][1] for cpu in range(cpus)]
	little = cpus // 2 if board == BIG_LITTLE else 0
	want_little = caps[0] if little else FULL
	if any(c != want_little for c in caps[:little]) or any(c != FULL for c in caps[little:]) \
	   or (little and want_little >= FULL):
		shape = f'{little} LITTLE CPUs then {cpus - little} big' if little else \
			f'{cpus} CPUs of one capacity'
		return f'the guest is not the {board} board ({shape}): capacities {caps}'
	return _check_nodes(console, cpus, numa)
