# SPDX-License-Identifier: GPL-2.0
"""The placement report: boot a build with CONFIG_WQ_PLACEMENT_REPORT (the
series' kernel/tests/workqueue_placement_report.c, which asserts nothing
and runs at boot with wq_unbound_cpumask whole, on the LITTLE CPUs and on
the big ones) in each power-efficient mode, and turn its
"workqueue_placement:" lines into a Markdown table and an SVG plot."""

from dataclasses import dataclass, field
import os
import re
from typing import Dict, List, Tuple

from . import boots

MODES = (0, 1)
MASKS = ('full', 'little', 'big')
KCONFIG = ('CONFIG_WQ_PLACEMENT_REPORT=y',)
# What each run of a pattern is, in the order the plot shows them.
SERIES = [('system_wq', 'periodic'), ('system_power_efficient_wq', 'periodic'),
	  ('system_wq', 'kfence'), ('system_power_efficient_wq', 'kfence')]
# Fewer runs than this cannot tell pinned work from spread work.
FEW = 5
LINE = re.compile(r'workqueue_placement: (.*)')


def configurations() -> List[boots.Boot]:
	"""One boot per power-efficient mode, of the build with the report;
	of the KUnit suites only the shortest runs, so that kunit.py sees a
	complete run once the report is done."""
	return [boots.Boot(name=f'report-pe{mode}',
			   description=f'placement report, power_efficient={mode}',
			   kernel_args=[f'workqueue.power_efficient={mode}',
					'kunit.filter_glob=workqueue_cleanup'],
			   kernels=None, kconfig=KCONFIG)
		for mode in MODES]


def cpulist(text: str) -> List[int]:
	"""The CPUs of a %*pbl list such as 0-3,6."""
	cpus = []
	for part in filter(None, text.split(',')):
		low, _, high = part.partition('-')
		cpus += range(int(low), int(high or low) + 1)
	return cpus


@dataclass
class Run:
	wq: str
	pattern: str
	runs: int
	ms: int
	woke: int
	per_cpu: Dict[int, int]


@dataclass
class Config:
	"""What one boot of the report printed."""
	mode: int
	mask: str
	unbound: List[int]
	start: int
	busy: int
	little: List[int]
	big: List[int]
	idle_counts: bool			# the kernel counts idle entries (NO_HZ_COMMON)
	runs: List[Run] = field(default_factory=list)

	def run(self, wq: str, pattern: str) -> Run:
		found = [r for r in self.runs if (r.wq, r.pattern) == (wq, pattern)]
		if not found:
			raise ValueError(f'no {pattern} run on {wq}')
		return found[0]


def parse(console: str) -> List[Config]:
	"""The report of one boot, from its console: a Config per mask it
	ran with, in the order it ran them."""
	fields: Dict[str, Dict[str, str]] = {}
	runs: Dict[str, List[Run]] = {}
	for text in LINE.findall(console):
		pairs = dict(p.split('=', 1) for p in text.split() if '=' in p)
		mask = pairs.get('mask', '')
		if 'wq' in pairs:
			per_cpu = {int(k[3:]): int(v) for k, v in pairs.items() if re.match(r'cpu\d+$', k)}
			runs.setdefault(mask, []).append(
				Run(pairs['wq'], pairs['pattern'], int(pairs['runs']), int(pairs['ms']),
				    int(pairs['woke']), per_cpu))
		elif 'unbound' in pairs:
			fields[mask] = pairs
	try:
		configs = [Config(int(f['power_efficient']), mask, cpulist(f['unbound']),
				  int(f['start']), int(f['busy']), cpulist(f['little']),
				  cpulist(f['big']), f['idle_counts'] == 'yes', runs.get(mask, []))
			   for mask, f in fields.items()]
	except (KeyError, ValueError) as e:
		raise ValueError(f'no complete report in the console ({e})') from None
	if not configs or any(len(c.runs) != len(SERIES) for c in configs):
		raise ValueError('no complete report in the console')
	return configs


def _row(config: Config, run: Run) -> str:
	little = sum(n for c, n in run.per_cpu.items() if c in config.little)
	big = sum(n for c, n in run.per_cpu.items() if c in config.big)
	per_cpu = ', '.join(f'{c}: {n}' for c, n in sorted(run.per_cpu.items()))
	few = ' (too few runs to tell)' if run.runs < FEW else ''
	return (f'| {run.wq} | {run.pattern} | {run.runs} in {run.ms} ms | {per_cpu} | '
		f'{len(run.per_cpu)}{few} | {little} / {big} | {_woke(config, run)} |')


def _woke(config: Config, run: Run) -> str:
	"""Runs that found their CPU back from idle, and per second."""
	if not config.idle_counts:
		return 'n/a (no NO_HZ_COMMON)'
	return f'{run.woke} ({run.woke * 1000 / run.ms if run.ms else 0.0:.1f}/s)'


def markdown(results: Dict[str, List[Config]]) -> str:
	"""A summary of KFENCE's work, then a table per kernel and configuration."""
	out = ['Runs of KFENCE-like work (a normal timer every 100 ms) on '
	       'system_power_efficient_wq that found their CPU back from idle, per second, '
	       'full mask, queued from a LITTLE CPU while a big one is busy:', '',
	       '| kernel | mode off | mode on |', '|---|---|---|']
	for version, configs in results.items():
		cells = []
		for mode in MODES:
			found = [c for c in configs if c.mode == mode and c.mask == 'full']
			run = found[0].run('system_power_efficient_wq', 'kfence') if found else None
			if not run or not found[0].idle_counts or not run.ms:
				cells.append('not run' if not run else 'n/a')
				continue
			cells.append(f'{run.woke * 1000 / run.ms:.1f}/s ({run.woke} of {run.runs} runs)')
		out.append(f'| {version} | ' + ' | '.join(cells) + ' |')
	for version, configs in results.items():
		for c in configs:
			out += ['', f'**{version}, power_efficient={c.mode}, mask {c.mask} '
				f'(CPUs {_span(c.unbound)}), from CPU{c.start}, CPU{c.busy} busy** '
				f'(LITTLE {_span(c.little)}, big {_span(c.big)})', '',
				'| workqueue | pattern | runs | runs per CPU | CPUs | LITTLE / big | '
				'runs after idle |', '|---|---|---|---|---|---|---|']
			out += [_row(c, r) for r in c.runs]
	return '\n'.join(out) + '\n'


def _span(cpus: List[int]) -> str:
	return f'{cpus[0]}-{cpus[-1]}' if len(cpus) > 1 else ','.join(map(str, cpus)) or 'none'


def write(results: Dict[str, List[Config]], directory: str) -> Tuple[str, str]:
	"""report.md and report.svg in @directory; their paths."""
	os.makedirs(directory, exist_ok=True)
	md, plot = os.path.join(directory, 'report.md'), os.path.join(directory, 'report.svg')
	with open(md, 'w', encoding='utf-8') as f:
		f.write(markdown(results))
	from . import report_plot	# which draws this module's Config
	with open(plot, 'w', encoding='utf-8') as f:
		f.write(report_plot.svg(results))
	return md, plot
