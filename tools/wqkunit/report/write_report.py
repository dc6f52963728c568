# SPDX-License-Identifier: GPL-2.0
"""The placement report's files: report.md (placement_report.markdown())
and its figures (figures.draw()), in one directory."""

import os
from typing import Dict, List

from . import figures, placement_report


def write(results: Dict[str, List[placement_report.Config]], directory: str) -> List[str]:
	"""report.md and the figures (figures.py) in @directory; their paths."""
	os.makedirs(directory, exist_ok=True)
	md = os.path.join(directory, 'report.md')
	with open(md, 'w', encoding='utf-8') as f:
		f.write(placement_report.markdown(results))
	return [md] + figures.draw(results, directory)
