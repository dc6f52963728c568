# SPDX-License-Identifier: GPL-2.0
"""The placement report: boot a build with CONFIG_WQ_PLACEMENT_REPORT (the
series' kernel/tests/workqueue_placement_report.c, which asserts nothing
and runs at boot with wq_unbound_cpumask whole, on the LITTLE CPUs and on
the big ones) in each power-efficient mode, and turn its
"workqueue_placement:" lines, several windows of each run, into Markdown
tables and figures: wake-ups per second as mean and spread over the
windows (figures.py draws them, write_report.py writes both)."""

from dataclasses import dataclass, field
import math
import re
import statistics
from typing import Dict, List

from ..configs import boot_configs

MODES = (0, 1)
MASKS = ('full', 'little', 'big')
KCONFIG = ('CONFIG_WQ_PLACEMENT_REPORT=y',)
# What each run of a pattern is, in the order the plot shows them.
SERIES = [('system_wq', 'periodic'), ('system_power_efficient_wq', 'periodic'),
	  ('system_wq', 'kfence'), ('system_power_efficient_wq', 'kfence')]
# Fewer runs than this cannot tell pinned work from spread work.
FEW = 5
# Two means differ beyond noise when they are further apart than this many
# standard errors of their difference.
NOISE = 3
LINE = re.compile(r'workqueue_placement: (.*)')


