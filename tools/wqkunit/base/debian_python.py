# SPDX-License-Identifier: GPL-2.0
"""Scripts that import Debian's own Python packages (python3-matplotlib
for the report's figures, lava-common for LAVA's schema): the tools' own
Python may not see them, so these run under Debian's /usr/bin/python3."""

import os
import subprocess
from typing import List

from .errors import WqKunitError

PYTHON = '/usr/bin/python3'


def run(script: str, args: List[str], needs: str) -> subprocess.CompletedProcess:
	"""@script with @args under Debian's Python; an error naming the
	package @needs if that Python is missing."""
	if not os.access(PYTHON, os.X_OK):
		raise WqKunitError(f'{PYTHON} is missing: {needs} needs Debian\'s python3')
	return subprocess.run([PYTHON, script, *args], capture_output=True, text=True,
			      check=False)


def has(module: str) -> bool:
	"""Whether Debian's Python can import @module."""
	return os.access(PYTHON, os.X_OK) and subprocess.run(
		[PYTHON, '-c', f'import {module}'], capture_output=True, check=False).returncode == 0
