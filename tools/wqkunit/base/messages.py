# SPDX-License-Identifier: GPL-2.0
"""What a command says as it goes: one "wq-kunit: " line at a time."""

import sys


def say(msg: str) -> None:
	# One write, line and newline together: boots run in threads.
	sys.stdout.write(f'wq-kunit: {msg}\n')
	sys.stdout.flush()