def configurations() -> List[boot_configs.Boot]:
	"""One boot per power-efficient mode, of the build with the report;
	of the KUnit suites only the shortest runs, so that kunit.py sees a
	complete run once the report is done."""
	return [boot_configs.Boot(name=f'report-pe{mode}',
			   description=f'placement report, power_efficient={mode}',
			   kernel_args=[f'workqueue.power_efficient={mode}',
					'kunit.filter_glob=workqueue_extra.leak_check_sees_every_workqueue'],
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
	"""One window of one pattern on one workqueue."""
	wq: str
	pattern: str
	runs: int
	ms: int
	woke: int
	per_cpu: Dict[int, int]			# runs per CPU
	woke_per_cpu: Dict[int, int]		# of which found the CPU back from idle
	window: int = 0


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
	windows: int = 1

	def windows_of(self, wq: str, pattern: str) -> List[Run]:
		"""Every window of @pattern on @wq, in order."""
		found = [r for r in self.runs if (r.wq, r.pattern) == (wq, pattern)]
		if not found:
			raise ValueError(f'no {pattern} run on {wq}')
		return found

	def run(self, wq: str, pattern: str) -> Run:
		"""The windows of @pattern on @wq added up."""
		found = self.windows_of(wq, pattern)
		total = Run(wq, pattern, 0, 0, 0, {}, {})
		for r in found:
			total.runs, total.ms, total.woke = total.runs + r.runs, total.ms + r.ms, \
				total.woke + r.woke
			for cpu, n in r.per_cpu.items():
				total.per_cpu[cpu] = total.per_cpu.get(cpu, 0) + n
			for cpu, n in r.woke_per_cpu.items():
				total.woke_per_cpu[cpu] = total.woke_per_cpu.get(cpu, 0) + n
		return total


@dataclass
class Spread:
	"""A rate over the windows of a run: one value per window."""
	values: List[float]

	@property
	def mean(self) -> float:
		return statistics.fmean(self.values) if self.values else 0.0

	@property
	def sd(self) -> float:
		return statistics.stdev(self.values) if len(self.values) > 1 else 0.0

	def __str__(self) -> str:
		return f'{self.mean:.1f} ± {self.sd:.1f}'


def wakeups(config: Config, wq: str, pattern: str, cpus: List[int]) -> Spread:
	"""Runs per second of @pattern on @wq that found one of @cpus back from
	idle, per window."""
	return Spread([sum(r.woke_per_cpu.get(c, 0) for c in cpus) * 1000 / r.ms
		       for r in config.windows_of(wq, pattern) if r.ms])


def beyond_noise(a: Spread, b: Spread) -> bool:
	"""Whether the means of @a and @b differ by more than NOISE standard
	errors of their difference (a single window has no spread: never)."""
	if len(a.values) < 2 or len(b.values) < 2:
		return False
	error = math.sqrt(a.sd ** 2 / len(a.values) + b.sd ** 2 / len(b.values))
	return abs(a.mean - b.mean) > NOISE * error


def parse(console: str) -> List[Config]:
	"""The report of one boot, from its console: a Config per mask it
	ran with, in the order it ran them."""
	fields: Dict[str, Dict[str, str]] = {}
	runs: Dict[str, List[Run]] = {}
	for text in LINE.findall(console):
		pairs = dict(p.split('=', 1) for p in text.split() if '=' in p)
		mask = pairs.get('mask', '')
		if 'wq' in pairs:
			cpus = {int(k[3:]): v.partition('/') for k, v in pairs.items()
				if re.match(r'cpu\d+$', k)}
			runs.setdefault(mask, []).append(
				Run(pairs['wq'], pairs['pattern'], int(pairs['runs']), int(pairs['ms']),
				    int(pairs['woke']), {c: int(v[0]) for c, v in cpus.items()},
				    {c: int(v[2] or 0) for c, v in cpus.items()},
				    int(pairs.get('window', 0))))
		elif 'unbound' in pairs:
			fields[mask] = pairs
	try:
		configs = [Config(int(f['power_efficient']), mask, cpulist(f['unbound']),
				  int(f['start']), int(f['busy']), cpulist(f['little']),
				  cpulist(f['big']), f['idle_counts'] == 'yes', runs.get(mask, []),
				  int(f.get('windows', 1)))
			   for mask, f in fields.items()]
	except (KeyError, ValueError) as e:
		raise ValueError(f'no complete report in the console ({e})') from None
	if not configs or any(len(c.runs) != len(SERIES) * c.windows for c in configs):
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


# The headline: the article's question, per kernel and pattern.
HEADLINE_WQ = 'system_power_efficient_wq'
PATTERNS = {'periodic': "the article's periodic work (deferrable, every 8 ms)",
	    'kfence': "KFENCE's sampling work (every 100 ms)"}


def headline(configs: List[Config]) -> Dict[str, Dict[str, Dict[int, Spread]]]:
	"""pattern -> 'LITTLE'/'big' -> mode -> wake-ups per second of those
	CPUs, of the work on system_power_efficient_wq with the mask full."""
	out: Dict[str, Dict[str, Dict[int, Spread]]] = {}
	for c in configs:
		if c.mask != 'full' or not c.idle_counts:
			continue
		for pattern in PATTERNS:
			for kind, cpus in (('LITTLE', c.little), ('big', c.big)):
				out.setdefault(pattern, {}).setdefault(kind, {})[c.mode] = \
					wakeups(c, HEADLINE_WQ, pattern, cpus)
	return out


def verdict(off: Spread, on: Spread) -> str:
	"""How the mode on compares with the mode off."""
	if not beyond_noise(off, on):
		return 'within noise'
	return f'{"more" if on.mean > off.mean else "fewer"} with the mode on'


def markdown(results: Dict[str, List[Config]]) -> str:
	"""The headline table, then a table per kernel and configuration."""
	windows = max((c.windows for cs in results.values() for c in cs), default=1)
	out = [f'Wake-ups per second: runs of the work on {HEADLINE_WQ} that found their '
	       'CPU back from idle, per second, on the LITTLE and on the big CPUs, with '
	       'wq_unbound_cpumask full, queued from a LITTLE CPU while a big one is busy; '
	       f'mean ± standard deviation over {windows} windows. "Within noise": the means '
	       f'are less than {NOISE} standard errors apart.', '',
	       '| kernel | work | CPUs | mode off | mode on | mode on vs off |',
	       '|---|---|---|---|---|---|']
	for version, configs in results.items():
		for pattern, kinds in headline(configs).items():
			for kind, modes in kinds.items():
				off, on = modes.get(0), modes.get(1)
				cells = [str(m) if m else 'not run' for m in (off, on)]
				cells.append(verdict(off, on) if off and on else 'n/a')
				out.append(f'| {version} | {pattern} | {kind} | ' + ' | '.join(cells) + ' |')
	for version, configs in results.items():
		for c in configs:
			out += ['', f'**{version}, power_efficient={c.mode}, mask {c.mask} '
				f'(CPUs {span(c.unbound)}), from CPU{c.start}, CPU{c.busy} busy** '
				f'(LITTLE {span(c.little)}, big {span(c.big)}; {c.windows} windows '
				'added up)', '',
				'| workqueue | pattern | runs | runs per CPU | CPUs | LITTLE / big | '
				'runs after idle |', '|---|---|---|---|---|---|---|']
			out += [_row(c, c.run(wq, pattern)) for wq, pattern in SERIES]
	return '\n'.join(out) + '\n'


def span(cpus: List[int]) -> str:
	"""@cpus as a CPU list such as 0-3,6, the way %*pbl prints it."""
	return boot_configs.cpus_text(sorted(cpus)) or 'none'
