# SPDX-License-Identifier: GPL-2.0
"""The placement report's files: report.md (report.markdown()) and its
figures (report_plot.draw()), in one directory."""

import os
from typing import Dict, List

from . import report, report_plot


def write(results: Dict[str, List[report.Config]], directory: str) -> List[str]:
	"""report.md and the figures (report_plot) in @directory; their paths."""
	os.makedirs(directory, exist_ok=True)
	md = os.path.join(directory, 'report.md')
	with open(md, 'w', encoding='utf-8') as f:
		f.write(report.markdown(results))
	return [md] + report_plot.draw(results, directory)
