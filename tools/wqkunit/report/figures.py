# SPDX-License-Identifier: GPL-2.0
"""The placement report's figures: what to draw, as JSON, handed to
report_figure.py, which draws it with Debian's python3-matplotlib
(debian_python)."""

import json
import os
from typing import Dict, List

from ..base import debian_python
from ..base.errors import WqKunitError
from . import placement_report

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'report_figure.py')
PACKAGE = 'python3-matplotlib'
# What report_figure.py writes in the output directory.
FIGURES = ('report.png', 'report.svg', 'report-detail.png', 'report-detail.svg')
MODES = {0: 'off', 1: 'on'}


def _headline(results: Dict[str, List[placement_report.Config]]) -> List[dict]:
	"""A panel per pattern and kernel: wake-ups per second of the LITTLE and
	of the big CPUs, per window, with the mode off and on."""
	panels = []
	for pattern, what in placement_report.PATTERNS.items():
		for version, configs in results.items():
			full = {c.mode: c for c in configs if c.mask == 'full'}
			kinds = placement_report.headline(configs).get(pattern, {})
			groups = []
			for kind, modes in kinds.items():
				cpus = next(getattr(c, kind.lower()) for c in full.values())
				off, on = modes.get(0), modes.get(1)
				groups.append({'label': f'{kind} CPUs {placement_report.span(cpus)}',
					       'off': off.values if off else [],
					       'on': on.values if on else [],
					       'verdict': placement_report.verdict(off, on) if off and on else ''})
			panels.append({'title': f'{version}: {what}', 'groups': groups})
	return panels


def _detail(results: Dict[str, List[placement_report.Config]]) -> List[dict]:
	"""A panel per kernel, mode and mask: runs per second on each CPU, mean
	over the windows, of each workqueue and pattern."""
	panels = []
	for version, configs in results.items():
		for c in sorted(configs, key=lambda c: (c.mode, placement_report.MASKS.index(c.mask))):
			cpus = sorted(set(c.little) | set(c.big) | set(c.unbound))
			series = []
			for wq, pattern in placement_report.SERIES:
				total = c.run(wq, pattern)
				seconds = total.ms / 1000
				series.append({'label': f'{wq}, {pattern}',
					       'values': [total.per_cpu.get(cpu, 0) / seconds if seconds else 0
							  for cpu in cpus]})
			panels.append({'title': f'{version}, mode {MODES[c.mode]}, mask {c.mask} '
					f'(CPUs {placement_report.span(c.unbound)})',
				       'row': f'{version}, mode {MODES[c.mode]}', 'mask': c.mask,
				       'cpus': cpus, 'little': c.little, 'inside': c.unbound,
				       'start': c.start, 'busy': c.busy, 'series': series})
	return panels


def spec(results: Dict[str, List[placement_report.Config]]) -> dict:
	"""Everything report_figure.py draws, as plain data."""
	windows = max((c.windows for cs in results.values() for c in cs), default=1)
	return {'windows': windows, 'noise': placement_report.NOISE, 'wq': placement_report.HEADLINE_WQ,
		'headline': _headline(results), 'detail': _detail(results)}


def draw(results: Dict[str, List[placement_report.Config]], directory: str) -> List[str]:
	"""The figures of @results in @directory; their paths."""
	os.makedirs(directory, exist_ok=True)
	data = os.path.join(directory, 'report.json')
	with open(data, 'w', encoding='utf-8') as f:
		json.dump(spec(results), f, indent=1)
	proc = debian_python.run(SCRIPT, [data, directory], PACKAGE)
	if proc.returncode:
		lines = (proc.stderr or proc.stdout).strip().splitlines()
		raise WqKunitError(f'drawing the figures failed: {lines[-1] if lines else proc.returncode}')
	return [os.path.join(directory, name) for name in FIGURES]
