# SPDX-License-Identifier: GPL-2.0
"""How the logs of one boot are named in the cache's logs/LABEL/: one
function for the runner, which writes them, and for the claims table and
its gate record, which read them."""

from typing import Optional

# The CPU count of a boot whose logs are named after its configuration alone.
DEFAULT_CPUS = 8


def stem(boot: str, cpus: int = DEFAULT_CPUS, prefix: str = '',
	 board: Optional[str] = None, default: int = DEFAULT_CPUS) -> str:
	"""The name, without .console or .json, of the logs of boot
	configuration @boot booted with @cpus CPUs: @prefix, @boot, ".smpN"
	for a CPU count other than the architecture's @default, and ".BOARD"
	when @board is given (a board other than the architecture's own)."""
	name = prefix + (boot if cpus == default else f'{boot}.smp{cpus}')
	return f'{name}.{board}' if board else name
