# SPDX-License-Identifier: GPL-2.0
"""The placement report's picture: per kernel and configuration, the runs
of each series per CPU on one scale in runs, the runs after idle beside
them, the queueing and busy CPUs, the mask and LITTLE and big marked."""

import html
from typing import Dict, List, Optional, Tuple

from .report import FEW, SERIES, Config, Run, _span

# Okabe-Ito: system_wq orange, the power-efficient one blue; KFENCE darker.
COLOURS = ['#E69F00', '#56B4E9', '#D55E00', '#0072B2']
OUTSIDE = '#DDDDDD'			# background of a CPU outside the mask
SLOT, IDLE, PLOT_H, AXIS = 32, 52, 120, 30	# CPU slot, idle group, plot height, axis
BELOW = 70				# CPU numbers, markers, mask, kinds, notes
PANEL_W = AXIS + 8 * SLOT + 10 + IDLE
GAP, TOP = 26, 104


def _text(x: float, y: float, text: str, size: int = 9, anchor: str = 'middle',
	  cls: str = '', extra: str = '') -> str:
	"""A <text> of @text at @x, @y; @cls its class, @extra more attributes."""
	c = f' class="{cls}"' if cls else ''
	return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}"'
		f'{c}{extra}>{html.escape(text)}</text>')


def _rect(x: float, y: float, w: float, h: float, fill: str, extra: str = '',
	  tip: str = '') -> str:
	"""A <rect>, with @tip as its <title> when given."""
	attrs = f'x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" fill="{fill}"{extra}'
	if not tip:
		return f'<rect {attrs}/>'
	return f'<rect {attrs}><title>{html.escape(tip)}</title></rect>'


