# SPDX-License-Identifier: GPL-2.0
"""Makes `python3 -m unittest` from the repository root find the tools'
tests (tools/tests), which import the tools as `wqkunit` and their
helpers as `tests`, as `python3 -m unittest discover -s tools` does."""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
	sys.path.insert(0, _HERE)
