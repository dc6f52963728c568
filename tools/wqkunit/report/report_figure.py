#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Draw the placement report's figures from the JSON figures.py writes.

Run by Debian's /usr/bin/python3, which has python3-matplotlib:

    report_figure.py REPORT.json DIR

writes DIR/report.png and .svg (the headline: wake-ups per second of idle
CPUs, power-efficient mode off and on, LITTLE and big, per kernel) and
DIR/report-detail.png and .svg (runs per second on each CPU, per kernel,
mode and mask).  Exits 2 with a one-line reason when it cannot."""

import json
import sys

# Okabe-Ito: told apart with any colour vision.
OFF, ON = '#0072B2', '#E69F00'
SERIES = ('#56B4E9', '#0072B2', '#E69F00', '#D55E00')
OUTSIDE = '#DDDDDD'


def fail(reason):
	print(f'report_figure: {reason}', file=sys.stderr)
	sys.exit(2)


def save(fig, directory, name):
	"""@name.png and @name.svg, the SVG reproducible from the same data."""
	fig.savefig(f'{directory}/{name}.png', dpi=110)
	fig.savefig(f'{directory}/{name}.svg', metadata={'Date': None})


def headline_panel(ax, panel, spec):
	"""Two groups (LITTLE, big), a bar per mode: the mean, its standard
	deviation as an error bar, a dot per window; the verdict above."""
	top = max([v for g in panel['groups'] for v in g['off'] + g['on']] + [1.0])
	for i, group in enumerate(panel['groups']):
		for offset, key, colour in ((-0.2, 'off', OFF), (0.2, 'on', ON)):
			values = group[key]
			if not values:
				continue
			mean = sum(values) / len(values)
			sd = (sum((v - mean) ** 2 for v in values) / (len(values) - 1)) ** 0.5 \
				if len(values) > 1 else 0.0
			ax.bar(i + offset, mean, 0.36, yerr=sd, capsize=4, color=colour,
			       edgecolor='black', linewidth=0.5)
			spread = [i + offset + 0.05 * (k - (len(values) - 1) / 2) for k in range(len(values))]
			ax.plot(spread, values, 'o', color='black', markersize=2.5)
		ax.text(i, top * 1.08, group['verdict'], ha='center', va='bottom', fontsize=8)
	ax.set_xticks(range(len(panel['groups'])), [g['label'] for g in panel['groups']])
	ax.set_ylim(0, top * 1.3)
	ax.set_title(panel['title'], fontsize=9)
	ax.set_ylabel('wake-ups per second')
	ax.grid(axis='y', linewidth=0.3)


def headline(plt, spec, directory):
	panels = spec['headline']
	kernels = max(1, len({p['title'].split(':')[0] for p in panels}))
	rows = max(1, len(panels) // kernels)
	fig, axes = plt.subplots(rows, kernels, figsize=(max(9.0, 4.6 * kernels), 3.2 * rows + 1.4),
				 squeeze=False)
	for ax, panel in zip([a for row in axes for a in row], panels):
		headline_panel(ax, panel, spec)
	fig.suptitle(f'How often periodic work on {spec["wq"]} wakes an idle CPU,\n'
		     'LITTLE and big, power-efficient mode off and on', fontsize=11)
	handles = [plt.Rectangle((0, 0), 1, 1, color=OFF), plt.Rectangle((0, 0), 1, 1, color=ON)]
	fig.legend(handles, ['mode off: per-CPU, runs where it was queued',
			     'mode on: unbound, the scheduler picks the CPU'],
		   loc='lower center', ncol=2, fontsize=8, frameon=False)
	fig.text(0.5, 0.055, f'Runs that found their CPU back from idle, per second; bar: mean, '
		 f'error bar: standard deviation, dots: each of {spec["windows"]} windows. '
		 f'Queued from a LITTLE CPU while a big one is busy; wq_unbound_cpumask: all CPUs. '
		 f'"Within noise": means less than {spec["noise"]} standard errors apart.',
		 ha='center', fontsize=7, wrap=True)
	fig.tight_layout(rect=(0, 0.1, 1, 0.93))
	save(fig, directory, 'report')


def detail_panel(ax, panel):
	cpus = panel['cpus']
	width = 0.8 / max(1, len(panel['series']))
	for x, cpu in enumerate(cpus):
		if cpu not in panel['inside']:
			ax.axvspan(x - 0.5, x + 0.5, color=OUTSIDE, linewidth=0)
	for k, (series, colour) in enumerate(zip(panel['series'], SERIES)):
		ax.bar([x - 0.4 + width * (k + 0.5) for x in range(len(cpus))], series['values'],
		       width, color=colour, label=series['label'], edgecolor='black', linewidth=0.3)
	labels = []
	for cpu in cpus:
		mark = ' from' if cpu == panel['start'] else ' busy' if cpu == panel['busy'] else ''
		labels.append(f'{cpu}\n{"L" if cpu in panel["little"] else "b"}{mark}')
	ax.set_xticks(range(len(cpus)), labels, fontsize=7)
	ax.set_xlim(-0.5, len(cpus) - 0.5)
	ax.set_title(panel['title'], fontsize=8)
	ax.grid(axis='y', linewidth=0.3)


def detail(plt, spec, directory):
	panels = spec['detail']
	rows = list(dict.fromkeys(p['row'] for p in panels))
	columns = max(1, max((sum(p['row'] == r for p in panels) for r in rows), default=1))
	fig, axes = plt.subplots(max(1, len(rows)), columns, sharey='row',
				 figsize=(4.2 * columns, 2.6 * max(1, len(rows)) + 1), squeeze=False)
	for r, row in enumerate(rows):
		for c, panel in enumerate(p for p in panels if p['row'] == row):
			detail_panel(axes[r][c], panel)
		axes[r][0].set_ylabel('runs per second')
	handles, labels = axes[0][0].get_legend_handles_labels()
	handles.append(plt.Rectangle((0, 0), 1, 1, color=OUTSIDE))
	labels.append('CPU outside wq_unbound_cpumask (per-CPU work may still run there)')
	fig.legend(handles, labels, loc='lower center', ncol=3, fontsize=7, frameon=False)
	fig.suptitle('Where the work ran: runs per second on each CPU, mean over '
		     f'{spec["windows"]} windows (L: LITTLE, b: big)', fontsize=10)
	fig.tight_layout(rect=(0, 0.06, 1, 0.97))
	save(fig, directory, 'report-detail')


def main(argv):
	if len(argv) != 3 or argv[1] in ('-h', '--help'):
		print(__doc__)
		return 0 if len(argv) == 2 else 2
	try:
		with open(argv[1], encoding='utf-8') as f:
			spec = json.load(f)
	except (OSError, ValueError) as e:
		fail(f'cannot read {argv[1]}: {e}')
	if not isinstance(spec, dict) or not all(isinstance(spec.get(k), list)
						 for k in ('headline', 'detail')):
		fail(f'{argv[1]} is not a report: no headline and detail panels')
	try:
		import matplotlib
		matplotlib.use('Agg')
		import matplotlib.pyplot as plt
	except ImportError:
		fail('matplotlib is missing: apt-get install python3-matplotlib')
	plt.rcParams['svg.hashsalt'] = 'wq-kunit'
	try:
		headline(plt, spec, argv[2])
		detail(plt, spec, argv[2])
	except OSError as e:
		fail(f'cannot write the figures: {e}')
	except (KeyError, TypeError, ValueError) as e:
		fail(f'{argv[1]} is not a report: {e!r}')
	return 0


if __name__ == '__main__':
	sys.exit(main(sys.argv))