def scale(most: int) -> Tuple[int, int]:
	"""The top of the y axis and its tick step for at most @most runs."""
	step = 1
	while True:
		for factor in (1, 2, 5):
			if -(-max(most, 1) // (step * factor)) <= 5:
				n = step * factor
				return n * -(-max(most, 1) // n), n
		step *= 10


def _defs() -> List[str]:
	"""Hatching for runs after idle: neutral for the legend, one per series."""
	out = ['<defs>']
	for name, fill in [('idle', '#FFFFFF')] + [(f'idle{j}', c) for j, c in enumerate(COLOURS)]:
		out += [f'<pattern id="{name}" width="4" height="4" patternUnits="userSpaceOnUse" '
			'patternTransform="rotate(45)">', _rect(0, 0, 4, 4, fill),
			'<line x1="0" y1="0" x2="0" y2="4" stroke="#000000" stroke-width="2"/>',
			'</pattern>']
	return out + ['</defs>']


def _run(c: Config, j: int) -> Optional[Run]:
	try:
		return c.run(*SERIES[j])
	except ValueError:
		return None


def _cpus(c: Config, x0: float, y0: float, cpus: List[int]) -> List[str]:
	"""Under the plot: CPU numbers, the queueing and busy CPUs, the mask,
	LITTLE and big; and the slots' backgrounds."""
	out = []
	for i, cpu in enumerate(cpus):
		cx = x0 + (i + 0.5) * SLOT
		if cpu not in c.unbound:
			out.append(_rect(x0 + i * SLOT, y0, SLOT, PLOT_H, OUTSIDE, ' class="outside"'))
		out.append(_text(cx, y0 + PLOT_H + 11, str(cpu), 10, cls='cpu'))
		marks = (['from'] if cpu == c.start else []) + (['busy'] if cpu == c.busy else [])
		if marks:
			out.append(_text(cx, y0 + PLOT_H + 21, ','.join(marks), 8, cls=' '.join(marks),
					 extra=' font-weight="bold"'))
		if cpu in c.unbound:
			out.append(_rect(x0 + i * SLOT + 1, y0 + PLOT_H + 25, SLOT - 2, 4, '#000000',
					 ' class="mask"'))
		if i and (cpu in c.little) != (cpus[i - 1] in c.little):
			out.append(f'<line x1="{x0 + i * SLOT:.1f}" y1="{y0}" x2="{x0 + i * SLOT:.1f}" '
				   f'y2="{y0 + PLOT_H + 44}" stroke="#555555" stroke-dasharray="3,2"/>')
	out.append(_text(x0 - 3, y0 + PLOT_H + 11, 'CPU', 8, 'end'))
	out.append(_text(x0 - 3, y0 + PLOT_H + 29, 'mask', 8, 'end'))
	for kind, members in (('LITTLE', c.little), ('big', c.big)):
		at = [i for i, cpu in enumerate(cpus) if cpu in members]
		if at:
			out.append(_text(x0 + (at[0] + at[-1] + 1) / 2 * SLOT, y0 + PLOT_H + 41,
					 f'{kind} {_span(members)}', 9, cls='kind'))
	return out


def _axis(x0: float, y0: float, top: int, step: int) -> List[str]:
	"""Grid lines and tick labels in runs, from 0 to @top."""
	out = [_text(x0 - 3, y0 - 10, 'runs', 8, 'end')]
	for n in range(0, top + 1, step):
		y = y0 + PLOT_H - n * PLOT_H / top
		out.append(f'<line x1="{x0 - 3}" y1="{y:.1f}" x2="{x0 + 8 * SLOT + 10 + IDLE}" '
			   f'y2="{y:.1f}" stroke="{"#888888" if n == 0 else "#E4E4E4"}"/>')
		out.append(_text(x0 - 5, y + 3, str(n), 9, 'end', 'tick'))
	return out


def _bars(c: Config, x0: float, y0: float, cpus: List[int], top: int) -> List[str]:
	"""Per CPU, a bar per series; then per series, its runs after idle."""
	out, bar, idle = [], SLOT / (len(SERIES) + 1), IDLE / (len(SERIES) + 1)
	gx = x0 + 8 * SLOT + 10
	for j, (wq, pattern) in enumerate(SERIES):
		run = _run(c, j)
		if not run:
			continue
		few = run.runs < FEW
		for i, cpu in enumerate(cpus):
			n = run.per_cpu.get(cpu, 0)
			if n:
				x, hh = x0 + i * SLOT + (j + 0.5) * bar, n * PLOT_H / top
				out.append(_rect(x, y0 + PLOT_H - hh, bar, hh, COLOURS[j], ' class="bar"',
						 f'{wq}, {pattern}: {n} of {run.runs} runs on CPU{cpu}'))
				if few:
					out.append(_text(x + bar / 2, y0 + PLOT_H - hh - 2, '*', 10, cls='few'))
		if not c.idle_counts:
			continue
		x = gx + (j + 0.5) * idle
		hh, ww = run.runs * PLOT_H / top, run.woke * PLOT_H / top
		out.append(_rect(x, y0 + PLOT_H - hh, idle, hh, '#FFFFFF',
				 f' stroke="{COLOURS[j]}" stroke-width="1.5"'))
		out.append(_rect(x, y0 + PLOT_H - ww, idle, ww, f'url(#idle{j})', ' class="woke"',
				 f'{wq}, {pattern}: {run.woke} of {run.runs} runs after idle '
				 f'({run.woke * 1000 / run.ms if run.ms else 0.0:.1f}/s)'))
		if few:
			out.append(_text(x + idle / 2, y0 + PLOT_H - hh - 2, '*', 10, cls='few'))
	if not c.idle_counts:
		out.append(_text(gx + IDLE / 2, y0 + PLOT_H / 2, 'n/a', 9))
	out.append(_text(gx + IDLE / 2, y0 + PLOT_H + 11, 'after', 9, cls='idle'))
	out.append(_text(gx + IDLE / 2, y0 + PLOT_H + 21, 'idle', 9, cls='idle'))
	return out


def _panel(c: Config, title: str, x: float, y: float, top: int, step: int) -> List[str]:
	"""One configuration, its plot at @x + AXIS, @y on a scale up to @top."""
	cpus = sorted(set(c.little) | set(c.big) | set(c.unbound)) or [0]
	x0 = x + AXIS
	out = [f'<g class="panel" id="panel-{html.escape(title.replace(", ", "-").replace(" ", "-"))}">',
	       _text(x + PANEL_W / 2, y - 8, title, 12, extra=' font-weight="bold"'),
	       _rect(x0, y, 8 * SLOT, PLOT_H, '#FFFFFF')]
	out += _cpus(c, x0, y, cpus)
	out += _axis(x0, y, top, step)
	out += _bars(c, x0, y, cpus, top)
	for fx, fw in ((x0, 8 * SLOT), (x0 + 8 * SLOT + 10, IDLE)):
		out.append(_rect(fx, y, fw, PLOT_H, 'none', ' stroke="#999999"'))
	few = [r for r in c.runs if r.runs < FEW]
	for k, r in enumerate(few[:2]):
		more = f' (and {len(few) - 2} more)' if k == 1 and len(few) > 2 else ''
		out.append(_text(x0, y + PLOT_H + 55 + 11 * k,
				 f'* too few runs to tell: {r.wq}, {r.pattern} ({r.runs}){more}', 9,
				 'start', 'few-note'))
	return out + ['</g>']


def _legend(width: float) -> List[str]:
	"""What the bars, hatching, shading and marks mean."""
	out = []
	for j, (wq, pattern) in enumerate(SERIES):
		x = 16 + j * (width - 32) / len(SERIES)
		out.append(_rect(x, 8, 12, 12, COLOURS[j], ' class="swatch"'))
		out.append(_text(x + 16, 18, f'{j + 1}. {wq}, {pattern}', 11, 'start'))
	out += [_rect(16, 28, 12, 12, '#FFFFFF', ' stroke="#000000"'),
		_rect(16, 33, 12, 7, 'url(#idle)', ' stroke="#000000"'),
		_text(32, 38, 'runs after idle (their CPU had entered idle since the work last ran '
		      'there), over all CPUs; outline: all runs', 11, 'start', 'legend-idle'),
		_rect(16, 46, 12, 12, OUTSIDE, ' stroke="#999999"'),
		_text(32, 56, 'CPU outside wq_unbound_cpumask', 11, 'start'),
		_rect(260, 50, 12, 4, '#000000'),
		_text(276, 56, 'mask: CPUs wq_unbound_cpumask allows', 11, 'start'),
		_text(520, 56, 'from: CPU the work is queued from; busy: CPU kept busy', 11, 'start'),
		_text(16, 74, 'Bars: runs per CPU, series 1-4 left to right in each CPU\'s slot, on '
		      'one scale in every panel; LITTLE and big CPUs on either side of the dashed '
		      'line.', 11, 'start'),
		_text(16, 90, 'periodic: the article\'s deferrable work re-queueing itself every '
		      '8 ms; kfence: KFENCE\'s sampling work (a normal timer every 100 ms); '
		      f'* fewer than {FEW} runs, too few to tell pinned from spread.', 11, 'start')]
	return out


def svg(results: Dict[str, List[Config]]) -> str:
	"""Per-CPU histograms in runs, one panel per kernel and configuration."""
	rows: List[Tuple[str, List[Config]]] = []
	for version, configs in results.items():
		for mode in sorted({c.mode for c in configs}):
			rows.append((f'{version}, mode {"on" if mode else "off"}',
				     [c for c in configs if c.mode == mode]))
	top, step = scale(max((r.runs for _, cs in rows for c in cs for r in c.runs), default=1))
	cols = max((len(r[1]) for r in rows), default=1)
	width = 16 + cols * (PANEL_W + GAP)
	height = TOP + 20 + len(rows) * (20 + PLOT_H + BELOW)
	out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
	       f'font-family="sans-serif">', f'<rect width="{width}" height="{height}" fill="white"/>']
	out += _defs() + _legend(width)
	for r, (label, configs) in enumerate(rows):
		for k, c in enumerate(configs):
			out += _panel(c, f'{label}, mask {c.mask}', 16 + k * (PANEL_W + GAP),
				      TOP + 20 + r * (20 + PLOT_H + BELOW), top, step)
	out.append('</svg>')
	return '\n'.join(out) + '\n'
